//! Images and samplers in kernels: their OpenCL C type names (for kernel
//! arguments and builtin names) and the image instructions, each a call of
//! the builtins' `read_image*`, `write_image*` and `get_image_*`.

use crate::binary::Inst;
use crate::decorations::Id;
use crate::error::Result;
use crate::ll::{self, NONAME};
use crate::mangle::{self, CType};
use crate::translator::{Tr, Val};
use crate::types::{ImageInfo, Kind};
use llvm_sys::core::*;
use rspirv::dr::Operand;
use rspirv::spirv::{AccessQualifier, Dim, ImageOperands, Op};

/// `image2d_t` (or, for a builtin's name, `ocl_image2d_ro`).
pub(crate) fn type_name(i: &ImageInfo, mangled: bool) -> String {
    let base = match (i.dim, i.arrayed != 0, i.depth == 1) {
        (Dim::Dim1D, false, _) => "image1d",
        (Dim::Dim1D, true, _) => "image1d_array",
        (Dim::DimBuffer, _, _) => "image1d_buffer",
        (Dim::Dim2D, false, false) => "image2d",
        (Dim::Dim2D, true, false) => "image2d_array",
        (Dim::Dim2D, false, true) => "image2d_depth",
        (Dim::Dim2D, true, true) => "image2d_array_depth",
        _ => "image3d",
    };
    if mangled {
        let access = match i.access {
            AccessQualifier::ReadOnly => "ro",
            AccessQualifier::WriteOnly => "wo",
            AccessQualifier::ReadWrite => "rw",
        };
        format!("ocl_{base}_{access}")
    } else {
        format!("{base}_t")
    }
}

/// OpenCL's `CL_R` and `CL_SNORM_INT8`, which SPIR-V numbers from 0.
const CHANNEL_ORDER_BASE: u64 = 0x10B0;
const CHANNEL_DATA_TYPE_BASE: u64 = 0x10D0;

