__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    atomic_inc(&i[0]);
    atomic_add(&i[1], y[g]);
    atomic_min(&i[2], y[g]);
    atomic_max(&i[3], y[g]);
    atomic_xor(&i[4], y[g]);
    atomic_cmpxchg(&i[5], 0, 7);
    atomic_fetch_add_explicit((volatile __global atomic_int*)&i[6], 2, memory_order_relaxed, memory_scope_device);
    i[8 + g] = atomic_xchg(&i[7], (int)g) >= 0;
}