/*
 * vecadd: the ferrocl demo.  An ordinary OpenCL host program: it goes
 * through the system ICD loader (-lOpenCL), picks the platform named
 * "ferrocl" (or the first platform), builds a kernel from OpenCL C source,
 * adds two float vectors of 1M elements on the device and checks every
 * element against the same addition done on the host.
 *
 * Build and run (only ferrocl visible to the loader):
 *   gcc -O2 -Wall -o vecadd examples/vecadd.c -lOpenCL
 *   OCL_ICD_VENDORS=$PWD/build/icd ./vecadd
 * or simply `make demo`.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c11 */
#include "clerr.h"

#include <stdlib.h>
#include <time.h>

#define N (1u << 20)

static const char *kernel_source =
    "__kernel void vecadd(__global const float *a,\n"
    "                     __global const float *b,\n"
    "                     __global float *c,\n"
    "                     const uint n)\n"
    "{\n"
    "    size_t i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        c[i] = a[i] + b[i];\n"
    "}\n";

static void fail(const char *what, cl_int err, int line)
{
    fprintf(stderr, "vecadd.c:%d: %s failed: %s (%d)\n", line, what, cl_error_name(err), err);
    printf("FAIL\n");
    exit(1);
}

/* Every OpenCL call goes through one of these two: any error ends the run. */
#define CL_CHECK(call)                                   \
    do {                                                 \
        cl_int err_ = (call);                            \
        if (err_ != CL_SUCCESS)                          \
            fail(#call, err_, __LINE__);                 \
    } while (0)
#define CL_CHECK_ERR(what, err)                          \
    do {                                                 \
        if ((err) != CL_SUCCESS)                         \
            fail(what, (err), __LINE__);                 \
    } while (0)

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(void)
{
    cl_int err;
    cl_platform_id platform;
    CL_CHECK(pick_platform("ferrocl", &platform));

    char platform_name[256], platform_version[256], device_name[256];
    CL_CHECK(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof platform_name, platform_name, NULL));
    CL_CHECK(clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof platform_version, platform_version, NULL));

    cl_device_id device;
    CL_CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
    CL_CHECK(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof device_name, device_name, NULL));
    printf("platform: %s (%s)\n", platform_name, platform_version);
    printf("device:   %s\n", device_name);

    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CL_CHECK_ERR("clCreateContext", err);
    cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, NULL, &err);
    CL_CHECK_ERR("clCreateCommandQueueWithProperties", err);

    cl_program program = clCreateProgramWithSource(context, 1, &kernel_source, NULL, &err);
    CL_CHECK_ERR("clCreateProgramWithSource", err);
    err = clBuildProgram(program, 1, &device, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        /* The build log is the only place the compiler's diagnostics go. */
        size_t log_size = 0;
        if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &log_size) == CL_SUCCESS) {
            char *log = malloc(log_size + 1);
            if (log && clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, log_size, log, NULL)
                           == CL_SUCCESS) {
                log[log_size] = '\0';
                fprintf(stderr, "build log:\n%s\n", log);
            }
            free(log);
        }
        fail("clBuildProgram", err, __LINE__);
    }
    cl_kernel kernel = clCreateKernel(program, "vecadd", &err);
    CL_CHECK_ERR("clCreateKernel", err);

    float *a = malloc(N * sizeof(float));
    float *b = malloc(N * sizeof(float));
    float *c = malloc(N * sizeof(float));
    if (!a || !b || !c) {
        fprintf(stderr, "out of host memory\n");
        printf("FAIL\n");
        return 1;
    }
    /* Values with non-trivial fractions and signs, so a wrong index or a
     * dropped element cannot match by accident. */
    for (cl_uint i = 0; i < N; i++) {
        a[i] = (float)i * 0.25f - 1000.0f;
        b[i] = (float)(i % 977) * 1.5f + 0.125f;
        c[i] = -1.0f;
    }

    cl_mem buf_a = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof(float), a, &err);
    CL_CHECK_ERR("clCreateBuffer(a)", err);
    cl_mem buf_b = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * sizeof(float), b, &err);
    CL_CHECK_ERR("clCreateBuffer(b)", err);
    cl_mem buf_c = clCreateBuffer(context, CL_MEM_WRITE_ONLY, N * sizeof(float), NULL, &err);
    CL_CHECK_ERR("clCreateBuffer(c)", err);

    cl_uint n = N;
    CL_CHECK(clSetKernelArg(kernel, 0, sizeof(cl_mem), &buf_a));
    CL_CHECK(clSetKernelArg(kernel, 1, sizeof(cl_mem), &buf_b));
    CL_CHECK(clSetKernelArg(kernel, 2, sizeof(cl_mem), &buf_c));
    CL_CHECK(clSetKernelArg(kernel, 3, sizeof(cl_uint), &n));

    /* No local size: the implementation picks the work-group size. */
    size_t global = N;
    double t0 = now_ms();
    CL_CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL));
    CL_CHECK(clFinish(queue));
    double t1 = now_ms();
    CL_CHECK(clEnqueueReadBuffer(queue, buf_c, CL_TRUE, 0, N * sizeof(float), c, 0, NULL, NULL));

    /* One IEEE single-precision add per element on both sides, so the
     * results must be bit-identical, not merely close. */
    cl_uint bad = 0;
    for (cl_uint i = 0; i < N; i++) {
        float want = a[i] + b[i];
        if (c[i] != want) {
            if (bad < 10)
                fprintf(stderr, "mismatch at %u: got %.9g, want %.9g\n", i, c[i], want);
            bad++;
        }
    }

    printf("ran:      vecadd (c[i] = a[i] + b[i]) on %u floats, kernel %.2f ms\n", N, t1 - t0);
    printf("checked:  %u of %u elements correct\n", N - bad, N);

    clReleaseMemObject(buf_a);
    clReleaseMemObject(buf_b);
    clReleaseMemObject(buf_c);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    free(a);
    free(b);
    free(c);

    printf("%s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
