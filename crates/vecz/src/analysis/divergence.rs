//! Where lanes part: a block only some lanes run (a guarded block: `if
//! (c) { .. }` without an else, `c` varying, in a loop or not; the arms of
//! an if/else; a region of blocks under such a guard) and a loop
//! work-items leave at different iterations (a divergent loop), found on
//! the shapes of their conditions.

use crate::analysis::shape::{shape_of, Shape};
use kernel_ir::cfg::Cfg;
use kernel_ir::loops::Loop;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;
use std::collections::{HashMap, HashSet};

/// A block only some lanes run (`if (c) { .. }`, `c` varying; in a loop
/// lanes leave apart, of the lanes still in it): the vector form runs it
/// when any lane's `c` holds, its memory accesses and `printf` for those
/// lanes alone, and a value it joins with its guard's is chosen lane by
/// lane. With an else part (`if (c) { .. } else { .. }`), the else part
/// runs after it, for the other lanes, when any takes it. Each part is a
/// block or a region of blocks entered from the guard alone and left from
/// one block to where the guard skips to, or where the parts meet (`if
/// (gid >= n) return;` before a loop, an `if` around a loop or another
/// `if`): its blocks run for the lanes of the guard, its inner guards and
/// loops for some of those.
pub(crate) struct Guard {
    /// The block ending in the varying branch.
    pub(crate) guard: LLVMBasicBlockRef,
    /// The block some lanes run, whose only predecessor is `guard`.
    pub(crate) block: LLVMBasicBlockRef,
    /// Where both go on.
    pub(crate) merge: LLVMBasicBlockRef,
    /// Whether `block` is taken where the condition is true.
    pub(crate) on_true: bool,
    /// The block the other lanes enter, if the guard is an if/else: it is
    /// reached from outside its part from `guard` alone, and the two parts
    /// alone reach `merge`.
    pub(crate) other: Option<LLVMBasicBlockRef>,
    /// The block of the guarded part that goes on to `merge`: `block`
    /// itself, or a region's last.
    pub(crate) exit: LLVMBasicBlockRef,
    /// The else part's block that goes on to `merge`.
    pub(crate) other_exit: Option<LLVMBasicBlockRef>,
    /// The blocks of the guarded part.
    pub(crate) region: HashSet<LLVMBasicBlockRef>,
    /// The blocks of the else part (none without one).
    pub(crate) other_region: HashSet<LLVMBasicBlockRef>,
}

impl Guard {
    /// Whether `b` is a block of the guard's that only some lanes run.
    pub(crate) fn runs(&self, b: LLVMBasicBlockRef) -> bool {
        self.region.contains(&b) || self.other_region.contains(&b)
    }
}

/// The guarded blocks of the kernel, given the shapes so far.
pub(crate) unsafe fn guarded_blocks(
    cfg: &Cfg,
    shapes: &HashMap<LLVMValueRef, Shape>,
    loops: &[Loop],
) -> Vec<Guard> {
    // Inside loops, the guard, its block and where they meet are of the
    // same loops, and they meet before the loop goes round: the loop's
    // own branches (its exits and latches) are not guards.
    let same_loops = |a: usize, b: usize| {
        loops.iter().all(|l| {
            l.body.contains(&a) == l.body.contains(&b) && !(l.body.contains(&a) && b == l.header)
        })
    };
    let mut out = Vec::new();
    for (g, &bb) in cfg.blocks.iter().enumerate() {
        let t = LLVMGetBasicBlockTerminator(bb);
        if LLVMGetInstructionOpcode(t) != LLVMOpcode::LLVMBr
            || LLVMIsConditional(t) == 0
            || !branch_varies(bb, shapes)
        {
            continue;
        }
        let (s0, s1) = (LLVMGetSuccessor(t, 0), LLVMGetSuccessor(t, 1));
        // The block `block` goes on to, if it is reached from the guard
        // alone, of the guard's loops, and ends in a plain branch.
        let arm = |block: LLVMBasicBlockRef| {
            let b = cfg.index[&block];
            let end = LLVMGetBasicBlockTerminator(block);
            (cfg.preds[b] == [g]
                && same_loops(g, b)
                && LLVMGetInstructionOpcode(end) == LLVMOpcode::LLVMBr
                && LLVMIsConditional(end) == 0)
                .then(|| LLVMGetSuccessor(end, 0))
        };
        let triangle = [(s0, s1, true), (s1, s0, false)]
            .into_iter()
            .find(|&(block, merge, _)| {
                arm(block) == Some(merge) && same_loops(g, cfg.index[&merge])
            });
        if let Some((block, merge, on_true)) = triangle {
            out.push(Guard {
                guard: bb,
                block,
                merge,
                on_true,
                other: None,
                exit: block,
                other_exit: None,
                region: HashSet::from([block]),
                other_region: HashSet::new(),
            });
            continue;
        }
        if let Some(guard) = region_guard(cfg, g, loops, &same_loops) {
            out.push(guard);
            continue;
        }
        if let Some(guard) = if_else(cfg, g, loops, &same_loops) {
            out.push(guard);
        }
    }
    out
}

