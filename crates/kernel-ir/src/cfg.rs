//! A function's control-flow graph: its blocks, their edges and
//! dominators, the phis at a block's top, a block split in two, and
//! copies of blocks.

use compiler::llvm::{self, cstr};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use std::collections::{HashMap, HashSet};

/// The blocks of `f`, entry first.
///
/// # Safety
/// `f` must be a live function.
pub unsafe fn blocks(f: LLVMValueRef) -> Vec<LLVMBasicBlockRef> {
    let mut out = Vec::new();
    let mut bb = LLVMGetFirstBasicBlock(f);
    while !bb.is_null() {
        out.push(bb);
        bb = LLVMGetNextBasicBlock(bb);
    }
    out
}

/// The blocks `bb` may branch to (none without a terminator).
///
/// # Safety
/// `bb` must be a live block.
pub unsafe fn successors(bb: LLVMBasicBlockRef) -> Vec<LLVMBasicBlockRef> {
    let term = LLVMGetBasicBlockTerminator(bb);
    if term.is_null() {
        return Vec::new();
    }
    (0..LLVMGetNumSuccessors(term))
        .map(|i| LLVMGetSuccessor(term, i))
        .collect()
}

/// The phis at the top of `bb`.
///
/// # Safety
/// `bb` must be a live block.
pub unsafe fn phis(bb: LLVMBasicBlockRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    let mut i = LLVMGetFirstInstruction(bb);
    while !i.is_null() && !LLVMIsAPHINode(i).is_null() {
        out.push(i);
        i = LLVMGetNextInstruction(i);
    }
    out
}

/// Moves everything after `inst` into a new block placed after its own,
/// and returns that block. Phis of the successors now come from it.
///
/// # Safety
/// `inst` must be a live instruction in a function, `b` a builder of
/// context `ctx`.
pub unsafe fn split_after(
    ctx: LLVMContextRef,
    b: LLVMBuilderRef,
    inst: LLVMValueRef,
    name: &str,
) -> LLVMBasicBlockRef {
    let block = LLVMGetInstructionParent(inst);
    let f = LLVMGetBasicBlockParent(block);
    let cont = LLVMAppendBasicBlockInContext(ctx, f, cstr(name).as_ptr());
    LLVMMoveBasicBlockAfter(cont, block);
    let mut rest = Vec::new();
    let mut i = LLVMGetNextInstruction(inst);
    while !i.is_null() {
        rest.push(i);
        i = LLVMGetNextInstruction(i);
    }
    LLVMPositionBuilderAtEnd(b, cont);
    for i in rest {
        reinsert(b, i);
    }
    let mut seen = HashSet::new();
    for s in successors(cont) {
        if seen.insert(s) {
            for phi in phis(s) {
                retarget_phi(b, phi, block, cont);
            }
        }
    }
    cont
}

/// Moves `i` to the builder's position, keeping its name.
///
/// # Safety
/// `i` must be a live instruction, `b` a positioned builder.
pub unsafe fn reinsert(b: LLVMBuilderRef, i: LLVMValueRef) {
    let name = cstr(&llvm::name(i));
    LLVMInstructionRemoveFromParent(i);
    LLVMInsertIntoBuilderWithName(b, i, name.as_ptr());
}

/// Rebuilds `phi` with incoming block `from` replaced by `to` (the C API
/// cannot set a phi's incoming block).
///
/// # Safety
/// `phi` must be a live phi, `b` a builder of its context.
pub unsafe fn retarget_phi(
    b: LLVMBuilderRef,
    phi: LLVMValueRef,
    from: LLVMBasicBlockRef,
    to: LLVMBasicBlockRef,
) {
    let incoming: Vec<_> = incoming(phi)
        .into_iter()
        .map(|(v, bb)| (v, if bb == from { to } else { bb }))
        .collect();
    replace_phi(b, phi, &incoming);
}

/// Copies of `blocks` and of the values they define.
pub struct Copies {
    pub blocks: HashMap<LLVMBasicBlockRef, LLVMBasicBlockRef>,
    pub values: HashMap<LLVMValueRef, LLVMValueRef>,
}

