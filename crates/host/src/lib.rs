//! The host CPU target (seed 002): the device's properties read off this
//! machine, kernels compiled by LLVM and loaded by a loader of our own, and
//! a thread pool that runs work-groups on every core.

#[cfg(feature = "compiler")]
mod codegen;
mod commands;
pub mod cpu;
mod device;
mod device_info;
mod device_library;
mod elf_loader;
mod executable;
mod fp_control;
mod kernel;
mod memory;
#[cfg(feature = "compiler")]
mod pipeline;
mod queue;
mod sync;
mod target;
mod thread_pool;
mod topology;

pub use device::HostDevice;
pub use target::HostTarget;
