//! Query pools: slots that `BeginQuery`/`EndQuery` commands fill with the
//! device's timestamps, for profiling.

use crate::Result;
use std::sync::Arc;

/// Start and end of the commands between a `BeginQuery` and an `EndQuery`
/// of the same slot, in nanoseconds of the device's monotonic clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Duration {
    pub start: u64,
    pub end: u64,
}

pub trait QueryPool: Send + Sync {
    fn count(&self) -> usize;

    /// The slot's duration once both its commands ran; `None` before.
    fn duration(&self, index: usize) -> Result<Option<Duration>>;

    /// Records the device's time now as the slot's start (`begin`) or end.
    fn stamp(&self, index: usize, begin: bool);

    /// Empties slots `[first, first + count)`.
    fn reset(&self, first: usize, count: usize);
}

pub type QueryPoolRef = Arc<dyn QueryPool>;
