//! The host CPU target (seed 002): the device's properties read off this
//! machine, kernels compiled by LLVM and loaded with ORC LLJIT, and a thread
//! pool that runs work-groups on every core.

mod commands;
mod device;
mod device_info;
mod executable;
mod fp_control;
mod jit;
mod kernel;
mod memory;
mod queue;
mod sync;
mod target;
mod thread_pool;
mod topology;

pub use device::HostDevice;
pub use target::HostTarget;
