//! A rotated loop left from its top and its bottom made a loop left once.
//! An optimizer (Clang's `-O2` before a SPIR-V module is written) rotates
//! `while (i < n && |z| <= 2)`: the header tests one condition and leaves,
//! the latch computes the next iteration, tests the other and leaves or
//! goes round. `vectorize` masks a loop work-items leave at different
//! iterations only when it has one exit, as the front end's short
//! conditions give: the latch's work, which has no side effects, is moved
//! into the header and the two tests become one.
//!
//! The shape taken: a header `H` ending `br c1, X, B` (either order), `B`
//! the only block between, reached from `H` alone, ending `br c2, X, H`
//! (either order), both leaving to the same block `X`, and `B` holding only
//! instructions LLVM may speculate. `H` then ends `br (c1 | c2), X, H`; the
//! phis of `X` choose by `c1` what each edge brought.

use crate::barriers::Cfg;
use crate::loop_barriers::natural_loops;
use compiler::llvm;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;

/// Folds every loop of `f` of that shape; returns how many.
///
/// # Safety
/// `f` must be a function defined in a live module.
pub unsafe fn run(f: LLVMValueRef) -> usize {
    let mut folded = 0;
    // Each fold changes the blocks: look again until nothing fits.
    while let Some((h, b)) = candidate(f) {
        fold(h, b);
        folded += 1;
    }
    folded
}

/// A conditional branch's condition, and whether it leaves to `exit` when
/// true.
unsafe fn exit_test(term: LLVMValueRef, exit: LLVMBasicBlockRef) -> Option<(LLVMValueRef, bool)> {
    if LLVMGetInstructionOpcode(term) != LLVMOpcode::LLVMBr || LLVMIsConditional(term) == 0 {
        return None;
    }
    let (t, e) = (LLVMGetSuccessor(term, 0), LLVMGetSuccessor(term, 1));
    match (t == exit, e == exit) {
        (true, false) => Some((LLVMGetCondition(term), true)),
        (false, true) => Some((LLVMGetCondition(term), false)),
        _ => None,
    }
}

/// Whether an instruction may run where it would not have: no memory,
/// no side effect, no trap.
unsafe fn speculatable(i: LLVMValueRef) -> bool {
    use LLVMOpcode::*;
    match LLVMGetInstructionOpcode(i) {
        LLVMAdd | LLVMSub | LLVMMul | LLVMAnd | LLVMOr | LLVMXor | LLVMShl | LLVMLShr
        | LLVMAShr | LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFNeg | LLVMICmp | LLVMFCmp
        | LLVMSelect | LLVMTrunc | LLVMZExt | LLVMSExt | LLVMFPToSI | LLVMFPToUI | LLVMSIToFP
        | LLVMUIToFP | LLVMFPTrunc | LLVMFPExt | LLVMBitCast | LLVMGetElementPtr
        | LLVMExtractElement | LLVMInsertElement | LLVMShuffleVector | LLVMExtractValue
        | LLVMInsertValue => true,
        LLVMCall => llvm::called_function(i).is_some_and(|f| {
            LLVMGetIntrinsicID(f) != 0
                && matches!(
                    llvm::name(f)
                        .split('.')
                        .take(2)
                        .collect::<Vec<_>>()
                        .join(".")
                        .as_str(),
                    "llvm.fma"
                        | "llvm.fmuladd"
                        | "llvm.fabs"
                        | "llvm.minnum"
                        | "llvm.maxnum"
                        | "llvm.copysign"
                )
        }),
        _ => false,
    }
}

