//! The translator's state and its walk over the module: annotations and
//! module checks first, then types, constants and variables, then every
//! function's prototype, then their bodies, then the kernels' metadata.

use crate::binary::{Inst, Parsed};
use crate::decorations::{Decorations, Id};
use crate::error::{Error, Result};
use crate::types::Type;
use crate::Options;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::LLVMTargetDataRef;
use rspirv::spirv::{BuiltIn, Op};
use std::collections::{HashMap, HashSet};

/// A value an id names.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Value {
    /// An LLVM value of SPIR-V type `ty`.
    Ll { v: LLVMValueRef, ty: Id },
    /// A pointer to a built-in `Input` variable: loads from it become calls
    /// of the work-item functions.
    Builtin { var: BuiltIn, ty: Id },
    /// A pointer to component `index` of a built-in variable.
    BuiltinElem {
        var: BuiltIn,
        index: LLVMValueRef,
        ty: Id,
    },
}

/// An LLVM value and its SPIR-V type.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Val {
    pub v: LLVMValueRef,
    pub ty: Id,
}

/// An `OpExtInstImport`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ExtSet {
    OpenClStd,
    /// `NonSemantic.DebugPrintf`: its `DebugPrintf` is OpenCL C's printf.
    DebugPrintf,
    /// A non-semantic or debug-info set: its instructions are dropped.
    Ignored,
}

/// A declaration of SPV_INTEL_memory_access_aliasing, as LLVM metadata.
#[derive(Debug, Clone, Copy)]
pub(crate) enum AliasNode {
    Domain(llvm_sys::prelude::LLVMMetadataRef),
    Scope(llvm_sys::prelude::LLVMMetadataRef),
    List(llvm_sys::prelude::LLVMMetadataRef),
}

/// A function: its LLVM function and SPIR-V function type.
#[derive(Debug, Clone)]
pub(crate) struct Func {
    pub llvm: LLVMValueRef,
    pub fn_type: Id,
    pub ret: Id,
    /// The parameters' ids (their decorations are the arguments').
    pub params: Vec<Id>,
}

/// An `OpEntryPoint Kernel`.
#[derive(Debug, Clone)]
pub(crate) struct EntryPoint {
    pub function: Id,
    pub name: String,
    pub at: usize,
}

/// What is live while one function is translated.
pub(crate) struct FnState {
    pub llvm: LLVMValueRef,
    /// The block allocas go in, before the function's first block.
    pub allocas: LLVMBasicBlockRef,
    pub blocks: HashMap<Id, LLVMBasicBlockRef>,
    /// Phis whose incoming values are added once every block is done.
    pub phis: Vec<(Inst, LLVMValueRef)>,
    /// Ids defined in this function, forgotten after it.
    pub locals: Vec<Id>,
    /// The SPIR-V block being translated.
    pub block: Id,
}

pub(crate) struct Tr<'a> {
    pub ctx: LLVMContextRef,
    pub m: LLVMModuleRef,
    pub b: LLVMBuilderRef,
    pub td: LLVMTargetDataRef,
    pub opts: &'a Options<'a>,
    pub bound: u32,
    pub types: HashMap<Id, Type>,
    pub values: HashMap<Id, Value>,
    pub fns: HashMap<Id, Func>,
    pub deco: Decorations,
    pub names: HashMap<Id, String>,
    pub strings: HashMap<Id, String>,
    pub ext_sets: HashMap<Id, ExtSet>,
    /// Alias domains, scopes and scope lists (`aliasing.rs`).
    pub alias_nodes: HashMap<Id, AliasNode>,
    pub entry_points: Vec<EntryPoint>,
    pub modes: Vec<Inst>,
    /// Ids that are labels, decoration groups or otherwise taken.
    pub taken: HashSet<Id>,
    pub cur: Option<FnState>,
    /// The instruction being translated, for errors.
    pub at: (usize, String),
    /// A function whose only use is to hold instructions while constants fold.
    pub scratch: Option<LLVMValueRef>,
    /// The components of each load of a built-in vector, by the load's id:
    /// a constant extract takes one directly.
    pub builtin_parts: HashMap<Id, Vec<LLVMValueRef>>,
    /// The vectors built for those loads, dropped at the function's end
    /// where unused.
    pub builtin_loads: Vec<(LLVMValueRef, Vec<LLVMValueRef>)>,
}

