//! Control flow where lanes part: phis (a lane that left a divergent loop,
//! or skipped a guarded block, keeps its value), the mask of the lanes
//! still in each divergent loop, its exit test, a guarded block's branch,
//! and the lanes a memory access is for.

use super::Gen;
use crate::analysis::divergence::Guard;
use crate::analysis::shape::Shape;
use crate::types::elements;
use kernel_ir::cfg::Cfg;
use llvm_sys::core::*;
use llvm_sys::prelude::*;

impl Gen {
    /// The phis of `i`; true where its lanes are to be made from its
    /// scalar (`lanes_of_affine_phi`) once the block's phis are made.
    pub(super) unsafe fn phi(&mut self, i: LLVMValueRef) -> bool {
        let ty = LLVMTypeOf(i);
        let shape = self.shape(i);
        if shape != Shape::Varying {
            let p = LLVMBuildPhi(self.b, ty, c"".as_ptr());
            self.scalar.insert(i, p);
        }
        if let Shape::Affine(_) = shape {
            // An integer induction (`i += get_global_size(0)`) goes round
            // as lane 0's value alone: a vector of its lanes carried too
            // would be a second recurrence, as wide as its type (64-bit
            // lanes where the front end widened an `int`).
            if LLVMGetTypeKind(ty) == llvm_sys::LLVMTypeKind::LLVMIntegerTypeKind {
                return true;
            }
        }
        if shape != Shape::Uniform {
            let p = LLVMBuildPhi(self.b, self.vec_type(ty), c"".as_ptr());
            self.vector.insert(i, p);
        }
        false
    }

    /// The lanes of affine integer phi `i`: lane `l` is its scalar plus
    /// `l` times its stride.
    pub(super) unsafe fn lanes_of_affine_phi(&mut self, i: LLVMValueRef) {
        let Shape::Affine(stride) = self.shape(i) else {
            unreachable!("only affine phis are stepped")
        };
        let base = self.scalar[&i];
        let ty = LLVMTypeOf(base);
        let steps = LLVMBuildMul(
            self.b,
            self.steps(ty),
            self.splat(LLVMConstInt(ty, stride as u64, 1)),
            c"".as_ptr(),
        );
        let lanes = LLVMBuildAdd(self.b, self.splat(base), steps, c"lanes".as_ptr());
        self.vector.insert(i, lanes);
    }

    pub(super) unsafe fn fill_phi(&mut self, i: LLVMValueRef) {
        let at = LLVMGetInstructionParent(i);
        if let Some(g) = self
            .guards
            .iter()
            .position(|g| g.merge == at && g.other.is_some())
        {
            return self.fill_if_else_phi(i, g);
        }
        for k in 0..LLVMCountIncoming(i) {
            let from = LLVMGetIncomingBlock(i, k);
            let Some(block) = self.vector_pred(from, at) else {
                continue; // an unreachable predecessor
            };
            let value = LLVMGetIncomingValue(i, k);
            LLVMPositionBuilderBefore(self.b, LLVMGetBasicBlockTerminator(block));
            // After a divergent loop, what a lane kept from the iteration
            // it left in.
            let kept = self
                .kept_outs
                .iter()
                .find(|k| k.value == value && !self.divergent[k.l].body.contains(&at))
                .map(|k| k.kept);
            let mut blocks = [block];
            if let Some(&p) = self.scalar.get(&i) {
                let mut vals = [self.scalar_of(value)];
                LLVMAddIncoming(p, vals.as_mut_ptr(), blocks.as_mut_ptr(), 1);
            }
            // (An affine integer phi's lanes are no phi: made from its
            // scalar.)
            if let Some(&p) = self
                .vector
                .get(&i)
                .filter(|&&p| !LLVMIsAPHINode(p).is_null())
            {
                let mut v = kept.unwrap_or_else(|| self.vector_of(value));
                let header = LLVMGetInstructionParent(i);
                if let Some(l) = self
                    .divergent
                    .iter()
                    .position(|l| l.header == header && l.latch == from)
                    .filter(|_| self.shape(i) == Shape::Varying && !self.unkept.contains(&i))
                {
                    // A lane that has left keeps its value (an affine
                    // induction steps on: see `steps_uniformly_inside`).
                    let stayed = self.spread(self.masks[l].1, elements(LLVMTypeOf(i)));
                    v = LLVMBuildSelect(self.b, stayed, v, p, c"kept".as_ptr());
                }
                if let Some(g) = self
                    .guards
                    .iter()
                    .find(|g| g.exit == from && g.other.is_none())
                {
                    // The lanes that skipped the guarded block keep the
                    // value they had at the guard.
                    let (guard, block) = (g.guard, g.block);
                    if let Some(before) = kernel_ir::cfg::incoming_from(i, guard) {
                        let ran = self.spread(self.region_masks[&block], elements(LLVMTypeOf(i)));
                        let before = self.vector_of(before);
                        v = LLVMBuildSelect(self.b, ran, v, before, c"guarded".as_ptr());
                    }
                }
                let mut vals = [v];
                LLVMAddIncoming(p, vals.as_mut_ptr(), blocks.as_mut_ptr(), 1);
            }
        }
    }

