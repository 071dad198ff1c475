//! A guard that lets in the work-items whose consecutive id is below a
//! bound (`if (gid < n) { .. }`, a loop's `if (i * size + lid < n)`) runs
//! its part, in the vector form, under a mask of the lanes it lets in:
//! every access masked, every value it joins chosen lane by lane. In all
//! work-groups but the last, every work-item passes. So, before the vector
//! form is made, such a guard is preceded by a test of the group's last
//! work-item (`x - lid + (local size - 1) < n`, the same in every lane):
//! where it passes, a copy of the guarded part runs with no guard and no
//! masks; otherwise the guard runs as before.

use crate::analysis::divergence::{guarded_blocks, Guard};
use crate::analysis::shape::Shape;
use crate::group_loops::{compare, group_last_passes, id_functions, meets_others};
use compiler::llvm::{self, cstr};
use kernel_ir::cfg::{copy_blocks, incoming, phis, replace_phi, Cfg};
use kernel_ir::loops::natural_loops;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMIntPredicate;
use std::collections::{HashMap, HashSet};

/// The most instructions a guarded part may have to be copied: past it,
/// the copy costs more in code than the masks it saves.
const MOST_COPIED: usize = 400;

/// A guard to split: the test of its block and what it lets in.
struct Candidate {
    guard: LLVMBasicBlockRef,
    /// The guarded part: its first block, its blocks, and the one that
    /// goes on to `merge`.
    block: LLVMBasicBlockRef,
    region: Vec<LLVMBasicBlockRef>,
    exit: LLVMBasicBlockRef,
    merge: LLVMBasicBlockRef,
    /// The else part's block that goes on to `merge`, if there is one.
    other_exit: Option<LLVMBasicBlockRef>,
    /// Work-items enter the part while `x pred bound` ...
    x: LLVMValueRef,
    bound: LLVMValueRef,
    pred: LLVMIntPredicate,
    /// ... and, where the guard's test is `test && also` (`and`, or a
    /// `select` of false), a condition the same for every work-item: the
    /// test (`&&`) and the position of the compare in it.
    also: Option<(LLVMValueRef, u32)>,
}

/// Splits the first guard of `kernel` that lets in work-items by a test of
/// a value stepping by one from lane to lane against a bound (by `shapes`,
/// the kernel's as it is) and is not in `done`; returns whether it split
/// one, adding the blocks not to look at again to `done`.
///
/// # Safety
/// `kernel` must be a function of live module `m`, its loops closed
/// (`kernel_ir::lcssa`), `shapes` its shapes.
pub(crate) unsafe fn split_one(
    m: LLVMModuleRef,
    kernel: LLVMValueRef,
    shapes: &HashMap<LLVMValueRef, Shape>,
    done: &mut HashSet<LLVMBasicBlockRef>,
) -> bool {
    let Some(ids) = id_functions(m) else {
        return false;
    };
    let cfg = Cfg::of(kernel);
    let loops = natural_loops(&cfg);
    let guards = guarded_blocks(&cfg, shapes, &loops);
    let Some(c) = guards
        .iter()
        .filter(|g| !done.contains(&g.guard))
        .find_map(|g| candidate(g, shapes))
    else {
        return false;
    };
    done.insert(c.guard);
    let made = split(m, &c, ids);
    done.extend(made);
    done.extend(c.region.iter().copied());
    true
}

