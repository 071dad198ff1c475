//! Each value's shape across the lanes of a vector form: uniform (one
//! scalar), affine (`base + lane * stride`, a constant stride) or varying
//! (a vector), computed as a least fixed point over the kernel's
//! instructions; and the inductions of a loop lanes leave apart that may
//! step every lane and stay affine.

use crate::types::is_vector;
use crate::values::{const_int, is_instruction};
use compiler::llvm;
use kernel_ir::builtin_kinds::{constant_dimension, is_local_id, is_query};
use kernel_ir::sub_group_calls;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::{LLVMABISizeOfType, LLVMGetModuleDataLayout};
use llvm_sys::{LLVMOpcode, LLVMTypeKind};
use std::collections::{HashMap, HashSet};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Shape {
    Uniform,
    /// Lane `l` is `base + l * stride` (in bytes for pointers).
    Affine(i64),
    Varying,
}

/// Lanes `stride` apart: uniform for none.
fn stepping(stride: i64) -> Shape {
    if stride == 0 {
        Shape::Uniform
    } else {
        Shape::Affine(stride)
    }
}

pub(crate) fn join(a: Shape, b: Shape) -> Shape {
    if a == b {
        a
    } else {
        Shape::Varying
    }
}

/// Whether header phi `p` of a loop work-items leave apart is an
/// induction stepped by a uniform amount (`i = gid; ...; i += size`, casts
/// allowed on the way) that nothing after the loop reads but through the
/// phis of its exit. Stepping every lane, those that left too, keeps it
/// affine; its value in a lane that left matters to no one in the loop,
/// as that lane's accesses are masked off, and what the exit's phis read
/// is kept per lane from the iteration it left in (`kept_after_leaving`).
pub(crate) unsafe fn steps_uniformly_inside(
    p: LLVMValueRef,
    body: &HashSet<LLVMBasicBlockRef>,
    shapes: &HashMap<LLVMValueRef, Shape>,
) -> bool {
    let from_inside =
        |v: LLVMValueRef| is_instruction(v) && body.contains(&LLVMGetInstructionParent(v));
    let incoming: Vec<LLVMValueRef> = (0..LLVMCountIncoming(p))
        .map(|k| LLVMGetIncomingValue(p, k))
        .collect();
    let next = match incoming[..] {
        [a, b] if !from_inside(a) && from_inside(b) => b,
        [a, b] if from_inside(a) && !from_inside(b) => a,
        _ => return false,
    };
    let mut chain = vec![p];
    if !step_of(next, p, shapes, &mut chain) {
        return false;
    }
    // Nothing computed from it leaves the loop, but through another of
    // the header's phis (which a lane that left keeps as it was).
    let header = LLVMGetInstructionParent(p);
    let mut seen: HashSet<LLVMValueRef> = HashSet::from([p]);
    let mut work = vec![p];
    while let Some(v) = work.pop() {
        let mut u = LLVMGetFirstUse(v);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            u = LLVMGetNextUse(u);
            if LLVMIsAInstruction(user).is_null() {
                return false;
            }
            if !body.contains(&LLVMGetInstructionParent(user)) {
                if LLVMIsAPHINode(user).is_null() {
                    return false;
                }
                continue;
            }
            let another_header_phi = !LLVMIsAPHINode(user).is_null()
                && LLVMGetInstructionParent(user) == header
                && user != p;
            if !another_header_phi && seen.insert(user) {
                work.push(user);
            }
        }
    }
    true
}

/// Whether `v` is `p` plus uniform amounts through adds, subtractions,
/// GEPs and integer casts; the instructions on the way go to `chain`.
pub(crate) unsafe fn step_of(
    v: LLVMValueRef,
    p: LLVMValueRef,
    shapes: &HashMap<LLVMValueRef, Shape>,
    chain: &mut Vec<LLVMValueRef>,
) -> bool {
    use LLVMOpcode::*;
    if v == p {
        return true;
    }
    if !is_instruction(v) {
        return false;
    }
    let op = |k: u32| LLVMGetOperand(v, k);
    let uniform = |k: u32| shape_of(op(k), shapes) == Shape::Uniform;
    let stepped = match LLVMGetInstructionOpcode(v) {
        LLVMTrunc | LLVMSExt | LLVMZExt => step_of(op(0), p, shapes, chain),
        // `(x << 32) >> 32`, a sign extension as an optimizer writes it.
        LLVMAShr if is_instruction(op(0)) && LLVMGetInstructionOpcode(op(0)) == LLVMShl => {
            let shl = op(0);
            const_int(op(1)).is_some()
                && const_int(LLVMGetOperand(shl, 1)) == const_int(op(1))
                && step_of(LLVMGetOperand(shl, 0), p, shapes, chain)
                && {
                    chain.push(shl);
                    true
                }
        }
        LLVMAdd => {
            (uniform(1) && step_of(op(0), p, shapes, chain))
                || (uniform(0) && step_of(op(1), p, shapes, chain))
        }
        LLVMSub => uniform(1) && step_of(op(0), p, shapes, chain),
        LLVMGetElementPtr => {
            (1..LLVMGetNumOperands(v) as u32).all(uniform) && step_of(op(0), p, shapes, chain)
        }
        _ => false,
    };
    if stepped {
        chain.push(v);
    }
    stepped
}

