//! `mux`: the runtime abstraction between the OpenCL API layer (`cl`) and a
//! target. A target implements [`Device`] and hands out [`Kernel`]s; the API
//! layer never learns what kind of machine runs them. No LLVM here.

mod device_info;
mod error;
mod memory;
mod ndrange;
mod queue;

pub use device_info::*;
pub use error::Error;
pub use memory::Allocation;
pub use ndrange::{NdRange, ScheduleInfo};
pub use queue::{Command, CommandBuffer, Completion, HostWork, Queue, Semaphore, SemaphoreRef};

use std::sync::Arc;

pub type Result<T> = std::result::Result<T, Error>;

/// A device: what it reports, memory it hands out, and kernels it runs.
pub trait Device: Send + Sync {
    /// Everything the API layer reports about the device.
    fn info(&self) -> &DeviceInfo;

    /// Memory the device can read and write, `align`-aligned and zeroed.
    fn allocate(&self, size: usize, align: usize) -> Result<Allocation>;

    /// Runs every work-group of `range` with the packed arguments `args`
    /// and returns when all have finished.
    fn run(&self, kernel: &dyn Kernel, args: &[u8], range: &NdRange) -> Result<()>;

    /// A new queue to dispatch command buffers to.
    fn create_queue(&self) -> Arc<dyn Queue>;

    /// A new, unsignalled semaphore.
    fn create_semaphore(&self) -> SemaphoreRef;
}

/// One kernel, compiled for one local size: a work-group function.
pub trait Kernel: Send + Sync {
    /// Bytes of `__local` memory its own variables use, per work-group.
    fn static_local_memory(&self) -> usize;

    /// Bytes of per-work-item storage one work-group needs (values that
    /// live across its barriers).
    fn work_item_storage(&self) -> usize;

    /// Runs work-groups `[first, last)` (linear ids, x fastest).
    ///
    /// # Safety
    /// `args` must be the packed argument block this kernel was built for,
    /// naming live memory; `local` must hold the work-group's local memory
    /// and `storage` its [`work_item_storage`](Self::work_item_storage),
    /// both for this call alone.
    unsafe fn run_groups(
        &self,
        args: *const u8,
        info: &ScheduleInfo,
        local: *mut u8,
        storage: *mut u8,
        first: u64,
        last: u64,
    );
}

pub type KernelRef = Arc<dyn Kernel>;
