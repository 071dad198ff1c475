//! Random command graphs on in-order and out-of-order queues, enqueued from
//! several threads at once: every command must end (no lost wake-up, no
//! dependency that is never released) with the status and the data a
//! sequential model of the same graph predicts.
//!
//! `FERROCL_STRESS_SECS` sets how long the stress test runs (a few seconds
//! by default, so that it stays in `make test`).

use ferrocl_tests::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

const ADD: &str = r#"
__kernel void add(__global int* p, int v) { p[get_global_id(0)] += v; }
"#;

/// Items per buffer.
const N: usize = 64;

/// A graph that has not ended by then hangs.
const HANG: Duration = Duration::from_secs(60);

fn queue_with(e: &Env, properties: cl_command_queue_properties) -> Queue {
    let props = [CL_QUEUE_PROPERTIES as cl_queue_properties, properties, 0];
    ok(
        create_queue(e.c(), props.as_ptr()),
        "clCreateCommandQueueWithProperties",
    )
}

/// A small xorshift generator: the graphs need variety, not quality.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

fn list(events: &[cl_event]) -> (cl_uint, *const cl_event) {
    let p = if events.is_empty() {
        null()
    } else {
        events.as_ptr()
    };
    (events.len() as cl_uint, p)
}

/// A command of the graph, with what the model says of it.
struct Node {
    event: Ev,
    /// The model: this command fails (it waits, through wait lists, on a
    /// user event set to an error).
    fails: bool,
}

/// A read into host memory, checked against the model once it ended.
struct Read {
    event: usize,
    data: Box<[i32; N]>,
    expect: i32,
}

