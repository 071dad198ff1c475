//! The compiler half of the host device: specializes a kernel for a local
//! size, optimizes it for this CPU, and loads its object code.

#[cfg(feature = "compiler")]
use crate::codegen;
use crate::cpu::host_cpu;
#[cfg(feature = "compiler")]
use crate::executable::KernelEntry;
use crate::executable::{Binary, HostExecutable};
use crate::kernel::HostKernel;
use compiler::disk_cache::{self, DiskCache, Key, KeyBuilder};
#[cfg(feature = "compiler")]
use compiler::llvm;
#[cfg(feature = "compiler")]
use compiler::Context;
use compiler::{KernelInfo, ProgramModule, Specialization};
#[cfg(feature = "compiler")]
use llvm_sys::core::*;
#[cfg(feature = "compiler")]
use llvm_sys::LLVMLinkage;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, Weak};

pub struct HostTarget {
    cpu: String,
    features: String,
}

/// Kernels loaded in the process, by cache key: a specialization asked for
/// again, by another program with the same code say, shares the loaded one.
static LOADED: LazyLock<Mutex<HashMap<Key, Weak<HostKernel>>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

impl HostTarget {
    pub fn new() -> HostTarget {
        let (cpu, features) = host_cpu();
        HostTarget { cpu, features }
    }

    /// A target generating code for `machine` rather than this CPU (an
    /// offline compiler's `--target-cpu`); an empty feature list means what
    /// the CPU's name implies.
    pub fn for_machine(machine: &compiler::Machine) -> HostTarget {
        HostTarget {
            cpu: machine.cpu.clone(),
            features: machine.features.clone(),
        }
    }
}

impl Default for HostTarget {
    fn default() -> Self {
        HostTarget::new()
    }
}

