//! The packed-argument block a work-group function reads: the API layer
//! writes it, the work-group function unpacks it. One rule for both sides.

use crate::{ArgInfo, ArgKind, KernelInfo};

/// Byte offsets of each argument in the block, and the block's size.
///
/// Buffers are 8-byte pointers, `__local` arguments 8-byte offsets into the
/// work-group's dynamic local memory, values and structs their own bytes.
pub fn arg_layout(args: &[ArgInfo]) -> (Vec<usize>, usize) {
    let mut offsets = Vec::with_capacity(args.len());
    let mut end = 0usize;
    for a in args {
        let (size, align) = match a.kind {
            ArgKind::Buffer | ArgKind::Local | ArgKind::Image(_) | ArgKind::Sampler => (8, 8),
            ArgKind::Value | ArgKind::ByVal => (a.size, a.align.max(1)),
        };
        let at = end.next_multiple_of(align);
        offsets.push(at);
        end = at + size;
    }
    (offsets, end)
}

/// Where a printf kernel's hidden argument starts in its block: after its
/// own arguments. It is the printf buffer's device address and each
/// work-group's share of it in bytes, two `u64`s.
pub fn printf_arg_offset(args: &[ArgInfo]) -> usize {
    arg_layout(args).1.next_multiple_of(8)
}

/// Bytes of the printf hidden argument.
pub const PRINTF_ARG_BYTES: usize = 16;

/// Where the hidden argument of a kernel that reaches program-scope
/// variables starts: after the printf one, if the kernel has it. It is the
/// device address of the program's block of variables
/// (`crate::program_globals`).
pub fn globals_arg_offset(k: &KernelInfo) -> usize {
    printf_arg_offset(&k.args) + if k.uses_printf() { PRINTF_ARG_BYTES } else { 0 }
}

/// The size of a kernel's packed block: its arguments (which end at
/// `args_end`, from [`arg_layout`]) and the hidden ones it needs.
pub fn hidden_args_end(k: &KernelInfo, args_end: usize) -> usize {
    let printf_at = args_end.next_multiple_of(8);
    let printf_end = printf_at + if k.uses_printf() { PRINTF_ARG_BYTES } else { 0 };
    if k.uses_program_globals {
        printf_end + crate::program_globals::GLOBALS_ARG_BYTES
    } else if k.uses_printf() {
        printf_end
    } else {
        args_end
    }
}

/// Alignment of the packed block itself.
pub const ARG_BLOCK_ALIGN: usize = 128;

/// Alignment of every `__local` allocation: the size of the largest
/// OpenCL C type (`long16`, `double16`), to which every object is aligned.
pub const LOCAL_ALIGN: usize = 128;
