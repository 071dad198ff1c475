__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    float v = x[g] * 1000.0f;
    i[g] = convert_int_sat_rte(v) + convert_int_rtn(v) * 3 + convert_uchar_sat(y[g]) + convert_short_sat(v * 100.0f)
         + as_int(v) + (int)convert_uint_sat(v) + convert_char_sat_rtp(v);
    f[g] = convert_float_rtz(y[g]) + convert_float_rtp((long)y[g] * 1000003L) + (float)(double)v + as_float(y[g] & 0x3fffffff);
}