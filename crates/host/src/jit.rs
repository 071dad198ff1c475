//! The process-wide ORC LLJIT. Kernels arrive as object files; each is
//! tracked so that its code is removed when the last kernel using it goes.

use compiler::llvm::{check, cstr};
use llvm_sys::core::*;
use llvm_sys::orc2::lljit::*;
use llvm_sys::orc2::*;
use llvm_sys::target_machine::*;
use std::ffi::CStr;
use std::sync::OnceLock;

struct Jit(LLVMOrcLLJITRef);

// ORC's LLJIT is internally synchronized: adding objects and looking up
// symbols may happen from any thread.
unsafe impl Send for Jit {}
unsafe impl Sync for Jit {}

static JIT: OnceLock<Result<Jit, String>> = OnceLock::new();

fn jit() -> Result<LLVMOrcLLJITRef, String> {
    let j = JIT.get_or_init(|| unsafe {
        compiler::llvm::initialize_native_target();
        let mut j = std::ptr::null_mut();
        check(LLVMOrcCreateLLJIT(&mut j, std::ptr::null_mut()))?;
        // Kernels may call the C library (math, memcpy): resolve from the process.
        let mut generator = std::ptr::null_mut();
        check(LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
            &mut generator,
            LLVMOrcLLJITGetGlobalPrefix(j),
            None,
            std::ptr::null_mut(),
        ))?;
        LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(j), generator);
        // The math library by name too: the loader may have opened this
        // library (and so libm) with RTLD_LOCAL, and an application need
        // not link libm itself, so the process's global symbols may lack it.
        let mut libm = std::ptr::null_mut();
        check(LLVMOrcCreateDynamicLibrarySearchGeneratorForPath(
            &mut libm,
            c"libm.so.6".as_ptr(),
            LLVMOrcLLJITGetGlobalPrefix(j),
            None,
            std::ptr::null_mut(),
        ))?;
        LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(j), libm);
        // And GCC's runtime: on a CPU without F16C, LLVM converts between
        // half and float by calling its __extendhfsf2 and __truncsfhf2.
        let mut libgcc = std::ptr::null_mut();
        check(LLVMOrcCreateDynamicLibrarySearchGeneratorForPath(
            &mut libgcc,
            c"libgcc_s.so.1".as_ptr(),
            LLVMOrcLLJITGetGlobalPrefix(j),
            None,
            std::ptr::null_mut(),
        ))?;
        LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(j), libgcc);
        Ok(Jit(j))
    });
    j.as_ref().map(|j| j.0).map_err(Clone::clone)
}

/// The host CPU's name and features, as LLVM names them.
pub fn host_cpu() -> (String, String) {
    // SAFETY: both return strings we own and dispose of.
    unsafe {
        let take = |p: *mut std::ffi::c_char| {
            let s = CStr::from_ptr(p).to_string_lossy().into_owned();
            LLVMDisposeMessage(p);
            s
        };
        (take(LLVMGetHostCPUName()), take(LLVMGetHostCPUFeatures()))
    }
}

#[cfg(feature = "compiler")]
/// A target machine for `cpu` with `features`, tuned for speed.
pub fn target_machine_for(
    triple: &str,
    cpu: &str,
    features: &str,
) -> Result<TargetMachine, String> {
    compiler::llvm::initialize_native_target();
    let t = cstr(triple);
    // SAFETY: plain C API calls with valid strings.
    unsafe {
        let mut target = std::ptr::null_mut();
        let mut err = std::ptr::null_mut();
        if LLVMGetTargetFromTriple(t.as_ptr(), &mut target, &mut err) != 0 {
            let s = CStr::from_ptr(err).to_string_lossy().into_owned();
            LLVMDisposeMessage(err);
            return Err(s);
        }
        let tm = LLVMCreateTargetMachine(
            target,
            t.as_ptr(),
            cstr(cpu).as_ptr(),
            cstr(features).as_ptr(),
            LLVMCodeGenOptLevel::LLVMCodeGenLevelAggressive,
            LLVMRelocMode::LLVMRelocPIC,
            LLVMCodeModel::LLVMCodeModelSmall,
        );
        Ok(TargetMachine(tm))
    }
}

#[cfg(feature = "compiler")]
/// An owned `LLVMTargetMachineRef`.
pub struct TargetMachine(pub LLVMTargetMachineRef);

#[cfg(feature = "compiler")]
impl TargetMachine {
    /// Compiles `m` to an ELF object in memory.
    ///
    /// # Safety
    /// `m` must be a live module this thread owns.
    pub unsafe fn emit_object(
        &self,
        m: llvm_sys::prelude::LLVMModuleRef,
    ) -> Result<Vec<u8>, String> {
        self.emit(m, LLVMCodeGenFileType::LLVMObjectFile)
    }