impl Tr<'_> {
    /// An image operand: its value and type.
    pub(crate) fn image_operand(&mut self, inst: &Inst, n: usize) -> Result<(Val, ImageInfo)> {
        let v = self.arg_any(inst, n)?;
        match self.kind(v.ty)? {
            Kind::Image(i) => Ok((v, i.clone())),
            _ => Err(inst.err(format!("operand {n} is not an image"))),
        }
    }

    /// The suffix of `read_image*`/`write_image*` for texels of type `ty`
    /// (`f`, `i`, or `ui` where the image operands ask for zero extension).
    fn texel_suffix(&self, inst: &Inst, ty: Id, operands_at: usize) -> Result<&'static str> {
        let zero_extend = matches!(inst.get(operands_at), Some(Operand::ImageOperands(o)) if o.contains(ImageOperands::ZERO_EXTEND));
        if self.float_bits(ty).is_some() {
            Ok("f")
        } else if self.int_bits(ty) == Some(32) {
            Ok(if zero_extend { "ui" } else { "i" })
        } else {
            Err(inst.err("the texel type is not float or 32-bit integer"))
        }
    }

    /// Checks the image operands from `at` ask for nothing the device lacks
    /// (an explicit level of detail must be 0: there are no mipmaps).
    fn plain_operands(&self, inst: &Inst, at: usize) -> Result<()> {
        if let Some(Operand::ImageOperands(o)) = inst.get(at) {
            let known = ImageOperands::LOD
                | ImageOperands::SIGN_EXTEND
                | ImageOperands::ZERO_EXTEND
                | ImageOperands::NONTEMPORAL;
            if !(*o & !known).is_empty() {
                return Err(inst.err(format!("image operands {o:?} are not supported")));
            }
            if o.contains(ImageOperands::LOD) {
                let lod = inst.id(at + 1)?;
                let zero = match self.values.get(&lod) {
                    // SAFETY: a value of the context.
                    Some(crate::translator::Value::Ll { v, .. }) => unsafe { LLVMIsNull(*v) != 0 },
                    _ => false,
                };
                if !zero {
                    return Err(
                        inst.err("a level of detail other than 0: the device has no mipmaps")
                    );
                }
            }
        }
        Ok(())
    }

    fn coordinate(&mut self, inst: &Inst, n: usize) -> Result<Val> {
        let c = self.arg_any(inst, n)?;
        if (self.float_bits(c.ty) != Some(32) && self.int_bits(c.ty) != Some(32))
            || self.width_of(c.ty)? == 3
        {
            return Err(inst.err("the coordinate is not of 32-bit integers or floats"));
        }
        Ok(c)
    }

    pub fn image(&mut self, inst: &Inst) -> Result<()> {
        let ctx = self.ctx;
        // SAFETY: library calls with operands checked to be images,
        // samplers and coordinates of the types the builtins take.
        unsafe {
            match inst.op() {
                Op::SampledImage => {
                    let (_, ty) = self.res(inst)?;
                    let (img, _) = self.image_operand(inst, 0)?;
                    let s = self.arg_any(inst, 1)?;
                    if !matches!(self.kind(s.ty)?, Kind::Sampler) || !matches!(self.kind(ty)?, Kind::SampledImage(_)) {
                        return Err(inst.err("the operands are not an image and a sampler"));
                    }
                    let v = LLVMBuildInsertValue(self.b, LLVMGetPoison(self.llty(ty)?), img.v, 0, NONAME);
                    let v = LLVMBuildInsertValue(self.b, v, s.v, 1, NONAME);
                    self.set(inst, v)
                }
                Op::Image => {
                    let (_, ty) = self.res(inst)?;
                    let si = self.arg_any(inst, 0)?;
                    if !matches!(self.kind(si.ty)?, Kind::SampledImage(i) if self.same(*i, ty)) {
                        return Err(inst.err("the operand is not a sampled image of the result's image type"));
                    }
                    let v = LLVMBuildExtractValue(self.b, si.v, 0, NONAME);
                    self.set(inst, v)
                }
                Op::ImageSampleExplicitLod => {
                    let (_, ty) = self.res(inst)?;
                    let si = self.arg_any(inst, 0)?;
                    let Kind::SampledImage(image_ty) = *self.kind(si.ty)? else {
                        return Err(inst.err("the operand is not a sampled image"));
                    };
                    let Kind::Image(info) = self.kind(image_ty)?.clone() else {
                        return Err(inst.err("the sampled image has no image type"));
                    };
                    self.plain_operands(inst, 2)?;
                    let c = self.coordinate(inst, 1)?;
                    let img = LLVMBuildExtractValue(self.b, si.v, 0, NONAME);
                    let smp = LLVMBuildExtractValue(self.b, si.v, 1, NONAME);
                    let suffix = self.texel_suffix(inst, ty, 2)?;
                    let name = mangle::mangle(
                        &format!("read_image{suffix}"),
                        &[
                            CType::Named(type_name(&info, true)),
                            CType::Named("ocl_sampler".into()),
                            self.ctype(c.ty, true)?,
                        ],
                    );
                    let v = self.call_library(&name, &[img, smp, c.v], Some(self.llty(ty)?))?;
                    self.set(inst, v)
                }
                Op::ImageRead | Op::ImageFetch => {
                    let (_, ty) = self.res(inst)?;
                    let (img, info) = self.image_operand(inst, 0)?;
                    if info.access == AccessQualifier::WriteOnly {
                        return Err(inst.err("the image is write-only"));
                    }
                    self.plain_operands(inst, 2)?;
                    let c = self.coordinate(inst, 1)?;
                    if self.int_bits(c.ty).is_none() {
                        return Err(inst.err("a read without a sampler takes integer coordinates"));
                    }
                    let suffix = self.texel_suffix(inst, ty, 2)?;
                    let name = mangle::mangle(
                        &format!("read_image{suffix}"),
                        &[CType::Named(type_name(&info, true)), self.ctype(c.ty, true)?],
                    );
                    let v = self.call_library(&name, &[img.v, c.v], Some(self.llty(ty)?))?;
                    self.set(inst, v)
                }
                Op::ImageWrite => {
                    let (img, info) = self.image_operand(inst, 0)?;
                    if info.access == AccessQualifier::ReadOnly {
                        return Err(inst.err("the image is read-only"));
                    }
                    self.plain_operands(inst, 3)?;
                    let c = self.coordinate(inst, 1)?;
                    if self.int_bits(c.ty).is_none() {
                        return Err(inst.err("a write takes integer coordinates"));
                    }
                    let texel = self.arg_any(inst, 2)?;
                    let suffix = self.texel_suffix(inst, texel.ty, 3)?;
                    let name = mangle::mangle(
                        &format!("write_image{suffix}"),
                        &[
                            CType::Named(type_name(&info, true)),
                            self.ctype(c.ty, true)?,
                            self.ctype(texel.ty, suffix != "ui")?,
                        ],
                    );
                    self.call_library(&name, &[img.v, c.v, texel.v], None)?;
                    Ok(())
                }
                Op::ImageQueryFormat | Op::ImageQueryOrder => {
                    let (_, ty) = self.res(inst)?;
                    let (img, info) = self.image_operand(inst, 0)?;
                    if !matches!(self.kind(ty)?, Kind::Int(32)) {
                        return Err(inst.err("the result is not a 32-bit integer"));
                    }
                    let (what, base) = if inst.op() == Op::ImageQueryFormat {
                        ("get_image_channel_data_type", CHANNEL_DATA_TYPE_BASE)
                    } else {
                        ("get_image_channel_order", CHANNEL_ORDER_BASE)
                    };
                    let name = mangle::mangle(what, &[CType::Named(type_name(&info, true))]);
                    let v = self.call_library(&name, &[img.v], Some(self.llty(ty)?))?;
                    let v = LLVMBuildSub(self.b, v, ll::i32c(ctx, base), NONAME);
                    self.set(inst, v)
                }
                Op::ImageQuerySize | Op::ImageQuerySizeLod => {
                    let (_, ty) = self.res(inst)?;
                    let (img, info) = self.image_operand(inst, 0)?;
                    if inst.op() == Op::ImageQuerySizeLod {
                        self.arg_any(inst, 1)?;
                    }
                    let Some(w) = self.int_bits(ty) else {
                        return Err(inst.err("the result is not an integer"));
                    };
                    let mut queries = vec!["get_image_width"];
                    match (info.dim, info.arrayed != 0) {
                        (Dim::Dim2D, _) => queries.push("get_image_height"),
                        (Dim::Dim3D, _) => queries.extend(["get_image_height", "get_image_depth"]),
                        _ => {}
                    }
                    if info.arrayed != 0 {
                        queries.push("get_image_array_size");
                    }
                    if self.width_of(ty)? as usize != queries.len() {
                        return Err(inst.err("the result's components are not the image's dimensions"));
                    }
                    let et = ll::int(ctx, w);
                    let mut out = LLVMGetPoison(self.llty(ty)?);
                    for (k, q) in queries.iter().enumerate() {
                        let name = mangle::mangle(q, &[CType::Named(type_name(&info, true))]);
                        let v = self.call_library(&name, &[img.v], None)?;
                        let v = LLVMBuildZExtOrBitCast(self.b, LLVMBuildTrunc(self.b, v, LLVMInt32TypeInContext(ctx), NONAME), et, NONAME);
                        out = if queries.len() == 1 {
                            v
                        } else {
                            LLVMBuildInsertElement(self.b, out, v, ll::i32c(ctx, k as u64), NONAME)
                        };
                    }
                    self.set(inst, out)
                }
                _ => Err(inst.err("image queries of levels and samples are not supported: the device has no mipmaps or multisampling")),
            }
        }
    }

    /// `OpReadClockKHR`: the builtins' `clock_read_device`,
    /// `clock_read_work_group` or `clock_read_sub_group`, as a 64-bit
    /// integer or two 32-bit ones.
    pub fn read_clock(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        let scope = self
            .const_u64(inst.id(0)?)
            .ok_or_else(|| inst.err("the scope is not a constant"))?;
        let name = match scope {
            1 => "_Z17clock_read_devicev",
            2 => "_Z21clock_read_work_groupv",
            3 => "_Z20clock_read_sub_groupv",
            _ => return Err(inst.err("the clock's scope is not Device, Workgroup or Subgroup")),
        };
        let shape_ok = matches!(self.kind(ty)?, Kind::Int(64))
            || (self.int_bits(ty) == Some(32) && self.width_of(ty)? == 2);
        if !shape_ok {
            return Err(inst.err("the result is not a 64-bit integer or two 32-bit ones"));
        }
        let v = self.call_library(name, &[], None)?;
        // SAFETY: 64 bits to 64 bits.
        let v = unsafe { LLVMBuildBitCast(self.b, v, self.llty(ty)?, NONAME) };
        self.set(inst, v)
    }
}
