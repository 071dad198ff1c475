/*
 * test_api: bad inputs through the ICD loader, checked against the error
 * codes the OpenCL 3.0 API specification requires, then one correct 3-D
 * ND-range with a global offset checked on the host.
 *
 * Every call goes through libOpenCL (the system ICD loader), so this is what
 * an application sees.  Where the loader itself answers (NULL handles, the
 * platform/device lists), that is noted; everything else reaches the
 * implementation.
 *
 * Prints one line per check, then "N passed, M failed"; the exit status is
 * non-zero when any check failed.
 *
 *   gcc -Wall -Werror -o test_api examples/test_api.c -lOpenCL
 *   OCL_ICD_VENDORS=$PWD/build/icd ./test_api
 */
#include "clerr.h"

#include <stdarg.h>
#include <stdlib.h>

static int passed, failed;

/* Records one check: `what` names it; on failure `fmt` says what happened. */
static void record(int ok, const char *what, int line, const char *fmt, ...)
{
    if (ok) {
        passed++;
        printf("ok    %s\n", what);
        return;
    }
    failed++;
    printf("FAIL  test_api.c:%d: %s: ", line, what);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
}

#define CHECK(cond, what, ...) record((cond), (what), __LINE__, __VA_ARGS__)

/* An expression that returns a cl_int error code. */
#define CHECK_ERR(expr, expected)                                            \
    do {                                                                     \
        cl_int got_ = (expr);                                                \
        record(got_ == (expected), #expr " -> " #expected, __LINE__,         \
               "returned %s (%d)", cl_error_name(got_), got_);               \
    } while (0)

/* Checks that pass a live handle of the wrong kind (a context where a queue
 * is expected, ...).  Build with -DSKIP_WRONG_TYPE_HANDLES to compare the
 * other checks against an implementation that does not validate handle
 * kinds and crashes on these (PoCL 3.1 does). */
#ifdef SKIP_WRONG_TYPE_HANDLES
#define WRONG_TYPE(check) ((void)0)
#else
#define WRONG_TYPE(check) check
#endif

/* A clCreate* call that must fail: NULL handle and `err` == expected. */
#define CHECK_CREATE_FAILS(obj, err, expected, what)                         \
    do {                                                                     \
        record((obj) == NULL && (err) == (expected), what " -> " #expected,  \
               __LINE__, "returned a %s handle and %s (%d)",                 \
               (obj) ? "non-NULL" : "NULL", cl_error_name(err), (err));      \
    } while (0)

/* Setup steps that the remaining checks cannot do without. */
#define REQUIRE(call)                                                 \
    do {                                                              \
        cl_int err_ = (call);                                         \
        if (err_ != CL_SUCCESS) {                                     \
            printf("FAIL  %s:%d: setup: %s returned %s (%d)\n",       \
                   __FILE__, __LINE__, #call, cl_error_name(err_),    \
                   err_);                                             \
            failed++;                                                 \
            return finish();                                          \
        }                                                             \
    } while (0)

static int finish(void)
{
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

/* Kernels used by the checks.  Built without -cl-std, so OpenCL C 1.2
 * semantics apply: work-groups must be uniform (global % local == 0). */
static const char *good_source =
    "__kernel void args(__global float *dst, __local float *scratch, int n)\n"
    "{\n"
    "    size_t l = get_local_id(0);\n"
    "    scratch[l] = (float)n;\n"
    "    dst[get_global_id(0)] = scratch[l];\n"
    "}\n"
    "\n"
    "/* One record of 10 uints per work item, indexed without the offset. */\n"
    "__kernel void ids(__global uint *out)\n"
    "{\n"
    "    size_t x = get_global_id(0) - get_global_offset(0);\n"
    "    size_t y = get_global_id(1) - get_global_offset(1);\n"
    "    size_t z = get_global_id(2) - get_global_offset(2);\n"
    "    size_t lin = (z * get_global_size(1) + y) * get_global_size(0) + x;\n"
    "    __global uint *o = out + lin * 10;\n"
    "    for (uint d = 0; d < 3; d++) {\n"
    "        o[d]     = (uint)get_global_id(d);\n"
    "        o[3 + d] = (uint)get_local_id(d);\n"
    "        o[6 + d] = (uint)get_group_id(d);\n"
    "    }\n"
    "    o[9] = get_work_dim();\n"
    "}\n";

static const char *broken_source =
    "__kernel void broken(__global int *p)\n"
    "{\n"
    "    p[0] = ;\n"
    "}\n";

static char *build_log(cl_program program, cl_device_id device)
{
    size_t size = 0;
    if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size) != CL_SUCCESS)
        return NULL;
    char *log = calloc(size + 1, 1);
    if (log && clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log, NULL) != CL_SUCCESS) {
        free(log);
        return NULL;
    }
    return log;
}

