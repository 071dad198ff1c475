//! `(half)d` for a double `d`, rounded once. Without AVX-512 FP16, x86
//! has no instruction from double to half: LLVM calls `__truncdfhf2`, a
//! library the JIT may not reach, one call per lane. Each `fptrunc` from
//! double to half, scalar or vector, becomes the double rounded to odd
//! as a float (24 bits, more than 11 + 2), then the float to half
//! conversion F16C does: the same value as one rounding to nearest, in a
//! few vector instructions. `llvm.fma` of halves (SPIR-V's OpenCL.std fma
//! is that intrinsic), which LLVM computes in double and converts the same
//! way, becomes the float product (exact) plus the addend rounded to odd
//! in float, then the same conversion.

use compiler::llvm;
use kernel_ir::build::{element_kind, same_shape, splat_int as splat};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMIntPredicate::*;
use llvm_sys::LLVMOpcode::*;
use llvm_sys::LLVMRealPredicate::*;
use llvm_sys::LLVMTypeKind::*;

/// Rewrites every `fptrunc` from double to half and every half `llvm.fma`
/// in the functions of `m`; returns how many.
///
/// # Safety
/// `m` must be a live module whose context this thread owns.
pub unsafe fn run(m: LLVMModuleRef) -> usize {
    let ctx = LLVMGetModuleContext(m);
    let b = LLVMCreateBuilderInContext(ctx);
    let mut rewritten = 0;
    for f in llvm::functions(m) {
        for i in llvm::instructions(f) {
            if element_kind(LLVMTypeOf(i)) != LLVMHalfTypeKind {
                continue;
            }
            let odd = match LLVMGetInstructionOpcode(i) {
                LLVMFPTrunc
                    if element_kind(LLVMTypeOf(LLVMGetOperand(i, 0))) == LLVMDoubleTypeKind =>
                {
                    LLVMPositionBuilderBefore(b, i);
                    rounded_to_odd(b, ctx, LLVMGetOperand(i, 0))
                }
                LLVMCall if is_fma(i) => {
                    LLVMPositionBuilderBefore(b, i);
                    let floats = same_shape(LLVMTypeOf(i), LLVMFloatTypeInContext(ctx));
                    let [x, y, z] = [0, 1, 2]
                        .map(|k| LLVMBuildFPExt(b, LLVMGetOperand(i, k), floats, c"".as_ptr()));
                    // Exact: two halves' significands make 22 bits.
                    let product = LLVMBuildFMul(b, x, y, c"".as_ptr());
                    sum_rounded_to_odd(b, ctx, product, z)
                }
                _ => continue,
            };
            let h = LLVMBuildFPTrunc(b, odd, LLVMTypeOf(i), c"".as_ptr());
            LLVMReplaceAllUsesWith(i, h);
            LLVMInstructionEraseFromParent(i);
            rewritten += 1;
        }
    }
    LLVMDisposeBuilder(b);
    rewritten
}

/// Whether call `i` is of `llvm.fma` (of any type).
unsafe fn is_fma(i: LLVMValueRef) -> bool {
    llvm::called_function(i).is_some_and(|f| {
        let name = llvm::name(f);
        name == "llvm.fma" || name.starts_with("llvm.fma.")
    })
}

