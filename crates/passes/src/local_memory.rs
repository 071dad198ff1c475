//! Moves `__local` variables into the work-group's local block. Each worker
//! thread owns one block, reused for every work-group it runs: the kernel's
//! own variables come first, `__local` arguments after them.

use crate::constant_expr::replace_in_function;
use crate::work_item_loops::{DYNAMIC_LOCAL, PARAM_LOCAL};
use compiler::llvm::{self, cstr};
use compiler::LOCAL_ALIGN;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::*;

/// Address space of `__local` in the IR.
const LOCAL_AS: u32 = 3;

/// Lays out the `__local` variables `wg` uses and points them into its local
/// block; returns the bytes they take (a multiple of `LOCAL_ALIGN`).
///
/// # Safety
/// `m` must be a live module containing the work-group function `wg`.
pub unsafe fn run(m: LLVMModuleRef, wg: LLVMValueRef) -> Result<usize, String> {
    let ctx = LLVMGetModuleContext(m);
    let td = LLVMGetModuleDataLayout(m);
    let i8t = LLVMInt8TypeInContext(ctx);
    let i64t = LLVMInt64TypeInContext(ctx);
    let b = LLVMCreateBuilderInContext(ctx);
    let entry = LLVMGetEntryBasicBlock(wg);
    LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(entry));
    let local = LLVMGetParam(wg, PARAM_LOCAL);
    let local3 = LLVMBuildAddrSpaceCast(
        b,
        local,
        LLVMPointerTypeInContext(ctx, LOCAL_AS),
        c"local.as3".as_ptr(),
    );

    let mut end = 0usize;
    let mut result = Ok(());
    for g in llvm::globals(m) {
        if LLVMGetPointerAddressSpace(LLVMTypeOf(g)) != LOCAL_AS || LLVMGetFirstUse(g).is_null() {
            continue;
        }
        let ty = LLVMGlobalGetValueType(g);
        let align = (LLVMGetAlignment(g) as usize)
            .max(LLVMABIAlignmentOfType(td, ty) as usize)
            .max(1);
        let at = end.next_multiple_of(align);
        end = at + LLVMABISizeOfType(td, ty) as usize;
        let mut idx = [LLVMConstInt(i64t, at as u64, 0)];
        let name = cstr(&format!("{}.local", llvm::name(g)));
        let p = LLVMBuildInBoundsGEP2(b, i8t, local3, idx.as_mut_ptr(), 1, name.as_ptr());
        if let Err(e) = replace_in_function(wg, g, p) {
            result = Err(e);
            break;
        }
    }
    let static_size = end.next_multiple_of(LOCAL_ALIGN);

    let dynamic = cstr(DYNAMIC_LOCAL);
    let placeholder = LLVMGetNamedGlobal(m, dynamic.as_ptr());
    if result.is_ok() && !placeholder.is_null() {
        let mut idx = [LLVMConstInt(i64t, static_size as u64, 0)];
        let p = LLVMBuildInBoundsGEP2(
            b,
            i8t,
            local,
            idx.as_mut_ptr(),
            1,
            c"local.dynamic".as_ptr(),
        );
        result = replace_in_function(wg, placeholder, p);
        if result.is_ok() && LLVMGetFirstUse(placeholder).is_null() {
            LLVMDeleteGlobal(placeholder);
        }
    }
    LLVMDisposeBuilder(b);
    result.map(|_| static_size)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Ir;

    #[test]
    fn variables_are_laid_out_in_the_local_block() {
        let ir = Ir::parse(
            r#"
target datalayout = "e-m:e-i64:64-n8:16:32:64-S128"
@a = internal addrspace(3) global [3 x i32] undef, align 4
@b = internal addrspace(3) global [2 x double] undef, align 16
@__ferrocl_dynamic_local = external global i8
define void @wg(ptr %args, ptr %sched, ptr %local, i64 %first, i64 %last) {
  store i32 1, ptr addrspace(3) @a
  store double 2.0, ptr addrspace(3) @b
  %d = getelementptr i8, ptr @__ferrocl_dynamic_local, i64 8
  store i8 3, ptr %d
  ret void
}
"#,
        );
        let size = unsafe { run(ir.m, ir.function("wg")).unwrap() };
        unsafe { llvm::verify(ir.m).unwrap() };
        let text = ir.text();
        // a at 0 (12 bytes), b aligned to 16, the block rounded to LOCAL_ALIGN.
        assert!(
            text.contains("getelementptr inbounds i8, ptr addrspace(3) %local.as3, i64 16"),
            "{text}"
        );
        assert_eq!(size, LOCAL_ALIGN);
        assert!(
            text.contains(&format!(
                "getelementptr inbounds i8, ptr %local, i64 {LOCAL_ALIGN}"
            )),
            "{text}"
        );
        assert!(!text.contains("@__ferrocl_dynamic_local"), "{text}");
    }
}
