//! Events, markers, barriers, profiling, flush and finish (OpenCL 3.0 API
//! spec, sections 5.11 "Event Objects", 5.12 "Markers, Barriers and Waiting
//! for Events", 5.14 "Profiling Operations on Memory Objects and Kernels",
//! 5.15 "Flush and Finish").

use ferrocl_tests::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const ADD_SRC: &str = r#"
__kernel void add1(__global uint* p) { p[get_global_id(0)] += 1u; }
"#;

fn etype(e: &Ev) -> u32 {
    ok(
        event_info(e.get(), CL_EVENT_COMMAND_TYPE),
        "CL_EVENT_COMMAND_TYPE",
    )
    .u32()
}

fn user_event(c: cl_context) -> Ev {
    Ev(ok(cl3::event::create_user_event(c), "clCreateUserEvent"))
}

fn write_async(e: &Env, m: &Mem, data: &[u32], wait: &[cl_event]) -> Ev {
    let mut evt = null_mut();
    check(
        cl!(clEnqueueWriteBuffer(
            e.q(),
            m.get(),
            CL_FALSE,
            0,
            std::mem::size_of_val(data),
            data.as_ptr().cast(),
            wait.len() as cl_uint,
            if wait.is_empty() {
                null()
            } else {
                wait.as_ptr()
            },
            &mut evt
        )),
        "clEnqueueWriteBuffer",
    );
    ev(evt)
}

#[test]
fn event_info_after_completion() {
    let e = Env::new();
    let m = e.buffer(64);
    let data = [5u32; 16];
    let w = write_async(&e, &m, &data, &[]);
    w.wait();
    assert_eq!(etype(&w), CL_COMMAND_WRITE_BUFFER);
    assert_eq!(
        ok(event_info(w.get(), CL_EVENT_COMMAND_QUEUE), "QUEUE").ptr(),
        e.q()
    );
    assert_eq!(
        ok(event_info(w.get(), CL_EVENT_CONTEXT), "CONTEXT").ptr(),
        e.c()
    );
    assert_eq!(w.status(), CL_COMPLETE);
}

#[test]

fn kernel_and_transfer_events_have_matching_command_types() {
    let e = Env::new();
    let (_p, k) = e.kernel(ADD_SRC, "add1");
    let a = e.buffer_from(&[0u32; 64]);
    let b = e.buffer(256);
    ok(set_mem(k.get(), 0, &a), "arg");
    let mut ids = [null_mut(); 6];
    let g = [64usize];
    check(
        cl!(clEnqueueNDRangeKernel(
            e.q(),
            k.get(),
            1,
            null(),
            g.as_ptr(),
            null(),
            0,
            null(),
            &mut ids[0]
        )),
        "ndrange",
    );
    check(
        cl!(clEnqueueTask(e.q(), k.get(), 0, null(), &mut ids[1])),
        "task",
    );
    check(
        cl!(clEnqueueCopyBuffer(
            e.q(),
            a.get(),
            b.get(),
            0,
            0,
            256,
            0,
            null(),
            &mut ids[2]
        )),
        "copy",
    );
    let pat = 0u32;
    check(
        cl!(clEnqueueFillBuffer(
            e.q(),
            b.get(),
            (&pat as *const u32).cast(),
            4,
            0,
            256,
            0,
            null(),
            &mut ids[3]
        )),
        "fill",
    );
    check(
        cl!(clEnqueueMarkerWithWaitList(e.q(), 0, null(), &mut ids[4])),
        "marker",
    );
    check(
        cl!(clEnqueueBarrierWithWaitList(e.q(), 0, null(), &mut ids[5])),
        "barrier",
    );
    let evs: Vec<Ev> = ids.into_iter().map(ev).collect();
    e.finish();
    let want = [
        CL_COMMAND_NDRANGE_KERNEL,
        CL_COMMAND_TASK,
        CL_COMMAND_COPY_BUFFER,
        CL_COMMAND_FILL_BUFFER,
        CL_COMMAND_MARKER,
        CL_COMMAND_BARRIER,
    ];
    for (evt, w) in evs.iter().zip(want) {
        assert_eq!(etype(evt), w, "CL_EVENT_COMMAND_TYPE (expected {w:#x})");
        assert_eq!(evt.status(), CL_COMPLETE);
    }
}

