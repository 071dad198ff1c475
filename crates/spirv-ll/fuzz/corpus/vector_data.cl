__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    if (g < 64) {
        float3 v = vload3(g, x);
        vstore3(v * 2.0f, g, f);
        int4 m = vload4(g, y);
        int4 s = shuffle(m, (uint4)(3, 2, 1, 0));
        int8 s2 = shuffle2(m, s, (uint8)(0, 4, 1, 5, 2, 6, 7, 3));
        int4 sel = select(m, s, m > s);
        vstore4(sel + s2.lo + s2.hi, g, i);
    }
}