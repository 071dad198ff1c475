//! The compiler abstraction (seed 003): OpenCL C goes in, a [`ProgramModule`]
//! (LLVM IR with the builtins linked) comes out; a [`Target`] turns one kernel
//! of it into a runnable [`mux::Kernel`] for a given local size.
//!
//! Without its `front-end` feature (on by default) the crate has no Clang,
//! no builtins library and no SPIR-V translator: it loads program binaries
//! and builds nothing.

mod arg_layout;
pub mod binary;
mod build_id;
pub mod device_library;
pub mod disk_cache;
mod kernel_info;
pub mod knobs;
#[cfg(feature = "front-end")]
pub mod llvm;
mod options;
pub mod printf;
mod program;
pub mod program_globals;
#[cfg(feature = "front-end")]
pub mod vector_variants;

pub use arg_layout::{
    arg_layout, globals_arg_offset, hidden_args_end, printf_arg_offset, ARG_BLOCK_ALIGN,
    LOCAL_ALIGN, PRINTF_ARG_BYTES,
};
pub use binary::{Machine, MachineCode, SpecializedCode};
pub use build_id::build_id;
pub use kernel_info::{AddressSpace, ArgInfo, ArgKind, ImageType, KernelInfo};
pub use options::{parse_link_options, BuildOptions, OptionsError};
pub use printf::{PrintfArg, PrintfCall};
#[cfg(feature = "front-end")]
pub use program::Context;
pub use program::{
    BuildError, CodeGenOptions, Header, ModuleKind, ProgramModule, SpecConstants, TRIPLE,
};
#[cfg(feature = "front-end")]
pub use spirv_ll;

use std::sync::Arc;

/// The OpenCL C extensions this compiler and its builtins implement, with
/// their versions (major, minor, patch): a device reports these, and Clang
/// is told of exactly these.
pub const OPENCL_C_EXTENSIONS: &[(&str, (u32, u32, u32))] = &[
    ("cl_khr_byte_addressable_store", (1, 0, 0)),
    ("cl_khr_fp64", (1, 0, 0)),
    // half through float (the builtins' math_half.cl and friends).
    ("cl_khr_fp16", (1, 0, 0)),
    ("cl_khr_global_int32_base_atomics", (1, 0, 0)),
    ("cl_khr_global_int32_extended_atomics", (1, 0, 0)),
    ("cl_khr_local_int32_base_atomics", (1, 0, 0)),
    ("cl_khr_local_int32_extended_atomics", (1, 0, 0)),
    ("cl_khr_int64_base_atomics", (1, 0, 0)),
    ("cl_khr_int64_extended_atomics", (1, 0, 0)),
    ("cl_khr_extended_bit_ops", (1, 0, 0)),
    ("cl_khr_integer_dot_product", (2, 0, 0)),
    // Clang's own __builtin_expect and __builtin_assume.
    ("cl_khr_expect_assume", (1, 0, 0)),
    // At device, work-group and sub-group scope.
    ("cl_khr_kernel_clock", (1, 0, 0)),
    // The sub-group extensions' functions: sub-groups are runs of the
    // kernel's sub-group width along dimension 0 (the builtins'
    // `sub_group_*.cl`, `passes::sub_group_loops`).
    // Not cl_khr_subgroups: the extension (unlike OpenCL 3.0's optional
    // sub-groups, `__opencl_c_subgroups`) requires sub-groups that make
    // independent forward progress, and a work-group's run one after the
    // other on one thread.
    ("cl_khr_subgroup_extended_types", (1, 0, 0)),
    ("cl_khr_subgroup_non_uniform_vote", (1, 0, 0)),
    ("cl_khr_subgroup_ballot", (1, 0, 0)),
    ("cl_khr_subgroup_non_uniform_arithmetic", (1, 0, 0)),
    ("cl_khr_subgroup_shuffle", (1, 0, 0)),
    ("cl_khr_subgroup_shuffle_relative", (1, 0, 0)),
    ("cl_khr_subgroup_clustered_reduce", (1, 0, 0)),
    ("cl_khr_subgroup_rotate", (1, 0, 0)),
    // `intel_reqd_sub_group_size(n)`: the kernel's width is n.
    ("cl_intel_required_subgroup_size", (1, 0, 0)),
    // Intel's shuffles (a vector too; up and down with a second value) and
    // block reads and writes of buffers, local memory and 2D images
    // (`intel_sub_groups.cl`); the same in SPIR-V (SPV_INTEL_subgroups).
    ("cl_intel_subgroups", (1, 0, 0)),
    ("cl_intel_subgroups_char", (1, 0, 0)),
    ("cl_intel_subgroups_short", (1, 0, 0)),
    ("cl_intel_subgroups_long", (1, 0, 0)),
    ("cl_intel_subgroup_local_block_io", (1, 0, 0)),
    ("cl_intel_spirv_subgroups", (1, 0, 0)),
    // float to bfloat16 bits and back (`bfloat16.cl`); the same in SPIR-V
    // (SPV_INTEL_bfloat16_conversion).
    ("cl_intel_bfloat16_conversions", (1, 0, 0)),
    // Add, subtract, min and max on atomic_float and atomic_double, in
    // global and local memory (`float_atomics.cl`).
    ("cl_ext_float_atomics", (1, 0, 0)),
    // Images (the builtins' `image_*.cl`): writes to 3D images, and
    // image2d_depth_t and image2d_array_depth_t.
    ("cl_khr_3d_image_writes", (1, 0, 0)),
    ("cl_khr_depth_images", (1, 0, 0)),
    // Not listed: cl_khr_work_group_uniform_arithmetic. Its functions are
    // offered with the collectives (declared by the builtins'
    // declarations.h, as Clang lacks them), but the Khronos CTS's list of
    // approved extensions (test_compiler compiler_defines_for_extensions)
    // lacks it, so a device that reports it fails conformance.
];

