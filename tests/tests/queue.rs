//! Command-queues (OpenCL 3.0 API spec, section 5.1 "Command-Queues":
//! clCreateCommandQueueWithProperties, clCreateCommandQueue,
//! clRetainCommandQueue/clReleaseCommandQueue, clGetCommandQueueInfo).

use ferrocl_tests::*;
use std::ptr::{null, null_mut};

fn ctx() -> Ctx {
    ok(create_context(null()), "clCreateContext")
}

fn create_12(c: cl_context, props: cl_command_queue_properties) -> Result<Queue, cl_int> {
    let mut rc = 0;
    let q = cl!(clCreateCommandQueue(c, device(), props, &mut rc));
    result(rc, q).map(Queue)
}

fn host_queue_props() -> cl_command_queue_properties {
    ok(
        device_info(device(), CL_DEVICE_QUEUE_ON_HOST_PROPERTIES),
        "QUEUE_ON_HOST_PROPERTIES",
    )
    .u64()
}

#[test]
fn create_queue_with_null_properties() {
    let c = ctx();
    let q = ok(
        create_queue(c.get(), null()),
        "clCreateCommandQueueWithProperties(NULL)",
    );
    assert_eq!(
        ok(queue_info(q.get(), CL_QUEUE_PROPERTIES), "PROPERTIES").u64(),
        0
    );
}

#[test]
fn create_queue_with_profiling_property() {
    let c = ctx();
    let props: [cl_queue_properties; 3] =
        [CL_QUEUE_PROPERTIES as u64, CL_QUEUE_PROFILING_ENABLE, 0];
    let q = ok(create_queue(c.get(), props.as_ptr()), "create(PROFILING)");
    assert_eq!(
        ok(queue_info(q.get(), CL_QUEUE_PROPERTIES), "PROPERTIES").u64(),
        CL_QUEUE_PROFILING_ENABLE
    );
}

#[test]
fn create_queue_with_empty_property_list() {
    let c = ctx();
    let props: [cl_queue_properties; 1] = [0];
    let q = ok(create_queue(c.get(), props.as_ptr()), "create({0})");
    assert_eq!(
        ok(queue_info(q.get(), CL_QUEUE_PROPERTIES), "PROPERTIES").u64(),
        0
    );
}

#[test]
fn queue_properties_array_returns_the_given_list() {
    let c = ctx();
    let props: [cl_queue_properties; 3] =
        [CL_QUEUE_PROPERTIES as u64, CL_QUEUE_PROFILING_ENABLE, 0];
    let q = ok(create_queue(c.get(), props.as_ptr()), "create(PROFILING)");
    let got = ok(
        queue_info(q.get(), CL_QUEUE_PROPERTIES_ARRAY),
        "PROPERTIES_ARRAY",
    )
    .u64s();
    assert_eq!(got, props.to_vec());
}

#[test]
fn queue_properties_array_is_empty_without_properties() {
    let c = ctx();
    let q = ok(create_queue(c.get(), null()), "create(NULL)");
    let mut size = 99usize;
    check(
        cl!(clGetCommandQueueInfo(
            q.get(),
            CL_QUEUE_PROPERTIES_ARRAY,
            0,
            null_mut(),
            &mut size
        )),
        "PROPERTIES_ARRAY size",
    );
    assert_eq!(size, 0);
}

#[test]
fn create_queue_with_1_2_entry_point() {
    let c = ctx();
    let q = ok(
        create_12(c.get(), CL_QUEUE_PROFILING_ENABLE),
        "clCreateCommandQueue",
    );
    assert_eq!(
        ok(queue_info(q.get(), CL_QUEUE_PROPERTIES), "PROPERTIES").u64(),
        CL_QUEUE_PROFILING_ENABLE
    );
    // Created with clCreateCommandQueue: no properties array.
    let mut size = 99usize;
    check(
        cl!(clGetCommandQueueInfo(
            q.get(),
            CL_QUEUE_PROPERTIES_ARRAY,
            0,
            null_mut(),
            &mut size
        )),
        "PROPERTIES_ARRAY size",
    );
    assert_eq!(size, 0);
}

