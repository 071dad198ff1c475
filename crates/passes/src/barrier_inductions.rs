//! Inductions of loops holding a barrier, split into a start and a count.
//!
//! An optimizer's strength reduction (a SPIR-V module made at `-O2`, say)
//! leaves `p = phi [start, %pre], [p + step, %latch]` for an index or an
//! address that starts per work-item (`row * n + lid`) and steps the same
//! for all (`+= 16`). Live across the loop's barrier, such a phi is kept
//! per work-item, and each region reads it back as a value the vectorizer
//! knows nothing about: its loads become gathers or tests at run time.
//!
//! Written as `start + count`, with `count = phi [0, %pre], [count + step,
//! %latch]` the same for every work-item, the count is kept once and the
//! start, made of ids and arguments, is computed again in each region
//! ([`barriers`](crate::barriers) does both). The sum, made where the phi
//! was used, is then an index or address whose stride the vectorizer sees.
//! Wrapping arithmetic is associative, so the sum is the phi's value
//! exactly.

use crate::barriers::{position_at_use, rematerializable, uses, REMAT_DEPTH};
use crate::uniformity::Uniformity;
use kernel_ir::builtin_kinds::{barrier_calls, Barrier};
use kernel_ir::cfg::{build_phi, incoming, phis, Cfg};
use kernel_ir::inductions::{step_of, Step};
use kernel_ir::loops::natural_loops;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMTypeKind;

