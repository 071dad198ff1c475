//! A private struct whose one used field is an array indexed at run time
//! (DPC++'s `RegistryData`, a class around `T data[N]` that a sliding
//! window walks) becomes a private variable of that field alone; a struct
//! that holds nothing but an array (through structs of one member) is
//! that array. SROA cannot split the struct, as an index it cannot see may
//! reach any of it; as an array of numbers on its own, `vecz` keeps it per
//! lane.

use compiler::llvm;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::{LLVMGetModuleDataLayout, LLVMOffsetOfElement};
use llvm_sys::LLVMOpcode::*;
use llvm_sys::LLVMTypeKind::*;

/// Narrows such structs of `f` in module `m`; returns how many.
///
/// # Safety
/// `m` must be a live module whose context this thread owns, `f` a
/// function defined in it.
pub unsafe fn run(m: LLVMModuleRef, f: LLVMValueRef) -> usize {
    let b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
    let mut narrowed = 0;
    for a in llvm::instructions(f) {
        if LLVMIsAAllocaInst(a).is_null()
            || LLVMGetTypeKind(LLVMGetAllocatedType(a)) != LLVMStructTypeKind
        {
            continue;
        }
        if let Some(array) = sole_array(LLVMGetAllocatedType(a)) {
            // The same bytes: the accesses, which name their own types,
            // stay as they are.
            LLVMPositionBuilderBefore(b, a);
            let name = llvm::cstr(&format!("{}.array", llvm::name(a)));
            let narrow = LLVMBuildAlloca(b, array, name.as_ptr());
            LLVMSetAlignment(narrow, LLVMGetAlignment(a));
            LLVMReplaceAllUsesWith(a, narrow);
            LLVMInstructionEraseFromParent(a);
            narrowed += 1;
            continue;
        }
        let Some(field) = one_field(m, a) else {
            continue;
        };
        LLVMPositionBuilderBefore(b, a);
        let name = llvm::cstr(&format!("{}.field", llvm::name(a)));
        let narrow = LLVMBuildAlloca(b, field, name.as_ptr());
        LLVMSetAlignment(narrow, LLVMGetAlignment(a));
        for u in llvm::users(a) {
            if LLVMGetInstructionOpcode(u) == LLVMCall {
                // A lifetime marker of the whole struct.
                LLVMInstructionEraseFromParent(u);
                continue;
            }
            // `gep S, a, 0, k, rest..` is `gep T, narrow, 0, rest..`, or
            // `narrow` itself without the rest.
            let rest: Vec<LLVMValueRef> = (3..LLVMGetNumOperands(u) as u32)
                .map(|k| LLVMGetOperand(u, k))
                .collect();
            let to = if rest.is_empty() {
                narrow
            } else {
                LLVMPositionBuilderBefore(b, u);
                let mut indices = vec![LLVMGetOperand(u, 1)];
                indices.extend(rest);
                let name = llvm::cstr(&llvm::name(u));
                LLVMSetValueName2(u, c"".as_ptr(), 0);
                LLVMBuildInBoundsGEP2(
                    b,
                    field,
                    narrow,
                    indices.as_mut_ptr(),
                    indices.len() as u32,
                    name.as_ptr(),
                )
            };
            LLVMReplaceAllUsesWith(u, to);
            LLVMInstructionEraseFromParent(u);
        }
        LLVMInstructionEraseFromParent(a);
        narrowed += 1;
    }
    LLVMDisposeBuilder(b);
    narrowed
}

/// The array struct `ty` holds and nothing else, through structs of one
/// member.
unsafe fn sole_array(mut ty: LLVMTypeRef) -> Option<LLVMTypeRef> {
    while LLVMGetTypeKind(ty) == LLVMStructTypeKind && LLVMCountStructElementTypes(ty) == 1 {
        ty = LLVMStructGetTypeAtIndex(ty, 0);
    }
    (LLVMGetTypeKind(ty) == LLVMArrayTypeKind).then_some(ty)
}