/// The part of guard `g` entered at its successor `entry`: the blocks
/// `entry` dominates, entered from outside them from `g` alone (`entry`
/// may head a loop), left only to `merge` and from one block alone, by a
/// plain branch (returned with them); a loop reaching into them lies
/// wholly inside, or around `g` and all of them.
unsafe fn part(
    cfg: &Cfg,
    g: usize,
    entry: usize,
    merge: usize,
    loops: &[Loop],
) -> Option<(Vec<usize>, usize)> {
    let (e, m) = (entry, merge);
    if e == m {
        return None;
    }
    let region: Vec<usize> = (0..cfg.blocks.len()).filter(|&b| cfg.dom[b][e]).collect();
    let from_outside: Vec<usize> = cfg.preds[e]
        .iter()
        .copied()
        .filter(|p| !region.contains(p))
        .collect();
    if from_outside != [g] || region.contains(&m) || region.contains(&g) {
        return None;
    }
    let leaves_only_to_merge = region
        .iter()
        .all(|&b| cfg.succs[b].iter().all(|s| *s == m || region.contains(s)));
    let exits: Vec<usize> = region
        .iter()
        .copied()
        .filter(|&b| cfg.succs[b].contains(&m))
        .collect();
    let [x] = exits[..] else { return None };
    let end = LLVMGetBasicBlockTerminator(cfg.blocks[x]);
    let plain = LLVMGetInstructionOpcode(end) == LLVMOpcode::LLVMBr && LLVMIsConditional(end) == 0;
    let loops_inside = loops.iter().all(|l| {
        if l.body.contains(&g) {
            region.iter().all(|b| l.body.contains(b))
        } else {
            !l.body.iter().any(|b| region.contains(b)) || l.body.iter().all(|b| region.contains(b))
        }
    });
    (leaves_only_to_merge && plain && loops_inside).then_some((region, x))
}

/// Whether block `m`'s predecessors are `a` and `b`, each once.
fn reached_from_alone(cfg: &Cfg, m: usize, a: usize, b: usize) -> bool {
    let mut preds = cfg.preds[m].clone();
    preds.sort_unstable();
    let mut want = vec![a, b];
    want.sort_unstable();
    preds == want
}

/// The blocks of `part`, as the kernel's.
unsafe fn blocks_of(cfg: &Cfg, part: &[usize]) -> HashSet<LLVMBasicBlockRef> {
    part.iter().map(|&b| cfg.blocks[b]).collect()
}

/// The if/else of block `g`: both successors enter parts that go on to one
/// block, reached from their exits alone.
unsafe fn if_else(
    cfg: &Cfg,
    g: usize,
    loops: &[Loop],
    same_loops: &dyn Fn(usize, usize) -> bool,
) -> Option<Guard> {
    let t = LLVMGetBasicBlockTerminator(cfg.blocks[g]);
    let (s0, s1) = (
        cfg.index[&LLVMGetSuccessor(t, 0)],
        cfg.index[&LLVMGetSuccessor(t, 1)],
    );
    // Where the then part goes on to: the one block outside it it reaches.
    let dominated: Vec<usize> = (0..cfg.blocks.len()).filter(|&b| cfg.dom[b][s0]).collect();
    let outside: Vec<usize> = dominated
        .iter()
        .flat_map(|&b| cfg.succs[b].iter().copied())
        .filter(|s| !dominated.contains(s))
        .collect();
    let &m = outside.first()?;
    if s0 == s1 || m == g || !same_loops(g, m) {
        return None;
    }
    let (then_part, x0) = part(cfg, g, s0, m, loops)?;
    let (else_part, x1) = part(cfg, g, s1, m, loops)?;
    reached_from_alone(cfg, m, x0, x1).then(|| Guard {
        guard: cfg.blocks[g],
        block: cfg.blocks[s0],
        merge: cfg.blocks[m],
        on_true: true,
        other: Some(cfg.blocks[s1]),
        exit: cfg.blocks[x0],
        other_exit: Some(cfg.blocks[x1]),
        region: blocks_of(cfg, &then_part),
        other_region: blocks_of(cfg, &else_part),
    })
}

