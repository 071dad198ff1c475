//! A program compiled for a target: OpenCL C through Clang, the builtins
//! linked in, unused code dropped, its kernels reflected. What is kept is
//! bitcode, so any thread can specialize a kernel in a context of its own.

use crate::kernel_info::{self, KernelInfo};
use crate::llvm::{self, cstr};
use crate::options::BuildOptions;
use llvm_sys::bit_reader::LLVMParseBitcodeInContext2;
use llvm_sys::bit_writer::LLVMWriteBitcodeToMemoryBuffer;
use llvm_sys::core::*;
use llvm_sys::linker::LLVMLinkModules2;
use llvm_sys::prelude::*;
use llvm_sys::LLVMLinkage;

/// The target triple every host program is compiled for.
pub const TRIPLE: &str = "x86_64-unknown-linux-gnu";

/// Header of a ferrocl program binary: magic, then LLVM bitcode.
const BINARY_MAGIC: &[u8; 8] = b"FERROCL1";

/// Extensions and optional features Clang is allowed to see (what the device reports).
const CL_EXT: &str = "-cl-ext=-all,+cl_khr_byte_addressable_store,+__opencl_c_int64";

/// Why a build failed; the text goes in the build log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildError {
    pub log: String,
}

/// A built program: linked bitcode plus what the API layer needs to know.
#[derive(Debug, Clone)]
pub struct ProgramModule {
    bitcode: Vec<u8>,
    kernels: Vec<KernelInfo>,
    /// The build log (Clang's diagnostics, possibly only warnings).
    pub log: String,
    /// `-cl-opt-disable`: kernels are compiled without optimization.
    opt_disable: bool,
}

/// An LLVM context that is disposed of on every path out.
pub struct Context(pub LLVMContextRef);

impl Context {
    pub fn new() -> Context {
        // SAFETY: creating a context has no preconditions.
        Context(unsafe { LLVMContextCreate() })
    }
}

impl Default for Context {
    fn default() -> Self {
        Context::new()
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: the context is ours and every module in it was disposed of or is owned by it.
        unsafe { LLVMContextDispose(self.0) }
    }
}

