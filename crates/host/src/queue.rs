//! The host's queues: a dispatch waits (without holding a thread) until its
//! semaphores are signalled, then a thread of the device's executor runs
//! its command buffer, ND-ranges on the thread pool. Executor threads sleep
//! while there is nothing to run.

use crate::device::run_nd_range;
use crate::thread_pool::ThreadPool;
use mux::{Command, CommandBuffer, Completion, FenceRef, Semaphore, SemaphoreRef};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};

type Waiter = Box<dyn FnOnce(bool) + Send>;

#[derive(Default)]
struct SemaphoreState {
    signalled: Option<bool>,
    waiters: Vec<Waiter>,
}

#[derive(Default)]
pub struct HostSemaphore {
    state: Mutex<SemaphoreState>,
}

impl Semaphore for HostSemaphore {
    fn signal(&self, ok: bool) {
        let waiters = {
            let mut st = self.state.lock().unwrap();
            if st.signalled.is_some() {
                return;
            }
            st.signalled = Some(ok);
            std::mem::take(&mut st.waiters)
        };
        // Outside the lock: a waiter may dispatch, or signal, in turn.
        for w in waiters {
            w(ok);
        }
    }

    fn on_signal(&self, then: Waiter) {
        let mut st = self.state.lock().unwrap();
        match st.signalled {
            Some(ok) => {
                drop(st);
                then(ok)
            }
            None => st.waiters.push(then),
        }
    }

    fn state(&self) -> Option<bool> {
        self.state.lock().unwrap().signalled
    }

    fn reset(&self) {
        let mut st = self.state.lock().unwrap();
        st.signalled = None;
        st.waiters.clear();
    }
}

/// A dispatch whose semaphores are all signalled.
struct Ready {
    commands: CommandBuffer,
    signal: SemaphoreRef,
    fence: Option<FenceRef>,
    done: Completion,
    queue: Arc<Pending>,
    /// A semaphore waited on failed: report it, run nothing.
    failed_wait: bool,
}

/// Dispatches of one queue not yet finished, for `wait_all`.
#[derive(Default)]
struct Pending {
    count: Mutex<usize>,
    changed: Condvar,
}

impl Pending {
    fn finished(&self) {
        *self.count.lock().unwrap() -= 1;
        self.changed.notify_all();
    }
}

/// The threads that run ready command buffers, shared by a device's queues.
pub struct Executor {
    ready: Mutex<VecDeque<Ready>>,
    wake: Condvar,
    /// No handle is left: threads end when `ready` is empty.
    closing: AtomicBool,
    pool: Arc<ThreadPool>,
    local_mem_size: u64,
}

/// What the device, its queues and the dispatches waiting on semaphores
/// hold of an executor: when the last of them goes, nothing can hand it
/// work any more, and its threads end once they have run what is ready (a
/// released sub-device leaves no thread behind).
pub struct ExecutorHandle(Arc<Executor>);

impl std::ops::Deref for ExecutorHandle {
    type Target = Executor;
    fn deref(&self) -> &Executor {
        &self.0
    }
}

impl Drop for ExecutorHandle {
    fn drop(&mut self) {
        let _ready = self.0.ready.lock().unwrap();
        self.0.closing.store(true, Ordering::Release);
        self.0.wake.notify_all();
    }
}

impl Executor {
    /// Starts `threads` executor threads, bound to `cpus` if given.
    pub fn new(
        threads: usize,
        pool: Arc<ThreadPool>,
        local_mem_size: u64,
        cpus: Option<Vec<usize>>,
    ) -> Arc<ExecutorHandle> {
        let e = Arc::new(Executor {
            ready: Mutex::new(VecDeque::new()),
            wake: Condvar::new(),
            closing: AtomicBool::new(false),
            pool,
            local_mem_size,
        });
        for i in 0..threads.max(1) {
            let e = e.clone();
            let cpus = cpus.clone();
            std::thread::Builder::new()
                .name(format!("ferrocl-queue-{i}"))
                .spawn(move || {
                    if let Some(cpus) = cpus {
                        crate::topology::pin_current_thread(&cpus);
                    }
                    e.serve()
                })
                .expect("spawning a queue thread");
        }
        Arc::new(ExecutorHandle(e))
    }

