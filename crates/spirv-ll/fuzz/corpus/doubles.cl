__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    double d = (double)x[g] * 1.0000001;
    f[g] = (float)(sin(d) + exp(d * 0.01) + pow(fabs(d), 1.5) + sqrt(fabs(d)) + fma(d, d, 0.5));
    i[g] = (int)(d * 1e6);
}