//! LLVM IR passes over the C API, each its own transformation with its
//! own tests, that turn one OpenCL kernel into a work-group function for
//! the host ABI (`kernel_ir::abi`):
//!
//! ```text
//! void __ferrocl_wg.<kernel>(ptr args, ptr schedule_info, ptr local, i64 first, i64 last, ptr storage)
//! ```
//!
//! It runs work-groups `[first, last)` (linear ids, x fastest); for each, a
//! loop over the work-items calls the kernel with arguments unpacked from
//! `args`. The host target's pipeline (`host::pipeline`) runs them in
//! order, with the vector forms the vectorizer (`vecz`) makes; the CFG,
//! loops, builtin call kinds and ABI they share are `kernel_ir`'s.
//! - [`jam_rows`]: a copy of the kernel that runs several rows together
//!   where they share loads, which the vectorizer then widens;
//! - [`single_exit_loops`]: a rotated loop made a loop left from one test;
//! - [`loop_barriers`]: a barrier at the head of each uniform inner loop,
//!   so that each iteration becomes a vectorized region;
//! - [`barriers`]: a kernel with barriers becomes a function per barrier
//!   region, its values live across barriers kept in `storage`, by what
//!   [`uniformity`] finds the same for every work-item; before it,
//!   [`barrier_inductions`] makes an induction stepped alike from a start
//!   per work-item a start plus a count kept once;
//! - [`work_item_loops`]: the wrapper, argument unpacking and the loops (one
//!   loop nest per barrier region); [`sub_group_loops`]: those of a kernel
//!   with sub-group barriers, which runs sub-group by sub-group;
//! - [`inline_all`]: everything the kernel calls is inlined into the wrapper;
//! - [`mux_builtins`]: `__mux_get_local_id` & co. become loads and constants;
//! - [`local_atomics`]: atomics on `__local` memory (the thread's own)
//!   become plain reads and writes;
//! - [`local_memory`]: `__local` variables move into the work-group's block;
//! - [`program_globals`]: program-scope variables move into the program's
//!   block of them, named by a hidden argument;
//! - [`generic_pointers`]: whether a generic pointer points to local or
//!   private memory, told by its address;
//! - [`image_arguments`], [`image_formats`]: image descriptors, sampler
//!   bits and the formats the specialization names, as values;
//! - [`vector_stores`]: a vector assembled from scalars is stored lane by
//!   lane, so that the work-item loop vectorizes;
//! - [`streaming_stores`]: stores to large write-only buffers bypass the
//!   cache;
//! - [`safe_division`]: integer division and remainder never trap;
//! - [`printf`]: `printf` calls write records into the work-group's chunk
//!   of the printf buffer;
//! - [`double_to_half`]: conversions from double to half rounded once
//!   without a library call (the target runs it where the CPU lacks
//!   AVX-512 FP16);
//! - [`reciprocal_estimates`]: `rsqrt` and reciprocals from AVX-512's
//!   estimates and a Newton step (where the CPU lacks them, `rsqrt` keeps
//!   its exact division);
//! - [`stream_prefetch`]: prefetches ahead of the streams a loop too long
//!   for the core's out-of-order window reads (the target runs it after
//!   the optimizer);
//! - [`constant_expr`]: a helper, a global's uses through constant
//!   expressions rebuilt as instructions.

pub mod barrier_inductions;
pub mod barriers;
pub mod constant_expr;
pub mod constant_privates;
pub mod double_to_half;
pub mod generic_pointers;
pub mod image_arguments;
pub mod image_formats;
pub mod inline_all;
pub mod jam_rows;
pub mod local_atomics;
pub mod local_memory;
pub mod loop_barriers;
pub mod mux_builtins;
pub mod printf;
pub mod private_casts;
pub mod private_fields;
pub mod program_globals;
pub mod reciprocal_estimates;
pub mod safe_division;
pub mod single_exit_loops;
pub mod stream_prefetch;
pub mod streaming_stores;
pub mod sub_group_loops;
pub mod uniformity;
pub mod vector_stores;
pub mod work_item_loops;

pub use kernel_ir::abi::WORK_GROUP_PREFIX;
