//! Another form of a kernel (its vector form, its rows run together): an
//! empty function of the kernel's type to build it in, and the check that
//! keeps it only if it verifies.

use compiler::llvm::{self, cstr};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMAttributeFunctionIndex;

/// An empty internal function `<kernel>.<suffix>` to hold a form of
/// `kernel`: its type, calling convention, attributes and parameter names.
///
/// # Safety
/// `m` must be a live module and `kernel` a function in it.
pub unsafe fn copy_of(m: LLVMModuleRef, kernel: LLVMValueRef, suffix: &str) -> LLVMValueRef {
    let name = cstr(&format!("{}.{suffix}", llvm::name(kernel)));
    let f = LLVMAddFunction(m, name.as_ptr(), LLVMGlobalGetValueType(kernel));
    LLVMSetLinkage(f, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
    LLVMSetFunctionCallConv(f, LLVMGetFunctionCallConv(kernel));
    copy_attributes(kernel, f);
    for k in 0..LLVMCountParams(kernel) {
        let name = llvm::name(LLVMGetParam(kernel, k));
        LLVMSetValueName2(LLVMGetParam(f, k), name.as_ptr() as *const _, name.len());
    }
    f
}

/// The kernel's function and parameter attributes on its other form.
unsafe fn copy_attributes(from: LLVMValueRef, to: LLVMValueRef) {
    let params = LLVMCountParams(from);
    for idx in std::iter::once(LLVMAttributeFunctionIndex).chain(1..=params) {
        let n = LLVMGetAttributeCountAtIndex(from, idx);
        let mut attrs = vec![std::ptr::null_mut(); n as usize];
        LLVMGetAttributesAtIndex(from, idx, attrs.as_mut_ptr());
        for a in attrs {
            LLVMAddAttributeAtIndex(to, idx, a);
        }
    }
}

/// `f`, a function a pass made, if making it went well and it verifies;
/// otherwise it is deleted (`broken` says why), and the kernel goes on
/// without it.
///
/// # Safety
/// `f` must be a live function.
pub unsafe fn kept_if_verified(
    f: LLVMValueRef,
    made: Result<(), String>,
    broken: &str,
) -> Result<LLVMValueRef, String> {
    let checked = made.and_then(|()| {
        let failed = llvm_sys::analysis::LLVMVerifyFunction(
            f,
            llvm_sys::analysis::LLVMVerifierFailureAction::LLVMReturnStatusAction,
        );
        if failed != 0 {
            Err(broken.to_string())
        } else {
            Ok(f)
        }
    });
    checked.inspect_err(|_| LLVMDeleteFunction(f))
}