/// Enqueues one random graph on `queues` and checks it; returns the
/// number of commands.
fn run_graph(
    e: &Env,
    queues: &[Queue],
    kernel: &Kern,
    seed: u64,
    setter: &mpsc::Sender<(Ev, cl_int, Duration)>,
) -> usize {
    let mut rng = Rng(seed | 1);
    let buffers: Vec<Mem> = (0..3).map(|_| e.buffer_from(&[0i32; N])).collect();
    // The model: each buffer's value, the last command that wrote it and
    // the commands that read it since.
    let mut value = [0i32; 3];
    let mut last: [Option<usize>; 3] = [None; 3];
    let mut readers: [Vec<usize>; 3] = Default::default();
    let mut nodes: Vec<Node> = Vec::new();
    let mut reads: Vec<Read> = Vec::new();
    let ops = 8 + rng.below(24);
    for _ in 0..ops {
        let q = queues[rng.below(queues.len())].get();
        // A few random extra waits on earlier commands of any queue.
        let mut waits: Vec<usize> = Vec::new();
        for _ in 0..rng.below(3) {
            if !nodes.is_empty() {
                waits.push(rng.below(nodes.len()));
            }
        }
        let b = rng.below(3);
        let kind = rng.below(100);
        // A command that reads a buffer waits for its last writer; one that
        // writes it waits for the readers since too. A failing command
        // touches nothing, so nothing waits for it.
        let read_wait = |waits: &mut Vec<usize>, b: usize, nodes: &[Node]| {
            waits.extend(last[b].filter(|&w| !nodes[w].fails));
        };
        let write_wait = |waits: &mut Vec<usize>, b: usize, nodes: &[Node]| {
            waits.extend(last[b].filter(|&w| !nodes[w].fails));
            waits.extend(readers[b].iter().filter(|&&r| !nodes[r].fails));
        };
        let mut new_event = null_mut();
        let fails;
        if kind < 10 {
            // A user event, set from another thread a little later; one in
            // five fails what waits on it.
            let mut rc = 0;
            let u = cl!(clCreateUserEvent(e.c(), &mut rc));
            check(rc, "clCreateUserEvent");
            let fail = rng.chance(20);
            let status = if fail { -1000 } else { CL_COMPLETE };
            cl!(clRetainEvent(u));
            setter
                .send((Ev(u), status, Duration::from_micros(rng.below(2000) as u64)))
                .unwrap();
            nodes.push(Node {
                event: Ev(u),
                fails: fail,
            });
            continue;
        }
        if kind < 50 {
            write_wait(&mut waits, b, &nodes);
            let v = 1 + rng.below(9) as i32;
            fails = waits.iter().any(|&w| nodes[w].fails);
            let handles: Vec<cl_event> = waits.iter().map(|&w| nodes[w].event.get()).collect();
            let (n, p) = list(&handles);
            ok(set_mem(kernel.get(), 0, &buffers[b]), "arg 0");
            ok(set_arg(kernel.get(), 1, &v), "arg 1");
            check(
                cl!(clEnqueueNDRangeKernel(
                    q,
                    kernel.get(),
                    1,
                    null(),
                    [N].as_ptr(),
                    null(),
                    n,
                    p,
                    &mut new_event
                )),
                "clEnqueueNDRangeKernel",
            );
            if !fails {
                value[b] += v;
                last[b] = Some(nodes.len());
                readers[b].clear();
            }
        } else if kind < 62 {
            // Copy buffer c into b.
            let c = (b + 1 + rng.below(2)) % 3;
            write_wait(&mut waits, b, &nodes);
            read_wait(&mut waits, c, &nodes);
            fails = waits.iter().any(|&w| nodes[w].fails);
            let handles: Vec<cl_event> = waits.iter().map(|&w| nodes[w].event.get()).collect();
            let (n, p) = list(&handles);
            check(
                cl!(clEnqueueCopyBuffer(
                    q,
                    buffers[c].get(),
                    buffers[b].get(),
                    0,
                    0,
                    N * 4,
                    n,
                    p,
                    &mut new_event
                )),
                "clEnqueueCopyBuffer",
            );
            if !fails {
                value[b] = value[c];
                last[b] = Some(nodes.len());
                readers[b].clear();
                readers[c].push(nodes.len());
            }
        } else if kind < 70 {
            write_wait(&mut waits, b, &nodes);
            let v = rng.below(1000) as i32;
            fails = waits.iter().any(|&w| nodes[w].fails);
            let handles: Vec<cl_event> = waits.iter().map(|&w| nodes[w].event.get()).collect();
            let (n, p) = list(&handles);
            check(
                cl!(clEnqueueFillBuffer(
                    q,
                    buffers[b].get(),
                    (&v as *const i32).cast::<c_void>(),
                    4,
                    0,
                    N * 4,
                    n,
                    p,
                    &mut new_event
                )),
                "clEnqueueFillBuffer",
            );
            if !fails {
                value[b] = v;
                last[b] = Some(nodes.len());
                readers[b].clear();
            }
        } else if kind < 85 {
            read_wait(&mut waits, b, &nodes);
            fails = waits.iter().any(|&w| nodes[w].fails);
            let handles: Vec<cl_event> = waits.iter().map(|&w| nodes[w].event.get()).collect();
            let (n, p) = list(&handles);
            // A blocking read waits here, on user events the setter thread
            // has yet to set.
            let blocking = rng.chance(20);
            let mut data = Box::new([i32::MIN; N]);
            let rc = cl!(clEnqueueReadBuffer(
                q,
                buffers[b].get(),
                blocking as cl_bool,
                0,
                N * 4,
                data.as_mut_ptr().cast(),
                n,
                p,
                &mut new_event
            ));
            let want = if blocking && fails {
                CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST
            } else {
                CL_SUCCESS
            };
            assert_code(rc, want, "clEnqueueReadBuffer");
            if !fails {
                readers[b].push(nodes.len());
            }
            reads.push(Read {
                event: nodes.len(),
                data,
                expect: value[b],
            });
        } else {
            // Markers and barriers, with a wait list or after everything.
            let handles: Vec<cl_event> = waits.iter().map(|&w| nodes[w].event.get()).collect();
            let (n, p) = list(&handles);
            fails = waits.iter().any(|&w| nodes[w].fails);
            let rc = if rng.chance(50) {
                cl!(clEnqueueMarkerWithWaitList(q, n, p, &mut new_event))
            } else {
                cl!(clEnqueueBarrierWithWaitList(q, n, p, &mut new_event))
            };
            check(rc, "marker or barrier");
        }
        nodes.push(Node {
            event: ev(new_event),
            fails,
        });
        if rng.chance(10) {
            check(cl!(clFlush(q)), "clFlush");
        }
    }
    // Everything ends, each command as the model says.
    for q in queues {
        check(cl!(clFlush(q.get())), "clFlush");
    }
    for (i, n) in nodes.iter().enumerate() {
        // Waiting on a failed event reports the failure; the status says
        // which.
        let rc = cl!(clWaitForEvents(1, &n.event.get()));
        assert!(
            rc == CL_SUCCESS || (n.fails && rc == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
            "clWaitForEvents on command {i}: {}",
            err_name(rc)
        );
        let status = n.event.status();
        if n.fails {
            assert!(
                status < 0,
                "command {i} should have failed, its status is {status}"
            );
        } else {
            assert_eq!(status, CL_COMPLETE, "command {i}");
        }
    }
    for r in &reads {
        if !nodes[r.event].fails {
            assert_eq!(*r.data, [r.expect; N], "read {} of the graph", r.event);
        }
    }
    for (b, m) in buffers.iter().enumerate() {
        assert_eq!(e.read::<i32>(m, 0, N), vec![value[b]; N], "buffer {b}");
    }
    nodes.len()
}

/// Sets user events from its own thread, each after its delay.
fn spawn_setter() -> (
    mpsc::Sender<(Ev, cl_int, Duration)>,
    std::thread::JoinHandle<()>,
) {
    let (tx, rx) = mpsc::channel::<(Ev, cl_int, Duration)>();
    let t = std::thread::spawn(move || {
        for (u, status, delay) in rx {
            std::thread::sleep(delay);
            check(
                cl!(clSetUserEventStatus(u.get(), status)),
                "clSetUserEventStatus",
            );
        }
    });
    (tx, t)
}

/// Runs `f` on its own thread; a run that does not end in time is a hang.
fn no_hang<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
    });
    match rx.recv_timeout(HANG) {
        Ok(Ok(v)) => v,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => panic!("{what} did not end within {HANG:?}: a hang"),
    }
}