#[test]
fn rect_transfer_events_have_matching_command_types() {
    let e = Env::new();
    let m = e.buffer(256);
    let host = vec![0u8; 256];
    let (o, r) = ([0usize; 3], [16usize, 4, 1]);
    let mut ids = [null_mut(); 2];
    check(
        cl!(clEnqueueWriteBufferRect(
            e.q(),
            m.get(),
            CL_FALSE,
            o.as_ptr(),
            o.as_ptr(),
            r.as_ptr(),
            0,
            0,
            0,
            0,
            host.as_ptr().cast(),
            0,
            null(),
            &mut ids[0]
        )),
        "write rect",
    );
    let mut back = vec![0u8; 256];
    check(
        cl!(clEnqueueReadBufferRect(
            e.q(),
            m.get(),
            CL_FALSE,
            o.as_ptr(),
            o.as_ptr(),
            r.as_ptr(),
            0,
            0,
            0,
            0,
            back.as_mut_ptr().cast(),
            0,
            null(),
            &mut ids[1]
        )),
        "read rect",
    );
    let evs: Vec<Ev> = ids.into_iter().map(ev).collect();
    e.finish();
    assert_eq!(etype(&evs[0]), CL_COMMAND_WRITE_BUFFER_RECT);
    assert_eq!(etype(&evs[1]), CL_COMMAND_READ_BUFFER_RECT);
}

#[test]
fn wait_for_zero_events_is_invalid_value() {
    let rc = cl!(clWaitForEvents(0, null()));
    assert_code(rc, CL_INVALID_VALUE, "clWaitForEvents(0, NULL)");
    let e = Env::new();
    let u = user_event(e.c());
    check(cl!(clSetUserEventStatus(u.get(), CL_COMPLETE)), "complete");
    let rc = cl!(clWaitForEvents(0, &u.0));
    assert_code(rc, CL_INVALID_VALUE, "clWaitForEvents(0, list)");
}

#[test]
fn wait_for_events_with_null_list_is_invalid_value() {
    let rc = cl!(clWaitForEvents(1, null()));
    assert_code(rc, CL_INVALID_VALUE, "clWaitForEvents(1, NULL)");
}

#[test]
fn wait_for_events_from_two_contexts_is_invalid_context() {
    let e1 = Env::new();
    let e2 = Env::new();
    let a = user_event(e1.c());
    let b = user_event(e2.c());
    check(cl!(clSetUserEventStatus(a.get(), CL_COMPLETE)), "a");
    check(cl!(clSetUserEventStatus(b.get(), CL_COMPLETE)), "b");
    let list = [a.get(), b.get()];
    assert_code(
        cl!(clWaitForEvents(2, list.as_ptr())),
        CL_INVALID_CONTEXT,
        "events of two contexts",
    );
}

#[test]
fn user_event_info_and_reference_count() {
    let e = Env::new();
    let u = user_event(e.c());
    assert_eq!(u.status(), CL_SUBMITTED);
    assert_eq!(etype(&u), CL_COMMAND_USER);
    assert!(ok(event_info(u.get(), CL_EVENT_COMMAND_QUEUE), "QUEUE")
        .ptr()
        .is_null());
    assert_eq!(
        ok(event_info(u.get(), CL_EVENT_CONTEXT), "CONTEXT").ptr(),
        e.c()
    );
    let rc = || {
        ok(
            event_info(u.get(), CL_EVENT_REFERENCE_COUNT),
            "REFERENCE_COUNT",
        )
        .u32()
    };
    assert_eq!(rc(), 1);
    check(cl!(clRetainEvent(u.get())), "clRetainEvent");
    assert_eq!(rc(), 2);
    check(cl!(clReleaseEvent(u.get())), "clReleaseEvent");
    assert_eq!(rc(), 1);
    check(cl!(clSetUserEventStatus(u.get(), CL_COMPLETE)), "complete");
    assert_eq!(u.status(), CL_COMPLETE);
}

#[test]
fn user_event_status_can_only_be_set_once() {
    let e = Env::new();
    let u = user_event(e.c());
    check(cl!(clSetUserEventStatus(u.get(), CL_COMPLETE)), "first");
    assert_code(
        cl!(clSetUserEventStatus(u.get(), CL_COMPLETE)),
        CL_INVALID_OPERATION,
        "second",
    );
}

#[test]
fn user_event_status_must_be_complete_or_negative() {
    let e = Env::new();
    let u = user_event(e.c());
    for s in [CL_SUBMITTED, CL_RUNNING, CL_QUEUED, 7] {
        assert_code(
            cl!(clSetUserEventStatus(u.get(), s)),
            CL_INVALID_VALUE,
            &format!("status {s}"),
        );
    }
    check(cl!(clSetUserEventStatus(u.get(), CL_COMPLETE)), "complete");
}

