//! Barrier regions (seed 002). A kernel that reaches `__mux_work_group_barrier`
//! becomes a *region function* that runs one region of one work-item: from
//! the kernel's start, or from just after barrier `j`, up to the next barrier
//! it reaches (returning that barrier's id) or to its end (returning
//! [`REGION_EXIT`]). The work-group function runs a region for every
//! work-item, then the region after the barrier they all reached, and so
//! on: every work-item arrives at a barrier before any goes past it, with
//! no fibers and no thread per work-item. A barrier in a loop or in a called function
//! (everything is inlined first) works the same way.
//!
//! Values that live across a barrier go to per-work-item storage. SSA values
//! used where their definition no longer dominates (in another region) are
//! first demoted to stack slots; then each stack slot used by more than one
//! region moves to the storage block. There a slot's copies for all the
//! work-items sit side by side, so the x loop reads and writes it
//! contiguously. Stack slots used by one region stay on the stack, where
//! SROA makes registers of them again.
//!
//! ```text
//! i32 @<kernel>.regions(<kernel params>..., i32 %region, ptr %storage, i64 %linear_id,
//!                       ptr noalias readonly %staged)
//! ```
//!
//! `%staged` is where the region reads its staged uniform values (see
//! [`Regions::staged`]); nothing writes there while a region runs, and
//! saying so lets LLVM read them once for the whole work-item loop.

use crate::uniformity::Uniformity;
use compiler::llvm::{self, cstr};
use kernel_ir::abi::{self, REGION_EXIT, SLOT_ALIGN};
use kernel_ir::builtin_kinds::{self, barrier_calls, Barrier};
use kernel_ir::cfg::{blocks, reinsert, split_after, Cfg};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::*;
use llvm_sys::LLVMOpcode;
use std::collections::{HashMap, HashSet};

/// The region function of a kernel with barriers.
pub struct Regions {
    /// `i32 (params..., i32 region, ptr storage, i64 linear_id, ptr staged)`.
    pub function: LLVMValueRef,
    /// Regions: one for the start plus one per barrier.
    pub count: u32,
    /// Barriers `1..=work_group_barriers` are work-group barriers; those
    /// after them, sub-group barriers (`sub_group_loops` runs those).
    pub work_group_barriers: u32,
    /// Bytes of per-work-item storage for one work-group.
    pub storage_bytes: usize,
    /// Uniform values a region both reads and writes (a loop counter
    /// carried across a barrier), kept once: read from one copy and
    /// written to another, `(read, write, bytes)` offsets in the storage
    /// block. After each region's work-item loop the work-group function
    /// copies the written copy over the read one, so every work-item of a
    /// region reads the value the region started with.
    pub staged: Option<(usize, usize, usize)>,
}

impl Regions {
    /// Whether some barrier is a sub-group barrier: the work-group
    /// function then runs the work-items sub-group by sub-group.
    pub fn has_sub_group_barriers(&self) -> bool {
        self.count - 1 > self.work_group_barriers
    }
}

/// The x ids from which region `id` of region function `f` does nothing:
/// the region starts by testing the local x id against a constant
/// (`if (lid < s)` at a level of a tree reduction) and, past it, goes
/// straight to a block that only returns. `None` where it starts
/// otherwise, or where no x id would do anything.
///
/// # Safety
/// `f` must be a region function made by [`run`].
pub unsafe fn x_bound(f: LLVMValueRef, id: u32) -> Option<u64> {
    use llvm_sys::LLVMIntPredicate::*;
    if id == 0 {
        return None;
    }
    let start = region_start(f, id)?;
    let branch = LLVMGetBasicBlockTerminator(start);
    if LLVMGetInstructionOpcode(branch) != LLVMOpcode::LLVMBr || LLVMIsConditional(branch) == 0 {
        return None;
    }
    let test = LLVMGetCondition(branch);
    let x_id = |v: LLVMValueRef| {
        let mut v = v;
        while !LLVMIsACastInst(v).is_null() {
            v = LLVMGetOperand(v, 0);
        }
        builtin_kinds::callee_name(v).is_some_and(|n| builtin_kinds::is_local_id(&n))
            && builtin_kinds::constant_dimension(v) == Some(0)
    };
    // Nothing before the test has an effect a work-item left out would
    // miss: queries, loads (of its storage slots) and arithmetic only.
    let effect_free = |i: LLVMValueRef| {
        use LLVMOpcode::*;
        match LLVMGetInstructionOpcode(i) {
            LLVMStore | LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMFence | LLVMVAArg | LLVMAlloca
            | LLVMInvoke | LLVMCallBr => false,
            LLVMCall => builtin_kinds::callee_name(i).is_some_and(|n| builtin_kinds::is_query(&n)),
            LLVMLoad => LLVMGetVolatile(i) == 0 && LLVMIsAtomic(i) == 0,
            _ => true,
        }
    };
    let no_effect = llvm::block_instructions(start)
        .into_iter()
        .all(|i| i == branch || effect_free(i));
    if !no_effect || LLVMIsAICmpInst(test).is_null() {
        return None;
    }
    // `x pred c`, whichever side the constant is on.
    let (a, c) = (LLVMGetOperand(test, 0), LLVMGetOperand(test, 1));
    let (pred, c) = match (x_id(a), LLVMIsAConstantInt(c).is_null()) {
        (true, false) => (LLVMGetICmpPredicate(test), c),
        _ if x_id(c) && !LLVMIsAConstantInt(a).is_null() => {
            (kernel_ir::compare::swapped(LLVMGetICmpPredicate(test)), a)
        }
        _ => return None,
    };
    let c = LLVMConstIntGetSExtValue(c);
    // A block that only returns (the next barrier's number).
    let returns = |bb: LLVMBasicBlockRef| {
        let first = LLVMGetFirstInstruction(bb);
        LLVMGetInstructionOpcode(first) == LLVMOpcode::LLVMRet
    };
    let (on_true, on_false) = (LLVMGetSuccessor(branch, 0), LLVMGetSuccessor(branch, 1));
    let bound = match (returns(on_true), returns(on_false), pred) {
        // Work while x < c (x <= c); past it, the return.
        (false, true, LLVMIntULT | LLVMIntSLT) => c,
        (false, true, LLVMIntULE | LLVMIntSLE) => c.checked_add(1)?,
        // `if (lid == 0)`: the first work-item alone.
        (false, true, LLVMIntEQ) if c == 0 => 1,
        (true, false, LLVMIntNE) if c == 0 => 1,
        // The return from x >= c (x > c) on.
        (true, false, LLVMIntUGE | LLVMIntSGE) => c,
        (true, false, LLVMIntUGT | LLVMIntSGT) => c.checked_add(1)?,
        _ => return None,
    };
    // Unsigned tests of a negative constant are of huge ones: no bound.
    (bound > 0).then_some(bound as u64)
}

/// The block region `id` of region function `f` starts at: where the
/// entry's `switch` on the region goes (its default for region 0).
unsafe fn region_start(f: LLVMValueRef, id: u32) -> Option<LLVMBasicBlockRef> {
    let switch = LLVMGetBasicBlockTerminator(LLVMGetEntryBasicBlock(f));
    if LLVMGetInstructionOpcode(switch) != LLVMOpcode::LLVMSwitch {
        return None;
    }
    if id == 0 {
        return Some(LLVMGetSwitchDefaultDest(switch));
    }
    (1..LLVMGetNumSuccessors(switch))
        .find(|&k| LLVMConstIntGetZExtValue(LLVMGetSwitchCaseValue(switch, k)) == id as u64)
        .map(|k| LLVMGetSuccessor(switch, k))
}

