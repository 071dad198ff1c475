//! The `OpenCL.std` extended instructions: each a call of the builtins
//! library's function of that name, mangled from the operands' types.

use crate::binary::Inst;
use crate::error::Result;
use crate::ll::{self, NONAME};
use crate::mangle::{self, CType};
use crate::translator::Tr;
use crate::types::{address_space, Kind};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use rspirv::spirv::OpenclStd100Op as Cl;

/// How a generic instruction's integer operands are signed.
#[derive(Clone, Copy, PartialEq)]
enum Sign {
    Signed,
    Unsigned,
}

/// The library name of an instruction, and its operands' signedness.
fn generic(op: Cl) -> Option<(String, Sign)> {
    use Cl::*;
    let name = format!("{op:?}");
    Some(match op {
        vloadn | vstoren | vload_half | vload_halfn | vstore_half | vstore_half_r
        | vstore_halfn | vstore_halfn_r | vloada_halfn | vstorea_halfn | vstorea_halfn_r
        | printf | prefetch => return None,
        fmax_common => ("max".into(), Sign::Signed),
        fmin_common => ("min".into(), Sign::Signed),
        fclamp => ("clamp".into(), Sign::Signed),
        nan => ("nan".into(), Sign::Unsigned),
        _ => match name.split_once('_') {
            Some(("s", rest)) => (rest.to_string(), Sign::Signed),
            Some(("u", rest)) => (rest.to_string(), Sign::Unsigned),
            _ => (name, Sign::Signed),
        },
    })
}

fn rounding(mode: u32) -> Option<&'static str> {
    Some(match mode {
        0 => "rte",
        1 => "rtz",
        2 => "rtp",
        3 => "rtn",
        _ => return None,
    })
}

