//! Atomics (LLVM's atomic instructions, which the builtins' own atomic
//! functions come to once inlined), barriers and fences (the builtins'
//! `barrier` and `mem_fence`), and work-group operations (the builtins'
//! `work_group_*` and async copies); those at Subgroup scope are
//! `sub_groups`'.

use crate::binary::Inst;
use crate::error::Result;
use crate::ll::{self, NONAME};
use crate::mangle::{self, CType};
use crate::translator::Tr;
use crate::types::Kind;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMAtomicOrdering as AO, LLVMAtomicRMWBinOp as RMW};
use rspirv::dr::Operand;
use rspirv::spirv::{GroupOperation, Op, Scope, StorageClass};

/// The LLVM ordering memory semantics ask for (a non-constant one is the strongest).
fn ordering(sem: Option<u64>) -> AO {
    match sem {
        None => AO::LLVMAtomicOrderingSequentiallyConsistent,
        Some(s) if s & 0x10 != 0 => AO::LLVMAtomicOrderingSequentiallyConsistent,
        Some(s) if s & 0x8 != 0 => AO::LLVMAtomicOrderingAcquireRelease,
        Some(s) if s & 0x4 != 0 => AO::LLVMAtomicOrderingRelease,
        Some(s) if s & 0x2 != 0 => AO::LLVMAtomicOrderingAcquire,
        Some(_) => AO::LLVMAtomicOrderingMonotonic,
    }
}

/// `CLK_*_MEM_FENCE` flags for the memory classes of semantics `sem`.
fn fence_flags(sem: u64) -> u64 {
    let mut f = 0;
    if sem & 0x100 != 0 {
        f |= 1;
    }
    if sem & 0x200 != 0 {
        f |= 2;
    }
    if sem & 0x800 != 0 {
        f |= 4;
    }
    f
}