/// The region that region `id` of region function `f` always leads to:
/// the barrier every path from its start reaches first, or
/// [`REGION_EXIT`]. `None` where paths reach different ones (a barrier
/// in a loop, or under a condition).
///
/// # Safety
/// `f` must be a region function made by [`run`].
pub unsafe fn successor(f: LLVMValueRef, id: u32) -> Option<u32> {
    // Every block ending a region returns the barrier's number.
    let mut reached = None;
    for bb in region_blocks(f, id)? {
        let term = LLVMGetBasicBlockTerminator(bb);
        if LLVMGetInstructionOpcode(term) == LLVMOpcode::LLVMRet {
            let v = LLVMGetOperand(term, 0);
            if LLVMIsAConstantInt(v).is_null() {
                return None;
            }
            let next = LLVMConstIntGetZExtValue(v) as u32;
            if reached.is_some_and(|r| r != next) {
                return None;
            }
            reached = Some(next);
        }
    }
    reached
}

/// The blocks region `id` of region function `f` runs through: those
/// reached from its start.
unsafe fn region_blocks(f: LLVMValueRef, id: u32) -> Option<Vec<LLVMBasicBlockRef>> {
    let (mut seen, mut stack, mut order) = (HashSet::new(), vec![region_start(f, id)?], vec![]);
    while let Some(bb) = stack.pop() {
        if !seen.insert(bb) {
            continue;
        }
        order.push(bb);
        let term = LLVMGetBasicBlockTerminator(bb);
        stack.extend((0..LLVMGetNumSuccessors(term)).map(|k| LLVMGetSuccessor(term, k)));
    }
    Some(order)
}

/// The regions of `r` in which work-items combine their values in the
/// work-group collectives' scratch, one work-item after the other
/// (`builtins/src/cl/work_group.h`), or one of them leaves its value there
/// (a broadcast): each runs one work-item at a time, whatever form the
/// others take. Those that only read what the scratch holds need not.
///
/// # Safety
/// `r.function` must be a live region function made by [`run`].
pub unsafe fn combining_regions(r: &Regions) -> Vec<u32> {
    (0..r.count)
        .filter(|&id| {
            region_blocks(r.function, id).is_some_and(|blocks| {
                blocks.iter().any(|&bb| {
                    llvm::block_instructions(bb)
                        .into_iter()
                        .any(|i| builtin_kinds::writes_work_group_scratch(i))
                })
            })
        })
        .collect()
}

/// Region function `f` with regions `ids` left out: each returns at once,
/// for a form of `f` that runs the others only.
///
/// # Safety
/// `f` must be a live region function made by [`run`] (or a copy of one).
pub unsafe fn leave_out(f: LLVMValueRef, ids: &[u32]) {
    if ids.is_empty() {
        return;
    }
    let entry = LLVMGetEntryBasicBlock(f);
    let switch = LLVMGetBasicBlockTerminator(entry);
    let ctx = LLVMGetTypeContext(LLVMTypeOf(f));
    let out = LLVMAppendBasicBlockInContext(ctx, f, c"left_out".as_ptr());
    let b = LLVMCreateBuilderInContext(ctx);
    LLVMPositionBuilderAtEnd(b, out);
    LLVMBuildRet(
        b,
        LLVMConstInt(LLVMInt32TypeInContext(ctx), REGION_EXIT as u64, 0),
    );
    LLVMDisposeBuilder(b);
    if ids.contains(&0) {
        LLVMSetSuccessor(switch, 0, out);
    }
    for k in 1..LLVMGetNumSuccessors(switch) {
        let id = LLVMConstIntGetZExtValue(LLVMGetSwitchCaseValue(switch, k)) as u32;
        if ids.contains(&id) {
            LLVMSetSuccessor(switch, k, out);
        }
    }
    kernel_ir::cfg::remove_unreachable_blocks(f);
}

/// Splits `kernel` (already holding everything it calls, inlined) into
/// barrier regions for work-groups of `items` work-items. Returns `None`,
/// leaving the kernel alone, when it reaches no barrier. The kernel itself
/// is replaced by the region function.
///
/// # Safety
/// `m` must be a live module whose context this thread owns; `kernel` a
/// function defined in it.
pub unsafe fn run(
    m: LLVMModuleRef,
    kernel: LLVMValueRef,
    items: usize,
) -> Result<Option<Regions>, String> {
    // Work-group barriers are numbered first, then sub-group barriers.
    let mut barriers = barrier_calls(kernel, Barrier::WorkGroup);
    let work_group_barriers = barriers.len() as u32;
    barriers.extend(barrier_calls(kernel, Barrier::SubGroup));
    if barriers.is_empty() {
        return Ok(None);
    }
    let sub_groups = barriers.len() as u32 > work_group_barriers;
    // Indices and addresses stepped the same for every work-item from a
    // start of their own are kept as a count once, not per work-item.
    crate::barrier_inductions::run(kernel);
    let ctx = LLVMGetModuleContext(m);
    let b = LLVMCreateBuilderInContext(ctx);
    let f = region_function(m, kernel);
    LLVMDeleteFunction(kernel);
    let i32t = LLVMInt32TypeInContext(ctx);
    let original_entry = LLVMGetFirstBasicBlock(f);

    // Every `ret void` leaves the kernel: `ret REGION_EXIT`.
    for i in llvm::instructions(f) {
        if LLVMGetInstructionOpcode(i) == LLVMOpcode::LLVMRet {
            LLVMPositionBuilderBefore(b, i);
            LLVMBuildRet(b, LLVMConstInt(i32t, REGION_EXIT as u64, 0));
            LLVMInstructionEraseFromParent(i);
        }
    }

    // Each barrier ends its block with `ret <id>`; what followed it starts
    // region <id>.
    let mut starts = vec![original_entry];
    for (j, &call) in barriers.iter().enumerate() {
        let id = j as u32 + 1;
        let block = LLVMGetInstructionParent(call);
        let cont = split_after(ctx, b, call, &format!("region.{id}"));
        LLVMPositionBuilderBefore(b, call);
        LLVMBuildRet(b, LLVMConstInt(i32t, id as u64, 0));
        LLVMInstructionEraseFromParent(call);
        debug_assert_eq!(
            LLVMGetInstructionParent(LLVMGetLastInstruction(block)),
            block
        );
        starts.push(cont);
    }

    // A new entry: the stack slots, then a jump to the region asked for.
    let entry = LLVMInsertBasicBlockInContext(ctx, original_entry, c"regions".as_ptr());
    LLVMPositionBuilderAtEnd(b, entry);
    let region = LLVMGetParam(f, abi::region_param(LLVMCountParams(f)));
    let switch = LLVMBuildSwitch(b, region, original_entry, starts.len() as u32 - 1);
    for (j, &start) in starts.iter().enumerate().skip(1) {
        LLVMAddCase(switch, LLVMConstInt(i32t, j as u64, 0), start);
    }
    for i in llvm::instructions(f) {
        if !LLVMIsAAllocaInst(i).is_null() && LLVMGetInstructionParent(i) != entry {
            LLVMPositionBuilderBefore(b, switch);
            reinsert(b, i);
        }
    }

    let cfg = Cfg::of(f);
    let uniform_slots = demote_values_crossing_regions(b, f, entry, switch, &cfg, &starts);
    // A staged value is copied once every work-item has run a region; the
    // sub-groups of a kernel with sub-group barriers each run on through
    // several regions in turn, so each work-item keeps its own copy.
    let stage = !sub_groups;
    let (storage_bytes, staged) = move_shared_slots_to_storage(
        m,
        b,
        f,
        entry,
        switch,
        &cfg,
        &starts,
        items,
        &uniform_slots,
        stage,
    );
    LLVMDisposeBuilder(b);
    Ok(Some(Regions {
        function: f,
        count: starts.len() as u32,
        work_group_barriers,
        storage_bytes,
        staged,
    }))
}

