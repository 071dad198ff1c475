//! Implicit barriers in uniform loops. A work-item loop vectorizes only
//! what is straight-line code per work-item: a kernel whose work lies in
//! an inner loop (`for k < n: acc += a[..k] * b[k..]`) runs that loop one
//! work-item at a time. When every work-item runs the loop the same number
//! of times, a barrier at the top of its header changes nothing a kernel
//! may observe (work-items without barriers may run in any interleaving),
//! yet makes each iteration a barrier region: the region pass then runs
//! iteration `k` for all the work-items in one vectorized work-item loop,
//! with the loop's live values (the accumulator) in per-work-item storage
//! laid out for contiguous vector access.
//!
//! A loop gets the barrier when it is innermost, holds no barrier of its
//! own, is reached by all work-items or none, leaves only on uniform
//! conditions, does per-work-item work (something in it is varying), works
//! on scalars (LLVM's loop vectorizer does not widen code that is already
//! vector code, so a `float8` loop would only pay for the storage), and
//! does not run a small constant number of times (such a loop is unrolled
//! and vectorized whole by LLVM already).

use crate::uniformity::Uniformity;
use compiler::llvm::{self, cstr};
use kernel_ir::builtin_kinds::{is_barrier, Barrier};
use kernel_ir::cfg::Cfg;
use kernel_ir::loops::{natural_loops, Loop};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;
use std::collections::HashSet;

/// A loop bound at or below this constant is left alone.
const SMALL_TRIP_COUNT: u64 = 32;

/// Adds the barriers to `kernel` (everything it calls inlined); returns
/// how many loops got one.
///
/// # Safety
/// `m` must be a live module whose context this thread owns; `kernel` a
/// function defined in it.
pub unsafe fn run(m: LLVMModuleRef, kernel: LLVMValueRef) -> usize {
    scalarize_picked_loads(kernel);
    let cfg = Cfg::of(kernel);
    let uniformity = Uniformity::of(kernel);
    let loops = natural_loops(&cfg);
    let headers: HashSet<usize> = loops.iter().map(|l| l.header).collect();
    let chosen: Vec<LLVMBasicBlockRef> = loops
        .iter()
        .filter(|l| {
            l.body
                .iter()
                .all(|b| *b == l.header || !headers.contains(b))
        })
        .filter(|l| qualifies(&cfg, &uniformity, l))
        .map(|l| cfg.blocks[l.header])
        .collect();
    if chosen.is_empty() {
        return 0;
    }
    let barrier = barrier_function(m);
    let ctx = LLVMGetModuleContext(m);
    let b = LLVMCreateBuilderInContext(ctx);
    let ty = LLVMGlobalGetValueType(barrier);
    for &header in &chosen {
        LLVMPositionBuilderBefore(b, first_non_phi(header));
        // No memory fence: the barrier orders work-items, nothing more.
        let mut args = [LLVMConstInt(LLVMInt32TypeInContext(ctx), 0, 0)];
        LLVMBuildCall2(b, ty, barrier, args.as_mut_ptr(), 1, c"".as_ptr());
    }
    LLVMDisposeBuilder(b);
    chosen.len()
}

unsafe fn first_non_phi(bb: LLVMBasicBlockRef) -> LLVMValueRef {
    let mut i = LLVMGetFirstInstruction(bb);
    while !LLVMIsAPHINode(i).is_null() {
        i = LLVMGetNextInstruction(i);
    }
    i
}

