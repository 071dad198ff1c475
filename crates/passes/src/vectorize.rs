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
//! must have one exiting block, one latch, and no loop inside it. A block
//! only some work-items run (`if (c) { .. }` without an else, outside
//! loops) runs when any lane's `c` holds, its memory accesses masked and
//! what it joins chosen lane by lane; a `printf` call (one, outside loops)
//! is made lane after lane, for the lanes that reach it. Varying
//! values must be numbers, pointers or vectors of numbers. `run` says why
//! it declines any other kernel, and the caller keeps the scalar path.
//! Work-items are independent between barriers (and the kernel has none),
//! so running instruction by instruction for all lanes, rather than
//! work-item by work-item, changes nothing a kernel may see.
//!
//! Casts keep a value affine: the lanes of one vector are consecutive ids,
//! and a 32-bit index that wraps between two of them is one the scalar
//! kernel would use out of range too.

use kernel_ir::builtin_kinds::is_work_group_scratch;
use kernel_ir::builtin_kinds::{callee_name, constant_dimension, is_local_id, is_query};
use kernel_ir::cfg::{phis, reverse_post_order, Cfg};
use kernel_ir::form::{copy_of, kept_if_verified};
use kernel_ir::loops::{natural_loops, Loop};
use kernel_ir::sub_group_calls;

mod sub_groups;
use compiler::llvm::{self, cstr};
use compiler::vector_variants;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::{LLVMABISizeOfType, LLVMGetModuleDataLayout, LLVMStoreSizeOfType};
use llvm_sys::{LLVMAttributeFunctionIndex, LLVMOpcode, LLVMTypeKind};
use std::collections::{HashMap, HashSet};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Shape {
    Uniform,
    /// Lane `l` is `base + l * stride` (in bytes for pointers).
    Affine(i64),
    Varying,
}

/// Intrinsics that work lane by lane, with the argument positions that
/// stay scalar (and must be uniform).
const LANEWISE: &[(&str, &[u32])] = &[
    ("llvm.fmuladd", &[]),
    ("llvm.fma", &[]),
    ("llvm.fabs", &[]),
    ("llvm.sqrt", &[]),
    ("llvm.minnum", &[]),
    ("llvm.maxnum", &[]),
    ("llvm.minimum", &[]),
    ("llvm.maximum", &[]),
    ("llvm.minimumnum", &[]),
    ("llvm.maximumnum", &[]),
    ("llvm.copysign", &[]),
    ("llvm.floor", &[]),
    ("llvm.ceil", &[]),
    ("llvm.trunc", &[]),
    ("llvm.rint", &[]),
    ("llvm.nearbyint", &[]),
    ("llvm.round", &[]),
    ("llvm.roundeven", &[]),
    ("llvm.canonicalize", &[]),
    ("llvm.smin", &[]),
    ("llvm.smax", &[]),
    ("llvm.umin", &[]),
    ("llvm.umax", &[]),
    ("llvm.ctpop", &[]),
    ("llvm.bswap", &[]),
    ("llvm.bitreverse", &[]),
    ("llvm.fshl", &[]),
    ("llvm.fshr", &[]),
    ("llvm.sadd.sat", &[]),
    ("llvm.uadd.sat", &[]),
    ("llvm.ssub.sat", &[]),
    ("llvm.usub.sat", &[]),
    ("llvm.abs", &[1]),
    ("llvm.ctlz", &[1]),
    ("llvm.cttz", &[1]),
    ("llvm.is.fpclass", &[1]),
];

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
) -> Result<LLVMValueRef, String> {
    run_with(m, kernel, width, None)
}

/// Adds `<regions>.v<width>` to `m`: the region function of a kernel with
/// barriers (`crate::barriers`) for work-items `x .. x + width` of
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
) -> Result<LLVMValueRef, String> {
    run_with(m, regions, width, Some(LLVMGetParam(regions, linear_id)))
}

unsafe fn run_with(
    m: LLVMModuleRef,
    kernel: LLVMValueRef,
    width: u32,
    linear_id: Option<LLVMValueRef>,
) -> Result<LLVMValueRef, String> {
    let cfg = Cfg::of(kernel);
    let order = reverse_post_order(&cfg);
    let insts: Vec<LLVMValueRef> = order
        .iter()
        .flat_map(|&b| llvm::block_instructions(cfg.blocks[b]))
        .collect();
    let loops = natural_loops(&cfg);
    // A loop left on a varying condition carries different values in
    // different lanes, whatever they are computed from: its header's phis
    // are varying, and what follows from them.
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
        guards = guarded_blocks(&cfg, &shapes, &in_loops);
        for g in &guards {
            for p in phis(g.merge) {
                if (0..LLVMCountIncoming(p)).any(|k| LLVMGetIncomingBlock(p, k) == g.block) {
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
            }
        }
        if !grew {
            break shapes;
        }
    };
    let divergent = divergent_loops(&cfg, &loops, &shapes)?;
    for &i in &insts {
        check(i, &shapes, &divergent, &guards, &in_loops)?;
    }
    for &i in &insts {
        if LLVMGetInstructionOpcode(i) == LLVMOpcode::LLVMRet
            && LLVMGetNumOperands(i) == 1
            && shape_of(LLVMGetOperand(i, 0), &shapes) != Shape::Uniform
        {
            return Err("a returned value that differs between work-items".into());
        }
    }
    let mut gen = Gen::new(m, kernel, width, shapes, divergent);
    gen.linear_id = linear_id;
    gen.guards = guards;
    let v = gen.v;
    let made = gen.emit(&cfg, &order).map(|_| ());
    kept_if_verified(v, made, "its vector form does not verify")
}

/// A block only some lanes run (`if (c) { .. }` with no else, `c`
/// varying, outside loops): the vector form runs it when any lane's `c`
/// holds, its memory accesses and `printf` for those lanes alone, and a
/// value it joins with its guard's is chosen lane by lane.
struct Guard {
    /// The block ending in the varying branch.
    guard: LLVMBasicBlockRef,
    /// The block some lanes run, whose only predecessor is `guard`.
    block: LLVMBasicBlockRef,
    /// Where both go on.
    merge: LLVMBasicBlockRef,
    /// Whether `block` is taken where the condition is true.
    on_true: bool,
}

/// The guarded blocks of the kernel, given the shapes so far.
unsafe fn guarded_blocks(
    cfg: &Cfg,
    shapes: &HashMap<LLVMValueRef, Shape>,
    in_loops: &HashSet<LLVMBasicBlockRef>,
) -> Vec<Guard> {
    let mut out = Vec::new();
    for (g, &bb) in cfg.blocks.iter().enumerate() {
        let t = LLVMGetBasicBlockTerminator(bb);
        if in_loops.contains(&bb)
            || LLVMGetInstructionOpcode(t) != LLVMOpcode::LLVMBr
            || LLVMIsConditional(t) == 0
            || !branch_varies(bb, shapes)
        {
            continue;
        }
        let (s0, s1) = (LLVMGetSuccessor(t, 0), LLVMGetSuccessor(t, 1));
        for (block, merge, on_true) in [(s0, s1, true), (s1, s0, false)] {
            let b = cfg.index[&block];
            let end = LLVMGetBasicBlockTerminator(block);
            if cfg.preds[b] == [g]
                && LLVMGetInstructionOpcode(end) == LLVMOpcode::LLVMBr
                && LLVMIsConditional(end) == 0
                && LLVMGetSuccessor(end, 0) == merge
            {
                out.push(Guard {
                    guard: bb,
                    block,
                    merge,
                    on_true,
                });
                break;
            }
        }
    }
    out
}

/// A loop that work-items leave at different iterations.
struct DivergentLoop {
    header: LLVMBasicBlockRef,
    latch: LLVMBasicBlockRef,
    /// The one block that branches out of the loop, on a varying condition.
    exiting: LLVMBasicBlockRef,
    body: HashSet<LLVMBasicBlockRef>,
    /// The blocks of an iteration after the exit test: only the lanes that
    /// stayed run them.
    tail: HashSet<LLVMBasicBlockRef>,
}

fn exiting_blocks(cfg: &Cfg, l: &Loop) -> Vec<usize> {
    l.body
        .iter()
        .copied()
        .filter(|&b| cfg.succs[b].iter().any(|s| !l.body.contains(s)))
        .collect()
}

unsafe fn branch_varies(bb: LLVMBasicBlockRef, shapes: &HashMap<LLVMValueRef, Shape>) -> bool {
    let t = LLVMGetBasicBlockTerminator(bb);
    let conditional = match LLVMGetInstructionOpcode(t) {
        LLVMOpcode::LLVMBr => LLVMIsConditional(t) != 0,
        LLVMOpcode::LLVMSwitch => true,
        _ => false,
    };
    conditional && shape_of(LLVMGetOperand(t, 0), shapes) != Shape::Uniform
}

/// The loops left on varying conditions, if each has the form the mask
/// handles.
unsafe fn divergent_loops(
    cfg: &Cfg,
    loops: &[Loop],
    shapes: &HashMap<LLVMValueRef, Shape>,
) -> Result<Vec<DivergentLoop>, String> {
    let mut out = Vec::new();
    for l in loops {
        let exiting = exiting_blocks(cfg, l);
        if !exiting
            .iter()
            .any(|&x| branch_varies(cfg.blocks[x], shapes))
        {
            continue;
        }
        let [e] = exiting[..] else {
            return Err("a loop work-items leave from several places".into());
        };
        let t = LLVMGetBasicBlockTerminator(cfg.blocks[e]);
        if LLVMGetInstructionOpcode(t) != LLVMOpcode::LLVMBr {
            return Err("a loop work-items leave through a switch".into());
        }
        let latches: Vec<usize> = cfg.preds[l.header]
            .iter()
            .copied()
            .filter(|p| l.body.contains(p))
            .collect();
        let [latch] = latches[..] else {
            return Err("a divergent loop with several latches".into());
        };
        if !cfg.dom[latch][e] {
            return Err("a divergent loop whose exit test does not dominate its latch".into());
        }
        if loops
            .iter()
            .any(|o| o.header != l.header && l.body.contains(&o.header))
        {
            return Err("a loop inside a divergent loop".into());
        }
        let blocks = |set: &mut dyn Iterator<Item = usize>| {
            set.map(|b| cfg.blocks[b]).collect::<HashSet<_>>()
        };
        out.push(DivergentLoop {
            header: cfg.blocks[l.header],
            latch: cfg.blocks[latch],
            exiting: cfg.blocks[e],
            body: blocks(&mut l.body.iter().copied()),
            tail: blocks(&mut l.body.iter().copied().filter(|&b| !cfg.dom[e][b])),
        });
    }
    Ok(out)
}

unsafe fn is_instruction(v: LLVMValueRef) -> bool {
    !LLVMIsAInstruction(v).is_null()
}

/// The base name of an intrinsic call's callee (`llvm.fmuladd`).
unsafe fn intrinsic_name(f: LLVMValueRef) -> Option<String> {
    let id = LLVMGetIntrinsicID(f);
    if id == 0 {
        return None;
    }
    let mut len = 0;
    let p = LLVMIntrinsicGetName(id, &mut len);
    Some(String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned())
}

fn lanewise(name: &str) -> Option<&'static [u32]> {
    LANEWISE.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

fn join(a: Shape, b: Shape) -> Shape {
    if a == b {
        a
    } else {
        Shape::Varying
    }
}

/// Whether header phi `p` of a loop work-items leave apart is an
/// induction stepped by a uniform amount (`i = gid; ...; i += size`, casts
/// allowed on the way) that nothing after the loop reads. Stepping every
/// lane, those that left too, keeps it affine; its value in a lane that
/// left matters to no one, as that lane's accesses are masked off.
unsafe fn steps_uniformly_inside(
    p: LLVMValueRef,
    body: &HashSet<LLVMBasicBlockRef>,
    shapes: &HashMap<LLVMValueRef, Shape>,
) -> bool {
    let from_inside =
        |v: LLVMValueRef| is_instruction(v) && body.contains(&LLVMGetInstructionParent(v));
    let incoming: Vec<LLVMValueRef> = (0..LLVMCountIncoming(p))
        .map(|k| LLVMGetIncomingValue(p, k))
        .collect();
    let next = match incoming[..] {
        [a, b] if !from_inside(a) && from_inside(b) => b,
        [a, b] if from_inside(a) && !from_inside(b) => a,
        _ => return false,
    };
    let mut chain = vec![p];
    if !step_of(next, p, shapes, &mut chain) {
        return false;
    }
    // Nothing computed from it leaves the loop, but through another of
    // the header's phis (which a lane that left keeps as it was).
    let header = LLVMGetInstructionParent(p);
    let mut seen: HashSet<LLVMValueRef> = HashSet::from([p]);
    let mut work = vec![p];
    while let Some(v) = work.pop() {
        let mut u = LLVMGetFirstUse(v);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            u = LLVMGetNextUse(u);
            if LLVMIsAInstruction(user).is_null() || !body.contains(&LLVMGetInstructionParent(user))
            {
                return false;
            }
            let another_header_phi = !LLVMIsAPHINode(user).is_null()
                && LLVMGetInstructionParent(user) == header
                && user != p;
            if !another_header_phi && seen.insert(user) {
                work.push(user);
            }
        }
    }
    true
}

