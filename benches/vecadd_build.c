/* Runs the same work on every OpenCL platform present and prints each
 * figure side by side with its ratio to the first platform named
 * "ferrocl": the build time of a small program (build plus first launch,
 * since some implementations compile at first launch), and a vector add
 * over 64 MiB buffers (best of several runs, result checked). */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N (16u << 20) /* floats: 64 MiB per buffer */
#define RUNS 10

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

#define CHECK(x)                                                                   \
    do {                                                                           \
        cl_int e_ = (x);                                                           \
        if (e_ != CL_SUCCESS) {                                                    \
            fprintf(stderr, "%s:%d: %s -> %d\n", __FILE__, __LINE__, #x, e_);      \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

static const char *SRC =
    "kernel void add(global const float *a, global const float *b, global float *c) {\n"
    "    size_t i = get_global_id(0);\n"
    "    c[i] = a[i] + b[i];\n"
    "}\n";

struct result { char name[64]; double build_ms, add_ms; };

static struct result run(cl_platform_id p) {
    struct result r;
    memset(&r, 0, sizeof r);
    CHECK(clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof r.name, r.name, NULL));
    cl_device_id d;
    CHECK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL));
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    CHECK(err);
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, d, NULL, &err);
    CHECK(err);
    float *a = malloc(N * sizeof(float)), *b = malloc(N * sizeof(float)), *c = malloc(N * sizeof(float));
    for (unsigned i = 0; i < N; i++) { a[i] = (float)i; b[i] = 2.0f * i; }
    cl_mem ba = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * 4, a, &err); CHECK(err);
    cl_mem bb = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, N * 4, b, &err); CHECK(err);
    cl_mem bc = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, N * 4, NULL, &err); CHECK(err);

    /* Build plus first launch on a one-item range. */
    double t0 = now();
    cl_program prog = clCreateProgramWithSource(ctx, 1, &SRC, NULL, &err);
    CHECK(err);
    CHECK(clBuildProgram(prog, 1, &d, "", NULL, NULL));
    cl_kernel k = clCreateKernel(prog, "add", &err);
    CHECK(err);
    CHECK(clSetKernelArg(k, 0, sizeof ba, &ba));
    CHECK(clSetKernelArg(k, 1, sizeof bb, &bb));
    CHECK(clSetKernelArg(k, 2, sizeof bc, &bc));
    size_t one = 1;
    CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, NULL));
    CHECK(clFinish(q));
    r.build_ms = (now() - t0) * 1e3;

    size_t global = N;
    r.add_ms = 1e9;
    for (int i = 0; i < RUNS; i++) {
        double s = now();
        CHECK(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, NULL));
        CHECK(clFinish(q));
        double ms = (now() - s) * 1e3;
        if (ms < r.add_ms) r.add_ms = ms;
    }
    CHECK(clEnqueueReadBuffer(q, bc, CL_TRUE, 0, N * 4, c, 0, NULL, NULL));
    for (unsigned i = 0; i < N; i++)
        if (c[i] != 3.0f * i) { fprintf(stderr, "%s: wrong result at %u\n", r.name, i); exit(1); }
    clReleaseKernel(k); clReleaseProgram(prog);
    clReleaseMemObject(ba); clReleaseMemObject(bb); clReleaseMemObject(bc);
    clReleaseCommandQueue(q); clReleaseContext(ctx);
    free(a); free(b); free(c);
    return r;
}

int main(void) {
    cl_uint n = 0;
    CHECK(clGetPlatformIDs(0, NULL, &n));
    cl_platform_id ps[8];
    if (n > 8) n = 8;
    CHECK(clGetPlatformIDs(n, ps, NULL));
    struct result rs[8];
    for (cl_uint i = 0; i < n; i++) rs[i] = run(ps[i]);
    int base = 0;
    for (cl_uint i = 0; i < n; i++) if (!strcmp(rs[i].name, "ferrocl")) base = i;
    printf("%-36s %14s %14s\n", "platform", "build+launch", "vecadd 64MiB");
    for (cl_uint i = 0; i < n; i++) {
        printf("%-36s %11.1f ms %11.2f ms", rs[i].name, rs[i].build_ms, rs[i].add_ms);
        if ((int)i != base)
            printf("   ferrocl is %.2fx faster to build, %.2fx faster to add",
                   rs[i].build_ms / rs[base].build_ms, rs[i].add_ms / rs[base].add_ms);
        printf("\n");
    }
    return 0;
}
