//! A program compiled for a target: OpenCL C through Clang, the builtins
//! linked in, unused code dropped, its kernels reflected. What is kept is
//! bitcode, so any thread can specialize a kernel in a context of its own.

// Without the front end, only what loads binaries is used.
#![cfg_attr(not(feature = "front-end"), allow(dead_code, unused_imports))]

use crate::binary::{self, Machine, MachineCode, SpecializedCode};
use crate::disk_cache::{self, DiskCache, KeyBuilder};
use crate::kernel_info::{self, KernelInfo};
#[cfg(feature = "front-end")]
use crate::llvm::{self, cstr};
use crate::options::BuildOptions;
use crate::program_globals::GlobalsImage;
#[cfg(feature = "front-end")]
use crate::program_globals::Layout;
#[cfg(feature = "front-end")]
use llvm_sys::bit_reader::LLVMParseBitcodeInContext2;
#[cfg(feature = "front-end")]
use llvm_sys::bit_writer::LLVMWriteBitcodeToMemoryBuffer;
#[cfg(feature = "front-end")]
use llvm_sys::core::*;
#[cfg(feature = "front-end")]
use llvm_sys::linker::LLVMLinkModules2;
#[cfg(feature = "front-end")]
use llvm_sys::prelude::*;
#[cfg(feature = "front-end")]
use llvm_sys::LLVMLinkage;
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// The target triple every host program is compiled for.
pub const TRIPLE: &str = "x86_64-unknown-linux-gnu";

#[cfg(feature = "front-end")]
/// The data layout Clang gives `TRIPLE`, which a SPIR-V module is given too.
const DATA_LAYOUT: &str =
    "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128";

/// The values `clSetProgramSpecializationConstant` set, by SpecId.
pub type SpecConstants = std::collections::BTreeMap<u32, Vec<u8>>;

/// What a program module is, as `CL_PROGRAM_BINARY_TYPE` tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModuleKind {
    /// Linked with the builtins; its kernels can run.
    Executable,
    /// One compiled source (`clCompileProgram`), to be linked.
    Object,
    /// Objects linked together without the builtins (`-create-library`).
    Library,
}

impl ModuleKind {
    pub(crate) fn tag(self) -> u8 {
        match self {
            ModuleKind::Executable => b'E',
            ModuleKind::Object => b'O',
            ModuleKind::Library => b'L',
        }
    }

    pub(crate) fn from_tag(t: u8) -> Option<ModuleKind> {
        match t {
            b'E' => Some(ModuleKind::Executable),
            b'O' => Some(ModuleKind::Object),
            b'L' => Some(ModuleKind::Library),
            _ => None,
        }
    }
}

#[cfg(feature = "front-end")]
/// Clang's `-cl-ext`: exactly the extensions and optional features the
/// device reports, nothing of Clang's own defaults.
fn cl_ext() -> String {
    let names = crate::OPENCL_C_EXTENSIONS
        .iter()
        .chain(crate::OPENCL_C_FEATURES)
        .map(|(name, _)| format!(",+{name}"));
    format!("-cl-ext=-all{}", names.collect::<String>())
}

#[cfg(feature = "front-end")]
/// Every extension's and feature's macro, as `-D`: Clang defines those it
/// knows of through `-cl-ext`, but not those it has no notion of
/// (cl_khr_expect_assume, __opencl_c_fp16); a definition it makes too is
/// the same one.
fn extension_macros() -> impl Iterator<Item = String> {
    crate::OPENCL_C_EXTENSIONS
        .iter()
        .chain(crate::OPENCL_C_FEATURES)
        .map(|(name, _)| format!("-D{name}=1"))
}

/// A header made visible to `#include` by name (`clCompileProgram`'s
/// input headers).
pub struct Header<'a> {
    pub name: &'a str,
    pub source: &'a [u8],
}

/// Why a build failed; the text goes in the build log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildError {
    pub log: String,
}

/// A built program: linked bitcode plus what the API layer needs to know.
#[derive(Debug, Clone)]
pub struct ProgramModule {
    bitcode: Vec<u8>,
    /// SHA-256 of the bitcode and the code generation options: what a
    /// kernel's machine code depends on of the program.
    digest: [u8; 32],
    kernels: Vec<KernelInfo>,
    /// The build log (Clang's diagnostics, possibly only warnings).
    pub log: String,
    /// How its kernels are to be compiled (from the build options).
    codegen: CodeGenOptions,
    pub kind: ModuleKind,
    /// An executable's program-scope variables: the initial contents of
    /// the block each device gets (empty, of size 0, where it has none).
    globals: GlobalsImage,
    /// The options it was built with, as given.
    pub options: String,
    /// Kernels already compiled for a CPU, from the binary it was made from.
    machine_code: MachineCode,
}

/// The build options that shape a kernel's machine code.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CodeGenOptions {
    /// `-cl-opt-disable`: no optimization.
    pub opt_disable: bool,
    /// `-cl-denorms-are-zero`: denormals may be flushed to zero.
    pub denorms_are_zero: bool,
}

