/*
 * runtime_costs: what one process pays to reach ferrocl and run a program
 * from its binary, for scripts/runtime-costs.sh (the README's table of the
 * default and the runtime-only library).
 *
 *   runtime_costs device         loader to device: clGetPlatformIDs, clGetDeviceIDs
 *   runtime_costs run BINARY     load, clCreateProgramWithBinary, build, one launch
 *
 * Prints the milliseconds since main began and the process's peak resident
 * memory in KiB: "<ms> <kib>". The binary is examples/clc_vecadd.cl made by
 * clc (kernel vecadd, local size 16). Exits non-zero on any failure.
 */
#include "../examples/clerr.h"

#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int fail(const char *what, cl_int err)
{
    fprintf(stderr, "runtime_costs: %s: %s (%d)\n", what, cl_error_name(err), err);
    return 1;
}

int main(int argc, char **argv)
{
    double start = now_ms();
    if (argc < 2 || (strcmp(argv[1], "run") == 0 && argc < 3)) {
        fprintf(stderr, "usage: runtime_costs device | run BINARY\n");
        return 2;
    }
    cl_platform_id platform;
    cl_device_id device;
    cl_int err = pick_platform("ferrocl", &platform);
    if (err != CL_SUCCESS)
        return fail("clGetPlatformIDs", err);
    err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    if (err != CL_SUCCESS)
        return fail("clGetDeviceIDs", err);
    if (strcmp(argv[1], "run") == 0) {
        FILE *f = fopen(argv[2], "rb");
        if (!f)
            return fail("cannot open the binary", 0);
        static unsigned char bin[1 << 20];
        size_t len = fread(bin, 1, sizeof bin, f);
        fclose(f);
        cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
        if (err != CL_SUCCESS)
            return fail("clCreateContext", err);
        cl_command_queue q = clCreateCommandQueueWithProperties(ctx, device, NULL, &err);
        if (err != CL_SUCCESS)
            return fail("clCreateCommandQueueWithProperties", err);
        const unsigned char *bins[] = {bin};
        cl_int status;
        cl_program p = clCreateProgramWithBinary(ctx, 1, &device, &len, bins, &status, &err);
        if (err != CL_SUCCESS)
            return fail("clCreateProgramWithBinary", err);
        err = clBuildProgram(p, 1, &device, "", NULL, NULL);
        if (err != CL_SUCCESS)
            return fail("clBuildProgram", err);
        cl_kernel k = clCreateKernel(p, "vecadd", &err);
        if (err != CL_SUCCESS)
            return fail("clCreateKernel", err);
        enum { N = 1024 };
        float a[N], b[N], c[N];
        for (int i = 0; i < N; i++) {
            a[i] = (float)i;
            b[i] = 1.0f;
        }
        cl_mem ma = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof a, a, &err);
        cl_mem mb = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof b, b, &err);
        cl_mem mc = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, sizeof c, NULL, &err);
        clSetKernelArg(k, 0, sizeof ma, &ma);
        clSetKernelArg(k, 1, sizeof mb, &mb);
        clSetKernelArg(k, 2, sizeof mc, &mc);
        size_t global = N, local = 16;
        err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return fail("clEnqueueNDRangeKernel", err);
        err = clEnqueueReadBuffer(q, mc, CL_TRUE, 0, sizeof c, c, 0, NULL, NULL);
        if (err != CL_SUCCESS)
            return fail("clEnqueueReadBuffer", err);
        for (int i = 0; i < N; i++)
            if (c[i] != a[i] + 3.0f * b[i])
                return fail("wrong result", 0);
        clReleaseMemObject(ma);
        clReleaseMemObject(mb);
        clReleaseMemObject(mc);
        clReleaseKernel(k);
        clReleaseProgram(p);
        clReleaseCommandQueue(q);
        clReleaseContext(ctx);
    }
    double elapsed = now_ms() - start;
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("%.1f %ld\n", elapsed, usage.ru_maxrss);
    return 0;
}
