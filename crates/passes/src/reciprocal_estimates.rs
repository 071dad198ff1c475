//! `rsqrt` and reciprocals of floats from AVX-512's estimates.
//!
//! The builtins' `rsqrt` is `1 / sqrt(x)` with both marked `arcp`
//! (allowed to be a reciprocal's approximation), and a program's `1 / y`
//! carries Clang's `!fpmath` of 2.5 ulp, the spec's bound for division,
//! unless it was built with `-cl-fp32-correctly-rounded-divide-sqrt`. Each
//! is a correctly rounded step through the divider, which a loop of them
//! (n-body, option pricing) waits on. With AVX-512, `vrsqrt14ps` and
//! `vrcp14ps` give 14 bits in a cycle, and one Newton step on them, its
//! error term computed by an FMA, is within 1.05 ulp of the exact root's
//! reciprocal (the bound is 2) and 0.53 ulp of the exact reciprocal, for
//! every float. Where the step gives NaN (0 or infinity in, where the
//! estimate times its argument is NaN), the estimate is already the exact
//! answer, as it is for NaN (and for `rsqrt`, negative) arguments.
//!
//! Without AVX-512 the `rsqrt` marks are removed instead, so that the code
//! generator, which would otherwise use a 12-bit estimate with no care for
//! 0 and infinity, keeps the two exact steps; divisions stay as they are.

use compiler::llvm;
use kernel_ir::build::{element_kind, intrinsic_call};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode::*;
use llvm_sys::LLVMRealPredicate::*;
use llvm_sys::LLVMTypeKind::*;

/// `arcp`, as the C API numbers the fast-math flags.
const ARCP: u32 = llvm_sys::LLVMFastMathAllowReciprocal;

/// What a float `fdiv` of 1 is rewritten from.
enum Reciprocal {
    /// The `sqrt` call of the builtins' `rsqrt`.
    Root(LLVMValueRef),
    /// Any value, divided with the spec's 2.5 ulp allowed.
    Value(LLVMValueRef),
}

/// Rewrites every float `fdiv arcp 1, sqrt(x)` in `m`, and where
/// `estimate` (the CPU has AVX-512F and VL) every `1 / y` allowed 2.5 ulp:
/// into the estimate and a Newton step, or (`rsqrt` without `estimate`)
/// into the exact division of the exact root. Returns how many.
///
/// # Safety
/// `m` must be a live module whose context this thread owns.
pub unsafe fn run(m: LLVMModuleRef, estimate: bool) -> usize {
    let ctx = LLVMGetModuleContext(m);
    let b = LLVMCreateBuilderInContext(ctx);
    let fpmath = LLVMGetMDKindIDInContext(ctx, c"fpmath".as_ptr(), 6);
    let mut rewritten = 0;
    for f in llvm::functions(m) {
        for i in llvm::instructions(f) {
            let Some(of) = reciprocal(i, fpmath) else {
                continue;
            };
            LLVMPositionBuilderBefore(b, i);
            let r = match of {
                Reciprocal::Root(sqrt) => {
                    let x = LLVMGetOperand(sqrt, 0);
                    let n = LLVMGetOperand(i, 0);
                    if estimate {
                        let r = estimated(m, b, Estimate::Rsqrt, x);
                        if is_one(n) {
                            r
                        } else {
                            LLVMBuildFMul(b, n, r, c"over.root".as_ptr())
                        }
                    } else {
                        // Made again, unmarked: the C API adds flags, never
                        // clears them.
                        let root = intrinsic_call(m, b, "llvm.sqrt", &[LLVMTypeOf(x)], &mut [x]);
                        LLVMBuildFDiv(b, n, root, c"rsqrt".as_ptr())
                    }
                }
                Reciprocal::Value(_) if !estimate => continue,
                Reciprocal::Value(y) => estimated(m, b, Estimate::Recip, y),
            };
            LLVMReplaceAllUsesWith(i, r);
            let divisor = LLVMGetOperand(i, 1);
            LLVMInstructionEraseFromParent(i);
            // The builtins' root, unless the same root is used elsewhere.
            if matches!(of, Reciprocal::Root(_)) && LLVMGetFirstUse(divisor).is_null() {
                LLVMInstructionEraseFromParent(divisor);
            }
            rewritten += 1;
        }
    }
    LLVMDisposeBuilder(b);
    rewritten
}