thread_local! {
    /// Work-group functions this thread optimized and generated code for
    /// (to check that cache hits do not).
    static CODEGEN_RUNS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl HostTarget {
    /// The key of a specialization: everything its machine code depends on.
    fn key(&self, program: &ProgramModule, kernel: &KernelInfo, spec: Specialization) -> Key {
        let mut k = KeyBuilder::new("kernel");
        k.add(program.digest())
            .add(kernel.name.as_bytes())
            .add(format!("{:?}{:?}", spec, program.codegen()).as_bytes())
            .add(self.cpu.as_bytes())
            .add(self.features.as_bytes());
        // Without a compiler no pipeline runs: the code is the binary's.
        #[cfg(feature = "compiler")]
        crate::pipeline::PipelineOptions::from_environment().add_to_key(&mut k);
        k.finish()
    }

    /// Specializes with `cache` as the on-disk cache.
    fn specialize_with(
        &self,
        cache: &DiskCache,
        program: &ProgramModule,
        kernel: &KernelInfo,
        spec: Specialization,
    ) -> Result<Arc<HostKernel>, mux::Error> {
        let key = self.key(program, kernel, spec);
        if let Some(k) = LOADED.lock().unwrap().get(&key).and_then(Weak::upgrade) {
            return Ok(k);
        }
        // The program's binary may hold it, compiled for this CPU; then the
        // cache holds executables. One that does not load (damaged, or of an
        // older format) is compiled again.
        let (key, binary) = match self.binary_code(program, kernel, spec) {
            Some(b) => (key, b),
            None => match cache.get(&key).filter(|b| is_executable_of(b, kernel)) {
                Some(b) => (key, b),
                None => match compile(self, program, kernel, spec, &key, Emit::Object) {
                    Ok(b) => {
                        let b = b.to_bytes();
                        cache.put(&key, &b);
                        (key, b)
                    }
                    // No compiler (or none allowed): the binary's generic
                    // form runs any local size.
                    Err(e) => {
                        let generic = Specialization::GENERIC;
                        let b = self
                            .binary_code(program, kernel, generic)
                            .ok_or(mux::Error::Compile(e))?;
                        let key = self.key(program, kernel, generic);
                        if let Some(k) = LOADED.lock().unwrap().get(&key).and_then(Weak::upgrade) {
                            return Ok(k);
                        }
                        (key, b)
                    }
                },
            },
        };
        let mut loaded = LOADED.lock().unwrap();
        // Another thread may have loaded the same code meanwhile: one copy.
        if let Some(k) = loaded.get(&key).and_then(Weak::upgrade) {
            return Ok(k);
        }
        let kernel = HostExecutable::load(&binary)?.host_kernel(&kernel.name)?;
        loaded.retain(|_, k| k.strong_count() > 0);
        loaded.insert(key, Arc::downgrade(&kernel));
        Ok(kernel)
    }
}

/// Whether `bytes` is a host executable of `kernel` alone.
fn is_executable_of(bytes: &[u8], kernel: &KernelInfo) -> bool {
    Binary::from_bytes(bytes)
        .is_some_and(|b| b.kernels.len() == 1 && b.kernels[0].name == kernel.name)
}

impl HostTarget {
    /// The executable of `kernel` at `spec` the program's binary holds for
    /// a CPU this one runs the code of.
    fn binary_code(
        &self,
        program: &ProgramModule,
        kernel: &KernelInfo,
        spec: Specialization,
    ) -> Option<Vec<u8>> {
        let machine = compiler::Target::machine(self);
        program
            .specialized_code(&machine, &kernel.name, &spec)
            .map(|b| b.to_vec())
            .filter(|b| {
                is_executable_of(b, kernel)
                    && Binary::from_bytes(b).is_some_and(|b| {
                        b.kernels[0].flush_denormals == program.codegen().denorms_are_zero
                    })
            })
    }

    /// An executable holding `kernel` specialized for `spec` (or in its
    /// generic form), taken from the on-disk cache or compiled: what a
    /// program binary carries.
    pub fn cached_executable(
        &self,
        cache: &DiskCache,
        program: &ProgramModule,
        kernel: &KernelInfo,
        spec: Specialization,
    ) -> Result<Vec<u8>, mux::Error> {
        let key = self.key(program, kernel, spec);
        if let Some(b) = cache.get(&key).filter(|b| is_executable_of(b, kernel)) {
            return Ok(b);
        }
        let b = compile(self, program, kernel, spec, &key, Emit::Object)
            .map_err(mux::Error::Compile)?
            .to_bytes();
        cache.put(&key, &b);
        Ok(b)
    }
}

impl HostTarget {
    /// An executable holding `kernel` specialized for `spec`, for
    /// `mux::Device::create_executable`: what the deferred path caches.
    pub fn executable(
        &self,
        program: &ProgramModule,
        kernel: &KernelInfo,
        spec: Specialization,
    ) -> Result<Vec<u8>, mux::Error> {
        let key = self.key(program, kernel, spec);
        Ok(compile(self, program, kernel, spec, &key, Emit::Object)
            .map_err(mux::Error::Compile)?
            .to_bytes())
    }

    /// The assembly of `kernel` specialized for `spec`, to read.
    pub fn assembly(
        &self,
        program: &ProgramModule,
        kernel: &KernelInfo,
        spec: Specialization,
    ) -> Result<String, String> {
        let key = self.key(program, kernel, spec);
        let b = compile(self, program, kernel, spec, &key, Emit::Assembly)?;
        Ok(String::from_utf8_lossy(&b.object).into_owned())
    }
}

/// What code generation writes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Emit {
    Object,
    Assembly,
}

/// The x86-64 baseline: what the builtins library is compiled for, so
/// what programs are compiled for too (the calling convention for vectors
/// wider than 16 bytes depends on AVX). Code is generated for this CPU.
const FRONT_END_CPU: &str = "x86-64";

impl compiler::Target for HostTarget {
    fn cpu(&self) -> &str {
        FRONT_END_CPU
    }

    fn machine(&self) -> compiler::Machine {
        compiler::Machine {
            cpu: self.cpu.clone(),
            features: self.features.clone(),
        }
    }

    fn specialize(
        &self,
        program: &ProgramModule,
        kernel: &KernelInfo,
        spec: Specialization,
    ) -> Result<Arc<dyn mux::Kernel>, mux::Error> {
        let k = self.specialize_with(disk_cache::global(), program, kernel, spec)?;
        Ok(k)
    }
}

/// Without a compiler, code comes from program binaries alone.
#[cfg(not(feature = "compiler"))]
fn compile(
    _: &HostTarget,
    _: &ProgramModule,
    kernel: &KernelInfo,
    spec: Specialization,
    _: &Key,
    _: Emit,
) -> Result<Binary, String> {
    Err(format!(
        "this build of ferrocl has no compiler, and the program's binary holds no code of kernel `{}` for local size {:?}",
        kernel.name, spec.local_size
    ))
}