#[test]
fn command_waits_for_user_event() {
    let e = Env::new();
    let m = e.buffer_from(&[0u32; 16]);
    let u = user_event(e.c());
    let data = [42u32; 16];
    let w = write_async(&e, &m, &data, &[u.get()]);
    check(cl!(clFlush(e.q())), "clFlush");
    std::thread::sleep(Duration::from_millis(100));
    assert_ne!(
        w.status(),
        CL_COMPLETE,
        "the write ran before its user event completed"
    );
    check(cl!(clSetUserEventStatus(u.get(), CL_COMPLETE)), "complete");
    w.wait();
    assert_eq!(e.read::<u32>(&m, 0, 16), vec![42; 16]);
}

#[test]
fn negative_user_event_status_terminates_waiting_commands() {
    let e = Env::new();
    let m = e.buffer_from(&[0u32; 16]);
    let u = user_event(e.c());
    let data = [42u32; 16];
    let w = write_async(&e, &m, &data, &[u.get()]);
    check(
        cl!(clSetUserEventStatus(u.get(), -1234)),
        "set negative status",
    );
    assert_eq!(u.status(), -1234);
    let rc = cl!(clWaitForEvents(1, &w.0));
    assert_code(
        rc,
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
        "waiting on a terminated command",
    );
    assert!(
        w.status() < 0,
        "terminated command has status {}",
        w.status()
    );
}

