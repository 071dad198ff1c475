//! Queues, command buffers and semaphores (seed 001): the API layer records
//! commands into a [`CommandBuffer`] and dispatches it to a device's
//! [`Queue`], waiting on some [`Semaphore`]s and signalling one when done.
//! Chaining each dispatch to the previous one's semaphore gives an in-order
//! queue; leaving them unchained lets independent work overlap.

use crate::{Allocation, KernelRef, NdRange, Result};
use std::sync::Arc;

/// Host work a command buffer runs in its place in the order: copies
/// between host-visible memory, and the API layer's own bookkeeping.
pub type HostWork = Box<dyn FnOnce() -> Result<()> + Send>;

/// One recorded command.
pub enum Command {
    /// Runs every work-group of `range` of `kernel` with the packed
    /// arguments `args`.
    NdRange {
        kernel: KernelRef,
        args: Arc<Allocation>,
        range: NdRange,
    },
    Host(HostWork),
}

/// Commands run in the order they were recorded. A command that fails
/// stops the buffer: the rest are skipped, and the dispatch reports the
/// failure.
#[derive(Default)]
pub struct CommandBuffer {
    commands: Vec<Command>,
}

impl CommandBuffer {
    pub fn new() -> CommandBuffer {
        CommandBuffer::default()
    }

    pub fn push(&mut self, command: Command) {
        self.commands.push(command);
    }

    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    pub fn len(&self) -> usize {
        self.commands.len()
    }

    pub fn into_commands(self) -> Vec<Command> {
        self.commands
    }
}

/// Signalled once, by the dispatch it belongs to (or by the API layer, for
/// what the device does not run: user events). A dispatch waiting on it
/// is told whether the work it stood for succeeded.
pub trait Semaphore: Send + Sync {
    /// Marks it signalled, successfully or not, and runs what waits on it.
    fn signal(&self, ok: bool);

    /// Runs `then` with the outcome once signalled (at once if it is).
    /// After that call the semaphore is not touched on `then`'s behalf
    /// again, so its owner may reset and reuse it.
    fn on_signal(&self, then: Box<dyn FnOnce(bool) + Send>);

    /// `Some(ok)` once signalled.
    fn state(&self) -> Option<bool>;

    /// Makes it unsignalled again, for reuse. Nothing may still wait on it.
    fn reset(&self);
}

pub type SemaphoreRef = Arc<dyn Semaphore>;

/// What becomes of a dispatch: `Ok` when every command ran, the error of
/// the first that failed, or [`Error::WaitFailed`] when a semaphore it
/// waited on was signalled as failed (then nothing ran).
pub type Completion = Box<dyn FnOnce(Result<()>) + Send>;

/// Where a device runs command buffers.
pub trait Queue: Send + Sync {
    /// Runs `commands` once every semaphore of `wait` is signalled, then
    /// signals `signal` successfully, then calls `done` with the outcome;
    /// `done` may reset `signal` for reuse. A failed dispatch does not
    /// fail the dispatches ordered after it: `signal` stands for the end of
    /// the work, not its success, and whoever depends on the success
    /// signals a semaphore of its own from `done`. Returns at once; the work happens on the
    /// device's own threads.
    fn dispatch(
        &self,
        commands: CommandBuffer,
        wait: Vec<SemaphoreRef>,
        signal: SemaphoreRef,
        done: Completion,
    );

    /// Blocks until every dispatch made so far has finished.
    fn wait_all(&self);
}
