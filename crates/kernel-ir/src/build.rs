//! Small IR builders the passes share: addresses and loads at byte
//! offsets from a pointer.

use compiler::llvm::cstr;
use llvm_sys::core::*;
use llvm_sys::prelude::*;

/// `ptr + offset` in bytes.
///
/// # Safety
/// `b` must be a positioned builder, `i8t` its context's `i8`.
pub unsafe fn byte_gep(
    b: LLVMBuilderRef,
    i8t: LLVMTypeRef,
    p: LLVMValueRef,
    offset: u64,
    name: &str,
) -> LLVMValueRef {
    let ctx = LLVMGetTypeContext(i8t);
    let mut idx = [LLVMConstInt(LLVMInt64TypeInContext(ctx), offset, 0)];
    LLVMBuildInBoundsGEP2(b, i8t, p, idx.as_mut_ptr(), 1, cstr(name).as_ptr())
}

/// Loads an `i64` at `p + offset`.
///
/// # Safety
/// As for [`byte_gep`].
pub unsafe fn load_i64(
    b: LLVMBuilderRef,
    i64t: LLVMTypeRef,
    i8t: LLVMTypeRef,
    p: LLVMValueRef,
    offset: u64,
    name: &str,
) -> LLVMValueRef {
    let at = byte_gep(b, i8t, p, offset, name);
    let l = LLVMBuildLoad2(b, i64t, at, cstr(name).as_ptr());
    LLVMSetAlignment(l, 8);
    l
}
