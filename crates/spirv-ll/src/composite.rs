//! Composites and vectors: construct, extract, insert, shuffle, copy.

use crate::binary::Inst;
use crate::decorations::Id;
use crate::error::Result;
use crate::ll::{self, NONAME};
use crate::translator::Tr;
use crate::types::Kind;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use rspirv::spirv::Op;

impl Tr<'_> {
    /// The member types a composite of type `ty` has.
    fn members(&self, ty: Id) -> Result<Vec<Id>> {
        Ok(match self.kind(ty)? {
            Kind::Vector(e, n) => vec![*e; *n as usize],
            Kind::Array(e, n) => vec![*e; *n as usize],
            Kind::Struct(m) => m.clone(),
            _ => return Err(self.fail(format!("%{ty} is not a composite type"))),
        })
    }

    /// Walks literal `indices` into `ty`: the LLVM path (for extractvalue)
    /// up to a vector, the vector component if the last step is into one,
    /// and the type reached.
    fn walk(
        &self,
        inst: &Inst,
        mut ty: Id,
        indices: &[u32],
    ) -> Result<(Vec<u32>, Option<u32>, Id)> {
        let mut path = Vec::new();
        for (k, &i) in indices.iter().enumerate() {
            let kind = self.kind(ty)?.clone();
            match kind {
                Kind::Vector(e, n) => {
                    if i >= n || k + 1 != indices.len() {
                        return Err(inst.err(format!("index {i} is outside the vector")));
                    }
                    return Ok((path, Some(i), e));
                }
                Kind::Array(e, n) => {
                    if i as u64 >= n {
                        return Err(inst.err(format!("index {i} is outside the array")));
                    }
                    ty = e;
                }
                Kind::Struct(m) => {
                    ty = *m
                        .get(i as usize)
                        .ok_or_else(|| inst.err(format!("index {i} is outside the struct")))?;
                }
                _ => return Err(inst.err("an index steps into a non-composite")),
            }
            path.push(i);
        }
        Ok((path, None, ty))
    }

    unsafe fn extract_path(&self, mut v: LLVMValueRef, path: &[u32]) -> LLVMValueRef {
        for &i in path {
            v = LLVMBuildExtractValue(self.b, v, i, NONAME);
        }
        v
    }

    pub fn composite(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        let b = self.b;
        // SAFETY: every index and operand is checked against the type it meets.
        unsafe {
            let v = match inst.op() {
                Op::CopyObject => self.arg(inst, 0, ty)?,
                Op::CopyLogical => {
                    let x = self.arg_any(inst, 0)?;
                    self.logical_copy(inst, x.v, x.ty, ty, 0)?
                }
                Op::CompositeExtract => {
                    let x = self.arg_any(inst, 0)?;
                    let indices = (1..inst.len())
                        .map(|n| inst.literal(n))
                        .collect::<Result<Vec<_>>>()?;
                    let (path, comp, reached) = self.walk(inst, x.ty, &indices)?;
                    // A component of a built-in is its call's value.
                    if let (Some(parts), [i]) =
                        (self.builtin_parts.get(&inst.id(0)?), indices.as_slice())
                    {
                        if let Some(&p) = parts.get(*i as usize).filter(|_| self.same(reached, ty))
                        {
                            return self.set(inst, p);
                        }
                    }
                    if !self.same(reached, ty) {
                        return Err(inst.err("the result type is not the type the indices reach"));
                    }
                    let v = self.extract_path(x.v, &path);
                    match comp {
                        Some(c) => {
                            LLVMBuildExtractElement(b, v, ll::i32c(self.ctx, c as u64), NONAME)
                        }
                        None => v,
                    }
                }
                Op::CompositeInsert => {
                    let object = self.arg_any(inst, 0)?;
                    let x = self.arg(inst, 1, ty)?;
                    let indices = (2..inst.len())
                        .map(|n| inst.literal(n))
                        .collect::<Result<Vec<_>>>()?;
                    let (path, comp, reached) = self.walk(inst, ty, &indices)?;
                    if !self.same(reached, object.ty) {
                        return Err(inst.err("the object is not of the type the indices reach"));
                    }
                    match comp {
                        Some(c) => {
                            let vec = self.extract_path(x, &path);
                            let nv = LLVMBuildInsertElement(
                                b,
                                vec,
                                object.v,
                                ll::i32c(self.ctx, c as u64),
                                NONAME,
                            );
                            if path.is_empty() {
                                nv
                            } else {
                                self.insert_path(x, &path, nv)
                            }
                        }
                        None if path.is_empty() => object.v,
                        None => self.insert_path(x, &path, object.v),
                    }
                }
                Op::CompositeConstruct => self.construct(inst, ty)?,
                Op::VectorExtractDynamic => {
                    let x = self.arg_any(inst, 0)?;
                    let Kind::Vector(e, _) = *self.kind(x.ty)? else {
                        return Err(inst.err("the operand is not a vector"));
                    };
                    if !self.same(e, ty) {
                        return Err(inst.err("the result is not the vector's component type"));
                    }
                    let i = self.arg_any(inst, 1)?;
                    if !matches!(self.kind(i.ty)?, Kind::Int(_)) {
                        return Err(inst.err("the index is not a scalar integer"));
                    }
                    LLVMBuildExtractElement(b, x.v, i.v, NONAME)
                }
                Op::VectorInsertDynamic => {
                    let Kind::Vector(e, _) = *self.kind(ty)? else {
                        return Err(inst.err("the result is not a vector"));
                    };
                    let x = self.arg(inst, 0, ty)?;
                    let c = self.arg(inst, 1, e)?;
                    let i = self.arg_any(inst, 2)?;
                    if !matches!(self.kind(i.ty)?, Kind::Int(_)) {
                        return Err(inst.err("the index is not a scalar integer"));
                    }
                    LLVMBuildInsertElement(b, x, c, i.v, NONAME)
                }
                _ => self.shuffle(inst, ty)?,
            };
            self.set(inst, v)
        }
    }

    /// `v` of type `from` as a value of `to`, a type of the same members
    /// declared apart (`OpCopyLogical`).
    unsafe fn logical_copy(
        &mut self,
        inst: &Inst,
        v: LLVMValueRef,
        from: Id,
        to: Id,
        depth: u32,
    ) -> Result<LLVMValueRef> {
        if self.same(from, to) {
            return Ok(v);
        }
        let (fk, tk) = (self.kind(from)?.clone(), self.kind(to)?.clone());
        let pairs: Vec<(Id, Id)> = match (fk, tk) {
            (Kind::Struct(a), Kind::Struct(b)) if a.len() == b.len() => {
                a.into_iter().zip(b).collect()
            }
            (Kind::Array(a, n), Kind::Array(b, m)) if n == m && n <= 4096 => {
                vec![(a, b); n as usize]
            }
            _ => return Err(inst.err("the operand and result types are not logically the same")),
        };
        if depth > 16 {
            return Err(inst.err("the types nest too deeply"));
        }
        let mut out = LLVMGetPoison(self.llty(to)?);
        for (i, (f, t)) in pairs.into_iter().enumerate() {
            let m = LLVMBuildExtractValue(self.b, v, i as u32, NONAME);
            let m = self.logical_copy(inst, m, f, t, depth + 1)?;
            out = LLVMBuildInsertValue(self.b, out, m, i as u32, NONAME);
        }
        Ok(out)
    }

    unsafe fn insert_path(&self, agg: LLVMValueRef, path: &[u32], v: LLVMValueRef) -> LLVMValueRef {
        if path.len() == 1 {
            return LLVMBuildInsertValue(self.b, agg, v, path[0], NONAME);
        }
        let inner = LLVMBuildExtractValue(self.b, agg, path[0], NONAME);
        let inner = self.insert_path(inner, &path[1..], v);
        LLVMBuildInsertValue(self.b, agg, inner, path[0], NONAME)
    }

    unsafe fn construct(&mut self, inst: &Inst, ty: Id) -> Result<LLVMValueRef> {
        let parts = inst.ids(0)?;
        let t = self.llty(ty)?;
        let b = self.b;
        if let Kind::Vector(e, n) = *self.kind(ty)? {
            // Scalars and vectors of the component type, concatenated.
            let mut v = LLVMGetPoison(t);
            let mut at = 0u32;
            for p in parts {
                let x = self.val(p)?;
                if self.same(x.ty, e) {
                    if at >= n {
                        return Err(inst.err("too many components"));
                    }
                    v = LLVMBuildInsertElement(b, v, x.v, ll::i32c(self.ctx, at as u64), NONAME);
                    at += 1;
                } else if let Kind::Vector(xe, xn) = *self.kind(x.ty)? {
                    if !self.same(xe, e) || at + xn > n {
                        return Err(inst.err("a constituent does not fit the vector"));
                    }
                    for i in 0..xn {
                        let c =
                            LLVMBuildExtractElement(b, x.v, ll::i32c(self.ctx, i as u64), NONAME);
                        v = LLVMBuildInsertElement(b, v, c, ll::i32c(self.ctx, at as u64), NONAME);
                        at += 1;
                    }
                } else {
                    return Err(inst.err(format!("constituent %{p} is not of the component type")));
                }
            }
            if at != n {
                return Err(inst.err("the constituents do not fill the vector"));
            }
            return Ok(v);
        }
        let members = self.members(ty)?;
        if members.len() != parts.len() {
            return Err(inst.err(format!(
                "{} constituents for {} members",
                parts.len(),
                members.len()
            )));
        }
        let mut v = LLVMGetPoison(t);
        for (i, (&p, &m)) in parts.iter().zip(&members).enumerate() {
            let x = self.val_of(p, m)?;
            v = LLVMBuildInsertValue(b, v, x, i as u32, NONAME);
        }
        Ok(v)
    }

    unsafe fn shuffle(&mut self, inst: &Inst, ty: Id) -> Result<LLVMValueRef> {
        let Kind::Vector(e, n) = *self.kind(ty)? else {
            return Err(inst.err("the result is not a vector"));
        };
        let x = self.arg_any(inst, 0)?;
        let y = self.arg_any(inst, 1)?;
        let (Kind::Vector(xe, xn), Kind::Vector(ye, yn)) =
            (self.kind(x.ty)?.clone(), self.kind(y.ty)?.clone())
        else {
            return Err(inst.err("the operands are not vectors"));
        };
        if !self.same(xe, e) || !self.same(ye, e) {
            return Err(inst.err("the operands' components are not the result's"));
        }
        if inst.len() - 2 != n as usize {
            return Err(inst.err("the number of components is not the result's"));
        }
        let b = self.b;
        let mut v = LLVMGetPoison(self.llty(ty)?);
        for k in 0..n {
            let c = inst.literal(k as usize + 2)?;
            let comp = if c == u32::MAX {
                continue;
            } else if c < xn {
                LLVMBuildExtractElement(b, x.v, ll::i32c(self.ctx, c as u64), NONAME)
            } else if c < xn + yn {
                LLVMBuildExtractElement(b, y.v, ll::i32c(self.ctx, (c - xn) as u64), NONAME)
            } else {
                return Err(inst.err(format!("component {c} is outside both vectors")));
            };
            v = LLVMBuildInsertElement(b, v, comp, ll::i32c(self.ctx, k as u64), NONAME);
        }
        Ok(v)
    }
}
