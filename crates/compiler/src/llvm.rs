//! Small safe helpers over the LLVM C API shared by the compiler crates.

use llvm_sys::core::*;
use llvm_sys::error::*;
use llvm_sys::prelude::*;
use std::ffi::{CStr, CString};
use std::sync::Once;

/// Registers the host target (and its assembly printer) with LLVM, once per
/// process. LLVM's target registry is not synchronized: a registration that
/// races with a lookup (Clang's back end looks the target up for every
/// compile) hands out a half-registered target. Everything that may reach
/// the registry calls this first.
pub fn initialize_native_target() {
    static INIT: Once = Once::new();
    // SAFETY: the initializers have no preconditions; `Once` runs them
    // exactly once, before any caller proceeds.
    INIT.call_once(|| unsafe {
        llvm_sys::target::LLVM_InitializeNativeTarget();
        llvm_sys::target::LLVM_InitializeNativeAsmPrinter();
        llvm_sys::target::LLVM_InitializeNativeAsmParser();
    });
}

/// A NUL-terminated copy of `s` for the C API.
pub fn cstr(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap()
}

/// Turns an `LLVMErrorRef` into `Err(message)`.
///
/// # Safety
/// `err` must be null or an unconsumed error.
pub unsafe fn check(err: LLVMErrorRef) -> Result<(), String> {
    if err.is_null() {
        return Ok(());
    }
    let msg = LLVMGetErrorMessage(err);
    let text = CStr::from_ptr(msg).to_string_lossy().into_owned();
    LLVMDisposeErrorMessage(msg);
    Err(text)
}

/// Sets the string attribute `k` of function `f` to `v`, replacing any it
/// had.
///
/// # Safety
/// `f` must be a live function.
pub unsafe fn set_function_attribute(f: LLVMValueRef, k: &str, v: &str) {
    let index = llvm_sys::LLVMAttributeFunctionIndex;
    LLVMRemoveStringAttributeAtIndex(f, index, k.as_ptr() as *const _, k.len() as u32);
    let attr = LLVMCreateStringAttribute(
        LLVMGetTypeContext(LLVMTypeOf(f)),
        k.as_ptr() as *const _,
        k.len() as u32,
        v.as_ptr() as *const _,
        v.len() as u32,
    );
    LLVMAddAttributeAtIndex(f, index, attr);
}

/// The name of a value (function, global, ...).
///
/// # Safety
/// `v` must be a live value.
pub unsafe fn name(v: LLVMValueRef) -> String {
    let mut len = 0;
    let p = LLVMGetValueName2(v, &mut len);
    String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned()
}

/// All functions of a module.
///
/// # Safety
/// `m` must be a live module.
pub unsafe fn functions(m: LLVMModuleRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut f = LLVMGetFirstFunction(m);
    while !f.is_null() {
        out.push(f);
        f = LLVMGetNextFunction(f);
    }
    out
}

/// All global variables of a module.
///
/// # Safety
/// `m` must be a live module.
pub unsafe fn globals(m: LLVMModuleRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut g = LLVMGetFirstGlobal(m);
    while !g.is_null() {
        out.push(g);
        g = LLVMGetNextGlobal(g);
    }
    out
}

/// Every instruction of a function, in block order.
///
/// # Safety
/// `f` must be a live function.
pub unsafe fn instructions(f: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut bb = LLVMGetFirstBasicBlock(f);
    while !bb.is_null() {
        out.extend(block_instructions(bb));
        bb = LLVMGetNextBasicBlock(bb);
    }
    out
}

/// The users of `v`, one per use (a user of two operands twice).
///
/// # Safety
/// `v` must be a live value.
pub unsafe fn users(v: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut u = LLVMGetFirstUse(v);
    while !u.is_null() {
        out.push(LLVMGetUser(u));
        u = LLVMGetNextUse(u);
    }
    out
}

/// The instructions of one block, in order.
///
/// # Safety
/// `bb` must be a live block.
pub unsafe fn block_instructions(bb: LLVMBasicBlockRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut i = LLVMGetFirstInstruction(bb);
    while !i.is_null() {
        out.push(i);
        i = LLVMGetNextInstruction(i);
    }
    out
}

/// The function a call instruction calls directly, if any.
///
/// # Safety
/// `inst` must be a live instruction.
pub unsafe fn called_function(inst: LLVMValueRef) -> Option<LLVMValueRef> {
    if LLVMIsACallInst(inst).is_null() {
        return None;
    }
    let callee = LLVMGetCalledValue(inst);
    if LLVMIsAFunction(callee).is_null() {
        None
    } else {
        Some(callee)
    }
}

