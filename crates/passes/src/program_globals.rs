//! Points a work-group function's program-scope variables into the
//! program's block of them (`compiler::program_globals`), whose address
//! the kernel's hidden argument holds: every kernel of the program, at
//! every launch, then reaches the same variables.

use crate::constant_expr::replace_in_function;
use compiler::llvm::{self, cstr};
use compiler::program_globals::{Layout, GLOBAL_AS};
use kernel_ir::abi::PARAM_ARGS;
use kernel_ir::build::byte_gep;
use llvm_sys::core::*;
use llvm_sys::prelude::*;

/// Where each program-scope variable of `m` lies in the block, by name:
/// taken before any pass drops a variable, as the block's layout counts
/// every one.
///
/// # Safety
/// `m` must be a live module.
pub unsafe fn offsets(m: LLVMModuleRef) -> Vec<(String, usize)> {
    Layout::of(m)
        .members
        .into_iter()
        .filter(|&(g, _)| LLVMGetPointerAddressSpace(LLVMTypeOf(g)) == GLOBAL_AS)
        .map(|(g, at)| (llvm::name(g), at))
        .collect()
}

/// Replaces `wg`'s uses of the variables in `offsets` with addresses in
/// the block named by the hidden argument at byte `arg` of the packed
/// arguments; variables nothing uses any more go.
///
/// # Safety
/// `m` must be a live module containing the work-group function `wg`, with
/// everything inlined into it.
pub unsafe fn run(
    m: LLVMModuleRef,
    wg: LLVMValueRef,
    offsets: &[(String, usize)],
    arg: u64,
) -> Result<(), String> {
    let used: Vec<(LLVMValueRef, usize)> = offsets
        .iter()
        .filter_map(|(name, at)| {
            let g = LLVMGetNamedGlobal(m, cstr(name).as_ptr());
            (!g.is_null() && !LLVMGetFirstUse(g).is_null()).then_some((g, *at))
        })
        .collect();
    if used.is_empty() {
        return Ok(());
    }
    let ctx = LLVMGetModuleContext(m);
    let i8t = LLVMInt8TypeInContext(ctx);
    let i64t = LLVMInt64TypeInContext(ctx);
    let b = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(wg)));
    let at = byte_gep(b, i8t, LLVMGetParam(wg, PARAM_ARGS), arg, "globals.addr");
    let base = LLVMBuildLoad2(
        b,
        LLVMPointerTypeInContext(ctx, GLOBAL_AS),
        at,
        c"globals".as_ptr(),
    );
    LLVMSetAlignment(base, 8);
    let mut result = Ok(());
    let mut dead_constants = false;
    for (g, offset) in used {
        let mut idx = [LLVMConstInt(i64t, offset as u64, 0)];
        let name = cstr(&format!("{}.global", llvm::name(g)));
        let p = LLVMBuildInBoundsGEP2(b, i8t, base, idx.as_mut_ptr(), 1, name.as_ptr());
        result = replace_in_function(wg, g, p);
        if result.is_err() {
            break;
        }
        if LLVMGetFirstUse(g).is_null() {
            LLVMDeleteGlobal(g);
        } else {
            // Only dead constants use it now: nothing outside needs it.
            LLVMSetLinkage(g, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
            dead_constants = true;
        }
    }
    LLVMDisposeBuilder(b);
    // Constant expressions the replaced instructions used still name their
    // variable; the variable and its initial bytes go with them.
    if result.is_ok() && dead_constants {
        result = llvm::run_passes(m, "globaldce", std::ptr::null_mut());
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    #[test]
    fn variables_become_addresses_in_the_block() {
        let ir = Ir::parse(
            r#"
target datalayout = "e-m:e-i64:64-n8:16:32:64-S128"
@a = addrspace(1) global i32 1, align 4
@b = addrspace(1) global [4 x i64] zeroinitializer, align 8
@unused = addrspace(1) global i32 0, align 4
define void @wg(ptr %args, ptr %schedule_info, ptr %local, i64 %first, i64 %last, ptr %storage) {
entry:
  %v = load i32, ptr addrspace(1) @a
  %p = getelementptr inbounds [4 x i64], ptr addrspace(1) @b, i64 0, i64 2
  store i64 7, ptr addrspace(1) %p
  store i32 %v, ptr addrspace(1) getelementptr inbounds ([4 x i64], ptr addrspace(1) @b, i64 0, i64 3)
  ret void
}
"#,
        );
        unsafe {
            let offsets = offsets(ir.m);
            assert_eq!(
                offsets,
                [
                    ("a".to_string(), 0),
                    ("b".to_string(), 8),
                    ("unused".to_string(), 40)
                ]
            );
            run(ir.m, ir.function("wg"), &offsets, 24).unwrap();
            llvm::verify(ir.m).unwrap();
        }
        let text = ir.text();
        // The block's address, from the hidden argument at byte 24.
        assert!(
            text.contains("getelementptr inbounds i8, ptr %args, i64 24"),
            "{text}"
        );
        assert!(text.contains("%globals = load ptr addrspace(1)"), "{text}");
        assert!(
            text.contains(
                "%a.global = getelementptr inbounds i8, ptr addrspace(1) %globals, i64 0"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "%b.global = getelementptr inbounds i8, ptr addrspace(1) %globals, i64 8"
            ),
            "{text}"
        );
        // The used variables are gone.
        assert!(!text.contains("@a ="), "{text}");
        assert!(!text.contains("@b ="), "{text}");
    }
}