#[test]
fn queue_from_1_2_entry_point_runs_commands() {
    let e = Env::new();
    let q = ok(create_12(e.c(), 0), "clCreateCommandQueue");
    let m = e.buffer(16);
    let data = [1u32, 2, 3, 4];
    check(
        cl!(clEnqueueWriteBuffer(
            q.get(),
            m.get(),
            CL_TRUE,
            0,
            16,
            data.as_ptr().cast(),
            0,
            null(),
            null_mut()
        )),
        "write",
    );
    let mut back = [0u32; 4];
    check(
        cl!(clEnqueueReadBuffer(
            q.get(),
            m.get(),
            CL_TRUE,
            0,
            16,
            back.as_mut_ptr().cast(),
            0,
            null(),
            null_mut()
        )),
        "read",
    );
    assert_eq!(back, data);
}

#[test]
fn create_queue_with_undefined_property_bits_is_invalid_value() {
    let c = ctx();
    let props: [cl_queue_properties; 3] = [CL_QUEUE_PROPERTIES as u64, 1 << 20, 0];
    assert_err(
        create_queue(c.get(), props.as_ptr()),
        CL_INVALID_VALUE,
        "CL_QUEUE_PROPERTIES = 1 << 20",
    );
}

#[test]
fn create_queue_1_2_with_undefined_property_bits_is_invalid_value() {
    let c = ctx();
    assert_err(
        create_12(c.get(), 1 << 20),
        CL_INVALID_VALUE,
        "clCreateCommandQueue(1 << 20)",
    );
}

#[test]
fn create_queue_with_unknown_property_name_is_invalid_value() {
    let c = ctx();
    let props: [cl_queue_properties; 3] = [0x7777, 0, 0];
    assert_err(
        create_queue(c.get(), props.as_ptr()),
        CL_INVALID_VALUE,
        "property 0x7777",
    );
}

#[test]
fn create_queue_out_of_order_follows_device_support() {
    let c = ctx();
    let props: [cl_queue_properties; 3] = [
        CL_QUEUE_PROPERTIES as u64,
        CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
        0,
    ];
    let r = create_queue(c.get(), props.as_ptr());
    if host_queue_props() & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE != 0 {
        let q = ok(r, "create(OUT_OF_ORDER)");
        assert_eq!(
            ok(queue_info(q.get(), CL_QUEUE_PROPERTIES), "PROPERTIES").u64(),
            CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE
        );
    } else {
        // Valid but unsupported.
        assert_err(
            r,
            CL_INVALID_QUEUE_PROPERTIES,
            "create(OUT_OF_ORDER) on a device without it",
        );
    }
}

#[test]
fn create_device_queue_without_device_enqueue_support_is_invalid_queue_properties() {
    let caps = ok(
        device_info(device(), CL_DEVICE_DEVICE_ENQUEUE_CAPABILITIES),
        "DEVICE_ENQUEUE_CAPABILITIES",
    )
    .u64();
    if caps & CL_DEVICE_QUEUE_SUPPORTED != 0 {
        return; // device queues are supported: nothing to check here
    }
    let c = ctx();
    let props: [cl_queue_properties; 3] = [
        CL_QUEUE_PROPERTIES as u64,
        CL_QUEUE_ON_DEVICE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
        0,
    ];
    assert_err(
        create_queue(c.get(), props.as_ptr()),
        CL_INVALID_QUEUE_PROPERTIES,
        "CL_QUEUE_ON_DEVICE without device-side enqueue",
    );
}

#[test]
fn create_queue_with_null_device_is_invalid_device() {
    let c = ctx();
    let mut rc = 0;
    let q = cl!(clCreateCommandQueueWithProperties(
        c.get(),
        null_mut(),
        null(),
        &mut rc
    ));
    assert!(q.is_null());
    assert_code(
        rc,
        CL_INVALID_DEVICE,
        "clCreateCommandQueueWithProperties(device NULL)",
    );
}

#[test]
fn queue_info_context_and_device() {
    let c = ctx();
    let q = ok(create_queue(c.get(), null()), "create");
    assert_eq!(
        ok(queue_info(q.get(), CL_QUEUE_CONTEXT), "CONTEXT").ptr(),
        c.get()
    );
    assert_eq!(
        ok(queue_info(q.get(), CL_QUEUE_DEVICE), "DEVICE").ptr(),
        device()
    );
}

#[test]
fn queue_reference_count_follows_retain_and_release() {
    let c = ctx();
    let q = ok(create_queue(c.get(), null()), "create");
    let rc = || {
        ok(
            queue_info(q.get(), CL_QUEUE_REFERENCE_COUNT),
            "REFERENCE_COUNT",
        )
        .u32()
    };
    assert_eq!(rc(), 1);
    check(cl!(clRetainCommandQueue(q.get())), "clRetainCommandQueue");
    assert_eq!(rc(), 2);
    check(cl!(clReleaseCommandQueue(q.get())), "clReleaseCommandQueue");
    assert_eq!(rc(), 1);
}