/// The operands of a function's metadata attachment `kind` (e.g.
/// `kernel_arg_addr_space`), as values, or `None` if it has none.
///
/// # Safety
/// `f` must be a live function.
pub unsafe fn function_metadata(f: LLVMValueRef, kind: &str) -> Option<Vec<LLVMValueRef>> {
    let ctx = LLVMGetTypeContext(LLVMTypeOf(f));
    let k = cstr(kind);
    let kind_id = LLVMGetMDKindIDInContext(ctx, k.as_ptr(), kind.len() as u32);
    let mut n = 0usize;
    let entries = LLVMGlobalCopyAllMetadata(f, &mut n);
    let mut found = None;
    for i in 0..n as u32 {
        if LLVMValueMetadataEntriesGetKind(entries, i) == kind_id {
            let md = LLVMValueMetadataEntriesGetMetadata(entries, i);
            let node = LLVMMetadataAsValue(ctx, md);
            let count = LLVMGetMDNodeNumOperands(node) as usize;
            let mut ops = vec![std::ptr::null_mut(); count];
            LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
            found = Some(ops);
        }
    }
    if !entries.is_null() {
        LLVMDisposeValueMetadataEntries(entries);
    }
    found
}

/// A metadata string operand's text.
///
/// # Safety
/// `v` must be a metadata-as-value.
pub unsafe fn md_string(v: LLVMValueRef) -> String {
    let mut len = 0u32;
    let p = LLVMGetMDString(v, &mut len);
    if p.is_null() {
        return String::new();
    }
    String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len as usize)).into_owned()
}

/// Prints a module as textual IR (for tests and debugging).
///
/// # Safety
/// `m` must be a live module.
pub unsafe fn print_module(m: LLVMModuleRef) -> String {
    let p = LLVMPrintModuleToString(m);
    let s = CStr::from_ptr(p).to_string_lossy().into_owned();
    LLVMDisposeMessage(p);
    s
}

/// Runs a new-pass-manager pipeline (`"default<O3>"`, `"always-inline"`…).
///
/// # Safety
/// `m` must be a live module; `tm` null or a live target machine.
pub unsafe fn run_passes(
    m: LLVMModuleRef,
    pipeline: &str,
    tm: llvm_sys::target_machine::LLVMTargetMachineRef,
) -> Result<(), String> {
    use llvm_sys::transforms::pass_builder::*;
    let opts = LLVMCreatePassBuilderOptions();
    let p = cstr(pipeline);
    let r = check(LLVMRunPasses(m, p.as_ptr(), tm, opts));
    LLVMDisposePassBuilderOptions(opts);
    r
}

/// Parses textual IR into a module of `ctx` (for pass tests).
///
/// # Safety
/// `ctx` must be a live context.
pub unsafe fn parse_ir(ctx: LLVMContextRef, text: &str) -> Result<LLVMModuleRef, String> {
    use llvm_sys::ir_reader::LLVMParseIRInContext2;
    let name = cstr("ir");
    let buf = llvm_sys::core::LLVMCreateMemoryBufferWithMemoryRangeCopy(
        text.as_ptr() as *const _,
        text.len(),
        name.as_ptr(),
    );
    let mut m = std::ptr::null_mut();
    let mut msg = std::ptr::null_mut();
    let failed = LLVMParseIRInContext2(ctx, buf, &mut m, &mut msg);
    LLVMDisposeMemoryBuffer(buf);
    if failed != 0 {
        let s = CStr::from_ptr(msg).to_string_lossy().into_owned();
        LLVMDisposeMessage(msg);
        return Err(s);
    }
    Ok(m)
}

/// Verifies a module, returning the verifier's text on failure.
///
/// # Safety
/// `m` must be a live module.
pub unsafe fn verify(m: LLVMModuleRef) -> Result<(), String> {
    use llvm_sys::analysis::*;
    let mut msg = std::ptr::null_mut();
    let bad = LLVMVerifyModule(
        m,
        LLVMVerifierFailureAction::LLVMReturnStatusAction,
        &mut msg,
    );
    let text = if msg.is_null() {
        String::new()
    } else {
        let s = CStr::from_ptr(msg).to_string_lossy().into_owned();
        LLVMDisposeMessage(msg);
        s
    };
    if bad != 0 {
        Err(text)
    } else {
        Ok(())
    }
}
