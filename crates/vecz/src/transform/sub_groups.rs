//! The sub-group functions in a vector form whose lanes are one sub-group
//! (`sub_group_calls`): each is a few instructions across the vector's
//! lanes, giving the bits the scalar kernel's exchange through local memory
//! gives. Integer reductions and scans take any order (they wrap, and min
//! and max are exact); float ones go lane after lane, as the scalar kernel
//! combines them.

use super::Gen;
use compiler::llvm;
use kernel_ir::sub_group_calls::{Collective, Combine, Element, SubGroupCall};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMIntPredicate::*;
use llvm_sys::LLVMRealPredicate::*;
use llvm_sys::LLVMTypeKind;

impl Gen {
    /// Replaces call `i` of a sub-group function: a uniform result is the
    /// scalar, a varying one the vector.
    pub(super) unsafe fn sub_group(&mut self, i: LLVMValueRef, sg: SubGroupCall) {
        if sg.collective == Collective::Barrier {
            // Every instruction runs for all the lanes before the next.
            return;
        }
        let x = self.vector_of(LLVMGetOperand(i, 0));
        let e = sg.element;
        let result = match sg.collective {
            Collective::Reduce(c) => self.reduce(x, c, e),
            Collective::All | Collective::Any => {
                let zero = LLVMConstNull(LLVMTypeOf(x));
                let set = LLVMBuildICmp(self.b, LLVMIntNE, x, zero, c"".as_ptr());
                let name = if sg.collective == Collective::All {
                    "llvm.vector.reduce.and"
                } else {
                    "llvm.vector.reduce.or"
                };
                let bit = self.intrinsic(name, &[LLVMTypeOf(set)], &mut [set]);
                LLVMBuildZExt(self.b, bit, LLVMTypeOf(i), c"".as_ptr())
            }
            Collective::Broadcast => {
                let lane = self.scalar_of(LLVMGetOperand(i, 1));
                let lane = self.in_range(lane);
                LLVMBuildExtractElement(self.b, x, lane, c"broadcast".as_ptr())
            }
            Collective::ScanInclusive(c) => self.scan(x, c, e, true),
            Collective::ScanExclusive(c) => self.scan(x, c, e, false),
            Collective::Shuffle
            | Collective::ShuffleXor
            | Collective::ShuffleUp
            | Collective::ShuffleDown => {
                let arg = self.vector_of(LLVMGetOperand(i, 1));
                let lanes = self.steps(LLVMTypeOf(LLVMGetOperand(i, 1)));
                let from = match sg.collective {
                    Collective::Shuffle => arg,
                    Collective::ShuffleXor => LLVMBuildXor(self.b, lanes, arg, c"".as_ptr()),
                    Collective::ShuffleUp => LLVMBuildSub(self.b, lanes, arg, c"".as_ptr()),
                    _ => LLVMBuildAdd(self.b, lanes, arg, c"".as_ptr()),
                };
                self.permute(x, from)
            }
            Collective::Barrier => unreachable!(),
        };
        let name = llvm::name(i);
        LLVMSetValueName2(result, name.as_ptr() as *const _, name.len());
        if sg.is_uniform() {
            self.scalar.insert(i, result);
        } else {
            self.vector.insert(i, result);
        }
    }

    /// `lane` kept inside the sub-group, as the scalar kernel keeps it.
    unsafe fn in_range(&self, lane: LLVMValueRef) -> LLVMValueRef {
        let t = LLVMTypeOf(lane);
        LLVMBuildAnd(
            self.b,
            lane,
            LLVMConstInt(t, self.width as u64 - 1, 0),
            c"".as_ptr(),
        )
    }

    unsafe fn lane_const(&self, l: u32) -> LLVMValueRef {
        LLVMConstInt(LLVMInt32TypeInContext(self.ctx), l as u64, 0)
    }

    /// `a` combined with `b`, as the builtins' OpenCL C does.
    unsafe fn combine(
        &self,
        a: LLVMValueRef,
        b: LLVMValueRef,
        c: Combine,
        e: Element,
    ) -> LLVMValueRef {
        let bld = self.b;
        match (c, e) {
            (Combine::Add, Element::Float) => LLVMBuildFAdd(bld, a, b, c"".as_ptr()),
            (Combine::Add, _) => LLVMBuildAdd(bld, a, b, c"".as_ptr()),
            // OpenCL C's min and max of floats: b where b < a (b > a), else a.
            (Combine::Min, Element::Float) => {
                let less = LLVMBuildFCmp(bld, LLVMRealOLT, b, a, c"".as_ptr());
                LLVMBuildSelect(bld, less, b, a, c"".as_ptr())
            }
            (Combine::Max, Element::Float) => {
                let more = LLVMBuildFCmp(bld, LLVMRealOGT, b, a, c"".as_ptr());
                LLVMBuildSelect(bld, more, b, a, c"".as_ptr())
            }
            (Combine::Min | Combine::Max, _) => {
                let pred = match (c, e) {
                    (Combine::Min, Element::Signed) => LLVMIntSLT,
                    (Combine::Min, _) => LLVMIntULT,
                    (_, Element::Signed) => LLVMIntSGT,
                    _ => LLVMIntUGT,
                };
                let pick = LLVMBuildICmp(bld, pred, b, a, c"".as_ptr());
                LLVMBuildSelect(bld, pick, b, a, c"".as_ptr())
            }
        }
    }

