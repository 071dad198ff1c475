//! The compiler half of the host device: specializes a kernel for a local
//! size, optimizes it for this CPU, and loads it into the JIT.

use crate::jit::{self, host_cpu};
use crate::kernel::HostKernel;
use compiler::llvm;
use compiler::{Context, KernelInfo, ProgramModule, Specialization};
use llvm_sys::core::*;
use llvm_sys::LLVMLinkage;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub struct HostTarget {
    cpu: String,
}

impl HostTarget {
    pub fn new() -> HostTarget {
        HostTarget { cpu: host_cpu().0 }
    }
}

impl Default for HostTarget {
    fn default() -> Self {
        HostTarget::new()
    }
}

/// Makes each loaded work-group function's symbol unique in the JIT.
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

impl compiler::Target for HostTarget {
    fn cpu(&self) -> &str {
        &self.cpu
    }

    fn specialize(
        &self,
        program: &ProgramModule,
        kernel: &KernelInfo,
        spec: Specialization,
    ) -> Result<Arc<dyn mux::Kernel>, mux::Error> {
        let fail = mux::Error::Compile;
        let ctx = Context::new();
        let tm = jit::target_machine(compiler::TRIPLE).map_err(fail)?;
        // SAFETY: the context and module are this thread's alone, and the
        // module is disposed of before the context.
        let (object, symbol, wg) = unsafe {
            let m = program.load(ctx.0).map_err(fail)?;
            let result = (|| {
                let wg = passes::build_work_group_function(m, kernel, spec.local_size)?;
                let symbol = format!("{}.{}", wg.name, NEXT_ID.fetch_add(1, Ordering::Relaxed));
                let f = LLVMGetNamedFunction(m, llvm::cstr(&wg.name).as_ptr());
                LLVMSetValueName2(f, symbol.as_ptr() as *const _, symbol.len());
                // Only the work-group function is visible outside the object.
                for g in llvm::globals(m) {
                    if LLVMIsDeclaration(g) == 0 {
                        LLVMSetLinkage(g, LLVMLinkage::LLVMInternalLinkage);
                    }
                }
                let codegen = program.codegen();
                if codegen.denorms_are_zero {
                    // Code generation may then assume denormals are flushed.
                    let (k, v) = ("denormal-fp-math-f32", "preserve-sign,preserve-sign");
                    let attr = LLVMCreateStringAttribute(
                        LLVMGetModuleContext(m),
                        k.as_ptr() as *const _,
                        k.len() as u32,
                        v.as_ptr() as *const _,
                        v.len() as u32,
                    );
                    LLVMAddAttributeAtIndex(f, llvm_sys::LLVMAttributeFunctionIndex, attr);
                }
                let pipeline = if codegen.opt_disable {
                    "default<O0>"
                } else {
                    "default<O3>"
                };
                llvm::run_passes(m, pipeline, tm.0)?;
                dump_ir(m, &symbol);
                let object = tm.emit_object(m)?;
                Ok::<_, String>((object, symbol, wg))
            })();
            LLVMDisposeModule(m);
            result.map_err(fail)?
        };
        let code = jit::load(&object, &symbol).map_err(fail)?;
        Ok(Arc::new(HostKernel::new(
            code,
            wg.static_local_memory,
            wg.work_item_storage,
            program.codegen().denorms_are_zero,
        )))
    }
}

/// With `FERROCL_DUMP_DIR` set, each optimized work-group function's IR is
/// written there as `<symbol>.ll`, to see what the passes and LLVM made of
/// a kernel (vectorized or not, what stayed in memory).
unsafe fn dump_ir(m: llvm_sys::prelude::LLVMModuleRef, symbol: &str) {
    if let Some(dir) = std::env::var_os("FERROCL_DUMP_DIR") {
        let path = std::path::Path::new(&dir).join(format!("{symbol}.ll"));
        // A debugging aid: a directory that cannot be written is ignored.
        let _ = std::fs::write(path, llvm::print_module(m));
    }
}