/// `d` (double or a vector of them) as a float rounded to odd: truncated
/// towards zero, its lowest bit set where that dropped anything.
unsafe fn rounded_to_odd(b: LLVMBuilderRef, ctx: LLVMContextRef, d: LLVMValueRef) -> LLVMValueRef {
    let like = |elem: LLVMTypeRef| same_shape(LLVMTypeOf(d), elem);
    let (f32t, i32t, i64t) = (
        like(LLVMFloatTypeInContext(ctx)),
        like(LLVMInt32TypeInContext(ctx)),
        like(LLVMInt64TypeInContext(ctx)),
    );
    let f = LLVMBuildFPTrunc(b, d, f32t, c"".as_ptr());
    let back = LLVMBuildFPExt(b, f, LLVMTypeOf(d), c"".as_ptr());
    // Magnitudes as integers: ordered as the values are (NaNs stay NaNs
    // whatever the comparison says).
    let magnitude = |v: LLVMValueRef| {
        let bits = LLVMBuildBitCast(b, v, i64t, c"".as_ptr());
        LLVMBuildAnd(b, bits, splat(i64t, i64::MAX as u64), c"".as_ptr())
    };
    let over = LLVMBuildICmp(b, LLVMIntUGT, magnitude(back), magnitude(d), c"".as_ptr());
    let inexact = LLVMBuildFCmp(b, LLVMRealUNE, back, d, c"".as_ptr());
    let bits = LLVMBuildBitCast(b, f, i32t, c"".as_ptr());
    // One step towards zero: the magnitude's bits less one (an overflow to
    // infinity becomes FLT_MAX, which still rounds to infinity).
    let less = LLVMBuildSub(b, bits, splat(i32t, 1), c"".as_ptr());
    let truncated = LLVMBuildSelect(b, over, less, bits, c"".as_ptr());
    let odd = LLVMBuildOr(b, truncated, splat(i32t, 1), c"".as_ptr());
    let bits = LLVMBuildSelect(b, inexact, odd, truncated, c"".as_ptr());
    LLVMBuildBitCast(b, bits, f32t, c"float.odd".as_ptr())
}

