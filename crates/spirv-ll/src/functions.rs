//! Functions: prototypes (names, linkage, calling convention, parameter
//! attributes), then bodies block by block, phis completed last.

use crate::binary::Inst;
use crate::decorations::Id;
use crate::error::Result;
use crate::globals::linkage;
use crate::ll::{self, cstr};
use crate::translator::{FnState, Func, Tr};
use crate::types::Kind;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMCallConv, LLVMLinkage};
use rspirv::dr::Operand;
use rspirv::spirv::{FunctionControl, FunctionParameterAttribute as Fpa, LinkageType, Op};
use std::collections::HashMap;

impl Tr<'_> {
    fn is_entry_point(&self, id: Id) -> Option<String> {
        self.entry_points
            .iter()
            .find(|e| e.function == id)
            .map(|e| e.name.clone())
    }

    pub fn prototype(&mut self, f: &[Inst]) -> Result<()> {
        let def = &f[0];
        let id = def.result_id()?;
        let ret = def.result_type()?;
        let control = match def.get(0) {
            Some(Operand::FunctionControl(c)) => *c,
            _ => return Err(def.err("the function control is missing")),
        };
        let fn_type = def.id(1)?;
        let (fret, fparams) = match self.kind(fn_type)? {
            Kind::Function(r, p) => (*r, p.clone()),
            _ => return Err(def.err("the function type is not one")),
        };
        if !self.same(fret, ret) {
            return Err(def.err("the result type is not the function type's return type"));
        }
        let params: Vec<&Inst> = f[1..]
            .iter()
            .take_while(|i| i.op() == Op::FunctionParameter)
            .collect();
        if params.len() != fparams.len() {
            return Err(def.err(format!(
                "{} parameters for a function type of {}",
                params.len(),
                fparams.len()
            )));
        }
        let kernel = self.is_entry_point(id);
        let link = linkage(self, id);
        let has_body = f.iter().any(|i| i.op() == Op::Label);
        let name = match (&kernel, &link) {
            (Some(k), _) => k.clone(),
            // The Khronos translator exports a kernel's body by the
            // kernel's name and makes the entry point a wrapper calling
            // it: the kernel keeps the name.
            (None, Some((n, LinkageType::Export)))
                if self.entry_points.iter().any(|e| &e.name == n) =>
            {
                format!("{n}.spirv.body")
            }
            (None, Some((n, _))) => n.clone(),
            (None, None) => self
                .names
                .get(&id)
                .map(|n| format!("spirv.{n}"))
                .unwrap_or_else(|| format!("spirv.fn.{id}")),
        };
        if kernel.is_some() && !matches!(self.kind(ret)?, Kind::Void) {
            return Err(def.err("a kernel must return void"));
        }
        // An imported builtin (Clang's SPIR-V back end leaves some OpenCL C
        // builtins as calls, mangled for SPIR): a function of this module
        // that calls the library's, so the library's ABI is met.
        let alias = match &link {
            Some((n, LinkageType::Import)) if !has_body => crate::mangle::demangle(n)
                .map(|(base, args)| crate::mangle::mangle(&base, &args))
                .filter(|m| crate::library::exists(m)),
            _ => None,
        };
        let name = match &alias {
            Some(_) => format!("spirv.builtin.{name}"),
            None => name,
        };
        let c = cstr(&name);
        // SAFETY: functions and attributes of the translator's module.
        unsafe {
            let existing = LLVMGetNamedFunction(self.m, c.as_ptr());
            if !existing.is_null() {
                return Err(def.err(format!("two functions are named {name}")));
            }
            let lf = LLVMAddFunction(self.m, c.as_ptr(), self.llty(fn_type)?);
            let import = matches!(link, Some((_, LinkageType::Import))) && alias.is_none();
            if import && has_body {
                return Err(def.err("an imported function has a body"));
            }
            if !import && !has_body && alias.is_none() {
                return Err(def.err("a function without a body must be imported"));
            }
            LLVMSetLinkage(
                lf,
                match (&kernel, &link) {
                    _ if alias.is_some() => LLVMLinkage::LLVMInternalLinkage,
                    (Some(_), _) => LLVMLinkage::LLVMExternalLinkage,
                    (None, Some((_, LinkageType::LinkOnceODR))) => {
                        LLVMLinkage::LLVMLinkOnceODRLinkage
                    }
                    (None, Some(_)) => LLVMLinkage::LLVMExternalLinkage,
                    (None, None) => LLVMLinkage::LLVMInternalLinkage,
                },
            );
            if kernel.is_some() {
                LLVMSetFunctionCallConv(lf, LLVMCallConv::LLVMSPIRKERNELCallConv as u32);
            }
            let fi = llvm_sys::LLVMAttributeFunctionIndex;
            LLVMAddAttributeAtIndex(lf, fi, ll::enum_attr(self.ctx, "nounwind", 0));
            LLVMAddAttributeAtIndex(lf, fi, ll::enum_attr(self.ctx, "convergent", 0));
            let features = crate::library::target_features();
            if !features.is_empty() {
                LLVMAddAttributeAtIndex(
                    lf,
                    fi,
                    ll::string_attr(self.ctx, "target-features", features),
                );
            }
            if control.contains(FunctionControl::DONT_INLINE) && kernel.is_none() {
                LLVMAddAttributeAtIndex(lf, fi, ll::enum_attr(self.ctx, "noinline", 0));
            }
            if kernel.is_some() {
                let uniform = if self.opts.uniform_work_group_size {
                    "true"
                } else {
                    "false"
                };
                LLVMAddAttributeAtIndex(
                    lf,
                    fi,
                    ll::string_attr(self.ctx, "uniform-work-group-size", uniform),
                );
            }
            for (i, (p, &pty)) in params.iter().zip(&fparams).enumerate() {
                let pid = p.result_id()?;
                if !self.same(p.result_type()?, pty) {
                    return Err(p.err("the parameter's type is not the function type's"));
                }
                self.param_attributes(lf, i as u32 + 1, pid, pty)?;
            }
            if let Some(target) = &alias {
                self.alias_body(lf, target, ret)?;
            }
            self.claim(id)?;
            let params = params
                .iter()
                .map(|p| p.result_id())
                .collect::<Result<Vec<_>>>()?;
            self.fns.insert(
                id,
                Func {
                    llvm: lf,
                    fn_type,
                    ret,
                    params,
                },
            );
        }
        Ok(())
    }

    /// The body of a function standing for library function `target`.
    unsafe fn alias_body(&mut self, f: LLVMValueRef, target: &str, ret: Id) -> Result<()> {
        let allocas = LLVMAppendBasicBlockInContext(self.ctx, f, c"entry".as_ptr());
        let body = LLVMAppendBasicBlockInContext(self.ctx, f, c"".as_ptr());
        self.cur = Some(FnState {
            llvm: f,
            allocas,
            blocks: HashMap::new(),
            phis: Vec::new(),
            locals: Vec::new(),
            block: 0,
        });
        LLVMPositionBuilderAtEnd(self.b, body);
        let args: Vec<LLVMValueRef> = (0..LLVMCountParams(f))
            .map(|i| LLVMGetParam(f, i))
            .collect();
        let void = matches!(self.kind(ret)?, Kind::Void);
        let r = self.call_library(target, &args, (!void).then(|| self.llty(ret)).transpose()?);
        self.cur = None;
        let r = r?;
        if void {
            LLVMBuildRetVoid(self.b);
        } else {
            LLVMBuildRet(self.b, r);
        }
        LLVMPositionBuilderAtEnd(self.b, allocas);
        LLVMBuildBr(self.b, body);
        Ok(())
    }

    unsafe fn param_attributes(
        &mut self,
        f: LLVMValueRef,
        at: u32,
        pid: Id,
        pty: Id,
    ) -> Result<()> {
        let pointee = self.pointer(pty).map(|p| p.1);
        for a in self.deco.param_attrs(pid) {
            let attr = match (a, pointee) {
                (Fpa::Zext, None) => ll::enum_attr(self.ctx, "zeroext", 0),
                (Fpa::Sext, None) => ll::enum_attr(self.ctx, "signext", 0),
                (Fpa::ByVal, Some(p)) if self.is_sized(p) => {
                    ll::type_attr(self.ctx, "byval", self.llty(p)?)
                }
                (Fpa::Sret, Some(p)) if self.is_sized(p) => {
                    ll::type_attr(self.ctx, "sret", self.llty(p)?)
                }
                (Fpa::NoAlias, Some(_)) => ll::enum_attr(self.ctx, "noalias", 0),
                (Fpa::NoWrite, Some(_)) => ll::enum_attr(self.ctx, "readonly", 0),
                (Fpa::NoReadWrite, Some(_)) => ll::enum_attr(self.ctx, "readnone", 0),
                _ => continue,
            };
            LLVMAddAttributeAtIndex(f, at, attr);
        }
        if let (Some(a), Some(_)) = (
            self.deco.literal(pid, rspirv::spirv::Decoration::Alignment),
            pointee,
        ) {
            if a.is_power_of_two() {
                LLVMAddAttributeAtIndex(f, at, ll::enum_attr(self.ctx, "align", a as u64));
            }
        }
        Ok(())
    }

    pub fn body(&mut self, f: &[Inst]) -> Result<()> {
        let id = f[0].result_id()?;
        let func = self
            .fns
            .get(&id)
            .cloned()
            .ok_or_else(|| f[0].err("no prototype"))?;
        let labels: Vec<&Inst> = f.iter().filter(|i| i.op() == Op::Label).collect();
        if labels.is_empty() {
            return Ok(());
        }
        // SAFETY: blocks and values of the function being translated.
        unsafe {
            let allocas = LLVMAppendBasicBlockInContext(self.ctx, func.llvm, c"entry".as_ptr());
            self.cur = Some(FnState {
                llvm: func.llvm,
                allocas,
                blocks: HashMap::new(),
                phis: Vec::new(),
                locals: Vec::new(),
                block: 0,
            });
            let result = self.body_blocks(f, &func, &labels);
            self.drop_unused_builtin_vectors();
            self.builtin_parts.clear();
            // Forget this function's ids whatever happened.
            let state = self.cur.take();
            if let Some(s) = &state {
                for l in &s.locals {
                    self.values.remove(l);
                }
            }
            result?;
            let s = state.ok_or_else(|| f[0].err("no function state"))?;
            let first = s.blocks.get(&labels[0].result_id()?).copied();
            LLVMPositionBuilderAtEnd(self.b, s.allocas);
            if let Some(bb) = first {
                LLVMBuildBr(self.b, bb);
            }
        }
        Ok(())
    }

    unsafe fn body_blocks(&mut self, f: &[Inst], func: &Func, labels: &[&Inst]) -> Result<()> {
        for l in labels {
            self.enter(l);
            let lid = l.result_id()?;
            self.claim(lid)?;
            let bb = LLVMAppendBasicBlockInContext(self.ctx, func.llvm, c"".as_ptr());
            if let Some(s) = self.cur.as_mut() {
                s.blocks.insert(lid, bb);
            }
        }
        let mut param = 0;
        let mut terminated = true;
        for inst in &f[1..] {
            self.enter(inst);
            match inst.op() {
                Op::FunctionParameter => {
                    if param >= LLVMCountParams(func.llvm)
                        || self.cur.as_ref().is_some_and(|s| s.block != 0)
                    {
                        return Err(inst.err(
                            "a parameter past the function type's, or after the first block",
                        ));
                    }
                    let pid = inst.result_id()?;
                    let v = LLVMGetParam(func.llvm, param);
                    param += 1;
                    let ty = inst.result_type()?;
                    if let Some(n) = self.names.get(&pid) {
                        let c = cstr(n);
                        LLVMSetValueName2(v, c.as_ptr(), n.len());
                    }
                    self.define_ll(pid, v, ty)?;
                }
                Op::Label => {
                    if !terminated {
                        return Err(inst.err("the previous block has no terminator"));
                    }
                    let lid = inst.result_id()?;
                    let bb = self.cur.as_ref().and_then(|s| s.blocks.get(&lid).copied());
                    let bb = bb.ok_or_else(|| inst.err("unknown block"))?;
                    LLVMPositionBuilderAtEnd(self.b, bb);
                    if let Some(s) = self.cur.as_mut() {
                        s.block = lid;
                    }
                    terminated = false;
                }
                Op::FunctionEnd => {
                    if !terminated {
                        return Err(inst.err("the last block has no terminator"));
                    }
                }
                _ => {
                    if terminated {
                        return Err(inst.err("the instruction is outside any block"));
                    }
                    self.instruction(inst)?;
                    self.result_decorations(inst)?;
                    terminated = is_terminator(inst.op());
                }
            }
        }
        self.complete_phis()
    }

    unsafe fn complete_phis(&mut self) -> Result<()> {
        let phis = self
            .cur
            .as_mut()
            .map(|s| std::mem::take(&mut s.phis))
            .unwrap_or_default();
        for (inst, phi) in phis {
            self.enter(&inst);
            let ty = inst.result_type()?;
            let n = inst.len();
            if n % 2 != 0 {
                return Err(inst.err("the operands are not value and block pairs"));
            }
            for k in (0..n).step_by(2) {
                let v = self.val_of(inst.id(k)?, ty)?;
                let parent = inst.id(k + 1)?;
                let bb = self
                    .cur
                    .as_ref()
                    .and_then(|s| s.blocks.get(&parent).copied())
                    .ok_or_else(|| {
                        inst.err(format!("%{parent} is not a block of this function"))
                    })?;
                // A switch may reach the block from one parent twice: LLVM
                // wants an entry for each edge, SPIR-V gives one per parent.
                let here = LLVMGetInstructionParent(phi);
                let term = LLVMGetBasicBlockTerminator(bb);
                let edges = if term.is_null() {
                    1
                } else {
                    (0..LLVMGetNumSuccessors(term))
                        .filter(|&i| LLVMGetSuccessor(term, i) == here)
                        .count()
                        .max(1)
                };
                for _ in 0..edges {
                    let mut vs = [v];
                    let mut bs = [bb];
                    LLVMAddIncoming(phi, vs.as_mut_ptr(), bs.as_mut_ptr(), 1);
                }
            }
        }
        Ok(())
    }

    /// The LLVM block of label `id` in the function being translated.
    pub fn block(&self, id: Id) -> Result<LLVMBasicBlockRef> {
        self.cur
            .as_ref()
            .and_then(|s| s.blocks.get(&id).copied())
            .ok_or_else(|| self.fail(format!("%{id} is not a block of this function")))
    }
}

pub(crate) fn is_terminator(op: Op) -> bool {
    matches!(
        op,
        Op::Branch
            | Op::BranchConditional
            | Op::Switch
            | Op::Return
            | Op::ReturnValue
            | Op::Unreachable
            | Op::Kill
            | Op::TerminateInvocation
    )
}