impl<'a> Tr<'a> {
    pub fn new(ctx: LLVMContextRef, m: LLVMModuleRef, opts: &'a Options<'a>, p: &Parsed) -> Self {
        // SAFETY: the module is live; the builder is disposed of in Drop.
        let (b, td) = unsafe {
            (
                LLVMCreateBuilderInContext(ctx),
                llvm_sys::target::LLVMGetModuleDataLayout(m),
            )
        };
        Tr {
            ctx,
            m,
            b,
            td,
            opts,
            bound: p.bound,
            types: HashMap::new(),
            values: HashMap::new(),
            fns: HashMap::new(),
            deco: Decorations::default(),
            names: HashMap::new(),
            strings: HashMap::new(),
            ext_sets: HashMap::new(),
            alias_nodes: HashMap::new(),
            entry_points: Vec::new(),
            modes: Vec::new(),
            taken: HashSet::new(),
            cur: None,
            at: (0, "module".into()),
            scratch: None,
            builtin_parts: HashMap::new(),
            builtin_loads: Vec::new(),
        }
    }

    /// An error at the instruction being translated.
    pub fn fail(&self, reason: impl Into<String>) -> Error {
        Error::new(self.at.0, self.at.1.clone(), reason)
    }

    pub fn enter(&mut self, inst: &Inst) {
        self.at = (inst.offset, format!("Op{}", inst.inst.class.opname));
    }

    /// Claims `id` for a definition: in bounds and not yet defined.
    pub fn claim(&mut self, id: Id) -> Result<()> {
        if id == 0 || id >= self.bound {
            return Err(self.fail(format!("id %{id} is outside the bound {}", self.bound)));
        }
        if !self.taken.insert(id) {
            return Err(self.fail(format!("id %{id} is defined twice")));
        }
        if let Some(f) = self.cur.as_mut() {
            f.locals.push(id);
        }
        Ok(())
    }

    pub fn define(&mut self, id: Id, v: Value) -> Result<()> {
        self.claim(id)?;
        self.values.insert(id, v);
        Ok(())
    }

    pub fn define_ll(&mut self, id: Id, v: LLVMValueRef, ty: Id) -> Result<()> {
        self.define(id, Value::Ll { v, ty })
    }

    pub fn lookup(&self, id: Id) -> Result<Value> {
        self.values.get(&id).copied().ok_or_else(|| {
            if id >= self.bound {
                self.fail(format!("id %{id} is outside the bound {}", self.bound))
            } else {
                self.fail(format!("%{id} is not a value defined before this use"))
            }
        })
    }

    /// The LLVM value of `id` (a built-in variable's pointer is made a real
    /// one first).
    pub fn val(&mut self, id: Id) -> Result<Val> {
        match self.lookup(id)? {
            Value::Ll { v, ty } => Ok(Val { v, ty }),
            Value::Builtin { .. } | Value::BuiltinElem { .. } => self.materialize_builtin(id),
        }
    }

    /// The LLVM value `id` names, if it is one already.
    pub fn llvm_of(&self, id: Id) -> Option<LLVMValueRef> {
        match self.values.get(&id)? {
            Value::Ll { v, .. } => Some(*v),
            _ => None,
        }
    }

    /// `id`'s value, which must be of type `ty`.
    pub fn val_of(&mut self, id: Id, ty: Id) -> Result<LLVMValueRef> {
        let v = self.val(id)?;
        if !self.same(v.ty, ty) {
            return Err(self.fail(format!(
                "%{id} is of type %{}, not the expected %{ty}",
                v.ty
            )));
        }
        Ok(v.v)
    }

    /// An integer constant's value, zero-extended.
    pub fn const_u64(&self, id: Id) -> Option<u64> {
        match self.values.get(&id)? {
            // SAFETY: the value is live in the translator's context.
            Value::Ll { v, ty } => unsafe {
                if LLVMIsAConstantInt(*v).is_null() || self.int_bits(*ty).is_none() {
                    None
                } else {
                    Some(LLVMConstIntGetZExtValue(*v))
                }
            },
            _ => None,
        }
    }