impl ProgramModule {
    /// Compiles OpenCL C `source` with `options` for the CPU `cpu`.
    pub fn compile(
        source: &[u8],
        options: &BuildOptions,
        cpu: &str,
        headers: &[clang_frontend::Header<'_>],
    ) -> Result<ProgramModule, BuildError> {
        let res = clang_frontend::RESOURCE_DIR;
        let mut args: Vec<String> = [
            "-triple", TRIPLE, "-target-cpu", cpu,
            "-fdeclare-opencl-builtins", "-finclude-default-header",
            "-ffake-address-space-map", "-O3", "-disable-llvm-passes",
            "-resource-dir", res, CL_EXT,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.push(format!("-cl-std={}", options.language()));
        args.push("-internal-isystem".into());
        args.push(format!("{res}/include"));
        if options.kernel_arg_info {
            args.push("-cl-kernel-arg-info".into());
        }
        args.extend(options.clang_args.iter().cloned());

        let ctx = Context::new();
        // SAFETY: the context is ours and used by this thread only.
        let out = unsafe { clang_frontend::compile(ctx.0, source, "input.cl", &args, headers) };
        let Some(module) = out.module else {
            return Err(BuildError { log: out.log });
        };
        // SAFETY: module lives in `ctx`, which outlives this block.
        unsafe {
            let result = link_and_reflect(ctx.0, module);
            match result {
                Ok(kernels) => {
                    let bitcode = write_bitcode(module);
                    LLVMDisposeModule(module);
                    Ok(ProgramModule { bitcode, kernels, log: out.log, opt_disable: options.opt_disable })
                }
                Err(e) => {
                    LLVMDisposeModule(module);
                    Err(BuildError { log: format!("{}{e}\n", out.log) })
                }
            }
        }
    }

    /// Whether kernels are to be compiled without optimization.
    pub fn options_opt_disable(&self) -> bool {
        self.opt_disable
    }

    pub fn kernels(&self) -> &[KernelInfo] {
        &self.kernels
    }

    pub fn kernel(&self, name: &str) -> Option<&KernelInfo> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// The program as a binary `clCreateProgramWithBinary` accepts.
    pub fn to_binary(&self) -> Vec<u8> {
        let mut out = BINARY_MAGIC.to_vec();
        out.extend_from_slice(&self.bitcode);
        out
    }

    /// Loads a binary made by [`to_binary`](Self::to_binary). Anything
    /// else, truncated or corrupt, is an error, never a crash.
    pub fn from_binary(binary: &[u8]) -> Result<ProgramModule, BuildError> {
        let bad = |why: &str| BuildError { log: format!("invalid program binary: {why}") };
        let body = binary.strip_prefix(BINARY_MAGIC).ok_or_else(|| bad("not a ferrocl binary"))?;
        let ctx = Context::new();
        // SAFETY: parsing validates the bitcode; the module is disposed of before `ctx`.
        unsafe {
            let m = parse_bitcode(ctx.0, body).map_err(|e| bad(&e))?;
            let verified = llvm::verify(m);
            let kernels = verified.map(|_| kernel_info::reflect(m));
            LLVMDisposeModule(m);
            let kernels = kernels.map_err(|e| bad(&e))?;
            Ok(ProgramModule { bitcode: body.to_vec(), kernels, log: String::new(), opt_disable: false })
        }
    }

    /// Loads the program's module into `ctx` (each specialization gets its own).
    ///
    /// # Safety
    /// `ctx` must be a live context used by this thread only.
    pub unsafe fn load(&self, ctx: LLVMContextRef) -> Result<LLVMModuleRef, String> {
        parse_bitcode(ctx, &self.bitcode)
    }
}

unsafe fn parse_bitcode(ctx: LLVMContextRef, bytes: &[u8]) -> Result<LLVMModuleRef, String> {
    let name = cstr("bitcode");
    let buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(bytes.as_ptr() as *const _, bytes.len(), name.as_ptr());
    let mut m = std::ptr::null_mut();
    let failed = LLVMParseBitcodeInContext2(ctx, buf, &mut m);
    LLVMDisposeMemoryBuffer(buf);
    if failed != 0 || m.is_null() {
        Err("the bitcode does not parse".into())
    } else {
        Ok(m)
    }
}

unsafe fn write_bitcode(m: LLVMModuleRef) -> Vec<u8> {
    let buf = LLVMWriteBitcodeToMemoryBuffer(m);
    let start = LLVMGetBufferStart(buf) as *const u8;
    let v = std::slice::from_raw_parts(start, LLVMGetBufferSize(buf)).to_vec();
    LLVMDisposeMemoryBuffer(buf);
    v
}

/// C library functions LLVM may call for math intrinsics; the JIT finds them
/// in the process.
const LIBM: &[&str] = &[
    "sinf", "cosf", "expf", "logf", "powf", "sin", "cos", "exp", "log", "pow",
    "memcpy", "memset", "memmove", "fmaf", "fma",
];

/// Links the builtins, drops what no kernel uses, checks that every called
/// function is defined, and reflects the kernels.
unsafe fn link_and_reflect(ctx: LLVMContextRef, module: LLVMModuleRef) -> Result<Vec<KernelInfo>, String> {
    let lib = parse_bitcode(ctx, builtins::BITCODE).map_err(|e| format!("builtins library: {e}"))?;
    if LLVMLinkModules2(module, lib) != 0 {
        return Err("linking the builtins library failed".into());
    }
    for f in llvm::functions(module) {
        if LLVMIsDeclaration(f) == 0 && !kernel_info::is_kernel(f) {
            LLVMSetLinkage(f, LLVMLinkage::LLVMInternalLinkage);
        }
    }
    llvm::run_passes(module, "globaldce", std::ptr::null_mut())?;
    let mut undefined = Vec::new();
    for f in llvm::functions(module) {
        let n = llvm::name(f);
        if LLVMIsDeclaration(f) != 0
            && LLVMGetIntrinsicID(f) == 0
            && !n.starts_with("__mux_")
            && !LIBM.contains(&n.as_str())
            && !LLVMGetFirstUse(f).is_null()
        {
            undefined.push(n);
        }
    }
    if !undefined.is_empty() {
        return Err(format!("error: undefined function(s): {}", undefined.join(", ")));
    }
    Ok(kernel_info::reflect(module))
}