    /// Each divergent loop's mask: every lane on entry, those that stayed
    /// from the latch.
    pub(super) unsafe fn fill_masks(&mut self, cfg: &Cfg) {
        let i1 = LLVMInt1TypeInContext(self.ctx);
        for (l_index, (l, &(active, after))) in self.divergent.iter().zip(&self.masks).enumerate() {
            for &p in &cfg.preds[cfg.index[&l.header]] {
                let from = cfg.blocks[p];
                let Some(block) = self.vector_pred(from, l.header) else {
                    continue;
                };
                LLVMPositionBuilderBefore(self.b, LLVMGetBasicBlockTerminator(block));
                // Every lane enters, or, inside a guarded region, the
                // region's (a region may start at the loop).
                let region = self
                    .guards
                    .iter()
                    .find(|g| g.guard == from && (g.block == l.header || g.other == Some(l.header)))
                    .map(|_| self.region_masks[&l.header]);
                let mut vals = [if from == l.latch {
                    after
                } else if let Some(m) = region.or_else(|| self.guard_masks.get(&from).copied()) {
                    m
                } else if let Some(m) = self.in_loop_mask(from, l.header) {
                    // Inside another divergent loop, its lanes there.
                    m
                } else {
                    self.splat(LLVMConstInt(i1, 1, 0))
                }];
                let mut blocks = [block];
                LLVMAddIncoming(active, vals.as_mut_ptr(), blocks.as_mut_ptr(), 1);
                for k in self.kept_outs.iter().filter(|k| k.l == l_index) {
                    let mut vals = [if from == l.latch {
                        k.kept
                    } else {
                        LLVMGetPoison(LLVMTypeOf(k.before))
                    }];
                    LLVMAddIncoming(k.before, vals.as_mut_ptr(), blocks.as_mut_ptr(), 1);
                }
            }
        }
    }

    /// What reads a value a divergent loop keeps for the lanes that left it,
    /// from its exit test on (after the loop, and in the rest of the
    /// iteration, where the lanes in it have the new value), reads the kept
    /// one.
    pub(super) unsafe fn use_kept_values(&self) {
        if self.kept_outs.is_empty() {
            return;
        }
        let cfg = Cfg::of(self.v);
        for &super::KeptOut { kept, new, .. } in &self.kept_outs {
            let at = LLVMGetInstructionParent(kept);
            // The instructions after `kept` in its block.
            let mut later = Vec::new();
            let mut i = LLVMGetNextInstruction(kept);
            while !i.is_null() {
                later.push(i);
                i = LLVMGetNextInstruction(i);
            }
            let mut users = Vec::new();
            let mut u = LLVMGetFirstUse(new);
            while !u.is_null() {
                let user = LLVMGetUser(u);
                if user != kept && !users.contains(&user) {
                    users.push(user);
                }
                u = LLVMGetNextUse(u);
            }
            for user in users {
                let block = LLVMGetInstructionParent(user);
                let is_phi = !LLVMIsAPHINode(user).is_null();
                for k in 0..LLVMGetNumOperands(user) as u32 {
                    if LLVMGetOperand(user, k) != new {
                        continue;
                    }
                    // A phi reads at the end of the block its value comes from.
                    let from = if is_phi {
                        LLVMGetIncomingBlock(user, k)
                    } else {
                        block
                    };
                    let after = if from == at {
                        is_phi || later.contains(&user)
                    } else {
                        cfg.index.contains_key(&from) && cfg.dominates(at, from)
                    };
                    if after {
                        LLVMSetOperand(user, k, kept);
                    }
                }
            }
        }
    }

