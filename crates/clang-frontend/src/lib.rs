//! Clang 22, in process: compiles OpenCL C source to an LLVM module in a
//! caller-owned `LLVMContext`. The C++ shim (`shim.cpp`) is the only C++ in
//! ferrocl; everything past the module is done over the LLVM C API in Rust.

use llvm_sys::prelude::{LLVMContextRef, LLVMModuleRef, LLVMValueRef};
use std::ffi::{c_char, CStr, CString};

#[repr(C)]
struct FerroclHeader {
    name: *const c_char,
    source: *const c_char,
    length: usize,
}

extern "C" {
    fn ferrocl_clang_compile(
        ctx: LLVMContextRef,
        source: *const c_char,
        source_len: usize,
        file_name: *const c_char,
        args: *const *const c_char,
        num_args: usize,
        headers: *const FerroclHeader,
        num_headers: usize,
        log: *mut *mut c_char,
        files: *mut *mut c_char,
    ) -> LLVMModuleRef;
    fn ferrocl_clang_free(p: *mut c_char);
    fn ferrocl_mark_parallel_loop(
        latch: LLVMValueRef,
        calls: *mut LLVMValueRef,
        n: usize,
        keep_rolled: i32,
        interleave: u32,
    );
    fn ferrocl_link_needed(
        dest: LLVMModuleRef,
        data: *const c_char,
        len: usize,
        error: *mut *mut c_char,
    ) -> i32;
}

/// Declares the loop ending in the branch `latch` free of dependences
/// between its iterations for the memory accesses of `calls` (and of what
/// gets inlined from them): `llvm.loop.parallel_accesses` over a new access
/// group, so the loop vectorizer needs no alias checks. `keep_rolled` adds
/// `llvm.loop.unroll.disable`, so that the loop reaches the vectorizer
/// whole rather than fully unrolled first; an `interleave` above 0 is the
/// vector iterations the vectorizer interleaves
/// (`llvm.loop.interleave.count`).
///
/// # Safety
/// `latch` must be a loop's latch branch and `calls` instructions of the
/// same function, in a context this thread owns.
pub unsafe fn mark_parallel_loop(
    latch: LLVMValueRef,
    calls: &[LLVMValueRef],
    keep_rolled: bool,
    interleave: u32,
) {
    let mut calls = calls.to_vec();
    ferrocl_mark_parallel_loop(
        latch,
        calls.as_mut_ptr(),
        calls.len(),
        keep_rolled as i32,
        interleave,
    );
}

/// Links into `dest` only what it uses of the library `bitcode` (and what
/// that uses), reading nothing else of it: a program pays for the builtins
/// it calls, not for the whole library.
///
/// # Safety
/// `dest` must be a live module whose context this thread owns; `bitcode`
/// must outlive the call.
pub unsafe fn link_needed(dest: LLVMModuleRef, bitcode: &'static [u8]) -> Result<(), String> {
    let mut error: *mut c_char = std::ptr::null_mut();
    let rc = ferrocl_link_needed(
        dest,
        bitcode.as_ptr() as *const c_char,
        bitcode.len(),
        &mut error,
    );
    if rc == 0 {
        return Ok(());
    }
    let text = if error.is_null() {
        "linking the library failed".to_string()
    } else {
        let t = std::ffi::CStr::from_ptr(error)
            .to_string_lossy()
            .into_owned();
        ferrocl_clang_free(error);
        t
    };
    Err(text)
}

/// Clang's resource directory (it holds `opencl-c-base.h`).
pub const RESOURCE_DIR: &str = env!("FERROCL_CLANG_RESOURCE_DIR");

/// What one Clang run produced: the module (if it compiled) and the
/// diagnostics text, which is the program's build log.
pub struct Output {
    pub module: Option<LLVMModuleRef>,
    pub log: String,
    /// The files of the real file system it read, and the paths it looked
    /// for there and did not find, in order: what the build depends on
    /// besides its source, arguments and embedded headers.
    pub files: Vec<FileUse>,
}

/// One use of the file system by a Clang run.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FileUse {
    Read(String),
    Missing(String),
}

/// A header made visible to `#include` by name (`clCompileProgram`'s input headers).
pub struct Header<'a> {
    pub name: &'a str,
    pub source: &'a [u8],
}

/// Runs Clang's cc1 with `args` on `source`. The module belongs to `ctx`.
///
/// # Safety
/// `ctx` must be a live context not used concurrently by another thread.
pub unsafe fn compile(
    ctx: LLVMContextRef,
    source: &[u8],
    file_name: &str,
    args: &[String],
    headers: &[Header<'_>],
) -> Output {
    let c_args: Vec<CString> = args
        .iter()
        .map(|a| CString::new(a.replace('\0', "")).unwrap())
        .collect();
    let ptrs: Vec<*const c_char> = c_args.iter().map(|a| a.as_ptr()).collect();
    let c_names: Vec<CString> = headers
        .iter()
        .map(|h| CString::new(h.name.replace('\0', "")).unwrap())
        .collect();
    let c_headers: Vec<FerroclHeader> = headers
        .iter()
        .zip(&c_names)
        .map(|(h, n)| FerroclHeader {
            name: n.as_ptr(),
            source: h.source.as_ptr() as *const c_char,
            length: h.source.len(),
        })
        .collect();
    let file = CString::new(file_name.replace('\0', "")).unwrap();
    let mut log: *mut c_char = std::ptr::null_mut();
    let mut files: *mut c_char = std::ptr::null_mut();
    let module = ferrocl_clang_compile(
        ctx,
        source.as_ptr() as *const c_char,
        source.len(),
        file.as_ptr(),
        ptrs.as_ptr(),
        ptrs.len(),
        c_headers.as_ptr(),
        c_headers.len(),
        &mut log,
        &mut files,
    );
    let take = |p: *mut c_char| {
        if p.is_null() {
            return String::new();
        }
        let s = CStr::from_ptr(p).to_string_lossy().into_owned();
        ferrocl_clang_free(p);
        s
    };
    let text = take(log);
    let mut uses: Vec<FileUse> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for line in take(files).lines() {
        let u = match line.split_at_checked(1) {
            Some(("R", path)) => FileUse::Read(path.to_string()),
            Some(("M", path)) => FileUse::Missing(path.to_string()),
            _ => continue,
        };
        if seen.insert(u.clone()) {
            uses.push(u);
        }
    }
    Output {
        module: if module.is_null() { None } else { Some(module) },
        log: text,
        files: uses,
    }
}
