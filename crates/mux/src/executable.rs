//! Executables: a target's binary, loaded, and the kernels in it.

use crate::ndrange::ScheduleInfo;
use crate::Result;
use std::sync::Arc;

/// Code loaded from a binary the target's compiler produced.
pub trait Executable: Send + Sync {
    /// The names of the kernels it holds.
    fn kernel_names(&self) -> Vec<String>;

    /// The kernel called `name` ([`Error::NoSuchKernel`](crate::Error) if
    /// there is none).
    fn kernel(&self, name: &str) -> Result<KernelRef>;
}

pub type ExecutableRef = Arc<dyn Executable>;

/// One kernel, compiled for one local size: a work-group function.
pub trait Kernel: Send + Sync {
    /// Bytes of `__local` memory its own variables use, per work-group.
    fn static_local_memory(&self) -> usize;

    /// Bytes of per-work-item storage one work-group needs (values that
    /// live across its barriers).
    fn work_item_storage(&self) -> usize;

    /// The executable it was loaded from, as `Device::create_executable`
    /// takes it (for a program binary to carry), if the target keeps it.
    fn executable(&self) -> Option<Arc<[u8]>> {
        None
    }

    /// Runs work-groups `[first, last)` (linear ids, x fastest).
    ///
    /// # Safety
    /// `args` must be the packed argument block this kernel was built for,
    /// naming live memory; `local` must hold the work-group's local memory
    /// and `storage` its [`work_item_storage`](Self::work_item_storage),
    /// both for this call alone. `storage` begins where the local memory
    /// ends (its bytes rounded up to 128): a kernel tells a pointer to
    /// local memory by that range.
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