/// Whether `v` is `p` plus uniform amounts through adds, subtractions,
/// GEPs and integer casts; the instructions on the way go to `chain`.
unsafe fn step_of(
    v: LLVMValueRef,
    p: LLVMValueRef,
    shapes: &HashMap<LLVMValueRef, Shape>,
    chain: &mut Vec<LLVMValueRef>,
) -> bool {
    use LLVMOpcode::*;
    if v == p {
        return true;
    }
    if !is_instruction(v) {
        return false;
    }
    let op = |k: u32| LLVMGetOperand(v, k);
    let uniform = |k: u32| shape_of(op(k), shapes) == Shape::Uniform;
    let stepped = match LLVMGetInstructionOpcode(v) {
        LLVMTrunc | LLVMSExt | LLVMZExt => step_of(op(0), p, shapes, chain),
        // `(x << 32) >> 32`, a sign extension as an optimizer writes it.
        LLVMAShr if is_instruction(op(0)) && LLVMGetInstructionOpcode(op(0)) == LLVMShl => {
            let shl = op(0);
            const_int(op(1)).is_some()
                && const_int(LLVMGetOperand(shl, 1)) == const_int(op(1))
                && step_of(LLVMGetOperand(shl, 0), p, shapes, chain)
                && {
                    chain.push(shl);
                    true
                }
        }
        LLVMAdd => {
            (uniform(1) && step_of(op(0), p, shapes, chain))
                || (uniform(0) && step_of(op(1), p, shapes, chain))
        }
        LLVMSub => uniform(1) && step_of(op(0), p, shapes, chain),
        LLVMGetElementPtr => {
            (1..LLVMGetNumOperands(v) as u32).all(uniform) && step_of(op(0), p, shapes, chain)
        }
        _ => false,
    };
    if stepped {
        chain.push(v);
    }
    stepped
}

/// The shape of every instruction: the least fixed point from "all
/// uniform", where a value only ever moves up (uniform, then one affine
/// stride, then varying). A phi's incoming value not yet seen is left out
/// of the phi's first shape, so an induction (`p = phi [p0, p + step]`)
/// takes its start's stride rather than none.
unsafe fn shapes(
    m: LLVMModuleRef,
    insts: &[LLVMValueRef],
    varying: &HashSet<LLVMValueRef>,
    linear_id: Option<LLVMValueRef>,
) -> Result<HashMap<LLVMValueRef, Shape>, String> {
    let layout = LLVMGetModuleDataLayout(m);
    let mut shapes: HashMap<LLVMValueRef, Shape> = HashMap::new();
    if let Some(p) = linear_id {
        shapes.insert(p, Shape::Affine(1));
    }
    let mut seen: HashSet<LLVMValueRef> = HashSet::new();
    loop {
        let mut changed = false;
        for &i in insts {
            let new = if varying.contains(&i) {
                Shape::Varying
            } else {
                match transfer(i, &shapes, &seen, layout)? {
                    // A vector's lanes are its elements, not work-items:
                    // only a scalar steps from one work-item to the next.
                    Shape::Affine(_) if is_vector(LLVMTypeOf(i)) => Shape::Varying,
                    s => s,
                }
            };
            seen.insert(i);
            let old = shapes.get(&i).copied().unwrap_or(Shape::Uniform);
            let new = match (old, new) {
                (Shape::Affine(a), Shape::Affine(b)) if a != b => Shape::Varying,
                (Shape::Affine(_), Shape::Uniform) | (Shape::Varying, _) => old,
                _ => new,
            };
            if new != old {
                shapes.insert(i, new);
                changed = true;
            }
        }
        if !changed {
            return Ok(shapes);
        }
    }
}

unsafe fn shape_of(v: LLVMValueRef, shapes: &HashMap<LLVMValueRef, Shape>) -> Shape {
    shapes.get(&v).copied().unwrap_or(Shape::Uniform)
}

unsafe fn const_int(v: LLVMValueRef) -> Option<i64> {
    if LLVMIsAConstantInt(v).is_null() {
        None
    } else {
        Some(LLVMConstIntGetSExtValue(v))
    }
}

unsafe fn transfer(
    i: LLVMValueRef,
    shapes: &HashMap<LLVMValueRef, Shape>,
    seen: &HashSet<LLVMValueRef>,
    layout: llvm_sys::target::LLVMTargetDataRef,
) -> Result<Shape, String> {
    use LLVMOpcode::*;
    use Shape::*;
    let n = LLVMGetNumOperands(i) as u32;
    let op = |k: u32| LLVMGetOperand(i, k);
    let s = |k: u32| shape_of(op(k), shapes);
    let all_uniform = |upto: u32| (0..upto).all(|k| s(k) == Uniform);
    let opcode = LLVMGetInstructionOpcode(i);
    Ok(match opcode {
        LLVMPHI => {
            let mut out = None;
            for k in 0..LLVMCountIncoming(i) {
                let v = LLVMGetIncomingValue(i, k);
                if is_instruction(v) && !seen.contains(&v) {
                    continue;
                }
                let sk = shape_of(v, shapes);
                out = Some(out.map_or(sk, |o| join(o, sk)));
            }
            out.unwrap_or(Uniform)
        }
        _ if all_uniform(n) && opcode != LLVMCall => Uniform,
        LLVMAdd | LLVMSub | LLVMOr => match (s(0), s(1)) {
            _ if opcode == LLVMOr && LLVMGetIsDisjoint(i) == 0 => Varying,
            (Affine(a), Uniform) => Affine(a),
            (Uniform, Affine(b)) if opcode == LLVMSub => Affine(b.wrapping_neg()),
            (Uniform, Affine(b)) => Affine(b),
            (Affine(a), Affine(b)) if opcode == LLVMSub => Affine(a.wrapping_sub(b)),
            (Affine(a), Affine(b)) => Affine(a.wrapping_add(b)),
            _ => Varying,
        },
        LLVMMul => match (s(0), s(1), const_int(op(0)), const_int(op(1))) {
            (Affine(a), _, _, Some(c)) | (_, Affine(a), Some(c), _) => Affine(a.wrapping_mul(c)),
            _ => Varying,
        },
        LLVMShl => match (s(0), const_int(op(1))) {
            (Affine(a), Some(c)) if (0..63).contains(&c) => match a.checked_mul(1 << c) {
                Some(stride) => Affine(stride),
                None => Varying,
            },
            _ => Varying,
        },
        // `(x << 32) >> 30`, a sign-extended 32-bit index times 4 as
        // optimizers leave it, steps as `x` does times 4: a right shift is
        // affine when it divides the stride exactly and leaves at least 32
        // bits, the wrap the casts already assume away.
        LLVMAShr | LLVMLShr => match (s(0), const_int(op(1))) {
            (Affine(a), Some(c))
                if c >= 0
                    && c as u32 + 32 <= LLVMGetIntTypeWidth(LLVMTypeOf(i))
                    && a % (1 << c) == 0 =>
            {
                Affine(a >> c)
            }
            _ => Varying,
        },
        // An address space cast is no change of address on the host.
        LLVMTrunc | LLVMZExt | LLVMSExt | LLVMAddrSpaceCast => s(0),
        LLVMGetElementPtr => gep_shape(i, shapes, layout),
        LLVMCall => {
            let Some(f) = llvm::called_function(i) else {
                return Err("an indirect call".into());
            };
            let name = llvm::name(f);
            if let Some(sg) = sub_group_calls::classify(f) {
                // Lanes are one sub-group: a reduction is the same in all.
                if sg.is_uniform() {
                    Uniform
                } else {
                    Varying
                }
            } else if is_local_id(&name) {
                match constant_dimension(i) {
                    Some(0) => Affine(1),
                    Some(_) => Uniform,
                    None => return Err("a local id of a dimension not known".into()),
                }
            } else if is_query(&name) {
                Uniform
            } else {
                let args = LLVMGetNumArgOperands(i);
                if all_uniform(args) {
                    Uniform
                } else {
                    Varying
                }
            }
        }
        _ => Varying,
    })
}

/// A GEP is affine when its pointer and its indices are uniform or affine:
/// each affine index steps by its element's size.
unsafe fn gep_shape(
    i: LLVMValueRef,
    shapes: &HashMap<LLVMValueRef, Shape>,
    layout: llvm_sys::target::LLVMTargetDataRef,
) -> Shape {
    let mut stride = match shape_of(LLVMGetOperand(i, 0), shapes) {
        Shape::Uniform => 0i64,
        Shape::Affine(s) => s,
        Shape::Varying => return Shape::Varying,
    };
    let mut ty = LLVMGetGEPSourceElementType(i);
    let n = LLVMGetNumOperands(i) as u32;
    for k in 1..n {
        let idx = LLVMGetOperand(i, k);
        let scale = if k == 1 {
            LLVMABISizeOfType(layout, ty) as i64
        } else {
            match LLVMGetTypeKind(ty) {
                LLVMTypeKind::LLVMArrayTypeKind => {
                    ty = LLVMGetElementType(ty);
                    LLVMABISizeOfType(layout, ty) as i64
                }
                LLVMTypeKind::LLVMStructTypeKind => {
                    // Struct fields are constant indices.
                    let Some(f) = const_int(idx) else {
                        return Shape::Varying;
                    };
                    ty = LLVMStructGetTypeAtIndex(ty, f as u32);
                    0
                }
                _ => return Shape::Varying,
            }
        };
        match shape_of(idx, shapes) {
            Shape::Uniform => {}
            Shape::Affine(s) => stride = stride.wrapping_add(s.wrapping_mul(scale)),
            Shape::Varying => return Shape::Varying,
        }
    }
    Shape::Affine(stride)
}

