//! Contexts (OpenCL 3.0 API spec, section 4.4 "Contexts": clCreateContext,
//! clCreateContextFromType, clRetainContext/clReleaseContext,
//! clGetContextInfo, clSetContextDestructorCallback).

use ferrocl_tests::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

fn platform_props() -> [cl_context_properties; 3] {
    [
        CL_CONTEXT_PLATFORM as cl_context_properties,
        platform() as cl_context_properties,
        0,
    ]
}

fn from_type(ty: cl_device_type, props: *const cl_context_properties) -> Result<Ctx, cl_int> {
    let mut rc = 0;
    let c = cl!(clCreateContextFromType(
        props,
        ty,
        None,
        null_mut(),
        &mut rc
    ));
    result(rc, c).map(Ctx)
}

fn devices_of(c: cl_context) -> Vec<cl_device_id> {
    ok(context_info(c, CL_CONTEXT_DEVICES), "CL_CONTEXT_DEVICES")
        .usizes()
        .into_iter()
        .map(|d| d as cl_device_id)
        .collect()
}

fn refcount(c: cl_context) -> u32 {
    ok(
        context_info(c, CL_CONTEXT_REFERENCE_COUNT),
        "CL_CONTEXT_REFERENCE_COUNT",
    )
    .u32()
}

#[test]
fn create_context_from_device() {
    let c = ok(create_context(null()), "clCreateContext");
    assert_eq!(devices_of(c.get()), vec![device()]);
}

#[test]
fn context_num_devices_is_one() {
    let c = ok(create_context(null()), "clCreateContext");
    assert_eq!(
        ok(context_info(c.get(), CL_CONTEXT_NUM_DEVICES), "NUM_DEVICES").u32(),
        1
    );
}

#[test]
fn create_context_from_type_cpu() {
    let props = platform_props();
    let c = ok(
        from_type(CL_DEVICE_TYPE_CPU, props.as_ptr()),
        "clCreateContextFromType(CPU)",
    );
    assert_eq!(devices_of(c.get()), vec![device()]);
}

#[test]
fn create_context_from_type_default_and_all() {
    let props = platform_props();
    let c = ok(from_type(CL_DEVICE_TYPE_DEFAULT, props.as_ptr()), "DEFAULT");
    assert_eq!(devices_of(c.get()), vec![device()]);
    let c = ok(from_type(CL_DEVICE_TYPE_ALL, props.as_ptr()), "ALL");
    assert_eq!(devices_of(c.get()), vec![device()]);
}

#[test]
fn create_context_from_type_gpu_is_device_not_found() {
    let props = platform_props();
    assert_err(
        from_type(CL_DEVICE_TYPE_GPU, props.as_ptr()),
        CL_DEVICE_NOT_FOUND,
        "FromType(GPU)",
    );
}

#[test]
fn create_context_from_type_accelerator_is_device_not_found() {
    let props = platform_props();
    assert_err(
        from_type(CL_DEVICE_TYPE_ACCELERATOR, props.as_ptr()),
        CL_DEVICE_NOT_FOUND,
        "FromType(ACCELERATOR)",
    );
}

#[test]
fn create_context_from_invalid_type_is_invalid_device_type() {
    let props = platform_props();
    assert_err(
        from_type(1u64 << 40, props.as_ptr()),
        CL_INVALID_DEVICE_TYPE,
        "FromType(1 << 40)",
    );
}

#[test]
fn context_properties_are_accepted_and_returned() {
    let props = platform_props();
    let c = ok(create_context(props.as_ptr()), "clCreateContext(props)");
    let got = ok(
        context_info(c.get(), CL_CONTEXT_PROPERTIES),
        "CL_CONTEXT_PROPERTIES",
    )
    .isizes();
    // "must return the values specified in the properties argument in the
    // same order and without including additional properties" (the list
    // given includes its terminating 0).
    assert_eq!(got, props.to_vec());
}

#[test]
fn context_from_type_properties_are_returned() {
    let props = platform_props();
    let c = ok(
        from_type(CL_DEVICE_TYPE_CPU, props.as_ptr()),
        "FromType(CPU)",
    );
    let got = ok(
        context_info(c.get(), CL_CONTEXT_PROPERTIES),
        "CL_CONTEXT_PROPERTIES",
    )
    .isizes();
    assert_eq!(got, props.to_vec());
}

#[test]
fn context_without_properties_returns_empty_properties() {
    let c = ok(create_context(null()), "clCreateContext");
    let mut size = 123usize;
    check(
        cl!(clGetContextInfo(
            c.get(),
            CL_CONTEXT_PROPERTIES,
            0,
            null_mut(),
            &mut size
        )),
        "CL_CONTEXT_PROPERTIES size",
    );
    assert_eq!(
        size, 0,
        "param_value_size_ret must be 0 when no properties were given"
    );
}

#[test]
fn context_unknown_property_is_invalid_property() {
    let props: [cl_context_properties; 3] = [0x7777, 1, 0];
    assert_err(
        create_context(props.as_ptr()),
        CL_INVALID_PROPERTY,
        "clCreateContext({0x7777, 1})",
    );
}

#[test]
fn context_interop_user_sync_takes_only_a_cl_bool() {
    let k = CL_CONTEXT_INTEROP_USER_SYNC as cl_context_properties;
    for bad in [-1, 2, 0x100] {
        let props: [cl_context_properties; 3] = [k, bad, 0];
        assert_err(
            create_context(props.as_ptr()),
            CL_INVALID_PROPERTY,
            &format!("CL_CONTEXT_INTEROP_USER_SYNC = {bad}"),
        );
    }
    for good in [CL_TRUE, CL_FALSE] {
        let props: [cl_context_properties; 3] = [k, good as cl_context_properties, 0];
        ok(
            create_context(props.as_ptr()),
            &format!("CL_CONTEXT_INTEROP_USER_SYNC = {good}"),
        );
    }
}

