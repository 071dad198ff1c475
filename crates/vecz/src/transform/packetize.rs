//! Instructions widened into their vector forms: arithmetic, comparisons,
//! casts, GEPs, element and shuffle code, and calls (lane-wise intrinsics
//! on vectors, a math builtin's vector variant, or the builtin once per
//! lane).

use super::Gen;
use crate::analysis::shape::Shape;
use crate::intrinsics::{intrinsic_name, lanewise};
use crate::types::{elements, is_vector};
use crate::values::const_int;
use compiler::llvm::{self, cstr};
use compiler::vector_variants;
use kernel_ir::builtin_kinds::{callee_name, is_local_id};
use kernel_ir::sub_group_calls;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;

impl Gen {
    pub(super) unsafe fn instruction(&mut self, i: LLVMValueRef) -> Result<(), String> {
        use LLVMOpcode::*;
        let opcode = LLVMGetInstructionOpcode(i);
        match opcode {
            LLVMAlloca => return self.private_alloca(i),
            LLVMGetElementPtr if self.private_gep(i) => return Ok(()),
            LLVMStore if self.private_store(i) => return Ok(()),
            LLVMLoad => {
                if let Some(l) = self.private_load(i) {
                    self.vector.insert(i, l);
                    return Ok(());
                }
            }
            // Markers of private arrays, whose lanes' copies live as long
            // as the vector form runs.
            LLVMCall if crate::analysis::private::is_lifetime_marker(i) => return Ok(()),
            // Hints about each work-item, which the vector form does
            // without.
            LLVMCall if crate::intrinsics::is_assume(i) => return Ok(()),
            LLVMCall if self.private.contains_key(&LLVMGetOperand(i, 0)) => {
                return self.private_fill(i)
            }
            _ => {}
        }
        if opcode == LLVMStore {
            return self.store(i);
        }
        if opcode == LLVMBr {
            let block = LLVMGetInstructionParent(i);
            if let Some(l) = self.divergent.iter().position(|l| l.exiting == block) {
                self.exit_test(i, l);
                return Ok(());
            }
            if let Some(g) = self.guards.iter().position(|g| g.guard == block) {
                self.guard_branch(i, g);
                return Ok(());
            }
            // An if/else's guarded block goes on to the else test.
            if let Some(&(_, check)) = self.else_checks.get(&block) {
                LLVMBuildBr(self.b, check);
                return Ok(());
            }
        }
        if opcode == LLVMCall {
            if let Some(sg) = llvm::called_function(i).and_then(|f| sub_group_calls::classify(f)) {
                self.sub_group(i, sg);
                return Ok(());
            }
        }
        let shape = self.shape(i);
        if shape != Shape::Varying {
            let c = self.clone_scalar(i);
            self.scalar.insert(i, c);
            if shape == Shape::Uniform {
                return Ok(());
            }
        }
        let w = match opcode {
            LLVMCall if callee_name(i).is_some_and(|n| is_local_id(&n)) => {
                // Lane l is work-item x + l.
                let base = self.scalar[&i];
                let steps = self.steps(LLVMTypeOf(base));
                LLVMBuildAdd(self.b, self.splat(base), steps, c"lane_id".as_ptr())
            }
            LLVMCall => self.call(i)?,
            LLVMAtomicRMW => self.atomic_rmw(i),
            LLVMLoad => self.load(i),
            LLVMICmp => match self.local_id_compare(i) {
                Some(c) => c,
                None => self.widen(i)?,
            },
            _ => self.widen(i)?,
        };
        self.vector.insert(i, w);
        Ok(())
    }

