//! Where a generic pointer points. On the host every memory is one address
//! space, so the builtins that ask (`__mux_is_local` and `__mux_is_private`,
//! behind `to_local`, `to_private`, `to_global` and `get_fence`) compare
//! the address with the work-group function's blocks:
//! - local memory is the `local` block, which ends where `storage` begins
//!   (the pool hands out both as one allocation, the local bytes rounded
//!   up to `LOCAL_ALIGN` first, see `mux::Kernel::run_groups`);
//! - a work-item's private memory is the work-group function's stack frame
//!   (everything is inlined into it): from the stack pointer where the
//!   question is asked up to the frame address; or the storage block,
//!   where what lives across a barrier is kept (private arrays among it);
//!   or the packed arguments, which a kernel reads its by-value structs
//!   from in place.

use builtins::mux as names;
use compiler::llvm;
use kernel_ir::abi::{PARAM_ARGS, PARAM_LOCAL, PARAM_STORAGE};
use kernel_ir::build::intrinsic_call;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMIntPredicate::LLVMIntULT;

/// Replaces the calls of `__mux_is_local` and `__mux_is_private` in the
/// work-group function `wg`, whose storage block holds `storage_bytes`
/// and whose packed arguments `args_bytes`; returns how many.
///
/// # Safety
/// `m` must be a live module whose function `wg` was built by
/// [`crate::work_item_loops`] and has had everything inlined.
pub unsafe fn run(
    m: LLVMModuleRef,
    wg: LLVMValueRef,
    storage_bytes: usize,
    args_bytes: usize,
) -> usize {
    let calls: Vec<(LLVMValueRef, bool)> = llvm::instructions(wg)
        .into_iter()
        .filter_map(|i| {
            let name = llvm::name(llvm::called_function(i)?);
            match name.as_str() {
                names::IS_LOCAL => Some((i, true)),
                names::IS_PRIVATE => Some((i, false)),
                _ => None,
            }
        })
        .collect();
    if calls.is_empty() {
        return 0;
    }
    let ctx = LLVMGetModuleContext(m);
    let i64t = LLVMInt64TypeInContext(ctx);
    let ptr = LLVMPointerTypeInContext(ctx, 0);
    let b = LLVMCreateBuilderInContext(ctx);
    let int = |b, v, name: &str| LLVMBuildPtrToInt(b, v, i64t, llvm::cstr(name).as_ptr());
    // `lo <= p < lo + size`, as one unsigned comparison.
    let within = |b, p, lo, size| {
        let off = LLVMBuildSub(b, p, lo, c"".as_ptr());
        LLVMBuildICmp(b, LLVMIntULT, off, size, c"".as_ptr())
    };

    // The blocks' bounds, once, in the entry block after its allocas.
    let mut top = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(wg));
    while !LLVMIsAAllocaInst(top).is_null() {
        top = LLVMGetNextInstruction(top);
    }
    LLVMPositionBuilderBefore(b, top);
    let local = int(b, LLVMGetParam(wg, PARAM_LOCAL), "local.begin");
    let storage = int(b, LLVMGetParam(wg, PARAM_STORAGE), "storage.begin");
    let local_bytes = LLVMBuildSub(b, storage, local, c"local.bytes".as_ptr());
    let asks_private = calls.iter().any(|&(_, local)| !local);
    let (frame, args) = if asks_private {
        let mut zero = [LLVMConstInt(LLVMInt32TypeInContext(ctx), 0, 0)];
        let fa = intrinsic_call(m, b, "llvm.frameaddress", &[ptr], &mut zero);
        // The frame must hold every private object: none below the stack
        // pointer, in the red zone a leaf function may use.
        let kind = LLVMGetEnumAttributeKindForName(c"noredzone".as_ptr(), 9);
        let attr = LLVMCreateEnumAttribute(ctx, kind, 0);
        LLVMAddAttributeAtIndex(wg, llvm_sys::LLVMAttributeFunctionIndex, attr);
        let args = int(b, LLVMGetParam(wg, PARAM_ARGS), "args.begin");
        (int(b, fa, "frame.end"), args)
    } else {
        (std::ptr::null_mut(), std::ptr::null_mut())
    };

    for &(call, is_local) in &calls {
        LLVMPositionBuilderBefore(b, call);
        let p = int(b, LLVMGetOperand(call, 0), "generic.address");
        let answer = if is_local {
            within(b, p, local, local_bytes)
        } else {
            let sp = intrinsic_call(m, b, "llvm.stacksave", &[ptr], &mut []);
            let sp = int(b, sp, "stack.pointer");
            let frame_bytes = LLVMBuildSub(b, frame, sp, c"".as_ptr());
            let on_stack = within(b, p, sp, frame_bytes);
            let stored = within(b, p, storage, LLVMConstInt(i64t, storage_bytes as u64, 0));
            let packed = within(b, p, args, LLVMConstInt(i64t, args_bytes as u64, 0));
            let either = LLVMBuildOr(b, on_stack, stored, c"".as_ptr());
            LLVMBuildOr(b, either, packed, c"is.private".as_ptr())
        };
        LLVMReplaceAllUsesWith(call, answer);
        LLVMInstructionEraseFromParent(call);
    }
    LLVMDisposeBuilder(b);
    calls.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    const WG: &str = r#"
