//! The function-body instructions, dispatched to the file of their family.

use crate::binary::Inst;
use crate::decorations::Id;
use crate::error::Result;
use crate::mangle::CType;
use crate::translator::{ExtSet, Tr, Val};
use crate::types::{address_space, Kind};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use rspirv::spirv::Op;

impl Tr<'_> {
    /// The result id and type of `inst`, the type known.
    pub fn res(&self, inst: &Inst) -> Result<(Id, Id)> {
        let id = inst.result_id()?;
        let ty = inst.result_type()?;
        if !self.is_sized(ty) && !matches!(self.kind(ty)?, Kind::Void) {
            return Err(inst.err(format!("result type %{ty} is not the type of a value")));
        }
        Ok((id, ty))
    }

    /// Operand `n`, which must be of type `ty`.
    pub fn arg(&mut self, inst: &Inst, n: usize, ty: Id) -> Result<LLVMValueRef> {
        self.val_of(inst.id(n)?, ty)
    }

    /// Operand `n`, of any type.
    pub fn arg_any(&mut self, inst: &Inst, n: usize) -> Result<Val> {
        self.val(inst.id(n)?)
    }

    /// Defines `inst`'s result as `v`.
    pub fn set(&mut self, inst: &Inst, v: LLVMValueRef) -> Result<()> {
        let (id, ty) = self.res(inst)?;
        self.define_ll(id, v, ty)
    }

    /// What decorations of an instruction's result ask of the instruction
    /// it became: fast-math flags (a comparison, a conversion or a call
    /// too), alias scopes.
    pub fn result_decorations(&self, inst: &Inst) -> Result<()> {
        if let Some(v) = inst.inst.result_id.and_then(|id| self.llvm_of(id)) {
            self.fast_math(inst, v);
        }
        self.decorated_alias_lists(inst)
    }

    /// A vector type of `n` elements of `elem`: one the module declares,
    /// or one made for the translator's own use.
    pub fn vector_type_of(&mut self, elem: Id, n: u32) -> Result<Id> {
        if let Some((&id, _)) = self
            .types
            .iter()
            .find(|(_, t)| matches!(t.kind, Kind::Vector(e, m) if m == n && self.same(e, elem)))
        {
            return Ok(id);
        }
        // SAFETY: a type of the context.
        let llvm = unsafe { LLVMVectorType(self.llty(elem)?, n) };
        Ok(self.synthetic(Kind::Vector(elem, n), llvm))
    }

    /// A type the module does not declare, under an id past the bound.
    pub fn synthetic(&mut self, kind: Kind, llvm: LLVMTypeRef) -> Id {
        let id = u32::MAX - self.types.len() as u32;
        self.types.insert(id, crate::types::Type { kind, llvm });
        id
    }

    /// The OpenCL C type a SPIR-V type stands for in a builtin's name,
    /// integers being `signed` or not.
    pub fn ctype(&self, ty: Id, signed: bool) -> Result<CType> {
        Ok(match self.kind(ty)? {
            Kind::Int(w) => CType::int(*w, signed),
            Kind::Float(w) => CType::float(*w),
            Kind::Vector(e, n) => CType::Vector(Box::new(self.ctype(*e, signed)?), *n),
            Kind::Pointer(sc, p) => CType::pointer(
                address_space(*sc).unwrap_or(0),
                false,
                self.ctype(*p, signed)?,
            ),
            Kind::Event => CType::Named("ocl_event".into()),
            Kind::Sampler => CType::Named("ocl_sampler".into()),
            Kind::Void => CType::Void,
            Kind::Image(i) => CType::Named(crate::images::type_name(i, true)),
            _ => return Err(self.fail(format!("%{ty} has no OpenCL C builtin type"))),
        })
    }

    /// One function-body instruction.
    pub fn instruction(&mut self, inst: &Inst) -> Result<()> {
        use Op::*;
        match inst.op() {
            Nop | Line | NoLine | LoopMerge | SelectionMerge | LifetimeStart | LifetimeStop
            | Name | MemberName | ModuleProcessed | Source | SourceContinued | SourceExtension => {
                Ok(())
            }
            Undef => {
                let (_, ty) = self.res(inst)?;
                if !self.is_sized(ty) {
                    return Err(inst.err("the result type has no value"));
                }
                // SAFETY: a sized type of the context.
                let v = unsafe { LLVMGetUndef(self.llty(ty)?) };
                self.set(inst, v)
            }
            ExtInst => {
                let set = inst.id(0)?;
                match self.ext_sets.get(&set) {
                    Some(ExtSet::OpenClStd) => self.opencl_std(inst),
                    Some(ExtSet::DebugPrintf) => self.debug_printf(inst),
                    Some(ExtSet::Ignored) => {
                        // Its result, if anything uses it, is nothing.
                        if let (Some(id), Some(ty)) = (inst.inst.result_id, inst.inst.result_type) {
                            if self.is_sized(ty) {
                                // SAFETY: a sized type of the context.
                                let v = unsafe { LLVMGetUndef(self.llty(ty)?) };
                                return self.define_ll(id, v, ty);
                            }
                            self.claim(id)?;
                        }
                        Ok(())
                    }
                    None => Err(inst.err(format!("%{set} is not an imported instruction set"))),
                }
            }
            IAdd | ISub | IMul | UDiv | SDiv | UMod | SRem | SMod | ShiftRightLogical
            | ShiftRightArithmetic | ShiftLeftLogical | BitwiseOr | BitwiseXor | BitwiseAnd => {
                self.int_binary(inst)
            }
            SNegate | Not => self.int_unary(inst),
            FAdd | FSub | FMul | FDiv | FRem | FMod => self.float_binary(inst),
            FNegate => self.float_unary(inst),
            IEqual | INotEqual | UGreaterThan | SGreaterThan | UGreaterThanEqual
            | SGreaterThanEqual | ULessThan | SLessThan | ULessThanEqual | SLessThanEqual => {
                self.int_compare(inst)
            }
            FOrdEqual
            | FUnordEqual
            | FOrdNotEqual
            | FUnordNotEqual
            | FOrdLessThan
            | FUnordLessThan
            | FOrdGreaterThan
            | FUnordGreaterThan
            | FOrdLessThanEqual
            | FUnordLessThanEqual
            | FOrdGreaterThanEqual
            | FUnordGreaterThanEqual
            | LessOrGreater
            | Ordered
            | Unordered => self.float_compare(inst),
            IsNan | IsInf | IsFinite | IsNormal | SignBitSet => self.float_class(inst),
            LogicalEqual | LogicalNotEqual | LogicalOr | LogicalAnd | LogicalNot => {
                self.logical(inst)
            }
            Any | All => self.any_all(inst),
            Select => self.select(inst),
            BitFieldInsert | BitFieldSExtract | BitFieldUExtract | BitReverse | BitCount => {
                self.bit_field(inst)
            }
            IAddCarry | ISubBorrow | UMulExtended | SMulExtended => self.extended_arith(inst),
            Dot | VectorTimesScalar => self.vector_arith(inst),
            SDot | UDot | SUDot | SDotAccSat | UDotAccSat | SUDotAccSat => self.integer_dot(inst),
            ExpectKHR | AssumeTrueKHR => self.expect_assume(inst),
            ConvertFToBF16INTEL | ConvertBF16ToFINTEL => self.bfloat16_conversion(inst),
            ConvertFToU
            | ConvertFToS
            | ConvertSToF
            | ConvertUToF
            | UConvert
            | SConvert
            | FConvert
            | QuantizeToF16
            | SatConvertSToU
            | SatConvertUToS
            | ConvertPtrToU
            | ConvertUToPtr
            | PtrCastToGeneric
            | GenericCastToPtr
            | GenericCastToPtrExplicit
            | Bitcast => self.convert(inst),
            Variable => self.local_variable(inst),
            Load => self.load(inst),
            Store => self.store(inst),
            AccessChain | InBoundsAccessChain | PtrAccessChain | InBoundsPtrAccessChain => {
                self.access_chain(inst)
            }
            CopyMemory | CopyMemorySized => self.copy_memory(inst),
            PtrEqual | PtrNotEqual | PtrDiff | GenericPtrMemSemantics | SizeOf => {
                self.pointer_ops(inst)
            }
            CompositeConstruct | CompositeExtract | CompositeInsert | VectorExtractDynamic
            | VectorInsertDynamic | VectorShuffle | CopyObject | CopyLogical => {
                self.composite(inst)
            }
            Phi => self.phi(inst),
            Branch | BranchConditional | Switch | Return | ReturnValue | Unreachable => {
                self.terminator(inst)
            }
            FunctionCall => self.function_call(inst),
            AtomicLoad
            | AtomicStore
            | AtomicExchange
            | AtomicCompareExchange
            | AtomicCompareExchangeWeak
            | AtomicIIncrement
            | AtomicIDecrement
            | AtomicIAdd
            | AtomicISub
            | AtomicSMin
            | AtomicUMin
            | AtomicSMax
            | AtomicUMax
            | AtomicAnd
            | AtomicOr
            | AtomicXor
            | AtomicFlagTestAndSet
            | AtomicFlagClear
            | AtomicFAddEXT
            | AtomicFMinEXT
            | AtomicFMaxEXT => self.atomic(inst),
            ControlBarrier | MemoryBarrier => self.barrier(inst),
            GroupAll | GroupAny | GroupBroadcast | GroupIAdd | GroupFAdd | GroupFMin
            | GroupUMin | GroupSMin | GroupFMax | GroupUMax | GroupSMax | GroupIMulKHR
            | GroupFMulKHR | GroupBitwiseAndKHR | GroupBitwiseOrKHR | GroupBitwiseXorKHR
            | GroupLogicalAndKHR | GroupLogicalOrKHR | GroupLogicalXorKHR | GroupAsyncCopy
            | GroupWaitEvents => self.group(inst),
            GroupNonUniformElect
            | GroupNonUniformAll
            | GroupNonUniformAny
            | GroupNonUniformAllEqual
            | GroupNonUniformBroadcast
            | GroupNonUniformBroadcastFirst
            | GroupNonUniformBallot
            | GroupNonUniformInverseBallot
            | GroupNonUniformBallotBitExtract
            | GroupNonUniformBallotBitCount
            | GroupNonUniformBallotFindLSB
            | GroupNonUniformBallotFindMSB
            | GroupNonUniformShuffle
            | GroupNonUniformShuffleXor
            | GroupNonUniformShuffleUp
            | GroupNonUniformShuffleDown
            | GroupNonUniformIAdd
            | GroupNonUniformFAdd
            | GroupNonUniformIMul
            | GroupNonUniformFMul
            | GroupNonUniformSMin
            | GroupNonUniformUMin
            | GroupNonUniformFMin
            | GroupNonUniformSMax
            | GroupNonUniformUMax
            | GroupNonUniformFMax
            | GroupNonUniformBitwiseAnd
            | GroupNonUniformBitwiseOr
            | GroupNonUniformBitwiseXor
            | GroupNonUniformLogicalAnd
            | GroupNonUniformLogicalOr
            | GroupNonUniformLogicalXor
            | GroupNonUniformRotateKHR => self.group_non_uniform(inst),
            SampledImage
            | ImageSampleExplicitLod
            | ImageRead
            | ImageWrite
            | ImageFetch
            | ImageQuerySize
            | ImageQuerySizeLod
            | ImageQueryFormat
            | ImageQueryOrder
            | ImageQueryLevels
            | ImageQuerySamples
            | Image => self.image(inst),
            ReadClockKHR => self.read_clock(inst),
            SubgroupShuffleINTEL
            | SubgroupShuffleDownINTEL
            | SubgroupShuffleUpINTEL
            | SubgroupShuffleXorINTEL
            | SubgroupBlockReadINTEL
            | SubgroupBlockWriteINTEL
            | SubgroupImageBlockReadINTEL
            | SubgroupImageBlockWriteINTEL => self.intel_sub_group(inst),
            GetKernelLocalSizeForSubgroupCount | GetKernelMaxNumSubgroups => Err(inst.err(
                "a query of a function enqueued on the device, which does not enqueue kernels",
            )),
            Kill | TerminateInvocation => Err(inst.err("not an instruction of kernels")),
            other => Err(inst.err(format!("Op{other:?} is not supported"))),
        }
    }
}
