int twice(int* p) { return *p * 2; }
__kernel void k(__global int* out, __global atomic_int* total, float f) {
    int mine = (int)get_global_id(0);
    __local int shared;
    if (get_local_id(0) == 0) shared = 5;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = twice(&mine) + twice(&shared) + work_group_reduce_add(1);
    atomic_fetch_add(total, 1);
    if (mine == 0) printf("%d %f %v4d\n", mine, f, (int4)(1, 2, 3, 4));
    __global int* g = to_global((int*)&out[1]);
    if (g) *g = 3;
}
