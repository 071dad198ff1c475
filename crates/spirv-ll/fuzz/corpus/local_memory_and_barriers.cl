__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    __local float tile[64];
    __local int sum[1];
    size_t l = get_local_id(0), g = get_global_id(0);
    if (l == 0) sum[0] = 0;
    tile[l] = x[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    float acc = 0.0f;
    for (int k = 0; k < 64; k++) acc += tile[(l + k) % 64] * (float)k;
    atomic_add(sum, y[g]);
    barrier(CLK_LOCAL_MEM_FENCE);
    f[g] = acc;
    i[g] = sum[0] + (int)get_group_id(0) * 1000 + (int)get_local_size(0) + (int)get_num_groups(0) + (int)get_work_dim();
}