//! The compiler abstraction (seed 003): OpenCL C goes in, a [`ProgramModule`]
//! (LLVM IR with the builtins linked) comes out; a [`Target`] turns one kernel
//! of it into a runnable [`mux::Kernel`] for a given local size.

mod arg_layout;
mod kernel_info;
pub mod llvm;
mod options;
mod program;

pub use arg_layout::{arg_layout, ARG_BLOCK_ALIGN, LOCAL_ALIGN};
pub use kernel_info::{AddressSpace, ArgInfo, ArgKind, KernelInfo};
pub use options::{parse_link_options, BuildOptions, OptionsError};
pub use program::{BuildError, Context, ModuleKind, ProgramModule, TRIPLE};

use std::sync::Arc;

/// What a target needs from a kernel to build its work-group function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Specialization {
    pub local_size: [usize; 3],
}

/// A compilation target: the compiler half of a device.
pub trait Target: Send + Sync {
    /// The CPU name the front end tunes for (`-target-cpu`).
    fn cpu(&self) -> &str;

    /// Compiles `kernel` of `program` into a work-group function for `spec`.
    fn specialize(
        &self,
        program: &ProgramModule,
        kernel: &KernelInfo,
        spec: Specialization,
    ) -> Result<Arc<dyn mux::Kernel>, mux::Error>;
}