/// What `i` takes the reciprocal of, if it is a float `fdiv`: the
/// builtins' `rsqrt` (`arcp`, of an `llvm.sqrt`, times what the optimizer
/// made of the 1 over it), or a division of 1 allowed 2.5 ulp or more by
/// its `!fpmath`.
unsafe fn reciprocal(i: LLVMValueRef, fpmath: u32) -> Option<Reciprocal> {
    if LLVMGetInstructionOpcode(i) != LLVMFDiv || element_kind(LLVMTypeOf(i)) != LLVMFloatTypeKind {
        return None;
    }
    let (n, y) = (LLVMGetOperand(i, 0), LLVMGetOperand(i, 1));
    let is_sqrt = !LLVMIsACallInst(y).is_null()
        && llvm::name(LLVMGetCalledValue(y)).starts_with("llvm.sqrt.");
    // The root's own mark is not asked for: the same root of the same
    // value outside `rsqrt`, unmarked, may have been merged with it. Nor
    // a 1 above it: the optimizer may have multiplied it by another value
    // (the code generator would take the mark for its own estimate, which
    // makes no case of 0 and infinity).
    if is_sqrt && LLVMGetFastMathFlags(i) & ARCP != 0 {
        return Some(Reciprocal::Root(y));
    }
    if !is_one(n) {
        return None;
    }
    let allowed = LLVMGetMetadata(i, fpmath);
    if allowed.is_null() || LLVMGetMDNodeNumOperands(allowed) != 1 {
        return None;
    }
    let mut ulps = [std::ptr::null_mut()];
    LLVMGetMDNodeOperands(allowed, ulps.as_mut_ptr());
    (float_value(ulps[0]).is_some_and(|u| u >= 2.5)).then_some(Reciprocal::Value(y))
}

/// The value of `v` if it is a floating-point constant.
unsafe fn float_value(v: LLVMValueRef) -> Option<f64> {
    let mut lost = 0;
    (!v.is_null() && !LLVMIsAConstantFP(v).is_null()).then(|| LLVMConstRealGetDouble(v, &mut lost))
}

/// Whether `v` is the float 1, or a vector of it.
/// Lanes of it no one reads may be left undefined (a `float3` of which
/// only `x` is used: `<1.0, 1.0, poison>`).
unsafe fn is_one(v: LLVMValueRef) -> bool {
    let one = |e: LLVMValueRef| float_value(e) == Some(1.0);
    let unread = |e: LLVMValueRef| !e.is_null() && LLVMIsUndef(e) != 0;
    match LLVMGetTypeKind(LLVMTypeOf(v)) {
        LLVMVectorTypeKind => {
            let lanes: Vec<LLVMValueRef> = (0..LLVMGetVectorSize(LLVMTypeOf(v)))
                .map(|k| LLVMGetAggregateElement(v, k))
                .collect();
            !LLVMIsAConstant(v).is_null()
                && lanes.iter().any(|&e| one(e))
                && lanes.iter().all(|&e| one(e) || unread(e))
        }
        _ => one(v),
    }
}

/// The two estimates.
#[derive(Clone, Copy)]
enum Estimate {
    /// `vrsqrt14ps`: 1 / sqrt(x).
    Rsqrt,
    /// `vrcp14ps`: 1 / x.
    Recip,
}