/// A new function `i32 (<kernel params>, i32, ptr, i64)` named
/// `<kernel>.regions` that takes over the kernel's body and attributes.
unsafe fn region_function(m: LLVMModuleRef, k: LLVMValueRef) -> LLVMValueRef {
    let ctx = LLVMGetModuleContext(m);
    let kty = LLVMGlobalGetValueType(k);
    let n = LLVMCountParamTypes(kty) as usize;
    let mut params = vec![std::ptr::null_mut(); n];
    LLVMGetParamTypes(kty, params.as_mut_ptr());
    params.push(LLVMInt32TypeInContext(ctx));
    params.push(LLVMPointerTypeInContext(ctx, 0));
    params.push(LLVMInt64TypeInContext(ctx));
    params.push(LLVMPointerTypeInContext(ctx, 0));
    let fty = LLVMFunctionType(
        LLVMInt32TypeInContext(ctx),
        params.as_mut_ptr(),
        params.len() as u32,
        0,
    );
    let name = cstr(&format!("{}.regions", llvm::name(k)));
    let f = LLVMAddFunction(m, name.as_ptr(), fty);
    LLVMSetLinkage(f, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
    // Function attributes (target features, ...) and parameter attributes.
    for index in std::iter::once(llvm_sys::LLVMAttributeFunctionIndex).chain(1..=n as u32) {
        let count = LLVMGetAttributeCountAtIndex(k, index);
        let mut attrs = vec![std::ptr::null_mut(); count as usize];
        LLVMGetAttributesAtIndex(k, index, attrs.as_mut_ptr());
        for a in attrs {
            LLVMAddAttributeAtIndex(f, index, a);
        }
    }
    for (i, pname) in abi::REGION_PARAMS.iter().enumerate() {
        let p = LLVMGetParam(f, (n + i) as u32);
        LLVMSetValueName2(p, pname.as_ptr() as *const _, pname.len());
    }
    for attr in ["noalias", "readonly"] {
        let kind = LLVMGetEnumAttributeKindForName(attr.as_ptr() as *const _, attr.len());
        // Attribute indices count parameters from 1.
        let staged = abi::staged_param((n + abi::REGION_PARAMS.len()) as u32) + 1;
        LLVMAddAttributeAtIndex(f, staged, LLVMCreateEnumAttribute(ctx, kind, 0));
    }
    let blocks = blocks(k);
    for (i, &bb) in blocks.iter().enumerate() {
        if i == 0 {
            // The first block goes into the (empty) new function first.
            let placeholder = LLVMAppendBasicBlockInContext(ctx, f, c"".as_ptr());
            LLVMMoveBasicBlockAfter(bb, placeholder);
            LLVMDeleteBasicBlock(placeholder);
        } else {
            LLVMMoveBasicBlockAfter(bb, blocks[i - 1]);
        }
    }
    for i in 0..n as u32 {
        let (old, new) = (LLVMGetParam(k, i), LLVMGetParam(f, i));
        let name = llvm::name(old);
        LLVMReplaceAllUsesWith(old, new);
        LLVMSetValueName2(new, name.as_ptr() as *const _, name.len());
    }
    f
}

/// What the barrier pass asks of a function's graph, with each `ret <id>`
/// that ends a region leading to the start of region `id`.
trait RegionGraph {
    /// Whether `block` may run more than once for a work-item: it is on a
    /// cycle, counting each `ret <id>` that ends a region as an edge to the
    /// start of region `id`.
    unsafe fn runs_again(&self, block: LLVMBasicBlockRef, starts: &[LLVMBasicBlockRef]) -> bool;

    /// For each block, the regions (by index into `starts`) that reach it
    /// without passing a barrier.
    fn regions(&self, starts: &[LLVMBasicBlockRef]) -> Vec<HashSet<usize>>;
}

impl RegionGraph for Cfg {
    unsafe fn runs_again(&self, block: LLVMBasicBlockRef, starts: &[LLVMBasicBlockRef]) -> bool {
        let next = |b: usize| {
            let mut out = self.succs[b].clone();
            let t = LLVMGetBasicBlockTerminator(self.blocks[b]);
            if LLVMGetInstructionOpcode(t) == llvm_sys::LLVMOpcode::LLVMRet
                && LLVMGetNumOperands(t) == 1
                && !LLVMIsAConstantInt(LLVMGetOperand(t, 0)).is_null()
            {
                let id = LLVMConstIntGetSExtValue(LLVMGetOperand(t, 0));
                if let Some(start) = usize::try_from(id).ok().and_then(|id| starts.get(id)) {
                    out.push(self.index[start]);
                }
            }
            out
        };
        let from = self.index[&block];
        let mut seen = vec![false; self.blocks.len()];
        let mut work = next(from);
        while let Some(b) = work.pop() {
            if b == from {
                return true;
            }
            if !std::mem::replace(&mut seen[b], true) {
                work.extend(next(b));
            }
        }
        false
    }

    fn regions(&self, starts: &[LLVMBasicBlockRef]) -> Vec<HashSet<usize>> {
        let mut of = vec![HashSet::new(); self.blocks.len()];
        for (r, s) in starts.iter().enumerate() {
            let mut work = vec![self.index[s]];
            while let Some(b) = work.pop() {
                if of[b].insert(r) {
                    work.extend(&self.succs[b]);
                }
            }
        }
        of
    }
}

/// One use of a value: its user and operand number.
pub(crate) struct Use {
    pub(crate) user: LLVMValueRef,
    pub(crate) operand: u32,
}

/// Every use of `v`, each operand of each user.
pub(crate) unsafe fn uses(v: LLVMValueRef) -> Vec<Use> {
    let mut users = Vec::new();
    let mut u = LLVMGetFirstUse(v);
    while !u.is_null() {
        let user = LLVMGetUser(u);
        if !users.contains(&user) {
            users.push(user);
        }
        u = LLVMGetNextUse(u);
    }
    let mut out = Vec::new();
    for user in users {
        for operand in 0..LLVMGetNumOperands(user) as u32 {
            if LLVMGetOperand(user, operand) == v {
                out.push(Use { user, operand });
            }
        }
    }
    out
}

/// The block where a use happens: a phi uses its value at the end of the
/// incoming block.
unsafe fn use_block(u: &Use) -> LLVMBasicBlockRef {
    if LLVMIsAPHINode(u.user).is_null() {
        LLVMGetInstructionParent(u.user)
    } else {
        LLVMGetIncomingBlock(u.user, u.operand)
    }
}

/// Each value used where its definition does not dominate the use (it was
/// made in an earlier region) goes through a stack slot: stored after its
/// definition, loaded at those uses.
unsafe fn demote_values_crossing_regions(
    b: LLVMBuilderRef,
    f: LLVMValueRef,
    entry: LLVMBasicBlockRef,
    switch: LLVMValueRef,
    cfg: &Cfg,
    starts: &[LLVMBasicBlockRef],
) -> HashMap<LLVMValueRef, bool> {
    let uniformity = Uniformity::of(f);
    let mut uniform_slots = HashMap::new();
    for i in llvm::instructions(f) {
        let block = LLVMGetInstructionParent(i);
        if block == entry
            || LLVMGetTypeKind(LLVMTypeOf(i)) == llvm_sys::LLVMTypeKind::LLVMVoidTypeKind
        {
            continue;
        }
        let crossing: Vec<Use> = uses(i)
            .into_iter()
            .filter(|u| {
                let at = use_block(u);
                at != block && !cfg.dominates(block, at)
            })
            .collect();
        if crossing.is_empty() {
            continue;
        }
        if rematerializable(i, REMAT_DEPTH) {
            // Cheaper to compute again where it is used than to keep.
            for u in crossing {
                position_at_use(b, &u);
                let v = rematerialize(b, i);
                LLVMSetOperand(u.user, u.operand, v);
            }
            continue;
        }
        let ty = LLVMTypeOf(i);
        LLVMPositionBuilderBefore(b, switch);
        let slot = LLVMBuildAlloca(b, ty, cstr(&format!("{}.slot", llvm::name(i))).as_ptr());
        if uniformity.is_uniform(i) {
            // The same for every work-item: one copy serves them all. A
            // definition on no cycle is written once and never changes.
            uniform_slots.insert(slot, !cfg.runs_again(block, starts));
        }
        // Store right after the definition (after all phis, for a phi).
        let mut after = LLVMGetNextInstruction(i);
        while !LLVMIsAPHINode(after).is_null() {
            after = LLVMGetNextInstruction(after);
        }
        LLVMPositionBuilderBefore(b, after);
        LLVMBuildStore(b, i, slot);
        for u in crossing {
            position_at_use(b, &u);
            let v = LLVMBuildLoad2(b, ty, slot, c"".as_ptr());
            LLVMSetOperand(u.user, u.operand, v);
        }
    }
    uniform_slots
}

/// Places the builder where a use reads its value: before the user, or at
/// the end of the incoming block for a phi.
pub(crate) unsafe fn position_at_use(b: LLVMBuilderRef, u: &Use) {
    if LLVMIsAPHINode(u.user).is_null() {
        LLVMPositionBuilderBefore(b, u.user);
    } else {
        let incoming = LLVMGetIncomingBlock(u.user, u.operand);
        LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(incoming));
    }
}