impl Copies {
    /// The copy of `v`, or `v` itself where it was not copied.
    pub fn of(&self, v: LLVMValueRef) -> LLVMValueRef {
        *self.values.get(&v).unwrap_or(&v)
    }
}

/// Copies `blocks`, each before `before` and named as it is with
/// `suffix`: every instruction cloned (with `value_suffix` on its name,
/// where it has one), a phi as an empty phi for the caller to fill, and
/// the copies' operands that are copied blocks or values made the copies.
///
/// # Safety
/// The blocks must be live blocks of one function, `before` of it too.
pub unsafe fn copy_blocks(
    blocks: &[LLVMBasicBlockRef],
    before: LLVMBasicBlockRef,
    suffix: &str,
    value_suffix: Option<&str>,
) -> Copies {
    let ctx = LLVMGetTypeContext(LLVMTypeOf(LLVMBasicBlockAsValue(before)));
    let b = LLVMCreateBuilderInContext(ctx);
    let mut copies = Copies {
        blocks: HashMap::new(),
        values: HashMap::new(),
    };
    for &x in blocks {
        let name = cstr(&format!("{}{suffix}", llvm::name(LLVMBasicBlockAsValue(x))));
        let c = LLVMInsertBasicBlockInContext(ctx, before, name.as_ptr());
        copies.blocks.insert(x, c);
    }
    let mut cloned = Vec::new();
    for &x in blocks {
        LLVMPositionBuilderAtEnd(b, copies.blocks[&x]);
        for i in llvm::block_instructions(x) {
            let name = llvm::name(i);
            let name = cstr(&match value_suffix {
                Some(s) if !name.is_empty() => format!("{name}{s}"),
                _ => name,
            });
            let c = if LLVMIsAPHINode(i).is_null() {
                let c = LLVMInstructionClone(i);
                LLVMInsertIntoBuilderWithName(b, c, name.as_ptr());
                cloned.push(c);
                c
            } else {
                LLVMBuildPhi(b, LLVMTypeOf(i), name.as_ptr())
            };
            copies.values.insert(i, c);
        }
    }
    for &c in &cloned {
        for k in 0..LLVMGetNumOperands(c) as u32 {
            let op = LLVMGetOperand(c, k);
            if LLVMValueIsBasicBlock(op) != 0 {
                if let Some(&to) = copies.blocks.get(&LLVMValueAsBasicBlock(op)) {
                    LLVMSetOperand(c, k, LLVMBasicBlockAsValue(to));
                }
            } else if let Some(&v) = copies.values.get(&op) {
                LLVMSetOperand(c, k, v);
            }
        }
    }
    LLVMDisposeBuilder(b);
    copies
}

/// The (value, block) pairs of `phi`, in order.
///
/// # Safety
/// `phi` must be a live phi.
pub unsafe fn incoming(phi: LLVMValueRef) -> Vec<(LLVMValueRef, LLVMBasicBlockRef)> {
    (0..LLVMCountIncoming(phi))
        .map(|k| (LLVMGetIncomingValue(phi, k), LLVMGetIncomingBlock(phi, k)))
        .collect()
}

/// What `phi` takes from block `bb`, if `bb` is one of its incoming
/// blocks.
///
/// # Safety
/// `phi` must be a live phi.
pub unsafe fn incoming_from(phi: LLVMValueRef, bb: LLVMBasicBlockRef) -> Option<LLVMValueRef> {
    (0..LLVMCountIncoming(phi))
        .find(|&k| LLVMGetIncomingBlock(phi, k) == bb)
        .map(|k| LLVMGetIncomingValue(phi, k))
}

/// A new phi at the builder's position, of type `ty`, with `incoming`.
///
/// # Safety
/// `b` must be positioned among a block's phis; the values of type `ty`.
pub unsafe fn build_phi(
    b: LLVMBuilderRef,
    ty: LLVMTypeRef,
    incoming: &[(LLVMValueRef, LLVMBasicBlockRef)],
) -> LLVMValueRef {
    let p = LLVMBuildPhi(b, ty, c"".as_ptr());
    let (mut vs, mut bs): (Vec<_>, Vec<_>) = incoming.iter().copied().unzip();
    LLVMAddIncoming(p, vs.as_mut_ptr(), bs.as_mut_ptr(), vs.len() as u32);
    p
}