/// Builds the work-group function of `kernel` for `spec`, optimizes it for
/// this CPU and emits an executable whose function is named after `key`.
#[cfg(feature = "compiler")]
fn compile(
    target: &HostTarget,
    program: &ProgramModule,
    kernel: &KernelInfo,
    spec: Specialization,
    key: &Key,
    emit: Emit,
) -> Result<Binary, String> {
    if compiler::knobs::forbid_compiler() {
        return Err("the compiler is forbidden (FERROCL_FORBID_COMPILER)".into());
    }
    CODEGEN_RUNS.set(CODEGEN_RUNS.get() + 1);
    let ctx = Context::new();
    let tm = codegen::target_machine_for(compiler::TRIPLE, &target.cpu, &target.features)?;
    // SAFETY: the context and module are this thread's alone, and the
    // module is disposed of before the context.
    unsafe {
        let m = program.load(ctx.0)?;
        let result = (|| {
            let options = crate::pipeline::PipelineOptions::from_environment();
            let wg = crate::pipeline::build_work_group_function(m, kernel, spec, &options, tm.0)?;
            half_conversions(m, &target.features);
            set_target_cpu(m, &(target.cpu.clone(), target.features.clone()));
            // The same code gets the same name; different code never does.
            let symbol = format!("{}.{}", wg.name, &key.hex()[..16]);
            let f = LLVMGetNamedFunction(m, llvm::cstr(&wg.name).as_ptr());
            LLVMSetValueName2(f, symbol.as_ptr() as *const _, symbol.len());
            // Only the work-group function is visible outside the object.
            // (LLVM's own, llvm.compiler.used, keep their linkage.)
            for g in llvm::globals(m) {
                if LLVMIsDeclaration(g) == 0 && !llvm::name(g).starts_with("llvm.") {
                    LLVMSetLinkage(g, LLVMLinkage::LLVMInternalLinkage);
                }
            }
            let codegen = program.codegen();
            if codegen.denorms_are_zero {
                // Code generation may then assume denormals are flushed.
                llvm::set_function_attribute(
                    f,
                    "denormal-fp-math-f32",
                    "preserve-sign,preserve-sign",
                );
            }
            // Variants of math calls this kernel does not make go now.
            compiler::vector_variants::release_unused(m);
            llvm::run_passes(m, "globaldce", std::ptr::null_mut())?;
            dump_ir(m, &format!("{symbol}.before-opt"));
            let pipeline = if codegen.opt_disable {
                "default<O0>"
            } else {
                "default<O3>"
            };
            llvm::run_passes(m, pipeline, tm.0)?;
            if !codegen.opt_disable && compiler::vector_variants::inline_called_variants(m) {
                let after = "always-inline,function(early-cse<memssa>,loop-mssa(licm),instcombine<no-verify-fixpoint>,simplifycfg)";
                llvm::run_passes(m, after, tm.0)?;
            }
            // After the optimizer, whose loop vectorizer widens divisions but
            // not the estimates' intrinsics.
            reciprocal_estimates(m, &target.features);
            passes::stream_prefetch::run(m, STREAM_PREFETCH);
            // The vector variants no loop called are dropped.
            compiler::vector_variants::release(m);
            llvm::run_passes(m, "globaldce", std::ptr::null_mut())?;
            dump_ir(m, &symbol);
            let object = match emit {
                Emit::Object => {
                    let o = tm.emit_object(m)?;
                    dump_object(&o, &symbol);
                    o
                }
                Emit::Assembly => tm.emit_assembly(m)?,
            };
            Ok(Binary {
                object,
                kernels: vec![KernelEntry {
                    name: kernel.name.clone(),
                    symbol,
                    static_local_memory: wg.static_local_memory,
                    work_item_storage: wg.work_item_storage,
                    flush_denormals: codegen.denorms_are_zero,
                }],
            })
        })();
        LLVMDisposeModule(m);
        result
    }
}

/// Half arithmetic is the CPU's own with AVX-512 FP16, which also
/// converts double to half, rounding once; without it LLVM computes in
/// float through F16C, and a double becomes a half by
/// `passes::double_to_half` rather than a library call.
///
/// # Safety
/// `m` must be a live module this thread owns.
#[cfg(feature = "compiler")]
unsafe fn half_conversions(m: llvm_sys::prelude::LLVMModuleRef, features: &str) {
    if !has_feature(features, "avx512fp16") {
        passes::double_to_half::run(m);
    }
}

