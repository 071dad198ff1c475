int helper(int a, int b) {
    switch (a & 7) {
        case 0: return b;
        case 1: return a + b;
        case 3: return a * b;
        case 6: return a - b;
        default: return a ^ b;
    }
}
__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    int priv[16];
    for (int k = 0; k < 16; k++) priv[k] = helper(y[(g + k) & 255], k);
    int acc = 0;
    for (int k = 0; k < (y[g] & 15); k++) acc += priv[(k * 7) & 15];
    while (acc > 1000) acc /= 3;
    i[g] = acc;
    f[g] = x[g] > 0.0f ? x[g] * 2.0f : (x[g] < -0.5f ? -x[g] : 1.0f);
}