__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    i[g] = work_group_reduce_add(y[g] & 0xff) + work_group_scan_inclusive_max(y[g]) + work_group_all(y[g] > -5)
         + work_group_broadcast(y[g], 3);
    f[g] = work_group_reduce_min(x[g]) + work_group_scan_exclusive_add(x[g]);
}