/// Splits every such induction of `f`'s loops that hold a barrier; returns
/// how many.
///
/// # Safety
/// `f` must be a live function with a body.
pub unsafe fn run(f: LLVMValueRef) -> usize {
    let mut barrier_blocks: Vec<LLVMBasicBlockRef> = barrier_calls(f, Barrier::WorkGroup)
        .into_iter()
        .chain(barrier_calls(f, Barrier::SubGroup))
        .map(|c| LLVMGetInstructionParent(c))
        .collect();
    barrier_blocks.dedup();
    if barrier_blocks.is_empty() {
        return 0;
    }
    let cfg = Cfg::of(f);
    let uniformity = Uniformity::of(f);
    let mut found = Vec::new();
    for l in natural_loops(&cfg) {
        if !barrier_blocks
            .iter()
            .any(|b| l.body.contains(&cfg.index[b]))
        {
            continue;
        }
        let header = cfg.blocks[l.header];
        for p in phis(header) {
            // Scalar indices and addresses only.
            if !matches!(
                LLVMGetTypeKind(LLVMTypeOf(p)),
                LLVMTypeKind::LLVMIntegerTypeKind | LLVMTypeKind::LLVMPointerTypeKind
            ) {
                continue;
            }
            let ins = incoming(p);
            let [(a, ab), (b, bb)] = ins[..] else {
                continue;
            };
            let ((start, pre), (next, latch)) = match (
                l.body.contains(&cfg.index[&ab]),
                l.body.contains(&cfg.index[&bb]),
            ) {
                (false, true) => ((a, ab), (b, bb)),
                (true, false) => ((b, bb), (a, ab)),
                _ => continue,
            };
            let Some(step) = step_of(next, p, false, |v| uniformity.is_uniform(v)) else {
                continue;
            };
            let dominates_header = LLVMIsAInstruction(start).is_null()
                || cfg.dominates(LLVMGetInstructionParent(start), header);
            if uniformity.is_uniform(start)
                || !dominates_header
                || !rematerializable(start, REMAT_DEPTH)
            {
                continue;
            }
            found.push((p, start, pre, next, latch, step));
        }
    }
    let ctx = LLVMGetTypeContext(LLVMTypeOf(f));
    let b = LLVMCreateBuilderInContext(ctx);
    let i64t = LLVMInt64TypeInContext(ctx);
    for &(p, start, pre, next, latch, step) in &found {
        let is_pointer = LLVMGetTypeKind(LLVMTypeOf(p)) == LLVMTypeKind::LLVMPointerTypeKind;
        let count_ty = if is_pointer { i64t } else { LLVMTypeOf(p) };
        LLVMPositionBuilderBefore(b, p);
        let count = build_phi(b, count_ty, &[(LLVMConstNull(count_ty), pre)]);
        LLVMSetValueName2(count, c"count".as_ptr(), 5);
        LLVMPositionBuilderBefore(b, next);
        let count_next = match step {
            Step::Add(u) => LLVMBuildAdd(b, count, u, c"count.next".as_ptr()),
            Step::Sub(u) => LLVMBuildSub(b, count, u, c"count.next".as_ptr()),
            Step::Gep(_, u) => {
                let u = LLVMBuildSExtOrBitCast(b, u, i64t, c"".as_ptr());
                LLVMBuildAdd(b, count, u, c"count.next".as_ptr())
            }
        };
        let mut latch_value = count_next;
        let mut latch_block = latch;
        LLVMAddIncoming(count, &mut latch_value, &mut latch_block, 1);
        // Each use of the phi reads the sum, made just before it.
        for u in uses(p) {
            position_at_use(b, &u);
            let sum = match step {
                Step::Gep(ty, _) => {
                    let mut index = [count];
                    LLVMBuildGEP2(b, ty, start, index.as_mut_ptr(), 1, c"at".as_ptr())
                }
                _ => LLVMBuildAdd(b, start, count, c"at".as_ptr()),
            };
            LLVMSetOperand(u.user, u.operand, sum);
        }
        LLVMInstructionEraseFromParent(p);
        // The old step, if nothing else read it, and the sum it read.
        if LLVMGetFirstUse(next).is_null() {
            let operands: Vec<LLVMValueRef> = (0..LLVMGetNumOperands(next) as u32)
                .map(|k| LLVMGetOperand(next, k))
                .collect();
            LLVMInstructionEraseFromParent(next);
            // Only arithmetic: a call, a load or an atomic may have
            // effects of its own.
            for v in operands {
                let arithmetic = !LLVMIsABinaryOperator(v).is_null()
                    || !LLVMIsACastInst(v).is_null()
                    || !LLVMIsAGetElementPtrInst(v).is_null();
                if arithmetic && LLVMGetFirstUse(v).is_null() {
                    LLVMInstructionEraseFromParent(v);
                }
            }
        }
    }
    LLVMDisposeBuilder(b);
    found.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    const TILE_LOOP: &str = r#"
declare void @__mux_work_group_barrier(i32)
declare i64 @__mux_get_local_id(i32)
define void @k(ptr addrspace(1) %a, ptr addrspace(1) %b, ptr addrspace(3) %t, i32 %n) {
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %lid32 = trunc i64 %lid to i32
  %i0 = add i32 %lid32, %n
  %lid4 = shl i64 %lid, 2
  %p0 = getelementptr i8, ptr addrspace(1) %b, i64 %lid4
  %tp = getelementptr float, ptr addrspace(3) %t, i64 %lid
  br label %loop
loop:
  %i = phi i32 [ %i0, %entry ], [ %i.next, %loop ]
  %p = phi ptr addrspace(1) [ %p0, %entry ], [ %p.next, %loop ]
  %j = phi i32 [ 0, %entry ], [ %j.next, %loop ]
  %ix = sext i32 %i to i64
  %ap = getelementptr float, ptr addrspace(1) %a, i64 %ix
  %x = load float, ptr addrspace(1) %ap
  %y = load float, ptr addrspace(1) %p
  %s = fadd float %x, %y
  store float %s, ptr addrspace(3) %tp
  call void @__mux_work_group_barrier(i32 1)
  %i.next = add i32 %i, 16
  %p.next = getelementptr i8, ptr addrspace(1) %p, i32 %n
  %j.next = add i32 %j, 1
  %more = icmp slt i32 %j.next, %n
  br i1 %more, label %loop, label %done
done:
  %last = phi i32 [ %i, %loop ]
  store i32 %last, ptr addrspace(1) %a
  ret void
}
"#;

    #[test]
    fn a_varying_start_stepped_uniformly_becomes_the_start_plus_a_uniform_count() {
        let ir = Ir::parse(TILE_LOOP);
        let f = ir.function("k");
        assert_eq!(unsafe { run(f) }, 2, "{}", ir.text());
        unsafe { compiler::llvm::verify(ir.m) }.unwrap_or_else(|e| panic!("{e}\n{}", ir.text()));
        let text = ir.text();
        // The index and the address are now counts from zero, the same
        // for every work-item, added to their starts where they are read.
        assert!(
            text.contains("%count = phi i32 [ 0, %entry ], [ %count.next, %loop ]"),
            "{text}"
        );
        assert!(text.contains("%count.next = add i32 %count, 16"), "{text}");
        assert!(
            text.contains("phi i64 [ 0, %entry ], [ %count.next"),
            "{text}"
        );
        assert!(text.contains("= add i32 %i0, %count"), "{text}");
        assert!(
            text.contains("= getelementptr i8, ptr addrspace(1) %p0, i64 %count"),
            "{text}"
        );
        // The phi read after the loop reads the sum made in the latch.
        assert!(text.contains("%last = phi i32 [ %at"), "{text}");
        // A counter already uniform is left as it was.
        assert!(
            text.contains("%j = phi i32 [ 0, %entry ], [ %j.next, %loop ]"),
            "{text}"
        );
        assert!(!text.contains("%i = phi"), "{text}");
        assert!(!text.contains("%p = phi"), "{text}");
        // What crosses the barrier is then the counts, kept once, and the
        // starts, computed again: nothing per work-item but the sum.
        let r = unsafe { crate::barriers::run(ir.m, ir.function("k"), 8) }
            .unwrap()
            .expect("has barriers");
        unsafe { compiler::llvm::verify(ir.m) }.unwrap_or_else(|e| panic!("{e}\n{}", ir.text()));
        assert!(r.staged.is_some(), "{}", ir.text());
    }

    #[test]
    fn inductions_of_loops_without_barriers_or_with_loaded_starts_are_left_alone() {
        let ir = Ir::parse(
            r#"
declare void @__mux_work_group_barrier(i32)
declare i64 @__mux_get_local_id(i32)
define void @k(ptr addrspace(1) %a, i32 %n) {
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %lid32 = trunc i64 %lid to i32
  br label %plain
plain:
  %i = phi i32 [ %lid32, %entry ], [ %i.next, %plain ]
  %i.next = add i32 %i, 16
  %more = icmp slt i32 %i.next, %n
  br i1 %more, label %plain, label %mid
mid:
  %ap = getelementptr i32, ptr addrspace(1) %a, i64 %lid
  %loaded = load i32, ptr addrspace(1) %ap
  br label %loop
loop:
  %l = phi i32 [ %loaded, %mid ], [ %l.next, %loop ]
  %j = phi i32 [ 0, %mid ], [ %j.next, %loop ]
  store i32 %l, ptr addrspace(1) %a
  call void @__mux_work_group_barrier(i32 1)
  %l.next = add i32 %l, 16
  %j.next = add i32 %j, 1
  %again = icmp slt i32 %j.next, %n
  br i1 %again, label %loop, label %done
done:
  ret void
}
"#,
        );
        assert_eq!(unsafe { run(ir.function("k")) }, 0, "{}", ir.text());
    }
}