    /// The exit test of divergent loop `l`: the lanes whose condition says
    /// stay, of those still in the loop, go round again while there are any.
    pub(super) unsafe fn exit_test(&mut self, i: LLVMValueRef, l: usize) {
        let cond = self.vector_of(LLVMGetCondition(i));
        let stay_on_true = self.divergent[l].body.contains(&LLVMGetSuccessor(i, 0));
        let (inside, outside) = if stay_on_true { (0, 1) } else { (1, 0) };
        let stay = if stay_on_true {
            cond
        } else {
            LLVMBuildNot(self.b, cond, c"stay".as_ptr())
        };
        let after = LLVMBuildAnd(self.b, self.masks[l].0, stay, c"staying".as_ptr());
        self.masks[l].1 = after;
        // What a lane reads after the loop but would not compute again
        // once it left: the lanes in this iteration take its new value,
        // the others keep theirs, carried round by a phi of the header.
        let header = self.blocks[&self.divergent[l].header];
        for v in self.divergent[l].kept_outs.clone() {
            let here = LLVMGetInsertBlock(self.b);
            LLVMPositionBuilderBefore(self.b, LLVMGetFirstInstruction(header));
            let ty = self.vec_type(LLVMTypeOf(v));
            let before = LLVMBuildPhi(self.b, ty, c"left.with".as_ptr());
            LLVMPositionBuilderAtEnd(self.b, here);
            let active = self.spread(self.masks[l].0, elements(LLVMTypeOf(v)));
            let new = self.vector_of(v);
            let kept = LLVMBuildSelect(self.b, active, new, before, c"".as_ptr());
            self.kept_outs.push(super::KeptOut {
                l,
                value: v,
                before,
                kept,
                new,
            });
        }
        let mut args = [after];
        let any = self.intrinsic("llvm.vector.reduce.or", &[LLVMTypeOf(after)], &mut args);
        let to = |k| self.blocks[&LLVMGetSuccessor(i, k)];
        LLVMBuildCondBr(self.b, any, to(inside), to(outside));
    }

    /// The varying branch of guard `g`: the guarded block runs, for the
    /// lanes whose condition takes them there, if there are any.
    pub(super) unsafe fn guard_branch(&mut self, i: LLVMValueRef, g: usize) {
        let cond = self.vector_of(LLVMGetCondition(i));
        let Guard {
            block,
            merge,
            on_true,
            other,
            ..
        } = self.guards[g];
        let (region, other_region) = (
            self.guards[g].region.clone(),
            self.guards[g].other_region.clone(),
        );
        let exit = self.guards[g].exit;
        let (mut lanes, mut others) = if on_true {
            (cond, LLVMBuildNot(self.b, cond, c"guarded".as_ptr()))
        } else {
            (LLVMBuildNot(self.b, cond, c"guarded".as_ptr()), cond)
        };
        // In a loop lanes leave apart, of the lanes still in it; in a
        // guarded region, of the region's.
        if let Some(in_loop) = self.lanes_of(i, true) {
            lanes = LLVMBuildAnd(self.b, lanes, in_loop, c"guarded".as_ptr());
            others = LLVMBuildAnd(self.b, others, in_loop, c"guarded".as_ptr());
        }
        // A region's blocks run for its lanes, but for those of its
        // divergent loops, which start from them (`fill_masks`), and of
        // its inner guards, made after.
        let in_inner_loop = |b| {
            self.divergent.iter().any(|l| {
                (region.contains(&l.header) || other_region.contains(&l.header))
                    && l.body.contains(&b)
            })
        };
        for (part, mask) in [(&region, lanes), (&other_region, others)] {
            for &b in part {
                if !in_inner_loop(b) {
                    self.guard_masks.insert(b, mask);
                }
            }
        }
        self.region_masks.insert(block, lanes);
        let mut args = [lanes];
        let any = self.intrinsic("llvm.vector.reduce.or", &[LLVMTypeOf(lanes)], &mut args);
        let Some(other) = other else {
            LLVMBuildCondBr(self.b, any, self.blocks[&block], self.blocks[&merge]);
            return;
        };
        // An if/else: the guarded part, then a test of whether any lane
        // takes the else part, then the else part.
        self.region_masks.insert(other, others);
        let here = LLVMGetInsertBlock(self.b);
        let check = LLVMAppendBasicBlockInContext(self.ctx, self.v, c"else.test".as_ptr());
        LLVMBuildCondBr(self.b, any, self.blocks[&block], check);
        LLVMPositionBuilderAtEnd(self.b, check);
        let mut args = [others];
        let any = self.intrinsic("llvm.vector.reduce.or", &[LLVMTypeOf(others)], &mut args);
        LLVMBuildCondBr(self.b, any, self.blocks[&other], self.blocks[&merge]);
        self.else_checks.insert(exit, (here, check));
        LLVMPositionBuilderAtEnd(self.b, here);
    }

