//! A `printf` call in a vector form: made lane after lane, in work-item
//! order, for the lanes that reach it.

use super::Gen;
use llvm_sys::core::*;
use llvm_sys::prelude::*;

impl Gen {
    /// A `printf` call: the scalar call once for each lane it is made for,
    /// lane after lane (work-item order), each with its lane's arguments.
    pub(super) unsafe fn printf(&mut self, i: LLVMValueRef) -> LLVMValueRef {
        let lanes = self.lanes_of(i, true);
        let nargs = LLVMGetNumArgOperands(i);
        let i32t = LLVMInt32TypeInContext(self.ctx);
        for lane in 0..self.width {
            let next = LLVMAppendBasicBlockInContext(self.ctx, self.v, c"printf.next".as_ptr());
            if let Some(mask) = lanes {
                let on = LLVMBuildExtractElement(
                    self.b,
                    mask,
                    LLVMConstInt(i32t, lane as u64, 0),
                    c"printf.lane.on".as_ptr(),
                );
                let call = LLVMAppendBasicBlockInContext(self.ctx, self.v, c"printf.lane".as_ptr());
                LLVMBuildCondBr(self.b, on, call, next);
                LLVMPositionBuilderAtEnd(self.b, call);
            }
            // The call itself, its id and attributes kept, on this lane's values.
            let c = LLVMInstructionClone(i);
            for k in 0..nargs {
                LLVMSetOperand(c, k, self.lane_value(LLVMGetOperand(i, k), lane));
            }
            LLVMInsertIntoBuilder(self.b, c);
            LLVMBuildBr(self.b, next);
            LLVMPositionBuilderAtEnd(self.b, next);
        }
        // Its result is unused (`check`).
        LLVMGetPoison(self.vec_type(LLVMTypeOf(i)))
    }
}