/// How deep an expression may be and still be computed again: deep
/// enough for an address from two ids as an optimizer leaves it
/// (`b + (((ly << 32) >> 32) * n << 2) + ((gx << 32) >> 30)`).
pub(crate) const REMAT_DEPTH: u32 = 8;

/// Whether `v` is a small pure expression over constants, the kernel's
/// arguments and the work-item builtins (ids, sizes), which every region
/// can compute for itself: `get_local_id(0) * 4 + offset`, say.
pub(crate) unsafe fn rematerializable(v: LLVMValueRef, depth: u32) -> bool {
    if !LLVMIsAConstant(v).is_null() || !LLVMIsAArgument(v).is_null() {
        return true;
    }
    if depth == 0 || LLVMIsAInstruction(v).is_null() {
        return false;
    }
    use LLVMOpcode::*;
    let operands = match LLVMGetInstructionOpcode(v) {
        LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMLShr | LLVMAShr | LLVMAnd | LLVMOr
        | LLVMXor | LLVMTrunc | LLVMZExt | LLVMSExt | LLVMICmp | LLVMSelect | LLVMGetElementPtr
        | LLVMBitCast | LLVMAddrSpaceCast => LLVMGetNumOperands(v) as u32,
        // The work-item builtins: pure, and defined per work-item later.
        LLVMCall => {
            let mux =
                llvm::called_function(v).is_some_and(|f| builtin_kinds::is_query(&llvm::name(f)));
            if !mux {
                return false;
            }
            // The callee is the last operand.
            LLVMGetNumOperands(v) as u32 - 1
        }
        _ => return false,
    };
    (0..operands).all(|i| rematerializable(LLVMGetOperand(v, i), depth - 1))
}

/// A copy of the expression `v` at the builder's position.
unsafe fn rematerialize(b: LLVMBuilderRef, v: LLVMValueRef) -> LLVMValueRef {
    if LLVMIsAInstruction(v).is_null() {
        return v;
    }
    let copy = LLVMInstructionClone(v);
    let operands = if LLVMIsACallInst(v).is_null() {
        LLVMGetNumOperands(v) as u32
    } else {
        LLVMGetNumOperands(v) as u32 - 1
    };
    for i in 0..operands {
        let op = rematerialize(b, LLVMGetOperand(v, i));
        LLVMSetOperand(copy, i, op);
    }
    let name = cstr(&format!("{}.again", llvm::name(v)));
    LLVMInsertIntoBuilderWithName(b, copy, name.as_ptr());
    copy
}

/// The blocks where `slot`'s memory is used, through any pointer derived
/// from it; `None` when the pointer escapes (stored, or turned into an
/// integer), and so could be used anywhere.
/// The regions some block of which ends in a barrier leading back to the
/// region itself.
unsafe fn reentered_regions(cfg: &Cfg, regions: &[HashSet<usize>]) -> HashSet<usize> {
    let mut out = HashSet::new();
    for (b, &block) in cfg.blocks.iter().enumerate() {
        let term = LLVMGetBasicBlockTerminator(block);
        if term.is_null()
            || LLVMGetInstructionOpcode(term) != LLVMOpcode::LLVMRet
            || LLVMGetNumOperands(term) != 1
        {
            continue;
        }
        let id = LLVMGetOperand(term, 0);
        if LLVMIsAConstantInt(id).is_null() {
            continue;
        }
        let next = LLVMConstIntGetZExtValue(id) as usize;
        if regions[b].contains(&next) {
            out.insert(next);
        }
    }
    out
}

unsafe fn slot_use_blocks(slot: LLVMValueRef) -> Option<Vec<LLVMBasicBlockRef>> {
    let mut blocks = Vec::new();
    let mut work = vec![slot];
    let mut seen = HashSet::new();
    while let Some(p) = work.pop() {
        if !seen.insert(p) {
            continue;
        }
        for u in uses(p) {
            blocks.push(use_block(&u));
            use LLVMOpcode::*;
            match LLVMGetInstructionOpcode(u.user) {
                LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast | LLVMSelect | LLVMPHI => {
                    blocks.push(LLVMGetInstructionParent(u.user));
                    work.push(u.user);
                }
                // Storing the pointer itself lets it escape.
                LLVMStore if u.operand == 0 => return None,
                LLVMLoad | LLVMStore | LLVMCall | LLVMICmp => {}
                _ => return None,
            }
        }
    }
    Some(blocks)
}