impl CodeGenOptions {
    pub fn of(options: &BuildOptions) -> CodeGenOptions {
        CodeGenOptions {
            opt_disable: options.opt_disable,
            denorms_are_zero: options.denorms_are_zero,
        }
    }

    /// What a program linked from `inputs` keeps: any input's request.
    fn merge(inputs: &[&ProgramModule]) -> CodeGenOptions {
        CodeGenOptions {
            opt_disable: inputs.iter().any(|p| p.codegen.opt_disable),
            denorms_are_zero: inputs.iter().any(|p| p.codegen.denorms_are_zero),
        }
    }
}

/// An LLVM context that is disposed of on every path out.
#[cfg(feature = "front-end")]
pub struct Context(pub LLVMContextRef);

#[cfg(feature = "front-end")]
impl Context {
    pub fn new() -> Context {
        // Every compile ends in the target registry (Clang's back end, the
        // code generator): have it filled before any thread looks.
        crate::llvm::initialize_native_target();
        // SAFETY: creating a context has no preconditions; the handler is
        // a plain function.
        unsafe {
            let ctx = LLVMContextCreate();
            // Without a handler an error (bitcode that does not parse)
            // ends the process; with one, the call returns the failure.
            LLVMContextSetDiagnosticHandler(ctx, Some(ignore_diagnostic), std::ptr::null_mut());
            Context(ctx)
        }
    }
}

#[cfg(feature = "front-end")]
extern "C" fn ignore_diagnostic(_: LLVMDiagnosticInfoRef, _: *mut std::ffi::c_void) {}

#[cfg(feature = "front-end")]
impl Default for Context {
    fn default() -> Self {
        Context::new()
    }
}

#[cfg(feature = "front-end")]
impl Drop for Context {
    fn drop(&mut self) {
        // SAFETY: the context is ours and every module in it was disposed of or is owned by it.
        unsafe { LLVMContextDispose(self.0) }
    }
}

impl ProgramModule {
    fn new(
        bitcode: Vec<u8>,
        kernels: Vec<KernelInfo>,
        log: String,
        codegen: CodeGenOptions,
        kind: ModuleKind,
        globals: GlobalsImage,
    ) -> ProgramModule {
        let mut h = Sha256::new();
        h.update(&bitcode);
        h.update([codegen.opt_disable as u8, codegen.denorms_are_zero as u8]);
        ProgramModule {
            digest: h.finalize().into(),
            bitcode,
            kernels,
            log,
            codegen,
            kind,
            globals,
            options: String::new(),
            machine_code: MachineCode::default(),
        }
    }

