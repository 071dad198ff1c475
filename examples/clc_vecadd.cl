/* Built ahead of time by clc (make test): examples/test_clc_binary.c runs
 * it from the binary. */
__kernel void vecadd(__global const float* a, __global const float* b, __global float* c)
{
    size_t i = get_global_id(0);
    c[i] = a[i] + SCALE * b[i];
}
