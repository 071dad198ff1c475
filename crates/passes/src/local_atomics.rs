//! Atomics on `__local` memory become plain loads and stores. A work-group
//! runs on one thread from start to end (its work-items one after another),
//! and its local memory is that thread's alone, so nothing can come between
//! the read and the write: a locked read-modify-write would only cost time.
//! The new accesses carry no access group, so the vectorizer does not take
//! them for independent between work-items (two may hit the same word).
//! An atomic on a generic pointer is rewritten only when the pointer is
//! made from a `__local` one by casts and address arithmetic; otherwise it
//! may reach memory other threads share, and stays atomic.

use compiler::llvm;
use kernel_ir::abi::LOCAL_AS;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMAtomicRMWBinOp::*;
use llvm_sys::LLVMIntPredicate::*;

/// Rewrites the atomics on local memory in `f`; returns how many.
///
/// # Safety
/// `f` must be a live function whose context this thread owns.
pub unsafe fn run(f: LLVMValueRef) -> usize {
    let ctx = LLVMGetTypeContext(LLVMTypeOf(f));
    let b = LLVMCreateBuilderInContext(ctx);
    let mut rewritten = 0;
    for i in llvm::instructions(f) {
        let rmw = !LLVMIsAAtomicRMWInst(i).is_null();
        let cmpxchg = !LLVMIsAAtomicCmpXchgInst(i).is_null();
        if !(rmw || cmpxchg) {
            continue;
        }
        let ptr = LLVMGetOperand(i, 0);
        if !points_to_local(ptr) {
            continue;
        }
        LLVMPositionBuilderBefore(b, i);
        let done = if rmw {
            rewrite_rmw(b, i, ptr)
        } else {
            rewrite_cmpxchg(b, i, ptr)
        };
        if done {
            LLVMInstructionEraseFromParent(i);
            rewritten += 1;
        }
    }
    LLVMDisposeBuilder(b);
    rewritten
}

/// Whether `p` is a `__local` pointer, or one made from it by address
/// space casts and GEPs (instructions or constant expressions).
unsafe fn points_to_local(mut p: LLVMValueRef) -> bool {
    use llvm_sys::LLVMOpcode::*;
    loop {
        if LLVMGetPointerAddressSpace(LLVMTypeOf(p)) == LOCAL_AS {
            return true;
        }
        let opcode = if !LLVMIsAInstruction(p).is_null() {
            LLVMGetInstructionOpcode(p)
        } else if !LLVMIsAConstantExpr(p).is_null() {
            LLVMGetConstOpcode(p)
        } else {
            return false;
        };
        match opcode {
            LLVMAddrSpaceCast | LLVMGetElementPtr => p = LLVMGetOperand(p, 0),
            _ => return false,
        }
    }
}

/// `old = *p; *p = op(old, v); old` for the integer operations.
unsafe fn rewrite_rmw(b: LLVMBuilderRef, i: LLVMValueRef, ptr: LLVMValueRef) -> bool {
    let v = LLVMGetOperand(i, 1);
    let ty = LLVMTypeOf(v);
    if LLVMGetTypeKind(ty) != llvm_sys::LLVMTypeKind::LLVMIntegerTypeKind {
        return false;
    }
    let old = LLVMBuildLoad2(b, ty, ptr, c"old".as_ptr());
    let pick = |pred, b: LLVMBuilderRef| {
        let c = LLVMBuildICmp(b, pred, old, v, c"".as_ptr());
        LLVMBuildSelect(b, c, old, v, c"".as_ptr())
    };
    let new = match LLVMGetAtomicRMWBinOp(i) {
        LLVMAtomicRMWBinOpXchg => v,
        LLVMAtomicRMWBinOpAdd => LLVMBuildAdd(b, old, v, c"".as_ptr()),
        LLVMAtomicRMWBinOpSub => LLVMBuildSub(b, old, v, c"".as_ptr()),
        LLVMAtomicRMWBinOpAnd => LLVMBuildAnd(b, old, v, c"".as_ptr()),
        LLVMAtomicRMWBinOpNand => {
            let and = LLVMBuildAnd(b, old, v, c"".as_ptr());
            LLVMBuildNot(b, and, c"".as_ptr())
        }
        LLVMAtomicRMWBinOpOr => LLVMBuildOr(b, old, v, c"".as_ptr()),
        LLVMAtomicRMWBinOpXor => LLVMBuildXor(b, old, v, c"".as_ptr()),
        LLVMAtomicRMWBinOpMax => pick(LLVMIntSGT, b),
        LLVMAtomicRMWBinOpMin => pick(LLVMIntSLT, b),
        LLVMAtomicRMWBinOpUMax => pick(LLVMIntUGT, b),
        LLVMAtomicRMWBinOpUMin => pick(LLVMIntULT, b),
        _ => {
            // Not one of ours: leave the atomic (and drop the load).
            LLVMInstructionEraseFromParent(old);
            return false;
        }
    };
    LLVMBuildStore(b, new, ptr);
    LLVMReplaceAllUsesWith(i, old);
    true
}