unsafe fn candidate(g: &Guard, shapes: &HashMap<LLVMValueRef, Shape>) -> Option<Candidate> {
    use LLVMIntPredicate::*;
    let t = LLVMGetBasicBlockTerminator(g.guard);
    let test = LLVMGetCondition(t);
    let (test, also) = match conjunction(test, shapes) {
        Some((compare, at)) if g.on_true => (compare, Some((test, at))),
        Some(_) => return None,
        None => (test, None),
    };
    if LLVMIsAICmpInst(test).is_null() {
        return None;
    }
    let (x, bound, pred) = compare(test, shapes)?;
    let pred = if g.on_true {
        pred
    } else {
        kernel_ir::compare::inverse(pred)
    };
    if !matches!(pred, LLVMIntSLT | LLVMIntSLE | LLVMIntULT | LLVMIntULE)
        || LLVMGetTypeKind(LLVMTypeOf(x)) != llvm_sys::LLVMTypeKind::LLVMIntegerTypeKind
    {
        return None;
    }
    let mut size = 0;
    for &bb in &g.region {
        for i in llvm::block_instructions(bb) {
            size += 1;
            // Work-items meet at a collective by where it is: in the copy
            // for some and in the guarded part for others, they would not.
            if llvm::called_function(i).is_some_and(|f| meets_others(f)) {
                return None;
            }
            // What the part hands on goes through the phis of `merge`
            // alone, which the copy then feeds too.
            let mut u = LLVMGetFirstUse(i);
            while !u.is_null() {
                let user = LLVMGetUser(u);
                u = LLVMGetNextUse(u);
                let at = LLVMGetInstructionParent(user);
                let merge_phi = at == g.merge && !LLVMIsAPHINode(user).is_null();
                if !g.region.contains(&at) && !merge_phi {
                    return None;
                }
            }
        }
    }
    if size > MOST_COPIED {
        return None;
    }
    // In block order, so that the copies are too.
    let mut region: Vec<_> = g.region.iter().copied().collect();
    let order: HashMap<_, _> = kernel_ir::cfg::blocks(LLVMGetBasicBlockParent(g.guard))
        .into_iter()
        .enumerate()
        .map(|(k, bb)| (bb, k))
        .collect();
    region.sort_by_key(|bb| order[bb]);
    Some(Candidate {
        guard: g.guard,
        block: g.block,
        region,
        exit: g.exit,
        merge: g.merge,
        other_exit: g.other_exit,
        x,
        bound,
        pred,
        also,
    })
}

/// For `a && b` (`and i1`, or `select i1 a, i1 b, i1 false`) where one of
/// the two is a compare and the other is the same for every work-item:
/// the compare and its operand position.
unsafe fn conjunction(
    test: LLVMValueRef,
    shapes: &HashMap<LLVMValueRef, Shape>,
) -> Option<(LLVMValueRef, u32)> {
    use llvm_sys::LLVMOpcode::*;
    if LLVMIsAInstruction(test).is_null() {
        return None;
    }
    let both = match LLVMGetInstructionOpcode(test) {
        LLVMAnd => true,
        LLVMSelect => {
            let f = LLVMGetOperand(test, 2);
            !LLVMIsAConstantInt(f).is_null() && LLVMConstIntGetZExtValue(f) == 0
        }
        _ => false,
    };
    if !both || LLVMGetIntTypeWidth(LLVMTypeOf(test)) != 1 {
        return None;
    }
    let uniform = |v| crate::analysis::shape::shape_of(v, shapes) == Shape::Uniform;
    let (a, b) = (LLVMGetOperand(test, 0), LLVMGetOperand(test, 1));
    match (LLVMIsAICmpInst(a).is_null(), LLVMIsAICmpInst(b).is_null()) {
        (false, _) if uniform(b) => Some((a, 0)),
        (_, false) if uniform(a) => Some((b, 1)),
        _ => None,
    }
}

