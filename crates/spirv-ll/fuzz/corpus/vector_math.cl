__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    float4 v = vload4(g / 4, x);
    float4 ip;
    float4 r = fract(v, &ip) + cos(v) + rsqrt(fabs(v) + 1.0f) + mix(v, ip, 0.25f) + clamp(v, -1.0f, 1.0f)
             + smoothstep(0.0f, 1.0f, v) + step(0.5f, v) + sign(v) + degrees(v) + fmax(v, 0.5f);
    float8 w = (float8)(v, r);
    float8 w2 = sqrt(fabs(w)) + exp2(w * 0.01f);
    f[g] = r.x + r.y * 2.0f + r.z * 3.0f + r.w * 4.0f + dot(v, r) + length(v) + distance(v, r)
         + normalize(v).y + cross(v, r).z + w2.s7 + w2.s3;
    i[g] = any(v > 0.5f) + all(v < 2.0f) * 2 + isless(v.x, v.y) * 4;
}