/// Why `i` keeps the kernel from being vectorized, if it does.
unsafe fn check(
    i: LLVMValueRef,
    shapes: &HashMap<LLVMValueRef, Shape>,
    divergent: &[DivergentLoop],
    guards: &[Guard],
    in_loops: &HashSet<LLVMBasicBlockRef>,
) -> Result<(), String> {
    let block = LLVMGetInstructionParent(i);
    let in_divergent_loop = divergent.iter().any(|l| l.body.contains(&block));
    let guarded = guards.iter().any(|g| g.block == block);
    use LLVMOpcode::*;
    let shape = shape_of(i, shapes);
    let opcode = LLVMGetInstructionOpcode(i);
    let ty = LLVMTypeOf(i);
    let void = LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMVoidTypeKind;
    if shape != Shape::Uniform && !void && !is_lane_type(ty) && !is_packet_type(ty) {
        return Err(format!("a varying value of type {}", type_name(ty)));
    }
    match opcode {
        LLVMAlloca => return Err("private memory (an alloca)".into()),
        LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMFence | LLVMVAArg | LLVMInvoke | LLVMCallBr => {
            return Err(format!("an instruction it does not widen ({opcode:?})"))
        }
        LLVMLoad | LLVMStore => {
            if LLVMGetVolatile(i) != 0 || LLVMIsAtomic(i) != 0 {
                return Err("a volatile or atomic access".into());
            }
            let stored = LLVMTypeOf(LLVMGetOperand(i, 0));
            if opcode == LLVMStore
                && !is_lane_type(stored)
                && !is_packet_type(stored)
                && (shape_of(LLVMGetOperand(i, 0), shapes) != Shape::Uniform
                    || shape_of(LLVMGetOperand(i, 1), shapes) != Shape::Uniform)
            {
                return Err("a varying store of a vector or aggregate".into());
            }
            // Under a guard, the last lane taking it stores (as the last
            // of those work-items would, in turn); in a loop lanes leave
            // apart, which has no such order.
            if opcode == LLVMStore
                && (in_divergent_loop || (guarded && !is_lane_type(stored)))
                && shape_of(LLVMGetOperand(i, 1), shapes) == Shape::Uniform
            {
                return Err("a store to one place under a varying condition".into());
            }
        }
        LLVMBr | LLVMSwitch | LLVMIndirectBr => {
            let exit_test = divergent.iter().any(|l| l.exiting == block);
            let guard = guards.iter().any(|g| g.guard == block);
            if !exit_test
                && !guard
                && LLVMGetNumOperands(i) > 1
                && shape_of(LLVMGetOperand(i, 0), shapes) != Shape::Uniform
            {
                return Err("a branch that work-items may take differently".into());
            }
        }
        LLVMExtractValue | LLVMInsertValue if shape != Shape::Uniform => {
            return Err("varying aggregate code".into())
        }
        LLVMExtractElement | LLVMInsertElement if shape != Shape::Uniform => {
            let index = LLVMGetOperand(i, if opcode == LLVMExtractElement { 1 } else { 2 });
            if const_int(index).is_none() {
                return Err("a vector element chosen at run time".into());
            }
        }
        LLVMCall => {
            let Some(f) = llvm::called_function(i) else {
                return Err("an indirect call".into());
            };
            let name = llvm::name(f);
            if let Some(sg) = sub_group_calls::classify(f) {
                if sg.collective == sub_group_calls::Collective::Barrier {
                    return Ok(());
                }
                if in_divergent_loop || guarded {
                    return Err(format!("{name} under a condition work-items take apart"));
                }
                if !is_lane_type(LLVMTypeOf(LLVMGetOperand(i, 0))) {
                    return Err(format!("{name} of a vector"));
                }
                if sg.collective == sub_group_calls::Collective::Broadcast
                    && shape_of(LLVMGetOperand(i, 1), shapes) != Shape::Uniform
                {
                    return Err(format!(
                        "{name} from a lane that differs between work-items"
                    ));
                }
                return Ok(());
            }
            if is_work_group_scratch(&name) {
                // The collectives combine work-items' values there one
                // work-item after the other.
                return Err("a work-group collective".into());
            }
            if is_query(&name) {
                return Ok(());
            }
            if compiler::printf::is_printf_call(i) {
                // Called lane by lane, in work-item order; once per
                // work-item only outside loops.
                if in_loops.contains(&block) {
                    return Err("a printf call in a loop".into());
                }
                if !LLVMGetFirstUse(i).is_null() {
                    return Err("a printf call whose result is used".into());
                }
                for k in 0..LLVMGetNumArgOperands(i) {
                    let a = LLVMGetOperand(i, k);
                    let ty = LLVMTypeOf(a);
                    if shape_of(a, shapes) != Shape::Uniform
                        && !is_lane_type(ty)
                        && !is_packet_type(ty)
                    {
                        return Err("a printf argument of a type it does not split".into());
                    }
                }
                return Ok(());
            }
            if let Some(intr) = intrinsic_name(f) {
                if shape == Shape::Uniform && void {
                    // llvm.assume, lifetime markers: nothing per lane.
                    return Ok(());
                }
                let Some(scalar_args) = lanewise(&intr) else {
                    return Err(format!("a call of {intr}"));
                };
                for &k in scalar_args {
                    if shape_of(LLVMGetOperand(i, k), shapes) != Shape::Uniform {
                        return Err(format!("a varying flag of {intr}"));
                    }
                }
                return Ok(());
            }
            // A math builtin with vector variants has no side effects: a
            // uniform call of it runs once, a varying one once per lane.
            if !vector_variants::stays_a_call(f) {
                return Err(format!("a call of {name}"));
            }
            for k in 0..LLVMGetNumArgOperands(i) {
                if !is_lane_type(LLVMTypeOf(LLVMGetOperand(i, k))) {
                    return Err(format!("a call of {name} with a vector argument"));
                }
            }
        }
        _ => {}
    }
    Ok(())
}

unsafe fn is_lane_type(ty: LLVMTypeRef) -> bool {
    use LLVMTypeKind::*;
    matches!(
        LLVMGetTypeKind(ty),
        LLVMIntegerTypeKind
            | LLVMFloatTypeKind
            | LLVMDoubleTypeKind
            | LLVMHalfTypeKind
            | LLVMPointerTypeKind
    )
}

unsafe fn is_vector(ty: LLVMTypeRef) -> bool {
    LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMVectorTypeKind
}

/// A fixed vector of numbers (`float8`, `uchar4`): varying, it is held as
/// one vector of all the lanes' elements, lane after lane.
unsafe fn is_packet_type(ty: LLVMTypeRef) -> bool {
    use LLVMTypeKind::*;
    is_vector(ty)
        && matches!(
            LLVMGetTypeKind(LLVMGetElementType(ty)),
            LLVMIntegerTypeKind | LLVMFloatTypeKind | LLVMDoubleTypeKind | LLVMHalfTypeKind
        )
}

/// The elements of `ty` per work-item: 1 for a scalar.
unsafe fn elements(ty: LLVMTypeRef) -> u32 {
    if is_vector(ty) {
        LLVMGetVectorSize(ty)
    } else {
        1
    }
}

unsafe fn type_name(ty: LLVMTypeRef) -> String {
    let p = LLVMPrintTypeToString(ty);
    let s = std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned();
    LLVMDisposeMessage(p);
    s
}

/// Builds the vector function.
struct Gen {
    m: LLVMModuleRef,
    ctx: LLVMContextRef,
    b: LLVMBuilderRef,
    v: LLVMValueRef,
    width: u32,
    layout: llvm_sys::target::LLVMTargetDataRef,
    shapes: HashMap<LLVMValueRef, Shape>,
    blocks: HashMap<LLVMBasicBlockRef, LLVMBasicBlockRef>,
    /// The block each kernel block's terminator went to (its copy, or the
    /// last of the blocks a run-time test split it into).
    ends: HashMap<LLVMBasicBlockRef, LLVMBasicBlockRef>,
    /// Uniform values, and the lane-0 base of affine ones.
    scalar: HashMap<LLVMValueRef, LLVMValueRef>,
    /// Affine and varying values.
    vector: HashMap<LLVMValueRef, LLVMValueRef>,
    divergent: Vec<DivergentLoop>,
    /// For each divergent loop (by index): the lanes in it at its header,
    /// and the lanes that stay after its exit test.
    masks: Vec<(LLVMValueRef, LLVMValueRef)>,
    guards: Vec<Guard>,
    /// The lanes that run each guarded block (by the kernel's block).
    guard_masks: HashMap<LLVMBasicBlockRef, LLVMValueRef>,
    /// A region function's linear-id parameter: lane 0's, in steps of 1.
    linear_id: Option<LLVMValueRef>,
}

impl Drop for Gen {
    fn drop(&mut self) {
        unsafe { LLVMDisposeBuilder(self.b) }
    }
}

impl Gen {
    unsafe fn new(
        m: LLVMModuleRef,
        kernel: LLVMValueRef,
        width: u32,
        shapes: HashMap<LLVMValueRef, Shape>,
        divergent: Vec<DivergentLoop>,
    ) -> Gen {
        let ctx = LLVMGetModuleContext(m);
        let v = copy_of(m, kernel, &format!("v{width}"));
        let mut scalar = HashMap::new();
        for k in 0..LLVMCountParams(kernel) {
            scalar.insert(LLVMGetParam(kernel, k), LLVMGetParam(v, k));
        }
        Gen {
            m,
            ctx,
            b: LLVMCreateBuilderInContext(ctx),
            v,
            width,
            layout: LLVMGetModuleDataLayout(m),
            shapes,
            blocks: HashMap::new(),
            ends: HashMap::new(),
            scalar,
            vector: HashMap::new(),
            masks: vec![(std::ptr::null_mut(), std::ptr::null_mut()); divergent.len()],
            divergent,
            guards: Vec::new(),
            guard_masks: HashMap::new(),
            linear_id: None,
        }
    }

    fn shape(&self, v: LLVMValueRef) -> Shape {
        self.shapes.get(&v).copied().unwrap_or(Shape::Uniform)
    }

    /// The type of `width` lanes of `ty`: a vector of scalars, or all the
    /// lanes' elements of a vector, lane after lane.
    unsafe fn vec_type(&self, ty: LLVMTypeRef) -> LLVMTypeRef {
        if is_vector(ty) {
            LLVMVectorType(LLVMGetElementType(ty), elements(ty) * self.width)
        } else {
            LLVMVectorType(ty, self.width)
        }
    }

    /// A shuffle mask of constants (`None`: any element).
    unsafe fn mask(&self, elements: impl Iterator<Item = Option<u32>>) -> LLVMValueRef {
        let i32t = LLVMInt32TypeInContext(self.ctx);
        let mut m: Vec<LLVMValueRef> = elements
            .map(|e| e.map_or_else(|| LLVMGetUndef(i32t), |e| LLVMConstInt(i32t, e as u64, 0)))
            .collect();
        LLVMConstVector(m.as_mut_ptr(), m.len() as u32)
    }

    /// A shuffle of `v` alone.
    unsafe fn shuffle(&self, v: LLVMValueRef, mask: LLVMValueRef, name: &str) -> LLVMValueRef {
        let poison = LLVMGetPoison(LLVMTypeOf(v));
        LLVMBuildShuffleVector(self.b, v, poison, mask, cstr(name).as_ptr())
    }

    /// Per-lane `v` (one element per work-item: a mask, pointers) repeated
    /// for each of the `k` elements of a lane.
    unsafe fn spread(&self, v: LLVMValueRef, k: u32) -> LLVMValueRef {
        if k == 1 {
            return v;
        }
        let m = self.mask((0..self.width).flat_map(|l| (0..k).map(move |_| Some(l))));
        self.shuffle(v, m, "spread")
    }

    /// Lane `lane`'s elements of a value of type `ty`.
    unsafe fn lane(&self, v: LLVMValueRef, ty: LLVMTypeRef, lane: u32) -> LLVMValueRef {
        let i32t = LLVMInt32TypeInContext(self.ctx);
        if !is_vector(ty) {
            return LLVMBuildExtractElement(
                self.b,
                v,
                LLVMConstInt(i32t, lane as u64, 0),
                c"".as_ptr(),
            );
        }
        let k = elements(ty);
        self.shuffle(v, self.mask((0..k).map(|e| Some(lane * k + e))), "lane")
    }

    /// `v` as the scalar kernel had it, in the vector function: the value
    /// itself for constants and globals, the copy (or base) otherwise.
    unsafe fn scalar_of(&self, v: LLVMValueRef) -> LLVMValueRef {
        if LLVMValueIsBasicBlock(v) != 0 {
            let bb = LLVMValueAsBasicBlock(v);
            return LLVMBasicBlockAsValue(self.blocks[&bb]);
        }
        *self.scalar.get(&v).unwrap_or(&v)
    }

    /// `v` as a vector, splatting a uniform value where the builder is.
    unsafe fn vector_of(&self, v: LLVMValueRef) -> LLVMValueRef {
        if let Some(&x) = self.vector.get(&v) {
            return x;
        }
        let ty = LLVMTypeOf(v);
        if LLVMIsPoison(v) != 0 {
            return LLVMGetPoison(self.vec_type(ty));
        }
        if LLVMIsUndef(v) != 0 {
            return LLVMGetUndef(self.vec_type(ty));
        }
        self.splat(self.scalar_of(v))
    }

    unsafe fn splat(&self, s: LLVMValueRef) -> LLVMValueRef {
        if is_vector(LLVMTypeOf(s)) {
            let k = elements(LLVMTypeOf(s));
            let m = self.mask((0..self.width).flat_map(|_| (0..k).map(Some)));
            return self.shuffle(s, m, "splat");
        }
        let ty = self.vec_type(LLVMTypeOf(s));
        let i32t = LLVMInt32TypeInContext(self.ctx);
        let one = LLVMBuildInsertElement(
            self.b,
            LLVMGetPoison(ty),
            s,
            LLVMConstInt(i32t, 0, 0),
            c"".as_ptr(),
        );
        let mask = LLVMConstNull(LLVMVectorType(i32t, self.width));
        LLVMBuildShuffleVector(self.b, one, LLVMGetPoison(ty), mask, c"splat".as_ptr())
    }

    /// `<0, 1, .., width-1>` of integer type `ty`.
    unsafe fn steps(&self, ty: LLVMTypeRef) -> LLVMValueRef {
        let mut lanes: Vec<LLVMValueRef> = (0..self.width)
            .map(|l| LLVMConstInt(ty, l as u64, 0))
            .collect();
        LLVMConstVector(lanes.as_mut_ptr(), self.width)
    }

