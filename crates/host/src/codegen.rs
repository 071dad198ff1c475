//! LLVM's half of the host target: the host CPU as LLVM names it, and the
//! code generator (a target machine that emits objects and assembly).

use compiler::llvm::cstr;
use llvm_sys::core::*;
use llvm_sys::target_machine::*;
use std::ffi::CStr;

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

/// An owned `LLVMTargetMachineRef`.
pub struct TargetMachine(pub LLVMTargetMachineRef);

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

impl Drop for TargetMachine {
    fn drop(&mut self) {
        // SAFETY: created by LLVMCreateTargetMachine and owned here.
        unsafe { LLVMDisposeTargetMachine(self.0) }
    }
}
