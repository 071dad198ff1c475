//! spirv-ll: SPIR-V modules (1.0 to 1.6, the OpenCL environment) to LLVM
//! IR in the shape the OpenCL C front end gives it (seed 003's
//! `compileSPIRV`): Clang's fake address spaces (private 0, global 1,
//! constant 2, local 3, generic 4), kernels in the SPIR kernel calling
//! convention with `kernel_arg_*` metadata, and builtins called by their
//! Itanium-mangled OpenCL C names with the x86-64 argument passing of the
//! builtins library, so that everything after the front end (builtins
//! linking, reflection, passes, cache) takes the module as it is.
//!
//! Every malformed module is an [`Error`] naming the instruction (word
//! offset and opcode) and the reason; types are checked before any LLVM
//! instruction is built, and the result is verified.

mod aliasing;
mod arith;
mod atomics;
mod binary;
mod builtins;
mod composite;
mod constants;
mod control;
mod convert;
mod decorations;
mod error;
mod functions;
mod globals;
mod images;
mod instructions;
mod intel_sub_groups;
mod kernel;
mod library;
mod ll;
mod mangle;
mod memory;
mod module_checks;
mod opencl_std;
mod sub_groups;
mod translator;
mod types;

pub use binary::{check_header, VERSIONS};
pub use error::Error;
pub use module_checks::{CAPABILITIES, EXTENDED_INSTRUCTION_SETS, EXTENSIONS};

use llvm_sys::analysis::{LLVMVerifierFailureAction, LLVMVerifyModule};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use rspirv::spirv::{Decoration, Op};
use std::collections::BTreeMap;

/// How to translate.
pub struct Options<'a> {
    /// The module's target triple and data layout (the front end's).
    pub triple: &'a str,
    pub data_layout: &'a str,
    /// The values set by `clSetProgramSpecializationConstant`, by SpecId,
    /// as little-endian bytes.
    pub spec_constants: &'a BTreeMap<u32, Vec<u8>>,
    /// `-cl-uniform-work-group-size`: kernels need uniform work-groups.
    pub uniform_work_group_size: bool,
}

/// Translates `bytes` into a new module of `ctx`.
///
/// # Safety
/// `ctx` must be a live LLVM context used by this thread only.
pub unsafe fn translate(
    ctx: LLVMContextRef,
    bytes: &[u8],
    opts: &Options,
) -> Result<LLVMModuleRef, Error> {
    let parsed = binary::parse(bytes)?;
    let m = LLVMModuleCreateWithNameInContext(c"spirv".as_ptr(), ctx);
    let triple = ll::cstr(opts.triple);
    LLVMSetTarget(m, triple.as_ptr());
    let layout = ll::cstr(opts.data_layout);
    LLVMSetDataLayout(m, layout.as_ptr());
    let result = {
        let mut tr = translator::Tr::new(ctx, m, opts, &parsed);
        tr.run(&parsed.insts)
    };
    if let Err(e) = result {
        LLVMDisposeModule(m);
        return Err(e);
    }
    let mut msg = std::ptr::null_mut();
    let broken = LLVMVerifyModule(
        m,
        LLVMVerifierFailureAction::LLVMReturnStatusAction,
        &mut msg,
    ) != 0;
    let text = if msg.is_null() {
        String::new()
    } else {
        let s = std::ffi::CStr::from_ptr(msg).to_string_lossy().into_owned();
        LLVMDisposeMessage(msg);
        s
    };
    if broken {
        LLVMDisposeModule(m);
        return Err(Error::new(
            0,
            "module",
            format!(
                "the translated module is not valid IR: {}",
                text.lines().next().unwrap_or("")
            ),
        ));
    }
    Ok(m)
}

/// A specialization constant a module declares: its SpecId and size in
/// bytes (1 for a bool).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpecConstant {
    pub id: u32,
    pub size: usize,
}

/// The specialization constants `bytes` declares, for
/// `clSetProgramSpecializationConstant`'s checks.
pub fn spec_constants(bytes: &[u8]) -> Result<Vec<SpecConstant>, Error> {
    let parsed = binary::parse(bytes)?;
    let mut decos = decorations::Decorations::default();
    let mut widths = std::collections::HashMap::new();
    for i in &parsed.insts {
        match i.op() {
            Op::Decorate => decos.add(i)?,
            Op::TypeBool => {
                widths.insert(i.result_id()?, 1);
            }
            Op::TypeInt | Op::TypeFloat => {
                widths.insert(i.result_id()?, (i.literal(0)? as usize).div_ceil(8));
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for i in &parsed.insts {
        if matches!(
            i.op(),
            Op::SpecConstant | Op::SpecConstantTrue | Op::SpecConstantFalse
        ) {
            let id = i.result_id()?;
            if let (Some(spec), Some(&size)) = (
                decos.literal(id, Decoration::SpecId),
                widths.get(&i.result_type()?),
            ) {
                out.push(SpecConstant { id: spec, size });
            }
        }
    }
    Ok(out)
}
