//! Sub-groups: the `Groups` collectives and `OpControlBarrier` at Subgroup
//! scope, and the `OpGroupNonUniform*` family (at Subgroup scope only: the
//! device offers no non-uniform operations on work-groups), as calls of
//! the builtins' OpenCL C sub-group functions (`sub_group_*.cl`).
//!
//! OpenCL C picks a function's signedness by its argument's type, SPIR-V by
//! the opcode (`SMin`, `UMin`): the overload called is the opcode's (and,
//! where the result does not depend on it, the unsigned one of moves and
//! comparisons, SPIR-V's integers being unsigned in OpenCL). A
//! bool goes to a function as an `int`, and a vector whole only to the
//! broadcasts, which take vectors; to the others, component by component
//! (each component is a collective of its own, which is what the SPIR-V
//! instruction computes).

use crate::binary::Inst;
use crate::decorations::Id;
use crate::error::Result;
use crate::ll::{self, NONAME};
use crate::mangle::{mangle, CType};
use crate::translator::Tr;
use crate::types::Kind;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMIntPredicate;
use rspirv::dr::Operand;
use rspirv::spirv::{GroupOperation, Op, Scope};

/// What the components of a collective's value must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Elem {
    Int,
    Float,
    Bool,
    Any,
}

impl Elem {
    fn describe(self) -> &'static str {
        match self {
            Elem::Int => "integers",
            Elem::Float => "floating-point numbers",
            Elem::Bool => "bools",
            Elem::Any => "integers, floating-point numbers or bools",
        }
    }
}

/// An arithmetic collective: the OpenCL C name of its operation, what it
/// takes, and whether its integers are signed.
fn arithmetic(op: Op) -> Option<(&'static str, Elem, bool)> {
    use Op::*;
    Some(match op {
        GroupIAdd | GroupNonUniformIAdd => ("add", Elem::Int, true),
        GroupFAdd | GroupNonUniformFAdd => ("add", Elem::Float, true),
        GroupIMulKHR | GroupNonUniformIMul => ("mul", Elem::Int, true),
        GroupFMulKHR | GroupNonUniformFMul => ("mul", Elem::Float, true),
        GroupSMin | GroupNonUniformSMin => ("min", Elem::Int, true),
        GroupUMin | GroupNonUniformUMin => ("min", Elem::Int, false),
        GroupFMin | GroupNonUniformFMin => ("min", Elem::Float, true),
        GroupSMax | GroupNonUniformSMax => ("max", Elem::Int, true),
        GroupUMax | GroupNonUniformUMax => ("max", Elem::Int, false),
        GroupFMax | GroupNonUniformFMax => ("max", Elem::Float, true),
        GroupBitwiseAndKHR | GroupNonUniformBitwiseAnd => ("and", Elem::Int, false),
        GroupBitwiseOrKHR | GroupNonUniformBitwiseOr => ("or", Elem::Int, false),
        GroupBitwiseXorKHR | GroupNonUniformBitwiseXor => ("xor", Elem::Int, false),
        GroupLogicalAndKHR | GroupNonUniformLogicalAnd => ("logical_and", Elem::Bool, true),
        GroupLogicalOrKHR | GroupNonUniformLogicalOr => ("logical_or", Elem::Bool, true),
        GroupLogicalXorKHR | GroupNonUniformLogicalXor => ("logical_xor", Elem::Bool, true),
        _ => return None,
    })
}

/// The `uint4` of a ballot.
fn ballot_ctype() -> CType {
    CType::Vector(Box::new(CType::UInt), 4)
}