/// Whether a region both reads and writes `slot` (a loop counter carried
/// across a barrier, say). Work-items run a region one after another, so
/// with one copy a later work-item would read what an earlier one wrote in
/// the same region rather than the value the region started with.
unsafe fn read_then_written(slot: LLVMValueRef, cfg: &Cfg, regions: &[HashSet<usize>]) -> bool {
    let mut reads: HashSet<usize> = HashSet::new();
    let mut writes: HashSet<usize> = HashSet::new();
    for u in uses(slot) {
        let of = &regions[cfg.index[&LLVMGetInstructionParent(u.user)]];
        match LLVMGetInstructionOpcode(u.user) {
            LLVMOpcode::LLVMLoad => reads.extend(of.iter().copied()),
            LLVMOpcode::LLVMStore => writes.extend(of.iter().copied()),
            _ => return true,
        }
    }
    !reads.is_disjoint(&writes)
}

/// Whether `slot` may be read from one copy and written to another: its
/// uses are plain loads and stores of it, and no load can follow a store
/// within a region (the load would want the value just stored).
unsafe fn stageable(slot: LLVMValueRef, cfg: &Cfg) -> bool {
    let mut loads: HashSet<LLVMBasicBlockRef> = HashSet::new();
    let mut stores = Vec::new();
    let markers = lifetime_markers(slot);
    for u in uses(slot) {
        match LLVMGetInstructionOpcode(u.user) {
            LLVMOpcode::LLVMLoad => {
                loads.insert(LLVMGetInstructionParent(u.user));
            }
            LLVMOpcode::LLVMStore if u.operand == 1 => stores.push(u.user),
            _ if markers.contains(&u.user) => {}
            _ => return false,
        }
    }
    for store in stores {
        let block = LLVMGetInstructionParent(store);
        // Later in the store's own block.
        let mut i = LLVMGetNextInstruction(store);
        while !i.is_null() {
            if !LLVMIsALoadInst(i).is_null() && LLVMGetOperand(i, 0) == slot {
                return false;
            }
            i = LLVMGetNextInstruction(i);
        }
        // Any block reachable from it: regions end at `ret`.
        let mut work: Vec<usize> = cfg.succs[cfg.index[&block]].clone();
        let mut seen = HashSet::new();
        while let Some(x) = work.pop() {
            if !seen.insert(x) {
                continue;
            }
            if loads.contains(&cfg.blocks[x]) {
                return false;
            }
            work.extend(&cfg.succs[x]);
        }
    }
    true
}

/// The `llvm.lifetime.*` calls on `slot`: they may only name a stack slot.
unsafe fn lifetime_markers(slot: LLVMValueRef) -> Vec<LLVMValueRef> {
    uses(slot)
        .into_iter()
        .map(|u| u.user)
        .filter(|&user| {
            llvm::called_function(user).is_some_and(|c| llvm::name(c).starts_with("llvm.lifetime."))
        })
        .collect()
}

/// Moves every stack slot that more than one region uses into the storage
/// block (slot `s` of work-item `i` at `offset(s) + i * stride(s)`), and
/// returns the block's size for the whole work-group, with where the
/// staged uniform values are (see [`Regions::staged`]).
#[allow(clippy::too_many_arguments)]
unsafe fn move_shared_slots_to_storage(
    m: LLVMModuleRef,
    b: LLVMBuilderRef,
    f: LLVMValueRef,
    entry: LLVMBasicBlockRef,
    switch: LLVMValueRef,
    cfg: &Cfg,
    starts: &[LLVMBasicBlockRef],
    items: usize,
    uniform_slots: &HashMap<LLVMValueRef, bool>,
    stage: bool,
) -> (usize, Option<(usize, usize, usize)>) {
    let ctx = LLVMGetModuleContext(m);
    let td = LLVMGetModuleDataLayout(m);
    let i8t = LLVMInt8TypeInContext(ctx);
    let i64t = LLVMInt64TypeInContext(ctx);
    let regions = cfg.regions(starts);
    let n = LLVMCountParams(f);
    let storage = LLVMGetParam(f, n - 3);
    let linear_id = LLVMGetParam(f, n - 2);
    let staged_read = LLVMGetParam(f, n - 1);
    let mut total = 0usize;
    // Staged slots: their offset within each copy, and size.
    let mut staged: Vec<(LLVMValueRef, usize)> = Vec::new();
    let mut staged_bytes = 0usize;
    let slots: Vec<LLVMValueRef> = llvm::instructions(f)
        .into_iter()
        .filter(|&i| LLVMGetInstructionParent(i) == entry && !LLVMIsAAllocaInst(i).is_null())
        .collect();
    let reentered = reentered_regions(cfg, &regions);
    // Each slot's run of copies in the storage block, to mark disjoint.
    let mut runs = Vec::new();
    for slot in slots {
        let shared = match slot_use_blocks(slot) {
            None => true,
            Some(blocks) => {
                let used_by: HashSet<usize> = blocks
                    .iter()
                    .flat_map(|bb| regions[cfg.index[bb]].iter().copied())
                    .collect();
                // A region that a barrier leads back to (a loop with a
                // barrier) runs again for every work-item: what one
                // work-item left in the slot must outlive the others' turns.
                used_by.len() > 1 || used_by.iter().any(|r| reentered.contains(r))
            }
        };
        let size = LLVMGetOperand(slot, 0);
        if !shared || LLVMIsAConstantInt(size).is_null() {
            continue;
        }
        let ty = LLVMGetAllocatedType(slot);
        let count = LLVMConstIntGetZExtValue(size) as usize;
        let align = (LLVMGetAlignment(slot) as usize).max(LLVMABIAlignmentOfType(td, ty) as usize);
        let size = (LLVMABISizeOfType(td, ty) as usize * count).next_multiple_of(align.max(1));
        let uniform = uniform_slots.contains_key(&slot);
        // Uniform and written once: every read, in any region, finds the
        // one value every work-item writes.
        let fixed = uniform_slots.get(&slot) == Some(&true);
        let changes = !fixed && read_then_written(slot, cfg, &regions);
        if uniform && changes && stage && stageable(slot, cfg) {
            let at = staged_bytes.next_multiple_of(align.max(1));
            staged_bytes = at + size;
            staged.push((slot, at));
            for marker in lifetime_markers(slot) {
                LLVMInstructionEraseFromParent(marker);
            }
            continue;
        }
        let offset = total.next_multiple_of(SLOT_ALIGN);
        let once = uniform && !changes;
        let stride = if once { 0 } else { size };
        total = offset + size.max(stride * items);
        for marker in lifetime_markers(slot) {
            LLVMInstructionEraseFromParent(marker);
        }
        LLVMPositionBuilderBefore(b, switch);
        let at = LLVMBuildMul(
            b,
            linear_id,
            LLVMConstInt(i64t, stride as u64, 0),
            c"".as_ptr(),
        );
        let at = LLVMBuildAdd(b, at, LLVMConstInt(i64t, offset as u64, 0), c"".as_ptr());
        let mut idx = [at];
        let name = cstr(&format!("{}.item", llvm::name(slot)));
        let p = LLVMBuildInBoundsGEP2(b, i8t, storage, idx.as_mut_ptr(), 1, name.as_ptr());
        LLVMReplaceAllUsesWith(slot, p);
        LLVMInstructionEraseFromParent(slot);
        runs.push(p);
    }
    mark_disjoint(f, &runs);
    if staged.is_empty() {
        return (total, None);
    }
    let read = total.next_multiple_of(SLOT_ALIGN);
    let write = (read + staged_bytes).next_multiple_of(SLOT_ALIGN);
    for (slot, at) in staged {
        // Read through `%staged` (the read copy), written in place.
        let copies = [(staged_read, at), (storage, write + at)].map(|(base, offset)| {
            LLVMPositionBuilderBefore(b, switch);
            let mut idx = [LLVMConstInt(i64t, offset as u64, 0)];
            let name = cstr(&format!("{}.once", llvm::name(slot)));
            LLVMBuildInBoundsGEP2(b, i8t, base, idx.as_mut_ptr(), 1, name.as_ptr())
        });
        for u in uses(slot) {
            let copy = if LLVMIsALoadInst(u.user).is_null() {
                1
            } else {
                0
            };
            LLVMSetOperand(u.user, u.operand, copies[copy]);
        }
        LLVMInstructionEraseFromParent(slot);
    }
    (write + staged_bytes, Some((read, write, staged_bytes)))
}

