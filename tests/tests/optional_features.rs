//! Features OpenCL 3.0 makes optional and the device does not report
//! (pipes, on-device queues): the device
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
