//! Regions under a branch, each left through one block. A block `e`
//! entered from its branching predecessor `g` alone, with the blocks it
//! dominates (its region), may leave to one block `m` (`g`'s other
//! successor, or where an if/else meets) from several blocks: the front
//! end's one return block, reached from an early return, from inside an
//! `if` and from the end, or from one that leaves by a test (a loop's
//! exit). A new block between them and `m` makes the region left from one
//! block by a plain branch, and the blocks before it regions of their own
//! in turn (a chain of early returns becomes nested regions): the shape
//! in which the vectorizer runs a region for the lanes its guard lets in.

use crate::cfg::{build_phi, incoming, phis, replace_phi, Cfg};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;

/// Gives every region of `f` left from several blocks a block of its own
/// they go to first; returns how many it made.
///
/// # Safety
/// `f` must be a function defined in a live module.
pub unsafe fn one_exit_per_region(f: LLVMValueRef) -> usize {
    let mut made = 0;
    // Each split changes the graph; every split takes one region's
    // several exits to one, so this ends (the bound is a safety net).
    let limit = 4 * crate::cfg::blocks(f).len();
    while made < limit {
        let Some((exits, merge)) = region_with_exits(&Cfg::of(f)) else {
            break;
        };
        join_exits(&exits, merge);
        made += 1;
    }
    made
}

/// A region left to one block from several of its blocks: those blocks,
/// and the one they leave to.
unsafe fn region_with_exits(cfg: &Cfg) -> Option<(Vec<LLVMBasicBlockRef>, LLVMBasicBlockRef)> {
    for (g, &bb) in cfg.blocks.iter().enumerate() {
        let t = LLVMGetBasicBlockTerminator(bb);
        if t.is_null()
            || LLVMGetInstructionOpcode(t) != LLVMOpcode::LLVMBr
            || LLVMIsConditional(t) == 0
        {
            continue;
        }
        let (s0, s1) = (
            cfg.index[&LLVMGetSuccessor(t, 0)],
            cfg.index[&LLVMGetSuccessor(t, 1)],
        );
        for e in [s0, s1] {
            if s0 == s1 {
                continue;
            }
            let inside = |b: usize| cfg.dom[b][e];
            if inside(g) || cfg.preds[e].iter().any(|&p| p != g && !inside(p)) {
                continue;
            }
            let region: Vec<usize> = (0..cfg.blocks.len()).filter(|&b| inside(b)).collect();
            let mut leaves_to: Vec<usize> = region
                .iter()
                .flat_map(|&b| cfg.succs[b].iter().copied())
                .filter(|&s| !inside(s))
                .collect();
            leaves_to.sort_unstable();
            leaves_to.dedup();
            // One block outside, not one the region goes round to (a loop
            // header around it).
            let [m] = leaves_to[..] else { continue };
            if cfg.dom[g][m] {
                continue;
            }
            let exits: Vec<LLVMBasicBlockRef> = region
                .iter()
                .filter(|&&b| cfg.succs[b].contains(&m))
                .map(|&b| cfg.blocks[b])
                .collect();
            // Several blocks, or one that leaves by a test (a loop's exit):
            // a block of its own then leaves by a plain branch.
            let tested =
                |x: LLVMBasicBlockRef| LLVMGetNumSuccessors(LLVMGetBasicBlockTerminator(x)) > 1;
            if exits.len() >= 2 || exits.iter().any(|&x| tested(x)) {
                return Some((exits, cfg.blocks[m]));
            }
        }
    }
    None
}

