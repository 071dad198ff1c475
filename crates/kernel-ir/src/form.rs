//! Another form of a kernel (its vector form, its rows run together): an
//! empty function of the kernel's type to build it in, a whole copy to
//! change apart from it, and the check that keeps a form only if it
//! verifies.

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

/// A copy of `f`, `<f>.<suffix>`, with all its blocks: to change (leave
/// parts out of a form) where `f` itself stays as it is.
///
/// # Safety
/// `m` must be a live module and `f` a function with a body in it.
pub unsafe fn clone_of(m: LLVMModuleRef, f: LLVMValueRef, suffix: &str) -> LLVMValueRef {
    let c = copy_of(m, f, suffix);
    let ctx = LLVMGetModuleContext(m);
    let end = LLVMAppendBasicBlockInContext(ctx, c, c"end".as_ptr());
    let blocks = crate::cfg::blocks(f);
    let copies = crate::cfg::copy_blocks(&blocks, end, "", None);
    LLVMDeleteBasicBlock(end);
    let params: std::collections::HashMap<LLVMValueRef, LLVMValueRef> = (0..LLVMCountParams(f))
        .map(|k| (LLVMGetParam(f, k), LLVMGetParam(c, k)))
        .collect();
    let of = |v: LLVMValueRef| *params.get(&v).unwrap_or(&copies.of(v));
    for &bb in &blocks {
        for i in llvm::block_instructions(bb) {
            let copy = copies.of(i);
            if LLVMIsAPHINode(i).is_null() {
                for k in 0..LLVMGetNumOperands(copy) as u32 {
                    if let Some(&p) = params.get(&LLVMGetOperand(copy, k)) {
                        LLVMSetOperand(copy, k, p);
                    }
                }
                continue;
            }
            let (mut vs, mut bs): (Vec<_>, Vec<_>) = crate::cfg::incoming(i)
                .into_iter()
                .map(|(v, from)| (of(v), copies.blocks[&from]))
                .unzip();
            LLVMAddIncoming(copy, vs.as_mut_ptr(), bs.as_mut_ptr(), vs.len() as u32);
        }
    }
    c
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Ir;

    #[test]
    fn a_clone_is_the_function_again_on_its_own_parameters() {
        let ir = Ir::parse(
            r#"
define i32 @f(i32 %n, ptr %p) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  store i32 %i, ptr %p
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %loop, label %done
done:
  ret i32 %i1
}
"#,
        );
        unsafe {
            let c = clone_of(ir.m, ir.function("f"), "kept");
            compiler::llvm::verify(ir.m).unwrap();
            assert_eq!(llvm::name(c), "f.kept");
            let text = ir.text();
            let copy = &text[text.find("define internal i32 @f.kept").unwrap()..];
            assert!(
                copy.contains("%i = phi i32 [ 0, %entry ], [ %i1, %loop ]"),
                "{copy}"
            );
            assert!(copy.contains("store i32 %i, ptr %p"), "{copy}");
            assert!(copy.contains("icmp slt i32 %i1, %n"), "{copy}");
            // The original is untouched.
            assert_eq!(crate::cfg::blocks(ir.function("f")).len(), 3);
        }
    }
}