/// The guard of block `g` (ending in a varying conditional branch) over the
/// part one successor enters (see `part`), left to the other successor,
/// which is reached from `g` and the part's exit alone.
unsafe fn region_guard(
    cfg: &Cfg,
    g: usize,
    loops: &[Loop],
    same_loops: &dyn Fn(usize, usize) -> bool,
) -> Option<Guard> {
    let t = LLVMGetBasicBlockTerminator(cfg.blocks[g]);
    let (s0, s1) = (LLVMGetSuccessor(t, 0), LLVMGetSuccessor(t, 1));
    for (entry, merge, on_true) in [(s0, s1, true), (s1, s0, false)] {
        let (e, m) = (cfg.index[&entry], cfg.index[&merge]);
        if !same_loops(g, m) {
            continue;
        }
        let Some((region, x)) = part(cfg, g, e, m, loops) else {
            continue;
        };
        if reached_from_alone(cfg, m, g, x) {
            return Some(Guard {
                guard: cfg.blocks[g],
                block: entry,
                merge,
                on_true,
                other: None,
                exit: cfg.blocks[x],
                other_exit: None,
                region: blocks_of(cfg, &region),
                other_region: HashSet::new(),
            });
        }
    }
    None
}

/// A loop that work-items leave at different iterations.
pub(crate) struct DivergentLoop {
    pub(crate) header: LLVMBasicBlockRef,
    pub(crate) latch: LLVMBasicBlockRef,
    /// The one block that branches out of the loop, on a varying condition.
    pub(crate) exiting: LLVMBasicBlockRef,
    pub(crate) body: HashSet<LLVMBasicBlockRef>,
    /// The blocks of an iteration after the exit test (those it
    /// dominates): only the lanes that stayed run them.
    pub(crate) tail: HashSet<LLVMBasicBlockRef>,
    /// Values read after the loop that a lane that left would not compute
    /// again as it did (`kept_after_leaving`).
    pub(crate) kept_outs: Vec<LLVMValueRef>,
}

/// The values of loop `l` (body block indices of `cfg`) read after it that
/// come from a phi other than the header's, such as where an iteration
/// left from (a phi `loop_exits` makes), or from one of the header's that
/// steps every lane on (a counter stepped by a uniform amount, which stays
/// a scalar in the loop). A lane that left does not run the paths that
/// set the first again, and does step the second, so its value is kept
/// from the iteration it left in. (Whatever else it reads after the loop
/// it computes again from the header's phis it keeps, as it did then.)
pub(crate) unsafe fn kept_after_leaving(
    cfg: &Cfg,
    l: &Loop,
    shapes: &HashMap<LLVMValueRef, Shape>,
) -> Vec<LLVMValueRef> {
    let body: HashSet<LLVMBasicBlockRef> = l.body.iter().map(|&b| cfg.blocks[b]).collect();
    let header = cfg.blocks[l.header];
    let mut blocks: Vec<usize> = l.body.iter().copied().collect();
    blocks.sort_unstable();
    let mut memo: HashMap<LLVMValueRef, bool> = HashMap::new();
    let mut out = Vec::new();
    for b in blocks {
        for v in compiler::llvm::block_instructions(cfg.blocks[b]) {
            let mut read_after = false;
            let mut u = LLVMGetFirstUse(v);
            while !u.is_null() {
                read_after |= !body.contains(&LLVMGetInstructionParent(LLVMGetUser(u)));
                u = LLVMGetNextUse(u);
            }
            if read_after && from_inner_phi(v, &body, header, shapes, &mut memo) {
                out.push(v);
            }
        }
    }
    out
}

/// The phis after the loop of `body` that read `v` (its exit's, once the
/// loops are closed).
pub(crate) unsafe fn read_after(
    v: LLVMValueRef,
    body: &HashSet<LLVMBasicBlockRef>,
) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut u = LLVMGetFirstUse(v);
    while !u.is_null() {
        let user = LLVMGetUser(u);
        u = LLVMGetNextUse(u);
        if !LLVMIsAPHINode(user).is_null() && !body.contains(&LLVMGetInstructionParent(user)) {
            out.push(user);
        }
    }
    out
}