/// Prefetches 2 KiB ahead of a stream (most of the gain of prefetching a
/// long loop's cold input came by 512 bytes, all of it by 2 KiB) where
/// the loop's iterations over that distance hold more instructions than
/// x86 cores' out-of-order windows (352 to 512 entries), for streams
/// that step a line or more an iteration.
#[cfg(feature = "compiler")]
const STREAM_PREFETCH: passes::stream_prefetch::Tuning = passes::stream_prefetch::Tuning {
    distance: 2048,
    window: 512,
    line: 64,
};

/// `rsqrt` and float reciprocals the spec lets be approximate from the
/// CPU's estimates and a Newton step where it has AVX-512's 14-bit ones;
/// else `rsqrt` in two exact steps (`passes::reciprocal_estimates`).
///
/// # Safety
/// `m` must be a live module this thread owns.
#[cfg(feature = "compiler")]
unsafe fn reciprocal_estimates(m: llvm_sys::prelude::LLVMModuleRef, features: &str) {
    let estimate = has_feature(features, "avx512f") && has_feature(features, "avx512vl");
    passes::reciprocal_estimates::run(m, estimate);
}

#[cfg(feature = "compiler")]
/// Whether LLVM's feature string (`+avx2,-avx512fp16,...`) enables `name`.
fn has_feature(features: &str, name: &str) -> bool {
    features
        .split(',')
        .any(|f| f.strip_prefix('+') == Some(name))
}

#[cfg(feature = "compiler")]
/// Makes every function of `m` code for this CPU (it was compiled for the
/// baseline): inlining needs them all alike, and the vectorizer and code
/// generator then use the whole vector unit.
unsafe fn set_target_cpu(m: llvm_sys::prelude::LLVMModuleRef, (cpu, features): &(String, String)) {
    for f in llvm::functions(m) {
        if LLVMIsDeclaration(f) != 0 {
            continue;
        }
        // A function that keeps every register for its callers (the math
        // functions' rare paths, `preserve_all`) must not clear the upper
        // halves of the vector registers on its way out, as LLVM otherwise
        // does after AVX code.
        let keeps_all =
            LLVMGetFunctionCallConv(f) == llvm_sys::LLVMCallConv::LLVMPreserveAllCallConv as u32;
        let features = if keeps_all {
            format!("{features},-vzeroupper")
        } else {
            features.clone()
        };
        for (k, v) in [
            ("target-cpu", cpu.as_str()),
            ("tune-cpu", cpu.as_str()),
            ("target-features", features.as_str()),
        ] {
            llvm::set_function_attribute(f, k, v);
        }
        // LLVM tunes many AVX-512 CPUs to vectorize loops at 256 bits; a
        // kernel's work-item loop has the trip counts and the independent
        // lanes that the whole register pays for, as `vecz` already uses it.
        if has_feature(&features, "avx512f") {
            llvm::set_function_attribute(f, "prefer-vector-width", "512");
        }
    }
}

#[cfg(feature = "compiler")]
/// With `FERROCL_DUMP_DIR` set, each work-group function's IR is written
/// there as `<symbol>.ll` (optimized) and `<symbol>.before-opt.ll` (as the
/// passes left it, to feed `opt`), to see what the passes and LLVM made of
/// a kernel (vectorized or not, what stayed in memory).
unsafe fn dump_ir(m: llvm_sys::prelude::LLVMModuleRef, symbol: &str) {
    if let Some(dir) = compiler::knobs::dump_dir() {
        let path = dir.join(format!("{symbol}.ll"));
        // A debugging aid: a directory that cannot be written is ignored.
        let _ = std::fs::write(path, llvm::print_module(m));
    }
}

#[cfg(feature = "compiler")]
/// With `FERROCL_DUMP_DIR` set, each work-group function's object code is
/// written there too, as `<symbol>.o` (for `readelf` and `objdump`).
fn dump_object(object: &[u8], symbol: &str) {
    if let Some(dir) = compiler::knobs::dump_dir() {
        // A debugging aid: a directory that cannot be written is ignored.
        let _ = std::fs::write(dir.join(format!("{symbol}.o")), object);
    }
}

