//! Whole-function vectorization across work-items (seed 003): a copy of the
//! kernel that runs `width` consecutive work-items of dimension 0 at once,
//! one vector lane each. The work-item loop calls it for each run of
//! `width` items and the scalar kernel for the rest.
//!
//! LLVM's loop vectorizer widens the innermost work-item loop only when
//! the kernel's work is straight-line code; a kernel whose work lies in a
//! loop of its own (`for k < n: acc += a[..k] * b[k..]`) would need outer
//! loop vectorization. Here that loop stays a loop, run once for all the
//! lanes, and its accumulator stays a vector in registers.
//!
//! Each value has a shape:
//! - uniform: the same in every lane, kept as a scalar;
//! - affine: lane `l` holds `base + l * stride` (a constant stride), kept
//!   as the scalar `base` and as a vector. A load or store whose address
//!   steps by the element's size from lane to lane is one vector access;
//! - varying: a vector. A varying `float8` is one `<8 * width x float>`,
//!   lane after lane, so that a contiguous run of `float8`s is one load
//!   and a swizzle is one shuffle.
//!
//! Any other address is a gather or scatter, unless its lanes turn out
//! consecutive when it runs (a clamped neighbour, an index table that
//! counts up): that is tested first, and one vector access made instead.
//!
//! It takes kernels whose control flow is the same for every work-item
//! (every branch condition uniform) but for loops that work-items leave at
//! different iterations (an escape-time loop). Such a loop runs until its
//! last lane leaves, with a mask of the lanes still in it: a lane that has
//! left keeps its values (the header's phis take the new value only where
//! the lane stays), and the loop's memory accesses are masked. The loop
//! must have one exiting block and one latch; a loop inside it starts from
//! the lanes in it there. A block
//! only some work-items run (`if (c) { .. }` without an else; in a loop
//! lanes leave apart, for the lanes still in it) runs when any lane's `c`
//! holds, its memory accesses masked and what it joins chosen lane by
//! lane; a `printf` call (one, outside loops) and an atomic are made lane
//! after lane, for the lanes that reach them. A private array of numbers
//! indexed at run time is kept per lane, the lanes' arrays element by
//! element (`analysis::private`). Varying
//! values must be numbers, pointers or vectors of numbers. `run` says why
//! it declines any other kernel, and the caller keeps the scalar path.
//! Work-items are independent between barriers (and the kernel has none),
//! so running instruction by instruction for all lanes, rather than
//! work-item by work-item, changes nothing a kernel may see.
//!
//! Casts keep a value affine: the lanes of one vector are consecutive ids,
//! and a 32-bit index that wraps between two of them is one the scalar
//! kernel would use out of range too.
//!
//! The analyses (`analysis`: each value's shape, the loops and blocks
//! lanes run apart, what the vectorizer declines) decide; the transform
//! (`transform`) builds the vector form instruction by instruction.

mod analysis;
mod group_guards;
mod group_loops;
mod intrinsics;
mod transform;
mod types;
mod values;

pub use analysis::shape::Shape;

use analysis::divergence::read_after;
use analysis::divergence::{
    branch_varies, divergent_loops, exiting_blocks, guarded_blocks, kept_after_leaving,
    unobserved_after_leaving,
};
use analysis::legality::check;
use analysis::shape::{shape_of, shapes, steps_uniformly_inside};
use compiler::llvm;
use kernel_ir::cfg::{phis, reverse_post_order, Cfg};
use kernel_ir::form::kept_if_verified;
use kernel_ir::loops::natural_loops;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;
use std::collections::HashSet;
use transform::Gen;

/// Adds `<kernel>.v<width>` to `m`: the kernel for work-items `x .. x +
/// width` of dimension 0, where `x` is what `__mux_get_local_id(0)` gives
/// inside it. Returns the function, or why the kernel is not taken.
///
/// # Safety
/// `m` must be a live module whose context this thread owns; `kernel` a
/// function defined in it with everything but math calls inlined.
pub unsafe fn run(
    m: LLVMModuleRef,
    kernel: LLVMValueRef,
    width: u32,
    forms: Forms,
) -> Result<LLVMValueRef, String> {
    run_with(m, kernel, width, None, forms)
}

