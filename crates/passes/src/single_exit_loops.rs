//! A rotated loop left from its top and its bottom made a loop left once.
//! An optimizer (Clang's `-O2` before a SPIR-V module is written) rotates
//! `while (i < n && |z| <= 2)`: the header tests one condition and leaves,
//! the latch computes the next iteration, tests the other and leaves or
//! goes round. `vecz` masks a loop work-items leave at different
//! iterations only when it has one exit, as the front end's short
//! conditions give: the latch's work, which has no side effects, is moved
//! into the header and the two tests become one.
//!
//! The shape taken: a header `H` ending `br c1, X, B` (either order), `B`
//! the only block between, reached from `H` alone, ending `br c2, X, H`
//! (either order), both leaving to the same block `X`, and `B` holding only
//! instructions LLVM may speculate. `H` then ends `br (c1 | c2), X, H`; the
//! phis of `X` choose by `c1` what each edge brought.
//!
//! A loop of three blocks, `H` and `B` as above and a latch `L` reached
//! from `B` alone, holding only instructions LLVM may speculate and going
//! round (a `for` loop's increment after a `break`'s test), first has `L`'s
//! work moved to the end of `B`, which then goes round itself: the shape
//! above.
//!
//! The rotation of a loop tested only at its top (`for (i = gid; i < n;
//! i += size)`) leaves a guard `G` ending `br g, L, X` before the loop and
//! its latch `T` ending `br c, L, X`: a loop tested only at its bottom. A
//! new header `H` then takes the loop's phis, and a phi `go` of `g` (from
//! `G`) and `c` (from `T`); `H` ends `br go, L, X`, and `G` and `T` go to
//! `H`. The phis of `X` move into `H` too.

use compiler::llvm;
use kernel_ir::cfg::{build_phi, incoming, incoming_from, phis, replace_phi, retarget_phi, Cfg};
use kernel_ir::loops::natural_loops;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;

/// Folds every loop of `f` of either shape; returns how many.
///
/// # Safety
/// `f` must be a function defined in a live module.
pub unsafe fn run(f: LLVMValueRef) -> usize {
    let mut folded = 0;
    // Each fold changes the blocks: look again until nothing fits.
    loop {
        // A guarded loop's bottom test first: where the body leaves too,
        // the loop it makes is one of the others.
        if let Some(g) = guarded_bottom_test(f) {
            test_at_top(g);
        } else if let Some((h, b)) = candidate(f) {
            fold(h, b);
        } else if let Some((b, l)) = pure_latch(f) {
            merge_latch(b, l);
            continue;
        } else {
            return folded;
        }
        folded += 1;
    }
}

/// A loop entered under a guard and tested only at its bottom.
struct GuardedLoop {
    guard: LLVMBasicBlockRef,
    /// The block the guard enters the loop through: the guard itself, or
    /// a preheader of its own holding work that may run where it would
    /// not have (`p + lid * 4` as an optimizer hoists it).
    entry: LLVMBasicBlockRef,
    header: LLVMBasicBlockRef,
    latch: LLVMBasicBlockRef,
    exit: LLVMBasicBlockRef,
}

unsafe fn guarded_bottom_test(f: LLVMValueRef) -> Option<GuardedLoop> {
    let cfg = Cfg::of(f);
    for l in natural_loops(&cfg) {
        let preds = &cfg.preds[l.header];
        let (inside, outside): (Vec<usize>, Vec<usize>) =
            preds.iter().partition(|p| l.body.contains(p));
        let (&[t], &[e]) = (&inside[..], &outside[..]) else {
            continue;
        };
        // A preheader between guard and loop: reached from the guard
        // alone, and nothing in it that may not run when the guard skips.
        let g = match (&cfg.preds[e][..], &cfg.succs[e][..]) {
            (&[g], &[_])
                if cfg.succs[g].len() == 2
                    && llvm::block_instructions(cfg.blocks[e])
                        .into_iter()
                        .filter(|&i| LLVMIsATerminatorInst(i).is_null())
                        .all(|i| speculatable(i)) =>
            {
                g
            }
            _ => e,
        };
        // Only the latch leaves, to where the guard skips to.
        let exits: Vec<usize> = l
            .body
            .iter()
            .flat_map(|&b| cfg.succs[b].iter().copied().filter(|s| !l.body.contains(s)))
            .collect();
        let Some(&x) = exits.first() else { continue };
        if exits.iter().any(|&y| y != x)
            || !cfg.succs[t].contains(&x)
            || cfg.succs[g].len() != 2
            || !cfg.succs[g].contains(&x)
        {
            continue;
        }
        let exit = cfg.blocks[x];
        let (gt, tt) = (
            LLVMGetBasicBlockTerminator(cfg.blocks[g]),
            LLVMGetBasicBlockTerminator(cfg.blocks[t]),
        );
        if exit_test(gt, exit).is_none() || exit_test(tt, exit).is_none() {
            continue;
        }
        let found = GuardedLoop {
            guard: cfg.blocks[g],
            entry: cfg.blocks[e],
            header: cfg.blocks[l.header],
            latch: cfg.blocks[t],
            exit,
        };
        // Left from the body too (`while (|z| <= 2 && ++i < n)` rotated):
        // worth it only where every edge leaves with the loop's own phis,
        // so that work-items leaving at different iterations keep one
        // value each rather than a choice between the edges'.
        if exits.len() == 1 || leaves_with_its_phis(&found) {
            return Some(found);
        }
    }
    None
}

