//! Features OpenCL 3.0 makes optional and the device does not report
//! (pipes, sub-groups, on-device queues): the device
//! queries say so, and every entry point answers with the spec's code for a
//! device without the feature, after checking its handles.

use ferrocl_tests::*;
use std::ptr::{null, null_mut};

fn dinfo(name: cl_device_info) -> Info {
    ok(device_info(device(), name), "clGetDeviceInfo")
}

#[test]
fn device_queries_report_the_features_absent() {
    assert!(!dinfo(CL_DEVICE_PIPE_SUPPORT).bool());
    assert_eq!(dinfo(CL_DEVICE_MAX_NUM_SUB_GROUPS).u32(), 0);
    assert_eq!(dinfo(CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES).u64(), 0);
}

#[test]
fn a_buffer_is_not_a_pipe() {
    let e = Env::new();
    let b = e.buffer(64);
    let mut v = [0u8; 16];
    assert_code(
        cl!(clGetPipeInfo(
            b.get(),
            CL_PIPE_PACKET_SIZE,
            16,
            v.as_mut_ptr().cast(),
            null_mut()
        )),
        CL_INVALID_MEM_OBJECT,
        "clGetPipeInfo of a buffer",
    );
}

#[test]
fn pipes_cannot_be_created() {
    let e = Env::new();
    let mut rc = 0;
    let p = cl!(clCreatePipe(
        e.c(),
        CL_MEM_READ_WRITE,
        4,
        16,
        null(),
        &mut rc
    ));
    assert!(p.is_null());
    assert_code(rc, CL_INVALID_OPERATION, "clCreatePipe");
    let p = cl!(clCreatePipe(
        null_mut(),
        CL_MEM_READ_WRITE,
        4,
        16,
        null(),
        &mut rc
    ));
    assert!(p.is_null());
    assert_code(rc, CL_INVALID_CONTEXT, "clCreatePipe without a context");
}

#[test]
fn sub_group_queries_are_invalid_operation() {
    let e = Env::new();
    let (_p, k) = e.kernel("__kernel void k(__global int* p) { p[0] = 1; }", "k");
    let local = [64usize];
    let mut n = 0usize;
    assert_code(
        cl!(clGetKernelSubGroupInfo(
            k.get(),
            device(),
            CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
            std::mem::size_of_val(&local),
            local.as_ptr().cast(),
            std::mem::size_of::<usize>(),
            (&mut n as *mut usize).cast(),
            null_mut()
        )),
        CL_INVALID_OPERATION,
        "clGetKernelSubGroupInfo",
    );
    assert_code(
        cl!(clGetKernelSubGroupInfo(
            null_mut(),
            device(),
            CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
            0,
            null(),
            0,
            null_mut(),
            null_mut()
        )),
        CL_INVALID_KERNEL,
        "clGetKernelSubGroupInfo without a kernel",
    );
}

#[test]
fn no_default_device_queue_can_be_set() {
    let e = Env::new();
    assert_code(
        cl!(clSetDefaultDeviceCommandQueue(e.c(), device(), e.q())),
        CL_INVALID_OPERATION,
        "clSetDefaultDeviceCommandQueue",
    );
    assert_code(
        cl!(clSetDefaultDeviceCommandQueue(null_mut(), device(), e.q())),
        CL_INVALID_CONTEXT,
        "clSetDefaultDeviceCommandQueue without a context",
    );
}