#[cfg(all(test, feature = "compiler"))]
mod tests {
    use super::*;
    use compiler::BuildOptions;

    fn program(src: &str) -> ProgramModule {
        let options = BuildOptions::parse("").unwrap();
        ProgramModule::compile(src.as_bytes(), &options, "x86-64", &[]).unwrap()
    }

    #[test]
    fn features_are_read_as_llvm_lists_them() {
        let f = "+sse2,-avx512fp16,+f16c,+avx512fp16x";
        assert!(has_feature(f, "f16c"));
        assert!(!has_feature(f, "avx512fp16"));
        assert!(has_feature("+avx512fp16", "avx512fp16"));
    }

    /// The code for half arithmetic and a double made half, on `cpu`.
    fn half_code(cpu: &str, features: &str) -> String {
        let ctx = Context::new();
        let ir = r#"
define half @f(half %a, half %b, double %d) {
  %s = fmul half %a, %b
  %t = fptrunc double %d to half
  %r = fadd half %s, %t
  ret half %r
}
"#;
        unsafe {
            let m = llvm::parse_ir(ctx.0, ir).unwrap();
            half_conversions(m, features);
            let tm = codegen::target_machine_for(compiler::TRIPLE, cpu, features).unwrap();
            let asm = tm.emit_assembly(m).unwrap();
            LLVMDisposeModule(m);
            String::from_utf8_lossy(&asm).into_owned()
        }
    }

    #[test]
    fn half_is_the_cpus_own_with_avx512_fp16_and_float_through_f16c_without() {
        let fp16 = half_code(
            "sapphirerapids",
            "+avx512fp16,+avx512f,+avx512bw,+avx512vl,+f16c",
        );
        for insn in ["vmulsh", "vaddsh", "vcvtsd2sh"] {
            assert!(fp16.contains(insn), "no {insn}:\n{fp16}");
        }
        let f16c = half_code("znver4", "-avx512fp16,+avx512f,+avx512bw,+avx512vl,+f16c");
        for insn in ["vcvtph2ps", "vmulss", "vcvtps2ph", "vcvtsd2ss"] {
            assert!(f16c.contains(insn), "no {insn}:\n{f16c}");
        }
        for asm in [&fp16, &f16c] {
            assert!(!asm.contains("__truncdfhf2"), "a library call:\n{asm}");
        }
    }