    /// Compiles `m` to assembly text.
    ///
    /// # Safety
    /// `m` must be a live module this thread owns.
    pub unsafe fn emit_assembly(
        &self,
        m: llvm_sys::prelude::LLVMModuleRef,
    ) -> Result<Vec<u8>, String> {
        self.emit(m, LLVMCodeGenFileType::LLVMAssemblyFile)
    }

    unsafe fn emit(
        &self,
        m: llvm_sys::prelude::LLVMModuleRef,
        kind: LLVMCodeGenFileType,
    ) -> Result<Vec<u8>, String> {
        let mut err = std::ptr::null_mut();
        let mut buf = std::ptr::null_mut();
        if LLVMTargetMachineEmitToMemoryBuffer(self.0, m, kind, &mut err, &mut buf) != 0 {
            let s = CStr::from_ptr(err).to_string_lossy().into_owned();
            LLVMDisposeMessage(err);
            return Err(s);
        }
        let start = LLVMGetBufferStart(buf) as *const u8;
        let v = std::slice::from_raw_parts(start, LLVMGetBufferSize(buf)).to_vec();
        LLVMDisposeMemoryBuffer(buf);
        Ok(v)
    }
}

#[cfg(feature = "compiler")]
impl Drop for TargetMachine {
    fn drop(&mut self) {
        // SAFETY: created by LLVMCreateTargetMachine and owned here.
        unsafe { LLVMDisposeTargetMachine(self.0) }
    }
}

/// Code loaded into the JIT; removed from it when dropped.
pub struct LoadedObject {
    tracker: LLVMOrcResourceTrackerRef,
}

unsafe impl Send for LoadedObject {}
unsafe impl Sync for LoadedObject {}

/// Loads `object` and returns the addresses of its `symbols`.
pub fn load(object: &[u8], symbols: &[&str]) -> Result<(LoadedObject, Vec<u64>), String> {
    let j = jit()?;
    // SAFETY: the JIT is live for the process; the buffer's ownership passes to ORC.
    unsafe {
        let dylib = LLVMOrcLLJITGetMainJITDylib(j);
        let tracker = LLVMOrcJITDylibCreateResourceTracker(dylib);
        let name = cstr("kernel.o");
        let buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(
            object.as_ptr() as *const _,
            object.len(),
            name.as_ptr(),
        );
        // Dropped on failure: whatever was loaded goes again.
        let loaded = LoadedObject { tracker };
        check(LLVMOrcLLJITAddObjectFileWithRT(j, tracker, buf))?;
        let mut addresses = Vec::new();
        for s in symbols {
            let mut address = 0;
            check(LLVMOrcLLJITLookup(j, &mut address, cstr(s).as_ptr()))?;
            addresses.push(address);
        }
        Ok((loaded, addresses))
    }
}

impl Drop for LoadedObject {
    fn drop(&mut self) {
        // SAFETY: the tracker is ours; removing it frees the object's code.
        unsafe {
            let _ = check(LLVMOrcResourceTrackerRemove(self.tracker));
            LLVMOrcReleaseResourceTracker(self.tracker);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_code_for_a_cpu_without_f16c_loads_and_rounds() {
        let ctx = compiler::Context::new();
        let ir = r#"
define i16 @to_half(float %x) {
  %h = fptrunc float %x to half
  %b = bitcast half %h to i16
  ret i16 %b
}
define float @from_half(i16 %b) {
  %h = bitcast i16 %b to half
  %x = fpext half %h to float
  ret float %x
}
"#;
        let object = unsafe {
            let m = compiler::llvm::parse_ir(ctx.0, ir).unwrap();
            let tm = target_machine_for(compiler::TRIPLE, "x86-64", "-f16c,-avx512fp16").unwrap();
            let o = tm.emit_object(m).unwrap();
            LLVMDisposeModule(m);
            o
        };
        let (_loaded, at) = load(&object, &["to_half", "from_half"]).unwrap();
        // SAFETY: the functions just loaded, of these signatures.
        let (to_half, from_half) = unsafe {
            (
                std::mem::transmute::<u64, extern "C" fn(f32) -> i16>(at[0]),
                std::mem::transmute::<u64, extern "C" fn(i16) -> f32>(at[1]),
            )
        };
        // 1 + 2^-11 is a tie: to even, 1.
        assert_eq!(to_half(1.0 + 2f32.powi(-11)) as u16, 0x3c00);
        assert_eq!(to_half(1.0 + 3.0 * 2f32.powi(-11)) as u16, 0x3c02);
        assert_eq!(to_half(65520.0) as u16, 0x7c00);
        assert_eq!(from_half(0x0001), 2f32.powi(-24));
    }
}
