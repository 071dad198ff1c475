//! `cl_khr_semaphore`: binary semaphores signalled and waited on by queue
//! commands, across queues.

use ferrocl_tests::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::time::Duration;

type Sema = *mut c_void;
type CreateFn = unsafe extern "C" fn(cl_context, *const cl_ulong, *mut cl_int) -> Sema;
type EnqueueFn = unsafe extern "C" fn(
    cl_command_queue,
    cl_uint,
    *const Sema,
    *const cl_ulong,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;
type InfoFn = unsafe extern "C" fn(Sema, cl_uint, usize, *mut c_void, *mut usize) -> cl_int;
type ReleaseFn = unsafe extern "C" fn(Sema) -> cl_int;

const CL_SEMAPHORE_TYPE_KHR: cl_ulong = 0x203D;
const CL_SEMAPHORE_TYPE_BINARY_KHR: cl_ulong = 1;
const CL_SEMAPHORE_PAYLOAD_KHR: cl_uint = 0x203C;
const CL_SEMAPHORE_PROPERTIES_KHR: cl_uint = 0x203B;
const CL_INVALID_SEMAPHORE_KHR: cl_int = -1142;

struct Ext {
    create: CreateFn,
    wait: EnqueueFn,
    signal: EnqueueFn,
    info: InfoFn,
    release: ReleaseFn,
}

fn ext() -> Ext {
    Ext {
        create: extension_function("clCreateSemaphoreWithPropertiesKHR"),
        wait: extension_function("clEnqueueWaitSemaphoresKHR"),
        signal: extension_function("clEnqueueSignalSemaphoresKHR"),
        info: extension_function("clGetSemaphoreInfoKHR"),
        release: extension_function("clReleaseSemaphoreKHR"),
    }
}

fn binary(x: &Ext, e: &Env) -> Sema {
    let props = [CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR, 0];
    let mut rc = 0;
    let s = unsafe { (x.create)(e.c(), props.as_ptr(), &mut rc) };
    check(rc, "clCreateSemaphoreWithPropertiesKHR");
    s
}

fn payload(x: &Ext, s: Sema) -> u64 {
    ok(
        query(|n, v, r| unsafe { (x.info)(s, CL_SEMAPHORE_PAYLOAD_KHR, n, v, r) }),
        "payload",
    )
    .u64()
}

fn enqueue(f: EnqueueFn, q: cl_command_queue, s: Sema, waits: &[cl_event]) -> Ev {
    let mut out = null_mut();
    let list = if waits.is_empty() {
        null()
    } else {
        waits.as_ptr()
    };
    check(
        unsafe { f(q, 1, &s, null(), waits.len() as cl_uint, list, &mut out) },
        "semaphore command",
    );
    ev(out)
}

#[test]
fn a_wait_on_one_queue_holds_back_what_follows_until_another_queue_signals() {
    let x = ext();
    let e = Env::new();
    let other = ok(create_queue(e.c(), null()), "second queue");
    let s = binary(&x, &e);
    let (_p, k) = e.kernel(
        "__kernel void k(__global int* p) { p[get_global_id(0)] += 1; }",
        "k",
    );
    let a = e.buffer_from(&[0i32; 8]);
    ok(set_mem(k.get(), 0, &a), "arg");
    // The wait is enqueued before anything signals.
    let waited = enqueue(x.wait, e.q(), s, &[]);
    check(e.enqueue(&k, None, &[8], None), "kernel after the wait");
    check(cl!(clFlush(e.q())), "flush");
    std::thread::sleep(Duration::from_millis(20));
    assert!(
        waited.status() > CL_COMPLETE,
        "the wait ended before any signal"
    );
    // A user event holds the signal back a little longer.
    let mut rc = 0;
    let gate = Ev(cl!(clCreateUserEvent(e.c(), &mut rc)));
    let signalled = enqueue(x.signal, other.get(), s, &[gate.get()]);
    check(cl!(clFlush(other.get())), "flush");
    std::thread::sleep(Duration::from_millis(10));
    assert!(waited.status() > CL_COMPLETE);
    check(cl!(clSetUserEventStatus(gate.get(), CL_COMPLETE)), "set");
    signalled.wait();
    waited.wait();
    e.finish();
    assert_eq!(e.read::<i32>(&a, 0, 8), vec![1; 8]);
    // The wait took the signal.
    assert_eq!(payload(&x, s), 0);
    // Signalled first, then waited on.
    enqueue(x.signal, other.get(), s, &[]).wait();
    assert_eq!(payload(&x, s), 1);
    enqueue(x.wait, e.q(), s, &[]).wait();
    assert_eq!(payload(&x, s), 0);
    check(unsafe { (x.release)(s) }, "release");
}

#[test]
fn semaphores_answer_their_properties_and_refuse_bad_input() {
    let x = ext();
    let e = Env::new();
    let s = binary(&x, &e);
    let props = ok(
        query(|n, v, r| unsafe { (x.info)(s, CL_SEMAPHORE_PROPERTIES_KHR, n, v, r) }),
        "properties",
    )
    .u64s();
    assert_eq!(
        props,
        vec![CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR, 0]
    );
    let mut rc = 0;
    let none = unsafe { (x.create)(e.c(), null(), &mut rc) };
    assert!(none.is_null());
    assert_code(rc, CL_INVALID_VALUE, "no properties");
    let bad = [CL_SEMAPHORE_TYPE_KHR, 7, 0];
    unsafe { (x.create)(e.c(), bad.as_ptr(), &mut rc) };
    assert_code(rc, CL_INVALID_PROPERTY, "an unknown semaphore type");
    unsafe { (x.create)(null_mut(), [CL_SEMAPHORE_TYPE_KHR, 1, 0].as_ptr(), &mut rc) };
    assert_code(rc, CL_INVALID_CONTEXT, "no context");
    let rc = unsafe { (x.signal)(e.q(), 0, &s, null(), 0, null(), null_mut()) };
    assert_code(rc, CL_INVALID_VALUE, "no semaphores");
    let not_one = e.q() as Sema;
    let rc = unsafe { (x.wait)(e.q(), 1, &not_one, null(), 0, null(), null_mut()) };
    assert_code(rc, CL_INVALID_SEMAPHORE_KHR, "a queue as semaphore");
    check(unsafe { (x.release)(s) }, "release");
    assert_code(
        unsafe { (x.release)(s) },
        CL_INVALID_SEMAPHORE_KHR,
        "released twice",
    );
}
