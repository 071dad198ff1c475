__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    int a = y[g], b = y[255 - g];
    uint u = (uint)a;
    i[g] = mul_hi(a, b) + rotate(a, b) + clz(a) + popcount(a) + add_sat(a, b) + (int)abs_diff(a, b)
         + mad24(a & 0xfff, b & 0xfff, 3) + (int)upsample((short)a, (ushort)b) + (int)(u >> (b & 31))
         + (a >> (b & 31)) + (a % (b | 1)) + (a / (b | 1)) + hadd(a, b) + rhadd(u, (uint)b) + sub_sat(a, b)
         + (int)abs(a) + min(a, b) * 3 + max(u, (uint)b) + ctz(a) + mad_sat(a, b, a) + (int)mul_hi(u, (uint)b);
    long l = (long)a * b;
    f[g] = (float)(l >> 7) + (float)(ulong)l;
}