    fn submit(&self, r: Ready) {
        self.ready.lock().unwrap().push_back(r);
        // A thread that runs its queue's work itself right after wakes no
        // other for it: waking one costs more than an empty kernel runs.
        if !RUNS_WHAT_IT_DISPATCHES.get() {
            self.wake.notify_one();
        }
    }

    /// Runs a command buffer's commands in order, up to the first failure.
    fn run_commands(&self, commands: CommandBuffer) -> mux::Result<()> {
        commands
            .into_commands()
            .into_iter()
            .try_for_each(|c| match c {
                Command::NdRange {
                    kernel,
                    args,
                    range,
                    progress,
                } => {
                    if let Some(p) = &progress {
                        p.started();
                    }
                    // SAFETY: the block is the packed arguments, all of it.
                    let bytes = unsafe { std::slice::from_raw_parts(args.as_ptr(), args.size()) };
                    run_nd_range(
                        &self.pool,
                        self.local_mem_size,
                        kernel.as_ref(),
                        bytes,
                        &range,
                    )?;
                    if let Some(p) = &progress {
                        p.ended();
                    }
                    Ok(())
                }
                Command::Host(work) => work(),
                Command::Notify { target, what } => {
                    target.notify(what);
                    Ok(())
                }
                // SAFETY: the API layer keeps host pointers valid until the
                // command has run.
                other => unsafe { crate::commands::run(other) },
            })
    }

    /// A ready dispatch of the queue whose pending count is `queue`.
    fn take_ready_of(&self, queue: &Arc<Pending>) -> Option<Ready> {
        let mut ready = self.ready.lock().unwrap();
        let at = ready.iter().position(|r| Arc::ptr_eq(&r.queue, queue))?;
        ready.remove(at)
    }

    fn serve(&self) {
        loop {
            let r = {
                let mut ready = self.ready.lock().unwrap();
                loop {
                    if let Some(r) = ready.pop_front() {
                        break r;
                    }
                    if self.closing.load(Ordering::Acquire) {
                        return;
                    }
                    ready = self.wake.wait(ready).unwrap();
                }
            };
            self.run(r);
        }
    }

    fn run(&self, r: Ready) {
        mux::run_dispatch(|| self.run_dispatch(r));
    }

    fn run_dispatch(&self, r: Ready) {
        let result = if r.failed_wait {
            Err(mux::Error::WaitFailed)
        } else {
            let commands = r.commands;
            // A panic must not take the executor thread, and with it every
            // later dispatch and the waits on them: it fails this one.
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.run_commands(commands)))
                .unwrap_or(Err(mux::Error::OutOfResources))
        };
        // Signal first: `done` may hand the semaphore back for reuse. The
        // semaphore says the dispatch ended; how is `done`'s to hear.
        r.signal.signal(true);
        if let Some(f) = &r.fence {
            f.signal();
        }
        (r.done)(result);
        r.queue.finished();
    }
}