/* The 3-D ND-range: sizes chosen so every dimension has several groups and
 * a non-zero, distinct offset. */
static void check_ids_kernel(cl_context context, cl_command_queue queue, cl_program program)
{
    enum { GX = 8, GY = 6, GZ = 4, LX = 4, LY = 3, LZ = 2, OX = 5, OY = 7, OZ = 11 };
    const size_t global[3] = {GX, GY, GZ}, local[3] = {LX, LY, LZ}, offset[3] = {OX, OY, OZ};
    const size_t count = (size_t)GX * GY * GZ * 10;
    cl_int err;

    cl_kernel kernel = clCreateKernel(program, "ids", &err);
    CHECK(err == CL_SUCCESS, "clCreateKernel(\"ids\")", "returned %s (%d)", cl_error_name(err), err);
    if (err != CL_SUCCESS)
        return;
    cl_uint *host = malloc(count * sizeof(cl_uint));
    for (size_t i = 0; i < count; i++)
        host[i] = 0xdeadbeef; /* never a valid id, so unwritten records fail */
    cl_mem out = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                count * sizeof(cl_uint), host, &err);
    CHECK(err == CL_SUCCESS, "clCreateBuffer(ids output)", "returned %s (%d)", cl_error_name(err), err);
    if (err == CL_SUCCESS) {
        CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(cl_mem), &out), CL_SUCCESS);
        CHECK_ERR(clEnqueueNDRangeKernel(queue, kernel, 3, offset, global, local, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, count * sizeof(cl_uint), host, 0, NULL, NULL),
                  CL_SUCCESS);

        int bad = 0;
        for (cl_uint z = 0; z < GZ; z++)
            for (cl_uint y = 0; y < GY; y++)
                for (cl_uint x = 0; x < GX; x++) {
                    const cl_uint *o = host + (((size_t)z * GY + y) * GX + x) * 10;
                    const cl_uint want[10] = {
                        x + OX, y + OY, z + OZ, /* global id includes the offset */
                        x % LX, y % LY, z % LZ, /* local id */
                        x / LX, y / LY, z / LZ, /* group id does not */
                        3,
                    };
                    if (memcmp(o, want, sizeof want) != 0) {
                        if (bad < 5)
                            printf("      item (%u,%u,%u): got gid (%u,%u,%u) lid (%u,%u,%u)"
                                   " grp (%u,%u,%u) dim %u\n",
                                   x, y, z, o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7], o[8], o[9]);
                        bad++;
                    }
                }
        CHECK(bad == 0, "3-D ids with offset match the host", "%d of %d work items wrote wrong ids", bad,
              GX * GY * GZ);
        clReleaseMemObject(out);
    }
    free(host);
    clReleaseKernel(kernel);
}

/* Kernels may call the C math library (exp and pow are libm calls once
 * compiled), though this program does not link libm itself. */
static void check_math_kernel(cl_context context, cl_device_id device, cl_command_queue queue)
{
    static const char *src =
        "kernel void m(global float *out) {\n"
        "    float x = (float)get_global_id(0) * 0.25f;\n"
        "    out[get_global_id(0)] = exp(x) + pow(x, 1.5f);\n"
        "}\n";
    enum { N = 16 };
    cl_int err;
    cl_program program = clCreateProgramWithSource(context, 1, &src, NULL, &err);
    CHECK_ERR(clBuildProgram(program, 1, &device, "", NULL, NULL), CL_SUCCESS);
    cl_kernel kernel = clCreateKernel(program, "m", &err);
    CHECK(err == CL_SUCCESS, "clCreateKernel(\"m\")", "returned %s (%d)", cl_error_name(err), err);
    cl_mem out = clCreateBuffer(context, CL_MEM_READ_WRITE, N * sizeof(float), NULL, &err);
    float host[N] = {0};
    if (kernel && out) {
        const size_t global = N;
        CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(cl_mem), &out), CL_SUCCESS);
        CHECK_ERR(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL), CL_SUCCESS);
        CHECK_ERR(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof host, host, 0, NULL, NULL), CL_SUCCESS);
        /* exp(1) + pow(1, 1.5) at item 4; exp(0) + pow(0, 1.5) at item 0. */
        int close = host[0] == 1.0f && host[4] > 3.7182f && host[4] < 3.7183f;
        CHECK(close, "a kernel calling exp and pow computes them", "got %f and %f", host[0], host[4]);
    }
    clReleaseMemObject(out);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
}