/// Which vector forms to make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Forms {
    /// Those expected to run faster than the scalar form. Not those of
    /// kernels whose work-items branch apart inside a loop (a varying
    /// branch in a loop, but for the loop's own exit, or a loop lanes
    /// leave apart with another loop inside or around it): each iteration
    /// then runs every path, or the longest trip, for all lanes, under
    /// masks, and on a CPU without fast gathers each masked access that
    /// is not one vector is a load per lane.
    Paying,
    /// Every form it can make (to test and compare them).
    All,
}

/// Adds `<regions>.v<width>` to `m`: the region function of a kernel with
/// barriers (`passes::barriers`) for work-items `x .. x + width` of
/// dimension 0, as [`run`] makes a kernel's. Its linear-id parameter
/// (`linear_id`, by index) is lane 0's, the other lanes' following it: the
/// work-items' storage slots lie side by side, so one vector access reads
/// or writes a slot for all lanes. The region it returns (the barrier
/// reached) must be the same for every lane.
///
/// # Safety
/// As for [`run`]; `regions` is a region function.
pub unsafe fn run_regions(
    m: LLVMModuleRef,
    regions: LLVMValueRef,
    width: u32,
    linear_id: u32,
    forms: Forms,
) -> Result<LLVMValueRef, String> {
    run_with(
        m,
        regions,
        width,
        Some(LLVMGetParam(regions, linear_id)),
        forms,
    )
}

