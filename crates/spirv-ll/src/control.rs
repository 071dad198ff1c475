//! Control flow: phis, branches, switches, returns and function calls.

use crate::binary::Inst;
use crate::error::Result;
use crate::ll::NONAME;
use crate::translator::Tr;
use crate::types::Kind;
use llvm_sys::core::*;
use rspirv::dr::Operand;
use rspirv::spirv::Op;

impl Tr<'_> {
    pub fn phi(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        if !self.is_sized(ty) {
            return Err(inst.err("the result type has no value"));
        }
        // SAFETY: a phi of a sized type; its incoming values come once all
        // blocks are done.
        let phi = unsafe { LLVMBuildPhi(self.b, self.llty(ty)?, NONAME) };
        if let Some(s) = self.cur.as_mut() {
            s.phis.push((inst.clone(), phi));
        }
        self.set(inst, phi)
    }

    pub fn terminator(&mut self, inst: &Inst) -> Result<()> {
        let b = self.b;
        // SAFETY: branch targets are blocks of this function; values are
        // checked against the types the instruction takes.
        unsafe {
            match inst.op() {
                Op::Branch => {
                    let t = self.block(inst.id(0)?)?;
                    LLVMBuildBr(b, t);
                }
                Op::BranchConditional => {
                    let c = self.arg_any(inst, 0)?;
                    if !matches!(self.kind(c.ty)?, Kind::Bool) {
                        return Err(inst.err("the condition is not a bool"));
                    }
                    let t = self.block(inst.id(1)?)?;
                    let f = self.block(inst.id(2)?)?;
                    LLVMBuildCondBr(b, c.v, t, f);
                }
                Op::Switch => {
                    let s = self.arg_any(inst, 0)?;
                    let Kind::Int(w) = *self.kind(s.ty)? else {
                        return Err(inst.err("the selector is not a scalar integer"));
                    };
                    let default = self.block(inst.id(1)?)?;
                    let mut cases = Vec::new();
                    let mut n = 2;
                    while n < inst.len() {
                        let value = match inst.get(n) {
                            Some(Operand::LiteralBit32(v)) => *v as u64,
                            Some(Operand::LiteralBit64(v)) => *v,
                            _ => return Err(inst.err(format!("operand {n} is not a case literal"))),
                        };
                        let target = self.block(inst.id(n + 1)?)?;
                        cases.push((value, target));
                        n += 2;
                    }
                    let sw = LLVMBuildSwitch(b, s.v, default, cases.len() as u32);
                    let mut seen = std::collections::HashSet::new();
                    for (value, target) in cases {
                        let value = if w < 64 {
                            value & ((1u64 << w) - 1)
                        } else {
                            value
                        };
                        if !seen.insert(value) {
                            return Err(inst.err(format!("case {value} appears twice")));
                        }
                        LLVMAddCase(sw, self.scalar_const(s.ty, value)?, target);
                    }
                }
                Op::Return => {
                    let f = self.current_function()?;
                    if !matches!(self.kind(f.ret)?, Kind::Void) {
                        return Err(inst.err("the function returns a value"));
                    }
                    LLVMBuildRetVoid(b);
                }
                Op::ReturnValue => {
                    let f = self.current_function()?;
                    let v = self.arg(inst, 0, f.ret)?;
                    LLVMBuildRet(b, v);
                }
                _ => {
                    LLVMBuildUnreachable(b);
                }
            }
        }
        Ok(())
    }

    fn current_function(&self) -> Result<crate::translator::Func> {
        let llvm = self
            .cur
            .as_ref()
            .map(|s| s.llvm)
            .ok_or_else(|| self.fail("not inside a function"))?;
        self.fns
            .values()
            .find(|f| f.llvm == llvm)
            .cloned()
            .ok_or_else(|| self.fail("not inside a function"))
    }

    pub fn function_call(&mut self, inst: &Inst) -> Result<()> {
        let (id, ty) = self.res(inst)?;
        let callee = inst.id(0)?;
        let f = self
            .fns
            .get(&callee)
            .cloned()
            .ok_or_else(|| inst.err(format!("%{callee} is not a function")))?;
        if !self.same(f.ret, ty) {
            return Err(inst.err("the result type is not the function's return type"));
        }
        let Kind::Function(_, params) = self.kind(f.fn_type)?.clone() else {
            return Err(inst.err("the callee has no function type"));
        };
        let ids = inst.ids(1)?;
        if ids.len() != params.len() {
            return Err(inst.err(format!(
                "{} arguments for {} parameters",
                ids.len(),
                params.len()
            )));
        }
        let mut args = Vec::new();
        for (&a, &p) in ids.iter().zip(&params) {
            args.push(self.val_of(a, p)?);
        }
        // SAFETY: arguments of the parameters' types; the call takes the
        // callee's calling convention.
        unsafe {
            let call = crate::ll::call(self.b, self.llty(f.fn_type)?, f.llvm, &args);
            LLVMSetInstructionCallConv(call, LLVMGetFunctionCallConv(f.llvm));
            if matches!(self.kind(ty)?, Kind::Void) {
                self.claim(id)
            } else {
                self.define_ll(id, call, ty)
            }
        }
    }
}