    unsafe fn emit(mut self, cfg: &Cfg, order: &[usize]) -> Result<LLVMValueRef, String> {
        for &bx in order {
            let bb = cfg.blocks[bx];
            let name = cstr(&llvm::name(LLVMBasicBlockAsValue(bb)));
            let new = LLVMAppendBasicBlockInContext(self.ctx, self.v, name.as_ptr());
            self.blocks.insert(bb, new);
        }
        let mut phis = Vec::new();
        if let Some(p) = self.linear_id {
            // Lane l's linear id is lane 0's plus l.
            LLVMPositionBuilderAtEnd(self.b, self.blocks[&cfg.blocks[order[0]]]);
            let base = self.scalar_of(p);
            let steps = self.steps(LLVMTypeOf(base));
            let lanes = LLVMBuildAdd(self.b, self.splat(base), steps, c"linear_ids".as_ptr());
            self.vector.insert(p, lanes);
        }
        for &bx in order {
            let bb = cfg.blocks[bx];
            LLVMPositionBuilderAtEnd(self.b, self.blocks[&bb]);
            if let Some(l) = self.divergent.iter().position(|l| l.header == bb) {
                let mask = self.vec_type(LLVMInt1TypeInContext(self.ctx));
                self.masks[l].0 = LLVMBuildPhi(self.b, mask, c"active".as_ptr());
            }
            for i in llvm::block_instructions(bb) {
                if !LLVMIsAPHINode(i).is_null() {
                    self.phi(i);
                    phis.push(i);
                } else {
                    self.instruction(i)?;
                }
            }
            self.ends.insert(bb, LLVMGetInsertBlock(self.b));
        }
        for i in phis {
            self.fill_phi(i);
        }
        self.fill_masks(cfg);
        Ok(self.v)
    }

    unsafe fn phi(&mut self, i: LLVMValueRef) {
        let ty = LLVMTypeOf(i);
        let shape = self.shape(i);
        if shape != Shape::Varying {
            let p = LLVMBuildPhi(self.b, ty, c"".as_ptr());
            self.scalar.insert(i, p);
        }
        if shape != Shape::Uniform {
            let p = LLVMBuildPhi(self.b, self.vec_type(ty), c"".as_ptr());
            self.vector.insert(i, p);
        }
    }

    unsafe fn fill_phi(&mut self, i: LLVMValueRef) {
        for k in 0..LLVMCountIncoming(i) {
            let from = LLVMGetIncomingBlock(i, k);
            let Some(&block) = self.ends.get(&from) else {
                continue; // an unreachable predecessor
            };
            let value = LLVMGetIncomingValue(i, k);
            LLVMPositionBuilderBefore(self.b, LLVMGetBasicBlockTerminator(block));
            let mut blocks = [block];
            if let Some(&p) = self.scalar.get(&i) {
                let mut vals = [self.scalar_of(value)];
                LLVMAddIncoming(p, vals.as_mut_ptr(), blocks.as_mut_ptr(), 1);
            }
            if let Some(&p) = self.vector.get(&i) {
                let mut v = self.vector_of(value);
                let header = LLVMGetInstructionParent(i);
                if let Some(l) = self
                    .divergent
                    .iter()
                    .position(|l| l.header == header && l.latch == from)
                    .filter(|_| self.shape(i) == Shape::Varying)
                {
                    // A lane that has left keeps its value (an affine
                    // induction steps on: see `steps_uniformly_inside`).
                    let stayed = self.spread(self.masks[l].1, elements(LLVMTypeOf(i)));
                    v = LLVMBuildSelect(self.b, stayed, v, p, c"kept".as_ptr());
                }
                if let Some(g) = self.guards.iter().find(|g| g.block == from) {
                    // The lanes that skipped the guarded block keep the
                    // value they had at the guard.
                    let guard = g.guard;
                    let skipped = (0..LLVMCountIncoming(i))
                        .find(|&k| LLVMGetIncomingBlock(i, k) == guard)
                        .map(|k| LLVMGetIncomingValue(i, k));
                    if let Some(before) = skipped {
                        let ran = self.spread(self.guard_masks[&from], elements(LLVMTypeOf(i)));
                        let before = self.vector_of(before);
                        v = LLVMBuildSelect(self.b, ran, v, before, c"guarded".as_ptr());
                    }
                }
                let mut vals = [v];
                LLVMAddIncoming(p, vals.as_mut_ptr(), blocks.as_mut_ptr(), 1);
            }
        }
    }

    /// Each divergent loop's mask: every lane on entry, those that stayed
    /// from the latch.
    unsafe fn fill_masks(&mut self, cfg: &Cfg) {
        let i1 = LLVMInt1TypeInContext(self.ctx);
        for (l, &(active, after)) in self.divergent.iter().zip(&self.masks) {
            for &p in &cfg.preds[cfg.index[&l.header]] {
                let from = cfg.blocks[p];
                let Some(&block) = self.ends.get(&from) else {
                    continue;
                };
                LLVMPositionBuilderBefore(self.b, LLVMGetBasicBlockTerminator(block));
                let mut vals = [if from == l.latch {
                    after
                } else {
                    self.splat(LLVMConstInt(i1, 1, 0))
                }];
                let mut blocks = [block];
                LLVMAddIncoming(active, vals.as_mut_ptr(), blocks.as_mut_ptr(), 1);
            }
        }
    }

    /// The exit test of divergent loop `l`: the lanes whose condition says
    /// stay, of those still in the loop, go round again while there are any.
    unsafe fn exit_test(&mut self, i: LLVMValueRef, l: usize) {
        let cond = self.vector_of(LLVMGetCondition(i));
        let stay_on_true = self.divergent[l].body.contains(&LLVMGetSuccessor(i, 0));
        let (inside, outside) = if stay_on_true { (0, 1) } else { (1, 0) };
        let stay = if stay_on_true {
            cond
        } else {
            LLVMBuildNot(self.b, cond, c"stay".as_ptr())
        };
        let after = LLVMBuildAnd(self.b, self.masks[l].0, stay, c"staying".as_ptr());
        self.masks[l].1 = after;
        let mut args = [after];
        let any = self.intrinsic("llvm.vector.reduce.or", &[LLVMTypeOf(after)], &mut args);
        let to = |k| self.blocks[&LLVMGetSuccessor(i, k)];
        LLVMBuildCondBr(self.b, any, to(inside), to(outside));
    }

    /// The varying branch of guard `g`: the guarded block runs, for the
    /// lanes whose condition takes them there, if there are any.
    unsafe fn guard_branch(&mut self, i: LLVMValueRef, g: usize) {
        let cond = self.vector_of(LLVMGetCondition(i));
        let Guard {
            block,
            merge,
            on_true,
            ..
        } = self.guards[g];
        let lanes = if on_true {
            cond
        } else {
            LLVMBuildNot(self.b, cond, c"guarded".as_ptr())
        };
        self.guard_masks.insert(block, lanes);
        let mut args = [lanes];
        let any = self.intrinsic("llvm.vector.reduce.or", &[LLVMTypeOf(lanes)], &mut args);
        LLVMBuildCondBr(self.b, any, self.blocks[&block], self.blocks[&merge]);
    }

    /// A `printf` call: the scalar call once for each lane it is made for,
    /// lane after lane (work-item order), each with its lane's arguments.
    unsafe fn printf(&mut self, i: LLVMValueRef) -> LLVMValueRef {
        let lanes = self.lanes_of(i, true);
        let nargs = LLVMGetNumArgOperands(i);
        let i32t = LLVMInt32TypeInContext(self.ctx);
        for lane in 0..self.width {
            let next = LLVMAppendBasicBlockInContext(self.ctx, self.v, c"printf.next".as_ptr());
            if let Some(mask) = lanes {
                let on = LLVMBuildExtractElement(
                    self.b,
                    mask,
                    LLVMConstInt(i32t, lane as u64, 0),
                    c"printf.lane.on".as_ptr(),
                );
                let call = LLVMAppendBasicBlockInContext(self.ctx, self.v, c"printf.lane".as_ptr());
                LLVMBuildCondBr(self.b, on, call, next);
                LLVMPositionBuilderAtEnd(self.b, call);
            }
            // The call itself, its id and attributes kept, on this lane's values.
            let c = LLVMInstructionClone(i);
            for k in 0..nargs {
                let a = LLVMGetOperand(i, k);
                let value = if self.shape(a) == Shape::Uniform {
                    self.scalar_of(a)
                } else {
                    self.lane(self.vector_of(a), LLVMTypeOf(a), lane)
                };
                LLVMSetOperand(c, k, value);
            }
            LLVMInsertIntoBuilder(self.b, c);
            LLVMBuildBr(self.b, next);
            LLVMPositionBuilderAtEnd(self.b, next);
        }
        // Its result is unused (`check`).
        LLVMGetPoison(self.vec_type(LLVMTypeOf(i)))
    }

    /// The lanes a memory access of `i` is for, when not all: in a
    /// divergent loop, those in it (before the exit test) or those that
    /// stayed (after it). Loads before the test need none: a lane that has
    /// left reads again what it read in its last iteration.
    unsafe fn lanes_of(&self, i: LLVMValueRef, is_store: bool) -> Option<LLVMValueRef> {
        let block = LLVMGetInstructionParent(i);
        if let Some(&mask) = self.guard_masks.get(&block) {
            return Some(mask);
        }
        let l = self
            .divergent
            .iter()
            .position(|l| l.body.contains(&block))?;
        if self.divergent[l].tail.contains(&block) {
            Some(self.masks[l].1)
        } else if is_store {
            Some(self.masks[l].0)
        } else {
            None
        }
    }

    /// A copy of `i` on the scalars (uniform values, affine bases).
    unsafe fn clone_scalar(&mut self, i: LLVMValueRef) -> LLVMValueRef {
        let c = LLVMInstructionClone(i);
        for k in 0..LLVMGetNumOperands(i) as u32 {
            let op = LLVMGetOperand(i, k);
            if is_instruction(op)
                || !LLVMIsAArgument(op).is_null()
                || LLVMValueIsBasicBlock(op) != 0
            {
                LLVMSetOperand(c, k, self.scalar_of(op));
            }
        }
        let name = llvm::name(i);
        LLVMInsertIntoBuilderWithName(self.b, c, cstr(&name).as_ptr());
        c
    }

    unsafe fn instruction(&mut self, i: LLVMValueRef) -> Result<(), String> {
        use LLVMOpcode::*;
        let opcode = LLVMGetInstructionOpcode(i);
        if opcode == LLVMStore {
            return self.store(i);
        }
        if opcode == LLVMBr {
            let block = LLVMGetInstructionParent(i);
            if let Some(l) = self.divergent.iter().position(|l| l.exiting == block) {
                self.exit_test(i, l);
                return Ok(());
            }
            if let Some(g) = self.guards.iter().position(|g| g.guard == block) {
                self.guard_branch(i, g);
                return Ok(());
            }
        }
        if opcode == LLVMCall {
            if let Some(sg) = llvm::called_function(i).and_then(|f| sub_group_calls::classify(f)) {
                self.sub_group(i, sg);
                return Ok(());
            }
        }
        let shape = self.shape(i);
        if shape != Shape::Varying {
            let c = self.clone_scalar(i);
            self.scalar.insert(i, c);
            if shape == Shape::Uniform {
                return Ok(());
            }
        }
        let w = match opcode {
            LLVMCall if callee_name(i).is_some_and(|n| is_local_id(&n)) => {
                // Lane l is work-item x + l.
                let base = self.scalar[&i];
                let steps = self.steps(LLVMTypeOf(base));
                LLVMBuildAdd(self.b, self.splat(base), steps, c"lane_id".as_ptr())
            }
            LLVMCall => self.call(i)?,
            LLVMLoad => self.load(i),
            _ => self.widen(i)?,
        };
        self.vector.insert(i, w);
        Ok(())
    }