/// The phi among `l`'s header's `phis` that starts as `from_guard` and
/// comes round as `from_latch`, or as a value equal to it where the latch
/// leaves (the latch leaves on `i1 == n` and brings `n`).
unsafe fn own_phi(
    l: &GuardedLoop,
    phis: &[LLVMValueRef],
    from_guard: LLVMValueRef,
    from_latch: LLVMValueRef,
) -> Option<LLVMValueRef> {
    let latch_value = equal_where_leaving(l, from_latch);
    phis.iter().copied().find(|&q| {
        let round = incoming_from(q, l.latch);
        LLVMTypeOf(q) == LLVMTypeOf(from_latch)
            && incoming_from(q, l.entry) == Some(from_guard)
            && (round == Some(from_latch) || round == latch_value)
    })
}

/// The value `v` equals on the edge by which `l`'s latch leaves, where
/// the latch leaves on `v == w` (or stays on `v != w`): `w`.
unsafe fn equal_where_leaving(l: &GuardedLoop, v: LLVMValueRef) -> Option<LLVMValueRef> {
    use llvm_sys::LLVMIntPredicate::*;
    let (c, leaves) = exit_test(LLVMGetBasicBlockTerminator(l.latch), l.exit)?;
    if LLVMIsAICmpInst(c).is_null() {
        return None;
    }
    let equal_when_leaving = match LLVMGetICmpPredicate(c) {
        LLVMIntEQ => leaves,
        LLVMIntNE => !leaves,
        _ => return None,
    };
    let (a, b) = (LLVMGetOperand(c, 0), LLVMGetOperand(c, 1));
    match equal_when_leaving {
        true if a == v => Some(b),
        true if b == v => Some(a),
        _ => None,
    }
}

/// Whether each phi of `l`'s exit takes, from the guard and the latch,
/// what one phi of the header starts and comes round as, and from the
/// loop's other exits, that phi itself.
unsafe fn leaves_with_its_phis(l: &GuardedLoop) -> bool {
    phis(l.exit).into_iter().all(|p| {
        let (Some(vg), Some(vt)) = (incoming_from(p, l.guard), incoming_from(p, l.latch)) else {
            return false;
        };
        let Some(q) = own_phi(l, &phis(l.header), vg, vt) else {
            return false;
        };
        incoming(p)
            .into_iter()
            .all(|(v, bb)| bb == l.guard || bb == l.latch || v == q)
    })
}