    /// Compiles OpenCL C `source` with `options` for the CPU `cpu` into an
    /// executable (`clBuildProgram`).
    pub fn compile(
        source: &[u8],
        options: &BuildOptions,
        cpu: &str,
        headers: &[Header<'_>],
    ) -> Result<ProgramModule, BuildError> {
        #[cfg(feature = "front-end")]
        {
            let input = SourceInput {
                source,
                options,
                cpu,
                headers,
            };
            input.build(disk_cache::global(), ModuleKind::Executable)
        }
        #[cfg(not(feature = "front-end"))]
        {
            let _ = (source, options, cpu, headers);
            Err(no_compiler())
        }
    }

    /// Compiles one source into an object for [`link`](Self::link)
    /// (`clCompileProgram`): no builtins yet, undefined functions allowed.
    pub fn compile_object(
        source: &[u8],
        options: &BuildOptions,
        cpu: &str,
        headers: &[Header<'_>],
    ) -> Result<ProgramModule, BuildError> {
        #[cfg(feature = "front-end")]
        {
            let input = SourceInput {
                source,
                options,
                cpu,
                headers,
            };
            input.build(disk_cache::global(), ModuleKind::Object)
        }
        #[cfg(not(feature = "front-end"))]
        {
            let _ = (source, options, cpu, headers);
            Err(no_compiler())
        }
    }

    /// Translates a SPIR-V module into an executable (`clBuildProgram` of
    /// a program made with `clCreateProgramWithIL`).
    pub fn compile_il(
        il: &[u8],
        spec: &SpecConstants,
        options: &BuildOptions,
    ) -> Result<ProgramModule, BuildError> {
        #[cfg(feature = "front-end")]
        {
            let input = IlInput { il, spec, options };
            input.build(disk_cache::global(), ModuleKind::Executable)
        }
        #[cfg(not(feature = "front-end"))]
        {
            let _ = (il, spec, options);
            Err(no_compiler())
        }
    }

    /// Translates a SPIR-V module into an object for [`link`](Self::link)
    /// (`clCompileProgram`).
    pub fn compile_il_object(
        il: &[u8],
        spec: &SpecConstants,
        options: &BuildOptions,
    ) -> Result<ProgramModule, BuildError> {
        #[cfg(feature = "front-end")]
        {
            let input = IlInput { il, spec, options };
            input.build(disk_cache::global(), ModuleKind::Object)
        }
        #[cfg(not(feature = "front-end"))]
        {
            let _ = (il, spec, options);
            Err(no_compiler())
        }
    }

    /// Links objects and libraries (`clLinkProgram`) into an executable, or
    /// into a library with `library`.
    #[cfg(not(feature = "front-end"))]
    pub fn link(inputs: &[&ProgramModule], library: bool) -> Result<ProgramModule, BuildError> {
        let _ = (inputs, library);
        Err(no_compiler())
    }

    /// Links objects and libraries (`clLinkProgram`) into an executable, or
    /// into a library with `library`.
    #[cfg(feature = "front-end")]
    pub fn link(inputs: &[&ProgramModule], library: bool) -> Result<ProgramModule, BuildError> {
        let fail = |log: String| BuildError { log };
        let ctx = Context::new();
        // SAFETY: every module lives in `ctx`; linked sources are consumed.
        unsafe {
            let first = inputs
                .first()
                .ok_or_else(|| fail("nothing to link".into()))?;
            let module = first.load(ctx.0).map_err(fail)?;
            for other in &inputs[1..] {
                let m = match other.load(ctx.0) {
                    Ok(m) => m,
                    Err(e) => {
                        LLVMDisposeModule(module);
                        return Err(fail(e));
                    }
                };
                if LLVMLinkModules2(module, m) != 0 {
                    LLVMDisposeModule(module);
                    return Err(fail("error: the programs define the same symbol".into()));
                }
            }
            let kind = if library {
                ModuleKind::Library
            } else {
                ModuleKind::Executable
            };
            finish(module, String::new(), CodeGenOptions::merge(inputs), kind)
        }
    }

    /// How kernels are to be compiled.
    pub fn codegen(&self) -> CodeGenOptions {
        self.codegen
    }

    pub fn kernels(&self) -> &[KernelInfo] {
        &self.kernels
    }

    /// The initial contents of the block of program-scope variables.
    pub fn globals(&self) -> &GlobalsImage {
        &self.globals
    }

    pub fn kernel(&self, name: &str) -> Option<&KernelInfo> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// The program as a binary `clCreateProgramWithBinary` accepts, with
    /// the machine code it was loaded with.
    pub fn to_binary(&self) -> Vec<u8> {
        self.to_binary_with(&[], &self.machine_code.machine)
    }

    /// The program as a binary, with the machine code of `specialized`
    /// (compiled for `machine`) beside what it was loaded with for that CPU.
    pub fn to_binary_with(&self, specialized: &[SpecializedCode], machine: &Machine) -> Vec<u8> {
        let mut kernels: Vec<SpecializedCode> = Vec::new();
        if &self.machine_code.machine == machine {
            kernels.extend(self.machine_code.kernels.iter().cloned());
        }
        for s in specialized {
            if !kernels
                .iter()
                .any(|k| k.kernel == s.kernel && k.spec == s.spec)
            {
                kernels.push(s.clone());
            }
        }
        binary::write(&binary::Contents {
            kind: self.kind,
            triple: TRIPLE.into(),
            options: self.options.clone(),
            log: self.log.clone(),
            codegen: self.codegen,
            kernels: self.kernels.clone(),
            globals: self.globals.clone(),
            bitcode: self.bitcode.clone(),
            machine_code: MachineCode {
                machine: if kernels.is_empty() {
                    Machine::default()
                } else {
                    machine.clone()
                },
                kernels,
            },
        })
    }

    /// Loads a binary made by [`to_binary`](Self::to_binary), running no
    /// compiler: its kernel table, variables and machine code are read as
    /// they are. Anything else, truncated or corrupt, is an error, never a
    /// crash.
    pub fn from_binary(bytes: &[u8]) -> Result<ProgramModule, BuildError> {
        let c = binary::read(bytes).map_err(|why| BuildError {
            log: format!("invalid program binary: {why}\n"),
        })?;
        let mut p = ProgramModule::new(c.bitcode, c.kernels, c.log, c.codegen, c.kind, c.globals);
        p.options = c.options;
        p.machine_code = c.machine_code;
        Ok(p)
    }

    /// The machine code the program was loaded with for `kernel` at `spec`,
    /// if it runs on `machine`: a target's executable.
    pub fn specialized_code(
        &self,
        machine: &Machine,
        kernel: &str,
        spec: &crate::Specialization,
    ) -> Option<Arc<[u8]>> {
        if !self.machine_code.machine.runs_on(machine) {
            return None;
        }
        self.machine_code
            .kernels
            .iter()
            .find(|k| k.kernel == kernel && &k.spec == spec)
            .map(|k| k.executable.clone())
    }

    /// The local sizes the program was loaded with machine code of for
    /// `kernel`, if any (then `machine` is asked for, to know if it runs).
    pub fn specialized_local_sizes(
        &self,
        kernel: &str,
        machine: impl FnOnce() -> Machine,
    ) -> Vec<[usize; 3]> {
        let code = &self.machine_code;
        if !code.kernels.iter().any(|k| k.kernel == kernel) || !code.machine.runs_on(&machine()) {
            return Vec::new();
        }
        code.kernels
            .iter()
            .filter(|k| {
                k.kernel == kernel
                    && !k.spec.is_generic()
                    && k.spec.local_size == k.spec.enqueued_local_size
            })
            .map(|k| k.spec.local_size)
            .collect()
    }

    /// What a kernel's machine code depends on of the program, as bytes
    /// for a cache key.
    pub fn digest(&self) -> &[u8; 32] {
        &self.digest
    }

    /// The same program, its kernels to be compiled with `codegen` too
    /// (build options given to `clBuildProgram` of a binary); machine code
    /// compiled otherwise is dropped.
    pub fn with_codegen(&self, codegen: CodeGenOptions) -> ProgramModule {
        let merged = CodeGenOptions {
            opt_disable: self.codegen.opt_disable || codegen.opt_disable,
            denorms_are_zero: self.codegen.denorms_are_zero || codegen.denorms_are_zero,
        };
        if merged == self.codegen {
            return self.clone();
        }
        let mut p = ProgramModule::new(
            self.bitcode.clone(),
            self.kernels.clone(),
            self.log.clone(),
            merged,
            self.kind,
            self.globals.clone(),
        );
        p.options = self.options.clone();
        p
    }

    /// Loads the program's module into `ctx` (each specialization gets its own).
    ///
    /// # Safety
    /// `ctx` must be a live context used by this thread only.
    #[cfg(feature = "front-end")]
    pub unsafe fn load(&self, ctx: LLVMContextRef) -> Result<LLVMModuleRef, String> {
        parse_bitcode(ctx, &self.bitcode)
    }
}

#[cfg(feature = "front-end")]
/// What a build from source depends on.
struct SourceInput<'a> {
    source: &'a [u8],
    options: &'a BuildOptions,
    cpu: &'a str,
    headers: &'a [Header<'a>],
}

