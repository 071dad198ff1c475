/*
 * test_clc_binary: a program compiled ahead of time by clc
 * (`clc -DSCALE=3.0f --local-size 16 -o vecadd.bin examples/clc_vecadd.cl`,
 * as `make test` does) loaded with clCreateProgramWithBinary and run
 * through the ICD loader; then the same binary damaged, which is refused.
 * A library built without a compiler (`make build-runtime-only`) runs it
 * too, and refuses a build from source with CL_COMPILER_NOT_AVAILABLE.
 *
 * Prints one line per check, then "N passed, M failed"; the exit status is
 * non-zero when any check failed.
 *
 *   CLC_BINARY=build/examples/clc_vecadd.bin OCL_ICD_VENDORS=$PWD/build/icd ./test_clc_binary
 */
#include "clerr.h"

#include <stdlib.h>

static int passed, failed;

static void record(int ok, const char *what, cl_int got)
{
    if (ok) {
        passed++;
        printf("ok    %s\n", what);
    } else {
        failed++;
        printf("FAIL  %s: %s (%d)\n", what, cl_error_name(got), got);
    }
}

static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *data = malloc(n > 0 ? (size_t)n : 1);
    if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return data;
}

int main(void)
{
    const char *path = getenv("CLC_BINARY");
    if (!path) {
        printf("skipped: CLC_BINARY names no binary\n0 passed, 0 failed\n");
        return 0;
    }
    size_t len = 0;
    unsigned char *bin = read_file(path, &len);
    if (!bin || len == 0) {
        printf("FAIL  cannot read %s\n0 passed, 1 failed\n", path);
        return 1;
    }
    cl_platform_id platform;
    cl_device_id device;
    cl_int err = pick_platform("ferrocl", &platform);
    if (err == CL_SUCCESS)
        err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    record(err == CL_SUCCESS, "a device", err);
    if (err != CL_SUCCESS)
        return 1;
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, device, NULL, &err);

    cl_int status = -1;
    const unsigned char *bins[] = {bin};
    cl_program p = clCreateProgramWithBinary(ctx, 1, &device, &len, bins, &status, &err);
    record(err == CL_SUCCESS && status == CL_SUCCESS, "clCreateProgramWithBinary", err);
    err = clBuildProgram(p, 1, &device, "", NULL, NULL);
    record(err == CL_SUCCESS, "clBuildProgram of the binary", err);
    cl_program_binary_type type = 0;
    err = clGetProgramBuildInfo(p, device, CL_PROGRAM_BINARY_TYPE, sizeof type, &type, NULL);
    record(err == CL_SUCCESS && type == CL_PROGRAM_BINARY_TYPE_EXECUTABLE,
           "CL_PROGRAM_BINARY_TYPE is executable", err);

    enum { N = 1024 };
    static float a[N], b[N], c[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)i;
        b[i] = (float)(2 * i);
    }
    cl_kernel k = clCreateKernel(p, "vecadd", &err);
    record(err == CL_SUCCESS, "clCreateKernel", err);
    cl_mem ma = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, a, &err);
    cl_mem mb = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof b, b, &err);
    cl_mem mc = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof c, NULL, &err);
    clSetKernelArg(k, 0, sizeof ma, &ma);
    clSetKernelArg(k, 1, sizeof mb, &mb);
    clSetKernelArg(k, 2, sizeof mc, &mc);
    /* The local size the binary's machine code was compiled for. */
    size_t global = N, local = 16;
    err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
    record(err == CL_SUCCESS, "clEnqueueNDRangeKernel", err);
    err = clEnqueueReadBuffer(q, mc, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL);
    int right = err == CL_SUCCESS;
    for (int i = 0; i < N && right; i++)
        right = c[i] == (float)i + 3.0f * (float)(2 * i);
    record(right, "c = a + 3 * b, from the binary", err);

    /* Other local sizes: compiled for them by a library with a compiler,
     * the binary's generic form run by one without. */
    size_t others[] = {8, 32, 1};
    for (int o = 0; o < 3; o++) {
        for (int i = 0; i < N; i++)
            c[i] = -1.0f;
        err = clEnqueueWriteBuffer(q, mc, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL);
        err |= clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &others[o], 0, NULL, NULL);
        err |= clEnqueueReadBuffer(q, mc, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL);
        right = err == CL_SUCCESS;
        for (int i = 0; i < N && right; i++)
            right = c[i] == (float)i + 3.0f * (float)(2 * i);
        char what[64];
        snprintf(what, sizeof what, "c = a + 3 * b at local size %zu", others[o]);
        record(right, what, err);
    }

    /* From source: built by a library with a compiler, refused by one
     * without. */
    cl_bool compiler = CL_FALSE;
    clGetDeviceInfo(device, CL_DEVICE_COMPILER_AVAILABLE, sizeof compiler, &compiler, NULL);
    const char *src = "__kernel void k(__global int* o) { o[0] = 1; }";
    cl_program from_source = clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    err = clBuildProgram(from_source, 1, &device, "", NULL, NULL);
    if (compiler)
        record(err == CL_SUCCESS, "a build from source (compiler available)", err);
    else
        record(err == CL_COMPILER_NOT_AVAILABLE,
               "a build from source is CL_COMPILER_NOT_AVAILABLE (no compiler)", err);
    clReleaseProgram(from_source);

    /* One byte changed: refused, the device's status filled. */
    bin[len / 2] ^= 0x10;
    status = CL_SUCCESS;
    cl_program bad = clCreateProgramWithBinary(ctx, 1, &device, &len, bins, &status, &err);
    record(bad == NULL && err == CL_INVALID_BINARY && status == CL_INVALID_BINARY,
           "a damaged binary is CL_INVALID_BINARY", err);

    clReleaseMemObject(ma);
    clReleaseMemObject(mb);
    clReleaseMemObject(mc);
    clReleaseKernel(k);
    clReleaseProgram(p);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(bin);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