#[test]
fn a_marker_recorded_while_its_commands_run_ends_after_they_end() {
    no_hang("the marker", || {
        let e = Env::new();
        let q = queue_with(&e, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE);
        let (_p, k) = e.kernel(ADD, "add");
        let a = e.buffer_from(&[0i32; N]);
        for round in 0..20 {
            ok(set_mem(k.get(), 0, &a), "arg 0");
            ok(set_arg(k.get(), 1, &1i32), "arg 1");
            check(
                cl!(clEnqueueNDRangeKernel(
                    q.get(),
                    k.get(),
                    1,
                    null(),
                    [N].as_ptr(),
                    null(),
                    0,
                    null(),
                    null_mut()
                )),
                "clEnqueueNDRangeKernel",
            );
            // The marker is recorded behind the running kernel, which then
            // ends before the marker is flushed.
            let mut marker = null_mut();
            check(
                cl!(clEnqueueMarkerWithWaitList(q.get(), 0, null(), &mut marker)),
                "marker",
            );
            let marker = ev(marker);
            std::thread::sleep(Duration::from_millis(2));
            let mut out = [0i32; N];
            check(
                cl!(clEnqueueReadBuffer(
                    q.get(),
                    a.get(),
                    CL_TRUE,
                    0,
                    N * 4,
                    out.as_mut_ptr().cast(),
                    1,
                    &marker.get(),
                    null_mut()
                )),
                "blocking read after the marker",
            );
            assert_eq!(out, [round + 1; N]);
            assert_eq!(marker.status(), CL_COMPLETE);
        }
    });
}

#[test]
fn random_command_graphs_from_several_threads_all_end_as_modelled() {
    let secs: u64 = std::env::var("FERROCL_STRESS_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    let deadline = Instant::now() + Duration::from_secs(secs);
    let e = Arc::new(Env::new());
    let program = Arc::new(e.program(ADD, ""));
    let mut round = 0u64;
    let mut commands = 0usize;
    while Instant::now() < deadline {
        round += 1;
        // Queues shared by the threads: two in order, two out of order.
        let queues: Arc<Vec<Queue>> = Arc::new(vec![
            queue_with(&e, 0),
            queue_with(&e, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE),
            queue_with(&e, 0),
            queue_with(&e, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE),
        ]);
        let threads: Vec<_> = (0..4u64)
            .map(|t| {
                let (e, queues, program) = (e.clone(), queues.clone(), program.clone());
                std::thread::spawn(move || {
                    // Each thread sets its own kernel's arguments.
                    let k = ok(create_kernel(program.get(), "add"), "clCreateKernel");
                    let (setter, setter_thread) = spawn_setter();
                    let mut n = 0;
                    for g in 0..8u64 {
                        let seed =
                            0x9E37_79B9_7F4A_7C15u64.wrapping_mul(round * 1000 + t * 100 + g + 1);
                        n += run_graph(&e, &queues, &k, seed, &setter);
                    }
                    drop(setter);
                    setter_thread.join().unwrap();
                    n
                })
            })
            .collect();
        commands += no_hang(&format!("round {round}"), move || {
            threads
                .into_iter()
                .map(|t| t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .sum::<usize>()
        });
        for q in queues.iter() {
            check(cl!(clFinish(q.get())), "clFinish");
        }
    }
    eprintln!("{round} rounds, {commands} commands, in {secs} s");
}