#[cfg(feature = "front-end")]
thread_local! {
    /// How many times Clang ran on this thread (to check that cache hits do not).
    static FRONT_END_RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(feature = "front-end")]
impl SourceInput<'_> {
    /// Builds a module of `kind`, or takes it from `cache`. Failed builds
    /// are not kept: their log is made afresh each time.
    ///
    /// The entry's key is known only once the files Clang read are: the
    /// key of the arguments finds a list of those files, and their contents
    /// now (a header edited since is another key) find the program.
    fn build(&self, cache: &DiskCache, kind: ModuleKind) -> Result<ProgramModule, BuildError> {
        let key = self.key(kind);
        let hit = cache.get(&key).and_then(|list| {
            let files = read_file_list(&list)?;
            let entry = cache.get(&files_key(&key, &files))?;
            ProgramModule::from_cache_entry(&entry)
        });
        if let Some(p) = hit {
            return Ok(p);
        }
        let ctx = Context::new();
        FRONT_END_RUNS.set(FRONT_END_RUNS.get() + 1);
        let out = front_end(&ctx, self.source, self.options, self.cpu, self.headers)?;
        // SAFETY: module lives in `ctx`, which outlives this call.
        let mut p = unsafe { finish(out.module, out.log, CodeGenOptions::of(self.options), kind)? };
        p.options = self.options.text.clone();
        // Clang's own headers come with its version, already in the key.
        let files: Vec<clang_frontend::FileUse> = out
            .files
            .into_iter()
            .filter(|f| {
                let (clang_frontend::FileUse::Read(path) | clang_frontend::FileUse::Missing(path)) =
                    f;
                !path.starts_with(clang_frontend::RESOURCE_DIR)
            })
            .collect();
        cache.put(&key, &write_file_list(&files));
        cache.put(&files_key(&key, &files), &p.cache_entry());
        Ok(p)
    }

    fn key(&self, kind: ModuleKind) -> disk_cache::Key {
        let mut k = KeyBuilder::new("program");
        k.add(&[kind.tag()])
            .add(self.source)
            .add(format!("{:?}", self.options).as_bytes())
            .add(self.cpu.as_bytes())
            .add(cl_ext().as_bytes())
            .add(builtins::DECLARATIONS.as_bytes())
            .add(clang_frontend::RESOURCE_DIR.as_bytes());
        for h in self.headers {
            k.add(h.name.as_bytes()).add(h.source);
        }
        k.finish()
    }
}

#[cfg(feature = "front-end")]
fn write_file_list(files: &[clang_frontend::FileUse]) -> Vec<u8> {
    let mut w = disk_cache::Writer::default();
    w.u64(files.len() as u64);
    for f in files {
        match f {
            clang_frontend::FileUse::Read(p) => w.u64(0).bytes(p.as_bytes()),
            clang_frontend::FileUse::Missing(p) => w.u64(1).bytes(p.as_bytes()),
        };
    }
    w.0
}

#[cfg(feature = "front-end")]
fn read_file_list(bytes: &[u8]) -> Option<Vec<clang_frontend::FileUse>> {
    let mut r = disk_cache::Reader(bytes);
    let mut files = Vec::new();
    for _ in 0..r.u64()? {
        let tag = r.u64()?;
        let path = String::from_utf8(r.bytes()?.to_vec()).ok()?;
        files.push(match tag {
            0 => clang_frontend::FileUse::Read(path),
            1 => clang_frontend::FileUse::Missing(path),
            _ => return None,
        });
    }
    r.0.is_empty().then_some(files)
}