/// Gives the loads and stores through each of `runs` (a slot's copies in
/// the storage block, which never overlap) an alias scope of its own and
/// the others' as `!noalias`. Their addresses scale the linear id by each
/// slot's size, a difference LLVM's alias analysis cannot see through:
/// without this, a store to one slot in a loop (an accumulator carried
/// across barriers) keeps every other slot's load in the loop.
unsafe fn mark_disjoint(f: LLVMValueRef, runs: &[LLVMValueRef]) {
    if runs.len() < 2 {
        return;
    }
    let ctx = LLVMGetTypeContext(LLVMTypeOf(f));
    let string = |s: &str| LLVMMDStringInContext2(ctx, s.as_ptr() as *const _, s.len());
    // String-named, so the same slot's scope is one node however often
    // the function is copied or inlined.
    let fname = llvm::name(f);
    let mut domain = [string(&format!("ferrocl.storage {fname}"))];
    let domain = LLVMMDNodeInContext2(ctx, domain.as_mut_ptr(), 1);
    let scopes: Vec<LLVMMetadataRef> = (0..runs.len())
        .map(|i| {
            let mut ops = [string(&format!("ferrocl.storage {fname} slot {i}")), domain];
            LLVMMDNodeInContext2(ctx, ops.as_mut_ptr(), 2)
        })
        .collect();
    let kind =
        |name: &str| LLVMGetMDKindIDInContext(ctx, name.as_ptr() as *const _, name.len() as u32);
    let (scope_kind, noalias_kind) = (kind("alias.scope"), kind("noalias"));
    for (i, &run) in runs.iter().enumerate() {
        let mut own = [scopes[i]];
        let own = LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, own.as_mut_ptr(), 1));
        let mut others: Vec<LLVMMetadataRef> = (0..runs.len())
            .filter(|&j| j != i)
            .map(|j| scopes[j])
            .collect();
        let others = LLVMMDNodeInContext2(ctx, others.as_mut_ptr(), others.len());
        let others = LLVMMetadataAsValue(ctx, others);
        for access in accesses_through(run) {
            LLVMSetMetadata(access, scope_kind, own);
            LLVMSetMetadata(access, noalias_kind, others);
        }
    }
}