/// The shape of every instruction: the least fixed point from "all
/// uniform", where a value only ever moves up (uniform, then one affine
/// stride, then varying). A phi's incoming value not yet seen is left out
/// of the phi's first shape, so an induction (`p = phi [p0, p + step]`)
/// takes its start's stride rather than none.
pub(crate) unsafe fn shapes(
    m: LLVMModuleRef,
    insts: &[LLVMValueRef],
    varying: &HashSet<LLVMValueRef>,
    linear_id: Option<LLVMValueRef>,
) -> Result<HashMap<LLVMValueRef, Shape>, String> {
    let layout = LLVMGetModuleDataLayout(m);
    let mut shapes: HashMap<LLVMValueRef, Shape> = HashMap::new();
    if let Some(p) = linear_id {
        shapes.insert(p, Shape::Affine(1));
    }
    let mut seen: HashSet<LLVMValueRef> = HashSet::new();
    loop {
        let mut changed = false;
        for &i in insts {
            let new = if varying.contains(&i) {
                Shape::Varying
            } else {
                match transfer(i, &shapes, &seen, layout)? {
                    // A vector's lanes are its elements, not work-items:
                    // only a scalar steps from one work-item to the next.
                    Shape::Affine(_) if is_vector(LLVMTypeOf(i)) => Shape::Varying,
                    s => s,
                }
            };
            seen.insert(i);
            let old = shapes.get(&i).copied().unwrap_or(Shape::Uniform);
            let new = match (old, new) {
                (Shape::Affine(a), Shape::Affine(b)) if a != b => Shape::Varying,
                (Shape::Affine(_), Shape::Uniform) | (Shape::Varying, _) => old,
                _ => new,
            };
            if new != old {
                shapes.insert(i, new);
                changed = true;
            }
        }
        if !changed {
            return Ok(shapes);
        }
    }
}

pub(crate) unsafe fn shape_of(v: LLVMValueRef, shapes: &HashMap<LLVMValueRef, Shape>) -> Shape {
    shapes.get(&v).copied().unwrap_or(Shape::Uniform)
}

pub(crate) unsafe fn transfer(
    i: LLVMValueRef,
    shapes: &HashMap<LLVMValueRef, Shape>,
    seen: &HashSet<LLVMValueRef>,
    layout: llvm_sys::target::LLVMTargetDataRef,
) -> Result<Shape, String> {
    use LLVMOpcode::*;
    use Shape::*;
    let n = LLVMGetNumOperands(i) as u32;
    let op = |k: u32| LLVMGetOperand(i, k);
    let s = |k: u32| shape_of(op(k), shapes);
    let all_uniform = |upto: u32| (0..upto).all(|k| s(k) == Uniform);
    let opcode = LLVMGetInstructionOpcode(i);
    Ok(match opcode {
        LLVMPHI => {
            let mut out = None;
            for k in 0..LLVMCountIncoming(i) {
                let v = LLVMGetIncomingValue(i, k);
                if is_instruction(v) && !seen.contains(&v) {
                    continue;
                }
                let sk = shape_of(v, shapes);
                out = Some(out.map_or(sk, |o| join(o, sk)));
            }
            out.unwrap_or(Uniform)
        }
        // Each lane's atomic is its own, whatever its operands.
        LLVMAtomicRMW | LLVMAtomicCmpXchg => Varying,
        _ if all_uniform(n) && opcode != LLVMCall => Uniform,
        LLVMAdd | LLVMSub | LLVMOr => match (s(0), s(1)) {
            _ if opcode == LLVMOr && LLVMGetIsDisjoint(i) == 0 => Varying,
            (Affine(a), Uniform) => Affine(a),
            (Uniform, Affine(b)) if opcode == LLVMSub => Affine(b.wrapping_neg()),
            (Uniform, Affine(b)) => Affine(b),
            // Equal steps cancel: `gid - lid` is the same in every lane.
            (Affine(a), Affine(b)) if opcode == LLVMSub => stepping(a.wrapping_sub(b)),
            (Affine(a), Affine(b)) => stepping(a.wrapping_add(b)),
            _ => Varying,
        },
        LLVMMul => match (s(0), s(1), const_int(op(0)), const_int(op(1))) {
            (Affine(a), _, _, Some(c)) | (_, Affine(a), Some(c), _) => Affine(a.wrapping_mul(c)),
            _ => Varying,
        },
        LLVMShl => match (s(0), const_int(op(1))) {
            (Affine(a), Some(c)) if (0..63).contains(&c) => match a.checked_mul(1 << c) {
                Some(stride) => Affine(stride),
                None => Varying,
            },
            _ => Varying,
        },
        // `(x << 32) >> 30`, a sign-extended 32-bit index times 4 as
        // optimizers leave it, steps as `x` does times 4: a right shift is
        // affine when it divides the stride exactly and leaves at least 32
        // bits, the wrap the casts already assume away.
        LLVMAShr | LLVMLShr => match (s(0), const_int(op(1))) {
            (Affine(a), Some(c))
                if c >= 0
                    && c as u32 + 32 <= LLVMGetIntTypeWidth(LLVMTypeOf(i))
                    && a % (1 << c) == 0 =>
            {
                Affine(a >> c)
            }
            _ => Varying,
        },
        // An address space cast is no change of address on the host.
        LLVMTrunc | LLVMZExt | LLVMSExt | LLVMAddrSpaceCast => s(0),
        LLVMGetElementPtr => gep_shape(i, shapes, layout),
        LLVMCall => {
            let Some(f) = llvm::called_function(i) else {
                return Err("an indirect call".into());
            };
            let name = llvm::name(f);
            if let Some(sg) = sub_group_calls::classify(f) {
                // Lanes are one sub-group: a reduction is the same in all.
                if sg.is_uniform() {
                    Uniform
                } else {
                    Varying
                }
            } else if is_local_id(&name) {
                match constant_dimension(i) {
                    Some(0) => Affine(1),
                    Some(_) => Uniform,
                    None => return Err("a local id of a dimension not known".into()),
                }
            } else if is_query(&name) {
                Uniform
            } else {
                let args = LLVMGetNumArgOperands(i);
                if all_uniform(args) {
                    Uniform
                } else {
                    Varying
                }
            }
        }
        _ => Varying,
    })
}