#[cfg(feature = "front-end")]
/// The key of a build from `key`'s arguments that read `files`: their
/// contents as they are now, and whether each path looked for in vain is
/// still missing.
fn files_key(key: &disk_cache::Key, files: &[clang_frontend::FileUse]) -> disk_cache::Key {
    let mut k = KeyBuilder::new("program-files");
    k.add(key.hex().as_bytes());
    for f in files {
        match f {
            clang_frontend::FileUse::Read(path) => {
                let contents = std::fs::read(path).map(|b| Sha256::digest(b).to_vec());
                k.add(path.as_bytes())
                    .add(contents.as_deref().unwrap_or(b"unreadable"));
            }
            clang_frontend::FileUse::Missing(path) => {
                let now = std::path::Path::new(path).exists();
                k.add(path.as_bytes())
                    .add(if now { b"present" } else { b"missing" });
            }
        }
    }
    k.finish()
}

#[cfg(feature = "front-end")]
/// What a build from SPIR-V depends on.
struct IlInput<'a> {
    il: &'a [u8],
    spec: &'a SpecConstants,
    options: &'a BuildOptions,
}

#[cfg(feature = "front-end")]
impl IlInput<'_> {
    /// Builds a module of `kind` from the SPIR-V, or takes it from `cache`.
    fn build(&self, cache: &DiskCache, kind: ModuleKind) -> Result<ProgramModule, BuildError> {
        let key = self.key(kind);
        if let Some(p) = cache
            .get(&key)
            .and_then(|e| ProgramModule::from_cache_entry(&e))
        {
            return Ok(p);
        }
        let ctx = Context::new();
        FRONT_END_RUNS.set(FRONT_END_RUNS.get() + 1);
        let opts = spirv_ll::Options {
            triple: TRIPLE,
            data_layout: DATA_LAYOUT,
            spec_constants: self.spec,
            uniform_work_group_size: self
                .options
                .clang_args
                .iter()
                .any(|a| a == "-cl-uniform-work-group-size"),
        };
        // SAFETY: the module lives in `ctx`, which outlives this call.
        forbidden()?;
        let mut p = unsafe {
            let module = spirv_ll::translate(ctx.0, self.il, &opts).map_err(|e| BuildError {
                log: format!("error: {e}\n"),
            })?;
            finish(
                module,
                String::new(),
                CodeGenOptions::of(self.options),
                kind,
            )?
        };
        p.options = self.options.text.clone();
        cache.put(&key, &p.cache_entry());
        Ok(p)
    }

    fn key(&self, kind: ModuleKind) -> disk_cache::Key {
        let mut k = KeyBuilder::new("spirv-program");
        k.add(&[kind.tag()])
            .add(self.il)
            .add(format!("{:?}", self.options).as_bytes());
        for (id, value) in self.spec {
            k.add(&id.to_le_bytes()).add(value);
        }
        k.finish()
    }
}

impl ProgramModule {
    /// An on-disk cache entry: the program's binary.
    fn cache_entry(&self) -> Vec<u8> {
        self.to_binary()
    }

    /// The entry's digest vouches for it: the bitcode is what this library
    /// wrote, and its reflection is stored beside it, so a hit does not
    /// parse, verify and reflect the module again.
    fn from_cache_entry(entry: &[u8]) -> Option<ProgramModule> {
        ProgramModule::from_binary(entry).ok()
    }
}

/// The program-scope variables of an executable: laid out, and checked for
/// what the device cannot offer. Objects and libraries keep theirs as
/// variables for the link.
#[cfg(feature = "front-end")]
unsafe fn executable_globals(m: LLVMModuleRef, kind: ModuleKind) -> Result<GlobalsImage, String> {
    match kind {
        ModuleKind::Executable => Layout::of(m).image(m),
        _ => Ok(GlobalsImage::default()),
    }
}

#[cfg(feature = "front-end")]
/// The name `builtins::DECLARATIONS` is included by, among the embedded
/// headers; one no program's header takes.
const DECLARATIONS_HEADER: &str = "__ferrocl_declarations.h";

#[cfg(feature = "front-end")]
/// What Clang made of a source: the module, its diagnostics, and the files
/// it read.
struct FrontEndOutput {
    module: LLVMModuleRef,
    log: String,
    files: Vec<clang_frontend::FileUse>,
}

