__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    __global half* h = (__global half*)i;
    vstore_half_rtz(x[g] * 3.0f, g, h);
    vstore_half(x[g], g + 256, h);
    f[g] = vload_half(g, (__global const half*)x) + vload_half(g + 256, h);
}