    /// The identity of `c` for `ty`: what an exclusive scan gives lane 0.
    unsafe fn identity(&self, ty: LLVMTypeRef, c: Combine, e: Element) -> LLVMValueRef {
        let bits = if LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMIntegerTypeKind {
            LLVMGetIntTypeWidth(ty)
        } else {
            0
        };
        match (c, e) {
            (Combine::Add, _) => LLVMConstNull(ty),
            (Combine::Min, Element::Float) => LLVMConstReal(ty, f64::INFINITY),
            (Combine::Max, Element::Float) => LLVMConstReal(ty, f64::NEG_INFINITY),
            (Combine::Min, Element::Signed) => LLVMConstInt(ty, (1u64 << (bits - 1)) - 1, 0),
            (Combine::Min, _) => LLVMConstAllOnes(ty),
            (Combine::Max, Element::Signed) => LLVMConstInt(ty, 1u64 << (bits - 1), 0),
            (Combine::Max, _) => LLVMConstNull(ty),
        }
    }

    unsafe fn reduce(&self, x: LLVMValueRef, c: Combine, e: Element) -> LLVMValueRef {
        let vt = LLVMTypeOf(x);
        let name = match (c, e) {
            (Combine::Add, Element::Float) => {
                // Without reassociation, LLVM's reduction is the sequential one.
                let start = LLVMConstReal(LLVMGetElementType(vt), -0.0);
                return self.intrinsic("llvm.vector.reduce.fadd", &[vt], &mut [start, x]);
            }
            (_, Element::Float) => {
                let mut acc = LLVMBuildExtractElement(self.b, x, self.lane_const(0), c"".as_ptr());
                for l in 1..self.width {
                    let v = LLVMBuildExtractElement(self.b, x, self.lane_const(l), c"".as_ptr());
                    acc = self.combine(acc, v, c, e);
                }
                return acc;
            }
            (Combine::Add, _) => "llvm.vector.reduce.add",
            (Combine::Min, Element::Signed) => "llvm.vector.reduce.smin",
            (Combine::Min, _) => "llvm.vector.reduce.umin",
            (Combine::Max, Element::Signed) => "llvm.vector.reduce.smax",
            (Combine::Max, _) => "llvm.vector.reduce.umax",
        };
        self.intrinsic(name, &[vt], &mut [x])
    }

    /// An inclusive or exclusive scan across the lanes.
    unsafe fn scan(
        &self,
        x: LLVMValueRef,
        c: Combine,
        e: Element,
        inclusive: bool,
    ) -> LLVMValueRef {
        let vt = LLVMTypeOf(x);
        let et = LLVMGetElementType(vt);
        let id = self.identity(et, c, e);
        let ids = self.splat(id);
        let w = self.width;
        let inc = if e == Element::Float {
            // Lane after lane, as the scalar kernel adds.
            let mut acc = LLVMBuildExtractElement(self.b, x, self.lane_const(0), c"".as_ptr());
            let mut out =
                LLVMBuildInsertElement(self.b, ids, acc, self.lane_const(0), c"".as_ptr());
            for l in 1..w {
                let v = LLVMBuildExtractElement(self.b, x, self.lane_const(l), c"".as_ptr());
                acc = self.combine(acc, v, c, e);
                out = LLVMBuildInsertElement(self.b, out, acc, self.lane_const(l), c"".as_ptr());
            }
            out
        } else {
            // Steps of 1, 2, 4, ..: each lane takes what lies that far below.
            let mut v = x;
            let mut d = 1;
            while d < w {
                let shifted = self.shift_up(v, ids, d);
                v = self.combine(v, shifted, c, e);
                d *= 2;
            }
            v
        };
        if inclusive {
            inc
        } else {
            self.shift_up(inc, ids, 1)
        }
    }