unsafe fn qualifies(cfg: &Cfg, u: &Uniformity, l: &Loop) -> bool {
    if !u.reached_by_all(cfg.blocks[l.header]) {
        return false;
    }
    let mut varying = false;
    for &x in &l.body {
        let bb = cfg.blocks[x];
        let t = LLVMGetBasicBlockTerminator(bb);
        let leaves = cfg.succs[x].iter().any(|s| !l.body.contains(s));
        match LLVMGetInstructionOpcode(t) {
            LLVMOpcode::LLVMBr if LLVMIsConditional(t) != 0 => {
                let c = LLVMGetCondition(t);
                if leaves && (!u.is_uniform(c) || small_bound(c)) {
                    return false;
                }
            }
            LLVMOpcode::LLVMBr => {}
            LLVMOpcode::LLVMSwitch if leaves => return false,
            LLVMOpcode::LLVMSwitch => {}
            // A return or trap inside: not every iteration ends at the latch.
            _ => return false,
        }
        let mut i = LLVMGetFirstInstruction(bb);
        while !i.is_null() {
            if llvm::called_function(i).is_some_and(|f| is_barrier(f, Barrier::WorkGroup)) {
                return false;
            }
            if writes_or_makes_a_vector(i) {
                return false;
            }
            varying |= !u.is_uniform(i);
            i = LLVMGetNextInstruction(i);
        }
    }
    varying
}

unsafe fn writes_or_makes_a_vector(i: LLVMValueRef) -> bool {
    let is_vector = |v: LLVMValueRef| {
        matches!(
            LLVMGetTypeKind(LLVMTypeOf(v)),
            llvm_sys::LLVMTypeKind::LLVMVectorTypeKind
                | llvm_sys::LLVMTypeKind::LLVMScalableVectorTypeKind
        )
    };
    is_vector(i) || (!LLVMIsAStoreInst(i).is_null() && is_vector(LLVMGetOperand(i, 0)))
}

/// Turns each vector load whose every use picks one constant lane
/// (`float4 q = tile[j]; ... q.x ... q.y`) into loads of those lanes, so
/// that a loop over such values is scalar code the vectorizer can widen
/// across work-items.
unsafe fn scalarize_picked_loads(f: LLVMValueRef) {
    let b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(f)));
    for load in llvm::instructions(f) {
        if LLVMIsALoadInst(load).is_null()
            || LLVMGetVolatile(load) != 0
            || LLVMGetOrdering(load) != llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic
        {
            continue;
        }
        let ty = LLVMTypeOf(load);
        if LLVMGetTypeKind(ty) != llvm_sys::LLVMTypeKind::LLVMVectorTypeKind {
            continue;
        }
        let mut users = Vec::new();
        let mut u = LLVMGetFirstUse(load);
        while !u.is_null() {
            users.push(LLVMGetUser(u));
            u = LLVMGetNextUse(u);
        }
        let lanes = LLVMGetVectorSize(ty) as u64;
        let picks = users.iter().all(|&x| {
            // A lane past the end picks poison, not memory: left alone.
            !LLVMIsAExtractElementInst(x).is_null()
                && !LLVMIsAConstantInt(LLVMGetOperand(x, 1)).is_null()
                && LLVMConstIntGetZExtValue(LLVMGetOperand(x, 1)) < lanes
        });
        if users.is_empty() || !picks {
            continue;
        }
        let elem = LLVMGetElementType(ty);
        let ptr = LLVMGetOperand(load, 0);
        let align = LLVMGetAlignment(load);
        let ctx = LLVMGetTypeContext(ty);
        for x in users {
            let lane = LLVMConstIntGetZExtValue(LLVMGetOperand(x, 1));
            LLVMPositionBuilderBefore(b, load);
            let at = if lane == 0 {
                ptr
            } else {
                let mut idx = [LLVMConstInt(LLVMInt64TypeInContext(ctx), lane, 0)];
                LLVMBuildInBoundsGEP2(b, elem, ptr, idx.as_mut_ptr(), 1, c"lane".as_ptr())
            };
            let v = LLVMBuildLoad2(b, elem, at, c"".as_ptr());
            // The lane's alignment: what the vector's gives at that offset.
            let layout = llvm_sys::target::LLVMGetModuleDataLayout(LLVMGetGlobalParent(f));
            let size = llvm_sys::target::LLVMABISizeOfType(layout, elem) as u32;
            let offset = lane as u32 * size;
            let lane_align = if offset == 0 {
                align
            } else {
                align.min(1 << offset.trailing_zeros())
            };
            LLVMSetAlignment(v, lane_align.max(1));
            copy_metadata(load, v);
            LLVMReplaceAllUsesWith(x, v);
            LLVMInstructionEraseFromParent(x);
        }
        LLVMInstructionEraseFromParent(load);
    }
    LLVMDisposeBuilder(b);
}

