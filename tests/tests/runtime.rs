//! Queues and events under real use: out-of-order queues that overlap
//! independent commands, dependencies across queues and on user events,
//! failure that propagates, long chains, callbacks that enqueue more work,
//! many threads and queues at once.

use ferrocl_tests::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::time::{Duration, Instant};

const ADD: &str = r#"
__kernel void add(__global int* p, int v) { p[get_global_id(0)] += v; }
"#;

fn queue_with(e: &Env, properties: cl_command_queue_properties) -> Queue {
    let props = [CL_QUEUE_PROPERTIES as cl_queue_properties, properties, 0];
    ok(
        create_queue(e.c(), props.as_ptr()),
        "clCreateCommandQueueWithProperties",
    )
}

fn user_event(e: &Env) -> Ev {
    let mut rc = 0;
    let u = cl!(clCreateUserEvent(e.c(), &mut rc));
    check(rc, "clCreateUserEvent");
    Ev(u)
}

/// Enqueues `add(p, v)` over `n` items on `q` after `waits`; returns its event.
fn add(q: cl_command_queue, k: &Kern, p: &Mem, v: i32, n: usize, waits: &[cl_event]) -> Ev {
    ok(set_mem(k.get(), 0, p), "arg 0");
    ok(set_arg(k.get(), 1, &v), "arg 1");
    let mut ev_out = null_mut();
    check(
        cl!(clEnqueueNDRangeKernel(
            q,
            k.get(),
            1,
            null(),
            [n].as_ptr(),
            null(),
            waits.len() as cl_uint,
            if waits.is_empty() {
                null()
            } else {
                waits.as_ptr()
            },
            &mut ev_out
        )),
        "clEnqueueNDRangeKernel",
    );
    ev(ev_out)
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn an_out_of_order_queue_runs_independent_commands_past_a_blocked_one() {
    let e = Env::new();
    let q = queue_with(&e, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let (_p, k) = e.kernel(ADD, "add");
    let (a, b) = (e.buffer_from(&[0i32; 64]), e.buffer_from(&[0i32; 64]));
    let gate = user_event(&e);
    let blocked = add(q.get(), &k, &a, 1, 64, &[gate.get()]);
    let free = add(q.get(), &k, &b, 2, 64, &[]);
    check(cl!(clFlush(q.get())), "clFlush");
    free.wait();
    assert_eq!(free.status(), CL_COMPLETE);
    assert!(blocked.status() > CL_COMPLETE, "ran before its user event");
    check(cl!(clSetUserEventStatus(gate.get(), CL_COMPLETE)), "set");
    blocked.wait();
    check(cl!(clFinish(q.get())), "clFinish");
    assert_eq!(e.read::<i32>(&a, 0, 64), vec![1; 64]);
    assert_eq!(e.read::<i32>(&b, 0, 64), vec![2; 64]);
}

#[test]
fn an_in_order_queue_keeps_later_commands_behind_a_blocked_one() {
    let e = Env::new();
    let (_p, k) = e.kernel(ADD, "add");
    let a = e.buffer_from(&[0i32; 16]);
    let gate = user_event(&e);
    let first = add(e.q(), &k, &a, 1, 16, &[gate.get()]);
    let second = add(e.q(), &k, &a, 10, 16, &[]);
    check(cl!(clFlush(e.q())), "clFlush");
    std::thread::sleep(Duration::from_millis(30));
    assert!(first.status() > CL_COMPLETE && second.status() > CL_COMPLETE);
    check(cl!(clSetUserEventStatus(gate.get(), CL_COMPLETE)), "set");
    second.wait();
    assert_eq!(first.status(), CL_COMPLETE);
    assert_eq!(e.read::<i32>(&a, 0, 16), vec![11; 16]);
}

#[test]
fn an_out_of_order_barrier_orders_what_comes_before_and_after() {
    let e = Env::new();
    let q = queue_with(&e, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
    let (_p, k) = e.kernel(ADD, "add");
    let a = e.buffer_from(&[0i32; 8]);
    let gate = user_event(&e);
    let before = add(q.get(), &k, &a, 1, 8, &[gate.get()]);
    let mut barrier = null_mut();
    check(
        cl!(clEnqueueBarrierWithWaitList(
            q.get(),
            0,
            null(),
            &mut barrier
        )),
        "barrier",
    );
    let barrier = ev(barrier);
    let after = add(q.get(), &k, &a, 100, 8, &[]);
    check(cl!(clFlush(q.get())), "clFlush");
    std::thread::sleep(Duration::from_millis(30));
    assert!(barrier.status() > CL_COMPLETE && after.status() > CL_COMPLETE);
    check(cl!(clSetUserEventStatus(gate.get(), CL_COMPLETE)), "set");
    after.wait();
    assert_eq!(before.status(), CL_COMPLETE);
    assert_eq!(e.read::<i32>(&a, 0, 8), vec![101; 8]);
}

#[test]
fn waiting_on_another_queues_unflushed_event_does_not_deadlock() {
    let e = Env::new();
    let other = ok(create_queue(e.c(), null()), "second queue");
    let (_p, k) = e.kernel(ADD, "add");
    let a = e.buffer_from(&[0i32; 32]);
    // Recorded on `other`, never flushed by the test.
    let first = add(other.get(), &k, &a, 5, 32, &[]);
    let second = add(e.q(), &k, &a, 7, 32, &[first.get()]);
    second.wait();
    assert_eq!(e.read::<i32>(&a, 0, 32), vec![12; 32]);
}

#[test]
fn a_failed_user_event_fails_every_command_that_depends_on_it() {
    let e = Env::new();
    let other = ok(create_queue(e.c(), null()), "second queue");
    let (_p, k) = e.kernel(ADD, "add");
    let a = e.buffer_from(&[0i32; 8]);
    let gate = user_event(&e);
    let direct = add(e.q(), &k, &a, 1, 8, &[gate.get()]);
    let indirect = add(other.get(), &k, &a, 2, 8, &[direct.get()]);
    check(cl!(clFlush(other.get())), "clFlush");
    check(cl!(clSetUserEventStatus(gate.get(), -77)), "set failed");
    let mut list = [indirect.get()];
    assert_code(
        cl!(clWaitForEvents(1, list.as_mut_ptr())),
        CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
        "waiting on a failed chain",
    );
    assert!(direct.status() < 0, "direct dependent: {}", direct.status());
    assert!(
        indirect.status() < 0,
        "indirect dependent: {}",
        indirect.status()
    );
    // Nothing ran.
    assert_eq!(e.read::<i32>(&a, 0, 8), vec![0; 8]);
}

#[test]
fn a_failure_spreads_through_wait_lists_only() {
    let e = Env::new();
    let (_p, k) = e.kernel(ADD, "add");
    let a = e.buffer_from(&[0i32; 8]);
    let b = e.buffer_from(&[0i32; 8]);
    let gate = user_event(&e);
    // Same queue, recorded before the gate fails: `failed` waits on it,
    // `dependent` waits on `failed`, `independent` only follows in order.
    let failed = add(e.q(), &k, &a, 1, 8, &[gate.get()]);
    let independent = add(e.q(), &k, &b, 2, 8, &[]);
    let dependent = add(e.q(), &k, &a, 4, 8, &[failed.get()]);
    let after = add(e.q(), &k, &b, 8, 8, &[]);
    check(cl!(clFlush(e.q())), "clFlush");
    check(cl!(clSetUserEventStatus(gate.get(), -5)), "set failed");
    after.wait();
    assert!(failed.status() < 0, "failed: {}", failed.status());
    assert!(dependent.status() < 0, "dependent: {}", dependent.status());
    assert_eq!(independent.status(), CL_COMPLETE);
    assert_eq!(after.status(), CL_COMPLETE);
    assert_eq!(e.read::<i32>(&a, 0, 8), vec![0; 8]);
    assert_eq!(e.read::<i32>(&b, 0, 8), vec![10; 8]);
}

#[test]
fn a_chain_of_a_hundred_thousand_dependent_events_completes() {
    let e = Env::new();
    let queues = [
        ok(create_queue(e.c(), null()), "queue 0"),
        ok(create_queue(e.c(), null()), "queue 1"),
    ];
    let gate = user_event(&e);
    let mut last = Ev(gate.get());
    check(cl!(clRetainEvent(gate.get())), "retain");
    // Markers alternate between the queues, each waiting on the one before.
    for i in 0..100_000 {
        let mut next = null_mut();
        let w = [last.get()];
        check(
            cl!(clEnqueueMarkerWithWaitList(
                queues[i % 2].get(),
                1,
                w.as_ptr(),
                &mut next
            )),
            "marker",
        );
        last = ev(next);
    }
    check(cl!(clSetUserEventStatus(gate.get(), CL_COMPLETE)), "set");
    last.wait();
    assert_eq!(last.status(), CL_COMPLETE);
}

extern "C" fn enqueue_more(event: cl_event, status: cl_int, data: *mut c_void) {
    // The callback's user data: the queue, the kernel, the buffer.
    let (q, k, m) = unsafe { *(data as *const (cl_command_queue, cl_kernel, cl_mem)) };
    assert_eq!(status, CL_COMPLETE);
    let _ = event;
    let v = 1000i32;
    let rt = raw();
    rt.clSetKernelArg(
        k,
        0,
        std::mem::size_of::<cl_mem>(),
        (&m as *const cl_mem).cast(),
    )
    .unwrap();
    rt.clSetKernelArg(k, 1, 4, (&v as *const i32).cast())
        .unwrap();
    let n = [4usize];
    rt.clEnqueueNDRangeKernel(q, k, 1, null(), n.as_ptr(), null(), 0, null(), null_mut())
        .unwrap();
    rt.clFlush(q).unwrap();
}

#[test]
fn a_callback_may_enqueue_more_work() {
    let e = Env::new();
    let (_p, k) = e.kernel(ADD, "add");
    let (_p2, k2) = e.kernel(ADD, "add");
    let a = e.buffer_from(&[0i32; 4]);
    let first = add(e.q(), &k, &a, 1, 4, &[]);
    let data = Box::new((e.q(), k2.get(), a.get()));
    check(
        cl!(clSetEventCallback(
            first.get(),
            CL_COMPLETE,
            Some(enqueue_more),
            (&*data as *const (cl_command_queue, cl_kernel, cl_mem)) as *mut c_void
        )),
        "clSetEventCallback",
    );
    check(cl!(clFlush(e.q())), "clFlush");
    wait_until("the callback's kernel", || {
        e.read::<i32>(&a, 0, 4) == vec![1001; 4]
    });
    e.finish();
}

#[test]
fn released_objects_live_until_their_pending_commands_ran() {
    let e = Env::new();
    let q = ok(create_queue(e.c(), null()), "queue");
    let (p, k) = e.kernel(ADD, "add");
    let a = e.buffer_from(&[3i32; 64]);
    let gate = user_event(&e);
    let pending = add(q.get(), &k, &a, 4, 64, &[gate.get()]);
    // Everything the command uses is released by the application.
    let mut back = vec![0i32; 64];
    let mut read = null_mut();
    check(
        cl!(clEnqueueReadBuffer(
            q.get(),
            a.get(),
            CL_FALSE,
            0,
            256,
            back.as_mut_ptr().cast(),
            0,
            null(),
            &mut read
        )),
        "read",
    );
    let read = ev(read);
    drop((k, p, a));
    check(cl!(clFlush(q.get())), "clFlush");
    check(cl!(clSetUserEventStatus(gate.get(), CL_COMPLETE)), "set");
    drop(q);
    read.wait();
    assert_eq!(pending.status(), CL_COMPLETE);
    assert_eq!(back, vec![7; 64]);
}

#[test]
fn threads_and_queues_with_dependencies_across_queues() {
    const THREADS: usize = 4;
    const QUEUES: usize = 3;
    const ROUNDS: usize = 40;
    let e = Env::new();
    let start = Instant::now();
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let c = e.c() as usize;
            s.spawn(move || {
                let c = c as cl_context;
                let queues: Vec<Queue> = (0..QUEUES)
                    .map(|_| ok(create_queue(c, null()), "queue"))
                    .collect();
                let src = create_program(c, ADD);
                check(build_program(src.get(), ""), "build");
                let k = ok(create_kernel(src.get(), "add"), "kernel");
                let n = 256;
                let mut rc = 0;
                let buf = Mem(cl!(clCreateBuffer(
                    c,
                    CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                    n * 4,
                    vec![0i32; n].as_mut_ptr().cast(),
                    &mut rc
                )));
                check(rc, "buffer");
                // Each round adds on the next queue, after the previous
                // round's event on another queue: a chain through them all.
                let mut last: Option<Ev> = None;
                for r in 0..ROUNDS {
                    let q = queues[r % QUEUES].get();
                    let waits: Vec<cl_event> = last.iter().map(|l| l.get()).collect();
                    last = Some(add(q, &k, &buf, (r + t) as i32, n, &waits));
                }
                last.unwrap().wait();
                let mut back = vec![0i32; n];
                check(
                    cl!(clEnqueueReadBuffer(
                        queues[0].get(),
                        buf.get(),
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
                let want: i32 = (0..ROUNDS).map(|r| (r + t) as i32).sum();
                assert_eq!(back, vec![want; n], "thread {t}");
            });
        }
    });
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "took too long: deadlock?"
    );
}

#[repr(C)]
struct NativeArgs {
    buffer: *mut i32,
    n: i32,
    add: i32,
}

extern "C" fn native_add(args: *mut c_void) {
    // SAFETY: the runtime's copy of a `NativeArgs`, its buffer replaced by
    // a pointer to the memory object's contents.
    unsafe {
        let a = &*(args as *const NativeArgs);
        for i in 0..a.n as usize {
            *a.buffer.add(i) += a.add;
        }
    }
}

#[test]
fn a_native_kernel_runs_in_queue_order_on_the_memory_objects_it_names() {
    let e = Env::new();
    let caps = ok(
        device_info(device(), CL_DEVICE_EXECUTION_CAPABILITIES),
        "caps",
    )
    .u64();
    assert_ne!(caps & CL_EXEC_NATIVE_KERNEL, 0);
    let (_p, k) = e.kernel(ADD, "add");
    let a = e.buffer_from(&[1i32; 32]);
    let before = add(e.q(), &k, &a, 10, 32, &[]);
    let mut args = NativeArgs {
        buffer: a.get() as *mut i32,
        n: 32,
        add: 100,
    };
    let mems = [a.get()];
    let locs = [(&args.buffer as *const *mut i32).cast::<c_void>()];
    let mut out = null_mut();
    check(
        cl!(clEnqueueNativeKernel(
            e.q(),
            Some(native_add),
            (&mut args as *mut NativeArgs).cast(),
            std::mem::size_of::<NativeArgs>(),
            1,
            mems.as_ptr(),
            locs.as_ptr() as *mut *const c_void,
            1,
            &before.get(),
            &mut out
        )),
        "clEnqueueNativeKernel",
    );
    let native = ev(out);
    // The application's own copy is not touched.
    args.add = -1;
    native.wait();
    let ty = ok(event_info(native.get(), CL_EVENT_COMMAND_TYPE), "type").u32();
    assert_eq!(ty, CL_COMMAND_NATIVE_KERNEL);
    assert_eq!(e.read::<i32>(&a, 0, 32), vec![111; 32]);
    // Bad arguments.
    let no_fn: Option<extern "C" fn(*mut c_void)> = None;
    assert_code(
        cl!(clEnqueueNativeKernel(
            e.q(),
            unsafe { std::mem::transmute(no_fn) },
            null_mut(),
            0,
            0,
            null(),
            null_mut(),
            0,
            null(),
            null_mut()
        )),
        CL_INVALID_VALUE,
        "no function",
    );
    assert_code(
        cl!(clEnqueueNativeKernel(
            e.q(),
            Some(native_add),
            null_mut(),
            8,
            0,
            null(),
            null_mut(),
            0,
            null(),
            null_mut()
        )),
        CL_INVALID_VALUE,
        "a size without arguments",
    );
    let bad = [e.q() as cl_mem];
    assert_code(
        cl!(clEnqueueNativeKernel(
            e.q(),
            Some(native_add),
            (&mut args as *mut NativeArgs).cast(),
            std::mem::size_of::<NativeArgs>(),
            1,
            bad.as_ptr(),
            locs.as_ptr() as *mut *const c_void,
            0,
            null(),
            null_mut()
        )),
        CL_INVALID_MEM_OBJECT,
        "a queue as a memory object",
    );
}
