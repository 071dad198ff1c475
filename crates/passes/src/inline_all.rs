//! Inlines everything the work-group function calls into it. OpenCL C has
//! no recursion, so this always finishes; afterwards the work-item builtins
//! and `__local` variables are all used from one function. The exceptions:
//! the math builtins with vector variants ([`compiler::vector_variants`])
//! stay calls, for the loop vectorizer to widen, and so do cold functions
//! (the library's rare paths).

use compiler::{llvm, vector_variants};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMAttributeFunctionIndex;
use llvm_sys::LLVMLinkage;

unsafe fn attr_kind(name: &str) -> u32 {
    LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len())
}

/// Math builtins with vector variants, and the rare paths of the library
/// (cold functions: sin's reduction of huge arguments), which would only
/// add code to compile wherever they are inlined.
unsafe fn stays_a_call(f: LLVMValueRef) -> bool {
    let cold = LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, attr_kind("cold"));
    !cold.is_null() || vector_variants::stays_a_call(f)
}

/// Marks every other defined function internal and always-inline (those
/// that stay calls never-inline), inlines, and drops what is left unused.
///
/// # Safety
/// `m` must be a live module containing `wg`.
pub unsafe fn run(m: LLVMModuleRef, wg: LLVMValueRef) -> Result<(), String> {
    inline(m, wg, false, &[])
}

/// [`run`], leaving the functions of `others` (made from `wg` and not
/// called yet) as they are.
///
/// # Safety
/// `m` must be a live module containing `wg` and `others`.
pub unsafe fn run_leaving(
    m: LLVMModuleRef,
    wg: LLVMValueRef,
    others: &[LLVMValueRef],
) -> Result<(), String> {
    inline(m, wg, false, others)
}

/// [`run`], but the library's sub-group functions that meet at a sub-group
/// barrier stay calls too ([`crate::sub_group_calls`]): a vector form
/// computes them across its lanes; and so do the math builtins' vector
/// forms with wider forms ([`vector_variants::widens`]), which a vector
/// form calls for all its lanes at once. A later [`run`] inlines them into
/// the scalar kernel.
///
/// # Safety
/// `m` must be a live module containing `wg`.
pub unsafe fn run_before_vector_form(m: LLVMModuleRef, wg: LLVMValueRef) -> Result<(), String> {
    inline(m, wg, true, &[])
}