/// The widest distance, in bytes, between the addresses two neighbouring
/// work-items of `kernel` load from or store to, over its accesses whose
/// addresses step from work-item to work-item (0 if none does): the
/// caller's measure of how far apart a vector form's lanes reach.
///
/// # Safety
/// As for [`run`]; `kernel` is left as it is.
pub unsafe fn widest_lane_stride(m: LLVMModuleRef, kernel: LLVMValueRef) -> u64 {
    let Ok(shapes) = shapes_as_written(m, kernel, None) else {
        return 0;
    };
    let cfg = Cfg::of(kernel);
    instructions_in(&cfg, &reverse_post_order(&cfg))
        .iter()
        .filter_map(|&i| match LLVMGetInstructionOpcode(i) {
            LLVMOpcode::LLVMLoad => Some(LLVMGetOperand(i, 0)),
            LLVMOpcode::LLVMStore => Some(LLVMGetOperand(i, 1)),
            _ => None,
        })
        .filter_map(|p| match shape_of(p, &shapes) {
            Shape::Affine(stride) => Some(stride.unsigned_abs()),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

unsafe fn run_with(
    m: LLVMModuleRef,
    kernel: LLVMValueRef,
    width: u32,
    linear_id: Option<LLVMValueRef>,
    forms: Forms,
) -> Result<LLVMValueRef, String> {
    // The arms of a branch that meet before their end (a `switch` case
    // falling into the next) are made apart by copying the blocks they
    // share; a loop left from several places is left from one, after the
    // rest of its iteration; a region a guard lets some lanes into is left
    // from one block (the kernel's own form keeps its meaning: only copies
    // of blocks, blocks that forward and phis are added).
    kernel_ir::arms::separate_arms(kernel);
    kernel_ir::loop_exits::one_exit_per_loop(kernel);
    kernel_ir::regions::one_exit_per_region(kernel);
    // What a loop hands on goes through phis of its exit, where each lane
    // takes what it had when it left.
    kernel_ir::lcssa::close_loops(kernel);
    // A grid-stride loop runs first as a copy every lane stays in (told by
    // the shapes of the kernel before it is split).
    if !natural_loops(&Cfg::of(kernel)).is_empty() {
        group_loops::split(m, kernel, &shapes_as_written(m, kernel, linear_id)?);
    }
    // A guard on a consecutive id against a bound runs its part with no
    // masks where the group's last work-item passes.
    let mut done = HashSet::new();
    for _ in 0..GUARDS_SPLIT {
        let shapes = shapes_as_written(m, kernel, linear_id)?;
        if !group_guards::split_one(m, kernel, &shapes, &mut done) {
            break;
        }
    }
    let cfg = Cfg::of(kernel);
    let order = reverse_post_order(&cfg);
    let insts = instructions_in(&cfg, &order);
    let loops = natural_loops(&cfg);
    // A loop left on a varying condition carries different values in
    // different lanes, whatever they are computed from: its header's phis
    // are varying, and what follows from them.
    let mut forced = varying_from_the_start(m, &insts)?;
    let in_loops: HashSet<LLVMBasicBlockRef> = loops
        .iter()
        .flat_map(|l| l.body.iter().map(|&b| cfg.blocks[b]))
        .collect();
    let mut guards;
    let shapes = loop {
        let shapes = shapes(m, &insts, &forced, linear_id)?;
        let mut grew = false;
        // A value that joins a guarded block's with its guard's differs
        // from lane to lane, as the guard does.
        guards = guarded_blocks(&cfg, &shapes, &loops);
        for g in &guards {
            for p in phis(g.merge) {
                if (0..LLVMCountIncoming(p)).any(|k| g.runs(LLVMGetIncomingBlock(p, k))) {
                    grew |= forced.insert(p);
                }
            }
        }
        for l in &loops {
            if exiting_blocks(&cfg, l)
                .into_iter()
                .any(|x| branch_varies(cfg.blocks[x], &shapes))
            {
                let body: HashSet<LLVMBasicBlockRef> =
                    l.body.iter().map(|&b| cfg.blocks[b]).collect();
                for p in phis(cfg.blocks[l.header]) {
                    if !steps_uniformly_inside(p, &body, &shapes) {
                        grew |= forced.insert(p);
                    }
                }
                // Kept lane by lane from the iteration each lane left in:
                // the phis after the loop that take it differ between lanes.
                for v in kept_after_leaving(&cfg, l, &shapes) {
                    for p in read_after(v, &body) {
                        grew |= forced.insert(p);
                    }
                }
            }
        }
        if !grew {
            break shapes;
        }
    };
    let divergent = divergent_loops(&cfg, &loops, &shapes)?;
    if forms == Forms::Paying {
        apart_inside_loops(&cfg, &loops, &divergent, &guards)?;
    }
    for &i in &insts {
        check(i, width, &shapes, &divergent, &guards, &in_loops)?;
    }
    for &i in &insts {
        if LLVMGetInstructionOpcode(i) == LLVMOpcode::LLVMRet
            && LLVMGetNumOperands(i) == 1
            && shape_of(LLVMGetOperand(i, 0), &shapes) != Shape::Uniform
        {
            return Err("a returned value that differs between work-items".into());
        }
    }
    let unkept = divergent
        .iter()
        .flat_map(|l| unobserved_after_leaving(l, &shapes))
        .collect();
    let mut gen = Gen::new(m, kernel, width, shapes, divergent);
    gen.unkept = unkept;
    gen.linear_id = linear_id;
    gen.guards = guards;
    let v = gen.v;
    let made = gen
        .emit(&cfg, &order)
        .map(|_| ())
        .and_then(|()| within_scattered_budget(v));
    kept_if_verified(v, made, "its vector form does not verify")
}

/// The most guards of a kernel `group_guards` splits: each copies a part
/// of it.
const GUARDS_SPLIT: usize = 8;

/// The most lanes a vector form's gathers and scatters may take together.
/// Where the CPU has none of them (or none of bytes), each lane is an
/// access and a branch of its own, in one block: past this, the form is
/// larger and no faster than the scalar one, and the code generator's
/// scheduling, whose cost grows with the square of a block's length,
/// takes seconds (a private array of 256 bytes set to zero before a
/// barrier, byte by byte, made 257 scatters of 32 lanes).
const SCATTERED_LANES: u32 = 1024;

/// Fails if `v`'s gathers and scatters take more than [`SCATTERED_LANES`].
unsafe fn within_scattered_budget(v: LLVMValueRef) -> Result<(), String> {
    let lanes: u32 = scattered_vectors(v)
        .into_iter()
        .map(|t| LLVMGetVectorSize(t))
        .sum();
    if lanes > SCATTERED_LANES {
        return Err(format!(
            "{lanes} lanes of gathers and scatters (no faster than the scalar form, and slow to compile)"
        ));
    }
    Ok(())
}

/// The vector type of each gather and scatter of vector form `v`: what a
/// caller weighs the form by, as those are an access per lane on CPUs
/// without them (or without them for its element type).
///
/// # Safety
/// `v` must be a live function.
pub unsafe fn scattered_vectors(v: LLVMValueRef) -> Vec<LLVMTypeRef> {
    llvm::instructions(v)
        .into_iter()
        .filter_map(|i| {
            let name = llvm::name(llvm::called_function(i)?);
            if name.starts_with("llvm.masked.gather") {
                Some(LLVMTypeOf(i))
            } else if name.starts_with("llvm.masked.scatter") {
                Some(LLVMTypeOf(LLVMGetOperand(i, 0)))
            } else {
                None
            }
        })
        .collect()
}

/// The shapes of `kernel`'s values as they are written, before the
/// forcing of what loops lanes leave apart carry: what the splits of
/// grid loops and guards go by (the copies they make are exact whatever
/// the shapes; the shapes say where they pay).
unsafe fn shapes_as_written(
    m: LLVMModuleRef,
    kernel: LLVMValueRef,
    linear_id: Option<LLVMValueRef>,
) -> Result<std::collections::HashMap<LLVMValueRef, Shape>, String> {
    let cfg = Cfg::of(kernel);
    let insts = instructions_in(&cfg, &reverse_post_order(&cfg));
    shapes(m, &insts, &varying_from_the_start(m, &insts)?, linear_id)
}

/// The instructions of `cfg`'s blocks, in `order`.
unsafe fn instructions_in(cfg: &Cfg, order: &[usize]) -> Vec<LLVMValueRef> {
    order
        .iter()
        .flat_map(|&b| llvm::block_instructions(cfg.blocks[b]))
        .collect()
}

/// What differs between lanes whatever it is computed from: the printf
/// call (made lane after lane) and each lane's private arrays.
unsafe fn varying_from_the_start(
    m: LLVMModuleRef,
    insts: &[LLVMValueRef],
) -> Result<HashSet<LLVMValueRef>, String> {
    let mut forced: HashSet<LLVMValueRef> = insts
        .iter()
        .copied()
        .filter(|&i| compiler::printf::is_printf_call(i))
        .collect();
    if forced.len() > 1 {
        // Lane after lane, two calls would interleave their work-items'
        // records; one after the other, each work-item's stay together.
        return Err("more than one printf call".into());
    }
    forced.extend(insts.iter().copied().filter(|&i| {
        !LLVMIsAAllocaInst(i).is_null() && analysis::private::private_array(m, i).is_some()
    }));
    Ok(forced)
}

/// Why work-items branch apart inside a loop of `cfg`, if they do (see
/// [`Forms::Paying`]).
unsafe fn apart_inside_loops(
    cfg: &Cfg,
    loops: &[kernel_ir::loops::Loop],
    divergent: &[analysis::divergence::DivergentLoop],
    guards: &[analysis::divergence::Guard],
) -> Result<(), String> {
    let in_a_loop = |b: LLVMBasicBlockRef| loops.iter().any(|l| l.body.contains(&cfg.index[&b]));
    if guards.iter().any(|g| in_a_loop(g.guard)) {
        return Err("work-items branch apart inside a loop (slower than the scalar form)".into());
    }
    for d in divergent {
        let header = cfg.index[&d.header];
        let nested = loops.iter().any(|l| {
            l.header != header
                && (l.body.contains(&header) || d.body.contains(&cfg.blocks[l.header]))
        });
        if nested {
            return Err(
                "a loop work-items leave apart, with a loop inside or around it \
                 (slower than the scalar form)"
                    .into(),
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