/// A new block before `merge` that every edge from `exits` goes to; the
/// phis of `merge` take what those brought through phis of it.
unsafe fn join_exits(exits: &[LLVMBasicBlockRef], merge: LLVMBasicBlockRef) {
    let ctx = LLVMGetTypeContext(LLVMTypeOf(LLVMBasicBlockAsValue(merge)));
    let b = LLVMCreateBuilderInContext(ctx);
    let join = LLVMInsertBasicBlockInContext(ctx, merge, c"region.exit".as_ptr());
    for phi in phis(merge) {
        let (from_exits, others): (Vec<_>, Vec<_>) = incoming(phi)
            .into_iter()
            .partition(|(_, bb)| exits.contains(bb));
        LLVMPositionBuilderAtEnd(b, join);
        let joined = build_phi(b, LLVMTypeOf(phi), &from_exits);
        let mut kept = others;
        kept.push((joined, join));
        replace_phi(b, phi, &kept);
    }
    LLVMPositionBuilderAtEnd(b, join);
    LLVMBuildBr(b, merge);
    for &x in exits {
        let t = LLVMGetBasicBlockTerminator(x);
        for k in 0..LLVMGetNumSuccessors(t) {
            if LLVMGetSuccessor(t, k) == merge {
                LLVMSetSuccessor(t, k, join);
            }
        }
    }
    LLVMDisposeBuilder(b);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Ir;
    use compiler::llvm;

    /// `if (i % 5 == 3) return; s = ..; if (x > 0.4) { t[i] = s; } o[i] =
    /// s;` as the front end leaves it, and an early return from inside the
    /// second `if`: the return block is reached from three places.
    const RETURNS: &str = r#"
define void @k(i32 %i, float %x, ptr %o, ptr %t) {
entry:
  %r = srem i32 %i, 5
  %skip = icmp eq i32 %r, 3
  br i1 %skip, label %ret, label %body
body:
  %s = fmul float %x, 2.0
  %big = fcmp ogt float %x, 0.5
  br i1 %big, label %then, label %end
then:
  store float %s, ptr %t
  %huge = fcmp ogt float %x, 10.0
  br i1 %huge, label %ret, label %end
end:
  %v = phi float [ %s, %body ], [ %x, %then ]
  store float %v, ptr %o
  br label %ret
ret:
  %w = phi float [ 0.0, %entry ], [ %s, %then ], [ %v, %end ]
  store float %w, ptr %t
  ret void
}
"#;

    #[test]
    fn a_region_left_from_several_blocks_is_left_from_one() {
        let ir = Ir::parse(RETURNS);
        let made = unsafe { one_exit_per_region(ir.function("k")) };
        unsafe { llvm::verify(ir.m) }.unwrap();
        let text = ir.text();
        assert_eq!(made, 1, "{text}");
        // The body's region (from `then` and `end`) goes to a block of its
        // own first, whose phi takes what they brought.
        let join = &text[text.find("\nregion.exit:").expect(&text)..];
        assert!(
            join.contains("phi float [ %s, %then ], [ %v, %end ]"),
            "{text}"
        );
        assert!(
            text.contains("br i1 %huge, label %region.exit, label %end"),
            "{text}"
        );
        assert!(
            text.contains("store float %v, ptr %o, align 4\n  br label %region.exit"),
            "{text}"
        );
        let ret = &text[text.find("\nret:").unwrap()..];
        assert!(
            ret.contains("%w = phi float [ 0.000000e+00, %entry ], [ %"),
            "{text}"
        );
        assert!(ret.contains(", %region.exit ]"), "{text}");
        // A second run finds nothing left.
        assert_eq!(unsafe { one_exit_per_region(ir.function("k")) }, 0);
    }

    /// `r = x > 0 ? (b > 5 ? 3x : x - 1) : -x`, as branches: the then part
    /// meets the else part from two blocks.
    const IF_ELSE: &str = r#"
define float @k(float %x, i32 %b) {
entry:
  %pos = fcmp ogt float %x, 0.0
  br i1 %pos, label %then, label %else
then:
  %big = icmp sgt i32 %b, 5
  br i1 %big, label %three, label %less
three:
  %t = fmul float %x, 3.0
  br label %join
less:
  %l = fsub float %x, 1.0
  br label %join
else:
  %n = fneg float %x
  br label %join
join:
  %r = phi float [ %t, %three ], [ %l, %less ], [ %n, %else ]
  ret float %r
}
"#;

    #[test]
    fn an_if_else_part_meeting_the_other_from_several_blocks_meets_it_from_one() {
        let ir = Ir::parse(IF_ELSE);
        assert_eq!(unsafe { one_exit_per_region(ir.function("k")) }, 1);
        unsafe { llvm::verify(ir.m) }.unwrap();
        let text = ir.text();
        let join = &text[text.find("\nregion.exit:").expect(&text)..];
        assert!(
            join.contains("phi float [ %t, %three ], [ %l, %less ]"),
            "{text}"
        );
        let meet = &text[text.find("\njoin:").unwrap()..];
        assert!(
            meet.contains("[ %n, %else ]") && meet.contains(", %region.exit ]"),
            "{text}"
        );
    }

    /// `if (x > 0) r = 1; else for (j = 0; j < n; j++) r += x;`: the loop,
    /// the else part, leaves to where the parts meet by its test.
    const LOOP_PART: &str = r#"
define float @k(float %x, i32 %n) {
entry:
  %pos = fcmp ogt float %x, 0.0
  br i1 %pos, label %then, label %loop
then:
  br label %join
loop:
  %j = phi i32 [ 0, %entry ], [ %j1, %body ]
  %r = phi float [ 0.0, %entry ], [ %r1, %body ]
  %more = icmp slt i32 %j, %n
  br i1 %more, label %body, label %join
body:
  %r1 = fadd float %r, %x
  %j1 = add i32 %j, 1
  br label %loop
join:
  %v = phi float [ 1.0, %then ], [ %r, %loop ]
  ret float %v
}
"#;

    #[test]
    fn a_part_left_by_a_loop_test_is_left_by_a_plain_branch() {
        let ir = Ir::parse(LOOP_PART);
        assert_eq!(unsafe { one_exit_per_region(ir.function("k")) }, 1);
        unsafe { llvm::verify(ir.m) }.unwrap();
        let text = ir.text();
        assert!(
            text.contains("br i1 %more, label %body, label %region.exit"),
            "{text}"
        );
        let exit = &text[text.find("\nregion.exit:").expect(&text)..];
        assert!(
            exit.contains("phi float [ %r, %loop ]\n  br label %join"),
            "{text}"
        );
    }

    #[test]
    fn a_region_left_from_one_block_is_left_alone() {
        let ir = Ir::parse(
            &RETURNS
                .replace("br i1 %huge, label %ret, label %end", "br label %end")
                .replace("[ %s, %then ], [ %v, %end ]", "[ %v, %end ]"),
        );
        let before = ir.text();
        assert_eq!(unsafe { one_exit_per_region(ir.function("k")) }, 0);
        assert_eq!(ir.text(), before);
    }
}
