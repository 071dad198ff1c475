//! Streaming stores. A buffer larger than the device's cache cannot stay
//! cached once a kernel has written it, so storing to it through the cache
//! only costs a read of every line first (and evicts what could stay).
//! Stores to such a buffer (the arguments in the specialization's mask)
//! are marked `!nontemporal` when the kernel never reads that buffer; the
//! code generator then writes around the cache. Such stores are weakly
//! ordered, so the work-group function ends with a fence
//! ([`fence_at_exit`]) before its results are read.

use compiler::llvm;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;

/// Marks the stores of `kernel` to the write-only arguments of `mask`
/// (bit per argument index); returns how many it marked.
///
/// # Safety
/// `kernel` must be a live function with a body.
pub unsafe fn run(kernel: LLVMValueRef, mask: u64) -> usize {
    if mask == 0 {
        return 0;
    }
    let params = LLVMCountParams(kernel).min(64);
    let arg_of = |p: LLVMValueRef| -> Option<u32> {
        let base = underlying(p);
        (0..params).find(|&i| LLVMGetParam(kernel, i) == base)
    };
    let insts = llvm::instructions(kernel);
    // Arguments the kernel reads, or hands to anything but a store.
    let mut read = 0u64;
    for &i in &insts {
        let pointers: Vec<LLVMValueRef> = match LLVMGetInstructionOpcode(i) {
            LLVMOpcode::LLVMLoad => vec![LLVMGetOperand(i, 0)],
            LLVMOpcode::LLVMStore => vec![LLVMGetOperand(i, 0)],
            LLVMOpcode::LLVMCall | LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg => (0
                ..LLVMGetNumOperands(i) as u32)
                .map(|k| LLVMGetOperand(i, k))
                .collect(),
            _ => Vec::new(),
        };
        for p in pointers {
            if let Some(a) = arg_of(p) {
                read |= 1 << a;
            }
        }
    }
    let ctx = LLVMGetTypeContext(LLVMTypeOf(kernel));
    let kind = LLVMGetMDKindIDInContext(ctx, c"nontemporal".as_ptr(), 11);
    let mut one = [LLVMValueAsMetadata(LLVMConstInt(
        LLVMInt32TypeInContext(ctx),
        1,
        0,
    ))];
    let node = LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, one.as_mut_ptr(), 1));
    let mut marked = 0;
    for &i in &insts {
        if LLVMIsAStoreInst(i).is_null() || LLVMGetVolatile(i) != 0 {
            continue;
        }
        match arg_of(LLVMGetOperand(i, 1)) {
            Some(a) if mask & !read & (1 << a) != 0 => {
                LLVMSetMetadata(i, kind, node);
                marked += 1;
            }
            _ => {}
        }
    }
    marked
}

/// What `p` points into: through GEPs and casts to its base.
unsafe fn underlying(mut p: LLVMValueRef) -> LLVMValueRef {
    loop {
        let next = if !LLVMIsAGetElementPtrInst(p).is_null() || !LLVMIsACastInst(p).is_null() {
            LLVMGetOperand(p, 0)
        } else if !LLVMIsAConstantExpr(p).is_null()
            && matches!(
                LLVMGetConstOpcode(p),
                LLVMOpcode::LLVMGetElementPtr
                    | LLVMOpcode::LLVMBitCast
                    | LLVMOpcode::LLVMAddrSpaceCast
            )
        {
            LLVMGetOperand(p, 0)
        } else {
            return p;
        };
        p = next;
    }
}

/// A sequentially consistent fence before every return of `wg`: the
/// streaming stores are visible to whoever reads the results next.
///
/// # Safety
/// `wg` must be a live function with a body.
pub unsafe fn fence_at_exit(wg: LLVMValueRef) {
    let b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(wg)));
    for i in llvm::instructions(wg) {
        if LLVMGetInstructionOpcode(i) == LLVMOpcode::LLVMRet {
            LLVMPositionBuilderBefore(b, i);
            LLVMBuildFence(
                b,
                llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingSequentiallyConsistent,
                0,
                c"".as_ptr(),
            );
        }
    }
    LLVMDisposeBuilder(b);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Ir;

    const KERNEL: &str = r#"
define void @k(ptr addrspace(1) %out, ptr addrspace(1) %in, ptr addrspace(1) %both, i64 %i) {
  %src = getelementptr float, ptr addrspace(1) %in, i64 %i
  %v = load float, ptr addrspace(1) %src
  %dst = getelementptr float, ptr addrspace(1) %out, i64 %i
  store float %v, ptr addrspace(1) %dst
  %b = getelementptr float, ptr addrspace(1) %both, i64 %i
  %w = load float, ptr addrspace(1) %b
  %x = fadd float %w, %v
  store float %x, ptr addrspace(1) %b
  ret void
}
"#;

    #[test]
    fn only_stores_to_large_write_only_buffers_stream() {
        let ir = Ir::parse(KERNEL);
        // All three arguments are large; only %out is never read.
        assert_eq!(unsafe { run(ir.function("k"), 0b111) }, 1);
        let text = ir.text();
        assert!(
            text.contains("store float %v, ptr addrspace(1) %dst, align 4, !nontemporal"),
            "{text}"
        );
        assert!(
            !text.contains("store float %x, ptr addrspace(1) %b, align 4, !nontemporal"),
            "{text}"
        );
    }

    #[test]
    fn small_buffers_are_left_alone() {
        let ir = Ir::parse(KERNEL);
        assert_eq!(unsafe { run(ir.function("k"), 0b110) }, 0);
        assert!(!ir.text().contains("nontemporal"));
    }

    #[test]
    fn the_fence_comes_before_the_return() {
        let ir = Ir::parse(KERNEL);
        unsafe { fence_at_exit(ir.function("k")) };
        assert!(
            ir.text().contains("fence seq_cst\n  ret void"),
            "{}",
            ir.text()
        );
    }
}