    /// Runs the whole translation.
    pub fn run(&mut self, insts: &[Inst]) -> Result<()> {
        let first_fn = insts
            .iter()
            .position(|i| i.op() == Op::Function)
            .unwrap_or(insts.len());
        let (globals, functions) = insts.split_at(first_fn);
        for inst in globals {
            self.enter(inst);
            self.preamble(inst)?;
        }
        self.check_module(insts)?;
        self.make_scratch();
        for inst in globals {
            self.enter(inst);
            self.global(inst)?;
        }
        let bodies = split_functions(functions)?;
        for f in &bodies {
            self.enter(&f[0]);
            self.prototype(f)?;
        }
        for f in &bodies {
            self.body(f)?;
        }
        self.drop_scratch();
        self.kernels()?;
        Ok(())
    }

    /// Debug, annotation and mode-setting instructions.
    fn preamble(&mut self, inst: &Inst) -> Result<()> {
        match inst.op() {
            Op::Name => {
                let id = inst.id(0)?;
                self.names.insert(id, inst.string(1)?.to_string());
            }
            Op::String => {
                let id = inst.result_id()?;
                self.claim(id)?;
                self.strings.insert(id, inst.string(0)?.to_string());
            }
            Op::DecorationGroup => {
                self.claim(inst.result_id()?)?;
            }
            Op::Decorate
            | Op::DecorateId
            | Op::DecorateString
            | Op::MemberDecorate
            | Op::MemberDecorateString
            | Op::GroupDecorate
            | Op::GroupMemberDecorate => self.deco.add(inst)?,
            Op::EntryPoint => self.entry_point(inst)?,
            Op::ExecutionMode | Op::ExecutionModeId => self.modes.push(inst.clone()),
            Op::ExtInstImport => {
                let id = inst.result_id()?;
                let name = inst.string(0)?;
                let set = crate::module_checks::ext_set(name).ok_or_else(|| {
                    inst.err(format!(
                        "extended instruction set \"{name}\" is not supported"
                    ))
                })?;
                self.claim(id)?;
                self.ext_sets.insert(id, set);
            }
            _ => {}
        }
        Ok(())
    }

    fn make_scratch(&mut self) {
        // SAFETY: a void() function in the module, deleted by drop_scratch.
        unsafe {
            let fty = LLVMFunctionType(crate::ll::void(self.ctx), std::ptr::null_mut(), 0, 0);
            let f = LLVMAddFunction(self.m, c"spirv.fold".as_ptr(), fty);
            let bb = LLVMAppendBasicBlockInContext(self.ctx, f, c"".as_ptr());
            LLVMPositionBuilderAtEnd(self.b, bb);
            self.scratch = Some(f);
        }
    }

    pub fn drop_scratch(&mut self) {
        if let Some(f) = self.scratch.take() {
            // SAFETY: nothing outside the scratch function uses its instructions.
            unsafe { LLVMDeleteFunction(f) }
        }
    }
}

impl Drop for Tr<'_> {
    fn drop(&mut self) {
        self.drop_scratch();
        // SAFETY: the builder is ours.
        unsafe { LLVMDisposeBuilder(self.b) }
    }
}

/// The instructions of each function, `OpFunction` to `OpFunctionEnd`.
fn split_functions(insts: &[Inst]) -> Result<Vec<Vec<Inst>>> {
    let mut out = Vec::new();
    let mut cur: Option<Vec<Inst>> = None;
    for inst in insts {
        match (inst.op(), cur.as_mut()) {
            (Op::Function, None) => cur = Some(vec![inst.clone()]),
            (Op::Function, Some(_)) => return Err(inst.err("a function starts inside another")),
            (Op::FunctionEnd, Some(f)) => {
                f.push(inst.clone());
                out.push(cur.take().unwrap_or_default());
            }
            (_, Some(f)) => f.push(inst.clone()),
            (Op::Line | Op::NoLine | Op::ExtInst | Op::Nop, None) => {}
            (_, None) => return Err(inst.err("only functions may follow the first function")),
        }
    }
    if let Some(f) = cur {
        return Err(f[0].err("the function has no OpFunctionEnd"));
    }
    Ok(out)
}
