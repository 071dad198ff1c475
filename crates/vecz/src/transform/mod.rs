//! Builds the vector form: a copy of the kernel's blocks in reverse
//! post-order, each instruction kept as a scalar (uniform values, affine
//! bases), widened into a vector (affine and varying values) or both. The
//! builder and its vector values are here; how each kind of instruction is
//! widened: `packetize` (arithmetic, casts, calls), `atomics` (lane
//! after lane), `local_ids` (comparisons of the local x id on lane
//! numbers), `memory` (loads and stores), `prefetch` (loads of loops striding
//! far ahead of the lanes), `control_flow` (phis, masks of divergent loops and guarded
//! blocks), `printf` (lane after lane), `sub_groups` (the sub-group
//! functions across the lanes).

mod atomics;
mod control_flow;
mod local_ids;
mod memory;
mod packetize;
mod prefetch;
mod printf;
mod private;
mod sub_groups;

use crate::analysis::divergence::{DivergentLoop, Guard};
use crate::analysis::shape::Shape;
use crate::types::{elements, is_vector};
use crate::values::is_instruction;
use compiler::llvm::{self, cstr};
use kernel_ir::cfg::Cfg;
use kernel_ir::form::copy_of;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::LLVMGetModuleDataLayout;
use std::collections::{HashMap, HashSet};

/// Builds the vector function.
pub(crate) struct Gen {
    m: LLVMModuleRef,
    ctx: LLVMContextRef,
    b: LLVMBuilderRef,
    pub(crate) v: LLVMValueRef,
    width: u32,
    layout: llvm_sys::target::LLVMTargetDataRef,
    shapes: HashMap<LLVMValueRef, Shape>,
    blocks: HashMap<LLVMBasicBlockRef, LLVMBasicBlockRef>,
    /// The block each kernel block's terminator went to (its copy, or the
    /// last of the blocks a run-time test split it into).
    ends: HashMap<LLVMBasicBlockRef, LLVMBasicBlockRef>,
    /// Uniform values, and the lane-0 base of affine ones.
    scalar: HashMap<LLVMValueRef, LLVMValueRef>,
    /// Affine and varying values.
    vector: HashMap<LLVMValueRef, LLVMValueRef>,
    divergent: Vec<DivergentLoop>,
    /// For each divergent loop (by index): the lanes in it at its header,
    /// and the lanes that stay after its exit test.
    masks: Vec<(LLVMValueRef, LLVMValueRef)>,
    pub(crate) guards: Vec<Guard>,
    /// The lanes that run each guarded block (by the kernel's block).
    guard_masks: HashMap<LLVMBasicBlockRef, LLVMValueRef>,
    /// The lanes of each guard, by the block it guards (for a region
    /// starting at a divergent loop, whose blocks have the loop's masks).
    region_masks: HashMap<LLVMBasicBlockRef, LLVMValueRef>,
    /// For the guarded block of each if/else: where its guard's branch
    /// is, and the block that tests whether any lane takes the else block,
    /// which the guarded block goes on to.
    else_checks: HashMap<LLVMBasicBlockRef, (LLVMBasicBlockRef, LLVMBasicBlockRef)>,
    /// A region function's linear-id parameter: lane 0's, in steps of 1.
    pub(crate) linear_id: Option<LLVMValueRef>,
    /// Header phis of divergent loops whose value no lane that left needs
    /// (`divergence::unobserved_after_leaving`): no select keeps it.
    pub(crate) unkept: HashSet<LLVMValueRef>,
    /// The values divergent loops keep for the lanes that left them
    /// (`DivergentLoop::kept_outs`).
    kept_outs: Vec<KeptOut>,
    /// Pointers into the private arrays kept per lane.
    private: HashMap<LLVMValueRef, private::PrivatePointer>,
}

/// A value a divergent loop keeps for the lanes that left it.
struct KeptOut {
    /// The loop, by index.
    l: usize,
    /// The kernel's value.
    value: LLVMValueRef,
    /// The header's phi of what the lanes had.
    before: LLVMValueRef,
    /// What they have after the exit test.
    kept: LLVMValueRef,
    /// The value of this iteration, as a vector.
    new: LLVMValueRef,
}

impl Drop for Gen {
    fn drop(&mut self) {
        unsafe { LLVMDisposeBuilder(self.b) }
    }
}

