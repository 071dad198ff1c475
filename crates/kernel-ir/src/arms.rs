//! The arms of a branch made apart. Where both arms of a two-way branch
//! reach a block before the block all its paths meet at (a `switch` case
//! that falls into the next, lowered to two-way branches, is reached from
//! its own test and from the case before it), the blocks both reach are
//! copied for the first arm. Each arm is then a region of its own, the
//! shape `regions` and the vectorizer take; the function does what it did.
//!
//! Taken: blocks outside any loop the branch is not in, heading none,
//! ending in plain or two-way branches, whose values are used among them
//! or by the meeting block's phis alone; at most [`MOST_BLOCKS`] of them.

use crate::cfg::{
    copy_blocks, incoming, phis, post_dominators, replace_phi, reverse_post_order, Cfg,
};
use crate::loops::natural_loops;
use compiler::llvm;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;
use std::collections::HashSet;

/// The most blocks copied for one branch.
pub const MOST_BLOCKS: usize = 32;

/// The most branches made apart in one function.
const MOST_BRANCHES: usize = 16;

/// Makes the arms of the branches of `f` apart where they share blocks;
/// returns how many branches it made so.
///
/// # Safety
/// `f` must be a function defined in a live module.
pub unsafe fn separate_arms(f: LLVMValueRef) -> usize {
    let mut made = 0;
    while made < MOST_BRANCHES {
        let cfg = Cfg::of(f);
        let Some(shared) = shared_blocks(&cfg) else {
            break;
        };
        copy_for_first_arm(&cfg, &shared);
        made += 1;
    }
    made
}

/// The blocks both arms of branch `branch` reach before `merge`.
struct Shared {
    branch: usize,
    merge: usize,
    /// The blocks only the first arm reaches.
    first_arm: HashSet<usize>,
    /// The blocks both reach, in block order.
    blocks: Vec<usize>,
}

unsafe fn shared_blocks(cfg: &Cfg) -> Option<Shared> {
    let pdom = post_dominators(cfg);
    let loops = natural_loops(cfg);
    let n = cfg.blocks.len();
    for g in reverse_post_order(cfg) {
        let t = LLVMGetBasicBlockTerminator(cfg.blocks[g]);
        if !two_way(t) {
            continue;
        }
        let (s0, s1) = (cfg.succs[g][0], cfg.succs[g][1]);
        if s0 == s1 {
            continue;
        }
        // Where every path from the branch passes first.
        let after: Vec<usize> = (0..n).filter(|&c| c != g && pdom[g][c]).collect();
        let Some(&m) = after.iter().find(|&&c| after.iter().all(|&o| pdom[c][o])) else {
            continue;
        };
        let reach = |from: usize| {
            let mut seen = HashSet::new();
            let mut work = vec![from];
            while let Some(b) = work.pop() {
                if b != m && b != g && seen.insert(b) {
                    work.extend(&cfg.succs[b]);
                }
            }
            seen
        };
        let (r0, r1) = (reach(s0), reach(s1));
        let mut both: Vec<usize> = r0.intersection(&r1).copied().collect();
        if both.is_empty() || both.len() > MOST_BLOCKS {
            continue;
        }
        both.sort_unstable();
        let takeable = both.iter().all(|&b| {
            let end = LLVMGetBasicBlockTerminator(cfg.blocks[b]);
            let plain = LLVMGetInstructionOpcode(end) == LLVMOpcode::LLVMBr;
            plain
                && loops
                    .iter()
                    .all(|l| !l.body.contains(&b) || (l.body.contains(&g) && l.header != b))
        });
        if !takeable || !used_inside(cfg, &both, m) {
            continue;
        }
        return Some(Shared {
            branch: g,
            merge: m,
            first_arm: r0.difference(&r1).copied().collect(),
            blocks: both,
        });
    }
    None
}