    /// Lane `l` of the result is `v`'s lane `l - d`, or `fill`'s below `d`.
    unsafe fn shift_up(&self, v: LLVMValueRef, fill: LLVMValueRef, d: u32) -> LLVMValueRef {
        let w = self.width;
        let m = self.mask((0..w).map(|l| Some(if l >= d { l - d } else { w + l })));
        LLVMBuildShuffleVector(self.b, v, fill, m, c"".as_ptr())
    }

    /// Lane `l` of the result is `x`'s lane `from[l]` (kept in range).
    unsafe fn permute(&self, x: LLVMValueRef, from: LLVMValueRef) -> LLVMValueRef {
        let from = {
            let t = LLVMTypeOf(from);
            let top = self.splat(LLVMConstInt(
                LLVMGetElementType(t),
                self.width as u64 - 1,
                0,
            ));
            LLVMBuildAnd(self.b, from, top, c"".as_ptr())
        };
        let mut out = LLVMGetPoison(LLVMTypeOf(x));
        for l in 0..self.width {
            let at = LLVMBuildExtractElement(self.b, from, self.lane_const(l), c"".as_ptr());
            let v = LLVMBuildExtractElement(self.b, x, at, c"".as_ptr());
            out = LLVMBuildInsertElement(self.b, out, v, self.lane_const(l), c"".as_ptr());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use kernel_ir::test_support::Ir;

    /// A kernel calling sub-group functions (bodies that meet at the
    /// sub-group barrier, as the library's do) on its x id.
    const KERNEL: &str = r#"
target datalayout = "e-m:e-i64:64-n8:16:32:64-S128"
declare i64 @__mux_get_local_id(i32)
declare void @__mux_sub_group_barrier()
define internal float @_Z20sub_group_reduce_addf(float %x) {
  call void @__mux_sub_group_barrier()
  ret float %x
}
define internal i32 @_Z28sub_group_scan_inclusive_maxi(i32 %x) {
  call void @__mux_sub_group_barrier()
  ret i32 %x
}
define internal i32 @_Z19sub_group_broadcastij(i32 %x, i32 %l) {
  call void @__mux_sub_group_barrier()
  ret i32 %x
}
define void @k(ptr %f, ptr %i) {
  %x = call i64 @__mux_get_local_id(i32 0)
  %pf = getelementptr float, ptr %f, i64 %x
  %vf = load float, ptr %pf
  %sum = call float @_Z20sub_group_reduce_addf(float %vf)
  store float %sum, ptr %pf
  %pi = getelementptr i32, ptr %i, i64 %x
  %vi = load i32, ptr %pi
  %scan = call i32 @_Z28sub_group_scan_inclusive_maxi(i32 %vi)
  %b = call i32 @_Z19sub_group_broadcastij(i32 %scan, i32 3)
  %r = add i32 %scan, %b
  store i32 %r, ptr %pi
  ret void
}
"#;

    #[test]
    fn sub_group_functions_are_instructions_across_the_lanes() {
        let ir = Ir::parse(KERNEL);
        unsafe {
            crate::run(ir.m, ir.function("k"), 8, crate::Forms::All).unwrap();
            compiler::llvm::verify(ir.m).unwrap();
        }
        let text = ir.text();
        let v = &text[text
            .find("define internal void @k.v8")
            .expect("a vector form")..];
        // The float sum lane after lane (no reassociation), one value.
        assert!(
            v.contains(
                "call float @llvm.vector.reduce.fadd.v8f32(float -0.000000e+00, <8 x float>"
            ),
            "{v}"
        );
        // The integer scan in three steps of shuffles and selects.
        assert!(v.matches("shufflevector <8 x i32>").count() >= 3, "{v}");
        assert!(v.contains("icmp sgt <8 x i32>"), "{v}");
        // The broadcast is lane 3 of the scan.
        assert!(v.contains("extractelement <8 x i32>"), "{v}");
        assert!(!v.contains("@_Z"), "a sub-group call left: {v}");
    }

    #[test]
    fn a_sub_group_function_under_a_varying_branch_is_declined() {
        let src = KERNEL.replace(
            "  %sum = call float @_Z20sub_group_reduce_addf(float %vf)\n  store float %sum, ptr %pf\n",
            "  %c = fcmp olt float %vf, 0.0\n  br i1 %c, label %then, label %join\nthen:\n  %sum = call float @_Z20sub_group_reduce_addf(float %vf)\n  store float %sum, ptr %pf\n  br label %join\njoin:\n",
        );
        let ir = Ir::parse(&src);
        let e = unsafe { crate::run(ir.m, ir.function("k"), 8, crate::Forms::All) }.unwrap_err();
        assert!(e.contains("sub_group_reduce_add"), "{e}");
    }
}