    /// The vector form of an arithmetic, comparison, cast or GEP.
    pub(super) unsafe fn widen(&mut self, i: LLVMValueRef) -> Result<LLVMValueRef, String> {
        use LLVMOpcode::*;
        let b = self.b;
        let opcode = LLVMGetInstructionOpcode(i);
        let op = |g: &Self, k: u32| g.vector_of(LLVMGetOperand(i, k));
        let name = cstr(&llvm::name(i));
        let w = match opcode {
            LLVMAdd | LLVMFAdd | LLVMSub | LLVMFSub | LLVMMul | LLVMFMul | LLVMUDiv | LLVMSDiv
            | LLVMFDiv | LLVMURem | LLVMSRem | LLVMFRem | LLVMShl | LLVMLShr | LLVMAShr
            | LLVMAnd | LLVMOr | LLVMXor => {
                let mut divisor = op(self, 1);
                if matches!(opcode, LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem) {
                    // The lanes a mask leaves out divide too: by 1, as
                    // their divisor may be 0 (or -1 under the minimum),
                    // which traps, where the guard kept them from dividing.
                    if let Some(mask) = self.lanes_of(i, false) {
                        let mask = self.spread(mask, elements(LLVMTypeOf(i)));
                        let vt = LLVMTypeOf(divisor);
                        let one = LLVMConstInt(LLVMGetElementType(vt), 1, 0);
                        let mut ones = vec![one; LLVMGetVectorSize(vt) as usize];
                        let ones = LLVMConstVector(ones.as_mut_ptr(), ones.len() as u32);
                        divisor = LLVMBuildSelect(b, mask, divisor, ones, c"divisor".as_ptr());
                    }
                }
                let w = LLVMBuildBinOp(b, opcode, op(self, 0), divisor, name.as_ptr());
                if !LLVMIsAInstruction(w).is_null() {
                    match opcode {
                        LLVMAdd | LLVMSub | LLVMMul | LLVMShl => {
                            LLVMSetNSW(w, LLVMGetNSW(i));
                            LLVMSetNUW(w, LLVMGetNUW(i));
                        }
                        LLVMUDiv | LLVMSDiv | LLVMLShr | LLVMAShr => {
                            LLVMSetExact(w, LLVMGetExact(i))
                        }
                        LLVMOr => LLVMSetIsDisjoint(w, LLVMGetIsDisjoint(i)),
                        _ => {}
                    }
                }
                w
            }
            LLVMFNeg => LLVMBuildFNeg(b, op(self, 0), name.as_ptr()),
            LLVMICmp => LLVMBuildICmp(
                b,
                LLVMGetICmpPredicate(i),
                op(self, 0),
                op(self, 1),
                name.as_ptr(),
            ),
            LLVMFCmp => LLVMBuildFCmp(
                b,
                LLVMGetFCmpPredicate(i),
                op(self, 0),
                op(self, 1),
                name.as_ptr(),
            ),
            LLVMSelect => {
                let c = LLVMGetOperand(i, 0);
                // A uniform scalar picks whole packets; a vector condition
                // (uniform too, as SROA's blend of a `float3` into a
                // `float4` is) picks elements, lane by lane.
                let c = if self.shape(c) == Shape::Uniform && !is_vector(LLVMTypeOf(c)) {
                    self.scalar_of(c)
                } else if is_vector(LLVMTypeOf(c)) {
                    self.vector_of(c)
                } else {
                    // One condition per work-item for each of its elements.
                    self.spread(self.vector_of(c), elements(LLVMTypeOf(i)))
                };
                LLVMBuildSelect(b, c, op(self, 1), op(self, 2), name.as_ptr())
            }
            LLVMExtractElement => {
                let vector = LLVMGetOperand(i, 0);
                let k = elements(LLVMTypeOf(vector));
                let e = const_int(LLVMGetOperand(i, 1)).ok_or("an element chosen at run time")?;
                let m = self.mask((0..self.width).map(|l| Some(l * k + e as u32)));
                self.shuffle(op(self, 0), m, &llvm::name(i))
            }
            LLVMInsertElement => {
                let k = elements(LLVMTypeOf(i));
                let e = const_int(LLVMGetOperand(i, 2)).ok_or("an element chosen at run time")?;
                let e = e as u32;
                let into = op(self, 0);
                let x = self.spread(op(self, 1), k);
                // Element e of each lane from x, the rest from the vector.
                let all = k * self.width;
                let m = self.mask((0..all).map(|j| Some(if j % k == e { all + j } else { j })));
                LLVMBuildShuffleVector(b, into, x, m, name.as_ptr())
            }
            LLVMShuffleVector => {
                let k = elements(LLVMTypeOf(LLVMGetOperand(i, 0)));
                let all = k * self.width;
                let n = LLVMGetNumMaskElements(i);
                let picks: Vec<i32> = (0..n).map(|j| LLVMGetMaskValue(i, j)).collect();
                // Lane l's element j is element m of lane l of the first
                // operand (m < k) or of the second.
                let m = self.mask((0..self.width).flat_map(|l| {
                    picks.iter().map(move |&m| match m {
                        m if m < 0 => None,
                        m if (m as u32) < k => Some(l * k + m as u32),
                        m => Some(all + l * k + (m as u32 - k)),
                    })
                }));
                LLVMBuildShuffleVector(b, op(self, 0), op(self, 1), m, name.as_ptr())
            }
            LLVMFreeze => LLVMBuildFreeze(b, op(self, 0), name.as_ptr()),
            LLVMTrunc | LLVMZExt | LLVMSExt | LLVMFPToUI | LLVMFPToSI | LLVMUIToFP | LLVMSIToFP
            | LLVMFPTrunc | LLVMFPExt | LLVMPtrToInt | LLVMIntToPtr | LLVMBitCast
            | LLVMAddrSpaceCast => {
                let to = self.vec_type(LLVMTypeOf(i));
                LLVMBuildCast(b, opcode, op(self, 0), to, name.as_ptr())
            }
            LLVMGetElementPtr => {
                let n = LLVMGetNumOperands(i) as u32;
                let mut idx: Vec<LLVMValueRef> = (1..n)
                    .map(|k| {
                        let x = LLVMGetOperand(i, k);
                        if self.shape(x) == Shape::Uniform {
                            self.scalar_of(x)
                        } else {
                            self.vector_of(x)
                        }
                    })
                    .collect();
                // The pointer as a vector makes the result one.
                LLVMBuildGEPWithNoWrapFlags(
                    b,
                    LLVMGetGEPSourceElementType(i),
                    op(self, 0),
                    idx.as_mut_ptr(),
                    idx.len() as u32,
                    name.as_ptr(),
                    LLVMGEPGetNoWrapFlags(i),
                )
            }
            _ => return Err(format!("an instruction it does not widen ({opcode:?})")),
        };
        copy_fast_math(i, w);
        Ok(w)
    }

