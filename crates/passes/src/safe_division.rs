//! Integer division that cannot trap. OpenCL C leaves `x / 0`, `x % 0`
//! and `INT_MIN / -1` undefined, but on x86 they raise SIGFPE, which would
//! kill the application rather than give a meaningless number. Every
//! `sdiv`, `udiv`, `srem` and `urem`, scalar or vector, gets a divisor of 1
//! where it would trap: the quotient is then the dividend and the remainder
//! 0, one compare and a select per division. It runs before any pass that
//! copies or widens the kernel, so every form of it is safe.

use compiler::llvm;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMIntPredicate::*;
use llvm_sys::LLVMOpcode::*;
use llvm_sys::LLVMTypeKind::*;

/// Makes every integer division and remainder in `f` safe; returns how
/// many needed a guard (a constant divisor that cannot trap needs none).
///
/// # Safety
/// `f` must be a live function whose context this thread owns.
pub unsafe fn run(f: LLVMValueRef) -> usize {
    let ctx = LLVMGetTypeContext(LLVMTypeOf(f));
    let b = LLVMCreateBuilderInContext(ctx);
    let mut guarded = 0;
    for i in llvm::instructions(f) {
        let signed = match LLVMGetInstructionOpcode(i) {
            LLVMSDiv | LLVMSRem => true,
            LLVMUDiv | LLVMURem => false,
            _ => continue,
        };
        let (n, d) = (LLVMGetOperand(i, 0), LLVMGetOperand(i, 1));
        if constant_cannot_trap(d, signed) {
            continue;
        }
        LLVMPositionBuilderBefore(b, i);
        let ty = LLVMTypeOf(d);
        let mut traps = LLVMBuildICmp(b, LLVMIntEQ, d, LLVMConstNull(ty), c"".as_ptr());
        if signed {
            // The one signed quotient that overflows: MIN / -1.
            let minus_one = LLVMConstAllOnes(ty);
            let min = splat(ty, |bits| 1u64 << (bits - 1));
            let by_minus_one = LLVMBuildICmp(b, LLVMIntEQ, d, minus_one, c"".as_ptr());
            let of_min = LLVMBuildICmp(b, LLVMIntEQ, n, min, c"".as_ptr());
            let overflow = LLVMBuildAnd(b, by_minus_one, of_min, c"".as_ptr());
            traps = LLVMBuildOr(b, traps, overflow, c"".as_ptr());
        }
        let one = splat(ty, |_| 1);
        let safe = LLVMBuildSelect(b, traps, one, d, c"divisor".as_ptr());
        LLVMSetOperand(i, 1, safe);
        guarded += 1;
    }
    LLVMDisposeBuilder(b);
    guarded
}

/// A constant divisor none of whose elements is 0 (nor -1, when signed:
/// a constant dividend is rare, and -1 would need the dividend's test).
unsafe fn constant_cannot_trap(d: LLVMValueRef, signed: bool) -> bool {
    let element_ok = |e: LLVMValueRef| {
        if e.is_null() || LLVMIsAConstantInt(e).is_null() {
            return false;
        }
        let bits = LLVMGetIntTypeWidth(LLVMTypeOf(e));
        let v = LLVMConstIntGetZExtValue(e);
        let all_ones = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        v != 0 && !(signed && v == all_ones)
    };
    if !LLVMIsAConstantInt(d).is_null() {
        // Wider than 64 bits is not an OpenCL C type; guard it anyway.
        return LLVMGetIntTypeWidth(LLVMTypeOf(d)) <= 64 && element_ok(d);
    }
    let ty = LLVMTypeOf(d);
    if LLVMIsAConstant(d).is_null() || LLVMGetTypeKind(ty) != LLVMVectorTypeKind {
        return false;
    }
    (0..LLVMGetVectorSize(ty)).all(|k| element_ok(LLVMGetAggregateElement(d, k)))
}

