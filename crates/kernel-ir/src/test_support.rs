//! IR parsed from text, for the tests of the passes and the vectorizer.

use compiler::llvm;
use llvm_sys::core::*;
use llvm_sys::prelude::*;

/// What the kernels of the vectorizer's tests declare.
pub const HEAD: &str = r#"
target datalayout = "e-m:e-i64:64-n8:16:32:64-S128"
declare i64 @__mux_get_local_id(i32)
declare float @llvm.fmuladd.f32(float, float, float)
"#;

/// A context and a module parsed from IR text, disposed of together.
pub struct Ir {
    pub ctx: LLVMContextRef,
    pub m: LLVMModuleRef,
}

impl Ir {
    pub fn parse(text: &str) -> Ir {
        unsafe {
            let ctx = LLVMContextCreate();
            let m = llvm::parse_ir(ctx, text).expect("test IR parses");
            Ir { ctx, m }
        }
    }

    pub fn text(&self) -> String {
        unsafe { llvm::print_module(self.m) }
    }

    pub fn function(&self, name: &str) -> LLVMValueRef {
        let n = llvm::cstr(name);
        unsafe { LLVMGetNamedFunction(self.m, n.as_ptr()) }
    }
}

impl Drop for Ir {
    fn drop(&mut self) {
        unsafe {
            LLVMDisposeModule(self.m);
            LLVMContextDispose(self.ctx);
        }
    }
}