/// `p + c` (floats, or vectors of them) rounded to odd, for operands whose
/// sum and its error float holds (every bit a multiple of 2^-48 and below
/// 2^33, as a product of halves and a half are): the sum rounded to
/// nearest, and its exact error (Knuth's two-sum); where that is not zero
/// and the sum is even, the odd neighbour on the error's side.
unsafe fn sum_rounded_to_odd(
    b: LLVMBuilderRef,
    ctx: LLVMContextRef,
    p: LLVMValueRef,
    c: LLVMValueRef,
) -> LLVMValueRef {
    let i32t = same_shape(LLVMTypeOf(p), LLVMInt32TypeInContext(ctx));
    let s = LLVMBuildFAdd(b, p, c, c"".as_ptr());
    let bp = LLVMBuildFSub(b, s, c, c"".as_ptr());
    let bc = LLVMBuildFSub(b, s, bp, c"".as_ptr());
    let ep = LLVMBuildFSub(b, p, bp, c"".as_ptr());
    let ec = LLVMBuildFSub(b, c, bc, c"".as_ptr());
    let e = LLVMBuildFAdd(b, ep, ec, c"".as_ptr());
    let sbits = LLVMBuildBitCast(b, s, i32t, c"".as_ptr());
    let ebits = LLVMBuildBitCast(b, e, i32t, c"".as_ptr());
    // An infinite or NaN sum has a NaN error, so it is never moved.
    let inexact = LLVMBuildFCmp(
        b,
        LLVMRealONE,
        e,
        LLVMConstNull(LLVMTypeOf(e)),
        c"".as_ptr(),
    );
    let even = LLVMBuildICmp(
        b,
        LLVMIntEQ,
        LLVMBuildAnd(b, sbits, splat(i32t, 1), c"".as_ptr()),
        LLVMConstNull(i32t),
        c"".as_ptr(),
    );
    let adjust = LLVMBuildAnd(b, inexact, even, c"".as_ptr());
    // One step of the magnitude's bits: away from zero (+1) where the
    // error has the sum's sign, towards it (-1) otherwise.
    let opposite = LLVMBuildAShr(
        b,
        LLVMBuildXor(b, sbits, ebits, c"".as_ptr()),
        splat(i32t, 31),
        c"".as_ptr(),
    );
    let step = LLVMBuildOr(b, opposite, splat(i32t, 1), c"".as_ptr());
    let step = LLVMBuildSelect(b, adjust, step, LLVMConstNull(i32t), c"".as_ptr());
    let bits = LLVMBuildAdd(b, sbits, step, c"".as_ptr());
    LLVMBuildBitCast(b, bits, LLVMTypeOf(p), c"float.odd".as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    /// The halves the rewritten conversions of `values` fold to.
    fn folded(values: &[&str]) -> String {
        let calls: String = values
            .iter()
            .enumerate()
            .map(|(k, v)| {
                format!(
                    "  %h{k} = fptrunc double {v} to half\n  store volatile half %h{k}, ptr %p\n"
                )
            })
            .collect();
        let ir = Ir::parse(&format!(
            "define void @f(ptr %p) {{\n{calls}  ret void\n}}\n"
        ));
        unsafe {
            assert_eq!(run(ir.m), values.len());
            llvm::run_passes(ir.m, "function(instsimplify)", std::ptr::null_mut()).unwrap();
        }
        ir.text()
            .lines()
            .filter(|l| l.contains("store volatile"))
            .map(|l| l.trim().split(',').next().unwrap().to_string() + "\n")
            .collect()
    }

    #[test]
    fn a_double_just_past_a_half_midpoint_rounds_up_once() {
        // 1 + 2^-11 + 2^-40: just above the midpoint between 1 and the next
        // half; through a float rounded to nearest it would be the midpoint
        // and round to even, 1.
        let out = folded(&["0x3FF0020000001000", "0xBFF0020000001000"]);
        assert_eq!(
            out,
            "store volatile half 0xH3C01\nstore volatile half 0xHBC01\n"
        );
    }

    #[test]
    fn exact_values_ties_overflow_and_specials_keep_their_meaning() {
        let out = folded(&[
            "1.0",                // exact
            "0x3FF0020000000000", // 1 + 2^-11, a tie: to even, 1
            "0x3FF0060000000000", // 1 + 3 * 2^-11, a tie: to even, 1 + 2^-9
            "65519.0",            // below the midpoint to 2^16: 65504
            "65520.0",            // the midpoint: to even, infinity
            "1.0e300",            // beyond float: infinity
            "0x3E70000000000001", // just above 2^-24: the smallest subnormal
            "0x3E60000000000000", // 2^-25, a tie with 0: to even, 0
            "0x7FF0000000000000", // infinity
            "0x7FF8000000000000", // NaN
        ]);
        assert_eq!(
            out,
            "store volatile half 0xH3C00\n\
             store volatile half 0xH3C00\n\
             store volatile half 0xH3C02\n\
             store volatile half 0xH7BFF\n\
             store volatile half 0xH7C00\n\
             store volatile half 0xH7C00\n\
             store volatile half 0xH0001\n\
             store volatile half 0xH0000\n\
             store volatile half 0xH7C00\n\
             store volatile half 0xH7E00\n"
        );
    }

    #[test]
    fn half_fma_rounds_the_exact_result_once() {
        // (1 + 2^-10) 1.5 is the midpoint between 1.5 + 2^-10 and
        // 1.5 + 2^-9: the smallest subnormal added or taken away decides
        // it, where a sum rounded to float first would be the tie again.
        let ir = Ir::parse(
            r#"
define void @f(ptr %p) {
  %a = call half @llvm.fma.f16(half 0xH3C01, half 0xH3E00, half 0xH0001)
  store volatile half %a, ptr %p
  %b = call half @llvm.fma.f16(half 0xH3C01, half 0xH3E00, half 0xH8001)
  store volatile half %b, ptr %p
  %v = call <2 x half> @llvm.fma.v2f16(<2 x half> <half 0xH3C01, half 0xH3C00>, <2 x half> <half 0xH3E00, half 0xH3C00>, <2 x half> <half 0xH0001, half 0xH3C00>)
  store volatile <2 x half> %v, ptr %p
  ret void
}
declare half @llvm.fma.f16(half, half, half)
declare <2 x half> @llvm.fma.v2f16(<2 x half>, <2 x half>, <2 x half>)
"#,
        );
        unsafe {
            assert_eq!(run(ir.m), 3);
            llvm::run_passes(ir.m, "function(instsimplify)", std::ptr::null_mut()).unwrap();
        }
        let text = ir.text();
        let stores: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("store volatile"))
            .collect();
        assert!(stores[0].contains("half 0xH3E02"), "{text}");
        assert!(stores[1].contains("half 0xH3E01"), "{text}");
        assert!(stores[2].contains("<half 0xH3E02, half 0xH4000>"), "{text}");
        assert!(!text.contains("call half @llvm.fma"), "{text}");
    }

    /// Folds constants.
    const FOLD: &str = "function(instsimplify)";

    /// `h` (half bits) as a float.
    fn half_value(h: u16) -> f32 {
        let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
        let e = i32::from((h >> 10) & 0x1f);
        let m = f32::from(h & 0x3ff);
        sign * match e {
            0 => m * 2f32.powi(-24),
            _ => (1024.0 + m) * 2f32.powi(e - 25),
        }
    }

    /// The halves the fmas of `triples` fold to, through the pass or not
    /// (LLVM folds a half `llvm.fma` rounding once).
    fn fmas(triples: &[[u16; 3]], rewrite: bool) -> Vec<String> {
        let calls: String = triples
            .iter()
            .enumerate()
            .map(|(k, [a, b, c])| {
                format!(
                    "  %h{k} = call half @llvm.fma.f16(half 0xH{a:04X}, half 0xH{b:04X}, half 0xH{c:04X})\n  store volatile half %h{k}, ptr %p\n"
                )
            })
            .collect();
        let ir = Ir::parse(&format!(
            "define void @f(ptr %p) {{\n{calls}  ret void\n}}\ndeclare half @llvm.fma.f16(half, half, half)\n"
        ));
        unsafe {
            if rewrite {
                assert_eq!(run(ir.m), triples.len());
                llvm::verify(ir.m).unwrap();
            }
            llvm::run_passes(ir.m, FOLD, std::ptr::null_mut()).unwrap();
        }
        let text = ir.text();
        assert!(!text.contains("call half"), "not folded: {text}");
        text.lines()
            .filter(|l| l.contains("store volatile"))
            .map(|l| l.trim().split(',').next().unwrap().to_string())
            .collect()
    }

    #[test]
    fn half_fma_matches_one_rounding_where_the_float_lands_on_midpoints() {
        // Products of halves that are midpoints between halves (or near
        // them), with addends that push the exact sum off them by a
        // little, a lot, or not at all; and plain random triples.
        let mut rng = kernel_ir::test_support::XorShift(0x2545_f491_4f6c_dd1d);
        let mut next = || rng.next();
        let finite = |h: u16| h & 0x7c00 != 0x7c00;
        let (mut triples, mut random) = (Vec::new(), 0);
        while triples.len() < 1500 {
            let r = next();
            let (a, b) = (r as u16, (r >> 16) as u16);
            if !finite(a) || !finite(b) {
                continue;
            }
            let p = half_value(a) * half_value(b);
            let midpoint = p.to_bits() & 0x1fff == 0x1000 && p.abs() < 65520.0;
            let c = match (r >> 32) % 4 {
                0 if midpoint => ((r >> 40) as u16 & 0x8003) | 1,
                1 if midpoint => (r >> 40) as u16 & 0x83ff,
                2 if random < 500 => {
                    random += 1;
                    (r >> 40) as u16
                }
                _ => continue,
            };
            if finite(c) {
                triples.push([a, b, c]);
            }
        }
        let midpoints = triples
            .iter()
            .filter(|[a, b, _]| (half_value(*a) * half_value(*b)).to_bits() & 0x1fff == 0x1000)
            .count();
        assert!(midpoints >= 1000, "{midpoints}");
        let (ours, once) = (fmas(&triples, true), fmas(&triples, false));
        for (k, t) in triples.iter().enumerate() {
            assert_eq!(ours[k], once[k], "fma{t:04X?}");
        }
    }

    #[test]
    fn vector_conversions_are_rewritten_lane_by_lane_and_others_left() {
        let ir = Ir::parse(
            r#"
define <4 x half> @v(<4 x double> %d) {
  %h = fptrunc <4 x double> %d to <4 x half>
  ret <4 x half> %h
}
define half @s(float %f) {
  %h = fptrunc float %f to half
  ret half %h
}
"#,
        );
        unsafe {
            assert_eq!(run(ir.m), 1);
            llvm::verify(ir.m).unwrap();
        }
        let text = ir.text();
        assert!(
            !text.contains("fptrunc <4 x double> %d to <4 x half>"),
            "{text}"
        );
        assert!(
            text.contains("fptrunc <4 x double> %d to <4 x float>"),
            "{text}"
        );
        assert!(
            text.contains("fptrunc <4 x float> %float.odd to <4 x half>"),
            "{text}"
        );
        assert!(text.contains("fptrunc float %f to half"), "{text}");
    }
}