/// `phi` replaced, under its name, by a phi of `incoming` in its place.
///
/// # Safety
/// `phi` must be a live phi, `b` a builder of its context.
pub unsafe fn replace_phi(
    b: LLVMBuilderRef,
    phi: LLVMValueRef,
    incoming: &[(LLVMValueRef, LLVMBasicBlockRef)],
) -> LLVMValueRef {
    LLVMPositionBuilderBefore(b, phi);
    let new = build_phi(b, LLVMTypeOf(phi), incoming);
    let name = llvm::name(phi);
    LLVMReplaceAllUsesWith(phi, new);
    LLVMInstructionEraseFromParent(phi);
    LLVMSetValueName2(new, name.as_ptr() as *const _, name.len());
    new
}

/// Deletes the blocks of `f` its entry no longer reaches, and what the
/// blocks it reaches take from them through phis.
///
/// # Safety
/// `f` must be a live function with a body.
pub unsafe fn remove_unreachable_blocks(f: LLVMValueRef) {
    let mut reached = HashSet::new();
    let mut stack = vec![LLVMGetEntryBasicBlock(f)];
    while let Some(bb) = stack.pop() {
        if reached.insert(bb) {
            stack.extend(successors(bb));
        }
    }
    let dead: Vec<_> = blocks(f)
        .into_iter()
        .filter(|bb| !reached.contains(bb))
        .collect();
    if dead.is_empty() {
        return;
    }
    let b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(f)));
    for &bb in &reached {
        for phi in phis(bb) {
            let kept: Vec<_> = incoming(phi)
                .into_iter()
                .filter(|(_, from)| reached.contains(from))
                .collect();
            if kept.len() < LLVMCountIncoming(phi) as usize {
                replace_phi(b, phi, &kept);
            }
        }
    }
    LLVMDisposeBuilder(b);
    // Dead blocks may use each other's values: none is left used.
    for &bb in &dead {
        for i in llvm::block_instructions(bb) {
            if !LLVMGetFirstUse(i).is_null() {
                LLVMReplaceAllUsesWith(i, LLVMGetPoison(LLVMTypeOf(i)));
            }
        }
    }
    for bb in dead {
        LLVMDeleteBasicBlock(bb);
    }
}

/// Blocks, their edges and dominators.
pub struct Cfg {
    pub blocks: Vec<LLVMBasicBlockRef>,
    pub index: HashMap<LLVMBasicBlockRef, usize>,
    pub succs: Vec<Vec<usize>>,
    pub preds: Vec<Vec<usize>>,
    /// `dom[b][a]`: block `a` dominates block `b`.
    pub dom: Vec<Vec<bool>>,
}

impl Cfg {
    /// The graph of `f`.
    ///
    /// # Safety
    /// `f` must be a live function with a body.
    pub unsafe fn of(f: LLVMValueRef) -> Cfg {
        let blocks = blocks(f);
        let index: HashMap<_, _> = blocks.iter().enumerate().map(|(i, &b)| (b, i)).collect();
        let succs: Vec<Vec<usize>> = blocks
            .iter()
            .map(|&b| successors(b).iter().map(|s| index[s]).collect())
            .collect();
        let n = blocks.len();
        let mut preds = vec![Vec::new(); n];
        for (b, ss) in succs.iter().enumerate() {
            for &s in ss {
                preds[s].push(b);
            }
        }
        // The iterative data-flow solution: dom(b) = {b} ∪ ⋂ dom(preds).
        let mut dom = vec![vec![true; n]; n];
        dom[0] = (0..n).map(|i| i == 0).collect();
        let mut changed = true;
        while changed {
            changed = false;
            for b in 1..n {
                let mut new = vec![true; n];
                for &p in &preds[b] {
                    for (x, d) in new.iter_mut().zip(&dom[p]) {
                        *x &= *d;
                    }
                }
                new[b] = true;
                if new != dom[b] {
                    dom[b] = new;
                    changed = true;
                }
            }
        }
        Cfg {
            blocks,
            index,
            succs,
            preds,
            dom,
        }
    }

