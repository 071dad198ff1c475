//! Constants, specialization constants (with the values the application
//! set) and `OpSpecConstantOp`, folded by LLVM.

use crate::binary::Inst;
use crate::decorations::Id;
use crate::error::Result;
use crate::translator::{Tr, Value};
use crate::types::Kind;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use rspirv::dr::{self, Operand};
use rspirv::spirv::{Decoration, Op, SamplerAddressingMode, SamplerFilterMode};

/// `CLK_*` sampler bits of OpenCL C.
pub(crate) fn sampler_bits(
    addressing: SamplerAddressingMode,
    normalized: bool,
    filter: SamplerFilterMode,
) -> u64 {
    let a = match addressing {
        SamplerAddressingMode::None => 0,
        SamplerAddressingMode::ClampToEdge => 2,
        SamplerAddressingMode::Clamp => 4,
        SamplerAddressingMode::Repeat => 6,
        SamplerAddressingMode::RepeatMirrored => 8,
    };
    let f = match filter {
        SamplerFilterMode::Nearest => 0x10,
        SamplerFilterMode::Linear => 0x20,
    };
    a | normalized as u64 | f
}

impl Tr<'_> {
    /// A scalar constant of type `ty` from its bits.
    pub fn scalar_const(&self, ty: Id, bits: u64) -> Result<LLVMValueRef> {
        let t = self.llty(ty)?;
        // SAFETY: constants of the translator's context.
        unsafe {
            Ok(match self.kind(ty)? {
                Kind::Bool => LLVMConstInt(t, (bits != 0) as u64, 0),
                Kind::Int(w) => LLVMConstInt(t, mask(bits, *w), 0),
                Kind::Float(w) => {
                    let i = LLVMConstInt(crate::ll::int(self.ctx, *w), mask(bits, *w), 0);
                    LLVMConstBitCast(i, t)
                }
                _ => return Err(self.fail(format!("%{ty} is not a scalar type"))),
            })
        }
    }

    fn literal_bits(&self, inst: &Inst, n: usize) -> Result<u64> {
        match inst.get(n) {
            Some(Operand::LiteralBit32(v)) => Ok(*v as u64),
            Some(Operand::LiteralBit64(v)) => Ok(*v),
            _ => Err(inst.err("the literal value is missing")),
        }
    }

    /// The value the application set for a specialization constant, if any.
    fn spec_value(&self, id: Id) -> Option<u64> {
        let spec_id = self.deco.literal(id, Decoration::SpecId)?;
        let bytes = self.opts.spec_constants.get(&spec_id)?;
        let mut b = [0u8; 8];
        for (d, s) in b.iter_mut().zip(bytes) {
            *d = *s;
        }
        Some(u64::from_le_bytes(b))
    }

    /// A constant-defining instruction at module scope.
    pub fn constant(&mut self, inst: &Inst) -> Result<()> {
        let id = inst.result_id()?;
        let ty = inst.result_type()?;
        self.ty(ty)?;
        let v = match inst.op() {
            Op::ConstantTrue | Op::ConstantFalse | Op::SpecConstantTrue | Op::SpecConstantFalse => {
                if !matches!(self.kind(ty)?, Kind::Bool) {
                    return Err(inst.err("the result type is not bool"));
                }
                let mut value = matches!(inst.op(), Op::ConstantTrue | Op::SpecConstantTrue);
                if inst.op() != Op::ConstantTrue && inst.op() != Op::ConstantFalse {
                    if let Some(v) = self.spec_value(id) {
                        value = v & 0xff != 0;
                    }
                }
                self.scalar_const(ty, value as u64)?
            }
            Op::Constant | Op::SpecConstant => {
                if !matches!(self.kind(ty)?, Kind::Int(_) | Kind::Float(_)) {
                    return Err(inst.err("the result type is not an integer or float type"));
                }
                let mut bits = self.literal_bits(inst, 0)?;
                if inst.op() == Op::SpecConstant {
                    if let Some(v) = self.spec_value(id) {
                        bits = v;
                    }
                }
                self.scalar_const(ty, bits)?
            }
            Op::ConstantComposite | Op::SpecConstantComposite => {
                let parts = inst.ids(0)?;
                self.composite_const(inst, ty, &parts)?
            }
            Op::ConstantNull => {
                if !self.is_sized(ty) {
                    return Err(inst.err("the result type has no value"));
                }
                // SAFETY: a sized type of the context.
                unsafe { LLVMConstNull(self.llty(ty)?) }
            }
            Op::ConstantSampler => {
                if !matches!(self.kind(ty)?, Kind::Sampler) {
                    return Err(inst.err("the result type is not a sampler"));
                }
                let (a, n, f) = match (inst.get(0), inst.get(1), inst.get(2)) {
                    (
                        Some(Operand::SamplerAddressingMode(a)),
                        Some(Operand::LiteralBit32(n)),
                        Some(Operand::SamplerFilterMode(f)),
                    ) => (*a, *n != 0, *f),
                    _ => return Err(inst.err("the sampler's operands are malformed")),
                };
                let bits = sampler_bits(a, n, f);
                // SAFETY: a constant of the context.
                unsafe {
                    let i = LLVMConstInt(LLVMInt64TypeInContext(self.ctx), bits, 0);
                    LLVMConstIntToPtr(i, self.llty(ty)?)
                }
            }
            Op::Undef => {
                if !self.is_sized(ty) {
                    return Err(inst.err("the result type has no value"));
                }
                // SAFETY: a sized type of the context.
                unsafe { LLVMGetUndef(self.llty(ty)?) }
            }
            Op::SpecConstantOp => return self.spec_constant_op(inst),
            _ => return Err(inst.err("not a constant")),
        };
        self.define_ll(id, v, ty)
    }

    fn composite_const(&mut self, inst: &Inst, ty: Id, parts: &[Id]) -> Result<LLVMValueRef> {
        let members: Vec<Id> = match self.kind(ty)?.clone() {
            Kind::Vector(e, n) => vec![e; n as usize],
            Kind::Array(e, n) => {
                if n != parts.len() as u64 {
                    return Err(inst.err("the number of constituents is not the array's length"));
                }
                vec![e; n as usize]
            }
            Kind::Struct(m) => m,
            _ => return Err(inst.err("the result type is not a composite")),
        };
        if members.len() != parts.len() {
            return Err(inst.err(format!(
                "{} constituents for a composite of {}",
                parts.len(),
                members.len()
            )));
        }
        let mut vals = Vec::new();
        for (&p, &m) in parts.iter().zip(&members) {
            let v = self.val_of(p, m)?;
            // SAFETY: a value of the context.
            if unsafe { LLVMIsConstant(v) } == 0 {
                return Err(inst.err(format!("constituent %{p} is not a constant")));
            }
            vals.push(v);
        }
        let t = self.llty(ty)?;
        // SAFETY: constants of the right member types, checked above.
        unsafe {
            Ok(match self.kind(ty)? {
                Kind::Vector(..) => LLVMConstVector(vals.as_mut_ptr(), vals.len() as u32),
                Kind::Array(e, _) => {
                    LLVMConstArray2(self.llty(*e)?, vals.as_mut_ptr(), vals.len() as u64)
                }
                _ => LLVMConstNamedStruct(t, vals.as_mut_ptr(), vals.len() as u32),
            })
        }
    }

    /// `OpSpecConstantOp`: the operation translated as in a function, with
    /// the builder in the scratch function, where LLVM folds it.
    fn spec_constant_op(&mut self, inst: &Inst) -> Result<()> {
        let op = match inst.get(0) {
            Some(Operand::LiteralSpecConstantOpInteger(op)) => *op,
            _ => return Err(inst.err("the operation is missing")),
        };
        let allowed = matches!(
            op,
            Op::SConvert
                | Op::UConvert
                | Op::FConvert
                | Op::SNegate
                | Op::Not
                | Op::IAdd
                | Op::ISub
                | Op::IMul
                | Op::UDiv
                | Op::SDiv
                | Op::UMod
                | Op::SRem
                | Op::SMod
                | Op::ShiftRightLogical
                | Op::ShiftRightArithmetic
                | Op::ShiftLeftLogical
                | Op::BitwiseOr
                | Op::BitwiseXor
                | Op::BitwiseAnd
                | Op::VectorShuffle
                | Op::CompositeExtract
                | Op::CompositeInsert
                | Op::LogicalOr
                | Op::LogicalAnd
                | Op::LogicalNot
                | Op::LogicalEqual
                | Op::LogicalNotEqual
                | Op::Select
                | Op::IEqual
                | Op::INotEqual
                | Op::ULessThan
                | Op::SLessThan
                | Op::UGreaterThan
                | Op::SGreaterThan
                | Op::ULessThanEqual
                | Op::SLessThanEqual
                | Op::UGreaterThanEqual
                | Op::SGreaterThanEqual
                | Op::ConvertFToS
                | Op::ConvertSToF
                | Op::ConvertFToU
                | Op::ConvertUToF
                | Op::ConvertPtrToU
                | Op::ConvertUToPtr
                | Op::GenericCastToPtr
                | Op::PtrCastToGeneric
                | Op::Bitcast
                | Op::FNegate
                | Op::FAdd
                | Op::FSub
                | Op::FMul
                | Op::FDiv
                | Op::FRem
                | Op::FMod
                | Op::AccessChain
                | Op::InBoundsAccessChain
                | Op::PtrAccessChain
                | Op::InBoundsPtrAccessChain
                | Op::QuantizeToF16
        );
        if !allowed {
            return Err(inst.err(format!(
                "Op{op:?} cannot be a specialization constant's operation"
            )));
        }
        let class = rspirv::grammar::INSTRUCTION_TABLE
            .lookup_opcode(op as u32)
            .ok_or_else(|| inst.err("unknown operation"))?;
        let inner = Inst {
            offset: inst.offset,
            inst: dr::Instruction {
                class,
                result_type: inst.inst.result_type,
                result_id: inst.inst.result_id,
                operands: inst.inst.operands[1..].to_vec(),
            },
        };
        let id = inst.result_id()?;
        self.instruction(&inner)?;
        match self.values.get(&id) {
            // SAFETY: a value of the context.
            Some(Value::Ll { v, .. }) if unsafe { LLVMIsConstant(*v) } != 0 => Ok(()),
            _ => Err(inst.err(format!("Op{op:?} does not fold to a constant"))),
        }
    }
}

fn mask(bits: u64, w: u32) -> u64 {
    if w >= 64 {
        bits
    } else {
        bits & ((1u64 << w) - 1)
    }
}