    #[test]
    fn specializations_are_shared_in_process_and_cached_on_disk() {
        let dir = std::env::temp_dir().join(format!("ferrocl-kernel-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = DiskCache::at(&dir);
        let target = HostTarget::new();
        let p = program("__kernel void k(__global int* p) { p[get_global_id(0)] += 3; }");
        let k = &p.kernels()[0];
        let spec = Specialization {
            local_size: [16, 1, 1],
            enqueued_local_size: [16, 1, 1],
            streaming: 0,
            images: [None; compiler::MAX_SPECIALIZED_IMAGES],
        };
        let runs = || CODEGEN_RUNS.get();
        let first = target.specialize_with(&cache, &p, k, spec).unwrap();
        assert_eq!(runs(), 1);
        // Asked again while loaded: the same kernel.
        let again = target.specialize_with(&cache, &p, k, spec).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        drop((first, again));
        // Unloaded, asked again: from the disk, no code generation.
        let reloaded = target.specialize_with(&cache, &p, k, spec).unwrap();
        assert_eq!(runs(), 1);
        // Another local size is other code.
        let other = Specialization {
            local_size: [8, 1, 1],
            enqueued_local_size: [8, 1, 1],
            streaming: 0,
            images: [None; compiler::MAX_SPECIALIZED_IMAGES],
        };
        target.specialize_with(&cache, &p, k, other).unwrap();
        assert_eq!(runs(), 2);
        // The reloaded kernel runs.
        let mut data = vec![1i32; 32];
        let args = (data.as_mut_ptr() as usize).to_ne_bytes();
        let info = mux::NdRange {
            work_dim: 1,
            global_size: [32, 1, 1],
            global_offset: [0; 3],
            local_size: [16, 1, 1],
            dynamic_local_memory: 0,
            remainder: [false; 3],
        }
        .schedule_info();
        let mut local = vec![0u8; 1024];
        unsafe {
            mux::Kernel::run_groups(
                &*reloaded,
                args.as_ptr(),
                &info,
                local.as_mut_ptr(),
                local.as_mut_ptr(),
                0,
                2,
            )
        };
        assert_eq!(data, vec![4; 32]);
    }

    #[test]
    fn a_binary_s_machine_code_runs_on_its_cpu_and_another_cpu_builds_from_bitcode() {
        let target = HostTarget::new();
        let p = program("__kernel void k(__global int* p) { p[get_global_id(0)] += 4099; }");
        let k = &p.kernels()[0];
        let spec = Specialization {
            local_size: [4, 1, 1],
            enqueued_local_size: [4, 1, 1],
            streaming: 0,
            images: [None; compiler::MAX_SPECIALIZED_IMAGES],
        };
        let off = DiskCache::off();
        let code = {
            let kernel = target.specialize_with(&off, &p, k, spec).unwrap();
            mux::Kernel::executable(&*kernel).unwrap()
        };
        let specialized = [compiler::SpecializedCode {
            kernel: "k".into(),
            spec,
            executable: code,
        }];
        let here = compiler::Target::machine(&target);
        let elsewhere = compiler::Machine {
            cpu: "another-cpu".into(),
            features: "+no-such-feature".into(),
        };
        for (machine, compiles) in [(&here, 0), (&elsewhere, 1)] {
            let binary = p.to_binary_with(&specialized, machine);
            let loaded = ProgramModule::from_binary(&binary).unwrap();
            let before = CODEGEN_RUNS.get();
            let kernel = target.specialize_with(&off, &loaded, k, spec).unwrap();
            assert_eq!(CODEGEN_RUNS.get() - before, compiles, "{machine:?}");
            drop(kernel);
        }
    }

    #[test]
    fn the_generic_form_runs_any_local_size() {
        let target = HostTarget::new();
        let options = BuildOptions::parse("-cl-std=CL3.0").unwrap();
        let source = "__kernel void k(__global int* o) {
    size_t i = get_global_id(0) + get_global_size(0) * get_global_id(1);
    o[i] = (int)(get_local_id(0) + 10 * get_local_size(0) + 100 * get_group_id(0)
        + 1000 * get_local_id(1) + 10000 * get_enqueued_local_size(1)); }";
        let p = ProgramModule::compile(source.as_bytes(), &options, "x86-64", &[]).unwrap();
        let k = &p.kernels()[0];
        let bytes = target
            .cached_executable(&DiskCache::off(), &p, k, Specialization::GENERIC)
            .unwrap();
        let kernel = HostExecutable::load(&bytes)
            .unwrap()
            .host_kernel("k")
            .unwrap();
        for local in [[4, 1, 1], [8, 1, 1], [2, 2, 1], [16, 2, 1]] {
            let global = [16usize, 2, 1];
            let mut data = vec![-1i32; 32];
            let args = (data.as_mut_ptr() as usize).to_ne_bytes();
            let range = mux::NdRange {
                work_dim: 2,
                global_size: global,
                global_offset: [0; 3],
                local_size: local,
                dynamic_local_memory: 0,
                remainder: [false; 3],
            };
            let info = range.schedule_info();
            let groups = (global[0] / local[0]) * (global[1] / local[1]);
            let mut mem = vec![0u8; 4096];
            unsafe {
                mux::Kernel::run_groups(
                    &*kernel,
                    args.as_ptr(),
                    &info,
                    mem.as_mut_ptr(),
                    mem.as_mut_ptr(),
                    0,
                    groups as u64,
                )
            };
            let want: Vec<i32> = (0..32)
                .map(|i| {
                    let (x, y) = (i % 16, i / 16);
                    (x % local[0]
                        + 10 * local[0]
                        + 100 * (x / local[0])
                        + 1000 * (y % local[1])
                        + 10000 * local[1]) as i32
                })
                .collect();
            assert_eq!(data, want, "local size {local:?}");
        }
        // A kernel with barriers has no generic form.
        let b = program("__kernel void k(__local int* l) { barrier(CLK_LOCAL_MEM_FENCE); }");
        let off = DiskCache::off();
        let generic = Specialization::GENERIC;
        assert!(target
            .cached_executable(&off, &b, &b.kernels()[0], generic)
            .is_err());
    }
}