unsafe fn candidate(f: LLVMValueRef) -> Option<(LLVMBasicBlockRef, LLVMBasicBlockRef)> {
    let cfg = Cfg::of(f);
    for l in natural_loops(&cfg) {
        if l.body.len() != 2 {
            continue;
        }
        let h = cfg.blocks[l.header];
        let Some(&bi) = l.body.iter().find(|&&x| x != l.header) else {
            continue;
        };
        let b = cfg.blocks[bi];
        let (ht, bt) = (
            LLVMGetBasicBlockTerminator(h),
            LLVMGetBasicBlockTerminator(b),
        );
        if ht.is_null() || bt.is_null() || cfg.preds[bi] != [l.header] {
            continue;
        }
        // The exit: H's successor outside the loop.
        let outside: Vec<usize> = cfg.succs[l.header]
            .iter()
            .copied()
            .filter(|s| !l.body.contains(s))
            .collect();
        let [x] = outside[..] else { continue };
        let exit = cfg.blocks[x];
        if exit_test(ht, exit).is_none() || exit_test(bt, exit).is_none() {
            continue;
        }
        // B's other successor is the header; H's is B.
        if !cfg.succs[bi].contains(&l.header) || !cfg.succs[l.header].contains(&bi) {
            continue;
        }
        let body_ok = llvm::block_instructions(b)
            .into_iter()
            .filter(|&i| i != bt)
            .all(|i| speculatable(i));
        if body_ok {
            return Some((h, b));
        }
    }
    None
}

unsafe fn fold(h: LLVMBasicBlockRef, b: LLVMBasicBlockRef) {
    let ctx = LLVMGetTypeContext(LLVMTypeOf(LLVMBasicBlockAsValue(h)));
    let builder = LLVMCreateBuilderInContext(ctx);
    let ht = LLVMGetBasicBlockTerminator(h);
    let bt = LLVMGetBasicBlockTerminator(b);
    let exit = {
        let (s0, s1) = (LLVMGetSuccessor(ht, 0), LLVMGetSuccessor(ht, 1));
        if s0 == b {
            s1
        } else {
            s0
        }
    };
    let (c1, c1_leaves) = exit_test(ht, exit).unwrap_or((std::ptr::null_mut(), true));
    let (c2, c2_leaves) = exit_test(bt, exit).unwrap_or((std::ptr::null_mut(), true));
    // B's work, in order, before H's branch.
    for i in llvm::block_instructions(b) {
        if i == bt {
            break;
        }
        let name = std::ffi::CString::new(llvm::name(i)).unwrap_or_default();
        LLVMInstructionRemoveFromParent(i);
        LLVMPositionBuilderBefore(builder, ht);
        LLVMInsertIntoBuilderWithName(builder, i, name.as_ptr());
    }
    LLVMPositionBuilderBefore(builder, ht);
    let leave1 = if c1_leaves {
        c1
    } else {
        LLVMBuildNot(builder, c1, c"".as_ptr())
    };
    let leave2 = if c2_leaves {
        c2
    } else {
        LLVMBuildNot(builder, c2, c"".as_ptr())
    };
    let leave = LLVMBuildOr(builder, leave1, leave2, c"leave".as_ptr());
    // The exit's phis: what H brought if H's test left, else what B did.
    for phi in llvm::block_instructions(exit) {
        if LLVMIsAPHINode(phi).is_null() {
            break;
        }
        let n = LLVMCountIncoming(phi);
        let from = |bb| {
            (0..n)
                .find(|&k| LLVMGetIncomingBlock(phi, k) == bb)
                .map(|k| LLVMGetIncomingValue(phi, k))
        };
        if let (Some(vh), Some(vb)) = (from(h), from(b)) {
            let v = LLVMBuildSelect(builder, leave1, vh, vb, c"".as_ptr());
            // Rebuild the phi's incoming list without B, with H's the select.
            let kept: Vec<(LLVMValueRef, LLVMBasicBlockRef)> = (0..n)
                .map(|k| (LLVMGetIncomingValue(phi, k), LLVMGetIncomingBlock(phi, k)))
                .filter(|&(_, bb)| bb != b)
                .map(|(val, bb)| if bb == h { (v, bb) } else { (val, bb) })
                .collect();
            LLVMPositionBuilderBefore(builder, phi);
            let new = LLVMBuildPhi(builder, LLVMTypeOf(phi), c"".as_ptr());
            for (val, bb) in kept {
                let mut vs = [val];
                let mut bs = [bb];
                LLVMAddIncoming(new, vs.as_mut_ptr(), bs.as_mut_ptr(), 1);
            }
            replace_phi(phi, new);
            LLVMPositionBuilderBefore(builder, ht);
        }
    }
    // The header's phis: what came round from B now comes from H.
    for phi in llvm::block_instructions(h) {
        if LLVMIsAPHINode(phi).is_null() {
            break;
        }
        for k in 0..LLVMCountIncoming(phi) {
            if LLVMGetIncomingBlock(phi, k) == b {
                let v = LLVMGetIncomingValue(phi, k);
                let others: Vec<(LLVMValueRef, LLVMBasicBlockRef)> = (0..LLVMCountIncoming(phi))
                    .filter(|&j| j != k)
                    .map(|j| (LLVMGetIncomingValue(phi, j), LLVMGetIncomingBlock(phi, j)))
                    .collect();
                let b2 = LLVMCreateBuilderInContext(ctx);
                LLVMPositionBuilderBefore(b2, phi);
                let new = LLVMBuildPhi(b2, LLVMTypeOf(phi), c"".as_ptr());
                LLVMDisposeBuilder(b2);
                for (val, bb) in others.into_iter().chain([(v, h)]) {
                    let mut vs = [val];
                    let mut bs = [bb];
                    LLVMAddIncoming(new, vs.as_mut_ptr(), bs.as_mut_ptr(), 1);
                }
                replace_phi(phi, new);
                break;
            }
        }
    }
    LLVMBuildCondBr(builder, leave, exit, h);
    LLVMInstructionEraseFromParent(ht);
    LLVMDeleteBasicBlock(b);
    LLVMDisposeBuilder(builder);
}

