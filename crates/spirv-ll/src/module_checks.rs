//! What a module may declare: capabilities, extensions, instruction sets,
//! addressing and memory model, entry points. The lists are also what the
//! device reports (`cl_khr_spirv_queries`).

use crate::binary::Inst;
use crate::error::Result;
use crate::translator::{EntryPoint, ExtSet, Tr};
use rspirv::dr::Operand;
use rspirv::spirv::{AddressingModel, Capability, ExecutionModel, MemoryModel, Op};

/// The capabilities a module may declare.
pub const CAPABILITIES: &[Capability] = &[
    Capability::Addresses,
    Capability::Linkage,
    Capability::Kernel,
    Capability::Vector16,
    Capability::Float16Buffer,
    // half arithmetic (cl_khr_fp16).
    Capability::Float16,
    Capability::Float64,
    Capability::Int64,
    Capability::Int64Atomics,
    Capability::Int8,
    Capability::Int16,
    Capability::GenericPointer,
    Capability::Groups,
    // Sub-groups (`sub_groups.rs`): the built-in variables, the Groups
    // instructions at Subgroup scope and the non-uniform ones.
    Capability::GroupNonUniform,
    Capability::GroupNonUniformVote,
    Capability::GroupNonUniformArithmetic,
    Capability::GroupNonUniformBallot,
    Capability::GroupNonUniformShuffle,
    Capability::GroupNonUniformShuffleRelative,
    Capability::GroupNonUniformClustered,
    Capability::GroupNonUniformRotateKHR,
    // The SubgroupSize and SubgroupsPerWorkgroup execution modes (not
    // OpGetKernelLocalSizeForSubgroupCount and OpGetKernelMaxNumSubgroups,
    // which query a function for device-side enqueue).
    Capability::SubgroupDispatch,
    Capability::ExpectAssumeKHR,
    Capability::DotProductKHR,
    Capability::DotProductInputAllKHR,
    Capability::DotProductInput4x8BitKHR,
    Capability::DotProductInput4x8BitPackedKHR,
    Capability::GroupUniformArithmeticKHR,
    Capability::AtomicFloat32AddEXT,
    Capability::AtomicFloat64AddEXT,
    Capability::AtomicFloat32MinMaxEXT,
    Capability::AtomicFloat64MinMaxEXT,
    // Uniform and UniformId are hints only.
    Capability::UniformDecoration,
    Capability::ImageBasic,
    Capability::ImageReadWrite,
    Capability::Image1D,
    Capability::ImageBuffer,
    Capability::Sampled1D,
    Capability::SampledBuffer,
    Capability::LiteralSampler,
    // OpBitFieldInsert and friends, OpBitReverse, OpBitCount.
    Capability::BitInstructions,
    Capability::ShaderClockKHR,
    // Alias scopes as LLVM's scoped no-alias metadata (`aliasing.rs`).
    Capability::MemoryAccessAliasingINTEL,
    // FPFastMathMode's AllowContract and AllowReassoc bits.
    Capability::FPFastMathModeINTEL,
    // Intel's shuffles and block reads and writes of buffers, local
    // memory and 2D images (`intel_sub_groups.rs`).
    Capability::SubgroupShuffleINTEL,
    Capability::SubgroupBufferBlockIOINTEL,
    Capability::SubgroupImageBlockIOINTEL,
    // Float to bfloat16 bits and back (`convert.rs`).
    Capability::BFloat16ConversionINTEL,
];

/// The extensions a module may declare.
pub const EXTENSIONS: &[&str] = &[
    "SPV_KHR_no_integer_wrap_decoration",
    "SPV_KHR_expect_assume",
    "SPV_KHR_integer_dot_product",
    "SPV_KHR_linkonce_odr",
    "SPV_KHR_uniform_group_instructions",
    "SPV_KHR_non_semantic_info",
    "SPV_EXT_shader_atomic_float_add",
    "SPV_EXT_shader_atomic_float_min_max",
    "SPV_KHR_bit_instructions",
    "SPV_KHR_shader_clock",
    "SPV_KHR_subgroup_rotate",
    "SPV_INTEL_memory_access_aliasing",
    "SPV_INTEL_fp_fast_math_mode",
    "SPV_INTEL_subgroups",
    "SPV_INTEL_bfloat16_conversion",
];

/// The extended instruction sets a module may import (besides any
/// `NonSemantic.*` one, whose instructions are dropped).
pub const EXTENDED_INSTRUCTION_SETS: &[&str] = &["OpenCL.std", "NonSemantic.DebugPrintf"];

pub(crate) fn ext_set(name: &str) -> Option<ExtSet> {
    if name == "OpenCL.std" {
        Some(ExtSet::OpenClStd)
    } else if name == "NonSemantic.DebugPrintf" {
        Some(ExtSet::DebugPrintf)
    } else if name.starts_with("NonSemantic.") || name == "OpenCL.DebugInfo.100" {
        Some(ExtSet::Ignored)
    } else {
        None
    }
}

impl Tr<'_> {
    pub fn entry_point(&mut self, inst: &Inst) -> Result<()> {
        match inst.get(0) {
            Some(Operand::ExecutionModel(ExecutionModel::Kernel)) => {}
            Some(Operand::ExecutionModel(m)) => {
                return Err(inst.err(format!("execution model {m:?} is not Kernel")))
            }
            _ => return Err(inst.err("the execution model is missing")),
        }
        self.entry_points.push(EntryPoint {
            function: inst.id(1)?,
            name: inst.string(2)?.to_string(),
            at: inst.offset,
        });
        Ok(())
    }

    /// The module-wide checks: capabilities, extensions, memory model.
    pub fn check_module(&mut self, insts: &[Inst]) -> Result<()> {
        let mut memory_model = None;
        let mut kernel = false;
        for inst in insts {
            self.enter(inst);
            match inst.op() {
                Op::Capability => match inst.get(0) {
                    Some(Operand::Capability(c)) if CAPABILITIES.contains(c) => {
                        kernel |= *c == Capability::Kernel;
                    }
                    Some(Operand::Capability(c)) => {
                        return Err(inst.err(format!("capability {c:?} is not supported")))
                    }
                    _ => return Err(inst.err("the capability is missing")),
                },
                Op::Extension => {
                    let name = inst.string(0)?;
                    if !EXTENSIONS.contains(&name) && !name.starts_with("SPV_KHR_non_semantic") {
                        return Err(inst.err(format!("extension {name} is not supported")));
                    }
                }
                Op::MemoryModel => {
                    if memory_model.is_some() {
                        return Err(inst.err("the memory model is declared twice"));
                    }
                    match (inst.get(0), inst.get(1)) {
                        (
                            Some(Operand::AddressingModel(AddressingModel::Physical64)),
                            Some(Operand::MemoryModel(MemoryModel::OpenCL)),
                        ) => memory_model = Some(()),
                        (Some(Operand::AddressingModel(a)), Some(Operand::MemoryModel(m))) => {
                            return Err(inst.err(format!(
                                "addressing model {a:?} with memory model {m:?}: the device takes Physical64 with OpenCL"
                            )))
                        }
                        _ => return Err(inst.err("the addressing or memory model is missing")),
                    }
                }
                Op::Function => break,
                _ => {}
            }
        }
        self.at = (0, "module".into());
        if !kernel {
            return Err(self.fail("the module does not declare the Kernel capability"));
        }
        if memory_model.is_none() {
            return Err(self.fail("the module has no OpMemoryModel"));
        }
        Ok(())
    }
}