impl Tr<'_> {
    pub fn opencl_std(&mut self, inst: &Inst) -> Result<()> {
        let number = inst.literal(1)?;
        let op = Cl::from_u32(number)
            .ok_or_else(|| inst.err(format!("OpenCL.std has no instruction {number}")))?;
        let (id, ty) = self.res(inst)?;
        match generic(op) {
            Some((name, sign)) => self.cl_generic(inst, op, &name, sign),
            None => match op {
                Cl::printf => self.cl_printf(inst),
                Cl::prefetch => {
                    self.arg_any(inst, 2)?;
                    self.claim(id)
                }
                _ => {
                    let _ = ty;
                    self.cl_vector_data(inst, op)
                }
            },
        }
    }

    fn cl_generic(&mut self, inst: &Inst, op: Cl, name: &str, sign: Sign) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        // fma and mad are LLVM's own (what the library's are once inlined),
        // which LLVM may speculate and vectorize as it does the front end's.
        if matches!(op, Cl::fma | Cl::mad) && self.float_bits(ty).is_some() {
            let mut args = Vec::new();
            for n in 2..5 {
                args.push(self.arg(inst, n, ty)?);
            }
            if inst.len() != 5 {
                return Err(inst.err("fma and mad take three operands"));
            }
            let intrinsic = if op == Cl::fma {
                "llvm.fma"
            } else {
                "llvm.fmuladd"
            };
            // SAFETY: three operands of the result's floating-point type.
            let v =
                unsafe { ll::call_intrinsic(self.m, self.b, intrinsic, &[self.llty(ty)?], &args) };
            return self.set(inst, v);
        }
        let ids = inst.ids(2)?;
        let mut args = Vec::new();
        let mut types = Vec::new();
        for (k, &a) in ids.iter().enumerate() {
            let v = self.val(a)?;
            let signed = match op {
                // upsample(hi, lo): only hi is signed in s_upsample.
                Cl::s_upsample => k == 0,
                // The mask of a shuffle is unsigned.
                Cl::shuffle => k == 0,
                Cl::shuffle2 => k < 2,
                _ => sign == Sign::Signed,
            };
            if let Kind::Bool = self.kind(self.scalar_of(v.ty)?)? {
                return Err(inst.err(format!("operand %{a} is a bool")));
            }
            types.push(self.ctype(v.ty, signed)?);
            args.push(v.v);
        }
        let f = mangle::mangle(name, &types);
        let ret = if matches!(self.kind(ty)?, Kind::Void) {
            None
        } else {
            Some(self.llty(ty)?)
        };
        let v = self.call_library(&f, &args, ret)?;
        self.set(inst, v)
    }

    fn cl_printf(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        let ids = inst.ids(2)?;
        let Some((&fmt, rest)) = ids.split_first() else {
            return Err(inst.err("printf has no format"));
        };
        let f = self.val(fmt)?;
        if self.pointer(f.ty).map(|p| address_space(p.0)) != Some(Some(2)) {
            return Err(inst.err("the format is not a pointer to UniformConstant memory"));
        }
        if !matches!(self.kind(ty)?, Kind::Int(32)) {
            return Err(inst.err("printf returns a 32-bit integer"));
        }
        self.call_printf(inst, f.v, rest, true)
    }

    /// `NonSemantic.DebugPrintf`'s `DebugPrintf`: OpenCL C's printf of the
    /// format an `OpString` holds.
    pub fn debug_printf(&mut self, inst: &Inst) -> Result<()> {
        let id = inst.result_id()?;
        if inst.literal(1)? != 1 {
            return Err(inst.err("NonSemantic.DebugPrintf has only instruction 1"));
        }
        let ids = inst.ids(2)?;
        let Some((&fmt, rest)) = ids.split_first() else {
            return Err(inst.err("DebugPrintf has no format"));
        };
        let text = self
            .strings
            .get(&fmt)
            .cloned()
            .ok_or_else(|| inst.err(format!("%{fmt} is not an OpString")))?;
        // SAFETY: a private constant string in the constant address space.
        let format = unsafe {
            let s = LLVMConstStringInContext2(self.ctx, text.as_ptr().cast(), text.len(), 0);
            let g = LLVMAddGlobalInAddressSpace(self.m, LLVMTypeOf(s), c".str".as_ptr(), 2);
            LLVMSetInitializer(g, s);
            LLVMSetGlobalConstant(g, 1);
            LLVMSetLinkage(g, llvm_sys::LLVMLinkage::LLVMPrivateLinkage);
            LLVMSetUnnamedAddress(g, llvm_sys::LLVMUnnamedAddr::LLVMGlobalUnnamedAddr);
            g
        };
        self.call_printf(inst, format, rest, false)?;
        self.claim(id)
    }

    fn call_printf(
        &mut self,
        inst: &Inst,
        format: LLVMValueRef,
        rest: &[u32],
        define: bool,
    ) -> Result<()> {
        let mut args = vec![format];
        for &a in rest {
            let v = self.val(a)?;
            if !self.is_sized(v.ty) || matches!(self.kind(v.ty)?, Kind::Struct(_) | Kind::Array(..))
            {
                return Err(inst.err(format!("printf cannot take %{a}")));
            }
            args.push(v.v);
        }
        // SAFETY: a variadic declaration as Clang makes it; any arguments.
        unsafe {
            let name = c"printf";
            let mut f = LLVMGetNamedFunction(self.m, name.as_ptr());
            let mut params = [ll::ptr(self.ctx, 2)];
            let fty = LLVMFunctionType(LLVMInt32TypeInContext(self.ctx), params.as_mut_ptr(), 1, 1);
            if f.is_null() {
                f = LLVMAddFunction(self.m, name.as_ptr(), fty);
            } else if LLVMGlobalGetValueType(f) != fty {
                return Err(inst.err("printf is declared with another type"));
            }
            let v = ll::call(self.b, fty, f, &args);
            if define {
                self.set(inst, v)?;
            }
            Ok(())
        }
    }

    /// The pointer operand `n` of a vload/vstore: (its LLVM value, address
    /// space, pointee type).
    fn vector_data_pointer(&mut self, inst: &Inst, n: usize) -> Result<(LLVMValueRef, u32, u32)> {
        let p = self.arg_any(inst, n)?;
        let (sc, pointee) = self
            .pointer(p.ty)
            .ok_or_else(|| inst.err(format!("operand {n} is not a pointer")))?;
        let space = address_space(sc).ok_or_else(|| inst.err("unsupported storage class"))?;
        Ok((p.v, space, pointee))
    }

    fn size_t_operand(&mut self, inst: &Inst, n: usize) -> Result<LLVMValueRef> {
        let v = self.arg_any(inst, n)?;
        if !matches!(self.kind(v.ty)?, Kind::Int(_)) {
            return Err(inst.err(format!("operand {n} is not a scalar integer")));
        }
        // SAFETY: an integer operand, widened to size_t.
        Ok(
            unsafe {
                LLVMBuildZExtOrBitCast(self.b, v.v, LLVMInt64TypeInContext(self.ctx), NONAME)
            },
        )
    }

    fn cl_vector_data(&mut self, inst: &Inst, op: Cl) -> Result<()> {
        let (id, ty) = self.res(inst)?;
        let is_store = matches!(
            op,
            Cl::vstoren
                | Cl::vstore_half
                | Cl::vstore_half_r
                | Cl::vstore_halfn
                | Cl::vstore_halfn_r
                | Cl::vstorea_halfn
                | Cl::vstorea_halfn_r
        );
        if is_store {
            let data = self.arg_any(inst, 2)?;
            let offset = self.size_t_operand(inst, 3)?;
            let (p, space, pointee) = self.vector_data_pointer(inst, 4)?;
            if space == 2 {
                return Err(inst.err("a vstore cannot write UniformConstant memory"));
            }
            let n = self.width_of(data.ty)?;
            let suffix = |tr: &Self| -> Result<String> {
                let m = inst.literal(5)?;
                rounding(m)
                    .map(|r| format!("_{r}"))
                    .ok_or_else(|| tr.fail(format!("rounding mode {m} is not one")))
            };
            let (name, elem) = match op {
                Cl::vstoren => {
                    if !self.same(self.scalar_of(data.ty)?, pointee) {
                        return Err(inst.err("the data is not of the pointer's element type"));
                    }
                    (format!("vstore{n}"), self.ctype(pointee, true)?)
                }
                _ => {
                    if self.float_bits(data.ty).is_none()
                        || !matches!(self.kind(pointee)?, Kind::Float(16))
                    {
                        return Err(
                            inst.err("the data is not floating-point or the pointer not to half")
                        );
                    }
                    let base = match op {
                        Cl::vstore_half | Cl::vstore_half_r => "vstore_half".to_string(),
                        Cl::vstore_halfn | Cl::vstore_halfn_r => format!("vstore_half{n}"),
                        _ => format!("vstorea_half{n}"),
                    };
                    let r = if matches!(
                        op,
                        Cl::vstore_half_r | Cl::vstore_halfn_r | Cl::vstorea_halfn_r
                    ) {
                        suffix(self)?
                    } else {
                        String::new()
                    };
                    (format!("{base}{r}"), CType::Half)
                }
            };
            let types = [
                self.ctype(data.ty, true)?,
                CType::ULong,
                CType::pointer(space, false, elem),
            ];
            self.call_library(&mangle::mangle(&name, &types), &[data.v, offset, p], None)?;
            return self.claim(id);
        }
        let offset = self.size_t_operand(inst, 2)?;
        let (p, space, pointee) = self.vector_data_pointer(inst, 3)?;
        let n = self.width_of(ty)?;
        let (name, elem) = match op {
            Cl::vloadn => {
                if !self.same(self.scalar_of(ty)?, pointee) || n < 2 {
                    return Err(
                        inst.err("the result is not a vector of the pointer's element type")
                    );
                }
                (format!("vload{n}"), self.ctype(pointee, true)?)
            }
            _ => {
                if self.float_bits(ty) != Some(32)
                    || !matches!(self.kind(pointee)?, Kind::Float(16))
                {
                    return Err(inst.err("the result is not float or the pointer not to half"));
                }
                let name = match op {
                    Cl::vload_half => "vload_half".to_string(),
                    Cl::vload_halfn => format!("vload_half{n}"),
                    _ => format!("vloada_half{n}"),
                };
                (name, CType::Half)
            }
        };
        let types = [CType::ULong, CType::pointer(space, true, elem)];
        let v = self.call_library(
            &mangle::mangle(&name, &types),
            &[offset, p],
            Some(self.llty(ty)?),
        )?;
        self.set(inst, v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mangle::mangle;
    use CType::*;

    fn v4(t: CType) -> CType {
        CType::Vector(Box::new(t), 4)
    }

    /// Operands of each generic instruction, as a kernel would pass them.
    fn operands(op: Cl, arity: usize, signedness: Sign) -> Vec<CType> {
        use Cl::*;
        let f = v4(Float);
        let i = v4(Int);
        let private = |t| CType::pointer(0, false, t);
        match op {
            ldexp | pown | rootn => vec![f, i],
            frexp | lgamma_r => vec![f, private(i)],
            remquo => vec![f.clone(), f, private(i)],
            fract | modf | sincos => vec![f.clone(), private(f)],
            nan => vec![v4(UInt)],
            s_upsample => vec![v4(Char), v4(UChar)],
            u_upsample => vec![v4(UChar), v4(UChar)],
            select => vec![f.clone(), f, i],
            shuffle => vec![f, v4(UInt)],
            shuffle2 => vec![f.clone(), f, v4(UInt)],
            clz | ctz | popcount | rotate => vec![i; arity],
            _ if format!("{op:?}").starts_with("s_") => vec![v4(Int); arity],
            _ if format!("{op:?}").starts_with("u_") || signedness == Sign::Unsigned => {
                vec![v4(UInt); arity]
            }
            _ => vec![f; arity],
        }
    }

    #[test]
    fn every_generic_instruction_is_a_library_function() {
        let table = &rspirv::grammar::OPENCL_STD_100_INSTRUCTION_TABLE;
        let mut checked = 0;
        for n in 0..=204u32 {
            let (Some(op), Some(grammar)) = (Cl::from_u32(n), table.lookup_opcode(n)) else {
                continue;
            };
            let Some((name, signedness)) = generic(op) else {
                continue;
            };
            let args = operands(op, grammar.operands.len(), signedness);
            let f = mangle(&name, &args);
            assert!(
                crate::library::exists(&f),
                "OpenCL.std {op:?}: {f} is not in the library"
            );
            checked += 1;
        }
        assert!(checked >= 149, "{checked}");
    }
}