    /// The vector form of an arithmetic, comparison, cast or GEP.
    unsafe fn widen(&mut self, i: LLVMValueRef) -> Result<LLVMValueRef, String> {
        use LLVMOpcode::*;
        let b = self.b;
        let opcode = LLVMGetInstructionOpcode(i);
        let op = |g: &Self, k: u32| g.vector_of(LLVMGetOperand(i, k));
        let name = cstr(&llvm::name(i));
        let w = match opcode {
            LLVMAdd | LLVMFAdd | LLVMSub | LLVMFSub | LLVMMul | LLVMFMul | LLVMUDiv | LLVMSDiv
            | LLVMFDiv | LLVMURem | LLVMSRem | LLVMFRem | LLVMShl | LLVMLShr | LLVMAShr
            | LLVMAnd | LLVMOr | LLVMXor => {
                let w = LLVMBuildBinOp(b, opcode, op(self, 0), op(self, 1), name.as_ptr());
                if !LLVMIsAInstruction(w).is_null() {
                    match opcode {
                        LLVMAdd | LLVMSub | LLVMMul | LLVMShl => {
                            LLVMSetNSW(w, LLVMGetNSW(i));
                            LLVMSetNUW(w, LLVMGetNUW(i));
                        }
                        LLVMUDiv | LLVMSDiv | LLVMLShr | LLVMAShr => {
                            LLVMSetExact(w, LLVMGetExact(i))
                        }
                        LLVMOr => LLVMSetIsDisjoint(w, LLVMGetIsDisjoint(i)),
                        _ => {}
                    }
                }
                w
            }
            LLVMFNeg => LLVMBuildFNeg(b, op(self, 0), name.as_ptr()),
            LLVMICmp => LLVMBuildICmp(
                b,
                LLVMGetICmpPredicate(i),
                op(self, 0),
                op(self, 1),
                name.as_ptr(),
            ),
            LLVMFCmp => LLVMBuildFCmp(
                b,
                LLVMGetFCmpPredicate(i),
                op(self, 0),
                op(self, 1),
                name.as_ptr(),
            ),
            LLVMSelect => {
                let c = LLVMGetOperand(i, 0);
                let c = if self.shape(c) == Shape::Uniform {
                    self.scalar_of(c)
                } else if is_vector(LLVMTypeOf(c)) {
                    self.vector_of(c)
                } else {
                    // One condition per work-item for each of its elements.
                    self.spread(self.vector_of(c), elements(LLVMTypeOf(i)))
                };
                LLVMBuildSelect(b, c, op(self, 1), op(self, 2), name.as_ptr())
            }
            LLVMExtractElement => {
                let vector = LLVMGetOperand(i, 0);
                let k = elements(LLVMTypeOf(vector));
                let e = const_int(LLVMGetOperand(i, 1)).ok_or("an element chosen at run time")?;
                let m = self.mask((0..self.width).map(|l| Some(l * k + e as u32)));
                self.shuffle(op(self, 0), m, &llvm::name(i))
            }
            LLVMInsertElement => {
                let k = elements(LLVMTypeOf(i));
                let e = const_int(LLVMGetOperand(i, 2)).ok_or("an element chosen at run time")?;
                let e = e as u32;
                let into = op(self, 0);
                let x = self.spread(op(self, 1), k);
                // Element e of each lane from x, the rest from the vector.
                let all = k * self.width;
                let m = self.mask((0..all).map(|j| Some(if j % k == e { all + j } else { j })));
                LLVMBuildShuffleVector(b, into, x, m, name.as_ptr())
            }
            LLVMShuffleVector => {
                let k = elements(LLVMTypeOf(LLVMGetOperand(i, 0)));
                let all = k * self.width;
                let n = LLVMGetNumMaskElements(i);
                let picks: Vec<i32> = (0..n).map(|j| LLVMGetMaskValue(i, j)).collect();
                // Lane l's element j is element m of lane l of the first
                // operand (m < k) or of the second.
                let m = self.mask((0..self.width).flat_map(|l| {
                    picks.iter().map(move |&m| match m {
                        m if m < 0 => None,
                        m if (m as u32) < k => Some(l * k + m as u32),
                        m => Some(all + l * k + (m as u32 - k)),
                    })
                }));
                LLVMBuildShuffleVector(b, op(self, 0), op(self, 1), m, name.as_ptr())
            }
            LLVMFreeze => LLVMBuildFreeze(b, op(self, 0), name.as_ptr()),
            LLVMTrunc | LLVMZExt | LLVMSExt | LLVMFPToUI | LLVMFPToSI | LLVMUIToFP | LLVMSIToFP
            | LLVMFPTrunc | LLVMFPExt | LLVMPtrToInt | LLVMIntToPtr | LLVMBitCast
            | LLVMAddrSpaceCast => {
                let to = self.vec_type(LLVMTypeOf(i));
                LLVMBuildCast(b, opcode, op(self, 0), to, name.as_ptr())
            }
            LLVMGetElementPtr => {
                let n = LLVMGetNumOperands(i) as u32;
                let mut idx: Vec<LLVMValueRef> = (1..n)
                    .map(|k| {
                        let x = LLVMGetOperand(i, k);
                        if self.shape(x) == Shape::Uniform {
                            self.scalar_of(x)
                        } else {
                            self.vector_of(x)
                        }
                    })
                    .collect();
                // The pointer as a vector makes the result one.
                LLVMBuildGEPWithNoWrapFlags(
                    b,
                    LLVMGetGEPSourceElementType(i),
                    op(self, 0),
                    idx.as_mut_ptr(),
                    idx.len() as u32,
                    name.as_ptr(),
                    LLVMGEPGetNoWrapFlags(i),
                )
            }
            _ => return Err(format!("an instruction it does not widen ({opcode:?})")),
        };
        copy_fast_math(i, w);
        Ok(w)
    }

    /// Whether an access of `ty` through `ptr` is one contiguous vector.
    unsafe fn contiguous(&self, ptr: LLVMValueRef, ty: LLVMTypeRef) -> bool {
        let size = LLVMABISizeOfType(self.layout, ty);
        matches!(self.shape(ptr), Shape::Affine(s) if s as u64 == size)
            && LLVMStoreSizeOfType(self.layout, ty) == size
    }

    unsafe fn load(&mut self, i: LLVMValueRef) -> LLVMValueRef {
        let ty = LLVMTypeOf(i);
        let vt = self.vec_type(ty);
        let ptr = LLVMGetOperand(i, 0);
        let align = LLVMGetAlignment(i);
        let name = cstr(&llvm::name(i));
        let lanes = self
            .lanes_of(i, false)
            .map(|m| self.spread(m, elements(ty)));
        if self.shape(ptr) == Shape::Affine(0) {
            // One place for every lane (and some lane is running).
            let l = LLVMBuildLoad2(self.b, ty, self.scalar_of(ptr), name.as_ptr());
            LLVMSetAlignment(l, align);
            copy_metadata(i, l);
            return self.splat(l);
        }
        // Each access made carries the load's metadata.
        let whole = |g: &Self, first: LLVMValueRef| {
            let l = match lanes {
                None => {
                    let l = LLVMBuildLoad2(g.b, vt, first, name.as_ptr());
                    LLVMSetAlignment(l, align);
                    l
                }
                Some(mask) => {
                    let mut args = [first, mask, LLVMGetPoison(vt)];
                    let ptr_ty = LLVMTypeOf(first);
                    let l = g.intrinsic("llvm.masked.load", &[vt, ptr_ty], &mut args);
                    g.set_param_align(l, 0, align);
                    l
                }
            };
            copy_metadata(i, l);
            l
        };
        let gather = |g: &Self| {
            let (ptrs, align) = g.element_ptrs(ptr, ty, align);
            let mask = lanes.unwrap_or_else(|| g.all_lanes(ty));
            let mut args = [ptrs, mask, LLVMGetPoison(vt)];
            let l = g.intrinsic("llvm.masked.gather", &[vt, LLVMTypeOf(ptrs)], &mut args);
            g.set_param_align(l, 0, align);
            copy_metadata(i, l);
            l
        };
        if self.contiguous(ptr, ty) {
            whole(self, self.scalar_of(ptr))
        } else if self.may_be_consecutive(ptr, ty, lanes) {
            self.when_consecutive(ptr, ty, whole, gather)
        } else {
            gather(self)
        }
    }

    unsafe fn store(&mut self, i: LLVMValueRef) -> Result<(), String> {
        let value = LLVMGetOperand(i, 0);
        let ptr = LLVMGetOperand(i, 1);
        let ty = LLVMTypeOf(value);
        let align = LLVMGetAlignment(i);
        let uniform_value = self.shape(value) == Shape::Uniform;
        let guard = self.guard_masks.get(&LLVMGetInstructionParent(i)).copied();
        let lanes = self.lanes_of(i, true).map(|m| self.spread(m, elements(ty)));
        match self.shape(ptr) {
            Shape::Uniform | Shape::Affine(0) if lanes.is_some() => {
                let Some(mask) = guard.filter(|_| is_lane_type(ty)) else {
                    return Err("a store to one place in a divergent loop".into());
                };
                // A guarded block runs when some lane takes it: the last
                // of them stores.
                let v = if uniform_value {
                    self.scalar_of(value)
                } else {
                    let last = self.last_lane(mask);
                    LLVMBuildExtractElement(self.b, self.vector_of(value), last, c"last".as_ptr())
                };
                let s = LLVMBuildStore(self.b, v, self.scalar_of(ptr));
                LLVMSetAlignment(s, align);
                copy_metadata(i, s);
                return Ok(());
            }
            Shape::Uniform if uniform_value => {
                self.clone_scalar(i);
                return Ok(());
            }
            Shape::Uniform | Shape::Affine(0) => {
                // Every lane stores to one place: the last work-item's
                // value is the one left.
                let v = if uniform_value {
                    self.scalar_of(value)
                } else {
                    self.lane(self.vector_of(value), ty, self.width - 1)
                };
                let s = LLVMBuildStore(self.b, v, self.scalar_of(ptr));
                LLVMSetAlignment(s, align);
                copy_metadata(i, s);
                return Ok(());
            }
            _ => {}
        }
        let v = self.vector_of(value);
        // Each access made carries the store's metadata.
        let whole = |g: &Self, first: LLVMValueRef| {
            let s = match lanes {
                None => {
                    let s = LLVMBuildStore(g.b, v, first);
                    LLVMSetAlignment(s, align);
                    s
                }
                Some(mask) => {
                    let mut args = [v, first, mask];
                    let types = [LLVMTypeOf(v), LLVMTypeOf(first)];
                    let s = g.intrinsic("llvm.masked.store", &types, &mut args);
                    g.set_param_align(s, 1, align);
                    s
                }
            };
            copy_metadata(i, s);
            s
        };
        let scatter = |g: &Self| {
            let (ptrs, align) = g.element_ptrs(ptr, ty, align);
            let mask = lanes.unwrap_or_else(|| g.all_lanes(ty));
            let mut args = [v, ptrs, mask];
            let types = [LLVMTypeOf(v), LLVMTypeOf(ptrs)];
            let s = g.intrinsic("llvm.masked.scatter", &types, &mut args);
            g.set_param_align(s, 1, align);
            copy_metadata(i, s);
            s
        };
        if self.contiguous(ptr, ty) {
            whole(self, self.scalar_of(ptr));
        } else if self.may_be_consecutive(ptr, ty, lanes) {
            self.when_consecutive(ptr, ty, whole, scatter);
        } else {
            scatter(self);
        }
        Ok(())
    }

    /// The index of the last lane `mask` (of `width` lanes, some set)
    /// holds: `width - 1 - ctlz(mask as an integer)`.
    unsafe fn last_lane(&self, mask: LLVMValueRef) -> LLVMValueRef {
        let bits = LLVMIntTypeInContext(self.ctx, self.width);
        let as_int = LLVMBuildBitCast(self.b, mask, bits, c"lanes".as_ptr());
        let mut args = [as_int, LLVMConstInt(LLVMInt1TypeInContext(self.ctx), 1, 0)];
        let zeros = self.intrinsic("llvm.ctlz", &[bits], &mut args);
        let top = LLVMConstInt(bits, (self.width - 1) as u64, 0);
        let last = LLVMBuildSub(self.b, top, zeros, c"last_lane".as_ptr());
        let i32t = LLVMInt32TypeInContext(self.ctx);
        LLVMBuildIntCast2(self.b, last, i32t, 0, c"".as_ptr())
    }

    /// Whether an access of `ty` through `ptr` is worth testing for
    /// consecutive addresses at run time: a computed index (a clamped
    /// neighbour, a table of indices) often gives them.
    unsafe fn may_be_consecutive(
        &self,
        ptr: LLVMValueRef,
        ty: LLVMTypeRef,
        lanes: Option<LLVMValueRef>,
    ) -> bool {
        self.shape(ptr) == Shape::Varying
            && lanes.is_none()
            && !is_vector(ty)
            && LLVMStoreSizeOfType(self.layout, ty) == LLVMABISizeOfType(self.layout, ty)
    }