    /// A varying call: a lane-wise intrinsic on vectors, a math builtin's
    /// vector variant, or the scalar builtin once per lane.
    pub(super) unsafe fn call(&mut self, i: LLVMValueRef) -> Result<LLVMValueRef, String> {
        let f = llvm::called_function(i).ok_or("an indirect call")?;
        if compiler::printf::is_printf_call(i) {
            return Ok(self.printf(i));
        }
        let ty = LLVMTypeOf(i);
        let vt = self.vec_type(ty);
        let nargs = LLVMGetNumArgOperands(i);
        if let Some(intr) = intrinsic_name(f) {
            let scalar_args = lanewise(&intr).ok_or_else(|| format!("a call of {intr}"))?;
            let mut args: Vec<LLVMValueRef> = (0..nargs)
                .map(|k| {
                    let a = LLVMGetOperand(i, k);
                    if scalar_args.contains(&k) {
                        self.scalar_of(a)
                    } else {
                        self.vector_of(a)
                    }
                })
                .collect();
            // llvm.is.fpclass is named by its operand's type, the others
            // by their result's.
            let overload = if intr == "llvm.is.fpclass" {
                self.vec_type(LLVMTypeOf(LLVMGetOperand(i, 0)))
            } else {
                vt
            };
            let c = self.intrinsic(&intr, &[overload], &mut args);
            let name = llvm::name(i);
            LLVMSetValueName2(c, name.as_ptr() as *const _, name.len());
            copy_fast_math(i, c);
            return Ok(c);
        }
        let mut args: Vec<LLVMValueRef> = (0..nargs)
            .map(|k| self.vector_of(LLVMGetOperand(i, k)))
            .collect();
        if let Some(variant) = vector_variants::variant_at(self.m, f, self.width) {
            let fty = LLVMGlobalGetValueType(variant);
            let c = LLVMBuildCall2(self.b, fty, variant, args.as_mut_ptr(), nargs, c"".as_ptr());
            copy_fast_math(i, c);
            return Ok(c);
        }
        // No variant at this width: one call per lane.
        let i32t = LLVMInt32TypeInContext(self.ctx);
        let fty = LLVMGlobalGetValueType(f);
        let mut out = LLVMGetPoison(vt);
        for lane in 0..self.width {
            let l = LLVMConstInt(i32t, lane as u64, 0);
            let mut lane_args: Vec<LLVMValueRef> = args
                .iter()
                .map(|&a| LLVMBuildExtractElement(self.b, a, l, c"".as_ptr()))
                .collect();
            let c = LLVMBuildCall2(self.b, fty, f, lane_args.as_mut_ptr(), nargs, c"".as_ptr());
            LLVMSetInstructionCallConv(c, LLVMGetInstructionCallConv(i));
            out = LLVMBuildInsertElement(self.b, out, c, l, c"".as_ptr());
        }
        Ok(out)
    }
}

unsafe fn copy_fast_math(from: LLVMValueRef, to: LLVMValueRef) {
    if !LLVMIsAInstruction(to).is_null()
        && LLVMCanValueUseFastMathFlags(from) != 0
        && LLVMCanValueUseFastMathFlags(to) != 0
    {
        LLVMSetFastMathFlags(to, LLVMGetFastMathFlags(from));
    }
}