impl Tr<'_> {
    /// Whether `ty` is a scalar or vector whose components are `want`.
    fn made_of(&self, ty: Id, want: Elem) -> Result<bool> {
        let e = self.scalar_of(ty)?;
        Ok(matches!(
            (self.kind(e)?, want),
            (Kind::Int(_), Elem::Int | Elem::Any)
                | (Kind::Float(_), Elem::Float | Elem::Any)
                | (Kind::Bool, Elem::Bool | Elem::Any)
        ))
    }

    fn expect_made_of(&self, inst: &Inst, ty: Id, want: Elem) -> Result<()> {
        if self.made_of(ty, want)? {
            Ok(())
        } else {
            Err(inst.err(format!(
                "the value is not a scalar or vector of {}",
                want.describe()
            )))
        }
    }

    fn expect_bool_result(&self, inst: &Inst, ty: Id) -> Result<()> {
        if matches!(self.kind(ty)?, Kind::Bool) {
            Ok(())
        } else {
            Err(inst.err("the result type is not a bool"))
        }
    }

    fn expect_scalar_int_result(&self, inst: &Inst, ty: Id) -> Result<()> {
        if matches!(self.kind(ty)?, Kind::Int(_)) {
            Ok(())
        } else {
            Err(inst.err("the result type is not a scalar integer"))
        }
    }

    /// Whether `ty` is a ballot: four 32-bit integers.
    fn is_ballot(&self, ty: Id) -> Result<bool> {
        Ok(matches!(self.kind(ty)?, Kind::Vector(_, 4)) && self.int_bits(ty) == Some(32))
    }

    /// Operand `n`, a ballot.
    fn ballot_operand(&mut self, inst: &Inst, n: usize) -> Result<LLVMValueRef> {
        let v = self.arg_any(inst, n)?;
        if !self.is_ballot(v.ty)? {
            return Err(inst.err("the ballot is not a vector of four 32-bit integers"));
        }
        Ok(v.v)
    }

    /// Operand `n`, a scalar integer (a lane, a delta, a bit index), as
    /// an i32.
    pub(crate) unsafe fn lane_operand(&mut self, inst: &Inst, n: usize) -> Result<LLVMValueRef> {
        let v = self.arg_any(inst, n)?;
        if !matches!(self.kind(v.ty)?, Kind::Int(_)) {
            return Err(inst.err(format!("operand {n} is not a scalar integer")));
        }
        let i32t = LLVMInt32TypeInContext(self.ctx);
        Ok(LLVMBuildIntCast2(self.b, v.v, i32t, 0, NONAME))
    }

    /// Operand `n`, a cluster size: a constant power of two.
    unsafe fn cluster_size(&mut self, inst: &Inst, n: usize) -> Result<LLVMValueRef> {
        let id = inst.id(n)?;
        let size = self
            .const_u64(id)
            .ok_or_else(|| inst.err("the cluster size is not an integer constant"))?;
        if !size.is_power_of_two() || size > u32::MAX as u64 {
            return Err(inst.err(format!("a cluster size of {size} is not a power of two")));
        }
        Ok(ll::i32c(self.ctx, size))
    }

    /// An `int` from the library as a bool.
    unsafe fn is_true(&mut self, r: LLVMValueRef) -> LLVMValueRef {
        LLVMBuildICmp(
            self.b,
            LLVMIntPredicate::LLVMIntNE,
            r,
            LLVMConstNull(LLVMTypeOf(r)),
            NONAME,
        )
    }

    /// A bool as the `int` a library function takes.
    unsafe fn as_int(&mut self, p: LLVMValueRef) -> LLVMValueRef {
        LLVMBuildZExt(self.b, p, LLVMInt32TypeInContext(self.ctx), NONAME)
    }

    /// The library's `name` for `first` and the types of `extra`, called on
    /// `x` and `extra`'s values.
    pub(crate) unsafe fn call_overload(
        &mut self,
        name: &str,
        first: CType,
        x: LLVMValueRef,
        extra: &[(CType, LLVMValueRef)],
        ret: Option<LLVMTypeRef>,
    ) -> Result<LLVMValueRef> {
        let mut types = vec![first];
        let mut args = vec![x];
        for (t, v) in extra {
            types.push(t.clone());
            args.push(*v);
        }
        self.call_library(&mangle(name, &types), &args, ret)
    }

    /// The collective `name` of `x`, of type `ty` (whose integers are
    /// `signed` or not), with arguments `extra` after it; its result is of
    /// type `ty`. A vector goes whole where `vectors` says the function
    /// takes it, else component by component.
    unsafe fn collective(
        &mut self,
        name: &str,
        ty: Id,
        x: LLVMValueRef,
        signed: bool,
        extra: &[(CType, LLVMValueRef)],
        vectors: bool,
    ) -> Result<LLVMValueRef> {
        match self.kind(ty)?.clone() {
            Kind::Bool => {
                let i = self.as_int(x);
                let r = self.call_overload(name, CType::Int, i, extra, None)?;
                Ok(self.is_true(r))
            }
            Kind::Int(_) | Kind::Float(_) => {
                let t = self.llty(ty)?;
                let c = self.ctype(ty, signed)?;
                self.call_overload(name, c, x, extra, Some(t))
            }
            Kind::Vector(e, n)
                if vectors && !self.is_bool(e) && matches!(n, 2 | 3 | 4 | 8 | 16) =>
            {
                let t = self.llty(ty)?;
                let c = self.ctype(ty, signed)?;
                self.call_overload(name, c, x, extra, Some(t))
            }
            Kind::Vector(e, n) => {
                let mut v = LLVMGetPoison(self.llty(ty)?);
                for k in 0..n {
                    let i = ll::i32c(self.ctx, k as u64);
                    let c = LLVMBuildExtractElement(self.b, x, i, NONAME);
                    let r = self.collective(name, e, c, signed, extra, false)?;
                    v = LLVMBuildInsertElement(self.b, v, r, i, NONAME);
                }
                Ok(v)
            }
            _ => Err(self.fail(format!(
                "%{ty} is not a scalar or vector of integers, floating-point numbers or bools"
            ))),
        }
    }

    /// An arithmetic collective (operands: scope, group operation, value,
    /// and a cluster size for a clustered reduction): `uniform` for a
    /// `Groups` instruction, whose sub-group functions lack the non-uniform
    /// ones' `non_uniform` (OpenCL C has uniform sub-group functions for
    /// add, min and max only; the others, met by every lane, are the
    /// non-uniform ones).
    unsafe fn sub_group_arithmetic(
        &mut self,
        inst: &Inst,
        ty: Id,
        uniform: bool,
    ) -> Result<LLVMValueRef> {
        let (what, elem, signed) =
            arithmetic(inst.op()).ok_or_else(|| inst.err("not an arithmetic group operation"))?;
        let x = self.arg(inst, 2, ty)?;
        self.expect_made_of(inst, ty, elem)?;
        let prefix = if uniform && matches!(what, "add" | "min" | "max") {
            "sub_group_"
        } else {
            "sub_group_non_uniform_"
        };
        let operation = match inst.get(1) {
            Some(Operand::GroupOperation(g)) => *g,
            _ => return Err(inst.err("the group operation is missing")),
        };
        if operation != GroupOperation::ClusteredReduce && inst.get(3).is_some() {
            return Err(inst.err("a cluster size for an operation other than ClusteredReduce"));
        }
        let (name, extra) = match operation {
            GroupOperation::Reduce => (format!("{prefix}reduce_{what}"), Vec::new()),
            GroupOperation::InclusiveScan => (format!("{prefix}scan_inclusive_{what}"), Vec::new()),
            GroupOperation::ExclusiveScan => (format!("{prefix}scan_exclusive_{what}"), Vec::new()),
            GroupOperation::ClusteredReduce if !uniform => {
                if inst.get(3).is_none() {
                    return Err(inst.err("ClusteredReduce without a cluster size"));
                }
                let size = self.cluster_size(inst, 3)?;
                (
                    format!("sub_group_clustered_reduce_{what}"),
                    vec![(CType::UInt, size)],
                )
            }
            g => {
                return Err(inst.err(format!(
                    "group operation {g:?} is not supported: Reduce, InclusiveScan, ExclusiveScan{} are",
                    if uniform { "" } else { " and ClusteredReduce" }
                )))
            }
        };
        self.collective(&name, ty, x, signed, &extra, false)
    }

    /// `OpControlBarrier` with Subgroup execution scope.
    pub fn sub_group_barrier(&mut self, flags: LLVMValueRef) -> Result<()> {
        self.call_library("_Z17sub_group_barrierj", &[flags], None)?;
        Ok(())
    }

    /// A `Groups` instruction (`OpGroupAll`...) at Subgroup scope.
    pub fn sub_group_uniform(&mut self, inst: &Inst) -> Result<()> {
        let op = inst.op();
        if matches!(op, Op::GroupAsyncCopy | Op::GroupWaitEvents) {
            return Err(
                inst.err("async copies are made by work-groups: the scope is not Workgroup")
            );
        }
        let (_, ty) = self.res(inst)?;
        // SAFETY: library calls with checked operands.
        unsafe {
            let v = match op {
                Op::GroupAll | Op::GroupAny => {
                    self.expect_bool_result(inst, ty)?;
                    let p = self.arg(inst, 1, ty)?;
                    let name = if op == Op::GroupAll {
                        "sub_group_all"
                    } else {
                        "sub_group_any"
                    };
                    self.collective(name, ty, p, true, &[], false)?
                }
                Op::GroupBroadcast => {
                    let x = self.arg(inst, 1, ty)?;
                    self.expect_made_of(inst, ty, Elem::Any)?;
                    let lane = self.lane_operand(inst, 2)?;
                    self.collective(
                        "sub_group_broadcast",
                        ty,
                        x,
                        false,
                        &[(CType::UInt, lane)],
                        true,
                    )?
                }
                _ => self.sub_group_arithmetic(inst, ty, true)?,
            };
            self.set(inst, v)
        }
    }

    /// An `OpGroupNonUniform*` instruction.
    pub fn group_non_uniform(&mut self, inst: &Inst) -> Result<()> {
        let op = inst.op();
        let scope = self.scope(inst, 0)?;
        if scope == Scope::Workgroup as u64 {
            return Err(inst.err(format!(
                "Op{op:?} at Workgroup scope is not supported: the device has non-uniform group operations on sub-groups only"
            )));
        }
        if scope != Scope::Subgroup as u64 {
            return Err(inst.err(format!("scope {scope} is not Subgroup")));
        }
        let (_, ty) = self.res(inst)?;
        // SAFETY: library calls with checked operands.
        unsafe {
            let v = match op {
                Op::GroupNonUniformElect => {
                    self.expect_bool_result(inst, ty)?;
                    let r = self.call_library("_Z15sub_group_electv", &[], None)?;
                    self.is_true(r)
                }
                Op::GroupNonUniformAll | Op::GroupNonUniformAny => {
                    self.expect_bool_result(inst, ty)?;
                    let p = self.arg(inst, 1, ty)?;
                    let name = if op == Op::GroupNonUniformAll {
                        "sub_group_non_uniform_all"
                    } else {
                        "sub_group_non_uniform_any"
                    };
                    self.collective(name, ty, p, true, &[], false)?
                }
                Op::GroupNonUniformAllEqual => {
                    self.expect_bool_result(inst, ty)?;
                    let x = self.arg_any(inst, 1)?;
                    self.expect_made_of(inst, x.ty, Elem::Any)?;
                    // Component by component, all of them equal.
                    let e = self.scalar_of(x.ty)?;
                    let n = self.width_of(x.ty)?;
                    let vector = matches!(self.kind(x.ty)?, Kind::Vector(..));
                    let mut all = None;
                    for k in 0..n {
                        let c = if vector {
                            LLVMBuildExtractElement(
                                self.b,
                                x.v,
                                ll::i32c(self.ctx, k as u64),
                                NONAME,
                            )
                        } else {
                            x.v
                        };
                        let r = if self.is_bool(e) {
                            let i = self.as_int(c);
                            self.call_overload(
                                "sub_group_non_uniform_all_equal",
                                CType::Int,
                                i,
                                &[],
                                None,
                            )?
                        } else {
                            let t = self.ctype(e, false)?;
                            self.call_overload("sub_group_non_uniform_all_equal", t, c, &[], None)?
                        };
                        let same = self.is_true(r);
                        all = Some(match all {
                            None => same,
                            Some(a) => LLVMBuildAnd(self.b, a, same, NONAME),
                        });
                    }
                    all.ok_or_else(|| inst.err("the value has no components"))?
                }
                Op::GroupNonUniformBroadcast => {
                    let x = self.arg(inst, 1, ty)?;
                    self.expect_made_of(inst, ty, Elem::Any)?;
                    let lane = self.lane_operand(inst, 2)?;
                    self.collective(
                        "sub_group_non_uniform_broadcast",
                        ty,
                        x,
                        false,
                        &[(CType::UInt, lane)],
                        true,
                    )?
                }
                Op::GroupNonUniformBroadcastFirst => {
                    let x = self.arg(inst, 1, ty)?;
                    self.expect_made_of(inst, ty, Elem::Any)?;
                    self.collective("sub_group_broadcast_first", ty, x, false, &[], false)?
                }
                Op::GroupNonUniformBallot => {
                    if !self.is_ballot(ty)? {
                        return Err(inst.err("the result type is not four 32-bit integers"));
                    }
                    let p = self.arg_any(inst, 1)?;
                    if !matches!(self.kind(p.ty)?, Kind::Bool) {
                        return Err(inst.err("the predicate is not a bool"));
                    }
                    let i = self.as_int(p.v);
                    let t = self.llty(ty)?;
                    self.call_overload("sub_group_ballot", CType::Int, i, &[], Some(t))?
                }
                Op::GroupNonUniformInverseBallot => {
                    self.expect_bool_result(inst, ty)?;
                    let b = self.ballot_operand(inst, 1)?;
                    let r = self.call_overload(
                        "sub_group_inverse_ballot",
                        ballot_ctype(),
                        b,
                        &[],
                        None,
                    )?;
                    self.is_true(r)
                }
                Op::GroupNonUniformBallotBitExtract => {
                    self.expect_bool_result(inst, ty)?;
                    let b = self.ballot_operand(inst, 1)?;
                    let index = self.lane_operand(inst, 2)?;
                    let r = self.call_overload(
                        "sub_group_ballot_bit_extract",
                        ballot_ctype(),
                        b,
                        &[(CType::UInt, index)],
                        None,
                    )?;
                    self.is_true(r)
                }
                Op::GroupNonUniformBallotBitCount => {
                    self.expect_scalar_int_result(inst, ty)?;
                    let name =
                        match inst.get(1) {
                            Some(Operand::GroupOperation(GroupOperation::Reduce)) => {
                                "sub_group_ballot_bit_count"
                            }
                            Some(Operand::GroupOperation(GroupOperation::InclusiveScan)) => {
                                "sub_group_ballot_inclusive_scan"
                            }
                            Some(Operand::GroupOperation(GroupOperation::ExclusiveScan)) => {
                                "sub_group_ballot_exclusive_scan"
                            }
                            _ => return Err(inst.err(
                                "the group operation is not Reduce, InclusiveScan or ExclusiveScan",
                            )),
                        };
                    let b = self.ballot_operand(inst, 2)?;
                    let r = self.call_overload(name, ballot_ctype(), b, &[], None)?;
                    LLVMBuildIntCast2(self.b, r, self.llty(ty)?, 0, NONAME)
                }
                Op::GroupNonUniformBallotFindLSB | Op::GroupNonUniformBallotFindMSB => {
                    self.expect_scalar_int_result(inst, ty)?;
                    let b = self.ballot_operand(inst, 1)?;
                    let name = if op == Op::GroupNonUniformBallotFindLSB {
                        "sub_group_ballot_find_lsb"
                    } else {
                        "sub_group_ballot_find_msb"
                    };
                    let r = self.call_overload(name, ballot_ctype(), b, &[], None)?;
                    LLVMBuildIntCast2(self.b, r, self.llty(ty)?, 0, NONAME)
                }
                Op::GroupNonUniformShuffle
                | Op::GroupNonUniformShuffleXor
                | Op::GroupNonUniformShuffleUp
                | Op::GroupNonUniformShuffleDown => {
                    let x = self.arg(inst, 1, ty)?;
                    self.expect_made_of(inst, ty, Elem::Any)?;
                    let lane = self.lane_operand(inst, 2)?;
                    let name = match op {
                        Op::GroupNonUniformShuffle => "sub_group_shuffle",
                        Op::GroupNonUniformShuffleXor => "sub_group_shuffle_xor",
                        Op::GroupNonUniformShuffleUp => "sub_group_shuffle_up",
                        _ => "sub_group_shuffle_down",
                    };
                    self.collective(name, ty, x, false, &[(CType::UInt, lane)], false)?
                }
                Op::GroupNonUniformRotateKHR => {
                    let x = self.arg(inst, 1, ty)?;
                    self.expect_made_of(inst, ty, Elem::Any)?;
                    let delta = self.lane_operand(inst, 2)?;
                    if inst.get(3).is_some() {
                        let size = self.cluster_size(inst, 3)?;
                        self.collective(
                            "sub_group_clustered_rotate",
                            ty,
                            x,
                            false,
                            &[(CType::Int, delta), (CType::UInt, size)],
                            false,
                        )?
                    } else {
                        self.collective(
                            "sub_group_rotate",
                            ty,
                            x,
                            false,
                            &[(CType::Int, delta)],
                            false,
                        )?
                    }
                }
                _ => self.sub_group_arithmetic(inst, ty, false)?,
            };
            self.set(inst, v)
        }
    }
}