/// `new` in `old`'s place, under its name.
unsafe fn replace_phi(old: LLVMValueRef, new: LLVMValueRef) {
    let name = llvm::name(old);
    LLVMReplaceAllUsesWith(old, new);
    LLVMInstructionEraseFromParent(old);
    LLVMSetValueName2(new, name.as_ptr().cast(), name.len());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Ir;

    const ROTATED: &str = r#"
declare float @llvm.fma.f32(float, float, float)
define void @k(i32 %n, float %c, ptr %out) {
entry:
  br label %head
head:
  %z = phi float [ 0.0, %entry ], [ %next, %body ]
  %i = phi i32 [ 0, %entry ], [ %i1, %body ]
  %big = fcmp ugt float %z, 4.0
  br i1 %big, label %done, label %body
body:
  %next = call float @llvm.fma.f32(float %z, float %z, float %c)
  %i1 = add i32 %i, 1
  %end = icmp eq i32 %i1, %n
  br i1 %end, label %done, label %head
done:
  %r = phi i32 [ %i, %head ], [ %n, %body ]
  store i32 %r, ptr %out
  ret void
}
"#;

    #[test]
    fn a_loop_left_at_its_top_and_bottom_is_left_once() {
        let ir = Ir::parse(ROTATED);
        assert_eq!(unsafe { run(ir.function("k")) }, 1);
        let text = ir.text();
        assert!(!text.contains("\nbody:"), "{text}");
        assert!(text.contains("%leave = or i1 %big, %end"), "{text}");
        assert!(
            text.contains("br i1 %leave, label %done, label %head"),
            "{text}"
        );
        assert!(text.contains("select i1 %big, i32 %i, i32 %n"), "{text}");
        assert!(
            text.contains("[ %i1, %head ]") && text.contains("%next = call float @llvm.fma"),
            "{text}"
        );
        unsafe { llvm::verify(ir.m) }.unwrap();
    }

    #[test]
    fn a_latch_with_a_side_effect_is_left_alone() {
        let ir = Ir::parse(&ROTATED.replace(
            "  %i1 = add i32 %i, 1\n",
            "  %i1 = add i32 %i, 1\n  store float %next, ptr %out\n",
        ));
        let before = ir.text();
        assert_eq!(unsafe { run(ir.function("k")) }, 0);
        assert_eq!(ir.text(), before);
    }
}