unsafe fn test_at_top(l: GuardedLoop) {
    let ctx = LLVMGetTypeContext(LLVMTypeOf(LLVMBasicBlockAsValue(l.header)));
    let f = LLVMGetBasicBlockParent(l.header);
    let b = LLVMCreateBuilderInContext(ctx);
    let h = LLVMInsertBasicBlockInContext(ctx, l.header, c"test".as_ptr());
    debug_assert_eq!(LLVMGetBasicBlockParent(h), f);
    LLVMPositionBuilderAtEnd(b, h);
    // Whether the guard and the latch go (on) into the loop.
    let going = |term: LLVMValueRef| {
        let (c, leaves) = exit_test(term, l.exit).unwrap_or((std::ptr::null_mut(), false));
        (c, leaves)
    };
    let (gt, tt) = (
        LLVMGetBasicBlockTerminator(l.guard),
        LLVMGetBasicBlockTerminator(l.latch),
    );
    // The loop's phis move into H, unchanged.
    let mut moved = Vec::new();
    for p in llvm::block_instructions(l.header) {
        if LLVMIsAPHINode(p).is_null() {
            break;
        }
        moved.push(p);
        LLVMInstructionRemoveFromParent(p);
        let name = std::ffi::CString::new(llvm::name(p)).unwrap_or_default();
        LLVMInsertIntoBuilderWithName(b, p, name.as_ptr());
    }
    // X's phis take what the guard or the latch brought, through H.
    for p in llvm::block_instructions(l.exit) {
        if LLVMIsAPHINode(p).is_null() {
            break;
        }
        let (Some(vg), Some(vt)) = (incoming_from(p, l.guard), incoming_from(p, l.latch)) else {
            continue;
        };
        // A value the loop carries and leaves with (`sum`) is its phi
        // already: a second phi of it would be a second recurrence.
        let through = match own_phi(&l, &moved, vg, vt) {
            Some(q) => q,
            None => build_phi(b, LLVMTypeOf(p), &[(vg, l.entry), (vt, l.latch)]),
        };
        let others: Vec<(LLVMValueRef, LLVMBasicBlockRef)> = incoming(p)
            .into_iter()
            .filter(|&(_, bb)| bb != l.guard && bb != l.latch)
            .chain([(through, h)])
            .collect();
        // Another builder: `b` stays at the end of H.
        let b2 = LLVMCreateBuilderInContext(ctx);
        replace_phi(b2, p, &others);
        LLVMDisposeBuilder(b2);
    }
    // H goes into the loop while the guard's, then the latch's, test
    // says so.
    let stay = |b: LLVMBuilderRef, term: LLVMValueRef| {
        let (c, leaves) = going(term);
        LLVMPositionBuilderBefore(b, term);
        let s = if leaves {
            LLVMBuildNot(b, c, c"".as_ptr())
        } else {
            c
        };
        LLVMPositionBuilderAtEnd(b, h);
        s
    };
    let (sg, st) = (stay(b, gt), stay(b, tt));
    let i1 = LLVMInt1TypeInContext(ctx);
    let go = build_phi(b, i1, &[(sg, l.entry), (st, l.latch)]);
    LLVMSetValueName2(go, c"go".as_ptr(), 2);
    LLVMBuildCondBr(b, go, l.header, l.exit);
    // The guard goes on to its preheader, if it has one, and that to H.
    let mut retarget = vec![(gt, l.entry), (tt, h)];
    if l.entry != l.guard {
        retarget.push((LLVMGetBasicBlockTerminator(l.entry), h));
    }
    for (term, to) in retarget {
        let to = if to == l.guard { h } else { to };
        LLVMPositionBuilderBefore(b, term);
        LLVMBuildBr(b, to);
        LLVMInstructionEraseFromParent(term);
    }
    LLVMDisposeBuilder(b);
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

/// A loop `H`, `B`, `L`: `H` and `B` leave to the same block, `L` is
/// reached from `B` alone, goes round, and holds only speculatable work.
unsafe fn pure_latch(f: LLVMValueRef) -> Option<(LLVMBasicBlockRef, LLVMBasicBlockRef)> {
    let cfg = Cfg::of(f);
    for l in natural_loops(&cfg) {
        if l.body.len() != 3 {
            continue;
        }
        let h = l.header;
        let inside = |b: usize| cfg.succs[b].iter().copied().find(|s| l.body.contains(s));
        let outside = |b: usize| cfg.succs[b].iter().copied().find(|s| !l.body.contains(s));
        let (Some(b), Some(x)) = (inside(h), outside(h)) else {
            continue;
        };
        let Some(t) = inside(b).filter(|&t| t != h && t != b) else {
            continue;
        };
        let exit = cfg.blocks[x];
        let (ht, bt, tt) = (
            LLVMGetBasicBlockTerminator(cfg.blocks[h]),
            LLVMGetBasicBlockTerminator(cfg.blocks[b]),
            LLVMGetBasicBlockTerminator(cfg.blocks[t]),
        );
        let pure = llvm::block_instructions(cfg.blocks[t])
            .into_iter()
            .filter(|&i| i != tt)
            .all(|i| LLVMIsAPHINode(i).is_null() && speculatable(i));
        if cfg.preds[b] == [h]
            && cfg.preds[t] == [b]
            && cfg.succs[t] == [h]
            && outside(b) == Some(x)
            && exit_test(ht, exit).is_some()
            && exit_test(bt, exit).is_some()
            && pure
        {
            return Some((cfg.blocks[b], cfg.blocks[t]));
        }
    }
    None
}

/// `l`'s work moved to the end of `b`, which goes round in its place.
unsafe fn merge_latch(b: LLVMBasicBlockRef, l: LLVMBasicBlockRef) {
    let ctx = LLVMGetTypeContext(LLVMTypeOf(LLVMBasicBlockAsValue(b)));
    let builder = LLVMCreateBuilderInContext(ctx);
    let bt = LLVMGetBasicBlockTerminator(b);
    let lt = LLVMGetBasicBlockTerminator(l);
    let h = LLVMGetSuccessor(lt, 0);
    for i in llvm::block_instructions(l) {
        if i == lt {
            break;
        }
        let name = std::ffi::CString::new(llvm::name(i)).unwrap_or_default();
        LLVMInstructionRemoveFromParent(i);
        LLVMPositionBuilderBefore(builder, bt);
        LLVMInsertIntoBuilderWithName(builder, i, name.as_ptr());
    }
    // B's branch goes round where it went to L.
    let (s0, s1) = (LLVMGetSuccessor(bt, 0), LLVMGetSuccessor(bt, 1));
    let round = |s| if s == l { h } else { s };
    LLVMPositionBuilderBefore(builder, bt);
    LLVMBuildCondBr(builder, LLVMGetCondition(bt), round(s0), round(s1));
    LLVMInstructionEraseFromParent(bt);
    // The header's phis: what came round from L comes from B.
    for phi in phis(h) {
        retarget_phi(builder, phi, l, b);
    }
    LLVMDeleteBasicBlock(l);
    LLVMDisposeBuilder(builder);
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
        if let (Some(vh), Some(vb)) = (incoming_from(phi, h), incoming_from(phi, b)) {
            let v = if vh == vb {
                vh
            } else {
                LLVMBuildSelect(builder, leave1, vh, vb, c"".as_ptr())
            };
            // The phi's incoming list without B, with H's the select.
            let kept: Vec<(LLVMValueRef, LLVMBasicBlockRef)> = incoming(phi)
                .into_iter()
                .filter(|&(_, bb)| bb != b)
                .map(|(val, bb)| if bb == h { (v, bb) } else { (val, bb) })
                .collect();
            replace_phi(builder, phi, &kept);
            LLVMPositionBuilderBefore(builder, ht);
        }
    }
    // The header's phis: what came round from B now comes from H.
    let b2 = LLVMCreateBuilderInContext(ctx);
    for phi in phis(h) {
        retarget_phi(b2, phi, b, h);
    }
    LLVMDisposeBuilder(b2);
    LLVMBuildCondBr(builder, leave, exit, h);
    LLVMInstructionEraseFromParent(ht);
    LLVMDeleteBasicBlock(b);
    LLVMDisposeBuilder(builder);
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    /// `for (i = gid; i < n; i += 64) sum += in[i]` as an optimizer
    /// rotates it: a guard, then a loop tested at its bottom.
    const GUARDED: &str = r#"
define float @k(ptr %in, i64 %gid, i64 %n) {
entry:
  %go = icmp ult i64 %gid, %n
  br i1 %go, label %loop, label %done
loop:
  %i = phi i64 [ %gid, %entry ], [ %i1, %loop ]
  %sum = phi float [ 0.0, %entry ], [ %sum1, %loop ]
  %p = getelementptr float, ptr %in, i64 %i
  %x = load float, ptr %p, align 4
  %sum1 = fadd float %sum, %x
  %i1 = add i64 %i, 64
  %more = icmp ult i64 %i1, %n
  br i1 %more, label %loop, label %done
done:
  %s = phi float [ 0.0, %entry ], [ %sum1, %loop ]
  ret float %s
}
"#;

    #[test]
    fn a_loop_tested_at_its_bottom_under_a_guard_is_tested_at_its_top() {
        let ir = Ir::parse(GUARDED);
        assert_eq!(unsafe { run(ir.function("k")) }, 1);
        unsafe { compiler::llvm::verify(ir.m).unwrap() };
        let text = ir.text();
        // The new header holds the loop's phis and the test, whose phi is
        // the guard's condition first and the latch's after.
        let test = &text[text.find("\ntest:").expect(&text)..];
        assert!(
            test.contains("%i = phi i64 [ %gid, %entry ], [ %i1, %loop ]"),
            "{text}"
        );
        assert!(
            test.contains("%go1 = phi i1 [ %go, %entry ], [ %more, %loop ]"),
            "{text}"
        );
        assert!(
            test.contains("br i1 %go1, label %loop, label %done"),
            "{text}"
        );
        // The loop goes round through it, and the exit is reached from it
        // alone.
        assert!(
            text.contains("%more = icmp ult i64 %i1, %n\n  br label %test"),
            "{text}"
        );
        // The sum it leaves with is the loop's own phi of it, not a second
        // recurrence.
        let done = &text[text.find("\ndone:").unwrap()..];
        assert!(done.contains("%s = phi float [ %sum, %test ]"), "{text}");
        let header = &test[..test.find("\nloop:").unwrap()];
        assert_eq!(header.matches("phi float").count(), 1, "{text}");
    }

    /// The same loop over a pointer, whose start an optimizer computes in
    /// a preheader of the guard's.
    const GUARDED_WITH_PREHEADER: &str = r#"
define float @k(ptr %in, i64 %gid, i64 %n) {
entry:
  %go = icmp ult i64 %gid, %n
  br i1 %go, label %pre, label %done
pre:
  %start = getelementptr float, ptr %in, i64 %gid
  br label %loop
loop:
  %p = phi ptr [ %start, %pre ], [ %p1, %loop ]
  %i = phi i64 [ %gid, %pre ], [ %i1, %loop ]
  %sum = phi float [ 0.0, %pre ], [ %sum1, %loop ]
  %x = load float, ptr %p, align 4
  %sum1 = fadd float %sum, %x
  %p1 = getelementptr float, ptr %p, i64 64
  %i1 = add i64 %i, 64
  %more = icmp ult i64 %i1, %n
  br i1 %more, label %loop, label %done
done:
  %s = phi float [ 0.0, %entry ], [ %sum1, %loop ]
  ret float %s
}
"#;

    #[test]
    fn a_guarded_loop_with_a_preheader_is_tested_at_its_top() {
        let ir = Ir::parse(GUARDED_WITH_PREHEADER);
        assert_eq!(unsafe { run(ir.function("k")) }, 1);
        unsafe { compiler::llvm::verify(ir.m).unwrap() };
        let text = ir.text();
        // The guard goes through the preheader, whose start is computed
        // either way, into the test.
        assert!(
            text.contains("entry:\n  %go = icmp ult i64 %gid, %n\n  br label %pre"),
            "{text}"
        );
        assert!(
            text.contains("%start = getelementptr float, ptr %in, i64 %gid\n  br label %test"),
            "{text}"
        );
        let test = &text[text.find("\ntest:").expect(&text)..];
        assert!(
            test.contains("%go1 = phi i1 [ %go, %pre ], [ %more, %loop ]"),
            "{text}"
        );
        assert!(
            test.contains("%sum = phi float [ 0.000000e+00, %pre ], [ %sum1, %loop ]"),
            "{text}"
        );
        let done = &text[text.find("\ndone:").unwrap()..];
        assert!(done.contains("%s = phi float [ %sum, %test ]"), "{text}");
    }

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

    /// `for (j = 0; j < n; j++) { s += x * j; if (s > 1000) break; }`: the
    /// header's test, the body's, and the increment in a latch of its own.
    const BREAK: &str = r#"
declare float @llvm.fmuladd.f32(float, float, float)
define void @k(i32 %n, float %x, ptr %out) {
entry:
  br label %head
head:
  %j = phi i32 [ 0, %entry ], [ %j1, %inc ]
  %s = phi float [ 0.0, %entry ], [ %s1, %inc ]
  %more = icmp slt i32 %j, %n
  br i1 %more, label %body, label %done
body:
  %jf = sitofp i32 %j to float
  %s1 = call float @llvm.fmuladd.f32(float %x, float %jf, float %s)
  %big = fcmp ogt float %s1, 1000.0
  br i1 %big, label %done, label %inc
inc:
  %j1 = add nsw i32 %j, 1
  br label %head
done:
  %r = phi float [ %s, %head ], [ %s1, %body ]
  store float %r, ptr %out
  ret void
}
"#;

    #[test]
    fn a_loop_left_by_a_break_before_its_increment_is_left_once() {
        let ir = Ir::parse(BREAK);
        assert_eq!(unsafe { run(ir.function("k")) }, 1);
        unsafe { llvm::verify(ir.m) }.unwrap();
        let text = ir.text();
        assert!(
            !text.contains("\nbody:") && !text.contains("\ninc:"),
            "{text}"
        );
        // One test: the header's (negated: it stays on true) or the break's.
        assert!(text.contains("%leave = or i1"), "{text}");
        assert!(
            text.contains("br i1 %leave, label %done, label %head"),
            "{text}"
        );
        // The increment goes round with the sum; the exit takes the sum
        // the header had where its test left, else the new one.
        assert!(
            text.contains("[ %j1, %head ]") && text.contains("[ %s1, %head ]"),
            "{text}"
        );
        assert!(text.contains("float %s, float %s1"), "{text}");
    }

    #[test]
    fn a_latch_with_a_side_effect_after_a_break_is_left_alone() {
        let ir = Ir::parse(&BREAK.replace(
            "  %j1 = add nsw i32 %j, 1\n",
            "  %j1 = add nsw i32 %j, 1\n  store float %s1, ptr %out\n",
        ));
        let before = ir.text();
        assert_eq!(unsafe { run(ir.function("k")) }, 0);
        assert_eq!(ir.text(), before);
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

    /// `while (i < n && |z|² <= 4)` under `n > 0`, as Clang's `-O2`
    /// rotates it: the escape test at the top, `++i == n` at the bottom,
    /// the exit taking `i` from the top and `n` from the bottom.
    const ESCAPE: &str = r#"
define i32 @k(i32 %n, float %c) {
entry:
  %guard = icmp sgt i32 %n, 0
  br i1 %guard, label %pre, label %done
pre:
  br label %loop
loop:
  %z = phi float [ 0.0, %pre ], [ %z1, %next ]
  %i = phi i32 [ 0, %pre ], [ %i1, %next ]
  %zz = fmul float %z, %z
  %out = fcmp ugt float %zz, 4.0
  br i1 %out, label %done, label %next
next:
  %z1 = fadd float %zz, %c
  %i1 = add i32 %i, 1
  %last = icmp eq i32 %n, %i1
  br i1 %last, label %done, label %loop
done:
  %r = phi i32 [ 0, %entry ], [ %n, %next ], [ %i, %loop ]
  ret i32 %r
}
"#;

    #[test]
    fn a_rotated_loop_left_from_its_body_too_leaves_with_its_own_counter() {
        let ir = Ir::parse(ESCAPE);
        assert!(unsafe { run(ir.function("k")) } >= 1);
        unsafe { compiler::llvm::verify(ir.m).unwrap() };
        let text = ir.text();
        // One exit, which takes the counter's phi: `n` arrived from the
        // bottom test, equal to `i + 1` there, which the next turn's `i`
        // is; no choice between the edges.
        let done = &text[text.find("\ndone:").expect(&text)..];
        assert!(done.contains("%r = phi i32 [ %i, %test ]"), "{text}");
        assert!(!text.contains("select"), "{text}");
        let test = &text[text.find("\ntest:").expect(&text)..];
        assert!(test.contains("%i = phi i32 [ 0, %pre ], [ %i1, "), "{text}");
        assert_eq!(text.matches("phi i32").count(), 2, "{text}");
    }

    #[test]
    fn a_rotated_loop_left_from_its_body_with_another_value_keeps_the_choice() {
        // The bottom edge brings `n + 1`, no value of the loop's.
        let ir = Ir::parse(&ESCAPE.replace("[ %n, %next ]", "[ %n1, %next ]").replace(
            "  %last = icmp eq i32 %n, %i1\n",
            "  %last = icmp eq i32 %n, %i1\n  %n1 = add i32 %n, 1\n",
        ));
        assert!(unsafe { run(ir.function("k")) } >= 1);
        unsafe { compiler::llvm::verify(ir.m).unwrap() };
        let text = ir.text();
        // Folded as before: the two tests made one, the exit's value
        // chosen by the escape test.
        assert!(text.contains("select i1 %out, i32 %i, i32 %n1"), "{text}");
    }
}
