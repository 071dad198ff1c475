//! Comparisons of the local x id with a uniform value, made on the lane
//! numbers: `x + l < u` is `l < u - x`, the difference clamped into
//! `[-1, width]` once per run, so that the lanes compare as 32-bit
//! integers whatever the ids' type (`size_t lid < offset` would otherwise
//! compare 64-bit lanes, twice the registers, in every step of a tree or
//! a scan). Work-item ids never wrap: `x + l` is below the local size.

use super::Gen;
use crate::analysis::shape::Shape;
use crate::types::is_vector;
use compiler::llvm::{self, cstr};
use kernel_ir::builtin_kinds::{callee_name, is_local_id};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;

impl Gen {
    /// `x` if `v` is the local id in dimension 0 (lane `l` is `x + l`),
    /// perhaps extended or truncated to 32 bits or more: lane 0's value.
    unsafe fn local_x_base(&self, v: LLVMValueRef) -> Option<LLVMValueRef> {
        use LLVMOpcode::*;
        if LLVMIsAInstruction(v).is_null() || self.shape(v) != Shape::Affine(1) {
            return None;
        }
        let from = match LLVMGetInstructionOpcode(v) {
            LLVMCall if callee_name(v).is_some_and(|n| is_local_id(&n)) => {
                return Some(self.scalar_of(v));
            }
            LLVMZExt | LLVMSExt => LLVMGetOperand(v, 0),
            LLVMTrunc if LLVMGetIntTypeWidth(LLVMTypeOf(v)) >= 32 => LLVMGetOperand(v, 0),
            _ => return None,
        };
        self.local_x_base(from).map(|_| self.scalar_of(v))
    }

    /// `i` (an integer comparison) made on the lane numbers, if one side
    /// is the local x id and the other uniform (see the module's doc).
    pub(super) unsafe fn local_id_compare(&self, i: LLVMValueRef) -> Option<LLVMValueRef> {
        use llvm_sys::LLVMIntPredicate::*;
        let (a, b) = (LLVMGetOperand(i, 0), LLVMGetOperand(i, 1));
        let pred = LLVMGetICmpPredicate(i);
        let (x, u, pred) = if let Some(x) = self.local_x_base(a) {
            (x, b, pred)
        } else if let Some(x) = self.local_x_base(b) {
            (x, a, kernel_ir::compare::swapped(pred))
        } else {
            return None;
        };
        if self.shape(u) != Shape::Uniform || is_vector(LLVMTypeOf(u)) {
            return None;
        }
        let u = self.scalar_of(u);
        let ty = LLVMTypeOf(x);
        let signed = matches!(pred, LLVMIntSLT | LLVMIntSLE | LLVMIntSGT | LLVMIntSGE);
        let b = self.b;
        // u below x: every lane is above u, as it is above -1.
        let below = LLVMBuildICmp(
            b,
            if signed { LLVMIntSLT } else { LLVMIntULT },
            u,
            x,
            c"".as_ptr(),
        );
        // Otherwise u - x is exact and not negative; past the last lane
        // it is as good as `width`.
        let diff = LLVMBuildSub(b, u, x, c"".as_ptr());
        let width = LLVMConstInt(ty, self.width as u64, 0);
        let past = LLVMBuildICmp(b, LLVMIntUGT, diff, width, c"".as_ptr());
        let capped = LLVMBuildSelect(b, past, width, diff, c"".as_ptr());
        let d = LLVMBuildSelect(b, below, LLVMConstAllOnes(ty), capped, c"".as_ptr());
        let i32t = LLVMInt32TypeInContext(self.ctx);
        let d = LLVMBuildIntCast2(b, d, i32t, 1, c"lanes_from".as_ptr());
        let on_lanes = match pred {
            LLVMIntULT | LLVMIntSLT => LLVMIntSLT,
            LLVMIntULE | LLVMIntSLE => LLVMIntSLE,
            LLVMIntUGT | LLVMIntSGT => LLVMIntSGT,
            LLVMIntUGE | LLVMIntSGE => LLVMIntSGE,
            same => same,
        };
        let name = cstr(&llvm::name(i));
        Some(LLVMBuildICmp(
            b,
            on_lanes,
            self.steps(i32t),
            self.splat(d),
            name.as_ptr(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use crate::tests::vector_text;
    use kernel_ir::test_support::HEAD;

    #[test]
    fn a_local_id_compared_with_a_uniform_value_compares_lane_numbers() {
        // `size_t lid`: 64-bit ids, compared as 32-bit lane numbers
        // against the clamped difference, both operand orders.
        let text = vector_text(
            &format!(
                "{HEAD}
    define void @k(ptr %c, i64 %n) {{
    entry:
      %lid = call i64 @__mux_get_local_id(i32 0)
      br label %loop
    loop:
      %s = phi i64 [ 1, %entry ], [ %s1, %loop ]
      %below = icmp ult i64 %lid, %s
      %above = icmp sgt i64 %s, %lid
      %both = and i1 %below, %above
      %v = zext i1 %both to i32
      %pc = getelementptr i32, ptr %c, i64 %lid
      store i32 %v, ptr %pc, align 4
      %s1 = shl i64 %s, 1
      %more = icmp ult i64 %s1, %n
      br i1 %more, label %loop, label %out
    out:
      ret void
    }}"
            ),
            8,
        );
        assert!(text.contains("lanes_from"), "{text}");
        assert!(!text.contains("icmp ult <8 x i64>"), "{text}");
        assert!(!text.contains("icmp sgt <8 x i64>"), "{text}");
        // `s > lid` is `lid < s`: lanes below the difference, both.
        assert_eq!(
            text.matches("icmp slt <8 x i32> <i32 0, i32 1").count(),
            2,
            "{text}"
        );
    }
}