impl Gen {
    pub(crate) unsafe fn new(
        m: LLVMModuleRef,
        kernel: LLVMValueRef,
        width: u32,
        shapes: HashMap<LLVMValueRef, Shape>,
        divergent: Vec<DivergentLoop>,
    ) -> Gen {
        let ctx = LLVMGetModuleContext(m);
        let v = copy_of(m, kernel, &format!("v{width}"));
        let mut scalar = HashMap::new();
        for k in 0..LLVMCountParams(kernel) {
            scalar.insert(LLVMGetParam(kernel, k), LLVMGetParam(v, k));
        }
        Gen {
            m,
            ctx,
            b: LLVMCreateBuilderInContext(ctx),
            v,
            width,
            layout: LLVMGetModuleDataLayout(m),
            shapes,
            blocks: HashMap::new(),
            ends: HashMap::new(),
            scalar,
            vector: HashMap::new(),
            masks: vec![(std::ptr::null_mut(), std::ptr::null_mut()); divergent.len()],
            divergent,
            guards: Vec::new(),
            guard_masks: HashMap::new(),
            region_masks: HashMap::new(),
            else_checks: HashMap::new(),
            linear_id: None,
            unkept: HashSet::new(),
            kept_outs: Vec::new(),
            private: HashMap::new(),
        }
    }

    fn shape(&self, v: LLVMValueRef) -> Shape {
        self.shapes.get(&v).copied().unwrap_or(Shape::Uniform)
    }

    /// The type of `width` lanes of `ty`: a vector of scalars, or all the
    /// lanes' elements of a vector, lane after lane.
    unsafe fn vec_type(&self, ty: LLVMTypeRef) -> LLVMTypeRef {
        if is_vector(ty) {
            LLVMVectorType(LLVMGetElementType(ty), elements(ty) * self.width)
        } else {
            LLVMVectorType(ty, self.width)
        }
    }

    /// A shuffle mask of constants (`None`: any element).
    unsafe fn mask(&self, elements: impl Iterator<Item = Option<u32>>) -> LLVMValueRef {
        let i32t = LLVMInt32TypeInContext(self.ctx);
        let mut m: Vec<LLVMValueRef> = elements
            .map(|e| e.map_or_else(|| LLVMGetUndef(i32t), |e| LLVMConstInt(i32t, e as u64, 0)))
            .collect();
        LLVMConstVector(m.as_mut_ptr(), m.len() as u32)
    }

    /// A shuffle of `v` alone.
    unsafe fn shuffle(&self, v: LLVMValueRef, mask: LLVMValueRef, name: &str) -> LLVMValueRef {
        let poison = LLVMGetPoison(LLVMTypeOf(v));
        LLVMBuildShuffleVector(self.b, v, poison, mask, cstr(name).as_ptr())
    }

    /// Per-lane `v` (one element per work-item: a mask, pointers) repeated
    /// for each of the `k` elements of a lane.
    unsafe fn spread(&self, v: LLVMValueRef, k: u32) -> LLVMValueRef {
        if k == 1 {
            return v;
        }
        let m = self.mask((0..self.width).flat_map(|l| (0..k).map(move |_| Some(l))));
        self.shuffle(v, m, "spread")
    }

    /// Lane `lane`'s elements of a value of type `ty`.
    unsafe fn lane(&self, v: LLVMValueRef, ty: LLVMTypeRef, lane: u32) -> LLVMValueRef {
        let i32t = LLVMInt32TypeInContext(self.ctx);
        if !is_vector(ty) {
            return LLVMBuildExtractElement(
                self.b,
                v,
                LLVMConstInt(i32t, lane as u64, 0),
                c"".as_ptr(),
            );
        }
        let k = elements(ty);
        self.shuffle(v, self.mask((0..k).map(|e| Some(lane * k + e))), "lane")
    }

    /// Lane `lane`'s value of kernel value `a`: the scalar of a uniform
    /// one, its elements of the vector otherwise.
    unsafe fn lane_value(&self, a: LLVMValueRef, lane: u32) -> LLVMValueRef {
        if self.shape(a) == Shape::Uniform {
            self.scalar_of(a)
        } else {
            self.lane(self.vector_of(a), LLVMTypeOf(a), lane)
        }
    }

    /// `v` as the scalar kernel had it, in the vector function: the value
    /// itself for constants and globals, the copy (or base) otherwise.
    unsafe fn scalar_of(&self, v: LLVMValueRef) -> LLVMValueRef {
        if LLVMValueIsBasicBlock(v) != 0 {
            let bb = LLVMValueAsBasicBlock(v);
            return LLVMBasicBlockAsValue(self.blocks[&bb]);
        }
        *self.scalar.get(&v).unwrap_or(&v)
    }

    /// `v` as a vector, splatting a uniform value where the builder is.
    unsafe fn vector_of(&self, v: LLVMValueRef) -> LLVMValueRef {
        if let Some(&x) = self.vector.get(&v) {
            return x;
        }
        let ty = LLVMTypeOf(v);
        if LLVMIsPoison(v) != 0 {
            return LLVMGetPoison(self.vec_type(ty));
        }
        if LLVMIsUndef(v) != 0 {
            return LLVMGetUndef(self.vec_type(ty));
        }
        self.splat(self.scalar_of(v))
    }

