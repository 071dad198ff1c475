//! Atomic read-modify-writes in a vector form: made lane after lane, in
//! work-item order, for the lanes that reach them. Lanes may name the same
//! place (a histogram's bins), so no vector instruction stands for them.

use super::Gen;
use llvm_sys::core::*;
use llvm_sys::prelude::*;

impl Gen {
    /// `i` (an `atomicrmw`) once for each lane it is made for, on that
    /// lane's address and operand; its result, each lane's old value.
    pub(super) unsafe fn atomic_rmw(&mut self, i: LLVMValueRef) -> LLVMValueRef {
        let lanes = self.lanes_of(i, true);
        let ty = LLVMTypeOf(i);
        let i32t = LLVMInt32TypeInContext(self.ctx);
        let mut out = LLVMGetPoison(self.vec_type(ty));
        for lane in 0..self.width {
            let at = LLVMConstInt(i32t, lane as u64, 0);
            let next = LLVMAppendBasicBlockInContext(self.ctx, self.v, c"atomic.next".as_ptr());
            let skipped_from = LLVMGetInsertBlock(self.b);
            if let Some(mask) = lanes {
                let on = LLVMBuildExtractElement(self.b, mask, at, c"atomic.lane.on".as_ptr());
                let made = LLVMAppendBasicBlockInContext(self.ctx, self.v, c"atomic.lane".as_ptr());
                LLVMBuildCondBr(self.b, on, made, next);
                LLVMPositionBuilderAtEnd(self.b, made);
            }
            let c = LLVMInstructionClone(i);
            for k in 0..2 {
                LLVMSetOperand(c, k, self.lane_value(LLVMGetOperand(i, k), lane));
            }
            LLVMInsertIntoBuilder(self.b, c);
            let made_in = LLVMGetInsertBlock(self.b);
            LLVMBuildBr(self.b, next);
            LLVMPositionBuilderAtEnd(self.b, next);
            let old = if lanes.is_some() {
                let p = LLVMBuildPhi(self.b, ty, c"".as_ptr());
                let mut values = [c, LLVMGetPoison(ty)];
                let mut from = [made_in, skipped_from];
                LLVMAddIncoming(p, values.as_mut_ptr(), from.as_mut_ptr(), 2);
                p
            } else {
                c
            };
            out = LLVMBuildInsertElement(self.b, out, old, at, c"".as_ptr());
        }
        out
    }
}
