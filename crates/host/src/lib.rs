//! The host CPU target (seed 002): the device's properties read off this
//! machine, kernels compiled by LLVM and loaded with ORC LLJIT, and a thread
//! pool that runs work-groups on every core.

mod device;
mod device_info;
mod fp_control;
mod jit;
mod kernel;
mod queue;
mod target;
mod thread_pool;

pub use device::HostDevice;
pub use target::HostTarget;
