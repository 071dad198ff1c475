//! Prefetches for a loop that strides far through memory: a grid-stride
//! loop (`for (i = gid; i < n; i += get_global_size(0)) sum += in[i]`)
//! reads one vector of its lanes each iteration, each a whole global size
//! past the last. The CPU's prefetchers follow a stride within a page, not
//! one of many pages, so each iteration waited on memory.
//!
//! A load whose address is an induction of its loop (a GEP indexed by the
//! induction, or the induction itself for a pointer) stepped by a uniform
//! amount gets a prefetch of the lines the lanes will read `AHEAD`
//! iterations on, when the step is at least `FAR` bytes. A step known to
//! be nearer gets none. Most steps are known at run time only (a global
//! size, a row length): they are tested there, once per loop after LLVM
//! hoists the test, and a near one prefetches the line being read.

use super::Gen;
use crate::analysis::shape::Shape;
use kernel_ir::builtin_kinds::is_query;
use kernel_ir::inductions::{step_of, through_casts, Step};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::LLVMABISizeOfType;
use llvm_sys::{LLVMIntPredicate, LLVMOpcode};

/// Iterations ahead the prefetch is for.
const AHEAD: i64 = 8;
/// The least step, in bytes, that gets a prefetch: a page.
const FAR: i64 = 4096;
/// A cache line.
const LINE: u64 = 64;

impl Gen {
    /// Prefetches for scalar load `i`, whose lanes read `bytes` bytes from
    /// `first` on, `AHEAD` iterations on, if its address strides far.
    pub(super) unsafe fn prefetch_ahead(
        &mut self,
        i: LLVMValueRef,
        first: LLVMValueRef,
        bytes: u64,
    ) {
        let Some((step, element)) = self.far_step(LLVMGetOperand(i, 0)) else {
            return;
        };
        // The step may be computed later in the iteration (a global size
        // queried in the latch): then computed again here.
        let Some(step) = self.available(step, 4) else {
            return;
        };
        let i64t = LLVMInt64TypeInContext(self.ctx);
        let i32t = LLVMInt32TypeInContext(self.ctx);
        let i8t = LLVMInt8TypeInContext(self.ctx);
        let step = LLVMBuildSExtOrBitCast(self.b, step, i64t, c"".as_ptr());
        let step_bytes = LLVMBuildMul(
            self.b,
            step,
            LLVMConstInt(i64t, element, 0),
            c"step.bytes".as_ptr(),
        );
        // A step known to be near: the CPU's prefetchers follow it.
        if !LLVMIsAConstantInt(step_bytes).is_null() && LLVMConstIntGetSExtValue(step_bytes) < FAR {
            return;
        }
        let far = LLVMBuildICmp(
            self.b,
            LLVMIntPredicate::LLVMIntSGE,
            step_bytes,
            LLVMConstInt(i64t, FAR as u64, 0),
            c"strides.far".as_ptr(),
        );
        let ahead = LLVMBuildMul(
            self.b,
            step_bytes,
            LLVMConstInt(i64t, AHEAD as u64, 0),
            c"".as_ptr(),
        );
        let offset = LLVMBuildSelect(self.b, far, ahead, LLVMConstInt(i64t, 0, 0), c"".as_ptr());
        let mut lines = 0;
        while lines * LINE < bytes {
            let at = if lines == 0 {
                offset
            } else {
                LLVMBuildAdd(
                    self.b,
                    offset,
                    LLVMConstInt(i64t, lines * LINE, 0),
                    c"".as_ptr(),
                )
            };
            let mut index = [at];
            let to = LLVMBuildGEP2(self.b, i8t, first, index.as_mut_ptr(), 1, c"ahead".as_ptr());
            // A read, kept in every cache level, of data.
            let mut args = [
                to,
                LLVMConstInt(i32t, 0, 0),
                LLVMConstInt(i32t, 3, 0),
                LLVMConstInt(i32t, 1, 0),
            ];
            self.intrinsic("llvm.prefetch", &[LLVMTypeOf(first)], &mut args);
            lines += 1;
        }
    }

    /// Uniform `v` where the builder is: its copy if made already, else
    /// made again from its operands if it is an integer expression of at
    /// most `depth` levels over constants, arguments and the work-item
    /// queries.
    unsafe fn available(&self, v: LLVMValueRef, depth: u32) -> Option<LLVMValueRef> {
        use LLVMOpcode::*;
        if LLVMIsAInstruction(v).is_null() || self.scalar.contains_key(&v) {
            return Some(self.scalar_of(v));
        }
        if depth == 0 {
            return None;
        }
        let operands = match LLVMGetInstructionOpcode(v) {
            LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMTrunc | LLVMZExt | LLVMSExt => {
                LLVMGetNumOperands(v) as u32
            }
            LLVMCall => {
                let query = compiler::llvm::called_function(v)
                    .is_some_and(|f| is_query(&compiler::llvm::name(f)));
                if !query {
                    return None;
                }
                // The callee is the last operand.
                LLVMGetNumOperands(v) as u32 - 1
            }
            _ => return None,
        };
        // The operands first: a copy left outside any block, were one of
        // them missing, would keep uses of the originals.
        let ops = (0..operands)
            .map(|k| self.available(LLVMGetOperand(v, k), depth - 1))
            .collect::<Option<Vec<_>>>()?;
        let copy = LLVMInstructionClone(v);
        for (k, op) in (0..).zip(ops) {
            LLVMSetOperand(copy, k, op);
        }
        LLVMInsertIntoBuilder(self.b, copy);
        Some(copy)
    }

    /// The uniform step of pointer `ptr` per iteration of its loop, in
    /// units of the returned size in bytes, where `ptr` is an induction:
    /// `gep T, base, p` (through integer casts of `p`) with `base`
    /// uniform, or `p` itself stepped by a GEP.
    unsafe fn far_step(&self, ptr: LLVMValueRef) -> Option<(LLVMValueRef, u64)> {
        let uniform = |v| self.shape(v) == Shape::Uniform;
        let step = |p: LLVMValueRef| {
            (0..LLVMCountIncoming(p))
                .find_map(|k| step_of(LLVMGetIncomingValue(p, k), p, true, uniform))
        };
        if !LLVMIsAPHINode(ptr).is_null() {
            return match step(ptr)? {
                Step::Gep(t, u) => Some((u, LLVMABISizeOfType(self.layout, t))),
                _ => None,
            };
        }
        if LLVMIsAGetElementPtrInst(ptr).is_null()
            || LLVMGetNumOperands(ptr) != 2
            || !uniform(LLVMGetOperand(ptr, 0))
        {
            return None;
        }
        let index = through_casts(LLVMGetOperand(ptr, 1));
        if LLVMIsAPHINode(index).is_null() {
            return None;
        }
        let u = match step(index)? {
            Step::Add(u) => u,
            _ => return None,
        };
        let element = LLVMGetGEPSourceElementType(ptr);
        Some((u, LLVMABISizeOfType(self.layout, element)))
    }
}