    /// `fast(first lane's address)` where the lanes' addresses `ptr` turn
    /// out to be consecutive elements of `ty`, `slow` where not; the
    /// result of whichever ran.
    unsafe fn when_consecutive(
        &mut self,
        ptr: LLVMValueRef,
        ty: LLVMTypeRef,
        fast: impl FnOnce(&Self, LLVMValueRef) -> LLVMValueRef,
        slow: impl FnOnce(&Self) -> LLVMValueRef,
    ) -> LLVMValueRef {
        let i32t = LLVMInt32TypeInContext(self.ctx);
        let first = LLVMBuildExtractElement(
            self.b,
            self.vector_of(ptr),
            LLVMConstInt(i32t, 0, 0),
            c"first".as_ptr(),
        );
        let all = self.consecutive(ptr, ty);
        let fast_bb = LLVMAppendBasicBlockInContext(self.ctx, self.v, c"consecutive".as_ptr());
        let slow_bb = LLVMAppendBasicBlockInContext(self.ctx, self.v, c"scattered".as_ptr());
        let join = LLVMAppendBasicBlockInContext(self.ctx, self.v, c"accessed".as_ptr());
        LLVMBuildCondBr(self.b, all, fast_bb, slow_bb);
        LLVMPositionBuilderAtEnd(self.b, fast_bb);
        let a = fast(self, first);
        LLVMBuildBr(self.b, join);
        LLVMPositionBuilderAtEnd(self.b, slow_bb);
        let b = slow(self);
        LLVMBuildBr(self.b, join);
        LLVMPositionBuilderAtEnd(self.b, join);
        let ty = LLVMTypeOf(a);
        if LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMVoidTypeKind {
            return a;
        }
        let p = LLVMBuildPhi(self.b, ty, c"".as_ptr());
        let (mut vals, mut blocks) = ([a, b], [fast_bb, slow_bb]);
        LLVMAddIncoming(p, vals.as_mut_ptr(), blocks.as_mut_ptr(), 2);
        p
    }

    /// Whether the lanes of pointer `ptr` address consecutive elements of
    /// `ty`. The test is made on the varying part of the address: the
    /// index of a GEP from a uniform base, less what it adds uniformly, so
    /// that it does not depend on values inside a loop (`clamp(x + dx, 0,
    /// w - 1) + y * w` is tested on the clamp, which LLVM then hoists).
    unsafe fn consecutive(&self, ptr: LLVMValueRef, ty: LLVMTypeRef) -> LLVMValueRef {
        use LLVMOpcode::*;
        let size = LLVMABISizeOfType(self.layout, ty);
        let (mut v, mut step) = (ptr, size);
        if !LLVMIsAGetElementPtrInst(ptr).is_null()
            && LLVMGetNumOperands(ptr) == 2
            && self.shape(LLVMGetOperand(ptr, 0)) == Shape::Uniform
            && LLVMABISizeOfType(self.layout, LLVMGetGEPSourceElementType(ptr)) == size
        {
            // A 32-bit index that wraps between lanes is out of range for
            // the scalar kernel too.
            (v, step) = (LLVMGetOperand(ptr, 1), 1);
            while is_instruction(v) {
                let u = |k| self.shape(LLVMGetOperand(v, k)) == Shape::Uniform;
                v = match LLVMGetInstructionOpcode(v) {
                    LLVMSExt | LLVMZExt => LLVMGetOperand(v, 0),
                    LLVMAdd if u(1) => LLVMGetOperand(v, 0),
                    LLVMAdd if u(0) => LLVMGetOperand(v, 1),
                    _ => break,
                };
            }
        }
        let lanes = self.vector_of(v);
        let i32t = LLVMInt32TypeInContext(self.ctx);
        let first = LLVMBuildExtractElement(self.b, lanes, LLVMConstInt(i32t, 0, 0), c"".as_ptr());
        let pointer = LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMTypeKind::LLVMPointerTypeKind;
        let int = if pointer {
            LLVMInt64TypeInContext(self.ctx)
        } else {
            LLVMTypeOf(v)
        };
        let mut steps: Vec<LLVMValueRef> = (0..self.width as u64)
            .map(|l| LLVMConstInt(int, l * step, 0))
            .collect();
        let steps = LLVMConstVector(steps.as_mut_ptr(), self.width);
        let want = if pointer {
            let mut idx = [steps];
            let i8t = LLVMInt8TypeInContext(self.ctx);
            LLVMBuildGEP2(
                self.b,
                i8t,
                self.splat(first),
                idx.as_mut_ptr(),
                1,
                c"".as_ptr(),
            )
        } else {
            LLVMBuildAdd(self.b, self.splat(first), steps, c"".as_ptr())
        };
        let eq = llvm_sys::LLVMIntPredicate::LLVMIntEQ;
        let same = LLVMBuildICmp(self.b, eq, lanes, want, c"".as_ptr());
        let mut args = [same];
        self.intrinsic("llvm.vector.reduce.and", &[LLVMTypeOf(same)], &mut args)
    }

    /// A mask of every element of every lane of a value of type `ty`.
    unsafe fn all_lanes(&self, ty: LLVMTypeRef) -> LLVMValueRef {
        let i1 = LLVMInt1TypeInContext(self.ctx);
        LLVMConstAllOnes(LLVMVectorType(i1, elements(ty) * self.width))
    }

    /// The address of each element a gather or scatter of `ty` through
    /// `ptr` reaches, lane after lane, and the alignment each of them has.
    unsafe fn element_ptrs(
        &self,
        ptr: LLVMValueRef,
        ty: LLVMTypeRef,
        align: u32,
    ) -> (LLVMValueRef, u32) {
        let ptrs = self.vector_of(ptr);
        if !is_vector(ty) {
            return (ptrs, align);
        }
        let k = elements(ty);
        let element = LLVMGetElementType(ty);
        let size = LLVMABISizeOfType(self.layout, element);
        let i64t = LLVMInt64TypeInContext(self.ctx);
        let mut offsets: Vec<LLVMValueRef> = (0..self.width)
            .flat_map(|_| (0..k as u64).map(|e| LLVMConstInt(i64t, e * size, 0)))
            .collect();
        let offsets = LLVMConstVector(offsets.as_mut_ptr(), offsets.len() as u32);
        let mut idx = [offsets];
        let p = LLVMBuildGEP2(
            self.b,
            LLVMInt8TypeInContext(self.ctx),
            self.spread(ptrs, k),
            idx.as_mut_ptr(),
            1,
            c"element".as_ptr(),
        );
        (p, align.min(size as u32))
    }

    unsafe fn set_param_align(&self, call: LLVMValueRef, param: u32, align: u32) {
        let kind = LLVMGetEnumAttributeKindForName(c"align".as_ptr(), 5);
        let a = LLVMCreateEnumAttribute(self.ctx, kind, align as u64);
        LLVMAddCallSiteAttribute(call, param + 1, a);
    }

    unsafe fn intrinsic(
        &self,
        name: &str,
        types: &[LLVMTypeRef],
        args: &mut [LLVMValueRef],
    ) -> LLVMValueRef {
        let id = LLVMLookupIntrinsicID(name.as_ptr() as *const _, name.len());
        let mut types = types.to_vec();
        let f = LLVMGetIntrinsicDeclaration(self.m, id, types.as_mut_ptr(), types.len());
        let fty = LLVMGlobalGetValueType(f);
        LLVMBuildCall2(
            self.b,
            fty,
            f,
            args.as_mut_ptr(),
            args.len() as u32,
            c"".as_ptr(),
        )
    }

    /// A varying call: a lane-wise intrinsic on vectors, a math builtin's
    /// vector variant, or the scalar builtin once per lane.
    unsafe fn call(&mut self, i: LLVMValueRef) -> Result<LLVMValueRef, String> {
        let f = llvm::called_function(i).ok_or("an indirect call")?;
        if compiler::printf::is_printf_call(i) {
            return Ok(self.printf(i));
        }
        let ty = LLVMTypeOf(i);
        let vt = self.vec_type(ty);
        let nargs = LLVMGetNumArgOperands(i);
        if let Some(intr) = intrinsic_name(f) {
            let scalar_args = lanewise(&intr).ok_or_else(|| format!("a call of {intr}"))?;
            let mut args: Vec<LLVMValueRef> = (0..nargs)
                .map(|k| {
                    let a = LLVMGetOperand(i, k);
                    if scalar_args.contains(&k) {
                        self.scalar_of(a)
                    } else {
                        self.vector_of(a)
                    }
                })
                .collect();
            // llvm.is.fpclass is named by its operand's type, the others
            // by their result's.
            let overload = if intr == "llvm.is.fpclass" {
                self.vec_type(LLVMTypeOf(LLVMGetOperand(i, 0)))
            } else {
                vt
            };
            let c = self.intrinsic(&intr, &[overload], &mut args);
            let name = llvm::name(i);
            LLVMSetValueName2(c, name.as_ptr() as *const _, name.len());
            copy_fast_math(i, c);
            return Ok(c);
        }
        let mut args: Vec<LLVMValueRef> = (0..nargs)
            .map(|k| self.vector_of(LLVMGetOperand(i, k)))
            .collect();
        if let Some(variant) = self.variant(f) {
            let fty = LLVMGlobalGetValueType(variant);
            let c = LLVMBuildCall2(self.b, fty, variant, args.as_mut_ptr(), nargs, c"".as_ptr());
            copy_fast_math(i, c);
            return Ok(c);
        }
        // No variant at this width: one call per lane.
        let i32t = LLVMInt32TypeInContext(self.ctx);
        let fty = LLVMGlobalGetValueType(f);
        let mut out = LLVMGetPoison(vt);
        for lane in 0..self.width {
            let l = LLVMConstInt(i32t, lane as u64, 0);
            let mut lane_args: Vec<LLVMValueRef> = args
                .iter()
                .map(|&a| LLVMBuildExtractElement(self.b, a, l, c"".as_ptr()))
                .collect();
            let c = LLVMBuildCall2(self.b, fty, f, lane_args.as_mut_ptr(), nargs, c"".as_ptr());
            LLVMSetInstructionCallConv(c, LLVMGetInstructionCallConv(i));
            out = LLVMBuildInsertElement(self.b, out, c, l, c"".as_ptr());
        }
        Ok(out)
    }

    /// The vector variant of math builtin `f` at this width, if the
    /// module has one.
    unsafe fn variant(&self, f: LLVMValueRef) -> Option<LLVMValueRef> {
        let key = vector_variants::ATTRIBUTE;
        let a = LLVMGetStringAttributeAtIndex(
            f,
            LLVMAttributeFunctionIndex,
            key.as_ptr() as *const _,
            key.len() as u32,
        );
        if a.is_null() {
            return None;
        }
        let mut len = 0;
        let p = LLVMGetStringAttributeValue(a, &mut len);
        let text =
            String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len as usize))
                .into_owned();
        let prefix = format!("_ZGV_LLVM_N{}v_", self.width);
        let mapping = text.split(',').find(|m| m.starts_with(&prefix))?;
        let name = mapping.split_once('(')?.1.strip_suffix(')')?;
        let v = LLVMGetNamedFunction(self.m, cstr(name).as_ptr());
        (!v.is_null()).then_some(v)
    }
}

unsafe fn copy_fast_math(from: LLVMValueRef, to: LLVMValueRef) {
    if !LLVMIsAInstruction(to).is_null()
        && LLVMCanValueUseFastMathFlags(from) != 0
        && LLVMCanValueUseFastMathFlags(to) != 0
    {
        LLVMSetFastMathFlags(to, LLVMGetFastMathFlags(from));
    }
}

