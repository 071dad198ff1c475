__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    float v = x[g];
    float ip;
    float s, c;
    s = sincos(v, &c);
    f[g] = sin(v) + pow(fabs(v), 2.5f) + fma(v, v, 1.0f) + exp(v * 0.1f) + fract(v, &ip) + ip + s * c
         + atan2(v, 2.0f) + log1p(fabs(v)) + rootn(fabs(v) + 1.0f, 3) + ldexp(v, y[g] & 7) + hypot(v, 3.0f);
    int e;
    float m = frexp(v, &e);
    i[g] = e + ilogb(v + 1000.0f) + (int)(m * 100.0f) + isnan(v) + signbit(v);
}