/// Splits guard `c`: the guard's block tests the group's last work-item
/// and goes to a copy of the part where it passes, to a new block with the
/// guard's own branch where not. Returns the blocks made.
unsafe fn split(
    m: LLVMModuleRef,
    c: &Candidate,
    ids: (LLVMValueRef, LLVMValueRef),
) -> Vec<LLVMBasicBlockRef> {
    let ctx = LLVMGetModuleContext(m);
    let b = LLVMCreateBuilderInContext(ctx);
    let copies = copy_blocks(&c.region, c.block, ".all", Some(".all"));
    for &x in &c.region {
        for phi in phis(x) {
            let (mut vs, mut bs): (Vec<_>, Vec<_>) = incoming(phi)
                .into_iter()
                .map(|(v, from)| (copies.of(v), *copies.blocks.get(&from).unwrap_or(&from)))
                .unzip();
            LLVMAddIncoming(
                copies.values[&phi],
                vs.as_mut_ptr(),
                bs.as_mut_ptr(),
                vs.len() as u32,
            );
        }
    }
    // The guard's own branch moves to a block of its own.
    let t = LLVMGetBasicBlockTerminator(c.guard);
    let name = cstr(&format!(
        "{}.some",
        llvm::name(LLVMBasicBlockAsValue(c.guard))
    ));
    let some = LLVMInsertBasicBlockInContext(ctx, c.block, name.as_ptr());
    LLVMPositionBuilderAtEnd(b, some);
    LLVMBuildCondBr(
        b,
        LLVMGetCondition(t),
        LLVMGetSuccessor(t, 0),
        LLVMGetSuccessor(t, 1),
    );
    LLVMPositionBuilderBefore(b, t);
    let mut all = group_last_passes(b, ids, c.x, c.pred, c.bound);
    if let Some((test, at)) = c.also {
        // The same `&&`, the group's test in the compare's place.
        let copy = LLVMInstructionClone(test);
        LLVMInsertIntoBuilderWithName(b, copy, c"all.pass".as_ptr());
        LLVMSetOperand(copy, at, all);
        all = copy;
    }
    LLVMInstructionEraseFromParent(t);
    LLVMPositionBuilderAtEnd(b, c.guard);
    LLVMBuildCondBr(b, all, copies.blocks[&c.block], some);
    // The guard's successors are now reached from `some`.
    let mut seen = HashSet::new();
    for s in kernel_ir::cfg::successors(some) {
        if seen.insert(s) {
            for phi in phis(s) {
                kernel_ir::cfg::retarget_phi(b, phi, c.guard, some);
            }
        }
    }
    // The guard's way and the copy's meet at `merge`: the guard's own
    // first, in a block of their own, so that its parts stay a region
    // left from one block to where the guard skips to.
    let name = cstr(&format!(
        "{}.some",
        llvm::name(LLVMBasicBlockAsValue(c.merge))
    ));
    let joined = LLVMInsertBasicBlockInContext(ctx, c.merge, name.as_ptr());
    let ways: Vec<_> = [Some(some), Some(c.exit), c.other_exit]
        .into_iter()
        .flatten()
        .filter(|&w| kernel_ir::cfg::successors(w).contains(&c.merge))
        .collect();
    for &w in &ways {
        let t = LLVMGetBasicBlockTerminator(w);
        for k in 0..LLVMGetNumSuccessors(t) {
            if LLVMGetSuccessor(t, k) == c.merge {
                LLVMSetSuccessor(t, k, joined);
            }
        }
    }
    let exit_copy = copies.blocks[&c.exit];
    for phi in phis(c.merge) {
        let (theirs, others): (Vec<_>, Vec<_>) = incoming(phi)
            .into_iter()
            .partition(|(_, from)| ways.contains(from));
        LLVMPositionBuilderAtEnd(b, joined);
        let inner = kernel_ir::cfg::build_phi(b, LLVMTypeOf(phi), &theirs);
        let mut now = others;
        now.push((inner, joined));
        if let Some(&(v, _)) = theirs.iter().find(|(_, from)| *from == c.exit) {
            now.push((copies.of(v), exit_copy));
        }
        replace_phi(b, phi, &now);
    }
    LLVMPositionBuilderAtEnd(b, joined);
    LLVMBuildBr(b, c.merge);
    LLVMDisposeBuilder(b);
    let mut made: Vec<_> = copies.blocks.values().copied().collect();
    made.extend([some, joined]);
    made
}