int main(void)
{
    cl_int err;
    char buf[256];
    size_t size = 0;

    /* Line-buffered even into a pipe, so a crash leaves the checks done so
     * far in the log. */
    setvbuf(stdout, NULL, _IOLBF, 0);

    /* ---- platform and device queries ---- */
    cl_platform_id platform;
    REQUIRE(pick_platform("ferrocl", &platform));
    REQUIRE(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof buf, buf, NULL));
    printf("platform: %s\n", buf);

    /* Answered by the loader: neither an output array nor a count. */
    CHECK_ERR(clGetPlatformIDs(0, NULL, NULL), CL_INVALID_VALUE);

    /* Extension functions of a program linked against the loader, whose
     * own clGetExtensionFunctionAddress shares the name of the ICD's. */
    {
        static const char *const names[] = {
            "clCreateCommandBufferKHR", "clUpdateMutableCommandsKHR", "clGetMutableCommandInfoKHR",
        };
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            void *fn = clGetExtensionFunctionAddressForPlatform(platform, names[i]);
            CHECK(fn != NULL, "clGetExtensionFunctionAddressForPlatform finds an extension function",
                  "%s is NULL", names[i]);
        }
        CHECK(clGetExtensionFunctionAddressForPlatform(platform, "clNoSuchFunctionKHR") == NULL,
              "clGetExtensionFunctionAddressForPlatform of an unknown name", "is not NULL");
    }

    CHECK_ERR(clGetPlatformInfo(platform, 0xdead, sizeof buf, buf, NULL), CL_INVALID_VALUE);
    CHECK_ERR(clGetPlatformInfo(platform, CL_PLATFORM_NAME, 1, buf, NULL), CL_INVALID_VALUE);
    /* Size query protocol: NULL value returns the size (with the NUL), and
     * exactly that size is enough. */
    CHECK_ERR(clGetPlatformInfo(platform, CL_PLATFORM_NAME, 0, NULL, &size), CL_SUCCESS);
    {
        char *name = malloc(size ? size : 1);
        size_t size2 = 0;
        CHECK_ERR(clGetPlatformInfo(platform, CL_PLATFORM_NAME, size, name, &size2), CL_SUCCESS);
        CHECK(size2 == size && size > 0 && strlen(name) + 1 == size, "size query matches the value",
              "size query said %zu, value has %zu bytes with its NUL", size, strlen(name) + 1);
        free(name);
    }
    CHECK_ERR(clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof buf, buf, NULL), CL_SUCCESS);
    CHECK(strncmp(buf, "OpenCL 3.0 ", 11) == 0, "CL_PLATFORM_VERSION starts with \"OpenCL 3.0 \"",
          "it is \"%s\"", buf);

    cl_device_id device;
    cl_uint ndev = 0;
    REQUIRE(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &ndev));
    CHECK(ndev >= 1, "CL_DEVICE_TYPE_ALL lists a device", "it listed %u", ndev);
    REQUIRE(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof buf, buf, NULL));
    printf("device:   %s\n", buf);

    cl_device_id gpu;
    CHECK_ERR(clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, &gpu, NULL), CL_DEVICE_NOT_FOUND);
    CHECK_ERR(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, &gpu, NULL), CL_INVALID_VALUE);
    CHECK_ERR(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, NULL, NULL), CL_INVALID_VALUE);
    CHECK_ERR(clGetDeviceInfo(device, 0xdead, sizeof buf, buf, NULL), CL_INVALID_VALUE);

    /* ---- contexts ---- */
    /* Without properties the loader itself rejects a NULL device list; with
     * CL_CONTEXT_PLATFORM it dispatches, so the implementation must. */
    cl_context bad_ctx = clCreateContext(NULL, 1, NULL, NULL, NULL, &err);
    CHECK_CREATE_FAILS(bad_ctx, err, CL_INVALID_VALUE, "clCreateContext(devices NULL)");
    {
        cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)platform, 0};
        bad_ctx = clCreateContext(props, 1, NULL, NULL, NULL, &err);
        CHECK_CREATE_FAILS(bad_ctx, err, CL_INVALID_VALUE, "clCreateContext(platform, devices NULL)");
        bad_ctx = clCreateContext(props, 0, &device, NULL, NULL, &err);
        CHECK_CREATE_FAILS(bad_ctx, err, CL_INVALID_VALUE, "clCreateContext(platform, num_devices 0)");
    }

    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    REQUIRE(err);
    cl_command_queue queue = clCreateCommandQueueWithProperties(context, device, NULL, &err);
    REQUIRE(err);

    /* ---- buffers ---- */
    cl_mem mem;
    int host_word = 0;
    mem = clCreateBuffer(context, CL_MEM_READ_WRITE, 0, NULL, &err);
    CHECK_CREATE_FAILS(mem, err, CL_INVALID_BUFFER_SIZE, "clCreateBuffer(size 0)");
    mem = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, 64, NULL, &err);
    CHECK_CREATE_FAILS(mem, err, CL_INVALID_HOST_PTR, "clCreateBuffer(USE_HOST_PTR, host_ptr NULL)");
    mem = clCreateBuffer(context, CL_MEM_READ_WRITE, sizeof host_word, &host_word, &err);
    CHECK_CREATE_FAILS(mem, err, CL_INVALID_HOST_PTR, "clCreateBuffer(host_ptr without COPY/USE)");
    mem = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 64, NULL, &err);
    CHECK_CREATE_FAILS(mem, err, CL_INVALID_VALUE, "clCreateBuffer(READ_ONLY | WRITE_ONLY)");

    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 1024, NULL, &err);
    REQUIRE(err);
    CHECK_ERR(clGetMemObjectInfo(buffer, 0xdead, sizeof buf, buf, NULL), CL_INVALID_VALUE);
    /* Answered by the loader: a NULL handle has no dispatch table. */
    CHECK_ERR(clGetMemObjectInfo(NULL, CL_MEM_SIZE, sizeof size, &size, NULL), CL_INVALID_MEM_OBJECT);

    /* ---- wrong-type handles ----
     * Real handles of this implementation, so the loader dispatches them
     * (it only reads the first word); the implementation must notice the
     * object is of the wrong kind.  Released handles are not tried: the
     * loader would read freed memory before the implementation is reached. */
    WRONG_TYPE(CHECK_ERR(clFinish((cl_command_queue)context), CL_INVALID_COMMAND_QUEUE));
    WRONG_TYPE(CHECK_ERR(clGetCommandQueueInfo((cl_command_queue)buffer, CL_QUEUE_CONTEXT,
                                               sizeof(cl_context), buf, NULL),
                         CL_INVALID_COMMAND_QUEUE));
    WRONG_TYPE(CHECK_ERR(clGetKernelInfo((cl_kernel)buffer, CL_KERNEL_NUM_ARGS, sizeof(cl_uint), buf, NULL),
                         CL_INVALID_KERNEL));
    WRONG_TYPE(CHECK_ERR(clGetMemObjectInfo((cl_mem)queue, CL_MEM_SIZE, sizeof size, &size, NULL),
                         CL_INVALID_MEM_OBJECT));
    WRONG_TYPE(CHECK_ERR(clGetContextInfo((cl_context)queue, CL_CONTEXT_NUM_DEVICES, sizeof(cl_uint), buf, NULL),
                         CL_INVALID_CONTEXT));

    /* ---- program builds ---- */
    cl_program broken = clCreateProgramWithSource(context, 1, &broken_source, NULL, &err);
    REQUIRE(err);
    CHECK_ERR(clBuildProgram(broken, 1, &device, "", NULL, NULL), CL_BUILD_PROGRAM_FAILURE);
    {
        cl_build_status status = CL_BUILD_NONE;
        CHECK_ERR(clGetProgramBuildInfo(broken, device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, NULL),
                  CL_SUCCESS);
        CHECK(status == CL_BUILD_ERROR, "CL_PROGRAM_BUILD_STATUS is CL_BUILD_ERROR", "it is %d", (int)status);
        char *log = build_log(broken, device);
        CHECK(log != NULL && strstr(log, "error") != NULL, "build log mentions \"error\"", "log: \"%s\"",
              log ? log : "(none)");
        free(log);
        /* No executable, so no kernels. */
        cl_kernel k = clCreateKernel(broken, "broken", &err);
        CHECK_CREATE_FAILS(k, err, CL_INVALID_PROGRAM_EXECUTABLE, "clCreateKernel(failed program)");
    }
    clReleaseProgram(broken);

    cl_program options_program = clCreateProgramWithSource(context, 1, &good_source, NULL, &err);
    REQUIRE(err);
    CHECK_ERR(clBuildProgram(options_program, 1, &device, "-cl-no-such-option", NULL, NULL),
              CL_INVALID_BUILD_OPTIONS);
    clReleaseProgram(options_program);

    cl_program program = clCreateProgramWithSource(context, 1, &good_source, NULL, &err);
    REQUIRE(err);
    err = clBuildProgram(program, 1, &device, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        char *log = build_log(program, device);
        printf("build log:\n%s\n", log ? log : "(none)");
        free(log);
    }
    REQUIRE(err);

    /* ---- kernels and their arguments ---- */
    cl_kernel kernel = clCreateKernel(program, "no_such_kernel", &err);
    CHECK_CREATE_FAILS(kernel, err, CL_INVALID_KERNEL_NAME, "clCreateKernel(\"no_such_kernel\")");
    kernel = clCreateKernel(program, "args", &err);
    REQUIRE(err);

    size_t global = 64, local = 8;
    /* Nothing set yet. */
    CHECK_ERR(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL),
              CL_INVALID_KERNEL_ARGS);

    cl_int n = 42;
    CHECK_ERR(clSetKernelArg(kernel, 3, sizeof n, &n), CL_INVALID_ARG_INDEX);
    CHECK_ERR(clSetKernelArg(kernel, 99, sizeof n, &n), CL_INVALID_ARG_INDEX);
    CHECK_ERR(clSetKernelArg(kernel, 2, sizeof(cl_long), &n), CL_INVALID_ARG_SIZE);
    CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(cl_int), &buffer), CL_INVALID_ARG_SIZE);
    WRONG_TYPE(CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(cl_mem), &queue), CL_INVALID_MEM_OBJECT));
    CHECK_ERR(clSetKernelArg(kernel, 1, 64, &n), CL_INVALID_ARG_VALUE); /* __local takes NULL */
    CHECK_ERR(clSetKernelArg(kernel, 1, 0, NULL), CL_INVALID_ARG_SIZE); /* __local needs a size */
    WRONG_TYPE(CHECK_ERR(clSetKernelArg((cl_kernel)buffer, 0, sizeof(cl_mem), &buffer), CL_INVALID_KERNEL));

    CHECK_ERR(clSetKernelArg(kernel, 0, sizeof(cl_mem), &buffer), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(kernel, 1, local * sizeof(cl_float), NULL), CL_SUCCESS);
    CHECK_ERR(clSetKernelArg(kernel, 2, sizeof n, &n), CL_SUCCESS);

    /* ---- ND-range launches ---- */
    size_t global3[4] = {64, 1, 1, 1}, local3[4] = {8, 1, 1, 1};
    CHECK_ERR(clEnqueueNDRangeKernel(queue, kernel, 0, NULL, global3, local3, 0, NULL, NULL),
              CL_INVALID_WORK_DIMENSION);
    CHECK_ERR(clEnqueueNDRangeKernel(queue, kernel, 4, NULL, global3, local3, 0, NULL, NULL),
              CL_INVALID_WORK_DIMENSION);
    {
        size_t g = 100, l = 7; /* 100 % 7 != 0, and OpenCL C 1.2 needs uniform groups */
        CHECK_ERR(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &g, &l, 0, NULL, NULL),
                  CL_INVALID_WORK_GROUP_SIZE);
    }
    WRONG_TYPE(CHECK_ERR(clEnqueueNDRangeKernel((cl_command_queue)context, kernel, 1, NULL, &global, &local,
                                                0, NULL, NULL),
                         CL_INVALID_COMMAND_QUEUE));
    WRONG_TYPE(CHECK_ERR(clEnqueueNDRangeKernel(queue, (cl_kernel)buffer, 1, NULL, &global, &local,
                                                0, NULL, NULL),
                         CL_INVALID_KERNEL));
    /* The arguments are valid now: the launch itself runs (64 floats = 256
     * of the buffer's 1024 bytes). */
    CHECK_ERR(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL), CL_SUCCESS);
    {
        cl_float out[64];
        CHECK_ERR(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL), CL_SUCCESS);
        int bad = 0;
        for (int i = 0; i < 64; i++)
            bad += out[i] != 42.0f;
        CHECK(bad == 0, "args kernel wrote n everywhere", "%d of 64 elements differ from 42", bad);
    }

    /* ---- reads out of bounds ---- */
    {
        char host[128];
        CHECK_ERR(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 1000, 100, host, 0, NULL, NULL), CL_INVALID_VALUE);
        CHECK_ERR(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, 1025, host, 0, NULL, NULL), CL_INVALID_VALUE);
        CHECK_ERR(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 0, 16, NULL, 0, NULL, NULL), CL_INVALID_VALUE);
    }

    /* ---- a correct 3-D launch with a global offset ---- */
    check_ids_kernel(context, queue, program);
    check_math_kernel(context, device, queue);

    CHECK_ERR(clFinish(queue), CL_SUCCESS);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clReleaseMemObject(buffer);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    return finish();
}