/// The type of the one field every use of struct alloca `a` reaches: each
/// use a GEP `0, k, ..` (of `a`'s type or of a struct at its start, a base
/// class) whose field `k` is that array, at the same offset, or a lifetime
/// marker.
unsafe fn one_field(m: LLVMModuleRef, a: LLVMValueRef) -> Option<LLVMTypeRef> {
    let layout = LLVMGetModuleDataLayout(m);
    let mut found: Option<(LLVMTypeRef, u64)> = None;
    let uses = llvm::users(a);
    if uses.is_empty() {
        return None;
    }
    for u in uses {
        match LLVMGetInstructionOpcode(u) {
            LLVMCall if kernel_ir::builtin_kinds::is_lifetime_marker(u) => continue,
            LLVMGetElementPtr if LLVMGetOperand(u, 0) == a && LLVMGetNumOperands(u) >= 3 => {}
            _ => return None,
        }
        let source = LLVMGetGEPSourceElementType(u);
        let (first, k) = (LLVMGetOperand(u, 1), LLVMGetOperand(u, 2));
        if LLVMGetTypeKind(source) != LLVMStructTypeKind
            || LLVMIsAConstantInt(first).is_null()
            || LLVMConstIntGetZExtValue(first) != 0
            || LLVMIsAConstantInt(k).is_null()
        {
            return None;
        }
        let k = LLVMConstIntGetZExtValue(k) as u32;
        if k >= LLVMCountStructElementTypes(source) {
            return None;
        }
        let field = LLVMStructGetTypeAtIndex(source, k);
        let at = LLVMOffsetOfElement(layout, source, k);
        if LLVMGetTypeKind(field) != LLVMArrayTypeKind || found.is_some_and(|f| f != (field, at)) {
            return None;
        }
        found = Some((field, at));
    }
    found.map(|(field, _)| field)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    const WINDOW: &str = r#"
%data = type { i8, [4 x float] }
%registry = type { %data }
define float @f(i64 %i) {
entry:
  %r = alloca %registry, align 4
  %arr = getelementptr inbounds %data, ptr %r, i64 0, i32 1
  store float 0.0, ptr %arr, align 4
  %last = getelementptr inbounds %data, ptr %r, i64 0, i32 1, i64 3
  store float 1.0, ptr %last, align 4
  %at = getelementptr inbounds [4 x float], ptr %arr, i64 0, i64 %i
  %x = load float, ptr %at, align 4
  ret float %x
}
"#;

    #[test]
    fn a_struct_used_through_one_array_field_becomes_that_array() {
        let ir = Ir::parse(WINDOW);
        unsafe {
            assert_eq!(run(ir.m, ir.function("f")), 1);
            compiler::llvm::verify(ir.m).unwrap();
        }
        let text = ir.text();
        assert!(
            text.contains("%r.field = alloca [4 x float], align 4"),
            "{text}"
        );
        assert!(
            text.contains("store float 0.000000e+00, ptr %r.field"),
            "{text}"
        );
        assert!(
            text.contains("%last = getelementptr inbounds [4 x float], ptr %r.field, i64 0, i64 3"),
            "{text}"
        );
        assert!(!text.contains("alloca %registry"), "{text}");
    }

    #[test]
    fn a_struct_of_an_array_alone_becomes_the_array() {
        let ir = Ir::parse(
            r#"
%inner = type { [4 x float] }
%outer = type { %inner }
define float @f(i64 %i) {
entry:
  %r = alloca %outer, align 4
  store float 1.0, ptr %r, align 4
  %at = getelementptr inbounds [4 x float], ptr %r, i64 0, i64 %i
  %x = load float, ptr %at, align 4
  ret float %x
}
"#,
        );
        unsafe {
            assert_eq!(run(ir.m, ir.function("f")), 1);
            compiler::llvm::verify(ir.m).unwrap();
        }
        let text = ir.text();
        assert!(
            text.contains("%r.array = alloca [4 x float], align 4"),
            "{text}"
        );
        assert!(
            text.contains("store float 1.000000e+00, ptr %r.array"),
            "{text}"
        );
    }

    #[test]
    fn a_struct_used_through_two_fields_stays() {
        let src = WINDOW.replace(
            "ret float %x",
            "%tag = getelementptr inbounds %data, ptr %r, i64 0, i32 0\n  store i8 1, ptr %tag\n  ret float %x",
        );
        let ir = Ir::parse(&src);
        unsafe { assert_eq!(run(ir.m, ir.function("f")), 0) };
        assert!(ir.text().contains("alloca %registry"));
    }
}
