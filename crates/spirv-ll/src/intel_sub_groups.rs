//! SPV_INTEL_subgroups: Intel's shuffles and block reads and writes of
//! buffers, local memory and 2D images, as the builtins' `cl_intel_subgroups`
//! functions (`intel_sub_groups.cl`), which OpenCL C programs call too.

use crate::binary::Inst;
use crate::decorations::Id;
use crate::error::Result;
use crate::images::type_name;
use crate::mangle::CType;
use crate::translator::Tr;
use crate::types::{address_space, Kind};
use llvm_sys::core::*;
use llvm_sys::prelude::LLVMValueRef;
use rspirv::spirv::{AccessQualifier, Dim, Op, StorageClass};

impl Tr<'_> {
    pub fn intel_sub_group(&mut self, inst: &Inst) -> Result<()> {
        match inst.op() {
            Op::SubgroupBlockReadINTEL => self.intel_block_read(inst),
            Op::SubgroupBlockWriteINTEL => self.intel_block_write(inst),
            Op::SubgroupImageBlockReadINTEL => self.intel_image_block_read(inst),
            Op::SubgroupImageBlockWriteINTEL => self.intel_image_block_write(inst),
            _ => self.intel_shuffle(inst),
        }
    }

    /// The value's OpenCL C type, for a shuffle: a scalar or a vector of 2,
    /// 3, 4, 8 or 16 integers or floating-point numbers.
    fn shuffled_type(&self, inst: &Inst, ty: Id) -> Result<CType> {
        let ok = match self.kind(ty)? {
            Kind::Int(_) | Kind::Float(_) => true,
            Kind::Vector(e, n) => {
                matches!(self.kind(*e)?, Kind::Int(_) | Kind::Float(_))
                    && matches!(n, 2 | 3 | 4 | 8 | 16)
            }
            _ => false,
        };
        if !ok {
            return Err(inst.err(
                "the value is not a scalar or vector (2, 3, 4, 8, 16) of integers or floating-point numbers",
            ));
        }
        self.ctype(ty, false)
    }

    fn intel_shuffle(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        let t = self.shuffled_type(inst, ty)?;
        let x = self.arg(inst, 0, ty)?;
        // SAFETY: operands of the checked types.
        unsafe {
            let lt = self.llty(ty)?;
            let v = match inst.op() {
                Op::SubgroupShuffleINTEL | Op::SubgroupShuffleXorINTEL => {
                    let lane = self.lane_operand(inst, 1)?;
                    let name = if inst.op() == Op::SubgroupShuffleINTEL {
                        "intel_sub_group_shuffle"
                    } else {
                        "intel_sub_group_shuffle_xor"
                    };
                    self.call_overload(name, t, x, &[(CType::UInt, lane)], Some(lt))?
                }
                op => {
                    // Down: current, next; up: previous, current.
                    let y = self.arg(inst, 1, ty)?;
                    let delta = self.lane_operand(inst, 2)?;
                    let name = if op == Op::SubgroupShuffleDownINTEL {
                        "intel_sub_group_shuffle_down"
                    } else {
                        "intel_sub_group_shuffle_up"
                    };
                    self.call_overload(
                        name,
                        t.clone(),
                        x,
                        &[(t, y), (CType::UInt, delta)],
                        Some(lt),
                    )?
                }
            };
            self.set(inst, v)
        }
    }

    /// The name suffix of a block of data of type `ty` (`_uc2`, `4`,
    /// `_ul8`...) and its element's width: 1, 2, 4 or 8 integers of 8, 16,
    /// 32 or 64 bits a lane, or 16 bytes from memory.
    fn block_suffix(&self, inst: &Inst, ty: Id, from_memory: bool) -> Result<(String, u32)> {
        let (elem, n) = match self.kind(ty)? {
            Kind::Int(_) => (ty, 1),
            Kind::Vector(e, n) => (*e, *n),
            _ => return Err(inst.err("the data is not a scalar or vector of integers")),
        };
        let bits = match self.kind(elem)? {
            Kind::Int(w) => *w,
            _ => return Err(inst.err("the data is not a scalar or vector of integers")),
        };
        let prefix = match (bits, n) {
            (8, 16) if from_memory => "_uc",
            (8, 1 | 2 | 4 | 8) => "_uc",
            (16, 1 | 2 | 4 | 8) => "_us",
            (32, 1 | 2 | 4 | 8) => "",
            (64, 1 | 2 | 4 | 8) => "_ul",
            _ => return Err(inst.err(format!("a block of {n} {bits}-bit integers per lane"))),
        };
        let count = if n == 1 { String::new() } else { n.to_string() };
        Ok((format!("{prefix}{count}"), bits))
    }

    /// A block's suffix and its pointer's OpenCL C type: a pointer to
    /// CrossWorkgroup or Workgroup integers of the data's width.
    fn block_operands(&mut self, inst: &Inst, ty: Id, ptr: Id) -> Result<(String, CType)> {
        let (suffix, bits) = self.block_suffix(inst, ty, true)?;
        let ptr_ty = self.val(ptr)?.ty;
        let (sc, pointee) = self
            .pointer(ptr_ty)
            .ok_or_else(|| inst.err("the pointer operand is not a pointer"))?;
        if !matches!(sc, StorageClass::CrossWorkgroup | StorageClass::Workgroup) {
            return Err(inst.err("the pointer is not to CrossWorkgroup or Workgroup memory"));
        }
        if !matches!(self.kind(pointee)?, Kind::Int(w) if *w == bits) {
            return Err(inst.err("the pointer does not point to the data's integers"));
        }
        let space = address_space(sc).unwrap_or(0);
        let read = inst.op() == Op::SubgroupBlockReadINTEL;
        Ok((suffix, CType::pointer(space, read, CType::int(bits, false))))
    }

    /// An image block's image and coordinate (operands 0 and 1): a 2D
    /// image, not arrayed nor depth, of an access that allows `op`, and two
    /// 32-bit integers.
    fn image_block_operands(&mut self, inst: &Inst) -> Result<[(CType, LLVMValueRef); 2]> {
        let (img, info) = self.image_operand(inst, 0)?;
        if info.dim != Dim::Dim2D || info.arrayed != 0 || info.depth == 1 {
            return Err(inst.err("the image is not a 2D image"));
        }
        let refused = match inst.op() {
            Op::SubgroupImageBlockReadINTEL => AccessQualifier::WriteOnly,
            _ => AccessQualifier::ReadOnly,
        };
        if info.access == refused {
            return Err(inst.err(format!("the image is {refused:?}")));
        }
        let c = self.arg_any(inst, 1)?;
        if !matches!(self.kind(c.ty)?, Kind::Vector(e, 2) if self.int_bits(*e) == Some(32)) {
            return Err(inst.err("the coordinate is not two 32-bit integers"));
        }
        Ok([
            (CType::Named(type_name(&info, true)), img.v),
            (self.ctype(c.ty, true)?, c.v),
        ])
    }

    fn intel_image_block_read(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        let (suffix, _) = self.block_suffix(inst, ty, false)?;
        let [(it, img), coord] = self.image_block_operands(inst)?;
        // SAFETY: an image and coordinate of the checked types.
        unsafe {
            let lt = self.llty(ty)?;
            let name = format!("intel_sub_group_block_read{suffix}");
            let v = self.call_overload(&name, it, img, &[coord], Some(lt))?;
            self.set(inst, v)
        }
    }

    fn intel_image_block_write(&mut self, inst: &Inst) -> Result<()> {
        let data = self.arg_any(inst, 2)?;
        let (suffix, _) = self.block_suffix(inst, data.ty, false)?;
        let [(it, img), coord] = self.image_block_operands(inst)?;
        let dt = self.ctype(data.ty, false)?;
        // SAFETY: an image, coordinate and data of the checked types.
        unsafe {
            let name = format!("intel_sub_group_block_write{suffix}");
            let void = LLVMVoidTypeInContext(self.ctx);
            self.call_overload(&name, it, img, &[coord, (dt, data.v)], Some(void))?;
        }
        Ok(())
    }

    fn intel_block_read(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        let ptr = inst.id(0)?;
        let (suffix, pt) = self.block_operands(inst, ty, ptr)?;
        let p = self.val(ptr)?.v;
        // SAFETY: a pointer of the checked type.
        unsafe {
            let lt = self.llty(ty)?;
            let name = format!("intel_sub_group_block_read{suffix}");
            let v = self.call_overload(&name, pt, p, &[], Some(lt))?;
            self.set(inst, v)
        }
    }

    fn intel_block_write(&mut self, inst: &Inst) -> Result<()> {
        let ptr = inst.id(0)?;
        let data = self.arg_any(inst, 1)?;
        let (suffix, pt) = self.block_operands(inst, data.ty, ptr)?;
        let dt = self.ctype(data.ty, false)?;
        let p = self.val(ptr)?.v;
        // SAFETY: a pointer and data of the checked types.
        unsafe {
            let name = format!("intel_sub_group_block_write{suffix}");
            let void = LLVMVoidTypeInContext(self.ctx);
            self.call_overload(&name, pt, p, &[(dt, data.v)], Some(void))?;
        }
        Ok(())
    }
}