/// The metadata of a memory access (TBAA, non-temporal hints) on its
/// vector form.
unsafe fn copy_metadata(from: LLVMValueRef, to: LLVMValueRef) {
    let mut n = 0;
    let entries = LLVMInstructionGetAllMetadataOtherThanDebugLoc(from, &mut n);
    for k in 0..n as u32 {
        let kind = LLVMValueMetadataEntriesGetKind(entries, k);
        let md = LLVMValueMetadataEntriesGetMetadata(entries, k);
        LLVMSetMetadata(
            to,
            kind,
            LLVMMetadataAsValue(LLVMGetTypeContext(LLVMTypeOf(to)), md),
        );
    }
    if !entries.is_null() {
        LLVMDisposeValueMetadataEntries(entries);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    use kernel_ir::test_support::HEAD;

    /// `c[lid] = sum over k < n of a[k] * b[k * 64 + lid]`.
    fn gemm_row() -> String {
        format!(
            "{HEAD}
define void @k(ptr %a, ptr %b, ptr %c, i32 %n) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc1, %loop ]
  %k64 = sext i32 %k to i64
  %pa = getelementptr float, ptr %a, i64 %k64
  %x = load float, ptr %pa, align 4
  %row = mul nsw i32 %k, 64
  %row64 = sext i32 %row to i64
  %at = add i64 %row64, %lid
  %pb = getelementptr float, ptr %b, i64 %at
  %y = load float, ptr %pb, align 4
  %acc1 = call float @llvm.fmuladd.f32(float %x, float %y, float %acc)
  %k1 = add nsw i32 %k, 1
  %more = icmp slt i32 %k1, %n
  br i1 %more, label %loop, label %out
out:
  %pc = getelementptr float, ptr %c, i64 %lid
  store float %acc1, ptr %pc, align 4
  ret void
}}"
        )
    }

    fn vectorize(ir: &Ir, width: u32) -> Result<LLVMValueRef, String> {
        unsafe { run(ir.m, ir.function("k"), width) }
    }

    /// The vector form of `@k` at `width`, as text, once the module with
    /// it verifies.
    fn vector_text(src: &str, width: u32) -> String {
        let ir = Ir::parse(src);
        vectorize(&ir, width).unwrap();
        unsafe { compiler::llvm::verify(ir.m).unwrap() };
        let text = ir.text();
        let at = text.find(&format!("define internal void @k.v{width}"));
        text[at.expect("no vector form")..].to_string()
    }

    #[test]
    fn a_uniform_loop_keeps_its_accumulator_in_a_vector() {
        let v = vector_text(&gemm_row(), 4);
        // The accumulator is a vector phi; the loop counter stays scalar.
        assert!(v.contains("phi <4 x float>"), "{v}");
        assert!(v.contains("phi i32"), "{v}");
        // a[k] is the same for every lane: one scalar load.
        assert!(v.contains("load float, ptr %pa"), "{v}");
        // b[k * 64 + lid] steps by one float per lane: one vector load.
        assert!(v.contains("load <4 x float>, ptr %pb"), "{v}");
        assert!(v.contains("@llvm.fmuladd.v4f32"), "{v}");
        assert!(v.contains("store <4 x float>"), "{v}");
        assert!(!v.contains("masked"), "{v}");
        // The lanes are work-items lid .. lid + 3.
        assert!(v.contains("<i64 0, i64 1, i64 2, i64 3>"), "{v}");
    }

    /// `for (i = lid; i < n; i += 64) sum += in[i]`, lanes leaving apart;
    /// `t`, computed from `i` in the loop's test, is stored after it when
    /// `t_outlives`.
    fn grid_stride_loop(t_outlives: bool) -> String {
        let (value, ty) = if t_outlives {
            ("%t", "i64")
        } else {
            ("%sum", "float")
        };
        format!(
            "{HEAD}
define void @k(ptr %in, ptr %out, i64 %n) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  br label %head
head:
  %i = phi i64 [ %lid, %entry ], [ %i1, %body ]
  %sum = phi float [ 0.0, %entry ], [ %sum1, %body ]
  %t = shl i64 %i, 1
  %more = icmp ult i64 %i, %n
  br i1 %more, label %body, label %done
body:
  %p = getelementptr float, ptr %in, i64 %i
  %x = load float, ptr %p, align 4
  %sum1 = fadd float %sum, %x
  %i1 = add i64 %i, 64
  br label %head
done:
  %q = getelementptr {ty}, ptr %out, i64 %lid
  store {ty} {value}, ptr %q, align 4
  ret void
}}"
        )
    }

    #[test]
    fn a_grid_stride_loop_reads_its_lanes_elements_as_one_masked_vector() {
        // `i` stays consecutive across the lanes, those that left too.
        let v = vector_text(&grid_stride_loop(false), 8);
        assert!(v.contains("@llvm.masked.load.v8f32"), "{v}");
        assert!(!v.contains("gather"), "{v}");
        assert!(!v.contains("select <8 x i1> %staying, <8 x i64>"), "{v}");
        // The sum, read after the loop, is each lane's own.
        assert!(v.contains("%kept = select <8 x i1>"), "{v}");
    }

    #[test]
    fn an_induction_whose_value_outlives_the_loop_is_kept_per_lane() {
        // `t`, computed from `i`, is read after the loop: a lane that left
        // must keep its own `i`.
        let v = vector_text(&grid_stride_loop(true), 8);
        assert!(v.contains("<8 x i64> %i1"), "{v}");
        assert!(v.contains("select <8 x i1> %staying, <8 x i64>"), "{v}");
    }

    #[test]
    fn a_guarded_store_to_one_place_stores_the_last_lane_taking_it() {
        // `if (lid == 0) partial[0] = x`, and a varying value stored there
        // by the lanes of `x > 0`.
        let v = vector_text(
            &format!(
                "{HEAD}
define void @k(ptr %p, ptr %out) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %pa = getelementptr float, ptr %p, i64 %lid
  %x = load float, ptr %pa, align 4
  %c = fcmp ogt float %x, 0.0
  br i1 %c, label %then, label %join
then:
  store float %x, ptr %out, align 4
  br label %join
join:
  ret void
}}"
            ),
            8,
        );
        assert!(v.contains("@llvm.ctlz.i8"), "{v}");
        assert!(v.contains("extractelement <8 x float>"), "{v}");
        assert!(v.contains("store float %last, ptr %out"), "{v}");
    }

    #[test]
    fn a_guarded_block_runs_for_its_lanes_when_any_takes_it() {
        let v = vector_text(
            &format!(
                "{HEAD}
@fmt = private addrspace(2) constant [4 x i8] c\"%f\\0A\\00\"
declare i32 @printf(ptr addrspace(2), ...)
define void @k(ptr %p, ptr %q) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %pa = getelementptr float, ptr %p, i64 %lid
  %x = load float, ptr %pa, align 4
  %c = fcmp olt float %x, 0.0
  br i1 %c, label %then, label %join
then:
  %pq = getelementptr float, ptr %q, i64 %lid
  %y = load float, ptr %pq, align 4
  %neg = fneg float %y
  store float %neg, ptr %pq, align 4
  %d = fpext float %y to double
  %r = call i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @fmt, double %d), !ferrocl.printf.id !0
  br label %join
join:
  %z = phi float [ %x, %entry ], [ %neg, %then ]
  store float %z, ptr %pa, align 4
  ret void
}}
!0 = !{{i32 0}}"
            ),
            4,
        );
        // The block runs if any lane's condition holds ...
        assert!(
            v.contains("@llvm.vector.reduce.or.v4i1(<4 x i1> %c)"),
            "{v}"
        );
        // ... its memory accesses for those lanes only ...
        assert!(v.contains("@llvm.masked.load.v4f32"), "{v}");
        assert!(v.contains("@llvm.masked.store.v4f32"), "{v}");
        // ... printf once per lane that takes it, in lane order ...
        assert_eq!(
            v.matches("call i32 (ptr addrspace(2), ...) @printf")
                .count(),
            4,
            "{v}"
        );
        assert_eq!(v.matches("!ferrocl.printf.id").count(), 4, "{v}");
        assert!(v.contains("extractelement <4 x i1> %c, i32 3"), "{v}");
        // ... and the join takes its value where the lane ran it.
        assert!(v.contains("select <4 x i1> %c, <4 x float>"), "{v}");
        assert!(v.contains("phi <4 x float>"), "{v}");
    }

    #[test]
    fn printf_in_a_loop_or_twice_is_declined() {
        let head = format!(
            "{HEAD}
@fmt = private addrspace(2) constant [4 x i8] c\"%d\\0A\\00\"
declare i32 @printf(ptr addrspace(2), ...)"
        );
        let twice = Ir::parse(&format!(
            "{head}
define void @k(ptr %p) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %a = call i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @fmt, i64 %lid)
  %b = call i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @fmt, i64 %lid)
  ret void
}}"
        ));
        let err = vectorize(&twice, 4).unwrap_err();
        assert!(err.contains("more than one printf"), "{err}");
        let looped = Ir::parse(&format!(
            "{head}
define void @k(ptr %p, i32 %n) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %a = call i32 (ptr addrspace(2), ...) @printf(ptr addrspace(2) @fmt, i64 %lid)
  %next = add i32 %i, 1
  %more = icmp slt i32 %next, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}}"
        ));
        let err = vectorize(&looped, 4).unwrap_err();
        assert!(err.contains("printf call in a loop"), "{err}");
    }

    #[test]
    fn a_generic_pointer_cast_from_a_contiguous_one_is_still_contiguous() {
        let v = vector_text(
            &format!(
                "{HEAD}
define void @k(ptr addrspace(1) %p, ptr addrspace(1) %o) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %g = addrspacecast ptr addrspace(1) %p to ptr addrspace(4)
  %q = getelementptr float, ptr addrspace(4) %g, i64 %lid
  %x = load float, ptr addrspace(4) %q, align 4
  %r = getelementptr float, ptr addrspace(1) %o, i64 %lid
  %rg = addrspacecast ptr addrspace(1) %r to ptr addrspace(4)
  store float %x, ptr addrspace(4) %rg, align 4
  ret void
}}"
            ),
            8,
        );
        assert!(v.contains("load <8 x float>, ptr addrspace(4)"), "{v}");
        assert!(v.contains("store <8 x float> "), "{v}");
        assert!(!v.contains("masked"), "{v}");
    }

    #[test]
    fn an_address_that_is_not_affine_is_a_gather_and_a_scatter() {
        let v = vector_text(
            &format!(
                "{HEAD}
define void @k(ptr %p) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %sq = mul i64 %lid, %lid
  %q = getelementptr float, ptr %p, i64 %sq
  %x = load float, ptr %q, align 4
  %three = mul i64 %lid, 3
  %r = getelementptr float, ptr %p, i64 %three
  store float %x, ptr %r, align 4
  ret void
}}"
            ),
            8,
        );
        assert!(v.contains("@llvm.masked.gather.v8f32"), "{v}");
        // A stride of 3 floats is not contiguous either.
        assert!(v.contains("@llvm.masked.scatter.v8f32"), "{v}");
        // Computed indices are tested for consecutive lanes at run time,
        // the gather kept for when they are not; a constant stride is not.
        assert_eq!(v.matches("@llvm.vector.reduce.and").count(), 2, "{v}");
        assert!(v.contains("load <8 x float>, ptr %first"), "{v}");
        assert!(!v.contains("store <8 x float>"), "{v}");
    }

    #[test]
    fn consecutive_lanes_are_tested_on_the_index_without_its_uniform_part() {
        let v = vector_text(
            &format!(
                "{HEAD}
declare i32 @llvm.smax.i32(i32, i32)
define void @k(ptr %p, ptr %q, i32 %row) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %x = trunc i64 %lid to i32
  %c = call i32 @llvm.smax.i32(i32 %x, i32 3)
  %i = add nsw i32 %c, %row
  %i64 = sext i32 %i to i64
  %pa = getelementptr float, ptr %p, i64 %i64
  %v = load float, ptr %pa, align 4
  %pq = getelementptr float, ptr %q, i64 %i64
  store float %v, ptr %pq, align 4
  ret void
}}"
            ),
            4,
        );
        // The clamped x itself is compared with x0 + <0, 1, 2, 3>.
        assert!(v.contains("icmp eq <4 x i32> %c"), "{v}");
        assert!(v.contains("<i32 0, i32 1, i32 2, i32 3>"), "{v}");
        assert!(v.contains("load <4 x float>, ptr %first"), "{v}");
        assert!(v.contains("store <4 x float>"), "{v}");
        assert!(v.contains("@llvm.masked.gather.v4f32"), "{v}");
        assert!(v.contains("@llvm.masked.scatter.v4f32"), "{v}");
    }

    #[test]
    fn a_branch_work_items_take_differently_is_declined() {
        let ir = Ir::parse(&format!(
            "{HEAD}
define void @k(ptr %p) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %odd = trunc i64 %lid to i1
  %q = getelementptr float, ptr %p, i64 %lid
  br i1 %odd, label %then, label %else
then:
  store float 1.0, ptr %q, align 4
  br label %out
else:
  store float 2.0, ptr %q, align 4
  br label %out
out:
  ret void
}}"
        ));
        let err = vectorize(&ir, 4).unwrap_err();
        assert!(err.contains("differently"), "{err}");
        // Nothing is left behind.
        assert!(!ir.text().contains("@k.v4"));
    }

    /// `n = 0; while (n < lid) { p[lid] += 1; n++ }; q[lid] = n`, with
    /// `extra` as a second exit.
    fn escape(extra: bool) -> String {
        let (test, more) = if extra {
            (
                "br i1 %go, label %check, label %out",
                "check:\n  %big = icmp ugt i64 %n, 100\n  br i1 %big, label %out, label %body",
            )
        } else {
            ("br i1 %go, label %body, label %out", "")
        };
        format!(
            "{HEAD}
define void @k(ptr %p, ptr %q) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  br label %head
head:
  %n = phi i64 [ 0, %entry ], [ %n1, %body ]
  %go = icmp ult i64 %n, %lid
  {test}
{more}
body:
  %at = getelementptr float, ptr %p, i64 %lid
  %x = load float, ptr %at, align 4
  %x1 = fadd float %x, 1.0
  store float %x1, ptr %at, align 4
  %n1 = add i64 %n, 1
  br label %head
out:
  %f = uitofp i64 %n to float
  %to = getelementptr float, ptr %q, i64 %lid
  store float %f, ptr %to, align 4
  ret void
}}"
        )
    }

    #[test]
    fn a_loop_left_on_a_varying_condition_runs_under_a_mask() {
        let v = vector_text(&escape(false), 4);
        // The counter differs from lane to lane once lanes leave.
        assert!(v.contains("phi <4 x i64>"), "{v}");
        assert!(v.contains("%active = phi <4 x i1>"), "{v}");
        // The loop goes round while any lane stays; a lane that left keeps
        // its count.
        assert!(v.contains("@llvm.vector.reduce.or.v4i1"), "{v}");
        assert!(v.contains("%kept = select <4 x i1> %staying"), "{v}");
        // Only the lanes that stayed read and write p.
        assert!(v.contains("@llvm.masked.load.v4f32"), "{v}");
        assert!(v.contains("@llvm.masked.store.v4f32"), "{v}");
        // After the loop every lane stores its own count.
        assert!(v.contains("store <4 x float>"), "{v}");
    }

    #[test]
    fn a_divergent_loop_with_two_exits_is_declined() {
        let ir = Ir::parse(&escape(true));
        let err = vectorize(&ir, 4).unwrap_err();
        assert!(err.contains("several places"), "{err}");
    }

    #[test]
    fn vector_values_are_held_lane_after_lane() {
        let v = vector_text(
            &format!(
                "{HEAD}
define void @k(ptr %p, ptr %q, i1 %u) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %pa = getelementptr <4 x float>, ptr %p, i64 %lid
  %v = load <4 x float>, ptr %pa, align 16
  %s = shufflevector <4 x float> %v, <4 x float> poison, <4 x i32> <i32 3, i32 2, i32 1, i32 0>
  %x = extractelement <4 x float> %v, i64 1
  %y = fmul float %x, 2.0
  %w = insertelement <4 x float> %s, float %y, i64 0
  %odd = trunc i64 %lid to i1
  %z = select i1 %odd, <4 x float> %w, <4 x float> <float 1.0, float 2.0, float 3.0, float 4.0>
  %pq = getelementptr <4 x float>, ptr %q, i64 %lid
  store <4 x float> %z, ptr %pq, align 16
  ret void
}}"
            ),
            2,
        );
        // Two work-items' float4s are one contiguous <8 x float>.
        assert!(v.contains("load <8 x float>, ptr %pa"), "{v}");
        assert!(v.contains("store <8 x float>"), "{v}");
        // A swizzle reorders within each lane.
        assert!(
            v.contains("<8 x i32> <i32 3, i32 2, i32 1, i32 0, i32 7, i32 6, i32 5, i32 4>"),
            "{v}"
        );
        // Element 1 of each lane is a vector of two scalars.
        assert!(v.contains("<2 x i32> <i32 1, i32 5>"), "{v}");
        assert!(v.contains("fmul <2 x float>"), "{v}");
        // The scalar goes into element 0 of each lane.
        assert!(
            v.contains("<8 x i32> <i32 8, i32 1, i32 2, i32 3, i32 12, i32 5, i32 6, i32 7>"),
            "{v}"
        );
        // A work-item's condition chooses all four of its elements, and
        // the constant is the same in every lane.
        assert!(v.contains("select <8 x i1>"), "{v}");
        assert!(
            v.contains("<float 1.000000e+00, float 2.000000e+00, float 3.000000e+00, float 4.000000e+00, float 1.000000e+00"),
            "{v}"
        );
        assert!(!v.contains("gather") && !v.contains("scatter"), "{v}");
    }

    #[test]
    fn vectors_at_other_strides_are_gathered_element_by_element() {
        let v = vector_text(
            &format!(
                "{HEAD}
define void @k(ptr %p) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %two = mul i64 %lid, 2
  %pa = getelementptr <2 x double>, ptr %p, i64 %two
  %v = load <2 x double>, ptr %pa, align 16
  %d = fadd <2 x double> %v, %v
  store <2 x double> %d, ptr %pa, align 16
  ret void
}}"
            ),
            4,
        );
        // Each lane's pointer, once per element, plus the element's offset.
        assert!(
            v.contains("<i64 0, i64 8, i64 0, i64 8, i64 0, i64 8, i64 0, i64 8>"),
            "{v}"
        );
        assert!(v.contains("@llvm.masked.gather.v8f64"), "{v}");
        assert!(v.contains("fadd <8 x double>"), "{v}");
        assert!(v.contains("@llvm.masked.scatter.v8f64"), "{v}");
    }

    #[test]
    fn a_class_test_widens_on_its_operand() {
        let v = vector_text(
            &format!(
                "{HEAD}
declare i1 @llvm.is.fpclass.f64(double, i32)
define void @k(ptr %p, ptr %q) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %pa = getelementptr double, ptr %p, i64 %lid
  %x = load double, ptr %pa, align 8
  %nan = call i1 @llvm.is.fpclass.f64(double %x, i32 3)
  %r = select i1 %nan, double 0.0, double %x
  store double %r, ptr %pa, align 8
  ret void
}}"
            ),
            8,
        );
        assert!(
            v.contains("<8 x i1> @llvm.is.fpclass.v8f64(<8 x double>"),
            "{v}"
        );
    }

    #[test]
    fn private_arrays_are_declined() {
        let ir = Ir::parse(&format!(
            "{HEAD}
define void @k(ptr %p) {{
entry:
  %arr = alloca [4 x float], align 4
  %lid = call i64 @__mux_get_local_id(i32 0)
  %i = and i64 %lid, 3
  %q = getelementptr [4 x float], ptr %arr, i64 0, i64 %i
  store float 1.0, ptr %q, align 4
  ret void
}}"
        ));
        let err = vectorize(&ir, 4).unwrap_err();
        assert!(err.contains("alloca"), "{err}");
    }

    /// The column loop of a matrix product as a code generator's loop
    /// strength reduction leaves it (LLVM's SPIR-V back end does): the
    /// index sign-extended by shifts, the address a pointer induction.
    fn gemm_column_reduced() -> String {
        format!(
            "{HEAD}
define void @k(ptr %b, ptr %c, i64 %n) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %hi = shl i64 %lid, 32
  %off = ashr exact i64 %hi, 30
  %p0 = getelementptr i8, ptr %b, i64 %off
  %step = shl i64 %n, 2
  br label %loop
loop:
  %left = phi i64 [ %n, %entry ], [ %left1, %loop ]
  %p = phi ptr [ %p0, %entry ], [ %p1, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc1, %loop ]
  %y = load float, ptr %p, align 4
  %acc1 = fadd float %acc, %y
  %p1 = getelementptr i8, ptr %p, i64 %step
  %left1 = add i64 %left, -1
  %done = icmp eq i64 %left1, 0
  br i1 %done, label %out, label %loop
out:
  %pc = getelementptr float, ptr %c, i64 %lid
  store float %acc1, ptr %pc, align 4
  ret void
}}"
        )
    }

    #[test]
    fn shifts_and_pointer_inductions_stay_affine() {
        let ir = Ir::parse(&gemm_column_reduced());
        let insts: Vec<LLVMValueRef> = unsafe { llvm::instructions(ir.function("k")) };
        let shapes = unsafe { shapes(ir.m, &insts, &HashSet::new(), None).unwrap() };
        let named = |n: &str| unsafe {
            let i = insts.iter().copied().find(|&i| llvm::name(i) == n).unwrap();
            shape_of(i, &shapes)
        };
        assert_eq!(named("hi"), Shape::Affine(1 << 32));
        assert_eq!(named("off"), Shape::Affine(4));
        assert_eq!(named("p"), Shape::Affine(4));
        assert_eq!(named("p1"), Shape::Affine(4));
        // Each lane's column is one vector load, with no test at run time.
        let v = vector_text(&gemm_column_reduced(), 8);
        assert!(v.contains("load <8 x float>, ptr"), "{v}");
        assert!(!v.contains("gather") && !v.contains("consecutive"), "{v}");
    }

    #[test]
    fn a_right_shift_that_splits_lanes_is_varying() {
        // `(lid << 62) >> 60` is a 2-bit field: lanes 0..3 are 0, 4, -8, -4.
        let ir = Ir::parse(&format!(
            "{HEAD}
define void @k(ptr %c) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %hi = shl i64 %lid, 62
  %f = ashr i64 %hi, 60
  %pc = getelementptr i8, ptr %c, i64 %f
  store float 1.0, ptr %pc, align 4
  ret void
}}"
        ));
        let insts: Vec<LLVMValueRef> = unsafe { llvm::instructions(ir.function("k")) };
        let shapes = unsafe { shapes(ir.m, &insts, &HashSet::new(), None).unwrap() };
        let f = insts
            .iter()
            .copied()
            .find(|&i| unsafe { llvm::name(i) } == "f")
            .unwrap();
        assert_eq!(unsafe { shape_of(f, &shapes) }, Shape::Varying);
    }

    /// A region function (`crate::barriers`): the work-item's slot in the
    /// storage block at its linear id, and the barrier reached returned.
    fn region_function(ret: &str) -> String {
        format!(
            "{HEAD}
define i32 @k(ptr %out, i32 %region, ptr %storage, i64 %linear_id, ptr %staged) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %slot = getelementptr float, ptr %storage, i64 %linear_id
  %x = load float, ptr %slot, align 4
  %y = fadd float %x, 1.0
  %p = getelementptr float, ptr %out, i64 %lid
  store float %y, ptr %p, align 4
  {ret}
}}"
        )
    }

    #[test]
    fn a_region_reads_its_lanes_slots_as_one_vector_and_returns_the_barrier_reached() {
        let ir = Ir::parse(&region_function("ret i32 1"));
        let v = unsafe { run_regions(ir.m, ir.function("k"), 8, 3) }.unwrap();
        unsafe { compiler::llvm::verify(ir.m).unwrap() };
        assert_eq!(unsafe { llvm::name(v) }, "k.v8");
        let text = ir.text();
        let text = &text[text.find("define internal i32 @k.v8").unwrap()..];
        assert!(text.contains("load <8 x float>, ptr %slot"), "{text}");
        assert!(text.contains("store <8 x float>"), "{text}");
        assert!(text.contains("ret i32 1"), "{text}");
    }

    #[test]
    fn a_region_whose_lanes_would_return_apart_is_declined() {
        let ir = Ir::parse(&region_function("%r = trunc i64 %lid to i32\n  ret i32 %r"));
        let err = unsafe { run_regions(ir.m, ir.function("k"), 8, 3) }.unwrap_err();
        assert!(err.contains("returned value"), "{err}");
    }

    #[test]
    fn shapes_follow_strides_through_arithmetic_and_casts() {
        let ir = Ir::parse(&gemm_row());
        let insts: Vec<LLVMValueRef> = unsafe { llvm::instructions(ir.function("k")) };
        let shapes = unsafe { shapes(ir.m, &insts, &HashSet::new(), None).unwrap() };
        let named = |n: &str| unsafe {
            let i = insts.iter().copied().find(|&i| llvm::name(i) == n).unwrap();
            shape_of(i, &shapes)
        };
        assert_eq!(named("lid"), Shape::Affine(1));
        assert_eq!(named("k"), Shape::Uniform);
        assert_eq!(named("at"), Shape::Affine(1));
        // Pointers step in bytes.
        assert_eq!(named("pb"), Shape::Affine(4));
        assert_eq!(named("pa"), Shape::Uniform);
        assert_eq!(named("x"), Shape::Uniform);
        assert_eq!(named("acc"), Shape::Varying);
    }
}
