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
}
