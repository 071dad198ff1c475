//! `cl_khr_command_buffer`: record once, enqueue many times, through the
//! function pointers an application gets from the ICD loader.

use ferrocl_tests::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

type CbHandle = *mut c_void;
type CreateFn = unsafe extern "C" fn(
    cl_uint,
    *const cl_command_queue,
    *const cl_ulong,
    *mut cl_int,
) -> CbHandle;
type HandleFn = unsafe extern "C" fn(CbHandle) -> cl_int;
type EnqueueFn = unsafe extern "C" fn(
    cl_uint,
    *mut cl_command_queue,
    CbHandle,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;
type NdRangeFn = unsafe extern "C" fn(
    CbHandle,
    cl_command_queue,
    *const cl_ulong,
    cl_kernel,
    cl_uint,
    *const usize,
    *const usize,
    *const usize,
    cl_uint,
    *const cl_uint,
    *mut cl_uint,
    *mut c_void,
) -> cl_int;
type FillFn = unsafe extern "C" fn(
    CbHandle,
    cl_command_queue,
    *const cl_ulong,
    cl_mem,
    *const c_void,
    usize,
    usize,
    usize,
    cl_uint,
    *const cl_uint,
    *mut cl_uint,
    *mut c_void,
) -> cl_int;
type CopyFn = unsafe extern "C" fn(
    CbHandle,
    cl_command_queue,
    *const cl_ulong,
    cl_mem,
    cl_mem,
    usize,
    usize,
    usize,
    cl_uint,
    *const cl_uint,
    *mut cl_uint,
    *mut c_void,
) -> cl_int;
type BarrierFn = unsafe extern "C" fn(
    CbHandle,
    cl_command_queue,
    *const cl_ulong,
    cl_uint,
    *const cl_uint,
    *mut cl_uint,
    *mut c_void,
) -> cl_int;
type InfoFn = unsafe extern "C" fn(CbHandle, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;

const CL_COMMAND_BUFFER_STATE_KHR: cl_uint = 0x1297;
const CL_COMMAND_BUFFER_NUM_QUEUES_KHR: cl_uint = 0x1295;
const CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR: cl_uint = 0x1296;
const CL_COMMAND_BUFFER_FLAGS_KHR: cl_ulong = 0x1293;
const CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR: cl_ulong = 1;
const CL_COMMAND_COMMAND_BUFFER_KHR: cl_uint = 0x12A8;
const CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR: cl_uint = 0x12A9;
const CL_INVALID_COMMAND_BUFFER_KHR: cl_int = -1138;
const CL_INVALID_SYNC_POINT_WAIT_LIST_KHR: cl_int = -1139;

struct Ext {
    create: CreateFn,
    finalize: HandleFn,
    retain: HandleFn,
    release: HandleFn,
    enqueue: EnqueueFn,
    ndrange: NdRangeFn,
    fill: FillFn,
    copy: CopyFn,
    barrier: BarrierFn,
    info: InfoFn,
}

fn ext() -> Ext {
    Ext {
        create: extension_function("clCreateCommandBufferKHR"),
        finalize: extension_function("clFinalizeCommandBufferKHR"),
        retain: extension_function("clRetainCommandBufferKHR"),
        release: extension_function("clReleaseCommandBufferKHR"),
        enqueue: extension_function("clEnqueueCommandBufferKHR"),
        ndrange: extension_function("clCommandNDRangeKernelKHR"),
        fill: extension_function("clCommandFillBufferKHR"),
        copy: extension_function("clCommandCopyBufferKHR"),
        barrier: extension_function("clCommandBarrierWithWaitListKHR"),
        info: extension_function("clGetCommandBufferInfoKHR"),
    }
}

const ADD: &str = "__kernel void add(__global int* p, int v) { p[get_global_id(0)] += v; }";

fn create(x: &Ext, q: cl_command_queue, props: &[cl_ulong]) -> CbHandle {
    let mut rc = 0;
    let qs = [q];
    let cb = unsafe {
        (x.create)(
            1,
            qs.as_ptr(),
            if props.is_empty() {
                null()
            } else {
                props.as_ptr()
            },
            &mut rc,
        )
    };
    check(rc, "clCreateCommandBufferKHR");
    cb
}

fn state(x: &Ext, cb: CbHandle) -> cl_uint {
    let mut s: cl_uint = 99;
    check(
        unsafe {
            (x.info)(
                cb,
                CL_COMMAND_BUFFER_STATE_KHR,
                4,
                (&mut s as *mut cl_uint).cast(),
                null_mut(),
            )
        },
        "state",
    );
    s
}

fn record_add(
    x: &Ext,
    cb: CbHandle,
    k: &Kern,
    n: usize,
    waits: &[cl_uint],
) -> Result<cl_uint, cl_int> {
    let mut sp = 0;
    let g = [n];
    let rc = unsafe {
        (x.ndrange)(
            cb,
            null_mut(),
            null(),
            k.get(),
            1,
            null(),
            g.as_ptr(),
            null(),
            waits.len() as cl_uint,
            if waits.is_empty() {
                null()
            } else {
                waits.as_ptr()
            },
            &mut sp,
            null_mut(),
        )
    };
    result(rc, sp)
}

#[test]
fn the_device_reports_the_extension() {
    let exts = ext_names(&ok(device_info(device(), CL_DEVICE_EXTENSIONS), "extensions").string());
    assert!(
        exts.iter().any(|e| e == "cl_khr_command_buffer"),
        "{exts:?}"
    );
    let caps = ok(
        device_info(device(), CL_DEVICE_COMMAND_BUFFER_CAPABILITIES_KHR),
        "caps",
    )
    .u64();
    assert_ne!(caps & (1 << 2), 0, "simultaneous use is offered");
}

#[test]
fn a_recorded_buffer_replays_on_every_enqueue_with_the_arguments_it_was_recorded_with() {
    let x = ext();
    let e = Env::new();
    let (_p, k) = e.kernel(ADD, "add");
    let a = e.buffer_from(&[0i32; 64]);
    let b = e.buffer_from(&[0i32; 64]);
    let cb = create(&x, e.q(), &[]);
    assert_eq!(state(&x, cb), 0, "recording");
    // a = 7 (fill), a += 5 (kernel), b = a (copy).
    let seven = 7i32;
    let mut fill_sp = 0;
    check(
        unsafe {
            (x.fill)(
                cb,
                null_mut(),
                null(),
                a.get(),
                (&seven as *const i32).cast(),
                4,
                0,
                256,
                0,
                null(),
                &mut fill_sp,
                null_mut(),
            )
        },
        "fill",
    );
    ok(set_mem(k.get(), 0, &a), "arg 0");
    ok(set_arg(k.get(), 1, &5i32), "arg 1");
    let add_sp = ok(record_add(&x, cb, &k, 64, &[fill_sp]), "ndrange");
    // Changed after recording: the recorded command keeps 5.
    ok(set_arg(k.get(), 1, &1000i32), "arg 1 again");
    let waits = [add_sp];
    check(
        unsafe {
            (x.copy)(
                cb,
                null_mut(),
                null(),
                a.get(),
                b.get(),
                0,
                0,
                256,
                1,
                waits.as_ptr(),
                null_mut(),
                null_mut(),
            )
        },
        "copy",
    );
    check(
        unsafe { (x.barrier)(cb, null_mut(), null(), 0, null(), null_mut(), null_mut()) },
        "barrier",
    );
    check(unsafe { (x.finalize)(cb) }, "finalize");
    assert_eq!(state(&x, cb), 1, "executable");
    for round in 0..3 {
        let mut ev_out = null_mut();
        check(
            unsafe { (x.enqueue)(0, null_mut(), cb, 0, null(), &mut ev_out) },
            "enqueue",
        );
        let done = ev(ev_out);
        done.wait();
        let ty = ok(event_info(done.get(), CL_EVENT_COMMAND_TYPE), "type").u32();
        assert_eq!(ty, CL_COMMAND_COMMAND_BUFFER_KHR);
        assert_eq!(e.read::<i32>(&b, 0, 64), vec![12; 64], "round {round}");
    }
    check(unsafe { (x.release)(cb) }, "release");
}

#[test]
fn commands_around_an_enqueued_buffer_keep_queue_order() {
    let x = ext();
    let e = Env::new();
    let (_p, k) = e.kernel(ADD, "add");
    let a = e.buffer_from(&[0i32; 16]);
    ok(set_mem(k.get(), 0, &a), "arg 0");
    ok(set_arg(k.get(), 1, &3i32), "arg 1");
    let cb = create(&x, e.q(), &[]);
    ok(record_add(&x, cb, &k, 16, &[]), "record");
    check(unsafe { (x.finalize)(cb) }, "finalize");
    // Written before, the buffer (+3), a kernel after (+100), then read.
    e.write(&a, 0, &[1i32; 16]);
    check(
        unsafe { (x.enqueue)(0, null_mut(), cb, 0, null(), null_mut()) },
        "enqueue",
    );
    ok(set_arg(k.get(), 1, &100i32), "arg 1");
    check(e.enqueue(&k, None, &[16], None), "kernel after");
    assert_eq!(e.read::<i32>(&a, 0, 16), vec![104; 16]);
    check(unsafe { (x.release)(cb) }, "release");
}

#[test]
fn misuse_gets_the_extensions_error_codes() {
    let x = ext();
    let e = Env::new();
    let (_p, k) = e.kernel(ADD, "add");
    let a = e.buffer_from(&[0i32; 16]);
    ok(set_mem(k.get(), 0, &a), "arg 0");
    ok(set_arg(k.get(), 1, &1i32), "arg 1");
    let cb = create(&x, e.q(), &[]);
    // Enqueued before it is finalized.
    assert_code(
        unsafe { (x.enqueue)(0, null_mut(), cb, 0, null(), null_mut()) },
        CL_INVALID_OPERATION,
        "enqueue while recording",
    );
    // A sync point that names nothing recorded.
    assert_err(
        record_add(&x, cb, &k, 16, &[5]),
        CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
        "bad sync point",
    );
    // A queue other than NULL.
    let g = [16usize];
    assert_code(
        unsafe {
            (x.ndrange)(
                cb,
                e.q(),
                null(),
                k.get(),
                1,
                null(),
                g.as_ptr(),
                null(),
                0,
                null(),
                null_mut(),
                null_mut(),
            )
        },
        CL_INVALID_COMMAND_QUEUE,
        "a queue given to a command",
    );
    // A bad kernel is the kernel's error.
    assert_code(
        unsafe {
            (x.ndrange)(
                cb,
                null_mut(),
                null(),
                null_mut(),
                1,
                null(),
                g.as_ptr(),
                null(),
                0,
                null(),
                null_mut(),
                null_mut(),
            )
        },
        CL_INVALID_KERNEL,
        "no kernel",
    );
    ok(record_add(&x, cb, &k, 16, &[]), "record");
    check(unsafe { (x.finalize)(cb) }, "finalize");
    assert_code(
        unsafe { (x.finalize)(cb) },
        CL_INVALID_OPERATION,
        "finalized twice",
    );
    assert_err(
        record_add(&x, cb, &k, 16, &[]),
        CL_INVALID_OPERATION,
        "recording after finalize",
    );
    // Not a command buffer.
    assert_code(
        unsafe { (x.finalize)(e.q().cast()) },
        CL_INVALID_COMMAND_BUFFER_KHR,
        "a queue handle",
    );
    assert_code(
        unsafe { (x.retain)(null_mut()) },
        CL_INVALID_COMMAND_BUFFER_KHR,
        "NULL",
    );
    // Enqueued again while the first enqueue waits (0.9.8: no pending
    // state); the in-order queue runs them one after the other.
    let mut rc = 0;
    let gate = Ev(cl!(clCreateUserEvent(e.c(), &mut rc)));
    let w = [gate.get()];
    check(
        unsafe { (x.enqueue)(0, null_mut(), cb, 1, w.as_ptr(), null_mut()) },
        "first enqueue",
    );
    assert_eq!(state(&x, cb), 1, "executable while enqueued");
    check(
        unsafe { (x.enqueue)(0, null_mut(), cb, 0, null(), null_mut()) },
        "enqueued again",
    );
    check(cl!(clSetUserEventStatus(gate.get(), CL_COMPLETE)), "set");
    e.finish();
    assert_eq!(e.read::<i32>(&a, 0, 16), vec![2; 16], "ran twice");
    check(unsafe { (x.release)(cb) }, "release");
}

#[test]
fn simultaneous_use_lets_it_be_pending_more_than_once() {
    let x = ext();
    let e = Env::new();
    let (_p, k) = e.kernel(ADD, "add");
    let a = e.buffer_from(&[0i32; 16]);
    ok(set_mem(k.get(), 0, &a), "arg 0");
    ok(set_arg(k.get(), 1, &2i32), "arg 1");
    let cb = create(
        &x,
        e.q(),
        &[
            CL_COMMAND_BUFFER_FLAGS_KHR,
            CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR,
            0,
        ],
    );
    ok(record_add(&x, cb, &k, 16, &[]), "record");
    check(unsafe { (x.finalize)(cb) }, "finalize");
    let mut rc = 0;
    let gate = Ev(cl!(clCreateUserEvent(e.c(), &mut rc)));
    let w = [gate.get()];
    check(
        unsafe { (x.enqueue)(0, null_mut(), cb, 1, w.as_ptr(), null_mut()) },
        "first",
    );
    check(
        unsafe { (x.enqueue)(0, null_mut(), cb, 0, null(), null_mut()) },
        "second, while pending",
    );
    let mut n: cl_uint = 0;
    check(
        unsafe {
            (x.info)(
                cb,
                CL_COMMAND_BUFFER_NUM_QUEUES_KHR,
                4,
                (&mut n as *mut cl_uint).cast(),
                null_mut(),
            )
        },
        "num queues",
    );
    assert_eq!(n, 1);
    check(unsafe { (x.retain)(cb) }, "retain");
    let mut refs: cl_uint = 0;
    check(
        unsafe {
            (x.info)(
                cb,
                CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR,
                4,
                (&mut refs as *mut cl_uint).cast(),
                null_mut(),
            )
        },
        "refs",
    );
    assert_eq!(refs, 2);
    check(cl!(clSetUserEventStatus(gate.get(), CL_COMPLETE)), "set");
    e.finish();
    assert_eq!(e.read::<i32>(&a, 0, 16), vec![4; 16]);
    check(unsafe { (x.release)(cb) }, "release");
    check(unsafe { (x.release)(cb) }, "release");
}
