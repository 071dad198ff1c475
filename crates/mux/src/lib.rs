//! `mux`: the runtime abstraction between the OpenCL API layer (`cl`) and a
//! target (seed 000, "ComputeMux Runtime"). A target implements the traits
//! here: [`Device`], [`Memory`], [`Buffer`], [`Image`], [`Executable`],
//! [`Kernel`], [`Queue`], [`Semaphore`], [`Fence`] and [`QueryPool`]. The
//! API layer reaches a target only through [`validating`], which checks
//! every call's arguments against the objects it names, and records
//! commands through [`CommandBuffer`]'s methods, which check each command;
//! so a target sees only calls that fit. Nothing here knows what kind of
//! machine runs the work, and there is no LLVM here.

mod command_buffer;
mod device_info;
mod error;
mod executable;
mod image;
mod memory;
mod ndrange;
mod query_pool;
mod queue;
mod sync;
mod validate;

pub use command_buffer::{Command, CommandBuffer, Direction, HostWork, Notify, Progress, Rect};
pub use device_info::*;
pub use error::Error;
pub use executable::{Executable, ExecutableRef, Kernel, KernelRef};
pub use image::{Image, ImageDesc, ImageKind, ImageLayout, ImageRef};
pub use memory::{Allocation, Buffer, BufferRef, HostPtr, Memory, MemoryRef};
pub use ndrange::{NdRange, ScheduleInfo};
pub use query_pool::{Duration, QueryPool, QueryPoolRef};
pub use queue::{after_dispatch, run_dispatch, Completion, Queue};
pub use sync::{Fence, FenceRef, Semaphore, SemaphoreRef};
pub use validate::validating;

use std::sync::Arc;

pub type Result<T> = std::result::Result<T, Error>;

/// A device: what it reports, and the objects it makes.
pub trait Device: Send + Sync {
    /// Everything the API layer reports about the device.
    fn info(&self) -> &DeviceInfo;

    /// Zeroed memory of `size` bytes, its device address `align`-aligned.
    fn allocate_memory(&self, size: usize, align: usize) -> Result<MemoryRef>;

    /// Memory over `size` bytes the host owns at `ptr` (OpenCL's
    /// `CL_MEM_USE_HOST_PTR`); a device that cannot use them directly
    /// keeps a copy in step on map and unmap.
    ///
    /// # Safety
    /// `ptr` must stay valid for `size` bytes while the memory lives.
    unsafe fn memory_from_host(&self, ptr: *mut u8, size: usize) -> Result<MemoryRef>;

    /// Zeroed memory of `size` bytes that the host and kernels reach at
    /// one address, its device address (`align`-aligned), which is also a
    /// host pointer valid while the memory lives. Only for a device whose
    /// `DeviceInfo::shared_memory` has `buffers`.
    fn allocate_shared(&self, size: usize, align: usize) -> Result<MemoryRef>;

    /// A buffer over `[offset, offset + size)` of `memory`.
    fn create_buffer(&self, memory: MemoryRef, offset: usize, size: usize) -> Result<BufferRef>;

    /// How an image of `desc` is laid out, so that memory can be made for it.
    fn image_layout(&self, desc: &ImageDesc) -> Result<ImageLayout>;

    /// An image of `desc` in `memory` from `offset` on.
    fn create_image(&self, memory: MemoryRef, offset: usize, desc: ImageDesc) -> Result<ImageRef>;

    /// Loads a binary the target's compiler made.
    fn create_executable(&self, binary: &[u8]) -> Result<ExecutableRef>;

    /// A new queue to dispatch command buffers to.
    fn create_queue(&self) -> Arc<dyn Queue>;

    /// A new, unsignalled semaphore.
    fn create_semaphore(&self) -> SemaphoreRef;

    /// A new, unsignalled fence.
    fn create_fence(&self) -> FenceRef;

    /// A pool of `count` duration queries.
    fn create_query_pool(&self, count: usize) -> Result<QueryPoolRef>;

    /// A device of its own made of `units`, distinct indices of this
    /// device's compute units (a sub-device): its own threads, on those
    /// units alone. Memory and executables of either device work on both.
    fn create_sub_device(&self, units: &[u32]) -> Result<Arc<dyn Device>>;
}