/// Carries `from`'s type-based alias information over to `to`.
unsafe fn copy_metadata(from: LLVMValueRef, to: LLVMValueRef) {
    let kind = "tbaa";
    let ctx = LLVMGetTypeContext(LLVMTypeOf(from));
    let id = LLVMGetMDKindIDInContext(ctx, kind.as_ptr() as *const _, kind.len() as u32);
    let md = LLVMGetMetadata(from, id);
    if !md.is_null() {
        LLVMSetMetadata(to, id, md);
    }
}

/// An exit test against a small constant: a short fixed loop.
unsafe fn small_bound(condition: LLVMValueRef) -> bool {
    if LLVMIsAICmpInst(condition).is_null() {
        return false;
    }
    (0..2).any(|k| {
        let o = LLVMGetOperand(condition, k);
        !LLVMIsAConstantInt(o).is_null()
            && LLVMConstIntGetSExtValue(o).unsigned_abs() <= SMALL_TRIP_COUNT
    })
}

/// `void __mux_work_group_barrier(i32)`, declared if the module lacks it.
unsafe fn barrier_function(m: LLVMModuleRef) -> LLVMValueRef {
    let name = cstr(Barrier::WorkGroup.name());
    let f = LLVMGetNamedFunction(m, name.as_ptr());
    if !f.is_null() {
        return f;
    }
    let ctx = LLVMGetModuleContext(m);
    let mut params = [LLVMInt32TypeInContext(ctx)];
    let ty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), params.as_mut_ptr(), 1, 0);
    LLVMAddFunction(m, name.as_ptr(), ty)
}

#[cfg(test)]
const DECLS: &str = "
declare i64 @__mux_get_local_id(i32)
declare void @__mux_work_group_barrier(i32)
";

