//! Moves `__local` variables into the work-group's local block. Each worker
//! thread owns one block, reused for every work-group it runs: the kernel's
//! own variables come first, `__local` arguments after them.
//!
//! The work-group collectives' scratch (`__mux_get_work_group_scratch`) and
//! the sub-group functions' (`__mux_get_sub_group_scratch`) are local memory
//! too, which the kernel does not declare: this pass, which lays out the
//! rest, defines each as one more variable, so that the static size the
//! host allocates counts it.

use crate::constant_expr::replace_in_function;
use crate::work_item_loops::DYNAMIC_LOCAL;
use compiler::llvm::{self, cstr};
use compiler::LOCAL_ALIGN;
use kernel_ir::abi::{LOCAL_AS, PARAM_LOCAL};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::*;

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

    define_scratch(
        m,
        wg,
        builtins::mux::GET_WORK_GROUP_SCRATCH,
        builtins::mux::WORK_GROUP_SCRATCH_BYTES,
        8,
        WORK_GROUP_SCRATCH,
    );
    define_scratch(
        m,
        wg,
        builtins::mux::GET_SUB_GROUP_SCRATCH,
        builtins::mux::SUB_GROUP_SCRATCH_BYTES,
        builtins::mux::SUB_GROUP_SCRATCH_ALIGN as u32,
        SUB_GROUP_SCRATCH,
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

/// Names of the variables the collectives' scratches become.
const WORK_GROUP_SCRATCH: &str = "__ferrocl_work_group_scratch";
const SUB_GROUP_SCRATCH: &str = "__ferrocl_sub_group_scratch";

/// Turns the calls of `getter` in `wg` into a `__local` variable `name` of
/// `bytes`, aligned to `align`. Its accesses lose their access group: each
/// work-item combines its value with what the one before it left there, a
/// dependence between iterations of the work-item loop that the loop's
/// parallel annotation would deny.
unsafe fn define_scratch(
    m: LLVMModuleRef,
    wg: LLVMValueRef,
    getter: &str,
    bytes: usize,
    align: u32,
    name: &str,
) {
    let calls: Vec<LLVMValueRef> = llvm::instructions(wg)
        .into_iter()
        .filter(|&i| llvm::called_function(i).is_some_and(|f| llvm::name(f) == getter))
        .collect();
    if calls.is_empty() {
        return;
    }
    let ctx = LLVMGetModuleContext(m);
    let ty = LLVMArrayType2(LLVMInt8TypeInContext(ctx), bytes as u64);
    let name = cstr(name);
    let g = LLVMAddGlobalInAddressSpace(m, ty, name.as_ptr(), LOCAL_AS);
    LLVMSetLinkage(g, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
    LLVMSetInitializer(g, LLVMGetUndef(ty));
    LLVMSetAlignment(g, align);
    let kind = LLVMGetMDKindIDInContext(ctx, c"llvm.access.group".as_ptr(), 17);
    for call in calls {
        drop_access_groups(call, kind);
        LLVMReplaceAllUsesWith(call, g);
        LLVMInstructionEraseFromParent(call);
    }
}

/// Removes metadata `kind` from every instruction that reaches memory
/// through pointer `p` (or a pointer computed from it).
unsafe fn drop_access_groups(p: LLVMValueRef, kind: u32) {
    let mut seen = std::collections::HashSet::new();
    let mut pointers = vec![p];
    while let Some(v) = pointers.pop() {
        let mut u = LLVMGetFirstUse(v);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            u = LLVMGetNextUse(u);
            if LLVMIsAInstruction(user).is_null() || !seen.insert(user) {
                continue;
            }
            let forwards = !LLVMIsAGetElementPtrInst(user).is_null()
                || !LLVMIsACastInst(user).is_null()
                || !LLVMIsASelectInst(user).is_null()
                || !LLVMIsAPHINode(user).is_null();
            if forwards {
                pointers.push(user);
            } else {
                LLVMSetMetadata(user, kind, std::ptr::null_mut());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

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

    #[test]
    fn the_collectives_scratch_is_laid_out_and_its_accesses_depend_between_items() {
        let ir = Ir::parse(
            r#"
target datalayout = "e-m:e-i64:64-n8:16:32:64-S128"
@a = internal addrspace(3) global [3 x i32] undef, align 4
declare ptr addrspace(3) @__mux_get_work_group_scratch()
define void @wg(ptr %args, ptr %sched, ptr %local, i64 %first, i64 %last) {
  store i32 1, ptr addrspace(3) @a, !llvm.access.group !0
  %s = call ptr addrspace(3) @__mux_get_work_group_scratch()
  %old = load double, ptr addrspace(3) %s, align 8, !llvm.access.group !0
  %new = fadd double %old, 1.0
  store double %new, ptr addrspace(3) %s, align 8, !llvm.access.group !0
  %s2 = call ptr addrspace(3) @__mux_get_work_group_scratch()
  %hi = getelementptr i8, ptr addrspace(3) %s2, i64 4
  store i32 7, ptr addrspace(3) %hi, align 4, !llvm.access.group !0
  ret void
}
!0 = distinct !{}
"#,
        );
        let size = unsafe { run(ir.m, ir.function("wg")).unwrap() };
        unsafe { llvm::verify(ir.m).unwrap() };
        let text = ir.text();
        // a at 0 (12 bytes), the scratch after it, aligned to 8.
        assert!(!text.contains("call ptr addrspace(3) @__mux"), "{text}");
        assert!(
            text.contains(
                "%__ferrocl_work_group_scratch.local = \
                 getelementptr inbounds i8, ptr addrspace(3) %local.as3, i64 16"
            ),
            "{text}"
        );
        assert!(
            text.contains("load double, ptr addrspace(3) %__ferrocl_work_group_scratch.local"),
            "{text}"
        );
        assert_eq!(size, LOCAL_ALIGN);
        // The kernel's own access keeps its group; the scratch's lose theirs.
        let grouped = text
            .lines()
            .filter(|l| l.contains("!llvm.access.group"))
            .collect::<Vec<_>>();
        assert_eq!(grouped.len(), 1, "{text}");
        assert!(grouped[0].contains("store i32 1"), "{text}");
    }
}