thread_local! {
    /// Set while this thread dispatches work it then waits for and runs
    /// itself (`dispatch_and_wait_all`).
    static RUNS_WHAT_IT_DISPATCHES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Calls `dispatch` with [`RUNS_WHAT_IT_DISPATCHES`] set, cleared after
/// even if it unwinds.
fn dispatching_to_run_here(dispatch: &mut dyn FnMut()) {
    struct Clear;
    impl Drop for Clear {
        fn drop(&mut self) {
            RUNS_WHAT_IT_DISPATCHES.set(false);
        }
    }
    RUNS_WHAT_IT_DISPATCHES.set(true);
    let _clear = Clear;
    dispatch();
}

pub struct HostQueue {
    executor: Arc<ExecutorHandle>,
    pending: Arc<Pending>,
}

impl HostQueue {
    pub fn new(executor: Arc<ExecutorHandle>) -> HostQueue {
        HostQueue {
            executor,
            pending: Arc::default(),
        }
    }

    /// Runs one of this queue's ready dispatches on the calling thread;
    /// whether there was one.
    fn run_ready(&self) -> bool {
        match self.executor.take_ready_of(&self.pending) {
            Some(r) => {
                self.executor.run(r);
                true
            }
            None => false,
        }
    }
}

impl mux::Queue for HostQueue {
    fn dispatch(
        &self,
        commands: CommandBuffer,
        wait: Vec<SemaphoreRef>,
        signal: SemaphoreRef,
        fence: Option<FenceRef>,
        done: Completion,
    ) {
        *self.pending.count.lock().unwrap() += 1;
        let ready = Ready {
            commands,
            signal,
            fence,
            done,
            queue: self.pending.clone(),
            failed_wait: false,
        };
        if wait.is_empty() {
            self.executor.submit(ready);
            return;
        }
        // The last semaphore to be signalled hands the dispatch on.
        let gate = Arc::new(Gate {
            remaining: AtomicUsize::new(wait.len()),
            failed: AtomicBool::new(false),
            ready: Mutex::new(Some(ready)),
            executor: self.executor.clone(),
        });
        for s in wait {
            let gate = gate.clone();
            s.on_signal(Box::new(move |ok| gate.signalled(ok)));
        }
    }

    fn dispatch_and_run_until(&self, dispatch: &mut dyn FnMut(), done: &dyn Fn() -> bool) {
        dispatching_to_run_here(dispatch);
        while !done() && self.run_ready() {}
        // What this thread leaves goes to the executor's.
        if !self.executor.ready.lock().unwrap().is_empty() {
            self.executor.wake.notify_one();
        }
    }

    fn dispatch_and_wait_all(&self, dispatch: &mut dyn FnMut()) {
        dispatching_to_run_here(dispatch);
        self.wait_all();
    }

    fn wait_all(&self) {
        // The waiting thread runs this queue's ready work itself rather
        // than hand it to an executor thread and sleep: a short command
        // then costs no thread switch.
        while self.run_ready() {}
        let mut n = self.pending.count.lock().unwrap();
        while *n > 0 {
            n = self.pending.changed.wait(n).unwrap();
        }
    }
}

/// A dispatch waiting for its semaphores.
struct Gate {
    remaining: AtomicUsize,
    failed: AtomicBool,
    ready: Mutex<Option<Ready>>,
    executor: Arc<ExecutorHandle>,
}

impl Gate {
    fn signalled(&self, ok: bool) {
        if !ok {
            self.failed.store(true, Ordering::SeqCst);
        }
        if self.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            if let Some(mut r) = self.ready.lock().unwrap().take() {
                r.failed_wait = self.failed.load(Ordering::SeqCst);
                self.executor.submit(r);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mux::Queue;
    use std::sync::mpsc::channel;

    fn queue() -> HostQueue {
        let pool = Arc::new(ThreadPool::new(1, None));
        HostQueue::new(Executor::new(2, pool, 1 << 16, None))
    }

    fn host(f: impl FnOnce() -> mux::Result<()> + Send + 'static) -> CommandBuffer {
        let mut cb = CommandBuffer::new();
        cb.host(Box::new(f));
        cb
    }

    #[test]
    fn a_thread_that_dispatches_then_waits_runs_the_work_itself() {
        let q = queue();
        // The executor's threads asleep, as between an application's calls.
        std::thread::sleep(std::time::Duration::from_millis(50));
        let here = std::thread::current().id();
        for _ in 0..20 {
            let (tx, rx) = channel();
            q.dispatch_and_wait_all(&mut || {
                let tx = tx.clone();
                let cb = host(move || {
                    tx.send(std::thread::current().id()).unwrap();
                    Ok(())
                });
                q.dispatch(
                    cb,
                    vec![],
                    Arc::new(HostSemaphore::default()),
                    None,
                    Box::new(|_| {}),
                );
            });
            assert_eq!(rx.recv().unwrap(), here);
        }
    }

    #[test]
    fn a_dispatch_waits_for_its_semaphores_then_signals_its_own() {
        let q = queue();
        let gate: SemaphoreRef = Arc::new(HostSemaphore::default());
        let done_sem: SemaphoreRef = Arc::new(HostSemaphore::default());
        let (tx, rx) = channel();
        let tx2 = tx.clone();
        q.dispatch(
            host(move || {
                tx.send("ran").unwrap();
                Ok(())
            }),
            vec![gate.clone()],
            done_sem.clone(),
            None,
            Box::new(move |r| tx2.send(if r.is_ok() { "done" } else { "failed" }).unwrap()),
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert!(rx.try_recv().is_err(), "ran before its semaphore");
        gate.signal(true);
        assert_eq!(rx.recv().unwrap(), "ran");
        assert_eq!(rx.recv().unwrap(), "done");
        q.wait_all();
        assert_eq!(done_sem.state(), Some(true));
    }

    #[test]
    fn a_failed_wait_skips_the_commands_and_fails_the_dispatch() {
        let q = queue();
        let gate: SemaphoreRef = Arc::new(HostSemaphore::default());
        let signal: SemaphoreRef = Arc::new(HostSemaphore::default());
        let ran = Arc::new(AtomicBool::new(false));
        let r2 = ran.clone();
        let (tx, rx) = channel();
        q.dispatch(
            host(move || {
                r2.store(true, Ordering::SeqCst);
                Ok(())
            }),
            vec![gate.clone()],
            signal.clone(),
            None,
            Box::new(move |r| tx.send(r).unwrap()),
        );
        gate.signal(false);
        assert_eq!(rx.recv().unwrap(), Err(mux::Error::WaitFailed));
        q.wait_all();
        assert!(!ran.load(Ordering::SeqCst));
        // It ended: what is ordered after it may run.
        assert_eq!(signal.state(), Some(true));
    }

    #[test]
    fn a_failing_command_stops_its_buffer() {
        let q = queue();
        let mut cb = CommandBuffer::new();
        let after = Arc::new(AtomicBool::new(false));
        let a2 = after.clone();
        cb.host(Box::new(|| Err(mux::Error::Status(-5))));
        cb.host(Box::new(move || {
            a2.store(true, Ordering::SeqCst);
            Ok(())
        }));
        let (tx, rx) = channel();
        let signal: SemaphoreRef = Arc::new(HostSemaphore::default());
        q.dispatch(
            cb,
            vec![],
            signal.clone(),
            None,
            Box::new(move |r| tx.send(r).unwrap()),
        );
        assert_eq!(rx.recv().unwrap(), Err(mux::Error::Status(-5)));
        q.wait_all();
        assert!(!after.load(Ordering::SeqCst));
        assert_eq!(signal.state(), Some(true));
    }

    #[test]
    fn a_panicking_command_fails_its_dispatch_and_what_follows_runs() {
        let q = queue();
        let (tx, rx) = channel();
        let tx2 = tx.clone();
        let signal: SemaphoreRef = Arc::new(HostSemaphore::default());
        q.dispatch(
            host(|| panic!("a command that panics")),
            vec![],
            signal.clone(),
            None,
            Box::new(move |r| tx.send(r.is_ok()).unwrap()),
        );
        assert!(!rx.recv().unwrap());
        let next: SemaphoreRef = Arc::new(HostSemaphore::default());
        q.dispatch(
            host(|| Ok(())),
            vec![signal],
            next,
            None,
            Box::new(move |r| tx2.send(r.is_ok()).unwrap()),
        );
        // Ordered after a failed dispatch, not failed by it.
        assert!(rx.recv().unwrap());
        q.wait_all();
    }

    #[test]
    fn a_reset_semaphore_can_be_signalled_again() {
        let s = HostSemaphore::default();
        s.signal(true);
        assert_eq!(s.state(), Some(true));
        s.reset();
        assert_eq!(s.state(), None);
        s.signal(false);
        assert_eq!(s.state(), Some(false));
    }
}
