/*
 * Small helpers shared by the C examples: OpenCL error-code names and the
 * platform pick ("ferrocl" if the loader lists it, else the first platform).
 * Header-only so every example still builds from a single gcc command.
 */
#ifndef FERROCL_EXAMPLES_CLERR_H
#define FERROCL_EXAMPLES_CLERR_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdio.h>
#include <string.h>

static const char *cl_error_name(cl_int err)
{
    switch (err) {
#define E(x) case x: return #x
    E(CL_SUCCESS);
    E(CL_DEVICE_NOT_FOUND);
    E(CL_DEVICE_NOT_AVAILABLE);
    E(CL_COMPILER_NOT_AVAILABLE);
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE);
    E(CL_OUT_OF_RESOURCES);
    E(CL_OUT_OF_HOST_MEMORY);
    E(CL_PROFILING_INFO_NOT_AVAILABLE);
    E(CL_MEM_COPY_OVERLAP);
    E(CL_IMAGE_FORMAT_MISMATCH);
    E(CL_IMAGE_FORMAT_NOT_SUPPORTED);
    E(CL_BUILD_PROGRAM_FAILURE);
    E(CL_MAP_FAILURE);
    E(CL_MISALIGNED_SUB_BUFFER_OFFSET);
    E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    E(CL_COMPILE_PROGRAM_FAILURE);
    E(CL_LINKER_NOT_AVAILABLE);
    E(CL_LINK_PROGRAM_FAILURE);
    E(CL_DEVICE_PARTITION_FAILED);
    E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
    E(CL_INVALID_VALUE);
    E(CL_INVALID_DEVICE_TYPE);
    E(CL_INVALID_PLATFORM);
    E(CL_INVALID_DEVICE);
    E(CL_INVALID_CONTEXT);
    E(CL_INVALID_QUEUE_PROPERTIES);
    E(CL_INVALID_COMMAND_QUEUE);
    E(CL_INVALID_HOST_PTR);
    E(CL_INVALID_MEM_OBJECT);
    E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    E(CL_INVALID_IMAGE_SIZE);
    E(CL_INVALID_SAMPLER);
    E(CL_INVALID_BINARY);
    E(CL_INVALID_BUILD_OPTIONS);
    E(CL_INVALID_PROGRAM);
    E(CL_INVALID_PROGRAM_EXECUTABLE);
    E(CL_INVALID_KERNEL_NAME);
    E(CL_INVALID_KERNEL_DEFINITION);
    E(CL_INVALID_KERNEL);
    E(CL_INVALID_ARG_INDEX);
    E(CL_INVALID_ARG_VALUE);
    E(CL_INVALID_ARG_SIZE);
    E(CL_INVALID_KERNEL_ARGS);
    E(CL_INVALID_WORK_DIMENSION);
    E(CL_INVALID_WORK_GROUP_SIZE);
    E(CL_INVALID_WORK_ITEM_SIZE);
    E(CL_INVALID_GLOBAL_OFFSET);
    E(CL_INVALID_EVENT_WAIT_LIST);
    E(CL_INVALID_EVENT);
    E(CL_INVALID_OPERATION);
    E(CL_INVALID_GL_OBJECT);
    E(CL_INVALID_BUFFER_SIZE);
    E(CL_INVALID_MIP_LEVEL);
    E(CL_INVALID_GLOBAL_WORK_SIZE);
    E(CL_INVALID_PROPERTY);
    E(CL_INVALID_IMAGE_DESCRIPTOR);
    E(CL_INVALID_COMPILER_OPTIONS);
    E(CL_INVALID_LINKER_OPTIONS);
    E(CL_INVALID_DEVICE_PARTITION_COUNT);
    E(CL_INVALID_PIPE_SIZE);
    E(CL_INVALID_DEVICE_QUEUE);
    E(CL_INVALID_SPEC_ID);
    E(CL_MAX_SIZE_RESTRICTION_EXCEEDED);
    /* From cl_khr_icd: what the loader answers when it finds no platform. */
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";
#undef E
    default: return "unknown OpenCL error";
    }
}

/*
 * Picks the platform named `want`; falls back to the first platform so the
 * examples can also be pointed at another implementation for comparison.
 * Returns CL_SUCCESS or the failing call's error code.
 */
static cl_int pick_platform(const char *want, cl_platform_id *out)
{
    cl_platform_id platforms[16];
    cl_uint n = 0;
    cl_int err = clGetPlatformIDs(16, platforms, &n);
    if (err != CL_SUCCESS)
        return err;
    if (n == 0)
        return CL_INVALID_PLATFORM;
    if (n > 16)
        n = 16;
    for (cl_uint i = 0; i < n; i++) {
        char name[256] = "";
        err = clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL);
        if (err != CL_SUCCESS)
            return err;
        if (strcmp(name, want) == 0) {
            *out = platforms[i];
            return CL_SUCCESS;
        }
    }
    fprintf(stderr, "note: no platform named \"%s\"; using the first of %u platform(s)\n", want, n);
    *out = platforms[0];
    return CL_SUCCESS;
}

#endif
