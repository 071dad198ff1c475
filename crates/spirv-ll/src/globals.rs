//! Module-scope instructions: types, constants and variables. `Workgroup`
//! variables are `__local` globals (addrspace 3), `CrossWorkgroup` ones
//! program-scope `__global` variables (1), `UniformConstant` ones
//! `__constant` data (2); `Input` variables are the built-ins.

use crate::binary::Inst;
use crate::error::Result;
use crate::ll::cstr;
use crate::translator::{ExtSet, Tr, Value};
use crate::types::{self, Kind, MAX_OBJECT_BYTES};
use llvm_sys::core::*;
use llvm_sys::{LLVMLinkage, LLVMUnnamedAddr};
use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, LinkageType, Op, StorageClass};

/// How a `LinkageAttributes` decoration links a symbol.
pub(crate) fn linkage(tr: &Tr, id: u32) -> Option<(String, LinkageType)> {
    let d = tr.deco.get(id, Decoration::LinkageAttributes)?;
    match (d.args.first(), d.args.get(1)) {
        (Some(Operand::LiteralString(n)), Some(Operand::LinkageType(t))) => Some((n.clone(), *t)),
        _ => None,
    }
}

impl Tr<'_> {
    pub fn global(&mut self, inst: &Inst) -> Result<()> {
        let op = inst.op();
        if types::is_type_op(op) {
            return self.declare_type(inst);
        }
        match op {
            Op::ConstantTrue
            | Op::ConstantFalse
            | Op::Constant
            | Op::ConstantComposite
            | Op::ConstantNull
            | Op::ConstantSampler
            | Op::SpecConstantTrue
            | Op::SpecConstantFalse
            | Op::SpecConstant
            | Op::SpecConstantComposite
            | Op::SpecConstantOp
            | Op::Undef => self.constant(inst),
            Op::Variable => self.global_variable(inst),
            Op::AliasDomainDeclINTEL | Op::AliasScopeDeclINTEL | Op::AliasScopeListDeclINTEL => {
                self.alias_declaration(inst)
            }
            Op::ExtInst => {
                let set = inst.id(0)?;
                match self.ext_sets.get(&set) {
                    Some(ExtSet::Ignored | ExtSet::DebugPrintf) => Ok(()),
                    _ => Err(inst.err("only non-semantic instructions may be at module scope")),
                }
            }
            Op::Capability
            | Op::Extension
            | Op::ExtInstImport
            | Op::MemoryModel
            | Op::EntryPoint
            | Op::ExecutionMode
            | Op::ExecutionModeId
            | Op::String
            | Op::SourceExtension
            | Op::Source
            | Op::SourceContinued
            | Op::Name
            | Op::MemberName
            | Op::ModuleProcessed
            | Op::Decorate
            | Op::DecorateId
            | Op::DecorateString
            | Op::MemberDecorate
            | Op::MemberDecorateString
            | Op::DecorationGroup
            | Op::GroupDecorate
            | Op::GroupMemberDecorate
            | Op::Line
            | Op::NoLine
            | Op::Nop => Ok(()),
            _ => Err(inst.err("this instruction may not be at module scope")),
        }
    }

    fn global_variable(&mut self, inst: &Inst) -> Result<()> {
        let id = inst.result_id()?;
        let ty = inst.result_type()?;
        let sc = match inst.get(0) {
            Some(Operand::StorageClass(sc)) => *sc,
            _ => return Err(inst.err("the storage class is missing")),
        };
        let (psc, pointee) = self
            .pointer(ty)
            .ok_or_else(|| inst.err("the result type is not a pointer"))?;
        if psc != sc {
            return Err(inst.err("the storage class is not the pointer type's"));
        }
        // Older Khronos translators declare built-ins as imported
        // UniformConstant variables: a built-in all the same.
        let builtin = sc == StorageClass::Input
            || (sc == StorageClass::UniformConstant && self.deco.has(id, Decoration::BuiltIn));
        if builtin {
            let var = match self
                .deco
                .get(id, Decoration::BuiltIn)
                .and_then(|d| d.args.first())
            {
                Some(Operand::BuiltIn(b)) => *b,
                _ => return Err(inst.err("an Input variable must be a built-in")),
            };
            crate::builtins::check(self, var, pointee)
                .map_err(|why| inst.err(format!("built-in {var:?}: {why}")))?;
            return self.define(id, Value::Builtin { var, ty });
        }
        let space = match sc {
            StorageClass::CrossWorkgroup
            | StorageClass::UniformConstant
            | StorageClass::Workgroup => types::address_space(sc).unwrap_or(0),
            _ => {
                return Err(inst.err(format!(
                    "a module-scope variable cannot be of storage class {sc:?}"
                )))
            }
        };
        if !self.is_sized(pointee) {
            return Err(inst.err("the variable's type has no size"));
        }
        if self.size_of(pointee)? > MAX_OBJECT_BYTES {
            return Err(inst.err("the variable is too large"));
        }
        let init = match inst.get(1) {
            Some(_) => {
                let init_id = inst.id(1)?;
                let v = self.val_of(init_id, pointee)?;
                // SAFETY: a value of the context.
                if unsafe { LLVMIsConstant(v) } == 0 {
                    return Err(inst.err("the initializer is not a constant"));
                }
                Some(v)
            }
            None => None,
        };
        let link = linkage(self, id);
        let name = match &link {
            Some((n, _)) => n.clone(),
            None => self
                .names
                .get(&id)
                .map(|n| format!("spirv.{n}"))
                .unwrap_or_else(|| format!("spirv.var.{id}")),
        };
        let lt = self.llty(pointee)?;
        let c = cstr(&name);
        // SAFETY: a global of the module, of a sized type.
        let g = unsafe {
            let g = LLVMAddGlobalInAddressSpace(self.m, lt, c.as_ptr(), space);
            let import = matches!(link, Some((_, LinkageType::Import)));
            if sc == StorageClass::Workgroup {
                if init.is_some() {
                    return Err(inst.err("a Workgroup variable cannot have an initializer"));
                }
                LLVMSetInitializer(g, LLVMGetUndef(lt));
                LLVMSetLinkage(g, LLVMLinkage::LLVMInternalLinkage);
            } else if !import {
                LLVMSetInitializer(g, init.unwrap_or_else(|| LLVMConstNull(lt)));
                LLVMSetLinkage(
                    g,
                    match link {
                        Some((_, LinkageType::Export)) => LLVMLinkage::LLVMExternalLinkage,
                        Some((_, LinkageType::LinkOnceODR)) => LLVMLinkage::LLVMLinkOnceODRLinkage,
                        _ => LLVMLinkage::LLVMInternalLinkage,
                    },
                );
            }
            if sc == StorageClass::UniformConstant || self.deco.has(id, Decoration::Constant) {
                LLVMSetGlobalConstant(g, 1);
                if link.is_none() {
                    LLVMSetUnnamedAddress(g, LLVMUnnamedAddr::LLVMGlobalUnnamedAddr);
                }
            }
            if let Some(a) = self.deco.literal(id, Decoration::Alignment) {
                if a.is_power_of_two() {
                    LLVMSetAlignment(g, a);
                }
            }
            g
        };
        if matches!(self.kind(pointee)?, Kind::Void) {
            return Err(inst.err("a variable cannot be void"));
        }
        self.define_ll(id, g, ty)
    }
}