unsafe fn two_way(t: LLVMValueRef) -> bool {
    !t.is_null() && LLVMGetInstructionOpcode(t) == LLVMOpcode::LLVMBr && LLVMIsConditional(t) != 0
}

/// Whether every value of `blocks` is used in them, or by a phi of `m`
/// for an edge from them.
unsafe fn used_inside(cfg: &Cfg, blocks: &[usize], m: usize) -> bool {
    let inside: HashSet<LLVMBasicBlockRef> = blocks.iter().map(|&b| cfg.blocks[b]).collect();
    blocks.iter().all(|&b| {
        llvm::block_instructions(cfg.blocks[b])
            .into_iter()
            .all(|v| {
                let mut u = LLVMGetFirstUse(v);
                while !u.is_null() {
                    let user = LLVMGetUser(u);
                    u = LLVMGetNextUse(u);
                    let at = LLVMGetInstructionParent(user);
                    if inside.contains(&at) {
                        continue;
                    }
                    let from_inside = at == cfg.blocks[m]
                        && !LLVMIsAPHINode(user).is_null()
                        && incoming(user)
                            .iter()
                            .all(|&(x, from)| x != v || inside.contains(&from));
                    if !from_inside {
                        return false;
                    }
                }
                true
            })
    })
}

/// Copies the shared blocks; the first arm's edges into them go to the
/// copies.
unsafe fn copy_for_first_arm(cfg: &Cfg, s: &Shared) {
    let block = |b: usize| cfg.blocks[b];
    let ctx = LLVMGetTypeContext(LLVMTypeOf(LLVMBasicBlockAsValue(block(0))));
    let b = LLVMCreateBuilderInContext(ctx);
    let shared: HashSet<LLVMBasicBlockRef> = s.blocks.iter().map(|&x| block(x)).collect();
    let first_arm: HashSet<LLVMBasicBlockRef> = s.first_arm.iter().map(|&x| block(x)).collect();
    let (g, s0) = (block(s.branch), block(cfg.succs[s.branch][0]));
    let shared_blocks: Vec<LLVMBasicBlockRef> = s.blocks.iter().map(|&x| block(x)).collect();
    let copies = copy_blocks(&shared_blocks, block(s.merge), ".arm", None);
    let copy_of = copies.blocks;
    let mut value = copies.values;
    // A shared block's phis: what came along the first arm goes to the
    // copy; what came from another shared block, to both.
    for &x in &s.blocks {
        let x = block(x);
        for phi in phis(x) {
            let mut kept = Vec::new();
            let mut moved = Vec::new();
            for (v, from) in incoming(phi) {
                if first_arm.contains(&from) || (from == g && x == s0) {
                    moved.push((v, from));
                } else if shared.contains(&from) {
                    kept.push((v, from));
                    moved.push((*value.get(&v).unwrap_or(&v), copy_of[&from]));
                } else {
                    kept.push((v, from));
                }
            }
            let copy = value[&phi];
            let (mut vs, mut bs): (Vec<_>, Vec<_>) = moved.into_iter().unzip();
            LLVMAddIncoming(copy, vs.as_mut_ptr(), bs.as_mut_ptr(), vs.len() as u32);
            // The phi is rebuilt: its copy is the copy of the new one.
            let rebuilt = replace_phi(b, phi, &kept);
            value.insert(rebuilt, copy);
        }
    }
    // The first arm's edges into the shared blocks.
    for from in first_arm.iter().copied().chain([g]) {
        let t = LLVMGetBasicBlockTerminator(from);
        for k in 0..LLVMGetNumSuccessors(t) {
            let to = LLVMGetSuccessor(t, k);
            if let Some(&c) = copy_of.get(&to) {
                if from != g || (to == s0 && k == 0) {
                    LLVMSetSuccessor(t, k, c);
                }
            }
        }
    }
    // Where the arms meet, the copies bring what their blocks brought.
    for phi in phis(block(s.merge)) {
        let mut all = incoming(phi);
        let more: Vec<_> = all
            .iter()
            .filter(|(_, from)| shared.contains(from))
            .map(|&(v, from)| (*value.get(&v).unwrap_or(&v), copy_of[&from]))
            .collect();
        if more.is_empty() {
            continue;
        }
        all.extend(more);
        replace_phi(b, phi, &all);
    }
    LLVMDisposeBuilder(b);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Ir;

    /// `switch (v) { case 0: c += 1; default: c -= 1; case 1: c += 2;
    /// break; case 3: c ^= 5; }` lowered to two-way branches: case 0 falls
    /// into the default, which falls into case 1.
    const FALLTHROUGH: &str = r#"
define i32 @k(i32 %v, i32 %c0) {
entry:
  %is0 = icmp eq i32 %v, 0
  br i1 %is0, label %case0, label %test1
test1:
  %is1 = icmp eq i32 %v, 1
  br i1 %is1, label %case1, label %test3
test3:
  %is3 = icmp eq i32 %v, 3
  br i1 %is3, label %case3, label %default
case0:
  %a = add i32 %c0, 1
  br label %default
default:
  %d.in = phi i32 [ %a, %case0 ], [ %c0, %test3 ]
  %d = sub i32 %d.in, 1
  br label %case1
case1:
  %e.in = phi i32 [ %d, %default ], [ %c0, %test1 ]
  %e = add i32 %e.in, 2
  br label %done
case3:
  %f = xor i32 %c0, 5
  br label %done
done:
  %r = phi i32 [ %e, %case1 ], [ %f, %case3 ]
  ret i32 %r
}
"#;

    #[test]
    fn cases_that_fall_through_are_copied_until_each_arm_is_a_region() {
        let ir = Ir::parse(FALLTHROUGH);
        let f = ir.function("k");
        assert!(unsafe { separate_arms(f) } >= 2);
        unsafe { llvm::verify(ir.m) }.unwrap();
        let text = ir.text();
        // Case 0 has its own default and case 1; the default its own case 1.
        assert!(text.contains("\ndefault.arm:"), "{text}");
        assert!(text.contains("\ncase1.arm:"), "{text}");
        assert!(text.contains("br label %default.arm"), "{text}");
        // The copies bring their own values where the arms meet, and a
        // copied phi's value is its copy's there (not the original's).
        let done = &text[text.find("\ndone:").unwrap()..];
        assert!(done.contains(", %case1.arm"), "{text}");
        assert!(!done.contains("%e, %case1.arm"), "{text}");
        let case1 = &text[text.find("\ncase1.arm:").unwrap()..];
        let copied_phi = case1.lines().nth(2).unwrap();
        assert!(copied_phi.contains("phi i32 [ %d"), "{text}");
        assert!(!copied_phi.contains("[ %d, %default.arm"), "{text}");
        // No block is reached from both arms of a branch any more.
        assert_eq!(unsafe { separate_arms(f) }, 0, "{text}");
        // Each block but `done` has one predecessor.
        let cfg = unsafe { Cfg::of(f) };
        for (b, preds) in cfg.preds.iter().enumerate().skip(1) {
            let name = unsafe { llvm::name(LLVMBasicBlockAsValue(cfg.blocks[b])) };
            assert!(preds.len() == 1 || name == "done", "{name}: {text}");
        }
    }

    #[test]
    fn a_function_whose_arms_meet_once_is_left_alone() {
        let ir = Ir::parse(
            r#"
define i32 @k(i1 %c, i32 %x) {
entry:
  br i1 %c, label %a, label %b
a:
  %y = add i32 %x, 1
  br label %m
b:
  br label %m
m:
  %r = phi i32 [ %y, %a ], [ %x, %b ]
  ret i32 %r
}
"#,
        );
        let before = ir.text();
        assert_eq!(unsafe { separate_arms(ir.function("k")) }, 0);
        assert_eq!(ir.text(), before);
    }
}
