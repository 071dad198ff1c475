//! Why an instruction keeps a kernel from being vectorized, if it does:
//! what the transform cannot widen, given the shapes and where lanes part.

use crate::analysis::divergence::{DivergentLoop, Guard};
use crate::analysis::shape::{shape_of, Shape};
use crate::intrinsics::{intrinsic_name, lanewise};
use crate::types::{is_lane_type, is_packet_type, type_name};
use crate::values::const_int;
use compiler::llvm;
use compiler::vector_variants;
use kernel_ir::builtin_kinds::{is_query, writes_work_group_scratch};
use kernel_ir::sub_group_calls;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMOpcode, LLVMTypeKind};
use std::collections::{HashMap, HashSet};

/// Why `i` keeps the kernel from being vectorized at `width` work-items,
/// if it does.
pub(crate) unsafe fn check(
    i: LLVMValueRef,
    width: u32,
    shapes: &HashMap<LLVMValueRef, Shape>,
    divergent: &[DivergentLoop],
    guards: &[Guard],
    in_loops: &HashSet<LLVMBasicBlockRef>,
) -> Result<(), String> {
    let block = LLVMGetInstructionParent(i);
    let in_divergent_loop = divergent.iter().any(|l| l.body.contains(&block));
    let guarded = guards.iter().any(|g| g.runs(block));
    use LLVMOpcode::*;
    let shape = shape_of(i, shapes);
    let opcode = LLVMGetInstructionOpcode(i);
    let ty = LLVMTypeOf(i);
    let void = LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMVoidTypeKind;
    if shape != Shape::Uniform && !void && !is_lane_type(ty) && !is_packet_type(ty) {
        return Err(format!("a varying value of type {}", type_name(ty)));
    }
    match opcode {
        LLVMAlloca => {
            let m = LLVMGetGlobalParent(LLVMGetBasicBlockParent(block));
            if crate::analysis::private::private_array(m, i).is_none() {
                return Err("private memory it does not keep per lane (an alloca)".into());
            }
        }
        LLVMAtomicCmpXchg | LLVMFence | LLVMVAArg | LLVMInvoke | LLVMCallBr => {
            return Err(format!("an instruction it does not widen ({opcode:?})"))
        }
        LLVMAtomicRMW if !is_lane_type(ty) => {
            return Err(format!("an atomic of type {}", type_name(ty)));
        }
        // The collectives combine work-items' values there one work-item
        // after the other; reading what they left is any uniform load.
        LLVMStore | LLVMAtomicRMW if writes_work_group_scratch(i) => {
            return Err("a work-group collective".into());
        }
        LLVMLoad | LLVMStore => {
            if LLVMGetVolatile(i) != 0 || LLVMIsAtomic(i) != 0 {
                return Err("a volatile or atomic access".into());
            }
            let stored = LLVMTypeOf(LLVMGetOperand(i, 0));
            if opcode == LLVMStore
                && !is_lane_type(stored)
                && !is_packet_type(stored)
                && (shape_of(LLVMGetOperand(i, 0), shapes) != Shape::Uniform
                    || shape_of(LLVMGetOperand(i, 1), shapes) != Shape::Uniform)
            {
                return Err("a varying store of a vector or aggregate".into());
            }
            // Under a guard, the last lane taking it stores (as the last
            // of those work-items would, in turn); in a loop lanes leave
            // apart, which has no such order.
            if opcode == LLVMStore
                && (in_divergent_loop || (guarded && !is_lane_type(stored)))
                && shape_of(LLVMGetOperand(i, 1), shapes) == Shape::Uniform
            {
                return Err("a store to one place under a varying condition".into());
            }
        }
        LLVMBr | LLVMSwitch | LLVMIndirectBr => {
            let exit_test = divergent.iter().any(|l| l.exiting == block);
            let guard = guards.iter().any(|g| g.guard == block);
            if !exit_test
                && !guard
                && LLVMGetNumOperands(i) > 1
                && shape_of(LLVMGetOperand(i, 0), shapes) != Shape::Uniform
            {
                return Err("a branch that work-items may take differently".into());
            }
        }
        LLVMExtractValue | LLVMInsertValue if shape != Shape::Uniform => {
            return Err("varying aggregate code".into())
        }
        LLVMExtractElement | LLVMInsertElement if shape != Shape::Uniform => {
            let index = LLVMGetOperand(i, if opcode == LLVMExtractElement { 1 } else { 2 });
            if const_int(index).is_none() {
                return Err("a vector element chosen at run time".into());
            }
        }
        LLVMCall if crate::analysis::private::is_lifetime_marker(i) => {}
        // An assumption about each work-item: the vector form drops it.
        LLVMCall if crate::intrinsics::is_assume(i) => {}
        LLVMCall
            if crate::analysis::private::fill_length(i).is_some()
                && crate::analysis::private::into_private_array(
                    LLVMGetGlobalParent(LLVMGetBasicBlockParent(block)),
                    LLVMGetOperand(i, 0),
                ) => {}
        LLVMCall => {
            let Some(f) = llvm::called_function(i) else {
                return Err("an indirect call".into());
            };
            let name = llvm::name(f);
            if let Some(sg) = sub_group_calls::classify(f) {
                if sg.collective == sub_group_calls::Collective::Barrier {
                    return Ok(());
                }
                if in_divergent_loop || guarded {
                    return Err(format!("{name} under a condition work-items take apart"));
                }
                if !is_lane_type(LLVMTypeOf(LLVMGetOperand(i, 0))) {
                    return Err(format!("{name} of a vector"));
                }
                if sg.collective == sub_group_calls::Collective::Broadcast
                    && shape_of(LLVMGetOperand(i, 1), shapes) != Shape::Uniform
                {
                    return Err(format!(
                        "{name} from a lane that differs between work-items"
                    ));
                }
                return Ok(());
            }
            if is_query(&name) {
                return Ok(());
            }
            if compiler::printf::is_printf_call(i) {
                // Called lane by lane, in work-item order; once per
                // work-item only outside loops.
                if in_loops.contains(&block) {
                    return Err("a printf call in a loop".into());
                }
                if !LLVMGetFirstUse(i).is_null() {
                    return Err("a printf call whose result is used".into());
                }
                for k in 0..LLVMGetNumArgOperands(i) {
                    let a = LLVMGetOperand(i, k);
                    let ty = LLVMTypeOf(a);
                    if shape_of(a, shapes) != Shape::Uniform
                        && !is_lane_type(ty)
                        && !is_packet_type(ty)
                    {
                        return Err("a printf argument of a type it does not split".into());
                    }
                }
                return Ok(());
            }
            if let Some(intr) = intrinsic_name(f) {
                if shape == Shape::Uniform && void {
                    // llvm.assume, lifetime markers: nothing per lane.
                    return Ok(());
                }
                let Some(scalar_args) = lanewise(&intr) else {
                    return Err(format!("a call of {intr}"));
                };
                for &k in scalar_args {
                    if shape_of(LLVMGetOperand(i, k), shapes) != Shape::Uniform {
                        return Err(format!("a varying flag of {intr}"));
                    }
                }
                return Ok(());
            }
            // A math builtin's vector form is called in its form as wide
            // as all lanes' vectors together, where there is one.
            if vector_variants::widens(f) {
                let m = LLVMGetGlobalParent(f);
                if shape != Shape::Uniform && vector_variants::variant_at(m, f, width).is_none() {
                    return Err(format!(
                        "a call of {name} with no form {width} times as wide"
                    ));
                }
                return Ok(());
            }
            // A math builtin with vector variants has no side effects: a
            // uniform call of it runs once, a varying one once per lane.
            if !vector_variants::stays_a_call(f) {
                return Err(format!("a call of {name}"));
            }
            for k in 0..LLVMGetNumArgOperands(i) {
                if !is_lane_type(LLVMTypeOf(LLVMGetOperand(i, k))) {
                    return Err(format!("a call of {name} with a vector argument"));
                }
            }
        }
        _ => {}
    }
    Ok(())
}
