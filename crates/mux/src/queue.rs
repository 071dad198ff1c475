//! Queues (seed 001): the API layer records commands into a
//! [`CommandBuffer`] and dispatches it to a device's [`Queue`], waiting on
//! some [`Semaphore`](crate::Semaphore)s and signalling one when done.
//! Chaining each dispatch to the previous one's semaphore gives an in-order
//! queue; leaving them unchained lets independent work overlap.

use crate::command_buffer::CommandBuffer;
use crate::sync::{FenceRef, SemaphoreRef};
use crate::Result;

/// What becomes of a dispatch: `Ok` when every command ran, the error of
/// the first that failed, or [`Error::WaitFailed`](crate::Error) when a
/// semaphore it waited on was signalled as failed (then nothing ran).
pub type Completion = Box<dyn FnOnce(Result<()>) + Send>;

/// Where a device runs command buffers.
pub trait Queue: Send + Sync {
    /// Runs `commands` once every semaphore of `wait` is signalled, then
    /// signals `signal` successfully and `fence` if given, then calls
    /// `done` with the outcome; `done` may reset `signal` for reuse. A
    /// failed dispatch does not fail the dispatches ordered after it:
    /// `signal` stands for the end of the work, not its success, and
    /// whoever depends on the success signals a semaphore of its own from
    /// `done`. Returns at once; the work happens on the device's threads.
    fn dispatch(
        &self,
        commands: CommandBuffer,
        wait: Vec<SemaphoreRef>,
        signal: SemaphoreRef,
        fence: Option<FenceRef>,
        done: Completion,
    );

    /// Blocks until every dispatch made so far has finished.
    fn wait_all(&self);

    /// Calls `dispatch` (which makes dispatches of this queue), then
    /// [`wait_all`](Queue::wait_all). The calling thread is about to run
    /// what `dispatch` makes itself: a target need not wake a thread of its
    /// own for it.
    fn dispatch_and_wait_all(&self, dispatch: &mut dyn FnMut()) {
        dispatch();
        self.wait_all();
    }

    /// Calls `dispatch` (which makes dispatches of this queue), then runs
    /// the queue's dispatches that are ready on the calling thread until
    /// `done` says what the thread waits for has happened, or none is
    /// ready; a target hands what is left to threads of its own. A thread
    /// about to wait for the queue's work runs it itself: no other thread
    /// need wake for it, nor wake it.
    fn dispatch_and_run_until(&self, dispatch: &mut dyn FnMut(), _done: &dyn Fn() -> bool) {
        dispatch();
    }
}

thread_local! {
    /// Work deferred until the dispatch this thread runs has ended.
    static DEFERRED: std::cell::RefCell<Option<Vec<Box<dyn FnOnce()>>>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs a dispatch (`run`: its commands, its semaphore, its completion),
/// then what its commands deferred with [`after_dispatch`]. A target runs
/// every dispatch through this.
pub fn run_dispatch(run: impl FnOnce()) {
    let outer = DEFERRED.with(|d| d.replace(Some(Vec::new())));
    run();
    let deferred = DEFERRED.with(|d| d.replace(outer)).unwrap_or_default();
    for f in deferred {
        f();
    }
}

/// Runs `f` once the dispatch this thread runs has ended, or now on a
/// thread that runs none. For the application's callbacks, which may wait
/// for the very dispatch they are called from, or for work that waits on
/// it (releasing a queue finishes it; a blocking free of USM finishes
/// every queue of its context).
pub fn after_dispatch(f: impl FnOnce() + 'static) {
    let f: Box<dyn FnOnce()> = Box::new(f);
    let now = DEFERRED.with(|d| match d.borrow_mut().as_mut() {
        Some(list) => {
            list.push(f);
            None
        }
        None => Some(f),
    });
    if let Some(f) = now {
        f();
    }
}