/// `old = *p; *p = old == cmp ? new : old; {old, old == cmp}`.
unsafe fn rewrite_cmpxchg(b: LLVMBuilderRef, i: LLVMValueRef, ptr: LLVMValueRef) -> bool {
    let (cmp, new) = (LLVMGetOperand(i, 1), LLVMGetOperand(i, 2));
    let ty = LLVMTypeOf(cmp);
    let old = LLVMBuildLoad2(b, ty, ptr, c"old".as_ptr());
    let eq = LLVMBuildICmp(b, LLVMIntEQ, old, cmp, c"".as_ptr());
    let stored = LLVMBuildSelect(b, eq, new, old, c"".as_ptr());
    LLVMBuildStore(b, stored, ptr);
    let pair = LLVMGetUndef(LLVMTypeOf(i));
    let pair = LLVMBuildInsertValue(b, pair, old, 0, c"".as_ptr());
    let pair = LLVMBuildInsertValue(b, pair, eq, 1, c"".as_ptr());
    LLVMReplaceAllUsesWith(i, pair);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    #[test]
    fn local_atomics_become_loads_and_stores_global_ones_stay() {
        let ir = Ir::parse(
            r#"
define i32 @f(ptr addrspace(3) %l, ptr addrspace(1) %g, i32 %v) {
  %a = atomicrmw volatile add ptr addrspace(3) %l, i32 %v seq_cst
  %m = atomicrmw umax ptr addrspace(3) %l, i32 %a seq_cst
  %x = cmpxchg ptr addrspace(3) %l, i32 %m, i32 7 seq_cst seq_cst
  %old = extractvalue { i32, i1 } %x, 0
  %k = atomicrmw add ptr addrspace(1) %g, i32 %old seq_cst
  ret i32 %k
}
"#,
        );
        let n = unsafe { run(ir.function("f")) };
        assert_eq!(n, 3);
        unsafe { compiler::llvm::verify(ir.m).unwrap() };
        let text = ir.text();
        assert!(
            !text.contains("atomicrmw volatile add ptr addrspace(3)"),
            "{text}"
        );
        assert!(!text.contains("cmpxchg"), "{text}");
        assert!(text.contains("icmp ugt i32"), "{text}");
        assert!(text.contains("atomicrmw add ptr addrspace(1) %g"), "{text}");
    }

    #[test]
    fn generic_atomics_become_plain_only_when_made_from_a_local_pointer() {
        let ir = Ir::parse(
            r#"
@lv = internal addrspace(3) global [4 x i32] undef
define i32 @f(ptr addrspace(3) %l, ptr addrspace(4) %unknown, i32 %v) {
  %lg = addrspacecast ptr addrspace(3) %l to ptr addrspace(4)
  %lq = getelementptr i32, ptr addrspace(4) %lg, i64 1
  %a = atomicrmw add ptr addrspace(4) %lq, i32 %v seq_cst
  %b = atomicrmw add ptr addrspace(4) getelementptr (i32, ptr addrspace(4) addrspacecast (ptr addrspace(3) @lv to ptr addrspace(4)), i64 2), i32 %a seq_cst
  %c = atomicrmw xor ptr addrspace(4) %unknown, i32 %b seq_cst
  %x = cmpxchg ptr addrspace(4) %unknown, i32 %c, i32 7 seq_cst seq_cst
  %old = extractvalue { i32, i1 } %x, 0
  ret i32 %old
}
"#,
        );
        let n = unsafe { run(ir.function("f")) };
        assert_eq!(n, 2);
        unsafe { compiler::llvm::verify(ir.m).unwrap() };
        let text = ir.text();
        assert!(!text.contains("atomicrmw add"), "{text}");
        assert!(
            text.contains("atomicrmw xor ptr addrspace(4) %unknown"),
            "{text}"
        );
        assert!(text.contains("cmpxchg ptr addrspace(4) %unknown"), "{text}");
    }
}
