//! Inductions: a loop header's phi `p` that each iteration steps by an
//! amount the caller knows to be the same for every work-item (`i += 16`,
//! `i += get_global_size(0)`, a pointer moved by a row).

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMOpcode, LLVMTypeKind};

/// How an induction steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// `p + u`.
    Add(LLVMValueRef),
    /// `p - u`.
    Sub(LLVMValueRef),
    /// `gep T, p, u`: `u` elements of type `T`.
    Gep(LLVMTypeRef, LLVMValueRef),
}

/// How `next` steps `p` by an amount `uniform` accepts: `p + u`, `u + p`,
/// `p - u` or a one-index `gep T, p, u`. With `casts`, the sum may be
/// computed on an integer cast of `p` and cast back (`trunc(sext(p) + u)`,
/// as the front end widens an `int` index).
///
/// # Safety
/// `next` and `p` must be live values.
pub unsafe fn step_of(
    next: LLVMValueRef,
    p: LLVMValueRef,
    casts: bool,
    uniform: impl Fn(LLVMValueRef) -> bool,
) -> Option<Step> {
    use LLVMOpcode::*;
    let peel = |v| if casts { through_casts(v) } else { v };
    let next = peel(next);
    if LLVMIsAInstruction(next).is_null() {
        return None;
    }
    let op = |k: u32| LLVMGetOperand(next, k);
    match LLVMGetInstructionOpcode(next) {
        LLVMAdd if peel(op(0)) == p && uniform(op(1)) => Some(Step::Add(op(1))),
        LLVMAdd if peel(op(1)) == p && uniform(op(0)) => Some(Step::Add(op(0))),
        LLVMSub if peel(op(0)) == p && uniform(op(1)) => Some(Step::Sub(op(1))),
        LLVMGetElementPtr
            if LLVMGetNumOperands(next) == 2
                && op(0) == p
                && uniform(op(1))
                && LLVMGetTypeKind(LLVMTypeOf(op(1))) == LLVMTypeKind::LLVMIntegerTypeKind =>
        {
            Some(Step::Gep(LLVMGetGEPSourceElementType(next), op(1)))
        }
        _ => None,
    }
}

/// `v` without the integer casts on it: `sext`, `zext`, `trunc`, and
/// `(x << c) >> c` (a sign extension as an optimizer writes it).
///
/// # Safety
/// `v` must be a live value.
pub unsafe fn through_casts(mut v: LLVMValueRef) -> LLVMValueRef {
    use LLVMOpcode::*;
    while !LLVMIsAInstruction(v).is_null() {
        let op = |k: u32| LLVMGetOperand(v, k);
        v = match LLVMGetInstructionOpcode(v) {
            LLVMSExt | LLVMZExt | LLVMTrunc => op(0),
            LLVMAShr
                if !LLVMIsAInstruction(op(0)).is_null()
                    && LLVMGetInstructionOpcode(op(0)) == LLVMShl
                    && LLVMGetOperand(op(0), 1) == op(1) =>
            {
                LLVMGetOperand(op(0), 0)
            }
            _ => return v,
        };
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Ir;

    #[test]
    fn steps_by_an_accepted_amount_are_found_through_casts_only_when_asked() {
        let ir = Ir::parse(
            r#"
define void @f(ptr %q, i64 %u, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %j = phi i32 [ 0, %entry ], [ %j.next, %loop ]
  %p = phi ptr [ %q, %entry ], [ %p.next, %loop ]
  %k = phi i32 [ 0, %entry ], [ %k.next, %loop ]
  %wide = sext i32 %i to i64
  %sum = add i64 %wide, %u
  %i.next = trunc i64 %sum to i32
  %j.next = sub i32 %j, %n
  %p.next = getelementptr float, ptr %p, i64 %u
  %k.next = mul i32 %k, %n
  %more = icmp slt i32 %j.next, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}
"#,
        );
        unsafe {
            let f = ir.function("f");
            let named = |name: &str| {
                compiler::llvm::instructions(f)
                    .into_iter()
                    .find(|&v| compiler::llvm::name(v) == name)
                    .unwrap()
            };
            let any = |_| true;
            let u = LLVMGetParam(f, 1);
            let n = LLVMGetParam(f, 2);
            assert_eq!(
                step_of(named("i.next"), named("i"), true, any),
                Some(Step::Add(u))
            );
            assert_eq!(step_of(named("i.next"), named("i"), false, any), None);
            assert_eq!(
                step_of(named("j.next"), named("j"), false, any),
                Some(Step::Sub(n))
            );
            assert!(matches!(
                step_of(named("p.next"), named("p"), false, any),
                Some(Step::Gep(_, v)) if v == u
            ));
            assert_eq!(step_of(named("k.next"), named("k"), true, any), None);
            // An amount the caller does not accept.
            assert_eq!(step_of(named("j.next"), named("j"), false, |_| false), None);
        }
    }
}