#[test]
fn context_duplicate_property_is_invalid_property() {
    let p = platform() as cl_context_properties;
    let k = CL_CONTEXT_PLATFORM as cl_context_properties;
    let props: [cl_context_properties; 5] = [k, p, k, p, 0];
    assert_err(
        create_context(props.as_ptr()),
        CL_INVALID_PROPERTY,
        "CL_CONTEXT_PLATFORM twice",
    );
}

#[test]
fn context_platform_property_naming_a_non_platform_is_invalid_platform() {
    let props: [cl_context_properties; 3] = [
        CL_CONTEXT_PLATFORM as cl_context_properties,
        device() as cl_context_properties,
        0,
    ];
    assert_err(
        create_context(props.as_ptr()),
        CL_INVALID_PLATFORM,
        "CL_CONTEXT_PLATFORM = a device",
    );
}

#[test]
fn create_context_with_null_devices_is_invalid_value() {
    let mut rc = 0;
    let c = cl!(clCreateContext(
        null(),
        1,
        null(),
        None,
        null_mut(),
        &mut rc
    ));
    assert!(c.is_null());
    assert_code(rc, CL_INVALID_VALUE, "clCreateContext(devices NULL)");
}

#[test]
fn create_context_with_zero_devices_is_invalid_value() {
    let d = device();
    let mut rc = 0;
    let c = cl!(clCreateContext(null(), 0, &d, None, null_mut(), &mut rc));
    assert!(c.is_null());
    assert_code(rc, CL_INVALID_VALUE, "clCreateContext(num_devices 0)");
}

#[test]
fn create_context_with_user_data_but_no_callback_is_invalid_value() {
    let d = device();
    let mut rc = 0;
    let mut x = 0u8;
    let c = cl!(clCreateContext(
        null(),
        1,
        &d,
        None,
        (&mut x as *mut u8).cast(),
        &mut rc
    ));
    assert!(c.is_null());
    assert_code(
        rc,
        CL_INVALID_VALUE,
        "clCreateContext(pfn_notify NULL, user_data set)",
    );
}

#[test]
fn create_context_errcode_ret_may_be_null() {
    let d = device();
    let c = cl!(clCreateContext(null(), 1, &d, None, null_mut(), null_mut()));
    assert!(!c.is_null());
    drop(Ctx(c));
}

#[test]
fn context_reference_count_follows_retain_and_release() {
    let c = ok(create_context(null()), "clCreateContext");
    assert_eq!(refcount(c.get()), 1);
    check(cl!(clRetainContext(c.get())), "clRetainContext");
    assert_eq!(refcount(c.get()), 2);
    check(cl!(clReleaseContext(c.get())), "clReleaseContext");
    assert_eq!(refcount(c.get()), 1);
}

#[test]
fn context_info_unknown_param_is_invalid_value() {
    let c = ok(create_context(null()), "clCreateContext");
    let mut buf = [0u8; 64];
    let rc = cl!(clGetContextInfo(
        c.get(),
        0x7777,
        64,
        buf.as_mut_ptr().cast(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_VALUE, "clGetContextInfo(0x7777)");
}

#[test]
fn context_info_buffer_too_small_is_invalid_value() {
    let c = ok(create_context(null()), "clCreateContext");
    let mut v = [0u8; 2];
    let rc = cl!(clGetContextInfo(
        c.get(),
        CL_CONTEXT_NUM_DEVICES,
        2,
        v.as_mut_ptr().cast(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_VALUE, "CL_CONTEXT_NUM_DEVICES into 2 bytes");
}

static DESTRUCTOR_ORDER: Mutex<Vec<usize>> = Mutex::new(Vec::new());
static DESTRUCTOR_CALLS: AtomicUsize = AtomicUsize::new(0);

extern "C" fn on_context_destroyed(_ctx: cl_context, user_data: *mut c_void) {
    DESTRUCTOR_ORDER.lock().unwrap().push(user_data as usize);
    DESTRUCTOR_CALLS.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn context_destructor_callbacks_run_in_reverse_registration_order() {
    let c = ok(create_context(null()), "clCreateContext").into_raw();
    for tag in [1usize, 2] {
        ok(
            cl3::context::set_context_destructor_callback(
                c,
                Some(on_context_destroyed),
                tag as *mut c_void,
            ),
            "clSetContextDestructorCallback",
        );
    }
    assert_eq!(
        DESTRUCTOR_CALLS.load(Ordering::SeqCst),
        0,
        "called before release"
    );
    check(cl!(clReleaseContext(c)), "clReleaseContext");
    let t = Instant::now();
    while DESTRUCTOR_CALLS.load(Ordering::SeqCst) < 2 && t.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(*DESTRUCTOR_ORDER.lock().unwrap(), vec![2, 1]);
}

#[test]
fn context_destructor_callback_null_is_invalid_value() {
    let c = ok(create_context(null()), "clCreateContext");
    let rc = cl!(clSetContextDestructorCallback(c.get(), None, null_mut()));
    assert_code(rc, CL_INVALID_VALUE, "clSetContextDestructorCallback(NULL)");
}

#[test]
fn opencl3_context_from_device() {
    let dev = opencl3::device::Device::new(device());
    let ctx = opencl3::context::Context::from_device(&dev).expect("Context::from_device");
    assert_eq!(ctx.devices(), &[device()]);
    assert_eq!(ctx.reference_count().unwrap(), 1);
}