/// A GEP is affine when its pointer and its indices are uniform or affine:
/// each affine index steps by its element's size.
pub(crate) unsafe fn gep_shape(
    i: LLVMValueRef,
    shapes: &HashMap<LLVMValueRef, Shape>,
    layout: llvm_sys::target::LLVMTargetDataRef,
) -> Shape {
    let mut stride = match shape_of(LLVMGetOperand(i, 0), shapes) {
        Shape::Uniform => 0i64,
        Shape::Affine(s) => s,
        Shape::Varying => return Shape::Varying,
    };
    let mut ty = LLVMGetGEPSourceElementType(i);
    let n = LLVMGetNumOperands(i) as u32;
    for k in 1..n {
        let idx = LLVMGetOperand(i, k);
        let scale = if k == 1 {
            LLVMABISizeOfType(layout, ty) as i64
        } else {
            match LLVMGetTypeKind(ty) {
                LLVMTypeKind::LLVMArrayTypeKind => {
                    ty = LLVMGetElementType(ty);
                    LLVMABISizeOfType(layout, ty) as i64
                }
                LLVMTypeKind::LLVMStructTypeKind => {
                    // Struct fields are constant indices.
                    let Some(f) = const_int(idx) else {
                        return Shape::Varying;
                    };
                    ty = LLVMStructGetTypeAtIndex(ty, f as u32);
                    0
                }
                _ => return Shape::Varying,
            }
        };
        match shape_of(idx, shapes) {
            Shape::Uniform => {}
            Shape::Affine(s) => stride = stride.wrapping_add(s.wrapping_mul(scale)),
            Shape::Varying => return Shape::Varying,
        }
    }
    Shape::Affine(stride)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::gemm_row;
    use kernel_ir::test_support::{Ir, HEAD};

    #[test]
    fn a_right_shift_that_splits_lanes_is_varying() {
        // `(lid << 62) >> 60` is a 2-bit field: lanes 0..3 are 0, 4, -8, -4.
        let ir = Ir::parse(&format!(
            "{HEAD}
    define void @k(ptr %c) {{
    entry:
      %lid = call i64 @__mux_get_local_id(i32 0)
      %hi = shl i64 %lid, 62
      %f = ashr i64 %hi, 60
      %pc = getelementptr i8, ptr %c, i64 %f
      store float 1.0, ptr %pc, align 4
      ret void
    }}"
        ));
        let insts: Vec<LLVMValueRef> = unsafe { llvm::instructions(ir.function("k")) };
        let shapes = unsafe { shapes(ir.m, &insts, &HashSet::new(), None).unwrap() };
        let f = insts
            .iter()
            .copied()
            .find(|&i| unsafe { llvm::name(i) } == "f")
            .unwrap();
        assert_eq!(unsafe { shape_of(f, &shapes) }, Shape::Varying);
    }

    #[test]
    fn shapes_follow_strides_through_arithmetic_and_casts() {
        let ir = Ir::parse(&gemm_row());
        let insts: Vec<LLVMValueRef> = unsafe { llvm::instructions(ir.function("k")) };
        let shapes = unsafe { shapes(ir.m, &insts, &HashSet::new(), None).unwrap() };
        let named = |n: &str| unsafe {
            let i = insts.iter().copied().find(|&i| llvm::name(i) == n).unwrap();
            shape_of(i, &shapes)
        };
        assert_eq!(named("lid"), Shape::Affine(1));
        assert_eq!(named("k"), Shape::Uniform);
        assert_eq!(named("at"), Shape::Affine(1));
        // Pointers step in bytes.
        assert_eq!(named("pb"), Shape::Affine(4));
        assert_eq!(named("pa"), Shape::Uniform);
        assert_eq!(named("x"), Shape::Uniform);
        assert_eq!(named("acc"), Shape::Varying);
    }
}