#[cfg(feature = "front-end")]
/// Runs Clang on `source`; the module belongs to `ctx`.
fn front_end(
    ctx: &Context,
    source: &[u8],
    options: &BuildOptions,
    cpu: &str,
    headers: &[Header<'_>],
) -> Result<FrontEndOutput, BuildError> {
    forbidden()?;
    let res = clang_frontend::RESOURCE_DIR;
    let mut args: Vec<String> = [
        "-triple",
        TRIPLE,
        "-target-cpu",
        cpu,
        "-fdeclare-opencl-builtins",
        "-finclude-default-header",
        "-ffake-address-space-map",
        "-O3",
        "-disable-llvm-passes",
        "-resource-dir",
        res,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.push(cl_ext());
    args.extend(extension_macros());
    args.push(format!("-cl-std={}", options.language()));
    // The device's OpenCL version (Clang leaves this macro to the platform).
    args.push("-D__OPENCL_VERSION__=300".into());
    // The device has images (the builtins' image_*.cl); Clang leaves the
    // macro to the platform too.
    args.push("-D__IMAGE_SUPPORT__=1".into());
    args.push("-internal-isystem".into());
    args.push(format!("{res}/include"));
    // The library's functions Clang does not declare, before the source.
    args.push("-include".into());
    args.push(DECLARATIONS_HEADER.into());
    if options.kernel_arg_info {
        args.push("-cl-kernel-arg-info".into());
    }
    args.extend(options.clang_args.iter().cloned());
    // SAFETY: the context is ours and used by this thread only.
    let declarations = clang_frontend::Header {
        name: DECLARATIONS_HEADER,
        source: builtins::DECLARATIONS.as_bytes(),
    };
    let headers: Vec<_> = headers
        .iter()
        .map(|h| clang_frontend::Header {
            name: h.name,
            source: h.source,
        })
        .chain([declarations])
        .collect();
    let out = unsafe { clang_frontend::compile(ctx.0, source, "input.cl", &args, &headers) };
    match out.module {
        Some(module) => Ok(FrontEndOutput {
            module,
            log: out.log,
            files: out.files,
        }),
        None => Err(BuildError { log: out.log }),
    }
}

/// The error of a build in a library built without a compiler.
#[cfg(not(feature = "front-end"))]
fn no_compiler() -> BuildError {
    BuildError {
        log: "error: this build of ferrocl has no compiler: programs run from binaries only\n"
            .into(),
    }
}

/// `FERROCL_FORBID_COMPILER=1`: every run of Clang, the SPIR-V translator,
/// the builtins' link or LLVM's passes is an error (to prove a path runs
/// none).
fn forbidden() -> Result<(), BuildError> {
    if crate::knobs::forbid_compiler() {
        return Err(BuildError {
            log: "error: the compiler is forbidden (FERROCL_FORBID_COMPILER)\n".into(),
        });
    }
    Ok(())
}

#[cfg(feature = "front-end")]
/// Turns a module into a program: an executable gets the builtins and is
/// checked for undefined functions; every kind is reflected and kept as
/// bitcode. Disposes of `module`.
unsafe fn finish(
    module: LLVMModuleRef,
    log: String,
    codegen: CodeGenOptions,
    kind: ModuleKind,
) -> Result<ProgramModule, BuildError> {
    if let Err(e) = forbidden() {
        LLVMDisposeModule(module);
        return Err(e);
    }
    // Every kind: an object's bad format fails its compile, not a later
    // link; a link numbers the calls of all its inputs anew.
    let checked = crate::printf::number_calls(module).and_then(|_| {
        if kind == ModuleKind::Executable {
            link_and_check(module)
        } else {
            Ok(())
        }
    });
    let result = checked.and_then(|_| {
        let globals = executable_globals(module, kind)?;
        let kernels = kernel_info::reflect(module);
        for k in &kernels {
            if let Some(n) = k
                .reqd_sub_group_size
                .filter(|n| !crate::SUB_GROUP_SIZES.contains(n))
            {
                return Err(format!(
                    "kernel {}: intel_reqd_sub_group_size({n}) is not a sub-group size of \
                     this device (CL_DEVICE_SUB_GROUP_SIZES_INTEL: {:?})",
                    k.name,
                    crate::SUB_GROUP_SIZES
                ));
            }
        }
        Ok((kernels, globals, write_bitcode(module)))
    });
    LLVMDisposeModule(module);
    match result {
        Ok((kernels, globals, bitcode)) => Ok(ProgramModule::new(
            bitcode, kernels, log, codegen, kind, globals,
        )),
        Err(e) => Err(BuildError {
            log: format!("{log}{e}\n"),
        }),
    }
}

#[cfg(feature = "front-end")]
unsafe fn parse_bitcode(ctx: LLVMContextRef, bytes: &[u8]) -> Result<LLVMModuleRef, String> {
    let name = cstr("bitcode");
    let buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(
        bytes.as_ptr() as *const _,
        bytes.len(),
        name.as_ptr(),
    );
    let mut m = std::ptr::null_mut();
    let failed = LLVMParseBitcodeInContext2(ctx, buf, &mut m);
    LLVMDisposeMemoryBuffer(buf);
    if failed != 0 || m.is_null() {
        Err("the bitcode does not parse".into())
    } else {
        Ok(m)
    }
}

#[cfg(feature = "front-end")]
unsafe fn write_bitcode(m: LLVMModuleRef) -> Vec<u8> {
    let buf = LLVMWriteBitcodeToMemoryBuffer(m);
    let start = LLVMGetBufferStart(buf) as *const u8;
    let v = std::slice::from_raw_parts(start, LLVMGetBufferSize(buf)).to_vec();
    LLVMDisposeMemoryBuffer(buf);
    v
}

#[cfg(feature = "front-end")]
/// C library functions LLVM may call for math intrinsics; the JIT finds them
/// in the process.
const LIBM: &[&str] = &[
    "sinf", "cosf", "expf", "logf", "powf", "sin", "cos", "exp", "log", "pow", "memcpy", "memset",
    "memmove", "fmaf", "fma",
];

#[cfg(feature = "front-end")]
/// Links the builtins, drops what no kernel uses, and checks that every
/// called function is defined.
unsafe fn link_and_check(module: LLVMModuleRef) -> Result<(), String> {
    let link = |m| {
        clang_frontend::link_needed(m, builtins::BITCODE)
            .map_err(|e| format!("builtins library: {e}"))
    };
    // The vector forms of the builtins the vectorizer widens come with the
    // scalar ones: declared first, they are linked with them (a second
    // reading of the library would cost as much as the first).
    crate::vector_variants::declare_vector_forms(module);
    link(module)?;
    // Called from inside the library by a function `vector_calls` does not
    // list: once more (a safety net; the list should make this never run).
    if crate::vector_variants::declare_vector_forms(module) {
        link(module)?;
    }
    crate::vector_variants::define(module)?;
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
            && n != builtins::mux::TRANSLATE_SAMPLER_INITIALIZER
            && n != crate::printf::PRINTF
            && !LIBM.contains(&n.as_str())
            && !crate::device_library::FUNCTIONS.contains(&n.as_str())
            && !LLVMGetFirstUse(f).is_null()
        {
            undefined.push(n);
        }
    }
    if !undefined.is_empty() {
        return Err(format!(
            "error: undefined function(s): {}",
            undefined.join(", ")
        ));
    }
    Ok(())
}

#[cfg(all(test, feature = "front-end"))]
mod tests {
    use super::*;

    const SRC: &[u8] = b"__kernel void k(__global int* p) { p[get_global_id(0)] = 7; }";

    fn build(cache: &DiskCache, source: &[u8], options: &str) -> Result<ProgramModule, BuildError> {
        let options = BuildOptions::parse(options).unwrap();
        let input = SourceInput {
            source,
            options: &options,
            cpu: "x86-64",
            headers: &[],
        };
        input.build(cache, ModuleKind::Executable)
    }

    fn cache(name: &str) -> DiskCache {
        let dir = std::env::temp_dir().join(format!(
            "ferrocl-program-cache-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        DiskCache::at(dir)
    }

    #[test]
    fn a_cached_build_does_not_run_clang() {
        let cache = cache("hit");
        let runs = || FRONT_END_RUNS.get();
        let first = build(&cache, SRC, "-cl-opt-disable").unwrap();
        assert_eq!(runs(), 1);
        let again = build(&cache, SRC, "-cl-opt-disable").unwrap();
        assert_eq!(runs(), 1, "the second build came from the cache");
        assert_eq!(again.bitcode, first.bitcode);
        assert_eq!(again.kernels, first.kernels);
        assert_eq!(again.codegen(), first.codegen());
        // Any other input is another entry.
        build(&cache, SRC, "").unwrap();
        build(
            &cache,
            b"__kernel void k(__global int* p) { p[0] = 8; }",
            "",
        )
        .unwrap();
        assert_eq!(runs(), 3);
    }

    #[test]
    fn a_cached_build_keeps_the_whole_reflection() {
        // Every field of the reflection, which a hit reads from the entry
        // rather than from the bitcode.
        let src = b"typedef struct { int a; float b; } pair;
__kernel __attribute__((reqd_work_group_size(8, 2, 1))) __attribute__((vec_type_hint(float4)))
void k(__global const int* restrict p, __local float* l, pair s, __constant uint* c, float4 v) {
    __local int tile[16];
    tile[get_local_id(0)] = p[0] + s.a;
    barrier(CLK_LOCAL_MEM_FENCE);
    l[0] = tile[1] + v.x + c[0];
}
__kernel __attribute__((work_group_size_hint(4, 1, 1))) void other(__global int* q) { q[0] = 1; }";
        let cache = cache("reflection");
        let first = build(&cache, src, "-cl-kernel-arg-info").unwrap();
        let runs = FRONT_END_RUNS.get();
        let again = build(&cache, src, "-cl-kernel-arg-info").unwrap();
        assert_eq!(
            FRONT_END_RUNS.get(),
            runs,
            "the second build came from the cache"
        );
        assert_eq!(again.kernels, first.kernels);
        let k = &again.kernels[0];
        assert_eq!(k.reqd_work_group_size, Some([8, 2, 1]));
        assert!(k.uses_barrier && k.static_local_memory == 64);
        assert_eq!(k.args[0].name.as_deref(), Some("p"));
        assert_eq!(again.kernels[1].work_group_size_hint, Some([4, 1, 1]));
    }

    /// `src` as the SPIR-V Clang's back end makes of it.
    fn spirv(src: &str) -> Vec<u8> {
        let dir =
            std::env::temp_dir().join(format!("ferrocl-program-spirv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (cl, spv) = (dir.join("k.cl"), dir.join("k.spv"));
        std::fs::write(&cl, src).unwrap();
        let ok = std::process::Command::new("clang-22")
            .args(["--target=spirv64", "-cl-std=CL3.0", "-c", "-o"])
            .arg(&spv)
            .arg(&cl)
            .status()
            .unwrap()
            .success();
        assert!(ok);
        std::fs::read(&spv).unwrap()
    }

    #[test]
    fn an_il_build_is_cached_by_its_bytes_and_specialization_constants() {
        let cache = cache("il");
        let il = spirv(std::str::from_utf8(SRC).unwrap());
        let options = BuildOptions::parse("").unwrap();
        let none = SpecConstants::new();
        let build = |il: &[u8], spec: &SpecConstants| {
            IlInput {
                il,
                spec,
                options: &options,
            }
            .build(&cache, ModuleKind::Executable)
        };
        let before = FRONT_END_RUNS.get();
        let first = build(&il, &none).unwrap();
        assert_eq!(first.kernels[0].name, "k");
        let again = build(&il, &none).unwrap();
        assert_eq!(
            FRONT_END_RUNS.get() - before,
            1,
            "the second build came from the cache"
        );
        assert_eq!(again.bitcode, first.bitcode);
        // Other values of the specialization constants are another entry.
        let spec = SpecConstants::from([(0, vec![1, 0, 0, 0])]);
        build(&il, &spec).unwrap();
        assert_eq!(FRONT_END_RUNS.get() - before, 2);
        // A failed translation is not kept, and its log names the instruction.
        let mut bad = il.clone();
        let n = bad.len();
        bad.truncate(n - 4);
        for _ in 0..2 {
            let e = build(&bad, &none).unwrap_err();
            assert!(e.log.contains("SPIR-V error at word"), "{}", e.log);
        }
        assert_eq!(FRONT_END_RUNS.get() - before, 4);
    }

    #[test]
    fn failed_builds_are_not_cached() {
        let cache = cache("failure");
        let before = FRONT_END_RUNS.get();
        for _ in 0..2 {
            let e = build(&cache, b"__kernel void k( { }", "").unwrap_err();
            assert!(e.log.contains("error"), "{}", e.log);
        }
        assert_eq!(FRONT_END_RUNS.get() - before, 2);
    }

    #[test]
    fn printf_calls_are_described_and_survive_a_binary() {
        let src = b"void helper(int x) { printf(\"%d %s\\n\", x, \"lit\"); }
__kernel void k(__global int* p, float f, uchar2 c, float8 v) {
    printf(\"%f %v2hhx %v8hlf %p\\n\", f, c, v, p);
    helper(p[0]);
}
__kernel void quiet(__global int* p) { p[0] = 1; }";
        let p = build(&DiskCache::off(), src, "").unwrap();
        let k = p.kernel("k").unwrap();
        assert!(k.uses_printf() && !p.kernel("quiet").unwrap().uses_printf());
        let calls = &k.printf_calls;
        assert_eq!(calls.len(), 2);
        let direct = calls.iter().find(|c| c.format.starts_with(b"%f")).unwrap();
        use crate::PrintfArg::*;
        assert_eq!(
            direct.args,
            [Float(8), Int(2), Vector(32), Pointer { literal: None }]
        );
        assert_eq!(direct.record_bytes(), 4 + 8 + 2 + 32 + 8);
        let helper = calls.iter().find(|c| c.format.starts_with(b"%d")).unwrap();
        assert_eq!(
            helper.args,
            [
                Int(4),
                Pointer {
                    literal: Some(b"lit".to_vec())
                }
            ]
        );
        let again = ProgramModule::from_binary(&p.to_binary()).unwrap();
        assert_eq!(again.kernels, p.kernels);
    }

    #[test]
    fn a_malformed_printf_format_fails_the_build_naming_the_call() {
        let src = b"void helper(void) { printf(\"fine\\n\"); printf(\"%v4hhf\\n\", (float4)(1)); }
__kernel void k(void) { helper(); }";
        let e = build(&DiskCache::off(), src, "").unwrap_err();
        assert!(
            e.log.contains("printf call 2 in function `helper`") && e.log.contains("%v4hhf"),
            "{}",
            e.log
        );
        let e = build(
            &DiskCache::off(),
            b"__kernel void k(void) { printf(\"%y\"); }",
            "",
        )
        .unwrap_err();
        assert!(e.log.contains("invalid conversion specifier"), "{}", e.log);
    }
}
#[cfg(all(test, feature = "front-end"))]
mod binary_tests {
    use super::*;

    #[test]
    fn every_kind_round_trips_through_a_binary() {
        let options = BuildOptions::parse("-cl-opt-disable").unwrap();
        let src = b"int helper(int x) { return x + 1; }
__kernel void k(__global int* out) { out[0] = helper(2); }";
        let object = SourceInput {
            source: src,
            options: &options,
            cpu: "x86-64",
            headers: &[],
        }
        .build(&DiskCache::off(), ModuleKind::Object)
        .unwrap();
        let back = ProgramModule::from_binary(&object.to_binary()).unwrap();
        assert_eq!(back.kind, ModuleKind::Object);
        assert_eq!(back.kernels, object.kernels);
        assert_eq!(back.codegen(), object.codegen());
        assert_eq!(back.options, "-cl-opt-disable");
    }
}