/// `1 / sqrt(x)` or `1 / x`: the estimate `y`, then a Newton step on it
/// (`y + y/2 (1 - x y y)`, `y + y (1 - x y)`), or `y` where that is NaN.
unsafe fn estimated(
    m: LLVMModuleRef,
    b: LLVMBuilderRef,
    kind: Estimate,
    x: LLVMValueRef,
) -> LLVMValueRef {
    let t = LLVMTypeOf(x);
    let y = estimate(m, b, kind, x);
    let splat = |v: f64| {
        let e = LLVMConstReal(LLVMFloatTypeInContext(LLVMGetTypeContext(t)), v);
        if LLVMGetTypeKind(t) == LLVMVectorTypeKind {
            let mut lanes = vec![e; LLVMGetVectorSize(t) as usize];
            LLVMConstVector(lanes.as_mut_ptr(), lanes.len() as u32)
        } else {
            e
        }
    };
    let stepped = match kind {
        Estimate::Rsqrt => {
            let h = LLVMBuildFMul(b, x, y, c"".as_ptr());
            let minus_h = LLVMBuildFNeg(b, h, c"".as_ptr());
            // 1 - x y y, its rounding error only that of the result.
            let e = intrinsic_call(m, b, "llvm.fma", &[t], &mut [minus_h, y, splat(1.0)]);
            let half_y = LLVMBuildFMul(b, y, splat(0.5), c"".as_ptr());
            intrinsic_call(m, b, "llvm.fma", &[t], &mut [half_y, e, y])
        }
        Estimate::Recip => {
            let minus_x = LLVMBuildFNeg(b, x, c"".as_ptr());
            let e = intrinsic_call(m, b, "llvm.fma", &[t], &mut [minus_x, y, splat(1.0)]);
            intrinsic_call(m, b, "llvm.fma", &[t], &mut [y, e, y])
        }
    };
    let nan = LLVMBuildFCmp(b, LLVMRealUNO, stepped, stepped, c"".as_ptr());
    let name = match kind {
        Estimate::Rsqrt => c"rsqrt",
        Estimate::Recip => c"recip",
    };
    LLVMBuildSelect(b, nan, y, stepped, name.as_ptr())
}

/// The estimate of `x`, a float or a vector of any width: padded with
/// ones to whole registers (4, 8 or 16 lanes), each estimated, and the
/// lanes of `x` taken back.
unsafe fn estimate(
    m: LLVMModuleRef,
    b: LLVMBuilderRef,
    kind: Estimate,
    x: LLVMValueRef,
) -> LLVMValueRef {
    let t = LLVMTypeOf(x);
    let ctx = LLVMGetTypeContext(t);
    let float = LLVMFloatTypeInContext(ctx);
    let i32t = LLVMInt32TypeInContext(ctx);
    let lanes = if LLVMGetTypeKind(t) == LLVMVectorTypeKind {
        LLVMGetVectorSize(t)
    } else {
        1
    };
    let register = match lanes {
        0..=4 => 4,
        5..=8 => 8,
        _ => 16,
    };
    let padded = lanes.div_ceil(register) * register;
    let ones = LLVMConstVector(
        vec![LLVMConstReal(float, 1.0); padded as usize].as_mut_ptr(),
        padded,
    );
    // The value as a vector of `padded` lanes, ones after its own.
    let wide = if lanes == 1 {
        LLVMBuildInsertElement(b, ones, x, LLVMConstInt(i32t, 0, 0), c"".as_ptr())
    } else {
        padded_with(b, x, lanes, ones)
    };
    let family = match kind {
        Estimate::Rsqrt => "rsqrt14",
        Estimate::Recip => "rcp14",
    };
    let (bits, mask) = match register {
        4 => (128, LLVMInt8TypeInContext(ctx)),
        8 => (256, LLVMInt8TypeInContext(ctx)),
        _ => (512, LLVMInt16TypeInContext(ctx)),
    };
    let name = format!("llvm.x86.avx512.{family}.ps.{bits}");
    let vt = LLVMVectorType(float, register);
    let mut parts = Vec::new();
    for p in 0..padded / register {
        let part = LLVMBuildShuffleVector(
            b,
            wide,
            LLVMGetPoison(LLVMTypeOf(wide)),
            indices(ctx, (p * register..(p + 1) * register).collect()),
            c"".as_ptr(),
        );
        let mut args = [part, LLVMGetPoison(vt), LLVMConstAllOnes(mask)];
        parts.push(intrinsic_call(m, b, &name, &[], &mut args));
    }
    // The parts joined, two at a time, back into `padded` lanes.
    while parts.len() > 1 {
        let n = LLVMGetVectorSize(LLVMTypeOf(parts[0]));
        parts = parts
            .chunks(2)
            .map(|pair| {
                LLVMBuildShuffleVector(
                    b,
                    pair[0],
                    pair[1],
                    indices(ctx, (0..2 * n).collect()),
                    c"".as_ptr(),
                )
            })
            .collect();
    }
    let y = parts[0];
    if lanes == 1 {
        LLVMBuildExtractElement(b, y, LLVMConstInt(i32t, 0, 0), c"".as_ptr())
    } else if lanes == padded {
        y
    } else {
        LLVMBuildShuffleVector(
            b,
            y,
            LLVMGetPoison(LLVMTypeOf(y)),
            indices(ctx, (0..lanes).collect()),
            c"".as_ptr(),
        )
    }
}