    /// Fills phi `i` of the block an if/else of `g` meets at: each lane
    /// takes what its arm brought. What the guarded block made reaches
    /// the else test through a phi (zero where no lane ran it), and the
    /// else block chooses between it and its own.
    pub(super) unsafe fn fill_if_else_phi(&mut self, i: LLVMValueRef, g: usize) {
        let Guard {
            exit,
            other,
            other_exit,
            ..
        } = self.guards[g];
        let (other, other_exit) = (other.expect("an if/else"), other_exit.expect("an if/else"));
        let (guard_end, check) = self.else_checks[&exit];
        let incoming =
            |bb| kernel_ir::cfg::incoming_from(i, bb).expect("the merge is reached from both arms");
        let p = self.vector[&i];
        let ty = LLVMTypeOf(p);
        let then_end = self.ends[&exit];
        LLVMPositionBuilderBefore(self.b, LLVMGetBasicBlockTerminator(then_end));
        let from_then = self.vector_of(incoming(exit));
        LLVMPositionBuilderBefore(self.b, LLVMGetFirstInstruction(check));
        let then_value = LLVMBuildPhi(self.b, ty, c"from.then".as_ptr());
        let mut vals = [from_then, LLVMConstNull(ty)];
        let mut blocks = [then_end, guard_end];
        LLVMAddIncoming(then_value, vals.as_mut_ptr(), blocks.as_mut_ptr(), 2);
        let else_end = self.ends[&other_exit];
        LLVMPositionBuilderBefore(self.b, LLVMGetBasicBlockTerminator(else_end));
        let from_else = self.vector_of(incoming(other_exit));
        let ran = self.spread(self.region_masks[&other], elements(LLVMTypeOf(i)));
        let chosen = LLVMBuildSelect(self.b, ran, from_else, then_value, c"arms".as_ptr());
        let mut vals = [then_value, chosen];
        let mut blocks = [check, else_end];
        LLVMAddIncoming(p, vals.as_mut_ptr(), blocks.as_mut_ptr(), 2);
    }

    /// The vector block that ends the edge from the kernel's block `from`
    /// to `to`: where `from` ends, or, into an if/else's else part, the
    /// test of whether any lane takes it.
    unsafe fn vector_pred(
        &self,
        from: LLVMBasicBlockRef,
        to: LLVMBasicBlockRef,
    ) -> Option<LLVMBasicBlockRef> {
        if let Some(g) = self
            .guards
            .iter()
            .find(|g| g.guard == from && g.other == Some(to))
        {
            return Some(self.else_checks[&g.exit].1);
        }
        self.ends.get(&from).copied()
    }

    /// The lanes a memory access of `i` is for, when not all: in a
    /// divergent loop, those in it (before the exit test) or those that
    /// stayed (after it). Loads before the test need none: a lane that has
    /// left reads again what it read in its last iteration.
    pub(super) unsafe fn lanes_of(&self, i: LLVMValueRef, is_store: bool) -> Option<LLVMValueRef> {
        let block = LLVMGetInstructionParent(i);
        if let Some(&mask) = self.guard_masks.get(&block) {
            return Some(mask);
        }
        let l = self.innermost_divergent(block)?;
        // A lane that left an outer loop never ran this one's iteration: it
        // would read where its kept values point, which it never read.
        let nested = self
            .divergent
            .iter()
            .filter(|o| o.body.contains(&block))
            .count()
            > 1;
        if self.divergent[l].tail.contains(&block) {
            Some(self.masks[l].1)
        } else if is_store || nested {
            Some(self.masks[l].0)
        } else {
            None
        }
    }

    /// The innermost divergent loop `block` lies in.
    fn innermost_divergent(&self, block: LLVMBasicBlockRef) -> Option<usize> {
        (0..self.divergent.len())
            .filter(|&l| self.divergent[l].body.contains(&block))
            .min_by_key(|&l| self.divergent[l].body.len())
    }

    /// The lanes that go on from the end of `block` to `to` inside the
    /// innermost divergent loop around both: those that stayed, from the
    /// exit test on (the test's branch stays in the loop for them alone),
    /// and those in the loop before it.
    fn in_loop_mask(
        &self,
        block: LLVMBasicBlockRef,
        to: LLVMBasicBlockRef,
    ) -> Option<LLVMValueRef> {
        let l = (0..self.divergent.len())
            .filter(|&l| {
                self.divergent[l].body.contains(&block) && self.divergent[l].body.contains(&to)
            })
            .min_by_key(|&l| self.divergent[l].body.len())?;
        let d = &self.divergent[l];
        Some(if d.tail.contains(&block) || d.exiting == block {
            self.masks[l].1
        } else {
            self.masks[l].0
        })
    }
}