/// Whether `v`, of the loop of `body`, comes from one of its phis other
/// than `header`'s, or from one of `header`'s that is not varying, through
/// instructions of the loop.
unsafe fn from_inner_phi(
    v: LLVMValueRef,
    body: &HashSet<LLVMBasicBlockRef>,
    header: LLVMBasicBlockRef,
    shapes: &HashMap<LLVMValueRef, Shape>,
    memo: &mut HashMap<LLVMValueRef, bool>,
) -> bool {
    if LLVMIsAInstruction(v).is_null() || !body.contains(&LLVMGetInstructionParent(v)) {
        return false;
    }
    if let Some(&known) = memo.get(&v) {
        return known;
    }
    memo.insert(v, false);
    let found = if !LLVMIsAPHINode(v).is_null() {
        LLVMGetInstructionParent(v) != header || shape_of(v, shapes) != Shape::Varying
    } else {
        (0..LLVMGetNumOperands(v) as u32)
            .any(|k| from_inner_phi(LLVMGetOperand(v, k), body, header, shapes, memo))
    };
    memo.insert(v, found);
    found
}

pub(crate) fn exiting_blocks(cfg: &Cfg, l: &Loop) -> Vec<usize> {
    l.body
        .iter()
        .copied()
        .filter(|&b| cfg.succs[b].iter().any(|s| !l.body.contains(s)))
        .collect()
}

pub(crate) unsafe fn branch_varies(
    bb: LLVMBasicBlockRef,
    shapes: &HashMap<LLVMValueRef, Shape>,
) -> bool {
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
pub(crate) unsafe fn divergent_loops(
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
        let blocks = |set: &mut dyn Iterator<Item = usize>| {
            set.map(|b| cfg.blocks[b]).collect::<HashSet<_>>()
        };
        out.push(DivergentLoop {
            header: cfg.blocks[l.header],
            latch: cfg.blocks[latch],
            exiting: cfg.blocks[e],
            body: blocks(&mut l.body.iter().copied()),
            tail: blocks(&mut l.body.iter().copied().filter(|&b| b != e && cfg.dom[b][e])),
            kept_outs: kept_after_leaving(cfg, l, shapes),
        });
    }
    Ok(out)
}

/// The header phis of divergent loop `l` whose value no lane that has left
/// the loop needs: nothing computed from them is read after the loop, or
/// reaches memory, a call or an atomic; only arithmetic, comparisons, the
/// exit test and the loop's header phis (what a lane that left takes round
/// into another one is never read: that phi keeps the lane's value, or is
/// one of these). Those phis take the new value in every lane, without a select
/// of the lanes that stayed, which would put the exit test on the
/// recurrence (`z = z * z + c` until `|z| > 2`).
pub(crate) unsafe fn unobserved_after_leaving(
    l: &DivergentLoop,
    shapes: &HashMap<LLVMValueRef, Shape>,
) -> HashSet<LLVMValueRef> {
    use LLVMOpcode::*;
    let mut out = HashSet::new();
    for p in kernel_ir::cfg::phis(l.header) {
        if shape_of(p, shapes) != Shape::Varying {
            continue;
        }
        let mut seen = HashSet::from([p]);
        let mut work = vec![p];
        let mut unobserved = true;
        'walk: while let Some(v) = work.pop() {
            let mut u = LLVMGetFirstUse(v);
            while !u.is_null() {
                let user = LLVMGetUser(u);
                u = LLVMGetNextUse(u);
                let inside = LLVMIsAInstruction(user)
                    .is_null()
                    .then_some(false)
                    .unwrap_or_else(|| l.body.contains(&LLVMGetInstructionParent(user)));
                let pure = inside
                    && match LLVMGetInstructionOpcode(user) {
                        LLVMLoad | LLVMStore | LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMFence
                        | LLVMAlloca | LLVMInvoke | LLVMCallBr | LLVMVAArg => false,
                        // Intrinsics without side effects (fma, fabs, ...).
                        LLVMCall => crate::intrinsics::intrinsic_name(LLVMGetCalledValue(user))
                            .is_some_and(|n| crate::intrinsics::lanewise(&n).is_some()),
                        _ => true,
                    };
                if !pure {
                    unobserved = false;
                    break 'walk;
                }
                // Another header phi of the loop: a lane that has left
                // keeps its value of it (a select of the lanes that stayed)
                // or needs none (it is of these phis too), so what it
                // takes from this one on the way round is never read.
                if !LLVMIsAPHINode(user).is_null() && LLVMGetInstructionParent(user) == l.header {
                    continue;
                }
                if seen.insert(user) {
                    work.push(user);
                }
            }
        }
        if unobserved {
            out.insert(p);
        }
    }
    out
}
