//! What a value is: an instruction, a constant integer.

use llvm_sys::core::*;
use llvm_sys::prelude::*;

pub(crate) unsafe fn is_instruction(v: LLVMValueRef) -> bool {
    !LLVMIsAInstruction(v).is_null()
}

pub(crate) unsafe fn const_int(v: LLVMValueRef) -> Option<i64> {
    if LLVMIsAConstantInt(v).is_null() {
        None
    } else {
        Some(LLVMConstIntGetSExtValue(v))
    }
}
