__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    __local float t[64];
    event_t e = async_work_group_copy(t, x + get_group_id(0) * 64, 64, 0);
    wait_group_events(1, &e);
    f[get_global_id(0)] = t[63 - get_local_id(0)];
    i[get_global_id(0)] = get_global_linear_id() + get_local_linear_id();
}