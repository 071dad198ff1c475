//! Streaming stores. A buffer of half the device's cache or more, written
//! by a kernel whose buffers together exceed the cache, cannot stay cached
//! once the kernel has written it, so storing to it through the cache only
//! costs a read of every line first (and evicts what could stay).
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
    let ctx = LLVMGetTypeContext(LLVMTypeOf(kernel));
    let kind = LLVMGetMDKindIDInContext(ctx, c"nontemporal".as_ptr(), 11);
    let mut one = [LLVMValueAsMetadata(LLVMConstInt(
        LLVMInt32TypeInContext(ctx),
        1,
        0,
    ))];
    let node = LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, one.as_mut_ptr(), 1));
    let mut marked = 0;
    for i in 0..LLVMCountParams(kernel).min(64) {
        if mask & (1 << i) == 0 {
            continue;
        }
        if let Some(stores) = only_stored_through(LLVMGetParam(kernel, i)) {
            for &store in &stores {
                LLVMSetMetadata(store, kind, node);
            }
            marked += stores.len();
        }
    }
    marked
}

/// The stores through `arg`, if every use of it (through address
/// arithmetic) is the address of a plain store: nothing reads the buffer,
/// and the pointer goes nowhere else (a select, a call, memory) where a
/// read could hide.
unsafe fn only_stored_through(arg: LLVMValueRef) -> Option<Vec<LLVMValueRef>> {
    let mut stores = Vec::new();
    let mut work = vec![arg];
    while let Some(p) = work.pop() {
        let mut u = LLVMGetFirstUse(p);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            if !LLVMIsAGetElementPtrInst(user).is_null() || !LLVMIsACastInst(user).is_null() {
                work.push(user);
            } else if !LLVMIsAStoreInst(user).is_null()
                && LLVMGetOperand(user, 1) == p
                && LLVMGetOperand(user, 0) != p
                && LLVMGetVolatile(user) == 0
            {
                stores.push(user);
            } else {
                return None;
            }
            u = LLVMGetNextUse(u);
        }
    }
    Some(stores)
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
    use kernel_ir::test_support::Ir;

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
    fn a_buffer_whose_address_goes_elsewhere_is_left_alone() {
        let ir = Ir::parse(
            r#"
define void @k(ptr addrspace(1) %out, ptr addrspace(1) %other, i1 %c, i64 %i) {
  %p = select i1 %c, ptr addrspace(1) %out, ptr addrspace(1) %other
  %v = load float, ptr addrspace(1) %p
  %dst = getelementptr float, ptr addrspace(1) %out, i64 %i
  store float %v, ptr addrspace(1) %dst
  ret void
}
"#,
        );
        assert_eq!(unsafe { run(ir.function("k"), 0b1) }, 0);
        assert!(!ir.text().contains("nontemporal"));
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