    /// Whether block `a` dominates block `b`.
    pub fn dominates(&self, a: LLVMBasicBlockRef, b: LLVMBasicBlockRef) -> bool {
        self.dom[self.index[&b]][self.index[&a]]
    }
}

/// `pdom[b][a]`: block `a` post-dominates block `b` (every path from `b`
/// to the end of the function passes `a`). A block that reaches no end (an
/// endless loop) is post-dominated by every block, as nothing is known.
pub fn post_dominators(cfg: &Cfg) -> Vec<Vec<bool>> {
    let n = cfg.blocks.len();
    let mut pdom = vec![vec![true; n]; n];
    for (b, row) in pdom.iter_mut().enumerate() {
        if cfg.succs[b].is_empty() {
            *row = (0..n).map(|a| a == b).collect();
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            if cfg.succs[b].is_empty() {
                continue;
            }
            let mut new = vec![true; n];
            for &s in &cfg.succs[b] {
                for (x, d) in new.iter_mut().zip(&pdom[s]) {
                    *x &= *d;
                }
            }
            new[b] = true;
            if new != pdom[b] {
                pdom[b] = new;
                changed = true;
            }
        }
    }
    pdom
}

/// The blocks reachable from the entry, each after its dominators.
pub fn reverse_post_order(cfg: &Cfg) -> Vec<usize> {
    let n = cfg.blocks.len();
    let mut seen = vec![false; n];
    let mut post = Vec::with_capacity(n);
    // (block, next successor to visit)
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    while let Some(&mut (b, ref mut next)) = stack.last_mut() {
        if let Some(&s) = cfg.succs[b].get(*next) {
            *next += 1;
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    post.reverse();
    post
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Ir;

    const DIAMOND: &str = r#"
define void @f(i1 %c) {
entry:
  br i1 %c, label %a, label %b
a:
  br label %join
b:
  br label %join
join:
  %x = phi i32 [ 1, %a ], [ 2, %b ]
  ret void
dead:
  br label %join
}
"#;

    #[test]
    fn blocks_come_after_their_dominators_and_the_unreachable_are_left_out() {
        let ir = Ir::parse(DIAMOND);
        unsafe {
            let cfg = Cfg::of(ir.function("f"));
            let name = |b: usize| llvm::name(LLVMBasicBlockAsValue(cfg.blocks[b]));
            let order: Vec<String> = reverse_post_order(&cfg).into_iter().map(name).collect();
            assert_eq!(order.first().map(String::as_str), Some("entry"));
            assert_eq!(order.last().map(String::as_str), Some("join"));
            assert!(!order.iter().any(|b| b == "dead"), "{order:?}");
            let (entry, join) = (cfg.blocks[0], cfg.blocks[3]);
            assert!(cfg.dominates(entry, join));
            assert!(!cfg.dominates(cfg.blocks[1], join));
            assert_eq!(phis(join).len(), 1);
        }
    }

    #[test]
    fn unreachable_blocks_go_with_what_the_reached_take_from_them() {
        let ir = Ir::parse(DIAMOND);
        unsafe {
            let f = ir.function("f");
            // `b` no longer reached: `join` takes from `a` alone.
            let entry = LLVMGetEntryBasicBlock(f);
            let t = LLVMGetBasicBlockTerminator(entry);
            LLVMSetSuccessor(t, 1, LLVMGetSuccessor(t, 0));
            remove_unreachable_blocks(f);
            compiler::llvm::verify(ir.m).unwrap();
            let text = ir.text();
            assert!(
                !text.contains("\nb:") && !text.contains("\ndead:"),
                "{text}"
            );
            assert!(text.contains("%x = phi i32 [ 1, %a ]\n"), "{text}");
        }
    }
}
