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

/// A small deterministic generator of tests' inputs (xorshift64).
pub struct XorShift(pub u64);

impl XorShift {
    /// The next 64 bits.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}