#[cfg(test)]
/// `acc += p[k * 64 + lid]` for `k < n`: a uniform loop of varying work.
pub(crate) fn tests_support_gemm(bound: &str, guard: bool) -> String {
    let entry = if guard {
        "  %lid = call i64 @__mux_get_local_id(i32 0)
  %in = icmp ult i64 %lid, 7
  br i1 %in, label %pre, label %out
pre:
  br label %loop"
    } else {
        "  %lid = call i64 @__mux_get_local_id(i32 0)
  br label %loop"
    };
    let from = if guard { "%pre" } else { "%entry" };
    format!(
        "{DECLS}
define void @k(ptr %p, i32 %n) {{
entry:
{entry}
loop:
  %k = phi i32 [ 0, {from} ], [ %k1, %loop ]
  %acc = phi float [ 0.0, {from} ], [ %acc1, %loop ]
  %row = mul i32 %k, 64
  %row64 = sext i32 %row to i64
  %at = add i64 %row64, %lid
  %q = getelementptr float, ptr %p, i64 %at
  %v = load float, ptr %q
  %acc1 = fadd float %acc, %v
  %k1 = add i32 %k, 1
  %more = icmp slt i32 %k1, {bound}
  br i1 %more, label %loop, label %out
out:
  ret void
}}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    use super::DECLS;

    fn barriers(ir: &Ir, f: &str) -> usize {
        unsafe { kernel_ir::builtin_kinds::barrier_calls(ir.function(f), Barrier::WorkGroup).len() }
    }

    use super::tests_support_gemm as gemm_like;

    #[test]
    fn a_uniform_loop_of_per_item_work_gets_a_barrier_at_its_header() {
        let ir = Ir::parse(&gemm_like("%n", false));
        assert_eq!(unsafe { run(ir.m, ir.function("k")) }, 1);
        assert_eq!(barriers(&ir, "k"), 1);
        let text = ir.text();
        let header = &text[text.find("\nloop:").unwrap()..];
        let phis_then_barrier =
            header.find("phi float").unwrap() < header.find("@__mux_work_group_barrier").unwrap();
        assert!(phis_then_barrier, "{text}");
        assert!(
            header.find("@__mux_work_group_barrier").unwrap() < header.find("mul i32").unwrap()
        );
    }

    #[test]
    fn short_fixed_loops_and_loops_behind_a_varying_branch_are_left_alone() {
        let ir = Ir::parse(&gemm_like("16", false));
        assert_eq!(unsafe { run(ir.m, ir.function("k")) }, 0);
        let ir = Ir::parse(&gemm_like("%n", true));
        assert_eq!(unsafe { run(ir.m, ir.function("k")) }, 0);
        assert_eq!(barriers(&ir, "k"), 0);
    }

    #[test]
    fn vector_loads_picked_lane_by_lane_become_scalar_loads() {
        let text = gemm_like("%n", false).replace(
            "%v = load float, ptr %q",
            "%w = load <4 x float>, ptr %q, align 16\n  %v0 = extractelement <4 x float> %w, i32 0\n  %v2 = extractelement <4 x float> %w, i32 2\n  %v = fadd float %v0, %v2",
        );
        let ir = Ir::parse(&text);
        assert_eq!(unsafe { run(ir.m, ir.function("k")) }, 1, "{}", ir.text());
        let out = ir.text();
        assert!(!out.contains("<4 x float>"), "{out}");
        assert!(out.contains("load float, ptr %q, align 16"), "{out}");
        assert!(
            out.contains("getelementptr inbounds float, ptr %q, i64 2"),
            "{out}"
        );
        assert!(out.contains("align 8"), "{out}");
    }

    #[test]
    fn a_lane_past_the_end_keeps_the_vector_load() {
        let text = gemm_like("%n", false).replace(
            "%v = load float, ptr %q",
            "%w = load <4 x float>, ptr %q\n  %v = extractelement <4 x float> %w, i32 5",
        );
        let ir = Ir::parse(&text);
        unsafe { run(ir.m, ir.function("k")) };
        assert!(
            ir.text().contains("load <4 x float>, ptr %q"),
            "{}",
            ir.text()
        );
    }

    #[test]
    fn a_loop_of_vector_code_is_left_alone() {
        let text = gemm_like("%n", false).replace(
            "%v = load float, ptr %q",
            "%w = load <2 x float>, ptr %q\n  %w2 = fmul <2 x float> %w, %w\n  %v = extractelement <2 x float> %w2, i32 0",
        );
        let ir = Ir::parse(&text);
        assert_eq!(unsafe { run(ir.m, ir.function("k")) }, 0);
    }

    #[test]
    fn a_loop_left_on_a_varying_condition_is_left_alone() {
        let ir = Ir::parse(&format!(
            "{DECLS}
define void @k(ptr %p) {{
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i1, %loop ]
  %i1 = add i64 %i, 1
  %more = icmp ult i64 %i1, %lid
  br i1 %more, label %loop, label %out
out:
  %q = getelementptr i64, ptr %p, i64 %lid
  store i64 %i1, ptr %q
  ret void
}}"
        ));
        assert_eq!(unsafe { run(ir.m, ir.function("k")) }, 0);
    }
}

#[cfg(test)]
mod regions_tests {
    use super::tests_support_gemm as gemm_like;
    use kernel_ir::test_support::Ir;

    #[test]
    fn the_loop_counter_is_staged_once_and_the_accumulator_kept_per_item() {
        let ir = Ir::parse(&gemm_like("%n", false));
        unsafe {
            assert_eq!(super::run(ir.m, ir.function("k")), 1);
            let r = crate::barriers::run(ir.m, ir.function("k"), 16)
                .unwrap()
                .unwrap();
            compiler::llvm::verify(ir.m).unwrap();
            assert_eq!(r.staged, Some((64, 128, 4)), "{}", ir.text());
        }
    }
}
