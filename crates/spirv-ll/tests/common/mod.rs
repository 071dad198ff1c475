//! What the translator's tests share: modules assembled from text with
//! `spirv-as`, and the host's translation options.

#![allow(dead_code)]

use llvm_sys::core::*;
use std::collections::BTreeMap;
use std::process::Command;

/// The binary `spirv-as` makes of `text` for SPIR-V environment `env`
/// (`spv1.0`, `spv1.3`, ...).
pub fn assemble(text: &str, env: &str) -> Vec<u8> {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("spirv-ll-test-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (asm, spv) = (dir.join("m.spvasm"), dir.join("m.spv"));
    std::fs::write(&asm, text).unwrap();
    let out = Command::new("spirv-as")
        .args(["--target-env", env, "-o"])
        .arg(&spv)
        .arg(&asm)
        .output()
        .expect("spirv-as (spirv-tools)");
    assert!(
        out.status.success(),
        "spirv-as: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let b = std::fs::read(&spv).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    b
}

/// The host's options, with the specialization constants `spec`.
pub fn options(spec: &BTreeMap<u32, Vec<u8>>) -> spirv_ll::Options<'_> {
    spirv_ll::Options {
        triple: "x86_64-unknown-linux-gnu",
        data_layout:
            "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128",
        spec_constants: spec,
        uniform_work_group_size: false,
    }
}

/// `bytes` translated with no specialization constants set: the module's
/// IR as text, or the error.
pub fn translate_to_text(bytes: &[u8]) -> Result<String, spirv_ll::Error> {
    let spec = BTreeMap::new();
    let opts = options(&spec);
    // SAFETY: a context of this thread, disposed of at the end.
    unsafe {
        let ctx = LLVMContextCreate();
        let r = spirv_ll::translate(ctx, bytes, &opts).map(|m| {
            let s = LLVMPrintModuleToString(m);
            let ir = std::ffi::CStr::from_ptr(s).to_string_lossy().into_owned();
            LLVMDisposeMessage(s);
            LLVMDisposeModule(m);
            ir
        });
        LLVMContextDispose(ctx);
        r
    }
}
