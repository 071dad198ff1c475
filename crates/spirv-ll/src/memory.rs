//! Memory: function variables, loads and stores (with their memory
//! operands), access chains, copies and pointer arithmetic.

use crate::aliasing::AliasLists;
use crate::binary::Inst;
use crate::decorations::Id;
use crate::error::Result;
use crate::ll::{self, NONAME};
use crate::translator::{Tr, Value};
use crate::types::{Kind, MAX_OBJECT_BYTES};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::LLVMABIAlignmentOfType;
use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, MemoryAccess, Op, StorageClass};

/// The memory operands of a load, store or copy from operand `n`: its
/// mask, then the mask's parameters in the order of its bits.
pub(crate) struct MemoryOperands {
    pub mask: MemoryAccess,
    pub align: Option<u32>,
    pub lists: AliasLists,
    /// Where the operands after these start (a copy's second set).
    pub end: usize,
}

impl MemoryOperands {
    pub fn read(inst: &Inst, n: usize) -> Result<Self> {
        let mut ops = MemoryOperands {
            mask: MemoryAccess::NONE,
            align: None,
            lists: AliasLists::default(),
            end: n,
        };
        let Some(Operand::MemoryAccess(m)) = inst.get(n) else {
            return Ok(ops);
        };
        ops.mask = *m;
        let mut at = n + 1;
        let next_id = |at: &mut usize| {
            *at += 1;
            inst.id(*at - 1)
        };
        if m.contains(MemoryAccess::ALIGNED) {
            let a = inst.literal(at)?;
            if !a.is_power_of_two() {
                return Err(inst.err(format!("alignment {a} is not a power of two")));
            }
            ops.align = Some(a);
            at += 1;
        }
        // The Vulkan memory model's scopes, which the OpenCL one lacks
        // (a module declaring them is refused by its capability).
        for bit in [
            MemoryAccess::MAKE_POINTER_AVAILABLE,
            MemoryAccess::MAKE_POINTER_VISIBLE,
        ] {
            if m.contains(bit) {
                next_id(&mut at)?;
            }
        }
        if m.contains(MemoryAccess::ALIAS_SCOPE_INTEL_MASK) {
            ops.lists.scope = Some(next_id(&mut at)?);
        }
        if m.contains(MemoryAccess::NO_ALIAS_INTEL_MASK) {
            ops.lists.no_alias = Some(next_id(&mut at)?);
        }
        ops.end = at;
        Ok(ops)
    }
}

