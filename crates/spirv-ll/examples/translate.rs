//! Prints the LLVM IR a SPIR-V module translates to:
//! `cargo run --example translate -- module.spv`.

use llvm_sys::core::*;
use std::collections::BTreeMap;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: translate module.spv");
        std::process::exit(2);
    };
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let spec = BTreeMap::new();
    let opts = spirv_ll::Options {
        triple: "x86_64-unknown-linux-gnu",
        data_layout:
            "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128",
        spec_constants: &spec,
        uniform_work_group_size: false,
    };
    // SAFETY: a context of our own, for this thread.
    unsafe {
        let ctx = LLVMContextCreate();
        match spirv_ll::translate(ctx, &bytes, &opts) {
            Ok(m) => {
                let s = LLVMPrintModuleToString(m);
                println!("{}", std::ffi::CStr::from_ptr(s).to_string_lossy());
                LLVMDisposeMessage(s);
                LLVMDisposeModule(m);
            }
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
        LLVMContextDispose(ctx);
    }
}