#[test]
fn queue_size_query_on_host_queue_is_invalid_command_queue() {
    // "To be considered valid for this query, command_queue must be a device
    // command-queue."
    let c = ctx();
    let q = ok(create_queue(c.get(), null()), "create");
    let mut v = 0u32;
    let rc = cl!(clGetCommandQueueInfo(
        q.get(),
        CL_QUEUE_SIZE,
        4,
        (&mut v as *mut u32).cast(),
        null_mut()
    ));
    assert_code(
        rc,
        CL_INVALID_COMMAND_QUEUE,
        "CL_QUEUE_SIZE on a host queue",
    );
}

#[test]
fn queue_info_unknown_param_is_invalid_value() {
    let c = ctx();
    let q = ok(create_queue(c.get(), null()), "create");
    let mut buf = [0u8; 64];
    let rc = cl!(clGetCommandQueueInfo(
        q.get(),
        0x7777,
        64,
        buf.as_mut_ptr().cast(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_VALUE, "clGetCommandQueueInfo(0x7777)");
}

#[test]
fn queue_info_buffer_too_small_is_invalid_value() {
    let c = ctx();
    let q = ok(create_queue(c.get(), null()), "create");
    let mut v = 0u32;
    let rc = cl!(clGetCommandQueueInfo(
        q.get(),
        CL_QUEUE_PROPERTIES,
        4,
        (&mut v as *mut u32).cast(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_VALUE, "CL_QUEUE_PROPERTIES into 4 bytes");
}

#[test]
fn flush_and_finish_on_an_idle_queue_succeed() {
    let e = Env::new();
    check(cl!(clFlush(e.q())), "clFlush");
    check(cl!(clFinish(e.q())), "clFinish");
}

#[test]
fn opencl3_command_queue_create_default_with_properties() {
    let dev = opencl3::device::Device::new(device());
    let ctx = opencl3::context::Context::from_device(&dev).unwrap();
    let q = opencl3::command_queue::CommandQueue::create_default_with_properties(
        &ctx,
        CL_QUEUE_PROFILING_ENABLE,
        0,
    )
    .expect("CommandQueue::create_default_with_properties");
    assert_eq!(q.properties().unwrap(), CL_QUEUE_PROFILING_ENABLE);
    assert_eq!(q.device().unwrap(), device());
    q.finish().unwrap();
}

#[test]
fn create_command_queue_khr_is_clcreatecommandqueuewithproperties() {
    type CreateKhr = unsafe extern "C" fn(
        cl_context,
        cl_device_id,
        *const cl_queue_properties,
        *mut cl_int,
    ) -> cl_command_queue;
    let exts = ext_names(&ok(device_info(device(), CL_DEVICE_EXTENSIONS), "extensions").string());
    assert!(
        exts.iter().any(|e| e == "cl_khr_create_command_queue"),
        "{exts:?}"
    );
    let name = std::ffi::CString::new("clCreateCommandQueueWithPropertiesKHR").unwrap();
    let f = cl!(clGetExtensionFunctionAddressForPlatform(
        platform(),
        name.as_ptr()
    ));
    assert!(!f.is_null());
    // SAFETY: the extension's function, of the type its header gives it.
    let create: CreateKhr = unsafe { std::mem::transmute(f) };
    let e = Env::new();
    let props = [
        CL_QUEUE_PROPERTIES as cl_queue_properties,
        CL_QUEUE_PROFILING_ENABLE,
        0,
    ];
    let mut rc = 0;
    let q = Queue(unsafe { create(e.c(), e.device, props.as_ptr(), &mut rc) });
    check(rc, "clCreateCommandQueueWithPropertiesKHR");
    let got = ok(queue_info(q.get(), CL_QUEUE_PROPERTIES), "properties").u64();
    assert_eq!(got, CL_QUEUE_PROFILING_ENABLE);
    let bad = [CL_QUEUE_PROPERTIES as cl_queue_properties, 1 << 40, 0];
    let q2 = unsafe { create(e.c(), e.device, bad.as_ptr(), &mut rc) };
    assert!(q2.is_null());
    assert_code(rc, CL_INVALID_VALUE, "unknown queue property bits");
}
