//! SPV_INTEL_subgroups: Intel's shuffles and block reads and writes of
//! buffers and local memory, as the builtins' `cl_intel_subgroups`
//! functions (`intel_sub_groups.cl`), which OpenCL C programs call too.

use crate::binary::Inst;
use crate::error::Result;
use crate::mangle::CType;
use crate::translator::Tr;
use crate::types::{address_space, Kind};
use crate::decorations::Id;
use llvm_sys::core::*;
use rspirv::spirv::{Op, StorageClass};

impl Tr<'_> {
    pub fn intel_sub_group(&mut self, inst: &Inst) -> Result<()> {
        match inst.op() {
            Op::SubgroupBlockReadINTEL => self.intel_block_read(inst),
            Op::SubgroupBlockWriteINTEL => self.intel_block_write(inst),
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
                    self.call_overload(name, t.clone(), x, &[(t, y), (CType::UInt, delta)], Some(lt))?
                }
            };
            self.set(inst, v)
        }
    }

    /// A block's element width (8, 16, 32 or 64 bits) and count (1, 2, 4,
    /// 8, or 16 bytes), the name's suffix, and the pointer's OpenCL C type.
    fn block_operands(&mut self, inst: &Inst, ty: Id, ptr: Id) -> Result<(String, CType)> {
        let (elem, n) = match self.kind(ty)? {
            Kind::Int(_) => (ty, 1),
            Kind::Vector(e, n) => (*e, *n),
            _ => return Err(inst.err("the data is not a scalar or vector of integers")),
        };
        let bits = match self.kind(elem)? {
            Kind::Int(w) => *w,
            _ => return Err(inst.err("the data is not a scalar or vector of integers")),
        };
        let suffix = match (bits, n) {
            (8, 1 | 2 | 4 | 8 | 16) => "_uc",
            (16, 1 | 2 | 4 | 8) => "_us",
            (32, 1 | 2 | 4 | 8) => "",
            (64, 1 | 2 | 4 | 8) => "_ul",
            _ => return Err(inst.err(format!("a block of {n} {bits}-bit integers per lane"))),
        };
        let count = if n == 1 { String::new() } else { n.to_string() };
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
        Ok((
            format!("{suffix}{count}"),
            CType::pointer(space, read, CType::int(bits, false)),
        ))
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