impl Tr<'_> {
    pub fn local_variable(&mut self, inst: &Inst) -> Result<()> {
        let (id, ty) = self.res(inst)?;
        match inst.get(0) {
            Some(Operand::StorageClass(StorageClass::Function)) => {}
            _ => return Err(inst.err("a variable in a function must be of storage class Function")),
        }
        let (sc, pointee) = self
            .pointer(ty)
            .ok_or_else(|| inst.err("the result type is not a pointer"))?;
        if sc != StorageClass::Function || !self.is_sized(pointee) {
            return Err(inst.err("the result type is not a Function pointer to a sized type"));
        }
        if self.size_of(pointee)? > MAX_OBJECT_BYTES {
            return Err(inst.err("the variable is too large"));
        }
        let init = match inst.get(1) {
            Some(_) => Some(self.arg(inst, 1, pointee)?),
            None => None,
        };
        let lt = self.llty(pointee)?;
        let slot = self.alloca(lt)?;
        // SAFETY: an alloca of the variable's type; a value of its type.
        unsafe {
            if let Some(a) = self.deco.literal(id, Decoration::Alignment) {
                if a.is_power_of_two() {
                    LLVMSetAlignment(slot, a.max(LLVMABIAlignmentOfType(self.td, lt)));
                }
            }
            if let Some(n) = self.names.get(&id) {
                let c = ll::cstr(n);
                LLVMSetValueName2(slot, c.as_ptr(), n.len());
            }
            if let Some(v) = init {
                LLVMBuildStore(self.b, v, slot);
            }
        }
        self.define_ll(id, slot, ty)
    }

    /// Applies memory operands (from operand `n`) and the pointer's own
    /// decorations to a load or store.
    unsafe fn memory_access(
        &self,
        inst: &Inst,
        n: usize,
        ptr: Id,
        access: LLVMValueRef,
    ) -> Result<()> {
        let ops = MemoryOperands::read(inst, n)?;
        let volatile =
            self.deco.has(ptr, Decoration::Volatile) || ops.mask.contains(MemoryAccess::VOLATILE);
        if let Some(a) = ops.align {
            LLVMSetAlignment(access, a);
        }
        if ops.mask.contains(MemoryAccess::NONTEMPORAL) {
            let kind = LLVMGetMDKindIDInContext(self.ctx, c"nontemporal".as_ptr(), 11);
            let mut one = [ll::md_value(ll::i32c(self.ctx, 1))];
            let node = LLVMMDNodeInContext2(self.ctx, one.as_mut_ptr(), 1);
            LLVMSetMetadata(access, kind, LLVMMetadataAsValue(self.ctx, node));
        }
        self.set_alias_lists(inst, access, ops.lists)?;
        if volatile {
            LLVMSetVolatile(access, 1);
        }
        Ok(())
    }

    fn pointee_of(&self, inst: &Inst, ptr_ty: Id) -> Result<(StorageClass, Id)> {
        self.pointer(ptr_ty)
            .ok_or_else(|| inst.err("the pointer operand is not a pointer"))
    }

    pub fn load(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        let pid = inst.id(0)?;
        match self.lookup(pid)? {
            Value::Builtin { var, ty: pty } => {
                let (_, pointee) = self.pointee_of(inst, pty)?;
                if !self.same(pointee, ty) {
                    return Err(inst.err("the result type is not the pointer's pointee type"));
                }
                let (v, parts) = self.load_builtin_parts(var, ty)?;
                if !parts.is_empty() {
                    self.builtin_parts.insert(inst.result_id()?, parts.clone());
                    self.builtin_loads.push((v, parts));
                }
                return self.set(inst, v);
            }
            Value::BuiltinElem {
                var,
                index,
                ty: pty,
            } => {
                let (_, pointee) = self.pointee_of(inst, pty)?;
                if !self.same(pointee, ty) {
                    return Err(inst.err("the result type is not the pointer's pointee type"));
                }
                let v = self.load_builtin_elem(var, index, ty)?;
                return self.set(inst, v);
            }
            Value::Ll { .. } => {}
        }
        let p = self.val(pid)?;
        let (_, pointee) = self.pointee_of(inst, p.ty)?;
        if !self.same(pointee, ty) || !self.is_sized(ty) {
            return Err(inst.err("the result type is not the pointer's (sized) pointee type"));
        }
        // SAFETY: a load of the pointee type through a pointer.
        unsafe {
            let v = LLVMBuildLoad2(self.b, self.llty(ty)?, p.v, NONAME);
            self.memory_access(inst, 1, pid, v)?;
            self.set(inst, v)
        }
    }

    pub fn store(&mut self, inst: &Inst) -> Result<()> {
        let pid = inst.id(0)?;
        if matches!(
            self.lookup(pid)?,
            Value::Builtin { .. } | Value::BuiltinElem { .. }
        ) {
            return Err(inst.err("a built-in variable cannot be written"));
        }
        let p = self.val(pid)?;
        let (sc, pointee) = self.pointee_of(inst, p.ty)?;
        if sc == StorageClass::UniformConstant {
            return Err(inst.err("UniformConstant memory cannot be written"));
        }
        let v = self.arg(inst, 1, pointee)?;
        // SAFETY: a store of a value of the pointee type.
        unsafe {
            let s = LLVMBuildStore(self.b, v, p.v);
            self.memory_access(inst, 2, pid, s)
        }
    }

    pub fn access_chain(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        let (rsc, rpointee) = self
            .pointer(ty)
            .ok_or_else(|| inst.err("the result type is not a pointer"))?;
        let base_id = inst.id(0)?;
        let ptr_chain = matches!(inst.op(), Op::PtrAccessChain | Op::InBoundsPtrAccessChain);
        let first_index = if ptr_chain { 2 } else { 1 };
        let index_ids = inst.ids(first_index)?;
        // A component of a built-in variable stays a built-in.
        if let Value::Builtin { var, ty: bty } = self.lookup(base_id)? {
            if !ptr_chain && index_ids.len() == 1 {
                let (_, bp) = self.pointee_of(inst, bty)?;
                let elem = self.scalar_of(bp)?;
                if !self.same(elem, rpointee) {
                    return Err(
                        inst.err("the result's pointee is not the built-in's component type")
                    );
                }
                let idx = self.arg_any(inst, 1)?;
                if self.int_bits(idx.ty).is_none() || self.width_of(idx.ty)? != 1 {
                    return Err(inst.err("the index is not a scalar integer"));
                }
                return self.define(
                    inst.result_id()?,
                    Value::BuiltinElem {
                        var,
                        index: idx.v,
                        ty,
                    },
                );
            }
        }
        let base = self.val(base_id)?;
        let (sc, mut cur) = self.pointee_of(inst, base.ty)?;
        if sc != rsc {
            return Err(inst.err("the result's storage class is not the base's"));
        }
        let ctx = self.ctx;
        // SAFETY: each index is checked against the type it steps into;
        // struct indices are i32 constants, others i64.
        unsafe {
            let i64t = LLVMInt64TypeInContext(ctx);
            let mut idx = Vec::new();
            let wide = |tr: &mut Self, n: usize| -> Result<LLVMValueRef> {
                let v = tr.arg_any(inst, n)?;
                if !matches!(tr.kind(v.ty)?, Kind::Int(_)) {
                    return Err(inst.err(format!("index operand {n} is not a scalar integer")));
                }
                Ok(LLVMBuildSExtOrBitCast(tr.b, v.v, i64t, NONAME))
            };
            if ptr_chain {
                idx.push(wide(self, 1)?);
            } else {
                idx.push(ll::i64c(ctx, 0));
            }
            let source = self.llty(cur)?;
            if !self.is_sized(cur) && !matches!(self.kind(cur)?, Kind::RuntimeArray(_)) {
                return Err(inst.err("the base's pointee type has no size"));
            }
            for (k, &iid) in index_ids.iter().enumerate() {
                let n = first_index + k;
                match self.kind(cur)?.clone() {
                    Kind::Struct(members) => {
                        let c = self.const_u64(iid).ok_or_else(|| {
                            inst.err(format!(
                                "struct index operand {n} is not an integer constant"
                            ))
                        })?;
                        let m = members.get(c as usize).copied().ok_or_else(|| {
                            inst.err(format!("member {c} is past the struct's end"))
                        })?;
                        idx.push(ll::i32c(ctx, c));
                        cur = m;
                    }
                    Kind::Array(e, _) | Kind::RuntimeArray(e) | Kind::Vector(e, _) => {
                        idx.push(wide(self, n)?);
                        cur = e;
                    }
                    _ => {
                        return Err(
                            inst.err(format!("index operand {n} steps into a non-composite type"))
                        )
                    }
                }
            }
            if !self.same(cur, rpointee) {
                return Err(inst.err("the result's pointee type is not the type the indices reach"));
            }
            let inbounds = matches!(
                inst.op(),
                Op::InBoundsAccessChain | Op::InBoundsPtrAccessChain
            );
            let v = if inbounds {
                LLVMBuildInBoundsGEP2(
                    self.b,
                    source,
                    base.v,
                    idx.as_mut_ptr(),
                    idx.len() as u32,
                    NONAME,
                )
            } else {
                LLVMBuildGEP2(
                    self.b,
                    source,
                    base.v,
                    idx.as_mut_ptr(),
                    idx.len() as u32,
                    NONAME,
                )
            };
            self.set(inst, v)
        }
    }

    pub fn copy_memory(&mut self, inst: &Inst) -> Result<()> {
        let dst = self.arg_any(inst, 0)?;
        let src = self.arg_any(inst, 1)?;
        let (dsc, dp) = self.pointee_of(inst, dst.ty)?;
        let (_, sp) = self.pointee_of(inst, src.ty)?;
        if dsc == StorageClass::UniformConstant {
            return Err(inst.err("UniformConstant memory cannot be written"));
        }
        // SAFETY: a memcpy between two pointers, of a checked size.
        unsafe {
            let (size, access_at) = if inst.op() == Op::CopyMemory {
                if !self.same(dp, sp) || !self.is_sized(dp) {
                    return Err(inst.err("the pointee types differ or have no size"));
                }
                (ll::i64c(self.ctx, self.size_of(dp)?), 2)
            } else {
                let s = self.arg_any(inst, 2)?;
                if !matches!(self.kind(s.ty)?, Kind::Int(_)) {
                    return Err(inst.err("the size is not a scalar integer"));
                }
                (
                    LLVMBuildZExtOrBitCast(self.b, s.v, LLVMInt64TypeInContext(self.ctx), NONAME),
                    3,
                )
            };
            // One set of memory operands is the target's and the source's;
            // a second (SPIR-V 1.4) is the source's.
            let target = MemoryOperands::read(inst, access_at)?;
            let source = match inst.get(target.end) {
                Some(Operand::MemoryAccess(_)) => MemoryOperands::read(inst, target.end)?.align,
                _ => target.align,
            };
            let (target_align, source_align) = (target.align.unwrap_or(1), source.unwrap_or(1));
            let copy = LLVMBuildMemCpy(self.b, dst.v, target_align, src.v, source_align, size);
            self.set_alias_lists(inst, copy, target.lists)?;
        }
        Ok(())
    }

    pub fn pointer_ops(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        // SAFETY: checked operand types.
        unsafe {
            let b = self.b;
            let v = match inst.op() {
                Op::SizeOf => {
                    let p = self.arg_any(inst, 0)?;
                    let (_, pointee) = self.pointee_of(inst, p.ty)?;
                    if !matches!(self.kind(ty)?, Kind::Int(_)) {
                        return Err(inst.err("the result is not a scalar integer"));
                    }
                    let size = self.size_of(pointee)?;
                    self.scalar_const(ty, size)?
                }
                Op::GenericPtrMemSemantics => {
                    let p = self.arg_any(inst, 0)?;
                    if self.pointer(p.ty).map(|x| x.0) != Some(StorageClass::Generic) {
                        return Err(inst.err("the operand is not a generic pointer"));
                    }
                    if !matches!(self.kind(ty)?, Kind::Int(32)) {
                        return Err(inst.err("the result is not a 32-bit integer"));
                    }
                    // CLK_LOCAL_MEM_FENCE (1) and CLK_GLOBAL_MEM_FENCE (2) to
                    // WorkgroupMemory (0x100) and CrossWorkgroupMemory (0x200).
                    let f = self.call_library("_Z9get_fencePU9CLgenericv", &[p.v], None)?;
                    let i32t = LLVMInt32TypeInContext(self.ctx);
                    let f = LLVMBuildZExtOrBitCast(b, f, i32t, NONAME);
                    let f = LLVMBuildAnd(b, f, ll::i32c(self.ctx, 3), NONAME);
                    LLVMBuildShl(b, f, ll::i32c(self.ctx, 8), NONAME)
                }
                op => {
                    let a = self.arg_any(inst, 0)?;
                    let (_, pointee) = self.pointee_of(inst, a.ty)?;
                    let c = self.arg(inst, 1, a.ty)?;
                    if op == Op::PtrDiff {
                        if !matches!(self.kind(ty)?, Kind::Int(_)) {
                            return Err(inst.err("the result is not a scalar integer"));
                        }
                        let i64t = LLVMInt64TypeInContext(self.ctx);
                        let x = LLVMBuildPtrToInt(b, a.v, i64t, NONAME);
                        let y = LLVMBuildPtrToInt(b, c, i64t, NONAME);
                        let d = LLVMBuildSub(b, x, y, NONAME);
                        let size = self.size_of(pointee)?.max(1);
                        let q = LLVMBuildExactSDiv(b, d, ll::i64c(self.ctx, size), NONAME);
                        LLVMBuildSExtOrBitCast(b, q, self.llty(ty)?, NONAME)
                    } else {
                        if !matches!(self.kind(ty)?, Kind::Bool) {
                            return Err(inst.err("the result is not a bool"));
                        }
                        let p = if op == Op::PtrEqual {
                            llvm_sys::LLVMIntPredicate::LLVMIntEQ
                        } else {
                            llvm_sys::LLVMIntPredicate::LLVMIntNE
                        };
                        LLVMBuildICmp(b, p, a.v, c, NONAME)
                    }
                }
            };
            self.set(inst, v)
        }
    }
}