/// `x` (of `lanes` lanes) made as wide as `fill`, the lanes after its
/// own `fill`'s.
unsafe fn padded_with(
    b: LLVMBuilderRef,
    x: LLVMValueRef,
    lanes: u32,
    fill: LLVMValueRef,
) -> LLVMValueRef {
    let ctx = LLVMGetTypeContext(LLVMTypeOf(x));
    let n = LLVMGetVectorSize(LLVMTypeOf(fill));
    // `x` made as wide as `fill` first: a shuffle's operands share a type.
    let widened = LLVMBuildShuffleVector(
        b,
        x,
        LLVMGetPoison(LLVMTypeOf(x)),
        indices(ctx, (0..n).map(|k| k.min(lanes - 1)).collect()),
        c"".as_ptr(),
    );
    let from = (0..n).map(|k| if k < lanes { k } else { n + k }).collect();
    LLVMBuildShuffleVector(b, widened, fill, indices(ctx, from), c"".as_ptr())
}

/// A shuffle mask of `lanes`.
unsafe fn indices(ctx: LLVMContextRef, lanes: Vec<u32>) -> LLVMValueRef {
    let i32t = LLVMInt32TypeInContext(ctx);
    let mut v: Vec<LLVMValueRef> = lanes
        .iter()
        .map(|&k| LLVMConstInt(i32t, k as u64, 0))
        .collect();
    LLVMConstVector(v.as_mut_ptr(), v.len() as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    const RSQRTS: &str = r#"
define void @f(ptr %p, float %s, <3 x float> %v3, <16 x float> %v16, <32 x float> %v32) {
  %a = call arcp float @llvm.sqrt.f32(float %s)
  %ra = fdiv arcp float 1.0, %a
  store float %ra, ptr %p
  %b = call arcp <3 x float> @llvm.sqrt.v3f32(<3 x float> %v3)
  %rb = fdiv arcp <3 x float> splat (float 1.0), %b
  store <3 x float> %rb, ptr %p
  %c = call arcp <16 x float> @llvm.sqrt.v16f32(<16 x float> %v16)
  %rc = fdiv arcp <16 x float> splat (float 1.0), %c
  store <16 x float> %rc, ptr %p
  %d = call arcp <32 x float> @llvm.sqrt.v32f32(<32 x float> %v32)
  %rd = fdiv arcp <32 x float> splat (float 1.0), %d
  store <32 x float> %rd, ptr %p
  ; Lanes no one reads, and a 1 the optimizer multiplied by a value.
  %h = call arcp <3 x float> @llvm.sqrt.v3f32(<3 x float> %v3)
  %rh = fdiv arcp <3 x float> <float 1.0, float 1.0, float poison>, %h
  store <3 x float> %rh, ptr %p
  %k = call arcp float @llvm.sqrt.f32(float %s)
  %rk = fdiv arcp float %s, %k
  store float %rk, ptr %p
  ; A root merged with one outside rsqrt; then not the builtins' rsqrt:
  ; an exact division.
  %m = call float @llvm.sqrt.f32(float %s)
  store float %m, ptr %p
  %rm = fdiv arcp float 1.0, %m
  store float %rm, ptr %p
  %e = call float @llvm.sqrt.f32(float %s)
  %re = fdiv float 1.0, %e
  store float %re, ptr %p
  ret void
}
declare float @llvm.sqrt.f32(float)
declare <3 x float> @llvm.sqrt.v3f32(<3 x float>)
declare <16 x float> @llvm.sqrt.v16f32(<16 x float>)
declare <32 x float> @llvm.sqrt.v32f32(<32 x float>)
"#;

    #[test]
    fn with_avx512_an_rsqrt_is_the_estimate_and_a_newton_step_at_any_width() {
        let ir = Ir::parse(RSQRTS);
        unsafe {
            assert_eq!(run(ir.m, true), 7);
            llvm::verify(ir.m).unwrap();
        }
        let text = ir.text();
        // Floats and three floats in one 4-lane estimate each, 16 floats
        // in one register, 32 in two.
        assert_eq!(
            text.matches("call <4 x float> @llvm.x86.avx512.rsqrt14.ps.128")
                .count(),
            5,
            "{text}"
        );
        assert_eq!(
            text.matches("call <16 x float> @llvm.x86.avx512.rsqrt14.ps.512")
                .count(),
            3,
            "{text}"
        );
        // Each followed by its Newton step and the estimate where it is NaN.
        assert_eq!(text.matches("fcmp uno").count(), 7, "{text}");
        let fmas = text
            .lines()
            .filter(|l| l.contains("= call") && l.contains("@llvm.fma."))
            .count();
        assert_eq!(fmas, 14, "{text}");
        // The value over the root multiplies its estimate.
        assert!(
            text.contains("%over.root = fmul float %s, %rsqrt"),
            "{text}"
        );
        // The merged root stays for its other use.
        assert!(text.contains("store float %m, ptr %p"), "{text}");
        // The exact division stays.
        assert_eq!(text.matches("fdiv").count(), 1, "{text}");
        assert!(text.contains("fdiv float 1.000000e+00, %e"), "{text}");
    }

    #[test]
    fn without_avx512_an_rsqrt_is_the_exact_division_of_the_exact_root() {
        let ir = Ir::parse(RSQRTS);
        unsafe {
            assert_eq!(run(ir.m, false), 7);
        }
        let text = ir.text();
        assert!(!text.contains("rsqrt14"), "{text}");
        // No mark is left for the code generator's own estimate.
        assert!(!text.contains("arcp"), "{text}");
        assert_eq!(text.matches(" = fdiv ").count(), 8, "{text}");
        assert_eq!(text.matches(" = call ").count(), 9, "{text}");
    }

    const RECIPROCALS: &str = r#"
define void @f(ptr %p, float %y, <8 x float> %v8, double %d) {
  %a = fdiv float 1.0, %y, !fpmath !0
  store float %a, ptr %p
  %b = fdiv <8 x float> splat (float 1.0), %v8, !fpmath !0
  store <8 x float> %b, ptr %p
  ; Correctly rounded (-cl-fp32-correctly-rounded-divide-sqrt), a quotient
  ; of 2 and a double stay.
  %c = fdiv float 1.0, %y
  store float %c, ptr %p
  %e = fdiv float 2.0, %y, !fpmath !0
  store float %e, ptr %p
  %g = fdiv double 1.0, %d, !fpmath !0
  store double %g, ptr %p
  ret void
}
!0 = !{float 2.5}
"#;

    #[test]
    fn with_avx512_a_reciprocal_allowed_its_ulps_is_the_estimate_and_a_newton_step() {
        let ir = Ir::parse(RECIPROCALS);
        unsafe {
            assert_eq!(run(ir.m, true), 2);
            llvm::verify(ir.m).unwrap();
        }
        let text = ir.text();
        assert_eq!(
            text.matches("call <4 x float> @llvm.x86.avx512.rcp14.ps.128")
                .count(),
            1,
            "{text}"
        );
        assert_eq!(
            text.matches("call <8 x float> @llvm.x86.avx512.rcp14.ps.256")
                .count(),
            1,
            "{text}"
        );
        assert_eq!(text.matches("fcmp uno").count(), 2, "{text}");
        assert_eq!(text.matches(" = fdiv ").count(), 3, "{text}");
        for kept in [
            "%c = fdiv float 1.0",
            "%e = fdiv float 2.0",
            "%g = fdiv double 1.0",
        ] {
            assert!(text.contains(kept), "{kept}: {text}");
        }
    }

    #[test]
    fn without_avx512_divisions_stay() {
        let ir = Ir::parse(RECIPROCALS);
        let before = ir.text();
        unsafe {
            assert_eq!(run(ir.m, false), 0);
        }
        assert_eq!(ir.text(), before);
    }
}