impl Tr<'_> {
    pub(crate) fn scope(&self, inst: &Inst, n: usize) -> Result<u64> {
        let id = inst.id(n)?;
        self.const_u64(id)
            .ok_or_else(|| inst.err(format!("scope operand {n} is not an integer constant")))
    }

    pub fn atomic(&mut self, inst: &Inst) -> Result<()> {
        let op = inst.op();
        let p = self.arg_any(inst, 0)?;
        let (sc, pointee) = self
            .pointer(p.ty)
            .ok_or_else(|| inst.err("the pointer operand is not a pointer"))?;
        if sc == StorageClass::UniformConstant {
            return Err(inst.err("UniformConstant memory has no atomics"));
        }
        self.scope(inst, 1)?;
        let sem = self.const_u64(inst.id(2)?);
        let order = ordering(sem);
        let is_int = matches!(self.kind(pointee)?, Kind::Int(32 | 64));
        let is_float = matches!(self.kind(pointee)?, Kind::Float(32 | 64));
        let float_op = matches!(
            op,
            Op::AtomicFAddEXT | Op::AtomicFMinEXT | Op::AtomicFMaxEXT
        );
        let flag = matches!(op, Op::AtomicFlagTestAndSet | Op::AtomicFlagClear);
        let typed_ok = if flag {
            matches!(self.kind(pointee)?, Kind::Int(32))
        } else if float_op {
            is_float
        } else if matches!(op, Op::AtomicLoad | Op::AtomicStore | Op::AtomicExchange) {
            is_int || is_float
        } else {
            is_int
        };
        if !typed_ok {
            return Err(inst.err("the pointee type does not take this atomic"));
        }
        let pt = self.llty(pointee)?;
        let size = self.size_of(pointee)? as u32;
        let b = self.b;
        // SAFETY: atomic instructions on a pointer to a checked type, with
        // operands of that type.
        unsafe {
            let rmw = |tr: &mut Self, bop: RMW, v: LLVMValueRef| {
                LLVMBuildAtomicRMW(tr.b, bop, p.v, v, order, 0)
            };
            let result = match op {
                Op::AtomicLoad => {
                    let l = LLVMBuildLoad2(b, pt, p.v, NONAME);
                    LLVMSetOrdering(
                        l,
                        if order == AO::LLVMAtomicOrderingRelease
                            || order == AO::LLVMAtomicOrderingAcquireRelease
                        {
                            AO::LLVMAtomicOrderingAcquire
                        } else {
                            order
                        },
                    );
                    LLVMSetAlignment(l, size);
                    Some(l)
                }
                Op::AtomicStore => {
                    let v = self.arg(inst, 3, pointee)?;
                    let s = LLVMBuildStore(b, v, p.v);
                    LLVMSetOrdering(
                        s,
                        if order == AO::LLVMAtomicOrderingAcquire
                            || order == AO::LLVMAtomicOrderingAcquireRelease
                        {
                            AO::LLVMAtomicOrderingRelease
                        } else {
                            order
                        },
                    );
                    LLVMSetAlignment(s, size);
                    None
                }
                Op::AtomicFlagClear => {
                    let s = LLVMBuildStore(b, LLVMConstNull(pt), p.v);
                    LLVMSetOrdering(s, AO::LLVMAtomicOrderingSequentiallyConsistent);
                    LLVMSetAlignment(s, 4);
                    None
                }
                Op::AtomicFlagTestAndSet => {
                    let old = rmw(self, RMW::LLVMAtomicRMWBinOpXchg, LLVMConstInt(pt, 1, 0));
                    Some(LLVMBuildICmp(
                        b,
                        llvm_sys::LLVMIntPredicate::LLVMIntNE,
                        old,
                        LLVMConstNull(pt),
                        NONAME,
                    ))
                }
                Op::AtomicCompareExchange | Op::AtomicCompareExchangeWeak => {
                    let unequal = self.const_u64(inst.id(3)?);
                    let v = self.arg(inst, 4, pointee)?;
                    let cmp = self.arg(inst, 5, pointee)?;
                    let failure = match ordering(unequal) {
                        AO::LLVMAtomicOrderingRelease | AO::LLVMAtomicOrderingMonotonic => {
                            AO::LLVMAtomicOrderingMonotonic
                        }
                        AO::LLVMAtomicOrderingAcquireRelease | AO::LLVMAtomicOrderingAcquire => {
                            AO::LLVMAtomicOrderingAcquire
                        }
                        o => o,
                    };
                    let success = if order == AO::LLVMAtomicOrderingMonotonic
                        && failure != AO::LLVMAtomicOrderingMonotonic
                    {
                        failure
                    } else {
                        order
                    };
                    let x = LLVMBuildAtomicCmpXchg(b, p.v, cmp, v, success, failure, 0);
                    Some(LLVMBuildExtractValue(b, x, 0, NONAME))
                }
                Op::AtomicIIncrement | Op::AtomicIDecrement => {
                    let bop = if op == Op::AtomicIIncrement {
                        RMW::LLVMAtomicRMWBinOpAdd
                    } else {
                        RMW::LLVMAtomicRMWBinOpSub
                    };
                    Some(rmw(self, bop, LLVMConstInt(pt, 1, 0)))
                }
                _ => {
                    let v = self.arg(inst, 3, pointee)?;
                    let bop = match op {
                        Op::AtomicExchange => RMW::LLVMAtomicRMWBinOpXchg,
                        Op::AtomicIAdd => RMW::LLVMAtomicRMWBinOpAdd,
                        Op::AtomicISub => RMW::LLVMAtomicRMWBinOpSub,
                        Op::AtomicSMin => RMW::LLVMAtomicRMWBinOpMin,
                        Op::AtomicUMin => RMW::LLVMAtomicRMWBinOpUMin,
                        Op::AtomicSMax => RMW::LLVMAtomicRMWBinOpMax,
                        Op::AtomicUMax => RMW::LLVMAtomicRMWBinOpUMax,
                        Op::AtomicAnd => RMW::LLVMAtomicRMWBinOpAnd,
                        Op::AtomicOr => RMW::LLVMAtomicRMWBinOpOr,
                        Op::AtomicXor => RMW::LLVMAtomicRMWBinOpXor,
                        Op::AtomicFAddEXT => RMW::LLVMAtomicRMWBinOpFAdd,
                        Op::AtomicFMinEXT => RMW::LLVMAtomicRMWBinOpFMin,
                        _ => RMW::LLVMAtomicRMWBinOpFMax,
                    };
                    Some(rmw(self, bop, v))
                }
            };
            match result {
                Some(v) => {
                    let (_, ty) = self.res(inst)?;
                    let want_bool = op == Op::AtomicFlagTestAndSet;
                    if (want_bool && !matches!(self.kind(ty)?, Kind::Bool))
                        || (!want_bool && !self.same(ty, pointee))
                    {
                        return Err(inst.err("the result type is not the atomic's"));
                    }
                    self.set(inst, v)
                }
                None => Ok(()),
            }
        }
    }

    pub fn barrier(&mut self, inst: &Inst) -> Result<()> {
        let control = inst.op() == Op::ControlBarrier;
        let sem_at = if control { 2 } else { 1 };
        let mut sub_group = false;
        if control {
            let exec = self.scope(inst, 0)?;
            sub_group = exec == Scope::Subgroup as u64;
            if exec != Scope::Workgroup as u64 && !sub_group {
                return Err(inst.err(format!(
                    "execution scope {exec} is not Workgroup or Subgroup"
                )));
            }
        }
        self.scope(inst, sem_at - 1)?;
        let sem = self
            .const_u64(inst.id(sem_at)?)
            .ok_or_else(|| inst.err("the memory semantics are not a constant"))?;
        // SAFETY: a constant of the context.
        let flags = unsafe { ll::i32c(self.ctx, fence_flags(sem)) };
        if sub_group {
            return self.sub_group_barrier(flags);
        }
        let name = if control {
            "_Z7barrierj"
        } else {
            "_Z9mem_fencej"
        };
        self.call_library(name, &[flags], None)?;
        Ok(())
    }

    pub fn group(&mut self, inst: &Inst) -> Result<()> {
        let op = inst.op();
        let scope = self.scope(inst, 0)?;
        if scope == Scope::Subgroup as u64 {
            return self.sub_group_uniform(inst);
        }
        if scope != Scope::Workgroup as u64 {
            return Err(inst.err(format!("scope {scope} is not Workgroup or Subgroup")));
        }
        // SAFETY: library calls with checked operands.
        unsafe {
            match op {
                Op::GroupAsyncCopy => return self.async_copy(inst),
                Op::GroupWaitEvents => {
                    let n = self.arg_any(inst, 1)?;
                    let list = self.arg_any(inst, 2)?;
                    let Some((sc, ev)) = self.pointer(list.ty) else {
                        return Err(inst.err("the event list is not a pointer"));
                    };
                    if !matches!(self.kind(ev)?, Kind::Event)
                        || !matches!(self.kind(n.ty)?, Kind::Int(32))
                    {
                        return Err(inst.err("the operands are not a count and a list of events"));
                    }
                    let space = if sc == StorageClass::Generic { 4 } else { 0 };
                    let ptr = CType::pointer(space, false, CType::Named("ocl_event".into()));
                    let name = mangle::mangle("wait_group_events", &[CType::Int, ptr]);
                    self.call_library(&name, &[n.v, list.v], None)?;
                    return Ok(());
                }
                _ => {}
            }
            let (_, ty) = self.res(inst)?;
            let b = self.b;
            let i32t = LLVMInt32TypeInContext(self.ctx);
            let v = match op {
                Op::GroupAll | Op::GroupAny => {
                    let p = self.arg(inst, 1, ty)?;
                    if !matches!(self.kind(ty)?, Kind::Bool) {
                        return Err(inst.err("the predicate is not a bool"));
                    }
                    let i = LLVMBuildZExt(b, p, i32t, NONAME);
                    let name = if op == Op::GroupAll {
                        "_Z14work_group_alli"
                    } else {
                        "_Z14work_group_anyi"
                    };
                    let r = self.call_library(name, &[i], None)?;
                    LLVMBuildICmp(
                        b,
                        llvm_sys::LLVMIntPredicate::LLVMIntNE,
                        r,
                        LLVMConstNull(i32t),
                        NONAME,
                    )
                }
                Op::GroupBroadcast => {
                    let x = self.arg(inst, 1, ty)?;
                    let id = self.arg_any(inst, 2)?;
                    let Some(w) = self.int_bits(id.ty) else {
                        return Err(inst.err("the local id is not an integer"));
                    };
                    let n = self.width_of(id.ty)?;
                    if n > 3 || self.width_of(ty)? != 1 {
                        return Err(inst.err(
                            "the local id has more than 3 components or the value is a vector",
                        ));
                    }
                    let i64t = LLVMInt64TypeInContext(self.ctx);
                    let mut args = vec![x];
                    for k in 0..n {
                        let c = if n == 1 {
                            id.v
                        } else {
                            LLVMBuildExtractElement(b, id.v, ll::i32c(self.ctx, k as u64), NONAME)
                        };
                        args.push(if w < 64 {
                            LLVMBuildZExt(b, c, i64t, NONAME)
                        } else {
                            c
                        });
                    }
                    let mut types = vec![self.ctype(ty, true)?];
                    types.extend(std::iter::repeat_n(CType::ULong, n as usize));
                    let name = mangle::mangle("work_group_broadcast", &types);
                    self.call_library(&name, &args, None)?
                }
                _ => {
                    let how = match inst.get(1) {
                        Some(Operand::GroupOperation(GroupOperation::Reduce)) => "reduce",
                        Some(Operand::GroupOperation(GroupOperation::InclusiveScan)) => {
                            "scan_inclusive"
                        }
                        Some(Operand::GroupOperation(GroupOperation::ExclusiveScan)) => {
                            "scan_exclusive"
                        }
                        _ => return Err(inst.err("the group operation is not reduce or a scan")),
                    };
                    let (what, signed) = match op {
                        Op::GroupIAdd | Op::GroupFAdd => ("add", true),
                        Op::GroupFMin | Op::GroupSMin => ("min", true),
                        Op::GroupUMin => ("min", false),
                        Op::GroupFMax | Op::GroupSMax => ("max", true),
                        Op::GroupUMax => ("max", false),
                        Op::GroupIMulKHR | Op::GroupFMulKHR => ("mul", true),
                        Op::GroupBitwiseAndKHR => ("and", true),
                        Op::GroupBitwiseOrKHR => ("or", true),
                        Op::GroupBitwiseXorKHR => ("xor", true),
                        Op::GroupLogicalAndKHR => ("logical_and", true),
                        Op::GroupLogicalOrKHR => ("logical_or", true),
                        _ => ("logical_xor", true),
                    };
                    let logical = what.starts_with("logical");
                    let x = self.arg(inst, 2, ty)?;
                    let fname = format!("work_group_{how}_{what}");
                    if logical {
                        if !matches!(self.kind(ty)?, Kind::Bool) {
                            return Err(inst.err("the operand is not a bool"));
                        }
                        let i = LLVMBuildZExt(b, x, i32t, NONAME);
                        let r =
                            self.call_library(&mangle::mangle(&fname, &[CType::Int]), &[i], None)?;
                        LLVMBuildICmp(
                            b,
                            llvm_sys::LLVMIntPredicate::LLVMIntNE,
                            r,
                            LLVMConstNull(i32t),
                            NONAME,
                        )
                    } else {
                        if self.width_of(ty)? != 1 {
                            return Err(inst.err("the operand is not a scalar"));
                        }
                        let name = mangle::mangle(&fname, &[self.ctype(ty, signed)?]);
                        self.call_library(&name, &[x], None)?
                    }
                }
            };
            self.set(inst, v)
        }
    }

    unsafe fn async_copy(&mut self, inst: &Inst) -> Result<()> {
        let (_, ty) = self.res(inst)?;
        let dst = self.arg_any(inst, 1)?;
        let src = self.arg_any(inst, 2)?;
        let num = self.arg_any(inst, 3)?;
        let stride = self.arg_any(inst, 4)?;
        let event = self.arg(inst, 5, ty)?;
        let (Some((dsc, dp)), Some((ssc, sp))) = (self.pointer(dst.ty), self.pointer(src.ty))
        else {
            return Err(inst.err("the destination or source is not a pointer"));
        };
        if !self.same(dp, sp) || !matches!(self.kind(ty)?, Kind::Event) {
            return Err(inst.err("the pointee types differ or the result is not an event"));
        }
        let local_to_global = match (dsc, ssc) {
            (StorageClass::Workgroup, StorageClass::CrossWorkgroup) => false,
            (StorageClass::CrossWorkgroup, StorageClass::Workgroup) => true,
            _ => {
                return Err(inst.err("an async copy is between Workgroup and CrossWorkgroup memory"))
            }
        };
        let i64t = LLVMInt64TypeInContext(self.ctx);
        let wide = |tr: &Self, v: crate::translator::Val| -> Result<LLVMValueRef> {
            if !matches!(tr.kind(v.ty)?, Kind::Int(_)) {
                return Err(inst.err("the count or stride is not a scalar integer"));
            }
            Ok(LLVMBuildZExtOrBitCast(tr.b, v.v, i64t, NONAME))
        };
        let (n, s) = (wide(self, num)?, wide(self, stride)?);
        let elem = self.ctype(dp, true)?;
        let (ds, ss) = if local_to_global { (1, 3) } else { (3, 1) };
        let name = mangle::mangle(
            "async_work_group_strided_copy",
            &[
                CType::pointer(ds, false, elem.clone()),
                CType::pointer(ss, true, elem),
                CType::ULong,
                CType::ULong,
                CType::Named("ocl_event".into()),
            ],
        );
        let v = self.call_library(&name, &[dst.v, src.v, n, s, event], None)?;
        self.set(inst, v)
    }
}