/// The plain loads and stores whose address is `p` or a `getelementptr`
/// of it (not a store of the address itself).
unsafe fn accesses_through(p: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut found = Vec::new();
    let mut work = vec![p];
    let mut seen = HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for u in uses(v) {
            let i = u.user;
            if !LLVMIsAGetElementPtrInst(i).is_null() && u.operand == 0 {
                work.push(i);
            } else if !LLVMIsALoadInst(i).is_null()
                || (!LLVMIsAStoreInst(i).is_null() && u.operand == 1)
            {
                found.push(i);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    fn split(ir: &Ir, kernel: &str, items: usize) -> Regions {
        unsafe {
            let r = run(ir.m, ir.function(kernel), items)
                .unwrap()
                .expect("has barriers");
            compiler::llvm::verify(ir.m).unwrap_or_else(|e| panic!("{e}\n{}", ir.text()));
            r
        }
    }

    #[test]
    fn a_region_starting_with_a_test_of_the_x_id_is_bounded_by_it() {
        // The levels of a tree reduction, in the forms a test takes, and
        // regions that do something before their test or past it.
        let ir = Ir::parse(
            r#"
declare void @__mux_work_group_barrier(i32)
declare i64 @__mux_get_local_id(i32)
define void @k(ptr addrspace(3) %p, ptr %q) {
entry:
  call void @__mux_work_group_barrier(i32 1)
  %a = call i64 @__mux_get_local_id(i32 0)
  %a32 = trunc i64 %a to i32
  %ta = icmp slt i32 %a32, 128
  br i1 %ta, label %work1, label %next1
work1:
  store i32 1, ptr addrspace(3) %p
  br label %next1
next1:
  call void @__mux_work_group_barrier(i32 1)
  %b = call i64 @__mux_get_local_id(i32 0)
  %loaded = load i32, ptr %q
  %tb = icmp ugt i64 64, %b
  br i1 %tb, label %work2, label %next2
work2:
  store i32 %loaded, ptr addrspace(3) %p
  br label %next2
next2:
  call void @__mux_work_group_barrier(i32 1)
  %c = call i64 @__mux_get_local_id(i32 0)
  %tc = icmp uge i64 %c, 16
  br i1 %tc, label %next3, label %work3
work3:
  store i32 3, ptr addrspace(3) %p
  br label %next3
next3:
  call void @__mux_work_group_barrier(i32 1)
  store i32 4, ptr %q
  %d = call i64 @__mux_get_local_id(i32 0)
  %td = icmp ult i64 %d, 8
  br i1 %td, label %work4, label %next4
work4:
  store i32 5, ptr addrspace(3) %p
  br label %next4
next4:
  call void @__mux_work_group_barrier(i32 1)
  %e = call i64 @__mux_get_local_id(i32 1)
  %te = icmp ult i64 %e, 1
  br i1 %te, label %work5, label %next5
work5:
  store i32 6, ptr addrspace(3) %p
  br label %next5
next5:
  call void @__mux_work_group_barrier(i32 1)
  %g = call i64 @__mux_get_local_id(i32 0)
  %tg = icmp eq i64 %g, 0
  br i1 %tg, label %work7, label %next7
work7:
  store i32 8, ptr %q
  br label %next7
next7:
  call void @__mux_work_group_barrier(i32 1)
  %f = call i64 @__mux_get_local_id(i32 0)
  %f32 = trunc i64 %f to i32
  %tf = icmp sle i32 %f32, -1
  br i1 %tf, label %work6, label %next6
work6:
  store i32 7, ptr addrspace(3) %p
  br label %next6
next6:
  ret void
}
"#,
        );
        let r = split(&ir, "k", 256);
        let bounds: Vec<Option<u64>> = (0..r.count)
            .map(|id| unsafe { x_bound(r.function, id) })
            .collect();
        assert_eq!(
            bounds,
            [
                None,      // the start of the kernel
                Some(128), // lid < 128, signed, on a truncated id
                Some(64),  // 64 > lid, after a load
                Some(16),  // the return from lid >= 16 on
                None,      // a store before the test
                None,      // a test of the y id
                Some(1),   // lid == 0
                None,      // no x id does anything
            ]
        );
    }

    #[test]
    fn a_kernel_without_barriers_is_left_alone() {
        let ir = Ir::parse(
            r#"
define void @k(ptr %p) {
  store i32 1, ptr %p
  ret void
}
"#,
        );
        let before = ir.text();
        assert!(unsafe { run(ir.m, ir.function("k"), 8) }.unwrap().is_none());
        assert_eq!(ir.text(), before);
    }

    #[test]
    fn each_barrier_ends_a_region_and_starts_the_next() {
        let ir = Ir::parse(
            r#"
declare void @__mux_work_group_barrier(i32)
define void @k(ptr %p) {
  store i32 1, ptr %p
  call void @__mux_work_group_barrier(i32 1)
  store i32 2, ptr %p
  call void @__mux_work_group_barrier(i32 1)
  store i32 3, ptr %p
  ret void
}
"#,
        );
        let r = split(&ir, "k", 4);
        assert_eq!(r.count, 3);
        assert_eq!(r.storage_bytes, 0, "nothing lives across the barriers");
        let text = ir.text();
        assert!(
            text.contains(
                "define internal i32 @k.regions(ptr %p, i32 %region, ptr %storage, i64 %linear_id, ptr noalias readonly %staged)"
            ),
            "{text}"
        );
        assert!(text.contains("switch i32 %region, label"), "{text}");
        assert!(
            text.contains("ret i32 1") && text.contains("ret i32 2"),
            "{text}"
        );
        assert!(
            text.contains("ret i32 -1"),
            "the end returns REGION_EXIT: {text}"
        );
        assert!(
            !text.contains("call void @__mux_work_group_barrier"),
            "{text}"
        );
        assert!(ir.function("k").is_null(), "the kernel is replaced");
    }

    #[test]
    fn a_value_live_across_a_barrier_goes_to_storage_item_by_item() {
        let ir = Ir::parse(
            r#"
declare void @__mux_work_group_barrier(i32)
declare i32 @input()
define void @k(ptr %p) {
  %v = call i32 @input()
  call void @__mux_work_group_barrier(i32 1)
  store i32 %v, ptr %p
  ret void
}
"#,
        );
        let r = split(&ir, "k", 16);
        // One i32 per work-item.
        assert_eq!(r.storage_bytes, 16 * 4);
        let text = ir.text();
        assert!(text.contains("mul i64 %linear_id, 4"), "{text}");
        assert!(text.contains("store i32 %v, ptr %v.slot.item"), "{text}");
        assert!(text.contains("load i32, ptr %v.slot.item"), "{text}");
    }

    #[test]
    fn slots_are_disjoint_so_a_loop_storing_one_reads_another_once() {
        // `p` (16 bytes a work-item) is read in a loop that stores `acc`
        // (4 bytes a work-item) each iteration, as n-body's accumulators.
        let ir = Ir::parse(
            r#"
declare void @__mux_work_group_barrier(i32)
declare <4 x float> @input()
define void @k(ptr %out, ptr addrspace(3) %tile) {
entry:
  %p = call <4 x float> @input()
  call void @__mux_work_group_barrier(i32 1)
  br label %loop
loop:
  %j = phi i64 [ 0, %entry ], [ %j.next, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc.next, %loop ]
  %q = getelementptr float, ptr addrspace(3) %tile, i64 %j
  %qv = load float, ptr addrspace(3) %q
  %px = extractelement <4 x float> %p, i32 0
  %d = fsub float %qv, %px
  %acc.next = fadd float %acc, %d
  %j.next = add i64 %j, 1
  %done = icmp eq i64 %j.next, 128
  br i1 %done, label %after, label %loop
after:
  call void @__mux_work_group_barrier(i32 2)
  store float %acc.next, ptr %out
  ret void
}
"#,
        );
        split(&ir, "k", 16);
        unsafe {
            compiler::llvm::run_passes(ir.m, "function(loop-mssa(licm))", std::ptr::null_mut())
                .unwrap();
            let f = ir.function("k.regions");
            let reads_of_p: Vec<_> = llvm::instructions(f)
                .into_iter()
                .filter(|&i| {
                    !LLVMIsALoadInst(i).is_null()
                        && llvm::name(LLVMGetOperand(i, 0)).starts_with("p.slot")
                })
                .collect();
            assert!(!reads_of_p.is_empty(), "{}", ir.text());
            for i in reads_of_p {
                let block = LLVMGetInstructionParent(i);
                let name = llvm::name(LLVMBasicBlockAsValue(block));
                assert_ne!(
                    name,
                    "loop",
                    "p is read once, before the loop: {}",
                    ir.text()
                );
            }
        }
        let text = ir.text();
        assert!(
            text.contains("!alias.scope") && text.contains("!noalias"),
            "{text}"
        );
    }

    #[test]
    fn a_private_array_only_a_loop_with_a_barrier_uses_is_kept_per_work_item() {
        // Each iteration is a region the work-items run one after another:
        // with one array for all, each would find the others' writes.
        let ir = Ir::parse(
            r#"
declare void @__mux_work_group_barrier(i32)
declare i32 @input()
define void @k(ptr %p) {
entry:
  %a = alloca [4 x i32]
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %n, %loop ]
  call void @__mux_work_group_barrier(i32 1)
  %v = call i32 @input()
  %e = getelementptr i8, ptr %a, i64 %i
  store i32 %v, ptr %e
  %n = add i64 %i, 4
  %c = icmp eq i64 %n, 16
  br i1 %c, label %done, label %loop
done:
  %r = load i32, ptr %a
  store i32 %r, ptr %p
  ret void
}
"#,
        );
        let r = split(&ir, "k", 8);
        assert!(r.storage_bytes >= 8 * 16, "{}", r.storage_bytes);
        let text = ir.text();
        assert!(!text.contains("alloca [4 x i32]"), "{text}");
    }

    #[test]
    fn ids_and_arguments_are_computed_again_not_stored() {
        let ir = Ir::parse(
            r#"
declare void @__mux_work_group_barrier(i32)
declare i64 @__mux_get_local_id(i32)
define void @k(ptr %p, i64 %base) {
  %lid = call i64 @__mux_get_local_id(i32 0)
  %at = add i64 %lid, %base
  %q = getelementptr i32, ptr %p, i64 %at
  store i32 1, ptr %q
  call void @__mux_work_group_barrier(i32 1)
  store i32 2, ptr %q
  ret void
}
"#,
        );
        let r = split(&ir, "k", 64);
        assert_eq!(r.storage_bytes, 0, "{}", ir.text());
        let text = ir.text();
        assert!(
            text.contains("%lid.again = call i64 @__mux_get_local_id(i32 0)"),
            "{text}"
        );
        assert!(
            text.contains("%q.again = getelementptr i32, ptr %p, i64 %at.again"),
            "{text}"
        );
    }

    #[test]
    fn a_uniform_value_live_across_a_barrier_is_kept_once() {
        let ir = Ir::parse(
            r#"
declare void @__mux_work_group_barrier(i32)
declare i64 @__mux_get_group_id(i32)
define void @k(ptr %p, i64 %n) {
  %g = call i64 @__mux_get_group_id(i32 0)
  %load = load i64, ptr %p
  %v = mul i64 %g, %load
  call void @__mux_work_group_barrier(i32 1)
  store i64 %v, ptr %p
  ret void
}
"#,
        );
        let r = split(&ir, "k", 16);
        // %v depends on memory, so it is kept: varying, one per item.
        assert_eq!(r.storage_bytes, 16 * 8, "{}", ir.text());
        let ir = Ir::parse(
            r#"
declare void @__mux_work_group_barrier(i32)
declare i64 @__mux_get_group_id(i32)
define void @k(ptr %p, i64 %n) {
entry:
  %g = call i64 @__mux_get_group_id(i32 0)
  %odd = icmp ne i64 %n, 0
  br i1 %odd, label %a, label %b
a:
  br label %b
b:
  %v = phi i64 [ %g, %entry ], [ %n, %a ]
  call void @__mux_work_group_barrier(i32 1)
  store i64 %v, ptr %p
  ret void
}
"#,
        );
        let r = split(&ir, "k", 16);
        // A phi on uniform control flow: the same everywhere, kept once.
        assert_eq!(r.storage_bytes, 8, "{}", ir.text());
    }

    #[test]
    fn a_value_used_within_its_region_stays_on_the_stack() {
        let ir = Ir::parse(
            r#"
declare void @__mux_work_group_barrier(i32)
declare i32 @input()
define void @k(ptr %p) {
  %tmp = alloca i32
  %v = call i32 @input()
  store i32 %v, ptr %tmp
  %w = load i32, ptr %tmp
  store i32 %w, ptr %p
  call void @__mux_work_group_barrier(i32 1)
  store i32 0, ptr %p
  ret void
}
"#,
        );
        let r = split(&ir, "k", 16);
        assert_eq!(r.storage_bytes, 0);
        assert!(ir.text().contains("%tmp = alloca i32"), "{}", ir.text());
    }

    #[test]
    fn a_barrier_in_a_loop_stages_its_uniform_counter() {
        let ir = Ir::parse(
            r#"
declare void @__mux_work_group_barrier(i32)
define void @k(ptr %p, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  store i32 %i, ptr %p
  call void @__mux_work_group_barrier(i32 1)
  %next = add i32 %i, 1
  %more = icmp ult i32 %next, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}
"#,
        );
        let r = split(&ir, "k", 8);
        assert_eq!(r.count, 2);
        // %i is made before the barrier and used after it. It is the same
        // for every work-item, and region 1 reads it and writes the next
        // value: kept once, read from one copy and written to another.
        assert_eq!(r.staged, Some((0, 64, 4)), "{}", ir.text());
        assert_eq!(r.storage_bytes, 64 + 4, "{}", ir.text());
        let text = ir.text();
        // The loop's back edge now comes from the region after the barrier.
        assert!(text.contains("[ %next, %region.1 ]"), "{text}");
    }

    #[test]
    fn a_uniform_value_made_once_is_kept_once_where_its_region_reads_it_again() {
        let ir = Ir::parse(
            r#"
declare void @__mux_work_group_barrier(i32)
declare i64 @__mux_get_local_id(i32)
define void @k(ptr %p, i32 %n) {
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  %t = call i32 @llvm.smax.i32(i32 %n, i32 1)
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %bound = add i32 %t, %i
  call void @__mux_work_group_barrier(i32 1)
  %q = getelementptr i32, ptr %p, i64 %lid
  store i32 %bound, ptr %q
  %next = add i32 %i, 1
  %more = icmp ult i32 %next, %t
  br i1 %more, label %loop, label %done
done:
  ret void
}
"#,
        );
        let r = split(&ir, "k", 8);
        // %t is made before the loop and read both in region 0 (at the
        // loop's head, entered from there) and in region 1 (at the head
        // again, entered from the back edge): region 0 writes and reads
        // it. It never changes, so one copy serves every work-item, with
        // no staging; the loop's %i and %bound change, and are staged.
        let text = ir.text();
        assert_eq!(r.staged.map(|s| s.2), Some(8), "{text}");
        assert!(
            text.contains("%t.slot.item = getelementptr inbounds i8, ptr %storage, i64 %"),
            "{text}"
        );
        let t_offset = text
            .lines()
            .find(|l| l.contains("%t.slot.item ="))
            .and_then(|l| l.rsplit(' ').next())
            .unwrap()
            .to_string();
        let add = text
            .lines()
            .find(|l| l.contains(&format!("{t_offset} = add i64")))
            .unwrap();
        let mul_name = add.split(' ').nth(6).unwrap().trim_end_matches(',');
        assert!(
            text.contains(&format!("{mul_name} = mul i64 %linear_id, 0")),
            "{text}"
        );
    }

    #[test]
    fn regions_that_combine_in_the_collectives_scratch_are_found_and_left_out() {
        // work_group_reduce_add's body: each work-item adds its value in
        // the scratch (region 1); all read the sum (region 2).
        let ir = Ir::parse(
            r#"
declare void @__mux_work_group_barrier(i32)
declare i64 @__mux_get_local_id(i32)
declare ptr addrspace(3) @__mux_get_work_group_scratch()
define void @k(ptr %out, float %v) {
entry:
  %acc = call ptr addrspace(3) @__mux_get_work_group_scratch()
  call void @__mux_work_group_barrier(i32 1)
  %lid = call i64 @__mux_get_local_id(i32 0)
  %first = icmp eq i64 %lid, 0
  %old = load float, ptr addrspace(3) %acc
  %sum = fadd float %old, %v
  %new = select i1 %first, float %v, float %sum
  store float %new, ptr addrspace(3) %acc
  call void @__mux_work_group_barrier(i32 1)
  %r = load float, ptr addrspace(3) %acc
  %q = getelementptr float, ptr %out, i64 %lid
  store float %r, ptr %q
  ret void
}
"#,
        );
        let r = split(&ir, "k", 8);
        unsafe {
            assert_eq!(combining_regions(&r), vec![1], "{}", ir.text());
            let kept = kernel_ir::form::clone_of(ir.m, r.function, "kept");
            leave_out(kept, &[1]);
            compiler::llvm::verify(ir.m).unwrap_or_else(|e| panic!("{e}\n{}", ir.text()));
            // Region 1 returns at once; 0 and 2 run as before, and the
            // region function itself keeps all three.
            assert_eq!(successor(kept, 1), Some(REGION_EXIT));
            assert_eq!(successor(kept, 0), Some(1));
            assert_eq!(successor(kept, 2), Some(REGION_EXIT));
            assert_eq!(successor(r.function, 1), Some(2));
            let scratch_stores = |f| {
                llvm::instructions(f)
                    .into_iter()
                    .filter(|&i| builtin_kinds::writes_work_group_scratch(i))
                    .count()
            };
            assert_eq!(scratch_stores(kept), 0);
            assert_eq!(scratch_stores(r.function), 1);
        }
    }
}