static CALLBACK_STATUS: AtomicI32 = AtomicI32::new(1234);
static CALLBACK_CALLS: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn on_event(_e: cl_event, status: cl_int, user_data: *mut c_void) {
    assert_eq!(user_data as usize, 0xabc);
    CALLBACK_STATUS.store(status, Ordering::SeqCst);
    CALLBACK_CALLS.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn event_callback_is_called_on_completion() {
    let e = Env::new();
    let u = user_event(e.c());
    check(
        cl!(clSetEventCallback(
            u.get(),
            CL_COMPLETE,
            Some(on_event),
            0xabc as *mut c_void
        )),
        "clSetEventCallback",
    );
    assert_eq!(
        CALLBACK_CALLS.load(Ordering::SeqCst),
        0,
        "called before completion"
    );
    check(cl!(clSetUserEventStatus(u.get(), CL_COMPLETE)), "complete");
    let t = Instant::now();
    while CALLBACK_CALLS.load(Ordering::SeqCst) == 0 && t.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(CALLBACK_CALLS.load(Ordering::SeqCst), 1);
    assert_eq!(CALLBACK_STATUS.load(Ordering::SeqCst), CL_COMPLETE);
}

unsafe extern "C" fn never_called(_e: cl_event, _status: cl_int, _user_data: *mut c_void) {}

#[test]
fn event_callback_invalid_arguments_are_invalid_value() {
    let e = Env::new();
    let u = user_event(e.c());
    assert_code(
        cl!(clSetEventCallback(u.get(), CL_COMPLETE, None, null_mut())),
        CL_INVALID_VALUE,
        "pfn_notify NULL",
    );
    assert_code(
        cl!(clSetEventCallback(
            u.get(),
            CL_QUEUED,
            Some(never_called),
            null_mut()
        )),
        CL_INVALID_VALUE,
        "callback type CL_QUEUED",
    );
    check(cl!(clSetUserEventStatus(u.get(), CL_COMPLETE)), "complete");
}

#[test]
fn invalid_wait_list_is_invalid_event_wait_list() {
    let e = Env::new();
    let m = e.buffer(64);
    let data = [0u32; 16];
    let rc = cl!(clEnqueueWriteBuffer(
        e.q(),
        m.get(),
        CL_TRUE,
        0,
        64,
        data.as_ptr().cast(),
        1,
        null(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_EVENT_WAIT_LIST, "num 1, list NULL");
    let u = user_event(e.c());
    check(cl!(clSetUserEventStatus(u.get(), CL_COMPLETE)), "complete");
    let rc = cl!(clEnqueueWriteBuffer(
        e.q(),
        m.get(),
        CL_TRUE,
        0,
        64,
        data.as_ptr().cast(),
        0,
        &u.0,
        null_mut()
    ));
    assert_code(rc, CL_INVALID_EVENT_WAIT_LIST, "num 0, list set");
}

#[test]
fn wait_list_event_from_another_context_is_invalid_context() {
    let e = Env::new();
    let other = Env::new();
    let u = user_event(other.c());
    check(cl!(clSetUserEventStatus(u.get(), CL_COMPLETE)), "complete");
    let m = e.buffer(64);
    let data = [0u32; 16];
    let rc = cl!(clEnqueueWriteBuffer(
        e.q(),
        m.get(),
        CL_TRUE,
        0,
        64,
        data.as_ptr().cast(),
        1,
        &u.0,
        null_mut()
    ));
    assert_code(
        rc,
        CL_INVALID_CONTEXT,
        "wait on an event of another context",
    );
}

#[test]
fn marker_completes_after_previous_commands() {
    let e = Env::new();
    let (_p, k) = e.kernel(ADD_SRC, "add1");
    let n = 1 << 16;
    let m = e.buffer_from(&vec![0u32; n]);
    ok(set_mem(k.get(), 0, &m), "arg");
    for _ in 0..4 {
        check(e.enqueue(&k, None, &[n], None), "ndrange");
    }
    let mut mk = null_mut();
    check(
        cl!(clEnqueueMarkerWithWaitList(e.q(), 0, null(), &mut mk)),
        "marker",
    );
    let mk = ev(mk);
    mk.wait();
    // The marker waited for the four kernels: read without another wait.
    let mut back = vec![0u32; n];
    check(
        cl!(clEnqueueReadBuffer(
            e.q(),
            m.get(),
            CL_TRUE,
            0,
            n * 4,
            back.as_mut_ptr().cast(),
            0,
            null(),
            null_mut()
        )),
        "read",
    );
    assert!(back.iter().all(|&v| v == 4));
}

#[test]
fn marker_with_wait_list_waits_for_user_event() {
    let e = Env::new();
    let u = user_event(e.c());
    let mut mk = null_mut();
    check(
        cl!(clEnqueueMarkerWithWaitList(e.q(), 1, &u.0, &mut mk)),
        "marker",
    );
    let mk = ev(mk);
    check(cl!(clFlush(e.q())), "flush");
    std::thread::sleep(Duration::from_millis(50));
    assert_ne!(mk.status(), CL_COMPLETE);
    check(cl!(clSetUserEventStatus(u.get(), CL_COMPLETE)), "complete");
    mk.wait();
    assert_eq!(mk.status(), CL_COMPLETE);
}

#[test]
fn finish_completes_all_commands() {
    let e = Env::new();
    let (_p, k) = e.kernel(ADD_SRC, "add1");
    let n = 1 << 16;
    let m = e.buffer_from(&vec![0u32; n]);
    ok(set_mem(k.get(), 0, &m), "arg");
    let mut evs = Vec::new();
    for _ in 0..8 {
        let mut evt = null_mut();
        let g = [n];
        check(
            cl!(clEnqueueNDRangeKernel(
                e.q(),
                k.get(),
                1,
                null(),
                g.as_ptr(),
                null(),
                0,
                null(),
                &mut evt
            )),
            "ndrange",
        );
        evs.push(ev(evt));
    }
    check(cl!(clFlush(e.q())), "clFlush");
    check(cl!(clFinish(e.q())), "clFinish");
    for evt in &evs {
        assert_eq!(evt.status(), CL_COMPLETE);
    }
    assert!(e.read::<u32>(&m, 0, n).iter().all(|&v| v == 8));
}

#[test]
fn in_order_queue_runs_commands_in_order() {
    let e = Env::new();
    let src = r#"
__kernel void step(__global uint* p, uint mul, uint add) {
    size_t i = get_global_id(0);
    p[i] = p[i] * mul + add;
}
"#;
    let (_p, k) = e.kernel(src, "step");
    let n = 4096;
    let m = e.buffer_from(&vec![1u32; n]);
    ok(set_mem(k.get(), 0, &m), "arg");
    let mut want = 1u32;
    for s in 0..10u32 {
        ok(set_arg(k.get(), 1, &(s + 2)), "mul");
        ok(set_arg(k.get(), 2, &(s * 3 + 1)), "add");
        check(e.enqueue(&k, None, &[n], None), "ndrange");
        want = want.wrapping_mul(s + 2).wrapping_add(s * 3 + 1);
    }
    e.finish();
    assert!(e.read::<u32>(&m, 0, n).iter().all(|&v| v == want));
}

#[test]
fn profiling_timestamps_are_ordered() {
    let e = Env::new();
    let props: [cl_queue_properties; 3] =
        [CL_QUEUE_PROPERTIES as u64, CL_QUEUE_PROFILING_ENABLE, 0];
    let q = ok(create_queue(e.c(), props.as_ptr()), "profiling queue");
    let (_p, k) = e.kernel(ADD_SRC, "add1");
    let n = 1 << 16;
    let m = e.buffer_from(&vec![0u32; n]);
    ok(set_mem(k.get(), 0, &m), "arg");
    let mut evt = null_mut();
    let g = [n];
    check(
        cl!(clEnqueueNDRangeKernel(
            q.get(),
            k.get(),
            1,
            null(),
            g.as_ptr(),
            null(),
            0,
            null(),
            &mut evt
        )),
        "ndrange",
    );
    let evt = ev(evt);
    evt.wait();
    let t = |name| ok(profiling_info(evt.get(), name), "clGetEventProfilingInfo").u64();
    let (queued, submit, start, end, complete) = (
        t(CL_PROFILING_COMMAND_QUEUED),
        t(CL_PROFILING_COMMAND_SUBMIT),
        t(CL_PROFILING_COMMAND_START),
        t(CL_PROFILING_COMMAND_END),
        t(CL_PROFILING_COMMAND_COMPLETE),
    );
    assert!(
        queued <= submit && submit <= start && start <= end && end <= complete,
        "queued {queued} submit {submit} start {start} end {end} complete {complete}"
    );
    assert!(end > 0);
}

#[test]
fn profiling_without_profiling_queue_is_not_available() {
    let e = Env::new();
    let m = e.buffer(64);
    let w = write_async(&e, &m, &[0u32; 16], &[]);
    w.wait();
    assert_err(
        profiling_info(w.get(), CL_PROFILING_COMMAND_START),
        CL_PROFILING_INFO_NOT_AVAILABLE,
        "profiling info on a queue without CL_QUEUE_PROFILING_ENABLE",
    );
}

#[test]
fn profiling_of_user_event_is_not_available() {
    let e = Env::new();
    let u = user_event(e.c());
    check(cl!(clSetUserEventStatus(u.get(), CL_COMPLETE)), "complete");
    assert_err(
        profiling_info(u.get(), CL_PROFILING_COMMAND_END),
        CL_PROFILING_INFO_NOT_AVAILABLE,
        "profiling info of a user event",
    );
}

#[test]
fn event_info_unknown_param_is_invalid_value() {
    let e = Env::new();
    let u = user_event(e.c());
    let mut buf = [0u8; 64];
    let rc = cl!(clGetEventInfo(
        u.get(),
        0x7777,
        64,
        buf.as_mut_ptr().cast(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_VALUE, "clGetEventInfo(0x7777)");
    let rc = cl!(clGetEventInfo(
        u.get(),
        CL_EVENT_COMMAND_EXECUTION_STATUS,
        2,
        buf.as_mut_ptr().cast(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_VALUE, "status into 2 bytes");
    check(cl!(clSetUserEventStatus(u.get(), CL_COMPLETE)), "complete");
}

static RELEASED_IN_CALLBACK: AtomicI32 = AtomicI32::new(1);

unsafe extern "C" fn release_queue(_e: cl_event, _status: cl_int, queue: *mut c_void) {
    let rc = cl!(clReleaseCommandQueue(queue as cl_command_queue));
    RELEASED_IN_CALLBACK.store(rc, Ordering::SeqCst);
}

/// The last release of a queue, from a callback of one of its own
/// commands (as SYCL's runtime does), ends: the release finishes the queue,
/// which must not wait for the command the callback is called from.
#[test]
fn a_callback_may_release_the_last_reference_to_its_queue() {
    let e = Env::new();
    let (_p, k) = e.kernel(
        "kernel void k(global int *x) { x[get_global_id(0)] += 1; }",
        "k",
    );
    let x = e.buffer_from(&[0i32; 256]);
    ok(set_mem(k.get(), 0, &x), "set arg");
    let q = ok(
        create_queue(e.c(), null()),
        "clCreateCommandQueueWithProperties",
    );
    let mut done = null_mut();
    let global = 256usize;
    check(
        cl!(clEnqueueNDRangeKernel(
            q.get(),
            k.get(),
            1,
            null(),
            &global,
            null(),
            0,
            null(),
            &mut done
        )),
        "clEnqueueNDRangeKernel",
    );
    check(
        cl!(clSetEventCallback(
            done,
            CL_COMPLETE,
            Some(release_queue),
            q.get().cast()
        )),
        "clSetEventCallback",
    );
    // The callback holds the last reference now.
    let raw = q.get();
    std::mem::forget(q);
    check(cl!(clFlush(raw)), "clFlush");
    let t = Instant::now();
    while RELEASED_IN_CALLBACK.load(Ordering::SeqCst) == 1 && t.elapsed() < Duration::from_secs(20)
    {
        std::thread::sleep(Duration::from_millis(2));
    }
    assert_eq!(
        RELEASED_IN_CALLBACK.load(Ordering::SeqCst),
        CL_SUCCESS,
        "the release did not end"
    );
    check(cl!(clWaitForEvents(1, &done)), "the kernel");
    check(cl!(clReleaseEvent(done)), "release");
    assert_eq!(e.read::<i32>(&x, 0, 256), vec![1; 256]);
}