    unsafe fn splat(&self, s: LLVMValueRef) -> LLVMValueRef {
        if is_vector(LLVMTypeOf(s)) {
            let k = elements(LLVMTypeOf(s));
            let m = self.mask((0..self.width).flat_map(|_| (0..k).map(Some)));
            return self.shuffle(s, m, "splat");
        }
        let ty = self.vec_type(LLVMTypeOf(s));
        let i32t = LLVMInt32TypeInContext(self.ctx);
        let one = LLVMBuildInsertElement(
            self.b,
            LLVMGetPoison(ty),
            s,
            LLVMConstInt(i32t, 0, 0),
            c"".as_ptr(),
        );
        let mask = LLVMConstNull(LLVMVectorType(i32t, self.width));
        LLVMBuildShuffleVector(self.b, one, LLVMGetPoison(ty), mask, c"splat".as_ptr())
    }

    /// `<0, 1, .., width-1>` of integer type `ty`.
    unsafe fn steps(&self, ty: LLVMTypeRef) -> LLVMValueRef {
        let mut lanes: Vec<LLVMValueRef> = (0..self.width)
            .map(|l| LLVMConstInt(ty, l as u64, 0))
            .collect();
        LLVMConstVector(lanes.as_mut_ptr(), self.width)
    }

    pub(crate) unsafe fn emit(
        mut self,
        cfg: &Cfg,
        order: &[usize],
    ) -> Result<LLVMValueRef, String> {
        for &bx in order {
            let bb = cfg.blocks[bx];
            let name = cstr(&llvm::name(LLVMBasicBlockAsValue(bb)));
            let new = LLVMAppendBasicBlockInContext(self.ctx, self.v, name.as_ptr());
            self.blocks.insert(bb, new);
        }
        let mut phis = Vec::new();
        if let Some(p) = self.linear_id {
            // Lane l's linear id is lane 0's plus l.
            LLVMPositionBuilderAtEnd(self.b, self.blocks[&cfg.blocks[order[0]]]);
            let base = self.scalar_of(p);
            let steps = self.steps(LLVMTypeOf(base));
            let lanes = LLVMBuildAdd(self.b, self.splat(base), steps, c"linear_ids".as_ptr());
            self.vector.insert(p, lanes);
        }
        for &bx in order {
            let bb = cfg.blocks[bx];
            LLVMPositionBuilderAtEnd(self.b, self.blocks[&bb]);
            if let Some(l) = self.divergent.iter().position(|l| l.header == bb) {
                let mask = self.vec_type(LLVMInt1TypeInContext(self.ctx));
                self.masks[l].0 = LLVMBuildPhi(self.b, mask, c"active".as_ptr());
            }
            let mut stepped = Vec::new();
            for i in llvm::block_instructions(bb) {
                if !LLVMIsAPHINode(i).is_null() {
                    if self.phi(i) {
                        stepped.push(i);
                    }
                    phis.push(i);
                } else {
                    // After the block's phis.
                    for p in stepped.drain(..) {
                        self.lanes_of_affine_phi(p);
                    }
                    self.instruction(i)?;
                }
            }
            self.ends.insert(bb, LLVMGetInsertBlock(self.b));
        }
        for i in phis {
            self.fill_phi(i);
        }
        self.fill_masks(cfg);
        self.use_kept_values();
        Ok(self.v)
    }

    /// A copy of `i` on the scalars (uniform values, affine bases).
    unsafe fn clone_scalar(&mut self, i: LLVMValueRef) -> LLVMValueRef {
        let c = LLVMInstructionClone(i);
        for k in 0..LLVMGetNumOperands(i) as u32 {
            let op = LLVMGetOperand(i, k);
            if is_instruction(op)
                || !LLVMIsAArgument(op).is_null()
                || LLVMValueIsBasicBlock(op) != 0
            {
                LLVMSetOperand(c, k, self.scalar_of(op));
            }
        }
        let name = llvm::name(i);
        LLVMInsertIntoBuilderWithName(self.b, c, cstr(&name).as_ptr());
        c
    }

    unsafe fn set_param_align(&self, call: LLVMValueRef, param: u32, align: u32) {
        let kind = LLVMGetEnumAttributeKindForName(c"align".as_ptr(), 5);
        let a = LLVMCreateEnumAttribute(self.ctx, kind, align as u64);
        LLVMAddCallSiteAttribute(call, param + 1, a);
    }

    unsafe fn intrinsic(
        &self,
        name: &str,
        types: &[LLVMTypeRef],
        args: &mut [LLVMValueRef],
    ) -> LLVMValueRef {
        kernel_ir::build::intrinsic_call(self.m, self.b, name, types, args)
    }
}
