//! Conversions. A saturating or rounding-mode-decorated one is a call of
//! the OpenCL C `convert_<type>[_sat][_<mode>]` builtin of its types.

use crate::binary::Inst;
use crate::decorations::Id;
use crate::error::Result;
use crate::ll::NONAME;
use crate::mangle;
use crate::translator::Tr;
use crate::types::{address_space, Kind};
use llvm_sys::core::*;
use llvm_sys::target::LLVMSizeOfTypeInBits;
use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, FPRoundingMode, Op, StorageClass};

fn mode_suffix(m: FPRoundingMode) -> &'static str {
    match m {
        FPRoundingMode::RTE => "_rte",
        FPRoundingMode::RTZ => "_rtz",
        FPRoundingMode::RTP => "_rtp",
        FPRoundingMode::RTN => "_rtn",
    }
}

impl Tr<'_> {
    fn rounding_mode(&self, id: Id) -> Option<FPRoundingMode> {
        match self
            .deco
            .get(id, Decoration::FPRoundingMode)?
            .args
            .first()?
        {
            Operand::FPRoundingMode(m) => Some(*m),
            _ => None,
        }
    }

    /// `convert_<dst>[_sat][_mode](src)` from the library.
    fn convert_call(
        &mut self,
        inst: &Inst,
        src: (Id, bool),
        dst: (Id, bool),
        sat: bool,
    ) -> Result<()> {
        let (id, ty) = self.res(inst)?;
        let x = self.arg(inst, 0, src.0)?;
        let mut name = format!("convert_{}", self.ctype(dst.0, dst.1)?.spelling());
        if sat {
            name.push_str("_sat");
        }
        if let Some(m) = self.rounding_mode(id) {
            name.push_str(mode_suffix(m));
        }
        let arg = self.ctype(src.0, src.1)?;
        let f = mangle::mangle(&name, &[arg]);
        let t = self.llty(ty)?;
        let v = self.call_library(&f, &[x], Some(t))?;
        self.set(inst, v)
    }

    /// SPV_INTEL_bfloat16_conversion: float to the bits of a bfloat16
    /// (rounded to nearest even) and back, as the builtins'
    /// `cl_intel_bfloat16_conversions` functions.
    pub fn bfloat16_conversion(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        let x = self.arg_any(inst, 0)?;
        let n = self.width_of(ty)?;
        let to_bfloat16 = inst.op() == Op::ConvertFToBF16INTEL;
        let (from, to) = if to_bfloat16 {
            ((self.float_bits(x.ty), 32), (self.int_bits(ty), 16))
        } else {
            ((self.int_bits(x.ty), 16), (self.float_bits(ty), 32))
        };
        if from.0 != Some(from.1)
            || to.0 != Some(to.1)
            || self.width_of(x.ty)? != n
            || !matches!(n, 1 | 2 | 3 | 4 | 8 | 16)
        {
            return Err(inst.err(
                "not a conversion between 32-bit floats and 16-bit integers of one shape (1, 2, 3, 4, 8, 16)",
            ));
        }
        let count = if n == 1 { String::new() } else { n.to_string() };
        let name = if to_bfloat16 {
            format!("intel_convert_bfloat16{count}_as_ushort{count}")
        } else {
            format!("intel_convert_as_bfloat16{count}_float{count}")
        };
        let f = mangle::mangle(&name, &[self.ctype(x.ty, false)?]);
        let t = self.llty(ty)?;
        let v = self.call_library(&f, &[x.v], Some(t))?;
        self.set(inst, v)
    }

    pub fn convert(&mut self, inst: &Inst) -> Result<()> {
        let (id, ty) = self.res(inst)?;
        let op = inst.op();
        let x = self.arg_any(inst, 0)?;
        let t = self.llty(ty)?;
        let sat = self.deco.has(id, Decoration::SaturatedConversion);
        let round = self.rounding_mode(id).is_some();
        let same_count = self.width_of(x.ty)? == self.width_of(ty)?;
        let (xi, xf, ri, rf) = (
            self.int_bits(x.ty),
            self.float_bits(x.ty),
            self.int_bits(ty),
            self.float_bits(ty),
        );
        let bad = |why: &str| Err(inst.err(why.to_string()));
        let b = self.b;
        // SAFETY: each conversion is built only once its operand and result
        // types are checked to be what LLVM's instruction takes.
        unsafe {
            let v = match op {
                Op::ConvertFToU | Op::ConvertFToS => {
                    if xf.is_none() || ri.is_none() || !same_count {
                        return bad("the operand is not a float of the integer result's shape");
                    }
                    let signed = op == Op::ConvertFToS;
                    if sat || round {
                        return self.convert_call(inst, (x.ty, true), (ty, signed), sat);
                    }
                    if signed {
                        LLVMBuildFPToSI(b, x.v, t, NONAME)
                    } else {
                        LLVMBuildFPToUI(b, x.v, t, NONAME)
                    }
                }
                Op::ConvertSToF | Op::ConvertUToF => {
                    if xi.is_none() || rf.is_none() || !same_count {
                        return bad("the operand is not an integer of the float result's shape");
                    }
                    let signed = op == Op::ConvertSToF;
                    if round {
                        return self.convert_call(inst, (x.ty, signed), (ty, true), false);
                    }
                    if signed {
                        LLVMBuildSIToFP(b, x.v, t, NONAME)
                    } else {
                        LLVMBuildUIToFP(b, x.v, t, NONAME)
                    }
                }
                Op::UConvert | Op::SConvert | Op::SatConvertSToU | Op::SatConvertUToS => {
                    if xi.is_none() || ri.is_none() || !same_count {
                        return bad("the operand is not an integer of the integer result's shape");
                    }
                    let src_signed = matches!(op, Op::SConvert | Op::SatConvertSToU);
                    let dst_signed = matches!(op, Op::SConvert | Op::SatConvertUToS);
                    if sat || matches!(op, Op::SatConvertSToU | Op::SatConvertUToS) {
                        return self.convert_call(inst, (x.ty, src_signed), (ty, dst_signed), true);
                    }
                    self.int_resize(x.v, x.ty, ty, src_signed)?
                }
                Op::FConvert => {
                    let (Some(fw), Some(tw)) = (xf, rf) else {
                        return bad("the operand or result is not floating-point");
                    };
                    if !same_count {
                        return bad("the component counts differ");
                    }
                    if round && tw < fw {
                        return self.convert_call(inst, (x.ty, true), (ty, true), false);
                    }
                    if fw == tw {
                        x.v
                    } else if tw < fw {
                        LLVMBuildFPTrunc(b, x.v, t, NONAME)
                    } else {
                        LLVMBuildFPExt(b, x.v, t, NONAME)
                    }
                }
                Op::QuantizeToF16 => {
                    if xf != Some(32) || !self.same(x.ty, ty) {
                        return bad("the operand and result are not 32-bit floats of one type");
                    }
                    let n = self.width_of(ty)?;
                    let h = LLVMHalfTypeInContext(self.ctx);
                    let h = if n > 1 { LLVMVectorType(h, n) } else { h };
                    let q = LLVMBuildFPTrunc(b, x.v, h, NONAME);
                    LLVMBuildFPExt(b, q, t, NONAME)
                }
                Op::ConvertPtrToU => {
                    if self.pointer(x.ty).is_none() || !matches!(self.kind(ty)?, Kind::Int(_)) {
                        return bad(
                            "the operand is not a pointer or the result not a scalar integer",
                        );
                    }
                    LLVMBuildPtrToInt(b, x.v, t, NONAME)
                }
                Op::ConvertUToPtr => {
                    if !matches!(self.kind(x.ty)?, Kind::Int(_)) || self.pointer(ty).is_none() {
                        return bad(
                            "the operand is not a scalar integer or the result not a pointer",
                        );
                    }
                    let i64t = LLVMInt64TypeInContext(self.ctx);
                    let wide = LLVMBuildZExtOrBitCast(b, x.v, i64t, NONAME);
                    LLVMBuildIntToPtr(b, wide, t, NONAME)
                }
                Op::PtrCastToGeneric | Op::GenericCastToPtr => {
                    let (Some((fsc, fp)), Some((tsc, tp))) = (self.pointer(x.ty), self.pointer(ty))
                    else {
                        return bad("the operand or result is not a pointer");
                    };
                    let ok = if op == Op::PtrCastToGeneric {
                        tsc == StorageClass::Generic
                            && matches!(
                                fsc,
                                StorageClass::CrossWorkgroup
                                    | StorageClass::Workgroup
                                    | StorageClass::Function
                            )
                    } else {
                        fsc == StorageClass::Generic
                            && matches!(
                                tsc,
                                StorageClass::CrossWorkgroup
                                    | StorageClass::Workgroup
                                    | StorageClass::Function
                            )
                    };
                    if !ok || !self.same(fp, tp) {
                        return bad("the storage classes or pointee types do not fit the cast");
                    }
                    LLVMBuildAddrSpaceCast(b, x.v, t, NONAME)
                }
                Op::GenericCastToPtrExplicit => {
                    let (Some((fsc, _)), Some((tsc, _))) = (self.pointer(x.ty), self.pointer(ty))
                    else {
                        return bad("the operand or result is not a pointer");
                    };
                    let name = match tsc {
                        StorageClass::CrossWorkgroup => "__to_global",
                        StorageClass::Workgroup => "__to_local",
                        StorageClass::Function => "__to_private",
                        _ => {
                            return bad("the target storage class is not global, local or private")
                        }
                    };
                    if fsc != StorageClass::Generic {
                        return bad("the operand is not a generic pointer");
                    }
                    self.call_library(name, &[x.v], Some(t))?
                }
                Op::Bitcast => self.bitcast(inst, x.v, x.ty, ty)?,
                _ => return bad("not a conversion"),
            };
            self.set(inst, v)
        }
    }

    unsafe fn bitcast(
        &mut self,
        inst: &Inst,
        v: llvm_sys::prelude::LLVMValueRef,
        from: Id,
        to: Id,
    ) -> Result<llvm_sys::prelude::LLVMValueRef> {
        let t = self.llty(to)?;
        let b = self.b;
        match (self.pointer(from), self.pointer(to)) {
            (Some((fsc, _)), Some((tsc, _))) => {
                if address_space(fsc) != address_space(tsc) {
                    return Err(inst.err("a bitcast cannot change the storage class"));
                }
                return Ok(v);
            }
            // A pointer and a 64-bit integer, or a vector of integers of 64 bits.
            (Some(_), None) => {
                let i64t = LLVMInt64TypeInContext(self.ctx);
                if self.int_bits(to).is_none() || LLVMSizeOfTypeInBits(self.td, t) != 64 {
                    return Err(inst.err("a pointer bitcasts only to 64 bits of integers"));
                }
                let i = LLVMBuildPtrToInt(b, v, i64t, NONAME);
                return Ok(LLVMBuildBitCast(b, i, t, NONAME));
            }
            (None, Some(_)) => {
                let i64t = LLVMInt64TypeInContext(self.ctx);
                let ft = self.llty(from)?;
                if self.int_bits(from).is_none() || LLVMSizeOfTypeInBits(self.td, ft) != 64 {
                    return Err(inst.err("only 64 bits of integers bitcast to a pointer"));
                }
                let i = LLVMBuildBitCast(b, v, i64t, NONAME);
                return Ok(LLVMBuildIntToPtr(b, i, t, NONAME));
            }
            (None, None) => {}
        }
        let numeric = |tr: &Self, id| tr.int_bits(id).is_some() || tr.float_bits(id).is_some();
        if !numeric(self, from) || !numeric(self, to) {
            return Err(inst.err("bitcasts are between numeric types or pointers"));
        }
        let bits = |tr: &Self, id| tr.llty(id).map(|t| LLVMSizeOfTypeInBits(tr.td, t));
        if bits(self, from)? != bits(self, to)? {
            return Err(inst.err("the operand and result are of different sizes"));
        }
        // A 3-component vector is the size of its components, not of four.
        let comp_bits = |tr: &Self, id| -> Result<u64> {
            let e = tr.scalar_of(id)?;
            Ok(LLVMSizeOfTypeInBits(tr.td, tr.llty(e)?) * tr.width_of(id)? as u64)
        };
        if comp_bits(self, from)? != comp_bits(self, to)? {
            return Err(inst.err("the operand and result are of different sizes"));
        }
        Ok(LLVMBuildBitCast(b, v, t, NONAME))
    }
}