declare i1 @__mux_is_local(ptr addrspace(4))
declare i1 @__mux_is_private(ptr addrspace(4))
define void @wg(ptr %args, ptr %schedule_info, ptr %local, i64 %first, i64 %last, ptr %storage) {
  %x = alloca i32
  br label %items
items:
  %g = addrspacecast ptr %x to ptr addrspace(4)
  %l = call i1 @__mux_is_local(ptr addrspace(4) %g)
  %p = call i1 @__mux_is_private(ptr addrspace(4) %g)
  %both = and i1 %l, %p
  store i1 %both, ptr %args
  ret void
}
"#;

    #[test]
    fn local_is_the_block_before_storage_private_the_frame_storage_and_arguments() {
        let ir = Ir::parse(WG);
        let n = unsafe { run(ir.m, ir.function("wg"), 256, 24) };
        assert_eq!(n, 2);
        unsafe { llvm::verify(ir.m).unwrap() };
        let text = ir.text();
        let body = &text[text.find("define void @wg").unwrap()..];
        assert!(!body.contains("@__mux_is_"), "{text}");
        // The bounds are computed once, in the entry block.
        let entry = &body[..body.find("items:").unwrap()];
        assert!(
            entry.contains("%local.bytes = sub i64 %storage.begin, %local.begin"),
            "{text}"
        );
        assert!(
            entry.contains("call ptr @llvm.frameaddress.p0(i32 0)"),
            "{text}"
        );
        // Local: [local, storage).
        let items = &body[body.find("items:").unwrap()..];
        assert!(
            items.contains("sub i64 %generic.address, %local.begin"),
            "{text}"
        );
        assert!(items.contains(", %local.bytes"), "{text}");
        // Private: [stack pointer, frame), the storage block's 256 bytes,
        // the arguments' 24.
        assert!(items.contains("call ptr @llvm.stacksave.p0()"), "{text}");
        assert!(
            items.contains("sub i64 %generic.address1, %stack.pointer"),
            "{text}"
        );
        assert!(
            items.contains("sub i64 %generic.address1, %storage.begin"),
            "{text}"
        );
        assert!(items.contains(", 256"), "{text}");
        assert!(items.contains(", 24"), "{text}");
        assert!(text.contains("noredzone"), "{text}");
    }

    #[test]
    fn a_function_that_does_not_ask_is_left_alone() {
        let ir = Ir::parse(
            r#"
define void @wg(ptr %args, ptr %schedule_info, ptr %local, i64 %first, i64 %last, ptr %storage) {
  store i32 0, ptr %args
  ret void
}
"#,
        );
        let before = ir.text();
        assert_eq!(unsafe { run(ir.m, ir.function("wg"), 0, 0) }, 0);
        assert_eq!(ir.text(), before);
    }

    #[test]
    fn only_local_questions_keep_the_red_zone() {
        let ir = Ir::parse(&WG.replace(
            "%p = call i1 @__mux_is_private(ptr addrspace(4) %g)",
            "%p = call i1 @__mux_is_local(ptr addrspace(4) %g)",
        ));
        assert_eq!(unsafe { run(ir.m, ir.function("wg"), 0, 0) }, 2);
        unsafe { llvm::verify(ir.m).unwrap() };
        let text = ir.text();
        assert!(!text.contains("frameaddress"), "{text}");
        assert!(!text.contains("noredzone"), "{text}");
    }
}
