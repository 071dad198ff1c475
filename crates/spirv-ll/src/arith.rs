//! Arithmetic, bitwise, comparison and logical instructions.

use crate::binary::Inst;
use crate::decorations::Id;
use crate::error::Result;
use crate::ll::{self, NONAME};
use crate::translator::Tr;
use crate::types::Kind;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMIntPredicate as IP, LLVMRealPredicate as RP};
use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, FPFastMathMode, Op};

impl Tr<'_> {
    fn need_int(&self, inst: &Inst, ty: Id) -> Result<u32> {
        self.int_bits(ty)
            .ok_or_else(|| inst.err("the result type is not an integer type"))
    }

    fn need_float(&self, inst: &Inst, ty: Id) -> Result<u32> {
        self.float_bits(ty)
            .ok_or_else(|| inst.err("the result type is not a floating-point type"))
    }

    /// `v` (an integer scalar or vector) as an integer of `ty`'s width,
    /// components as `ty`'s.
    pub unsafe fn int_resize(
        &mut self,
        v: LLVMValueRef,
        from: Id,
        ty: Id,
        signed: bool,
    ) -> Result<LLVMValueRef> {
        let (fw, tw) = (self.int_bits(from), self.int_bits(ty));
        let (Some(fw), Some(tw)) = (fw, tw) else {
            return Err(self.fail("an operand is not an integer"));
        };
        if self.width_of(from)? != self.width_of(ty)? {
            return Err(self.fail("the operands' component counts differ"));
        }
        let t = self.llty(ty)?;
        Ok(if fw == tw {
            v
        } else if fw > tw {
            LLVMBuildTrunc(self.b, v, t, NONAME)
        } else if signed {
            LLVMBuildSExt(self.b, v, t, NONAME)
        } else {
            LLVMBuildZExt(self.b, v, t, NONAME)
        })
    }

    /// A scalar of `ty`'s element repeated across `ty` (or itself for a scalar type).
    pub unsafe fn splat(&mut self, v: LLVMValueRef, ty: Id) -> Result<LLVMValueRef> {
        let n = self.width_of(ty)?;
        if n == 1 || LLVMGetTypeKind(LLVMTypeOf(v)) == llvm_sys::LLVMTypeKind::LLVMVectorTypeKind {
            return Ok(v);
        }
        let t = self.llty(ty)?;
        let zero = ll::i32c(self.ctx, 0);
        let one = LLVMBuildInsertElement(self.b, LLVMGetPoison(t), v, zero, NONAME);
        let mask = LLVMConstNull(LLVMVectorType(LLVMInt32TypeInContext(self.ctx), n));
        Ok(LLVMBuildShuffleVector(
            self.b,
            one,
            LLVMGetPoison(t),
            mask,
            NONAME,
        ))
    }

    /// A constant of every component of `ty` (scalar bits).
    pub unsafe fn splat_const(&mut self, ty: Id, bits: u64) -> Result<LLVMValueRef> {
        let e = self.scalar_of(ty)?;
        let c = self.scalar_const(e, bits)?;
        let n = self.width_of(ty)?;
        if n == 1 {
            return Ok(c);
        }
        let mut v = vec![c; n as usize];
        Ok(LLVMConstVector(v.as_mut_ptr(), n))
    }

    unsafe fn float_const(&mut self, ty: Id, x: f64) -> Result<LLVMValueRef> {
        let e = self.scalar_of(ty)?;
        let c = LLVMConstReal(self.llty(e)?, x);
        let n = self.width_of(ty)?;
        if n == 1 {
            return Ok(c);
        }
        let mut v = vec![c; n as usize];
        Ok(LLVMConstVector(v.as_mut_ptr(), n))
    }

    fn wrap_flags(&self, inst: &Inst, v: LLVMValueRef) {
        let Some(id) = inst.inst.result_id else {
            return;
        };
        // SAFETY: an instruction (or constant) of the context; flags only on instructions.
        unsafe {
            if LLVMIsABinaryOperator(v).is_null() {
                return;
            }
            if self.deco.has(id, Decoration::NoSignedWrap) {
                LLVMSetNSW(v, 1);
            }
            if self.deco.has(id, Decoration::NoUnsignedWrap) {
                LLVMSetNUW(v, 1);
            }
        }
    }

    pub fn fast_math(&self, inst: &Inst, v: LLVMValueRef) {
        let Some(id) = inst.inst.result_id else {
            return;
        };
        let Some(d) = self.deco.get(id, Decoration::FPFastMathMode) else {
            return;
        };
        let Some(Operand::FPFastMathMode(m)) = d.args.first() else {
            return;
        };
        let mut f = 0;
        if m.contains(FPFastMathMode::FAST) {
            f = 0x7f;
        }
        if m.contains(FPFastMathMode::NOT_NAN) {
            f |= 2;
        }
        if m.contains(FPFastMathMode::NOT_INF) {
            f |= 4;
        }
        if m.contains(FPFastMathMode::NSZ) {
            f |= 8;
        }
        if m.contains(FPFastMathMode::ALLOW_RECIP) {
            f |= 16;
        }
        if m.contains(FPFastMathMode::ALLOW_CONTRACT) {
            f |= 32;
        }
        if m.contains(FPFastMathMode::ALLOW_REASSOC) {
            f |= 1;
        }
        // SAFETY: only on floating-point instructions.
        unsafe {
            if !LLVMIsAInstruction(v).is_null() && LLVMCanValueUseFastMathFlags(v) != 0 {
                LLVMSetFastMathFlags(v, f);
            }
        }
    }

    pub fn int_binary(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        let w = self.need_int(inst, ty)?;
        let a = self.arg(inst, 0, ty)?;
        let op = inst.op();
        // SAFETY: operands of the result's type, checked above.
        unsafe {
            let b = if matches!(
                op,
                Op::ShiftLeftLogical | Op::ShiftRightLogical | Op::ShiftRightArithmetic
            ) {
                // The shift may be of another width; x86 masks it, LLVM would
                // make a poison value of a shift past the width.
                let s = self.arg_any(inst, 1)?;
                let s = self.int_resize(s.v, s.ty, ty, false)?;
                let m = self.splat_const(ty, (w - 1) as u64)?;
                LLVMBuildAnd(self.b, s, m, NONAME)
            } else {
                self.arg(inst, 1, ty)?
            };
            let bl = self.b;
            let v = match op {
                Op::IAdd => LLVMBuildAdd(bl, a, b, NONAME),
                Op::ISub => LLVMBuildSub(bl, a, b, NONAME),
                Op::IMul => LLVMBuildMul(bl, a, b, NONAME),
                Op::UDiv => LLVMBuildUDiv(bl, a, b, NONAME),
                Op::SDiv => LLVMBuildSDiv(bl, a, b, NONAME),
                Op::UMod => LLVMBuildURem(bl, a, b, NONAME),
                Op::SRem => LLVMBuildSRem(bl, a, b, NONAME),
                Op::SMod => {
                    // The remainder takes the divisor's sign.
                    let r = LLVMBuildSRem(bl, a, b, NONAME);
                    let zero = LLVMConstNull(self.llty(ty)?);
                    let nonzero = LLVMBuildICmp(bl, IP::LLVMIntNE, r, zero, NONAME);
                    let x = LLVMBuildXor(bl, r, b, NONAME);
                    let differ = LLVMBuildICmp(bl, IP::LLVMIntSLT, x, zero, NONAME);
                    let fix = LLVMBuildAnd(bl, nonzero, differ, NONAME);
                    let sum = LLVMBuildAdd(bl, r, b, NONAME);
                    LLVMBuildSelect(bl, fix, sum, r, NONAME)
                }
                Op::ShiftLeftLogical => LLVMBuildShl(bl, a, b, NONAME),
                Op::ShiftRightLogical => LLVMBuildLShr(bl, a, b, NONAME),
                Op::ShiftRightArithmetic => LLVMBuildAShr(bl, a, b, NONAME),
                Op::BitwiseOr => LLVMBuildOr(bl, a, b, NONAME),
                Op::BitwiseXor => LLVMBuildXor(bl, a, b, NONAME),
                _ => LLVMBuildAnd(bl, a, b, NONAME),
            };
            self.wrap_flags(inst, v);
            self.set(inst, v)
        }
    }

    pub fn int_unary(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        self.need_int(inst, ty)?;
        let a = self.arg(inst, 0, ty)?;
        // SAFETY: an operand of the result's type.
        let v = unsafe {
            if inst.op() == Op::SNegate {
                LLVMBuildNeg(self.b, a, NONAME)
            } else {
                LLVMBuildNot(self.b, a, NONAME)
            }
        };
        self.set(inst, v)
    }

    pub fn float_binary(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        self.need_float(inst, ty)?;
        let a = self.arg(inst, 0, ty)?;
        let b = self.arg(inst, 1, ty)?;
        // SAFETY: operands of the result's type.
        unsafe {
            let bl = self.b;
            let v = match inst.op() {
                Op::FAdd => LLVMBuildFAdd(bl, a, b, NONAME),
                Op::FSub => LLVMBuildFSub(bl, a, b, NONAME),
                Op::FMul => LLVMBuildFMul(bl, a, b, NONAME),
                Op::FDiv => LLVMBuildFDiv(bl, a, b, NONAME),
                Op::FRem => LLVMBuildFRem(bl, a, b, NONAME),
                _ => {
                    // FMod: the remainder takes the divisor's sign.
                    let r = LLVMBuildFRem(bl, a, b, NONAME);
                    let zero = self.float_const(ty, 0.0)?;
                    let nonzero = LLVMBuildFCmp(bl, RP::LLVMRealONE, r, zero, NONAME);
                    let rneg = LLVMBuildFCmp(bl, RP::LLVMRealOLT, r, zero, NONAME);
                    let bneg = LLVMBuildFCmp(bl, RP::LLVMRealOLT, b, zero, NONAME);
                    let differ = LLVMBuildXor(bl, rneg, bneg, NONAME);
                    let fix = LLVMBuildAnd(bl, nonzero, differ, NONAME);
                    let sum = LLVMBuildFAdd(bl, r, b, NONAME);
                    LLVMBuildSelect(bl, fix, sum, r, NONAME)
                }
            };
            // Its FPFastMathMode: `result_decorations`.
            self.set(inst, v)
        }
    }

    pub fn float_unary(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        self.need_float(inst, ty)?;
        let a = self.arg(inst, 0, ty)?;
        // SAFETY: an operand of the result's type.
        let v = unsafe { LLVMBuildFNeg(self.b, a, NONAME) };
        self.set(inst, v)
    }

    /// A bool result of as many components as operand type `of`.
    fn need_bool_for(&self, inst: &Inst, ty: Id, of: Id) -> Result<()> {
        if !self.is_bool(ty) || self.width_of(ty)? != self.width_of(of)? {
            return Err(inst.err("the result is not a bool of the operands' component count"));
        }
        Ok(())
    }

    pub fn int_compare(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        let a = self.arg_any(inst, 0)?;
        if self.int_bits(a.ty).is_none() {
            return Err(inst.err("the operands are not integers"));
        }
        let b = self.arg(inst, 1, a.ty)?;
        self.need_bool_for(inst, ty, a.ty)?;
        let p = match inst.op() {
            Op::IEqual => IP::LLVMIntEQ,
            Op::INotEqual => IP::LLVMIntNE,
            Op::UGreaterThan => IP::LLVMIntUGT,
            Op::SGreaterThan => IP::LLVMIntSGT,
            Op::UGreaterThanEqual => IP::LLVMIntUGE,
            Op::SGreaterThanEqual => IP::LLVMIntSGE,
            Op::ULessThan => IP::LLVMIntULT,
            Op::SLessThan => IP::LLVMIntSLT,
            Op::ULessThanEqual => IP::LLVMIntULE,
            _ => IP::LLVMIntSLE,
        };
        // SAFETY: integer operands of one type.
        let v = unsafe { LLVMBuildICmp(self.b, p, a.v, b, NONAME) };
        self.set(inst, v)
    }

    pub fn float_compare(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        let a = self.arg_any(inst, 0)?;
        if self.float_bits(a.ty).is_none() {
            return Err(inst.err("the operands are not floating-point"));
        }
        let b = self.arg(inst, 1, a.ty)?;
        self.need_bool_for(inst, ty, a.ty)?;
        let p = match inst.op() {
            Op::FOrdEqual => RP::LLVMRealOEQ,
            Op::FUnordEqual => RP::LLVMRealUEQ,
            Op::FOrdNotEqual | Op::LessOrGreater => RP::LLVMRealONE,
            Op::FUnordNotEqual => RP::LLVMRealUNE,
            Op::FOrdLessThan => RP::LLVMRealOLT,
            Op::FUnordLessThan => RP::LLVMRealULT,
            Op::FOrdGreaterThan => RP::LLVMRealOGT,
            Op::FUnordGreaterThan => RP::LLVMRealUGT,
            Op::FOrdLessThanEqual => RP::LLVMRealOLE,
            Op::FUnordLessThanEqual => RP::LLVMRealULE,
            Op::FOrdGreaterThanEqual => RP::LLVMRealOGE,
            Op::FUnordGreaterThanEqual => RP::LLVMRealUGE,
            Op::Ordered => RP::LLVMRealORD,
            _ => RP::LLVMRealUNO,
        };
        // SAFETY: floating-point operands of one type.
        let v = unsafe { LLVMBuildFCmp(self.b, p, a.v, b, NONAME) };
        self.set(inst, v)
    }

    pub fn float_class(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        let a = self.arg_any(inst, 0)?;
        let Some(w) = self.float_bits(a.ty) else {
            return Err(inst.err("the operand is not floating-point"));
        };
        self.need_bool_for(inst, ty, a.ty)?;
        // SAFETY: a floating-point operand; constants of its type.
        unsafe {
            let b = self.b;
            let at = self.llty(a.ty)?;
            let abs = ll::call_intrinsic(self.m, b, "llvm.fabs", &[at], &[a.v]);
            let inf = self.float_const(a.ty, f64::INFINITY)?;
            let v = match inst.op() {
                Op::IsNan => LLVMBuildFCmp(b, RP::LLVMRealUNO, a.v, a.v, NONAME),
                Op::IsInf => LLVMBuildFCmp(b, RP::LLVMRealOEQ, abs, inf, NONAME),
                Op::IsFinite => LLVMBuildFCmp(b, RP::LLVMRealONE, abs, inf, NONAME),
                Op::IsNormal => {
                    let min = match w {
                        16 => 6.103515625e-05,
                        32 => f32::MIN_POSITIVE as f64,
                        _ => f64::MIN_POSITIVE,
                    };
                    let min = self.float_const(a.ty, min)?;
                    let big = LLVMBuildFCmp(b, RP::LLVMRealOGE, abs, min, NONAME);
                    let fin = LLVMBuildFCmp(b, RP::LLVMRealONE, abs, inf, NONAME);
                    LLVMBuildAnd(b, big, fin, NONAME)
                }
                _ => {
                    let n = self.width_of(a.ty)?;
                    let it = ll::int(self.ctx, w);
                    let it = if n > 1 { LLVMVectorType(it, n) } else { it };
                    let bits = LLVMBuildBitCast(b, a.v, it, NONAME);
                    LLVMBuildICmp(b, IP::LLVMIntSLT, bits, LLVMConstNull(it), NONAME)
                }
            };
            self.set(inst, v)
        }
    }

    pub fn logical(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        if !self.is_bool(ty) {
            return Err(inst.err("the result type is not bool"));
        }
        let a = self.arg(inst, 0, ty)?;
        // SAFETY: bool operands of the result's type.
        unsafe {
            let v = if inst.op() == Op::LogicalNot {
                LLVMBuildNot(self.b, a, NONAME)
            } else {
                let b = self.arg(inst, 1, ty)?;
                match inst.op() {
                    Op::LogicalEqual => LLVMBuildICmp(self.b, IP::LLVMIntEQ, a, b, NONAME),
                    Op::LogicalNotEqual => LLVMBuildICmp(self.b, IP::LLVMIntNE, a, b, NONAME),
                    Op::LogicalOr => LLVMBuildOr(self.b, a, b, NONAME),
                    _ => LLVMBuildAnd(self.b, a, b, NONAME),
                }
            };
            self.set(inst, v)
        }
    }

    pub fn any_all(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        let a = self.arg_any(inst, 0)?;
        let vector = self.width_of(a.ty)? >= 2;
        // Clang's SPIR-V back end also gives integer vectors: a component
        // is true when it is not zero.
        let ok = self.is_bool(a.ty) || self.int_bits(a.ty).is_some();
        if !matches!(self.kind(ty)?, Kind::Bool) || !ok || !vector {
            return Err(inst.err("the operand is not a bool vector or the result not a bool"));
        }
        let name = if inst.op() == Op::Any {
            "llvm.vector.reduce.or"
        } else {
            "llvm.vector.reduce.and"
        };
        // SAFETY: a bool (or integer) vector.
        let v = unsafe {
            let mut bools = a.v;
            if !self.is_bool(a.ty) {
                let zero = LLVMConstNull(self.llty(a.ty)?);
                bools = LLVMBuildICmp(self.b, IP::LLVMIntNE, a.v, zero, NONAME);
            }
            let bt = LLVMTypeOf(bools);
            ll::call_intrinsic(self.m, self.b, name, &[bt], &[bools])
        };
        self.set(inst, v)
    }

    pub fn select(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        let c = self.arg_any(inst, 0)?;
        if !self.is_bool(c.ty) {
            return Err(inst.err("the condition is not a bool"));
        }
        let cw = self.width_of(c.ty)?;
        if cw != 1 && (!matches!(self.kind(ty)?, Kind::Vector(..)) || cw != self.width_of(ty)?) {
            return Err(inst.err("the condition's component count is not the result's"));
        }
        if !self.is_sized(ty) {
            return Err(inst.err("the result type has no value"));
        }
        let a = self.arg(inst, 1, ty)?;
        let b = self.arg(inst, 2, ty)?;
        // SAFETY: a bool condition of a matching shape; operands of one type.
        let v = unsafe { LLVMBuildSelect(self.b, c.v, a, b, NONAME) };
        self.set(inst, v)
    }

    /// A scalar integer operand as a value of every component of `ty`.
    unsafe fn scalar_operand(&mut self, inst: &Inst, n: usize, ty: Id) -> Result<LLVMValueRef> {
        let s = self.arg_any(inst, n)?;
        let Kind::Int(_) = self.kind(s.ty)? else {
            return Err(inst.err(format!("operand {n} is not a scalar integer")));
        };
        let e = self.scalar_of(ty)?;
        let v = self.int_resize(s.v, s.ty, e, false)?;
        self.splat(v, ty)
    }

    pub fn bit_field(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        let w = self.need_int(inst, ty)?;
        // SAFETY: integer operands, resized to the result's components.
        unsafe {
            let b = self.b;
            let t = self.llty(ty)?;
            let v = match inst.op() {
                Op::BitReverse => {
                    let a = self.arg(inst, 0, ty)?;
                    ll::call_intrinsic(self.m, b, "llvm.bitreverse", &[t], &[a])
                }
                Op::BitCount => {
                    let a = self.arg_any(inst, 0)?;
                    if self.int_bits(a.ty).is_none() {
                        return Err(inst.err("the operand is not an integer"));
                    }
                    let c =
                        ll::call_intrinsic(self.m, b, "llvm.ctpop", &[self.llty(a.ty)?], &[a.v]);
                    self.int_resize(c, a.ty, ty, false)?
                }
                op => {
                    let base = self.arg(inst, 0, ty)?;
                    let (insert, off_at) = if op == Op::BitFieldInsert {
                        (Some(self.arg(inst, 1, ty)?), 2)
                    } else {
                        (None, 1)
                    };
                    let offset = self.scalar_operand(inst, off_at, ty)?;
                    let count = self.scalar_operand(inst, off_at + 1, ty)?;
                    let width = self.splat_const(ty, w as u64)?;
                    let all = self.splat_const(ty, u64::MAX)?;
                    let zero = LLVMConstNull(t);
                    // Ones in the low `count` bits (all of them for count == width).
                    let full = LLVMBuildICmp(b, IP::LLVMIntUGE, count, width, NONAME);
                    let shifted = LLVMBuildShl(b, all, count, NONAME);
                    let low = LLVMBuildNot(b, shifted, NONAME);
                    let ones = LLVMBuildSelect(b, full, all, low, NONAME);
                    match op {
                        Op::BitFieldInsert => {
                            let mask = LLVMBuildShl(b, ones, offset, NONAME);
                            let ins = LLVMBuildShl(b, insert.unwrap_or(zero), offset, NONAME);
                            let kept = LLVMBuildAnd(b, base, LLVMBuildNot(b, mask, NONAME), NONAME);
                            LLVMBuildOr(b, kept, LLVMBuildAnd(b, ins, mask, NONAME), NONAME)
                        }
                        Op::BitFieldUExtract => {
                            let s = LLVMBuildLShr(b, base, offset, NONAME);
                            LLVMBuildAnd(b, s, ones, NONAME)
                        }
                        _ => {
                            // Up to the field's top bit, then back down with its sign.
                            let top = LLVMBuildSub(
                                b,
                                width,
                                LLVMBuildAdd(b, offset, count, NONAME),
                                NONAME,
                            );
                            let up = LLVMBuildShl(b, base, top, NONAME);
                            let down =
                                LLVMBuildAShr(b, up, LLVMBuildSub(b, width, count, NONAME), NONAME);
                            let none = LLVMBuildICmp(b, IP::LLVMIntEQ, count, zero, NONAME);
                            LLVMBuildSelect(b, none, zero, down, NONAME)
                        }
                    }
                }
            };
            self.set(inst, v)
        }
    }

    pub fn extended_arith(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        let members = match self.kind(ty)? {
            Kind::Struct(m) if m.len() == 2 && self.same(m[0], m[1]) => m.clone(),
            _ => return Err(inst.err("the result type is not a struct of two equal members")),
        };
        let et = members[0];
        let w = self.need_int(inst, et)?;
        let a = self.arg(inst, 0, et)?;
        let bv = self.arg(inst, 1, et)?;
        // SAFETY: integer operands of the members' type.
        unsafe {
            let b = self.b;
            let t = self.llty(et)?;
            let (lo, hi) = match inst.op() {
                Op::IAddCarry | Op::ISubBorrow => {
                    let name = if inst.op() == Op::IAddCarry {
                        "llvm.uadd.with.overflow"
                    } else {
                        "llvm.usub.with.overflow"
                    };
                    let r = ll::call_intrinsic(self.m, b, name, &[t], &[a, bv]);
                    let v = LLVMBuildExtractValue(b, r, 0, NONAME);
                    let o = LLVMBuildExtractValue(b, r, 1, NONAME);
                    (v, LLVMBuildZExt(b, o, t, NONAME))
                }
                op => {
                    let n = self.width_of(et)?;
                    let wide = ll::int(self.ctx, 2 * w);
                    let wide = if n > 1 { LLVMVectorType(wide, n) } else { wide };
                    let ext = |v| {
                        if op == Op::SMulExtended {
                            LLVMBuildSExt(b, v, wide, NONAME)
                        } else {
                            LLVMBuildZExt(b, v, wide, NONAME)
                        }
                    };
                    let p = LLVMBuildMul(b, ext(a), ext(bv), NONAME);
                    let mut shift =
                        vec![LLVMConstInt(ll::int(self.ctx, 2 * w), w as u64, 0); n as usize];
                    let shift = if n > 1 {
                        LLVMConstVector(shift.as_mut_ptr(), n)
                    } else {
                        shift[0]
                    };
                    let high = LLVMBuildLShr(b, p, shift, NONAME);
                    (
                        LLVMBuildTrunc(b, p, t, NONAME),
                        LLVMBuildTrunc(b, high, t, NONAME),
                    )
                }
            };
            let s = LLVMBuildInsertValue(b, LLVMGetPoison(self.llty(ty)?), lo, 0, NONAME);
            let s = LLVMBuildInsertValue(b, s, hi, 1, NONAME);
            self.set(inst, s)
        }
    }

    pub fn vector_arith(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        // SAFETY: floating-point operands of checked shapes.
        unsafe {
            let b = self.b;
            let v = if inst.op() == Op::VectorTimesScalar {
                if self.float_bits(ty).is_none() || self.width_of(ty)? < 2 {
                    return Err(inst.err("the result is not a floating-point vector"));
                }
                let v = self.arg(inst, 0, ty)?;
                let e = self.scalar_of(ty)?;
                let s = self.arg(inst, 1, e)?;
                let s = self.splat(s, ty)?;
                LLVMBuildFMul(b, v, s, NONAME)
            } else {
                if !matches!(self.kind(ty)?, Kind::Float(_)) {
                    return Err(inst.err("the result is not a float"));
                }
                let x = self.arg_any(inst, 0)?;
                if !self.same(self.scalar_of(x.ty)?, ty) || self.width_of(x.ty)? < 2 {
                    return Err(inst.err("the operands are not vectors of the result type"));
                }
                let y = self.arg(inst, 1, x.ty)?;
                let p = LLVMBuildFMul(b, x.v, y, NONAME);
                let mut sum = LLVMBuildExtractElement(b, p, ll::i32c(self.ctx, 0), NONAME);
                for i in 1..self.width_of(x.ty)? {
                    let e = LLVMBuildExtractElement(b, p, ll::i32c(self.ctx, i as u64), NONAME);
                    sum = LLVMBuildFAdd(b, sum, e, NONAME);
                }
                sum
            };
            self.set(inst, v)
        }
    }

    /// An integer dot product operand as a vector (a packed `4x8` one unpacked).
    unsafe fn dot_operand(
        &mut self,
        inst: &Inst,
        n: usize,
        packed: bool,
    ) -> Result<(LLVMValueRef, u32, u32)> {
        let a = self.arg_any(inst, n)?;
        let w = self
            .int_bits(a.ty)
            .ok_or_else(|| inst.err(format!("operand {n} is not an integer")))?;
        let count = self.width_of(a.ty)?;
        if packed {
            if count != 1 || w != 32 {
                return Err(inst.err("a packed operand must be a 32-bit integer"));
            }
            let t = LLVMVectorType(ll::int(self.ctx, 8), 4);
            return Ok((LLVMBuildBitCast(self.b, a.v, t, NONAME), 8, 4));
        }
        if count < 2 {
            return Err(inst.err(format!("operand {n} is not a vector")));
        }
        Ok((a.v, w, count))
    }

    pub fn integer_dot(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        let Kind::Int(rw) = *self.kind(ty)? else {
            return Err(inst.err("the result is not a scalar integer"));
        };
        let acc = matches!(inst.op(), Op::SDotAccSat | Op::UDotAccSat | Op::SUDotAccSat);
        let fmt_at = if acc { 3 } else { 2 };
        let packed = matches!(inst.get(fmt_at), Some(Operand::PackedVectorFormat(_)));
        // SAFETY: integer vectors of one shape, widened before they multiply.
        unsafe {
            let b = self.b;
            let (x, xw, n) = self.dot_operand(inst, 0, packed)?;
            let (y, yw, m) = self.dot_operand(inst, 1, packed)?;
            if n != m || xw != yw {
                return Err(inst.err("the operands' shapes differ"));
            }
            let signed_x = matches!(
                inst.op(),
                Op::SDot | Op::SDotAccSat | Op::SUDot | Op::SUDotAccSat
            );
            let signed_y = matches!(inst.op(), Op::SDot | Op::SDotAccSat);
            let signed = signed_x;
            let wide_bits = if 2 * xw + 8 <= 64 && rw <= 64 {
                64
            } else {
                128
            };
            let wide = ll::int(self.ctx, wide_bits);
            let wv = LLVMVectorType(wide, n);
            let ext = |v, s: bool| {
                if s {
                    LLVMBuildSExt(b, v, wv, NONAME)
                } else {
                    LLVMBuildZExt(b, v, wv, NONAME)
                }
            };
            let p = LLVMBuildMul(b, ext(x, signed_x), ext(y, signed_y), NONAME);
            let mut dot = ll::call_intrinsic(self.m, b, "llvm.vector.reduce.add", &[wv], &[p]);
            let rt = self.llty(ty)?;
            let v = if acc {
                let a = self.arg(inst, 2, ty)?;
                let a = if signed {
                    LLVMBuildSExt(b, a, wide, NONAME)
                } else {
                    LLVMBuildZExt(b, a, wide, NONAME)
                };
                dot = LLVMBuildAdd(b, dot, a, NONAME);
                // Clamped into the result's range.
                let (lo, hi) = if signed {
                    let hi = (1u128 << (rw - 1)) - 1;
                    ((!hi) as u64, hi as u64)
                } else {
                    (0, if rw == 64 { u64::MAX } else { (1u64 << rw) - 1 })
                };
                let (lt, gt) = if signed {
                    (IP::LLVMIntSLT, IP::LLVMIntSGT)
                } else {
                    (IP::LLVMIntULT, IP::LLVMIntUGT)
                };
                let lo_c = LLVMConstInt(wide, lo, signed as i32);
                let hi_c = LLVMConstInt(wide, hi, 0);
                let below = LLVMBuildICmp(b, lt, dot, lo_c, NONAME);
                let d = LLVMBuildSelect(b, below, lo_c, dot, NONAME);
                let above = LLVMBuildICmp(b, gt, d, hi_c, NONAME);
                let d = LLVMBuildSelect(b, above, hi_c, d, NONAME);
                LLVMBuildTrunc(b, d, rt, NONAME)
            } else {
                LLVMBuildTrunc(b, dot, rt, NONAME)
            };
            self.set(inst, v)
        }
    }

    pub fn expect_assume(&mut self, inst: &Inst) -> Result<()> {
        // SAFETY: checked operand types.
        unsafe {
            if inst.op() == Op::AssumeTrueKHR {
                let c = self.arg_any(inst, 0)?;
                if !matches!(self.kind(c.ty)?, Kind::Bool) {
                    return Err(inst.err("the condition is not a bool"));
                }
                ll::call_intrinsic(self.m, self.b, "llvm.assume", &[], &[c.v]);
                Ok(())
            } else {
                let (_, ty) = self.res(inst)?;
                let v = self.arg(inst, 0, ty)?;
                self.arg(inst, 1, ty)?;
                self.set(inst, v)
            }
        }
    }
}