/// The optional OpenCL C 3.0 features implemented (`__opencl_c_*`): core
/// ones and those of the extensions above (with the extension's version).
/// The atomic orders and scopes are those of the builtins' `atomic_*`
/// functions (`atomics_c11.cl`); the device's atomic capabilities say the
/// same.
pub const OPENCL_C_FEATURES: &[(&str, (u32, u32, u32))] = &[
    ("__opencl_c_int64", (3, 0, 0)),
    ("__opencl_c_fp64", (3, 0, 0)),
    ("__opencl_c_fp16", (3, 0, 0)),
    // A block per program and device (`program_globals`).
    ("__opencl_c_program_scope_global_variables", (3, 0, 0)),
    ("__opencl_c_atomic_order_acq_rel", (3, 0, 0)),
    ("__opencl_c_atomic_order_seq_cst", (3, 0, 0)),
    ("__opencl_c_atomic_scope_device", (3, 0, 0)),
    ("__opencl_c_atomic_scope_all_devices", (3, 0, 0)),
    ("__opencl_c_generic_address_space", (3, 0, 0)),
    ("__opencl_c_ext_fp32_global_atomic_add", (1, 0, 0)),
    ("__opencl_c_ext_fp32_local_atomic_add", (1, 0, 0)),
    ("__opencl_c_ext_fp32_global_atomic_min_max", (1, 0, 0)),
    ("__opencl_c_ext_fp32_local_atomic_min_max", (1, 0, 0)),
    ("__opencl_c_ext_fp64_global_atomic_add", (1, 0, 0)),
    ("__opencl_c_ext_fp64_local_atomic_add", (1, 0, 0)),
    ("__opencl_c_ext_fp64_global_atomic_min_max", (1, 0, 0)),
    ("__opencl_c_ext_fp64_local_atomic_min_max", (1, 0, 0)),
    ("__opencl_c_integer_dot_product_input_4x8bit", (2, 0, 0)),
    (
        "__opencl_c_integer_dot_product_input_4x8bit_packed",
        (2, 0, 0),
    ),
    ("__opencl_c_kernel_clock_scope_device", (1, 0, 0)),
    ("__opencl_c_kernel_clock_scope_sub_group", (1, 0, 0)),
    ("__opencl_c_subgroups", (3, 0, 0)),
    ("__opencl_c_kernel_clock_scope_work_group", (1, 0, 0)),
    ("__opencl_c_work_group_collective_functions", (3, 0, 0)),
    ("__opencl_c_images", (3, 0, 0)),
    ("__opencl_c_read_write_images", (3, 0, 0)),
    ("__opencl_c_3d_image_writes", (3, 0, 0)),
];

/// The sub-group widths a kernel may require (`intel_reqd_sub_group_size`):
/// the work-group function runs a sub-group's lanes in turn, or a vector
/// of them, and a sub-group's mask is one 64-bit word.
pub const SUB_GROUP_SIZES: &[u32] = &[1, 2, 4, 8, 16, 32, 64];

/// What a target needs from a kernel to build its work-group function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Specialization {
    /// The size of the work-groups it runs.
    pub local_size: [usize; 3],
    /// The local size of the range: larger than `local_size` in a dimension
    /// where it runs the last, smaller work-group of a non-uniform range.
    pub enqueued_local_size: [usize; 3],
    /// Bit `i`: argument `i` is a buffer of half the device's cache or more,
    /// and the kernel's buffers together exceed the cache, so what the
    /// kernel only writes there may bypass the cache.
    pub streaming: u64,
    /// The formats of the first image arguments, so that the image
    /// functions' branches on the format fold.
    pub images: [Option<ImageFormat>; MAX_SPECIALIZED_IMAGES],
}

impl Specialization {
    /// A work-group function for any local size, which reads the size from
    /// the scheduling info and has no vector form: what a program binary
    /// carries for the sizes it has no code of. Kernels without barriers
    /// only.
    pub const GENERIC: Specialization = Specialization {
        local_size: [0; 3],
        enqueued_local_size: [0; 3],
        streaming: 0,
        images: [None; MAX_SPECIALIZED_IMAGES],
    };

    pub fn is_generic(&self) -> bool {
        self.local_size == [0; 3]
    }
}

/// Image arguments a specialization knows the format of.
pub const MAX_SPECIALIZED_IMAGES: usize = 4;

/// An image argument's format, as its descriptor holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ImageFormat {
    /// The argument's index.
    pub arg: u32,
    pub channel_order: u32,
    pub channel_data_type: u32,
    pub element_size: u32,
}

/// A compilation target: the compiler half of a device.
pub trait Target: Send + Sync {
    /// The CPU the front end compiles for (`-target-cpu`). It must pass
    /// arguments the way the builtins library (compiled for the target's
    /// baseline) does: a wider vector unit passes wide vectors in registers
    /// rather than memory. The target generates code for its real CPU.
    fn cpu(&self) -> &str;

    /// The CPU the target generates code for: a program binary's machine
    /// code is used where it runs on this one.
    fn machine(&self) -> Machine;

    /// Compiles `kernel` of `program` into a work-group function for `spec`.
    fn specialize(
        &self,
        program: &ProgramModule,
        kernel: &KernelInfo,
        spec: Specialization,
    ) -> Result<Arc<dyn mux::Kernel>, mux::Error>;
}
