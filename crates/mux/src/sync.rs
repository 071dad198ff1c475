//! What dispatches wait on and signal: [`Semaphore`]s between dispatches,
//! [`Fence`]s for the host.

use crate::Result;
use std::sync::Arc;
use std::time::Duration;

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

/// Signalled when the dispatch it was given to ends; the host blocks on it.
pub trait Fence: Send + Sync {
    /// Blocks until signalled or until `timeout` passes (forever if
    /// `None`); `Ok(true)` once signalled.
    fn wait(&self, timeout: Option<Duration>) -> Result<bool>;

    fn is_signalled(&self) -> bool;

    /// Makes it unsignalled again. Nothing may still be about to signal it.
    fn reset(&self);

    /// Marks it signalled and wakes whoever waits (the target's side).
    fn signal(&self);
}

pub type FenceRef = Arc<dyn Fence>;