/// The constant of integer (or integer vector) type `ty` whose every
/// element is `value(bits)`.
unsafe fn splat(ty: LLVMTypeRef, value: impl Fn(u32) -> u64) -> LLVMValueRef {
    if LLVMGetTypeKind(ty) == LLVMVectorTypeKind {
        let elem = LLVMGetElementType(ty);
        let e = LLVMConstInt(elem, value(LLVMGetIntTypeWidth(elem)), 0);
        let mut elems = vec![e; LLVMGetVectorSize(ty) as usize];
        LLVMConstVector(elems.as_mut_ptr(), elems.len() as u32)
    } else {
        LLVMConstInt(ty, value(LLVMGetIntTypeWidth(ty)), 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    #[test]
    fn every_division_that_can_trap_gets_a_guarded_divisor() {
        let ir = Ir::parse(
            r#"
define i32 @f(i32 %a, i32 %b, i64 %c, i64 %d, <4 x i8> %v, <4 x i8> %w) {
  %q = sdiv i32 %a, %b
  %r = urem i64 %c, %d
  %vq = udiv <4 x i8> %v, %w
  %vr = srem <4 x i8> %v, %w
  %e = extractelement <4 x i8> %vq, i32 0
  %f = extractelement <4 x i8> %vr, i32 1
  %g = add i8 %e, %f
  %h = sext i8 %g to i32
  %t = trunc i64 %r to i32
  %s = add i32 %q, %t
  %u = add i32 %s, %h
  ret i32 %u
}
"#,
        );
        let n = unsafe { run(ir.function("f")) };
        assert_eq!(n, 4);
        unsafe { compiler::llvm::verify(ir.m).unwrap() };
        let text = ir.text();
        // Signed: zero, or MIN by -1.
        assert!(text.contains("icmp eq i32 %b, 0"), "{text}");
        assert!(text.contains("icmp eq i32 %b, -1"), "{text}");
        assert!(text.contains("icmp eq i32 %a, -2147483648"), "{text}");
        assert!(text.contains("sdiv i32 %a, %divisor"), "{text}");
        // Unsigned: zero only.
        assert!(text.contains("icmp eq i64 %d, 0"), "{text}");
        assert!(!text.contains("icmp eq i64 %d, -1"), "{text}");
        assert!(text.contains("urem i64 %c, %divisor"), "{text}");
        // Vectors element by element.
        assert!(
            text.contains("icmp eq <4 x i8> %w, zeroinitializer"),
            "{text}"
        );
        assert!(
            text.contains("icmp eq <4 x i8> %v, splat (i8 -128)"),
            "{text}"
        );
        assert!(text.contains("select <4 x i1>"), "{text}");
        assert!(text.contains("srem <4 x i8> %v, %divisor"), "{text}");
    }

    #[test]
    fn constant_divisors_that_cannot_trap_are_left_alone() {
        let ir = Ir::parse(
            r#"
define <2 x i32> @f(i32 %a, <2 x i32> %v) {
  %q = sdiv i32 %a, 7
  %r = udiv i32 %a, -1
  %s = srem i32 %a, -1
  %vq = sdiv <2 x i32> %v, <i32 3, i32 -5>
  %vr = sdiv <2 x i32> %v, <i32 3, i32 -1>
  %x = add i32 %q, %r
  %y = add i32 %x, %s
  %z = insertelement <2 x i32> %vq, i32 %y, i32 0
  %o = add <2 x i32> %z, %vr
  ret <2 x i32> %o
}
"#,
        );
        // Only the signed ones by -1 (scalar and one element) need a guard.
        let n = unsafe { run(ir.function("f")) };
        assert_eq!(n, 2);
        unsafe { compiler::llvm::verify(ir.m).unwrap() };
        let text = ir.text();
        assert!(text.contains("sdiv i32 %a, 7"), "{text}");
        assert!(text.contains("udiv i32 %a, -1"), "{text}");
        assert!(
            text.contains("sdiv <2 x i32> %v, <i32 3, i32 -5>"),
            "{text}"
        );
        assert!(text.contains("srem i32 %a, %divisor"), "{text}");
    }
}