unsafe fn inline(
    m: LLVMModuleRef,
    wg: LLVMValueRef,
    before_vector_form: bool,
    others: &[LLVMValueRef],
) -> Result<(), String> {
    let stays_a_call = |f| {
        stays_a_call(f)
            || (before_vector_form
                && (kernel_ir::sub_group_calls::meets_sub_group(f) || vector_variants::widens(f)))
    };
    let ctx = LLVMGetModuleContext(m);
    let always = LLVMCreateEnumAttribute(ctx, attr_kind("alwaysinline"), 0);
    let never = LLVMCreateEnumAttribute(ctx, attr_kind("noinline"), 0);
    for f in llvm::functions(m) {
        if f == wg || LLVMIsDeclaration(f) != 0 || others.contains(&f) {
            continue;
        }
        LLVMSetLinkage(f, LLVMLinkage::LLVMInternalLinkage);
        for a in ["noinline", "optnone"] {
            LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, attr_kind(a));
        }
        if stays_a_call(f) {
            LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, never);
        } else {
            LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, always);
        }
    }
    // Unused until the work-group function calls them: kept from globaldce.
    let linkages: Vec<LLVMLinkage> = others.iter().map(|&f| LLVMGetLinkage(f)).collect();
    for &f in others {
        LLVMSetLinkage(f, LLVMLinkage::LLVMExternalLinkage);
    }
    let inlined = llvm::run_passes(m, "always-inline,globaldce", std::ptr::null_mut());
    for (&f, &l) in others.iter().zip(&linkages) {
        LLVMSetLinkage(f, l);
    }
    inlined?;
    let left: Vec<String> = llvm::instructions(wg)
        .into_iter()
        .filter_map(|i| llvm::called_function(i))
        .filter(|&f| LLVMIsDeclaration(f) == 0 && !stays_a_call(f))
        .map(|f| llvm::name(f))
        .collect();
    if left.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "could not inline {} (recursion is not allowed in OpenCL C)",
            left.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    #[test]
    fn calls_are_inlined_and_callees_dropped() {
        let ir = Ir::parse(
            r#"
define internal i32 @helper(i32 %x) noinline {
  %y = add i32 %x, 1
  ret i32 %y
}
define spir_kernel void @k(ptr %p) {
  %v = call i32 @helper(i32 2)
  store i32 %v, ptr %p
  ret void
}
define void @wg(ptr %p) {
  call spir_kernel void @k(ptr %p)
  ret void
}
"#,
        );
        unsafe { run(ir.m, ir.function("wg")).unwrap() };
        let text = ir.text();
        assert!(!text.contains("call"), "{text}");
        assert!(!text.contains("@helper"), "{text}");
        assert!(!text.contains("define spir_kernel"), "{text}");
    }

    #[test]
    fn math_calls_with_vector_variants_and_cold_functions_stay_calls() {
        let ir = Ir::parse(
            r#"
define internal float @sin(float %x) "vector-function-abi-variant"="_ZGV_LLVM_N4v_sin(sin4)" {
  %y = fmul float %x, 2.0
  ret float %y
}
define internal <4 x float> @sin4(<4 x float> %x) {
  ret <4 x float> %x
}
define internal float @rare(float %x) cold {
  ret float %x
}
@llvm.compiler.used = appending global [1 x ptr] [ptr @sin4], section "llvm.metadata"
define void @wg(ptr %p, float %x) {
  %a = call float @sin(float %x)
  %b = call float @rare(float %a)
  store float %b, ptr %p
  ret void
}
"#,
        );
        unsafe { run(ir.m, ir.function("wg")).unwrap() };
        let text = ir.text();
        assert!(text.contains("call float @sin("), "{text}");
        assert!(text.contains("call float @rare("), "{text}");
        assert!(text.contains("define internal <4 x float> @sin4"), "{text}");
    }

    #[test]
    fn a_math_vector_form_with_wider_forms_stays_a_call_until_the_vector_form_is_made() {
        let text = r#"
define internal <8 x float> @sin8(<8 x float> %x) "ferrocl-wider-forms"="_ZGV_LLVM_N2v_sin8(sin16)" {
  %y = fmul <8 x float> %x, splat (float 2.0)
  ret <8 x float> %y
}
define internal <16 x float> @sin16(<16 x float> %x) {
  ret <16 x float> %x
}
@llvm.compiler.used = appending global [1 x ptr] [ptr @sin16], section "llvm.metadata"
define void @wg(ptr %p, <8 x float> %x) {
  %a = call <8 x float> @sin8(<8 x float> %x)
  store <8 x float> %a, ptr %p
  ret void
}
"#;
        let ir = Ir::parse(text);
        unsafe { run_before_vector_form(ir.m, ir.function("wg")).unwrap() };
        let kept = ir.text();
        assert!(kept.contains("call <8 x float> @sin8("), "{kept}");
        unsafe { run(ir.m, ir.function("wg")).unwrap() };
        let inlined = ir.text();
        assert!(!inlined.contains("call"), "{inlined}");
        assert!(inlined.contains("fmul <8 x float>"), "{inlined}");
    }

    #[test]
    fn recursion_is_reported() {
        let ir = Ir::parse(
            r#"
define internal void @r(ptr %p) {
  call void @r(ptr %p)
  ret void
}
define void @wg(ptr %p) {
  call void @r(ptr %p)
  ret void
}
"#,
        );
        assert!(unsafe { run(ir.m, ir.function("wg")) }.is_err());
    }
}

/// Deletes the `llvm.experimental.noalias.scope.decl` calls inlining left
/// in `wg`. They touch no memory anyone sees, but they carry no access
/// group, so a work-item loop holding one is no longer annotated parallel
/// and the vectorizer falls back to dependence checks it cannot pass. The
/// scopes they declare only come from the region function's `%staged`,
/// which nothing writes during a region, so the `noalias` facts hold
/// across work-items too.
///
/// # Safety
/// `wg` must be a live function with a body.
pub unsafe fn drop_scope_declarations(wg: LLVMValueRef) {
    for i in llvm::instructions(wg) {
        if llvm::called_function(i)
            .is_some_and(|f| llvm::name(f) == "llvm.experimental.noalias.scope.decl")
        {
            LLVMInstructionEraseFromParent(i);
        }
    }
}
