//! A loop work-items leave on a test of a consecutive id against a bound
//! (a grid-stride loop: `for (i = gid; i < n; i += size)`) runs, in the
//! vector form, until its last lane leaves, every iteration under a mask
//! of the lanes still in it. Before the vector form is made, such a loop is
//! split in two: first a copy of it that runs while the group's last
//! work-item would stay (`i - lid + (local size - 1) < n`, the same in
//! every lane: one branch, no masks), then the loop itself for what is
//! left. Each work-item runs the iterations it ran before: the copy's test
//! implies the loop's own, and the loop goes on from where the copy left.

use crate::analysis::shape::{shape_of, Shape};
use compiler::llvm::{self, cstr};
use kernel_ir::cfg::{build_phi, copy_blocks, incoming, incoming_from, phis, replace_phi, Cfg};
use kernel_ir::loops::{natural_loops, Loop};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMIntPredicate, LLVMOpcode};
use std::collections::{HashMap, HashSet};

/// A loop to split: its blocks and the parts of its exit test.
struct Candidate {
    header: LLVMBasicBlockRef,
    /// The block entering it, the one that goes round, and the one that
    /// tests whether to leave (the header or the latch).
    preheader: LLVMBasicBlockRef,
    latch: LLVMBasicBlockRef,
    exiting: LLVMBasicBlockRef,
    exit: LLVMBasicBlockRef,
    body: Vec<LLVMBasicBlockRef>,
    /// Stay while `x pred bound`, `pred` one of `<` and `<=`.
    x: LLVMValueRef,
    bound: LLVMValueRef,
    pred: LLVMIntPredicate,
}

/// Splits each loop of `kernel` that lanes would leave apart on a test of
/// a value stepping by one from lane to lane against a bound the same in
/// all (by `shapes`, the kernel's before the split); returns how many.
///
/// # Safety
/// `kernel` must be a function of live module `m`, its loops closed
/// (`kernel_ir::lcssa`).
pub(crate) unsafe fn split(
    m: LLVMModuleRef,
    kernel: LLVMValueRef,
    shapes: &HashMap<LLVMValueRef, Shape>,
) -> usize {
    // One loop at a time, on the graph as the last split left it; the
    // loops made or split are not looked at again.
    let mut done: HashSet<LLVMBasicBlockRef> = HashSet::new();
    let mut made = 0;
    loop {
        let cfg = Cfg::of(kernel);
        let loops = natural_loops(&cfg);
        let Some(c) = loops
            .iter()
            .filter(|l| !done.contains(&cfg.blocks[l.header]))
            .find_map(|l| candidate(&cfg, &loops, l, shapes))
        else {
            return made;
        };
        let Some(ids) = id_functions(m) else {
            return made;
        };
        done.insert(c.header);
        done.insert(split_one(m, &c, ids));
        made += 1;
    }
}

/// `__mux_get_local_id` and `__mux_get_local_size`, declared alike.
pub(crate) unsafe fn id_functions(m: LLVMModuleRef) -> Option<(LLVMValueRef, LLVMValueRef)> {
    let id = LLVMGetNamedFunction(
        m,
        cstr(kernel_ir::builtin_kinds::names::GET_LOCAL_ID).as_ptr(),
    );
    if id.is_null() {
        return None;
    }
    let name = cstr(kernel_ir::builtin_kinds::names::GET_LOCAL_SIZE);
    let mut size = LLVMGetNamedFunction(m, name.as_ptr());
    if size.is_null() {
        size = LLVMAddFunction(m, name.as_ptr(), LLVMGlobalGetValueType(id));
    }
    (LLVMGlobalGetValueType(size) == LLVMGlobalGetValueType(id)).then_some((id, size))
}

unsafe fn candidate(
    cfg: &Cfg,
    loops: &[Loop],
    l: &Loop,
    shapes: &HashMap<LLVMValueRef, Shape>,
) -> Option<Candidate> {
    use LLVMIntPredicate::*;
    let block = |b: usize| cfg.blocks[b];
    // Innermost.
    if loops
        .iter()
        .any(|o| o.header != l.header && l.body.contains(&o.header))
    {
        return None;
    }
    let [preheader] = cfg.preds[l.header]
        .iter()
        .filter(|p| !l.body.contains(p))
        .copied()
        .collect::<Vec<_>>()[..]
    else {
        return None;
    };
    let [latch] = cfg.preds[l.header]
        .iter()
        .filter(|p| l.body.contains(p))
        .copied()
        .collect::<Vec<_>>()[..]
    else {
        return None;
    };
    let mut body: Vec<usize> = l.body.iter().copied().collect();
    body.sort_unstable();
    let [exiting] = body
        .iter()
        .filter(|&&b| cfg.succs[b].iter().any(|s| !l.body.contains(s)))
        .copied()
        .collect::<Vec<_>>()[..]
    else {
        return None;
    };
    if exiting != l.header && exiting != latch {
        return None;
    }
    let t = LLVMGetBasicBlockTerminator(block(exiting));
    if LLVMGetNumSuccessors(t) != 2 || LLVMIsConditional(t) == 0 {
        return None;
    }
    let test = LLVMGetCondition(t);
    let stays_if_true = l.body.contains(&cfg.index[&LLVMGetSuccessor(t, 0)]);
    let exit = LLVMGetSuccessor(t, if stays_if_true { 1 } else { 0 });
    let (x, bound, mut pred) = if !LLVMIsAICmpInst(test).is_null() {
        compare(test, shapes)?
    } else if exiting == l.header
        && !LLVMIsAPHINode(test).is_null()
        && LLVMGetInstructionParent(test) == block(l.header)
    {
        // A test made where the loop is entered and at the end of each
        // iteration, brought to the header by a phi (a loop `loop_exits`
        // left once): the same test of the header's induction.
        carried_compare(test, block(l.header), shapes)?
    } else {
        return None;
    };
    if !stays_if_true {
        pred = kernel_ir::compare::inverse(pred);
    }
    if !matches!(pred, LLVMIntSLT | LLVMIntSLE | LLVMIntULT | LLVMIntULE)
        || LLVMGetTypeKind(LLVMTypeOf(x)) != llvm_sys::LLVMTypeKind::LLVMIntegerTypeKind
    {
        return None;
    }
    let exit_index = cfg.index[&exit];
    for &b in &body {
        for i in llvm::block_instructions(block(b)) {
            // What the loop hands on goes through the exit's phis alone,
            // which the copy's way out then feeds too.
            let mut u = LLVMGetFirstUse(i);
            while !u.is_null() {
                let user = LLVMGetUser(u);
                u = LLVMGetNextUse(u);
                let at = cfg.index.get(&LLVMGetInstructionParent(user));
                let inside = at.is_some_and(|x| l.body.contains(x));
                let exit_phi = at == Some(&exit_index) && !LLVMIsAPHINode(user).is_null();
                if !inside && !exit_phi {
                    return None;
                }
            }
            // Work-items meet at a collective by where it is: in the copy
            // for some and in the loop for others, they would not.
            if llvm::called_function(i).is_some_and(|f| meets_others(f)) {
                return None;
            }
            // A header that tests is run again by the loop after the copy:
            // it must do nothing but compute.
            if b == l.header && exiting == l.header && exiting != latch && has_effects(i) {
                return None;
            }
        }
    }
    Some(Candidate {
        header: block(l.header),
        preheader: block(preheader),
        latch: block(latch),
        exiting: block(exiting),
        exit,
        body: body.into_iter().map(block).collect(),
        x,
        bound,
        pred,
    })
}

/// `x pred bound` for comparison `test` of a value stepping by one from
/// lane to lane with one the same in all, in that order.
pub(crate) unsafe fn compare(
    test: LLVMValueRef,
    shapes: &HashMap<LLVMValueRef, Shape>,
) -> Option<(LLVMValueRef, LLVMValueRef, LLVMIntPredicate)> {
    let pred = LLVMGetICmpPredicate(test);
    let (a, b) = (LLVMGetOperand(test, 0), LLVMGetOperand(test, 1));
    match (shape_of(a, shapes), shape_of(b, shapes)) {
        (Shape::Affine(1), Shape::Uniform) => Some((a, b, pred)),
        (Shape::Uniform, Shape::Affine(1)) => Some((b, a, kernel_ir::compare::swapped(pred))),
        _ => None,
    }
}

/// `x pred bound` for phi `test` of `header` whose every incoming value
/// is `x' pred bound`, `x'` what a phi `x` of the header takes from the
/// same block.
unsafe fn carried_compare(
    test: LLVMValueRef,
    header: LLVMBasicBlockRef,
    shapes: &HashMap<LLVMValueRef, Shape>,
) -> Option<(LLVMValueRef, LLVMValueRef, LLVMIntPredicate)> {
    let mut found: Option<(LLVMValueRef, LLVMIntPredicate)> = None;
    let mut xs = Vec::new();
    for (v, from) in incoming(test) {
        if LLVMIsAICmpInst(v).is_null() {
            return None;
        }
        let (x, bound, pred) = compare(v, shapes)?;
        if found.is_some_and(|f| f != (bound, pred)) {
            return None;
        }
        found = Some((bound, pred));
        xs.push((x, from));
    }
    let (bound, pred) = found?;
    let x = phis(header).into_iter().find(|&p| {
        xs.iter()
            .all(|&(x, from)| incoming_from(p, from) == Some(x))
    })?;
    Some((x, bound, pred))
}

/// Whether calling `f` meets other work-items: a barrier, a sub-group
/// function, or a function that meets at a sub-group barrier.
pub(crate) unsafe fn meets_others(f: LLVMValueRef) -> bool {
    use kernel_ir::builtin_kinds::{is_barrier, Barrier};
    is_barrier(f, Barrier::WorkGroup)
        || is_barrier(f, Barrier::SubGroup)
        || kernel_ir::sub_group_calls::classify(f).is_some()
        || kernel_ir::sub_group_calls::meets_sub_group(f)
}

unsafe fn has_effects(i: LLVMValueRef) -> bool {
    use LLVMOpcode::*;
    match LLVMGetInstructionOpcode(i) {
        LLVMStore | LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMFence => true,
        LLVMLoad => LLVMGetVolatile(i) != 0,
        LLVMCall => !llvm::called_function(i)
            .is_some_and(|f| kernel_ir::builtin_kinds::is_query(&llvm::name(f))),
        _ => false,
    }
}

/// Splits loop `c`; returns the copy's header.
unsafe fn split_one(
    m: LLVMModuleRef,
    c: &Candidate,
    (id, size): (LLVMValueRef, LLVMValueRef),
) -> LLVMBasicBlockRef {
    let ctx = LLVMGetModuleContext(m);
    let b = LLVMCreateBuilderInContext(ctx);
    // The copy, before the loop.
    let copies = copy_blocks(&c.body, c.header, ".all", Some(".all"));
    let (block_of, value) = (&copies.blocks, &copies.values);
    let of = |v: LLVMValueRef| copies.of(v);
    for &x in &c.body {
        for phi in phis(x) {
            let (mut vs, mut bs): (Vec<_>, Vec<_>) = incoming(phi)
                .into_iter()
                .map(|(v, from)| match block_of.get(&from) {
                    Some(&to) => (of(v), to),
                    None => (v, from),
                })
                .unzip();
            LLVMAddIncoming(
                value[&phi],
                vs.as_mut_ptr(),
                bs.as_mut_ptr(),
                vs.len() as u32,
            );
        }
    }
    // The copy stays while the group's last work-item would.
    let exiting = block_of[&c.exiting];
    let t = LLVMGetBasicBlockTerminator(exiting);
    LLVMPositionBuilderBefore(b, t);
    let all = group_last_passes(b, (id, size), of(c.x), c.pred, of(c.bound));
    let after = LLVMAppendBasicBlockInContext(ctx, LLVMGetBasicBlockParent(c.header), c"".as_ptr());
    LLVMMoveBasicBlockBefore(after, c.header);
    let name = cstr(&format!(
        "{}.rest",
        llvm::name(LLVMBasicBlockAsValue(c.header))
    ));
    LLVMSetValueName2(
        LLVMBasicBlockAsValue(after),
        name.as_ptr(),
        name.as_bytes().len(),
    );
    let stay = (0..2)
        .map(|k| LLVMGetSuccessor(t, k))
        .find(|s| block_of.values().any(|v| v == s))
        .unwrap();
    LLVMInstructionEraseFromParent(t);
    LLVMPositionBuilderAtEnd(b, exiting);
    LLVMBuildCondBr(b, all, stay, after);
    // Then the loop, from where the copy left: a test at the end of the
    // iteration is made again on the copy's values, a header that tests
    // runs again on them.
    LLVMPositionBuilderAtEnd(b, after);
    let latch_test = c.exiting == c.latch;
    if latch_test {
        let orig = LLVMGetBasicBlockTerminator(c.exiting);
        LLVMBuildCondBr(
            b,
            of(LLVMGetCondition(orig)),
            LLVMGetSuccessor(orig, 0),
            LLVMGetSuccessor(orig, 1),
        );
        // The loop now leaves through a block of its own, which takes what
        // it hands on: its exit stays a plain branch, so that the test
        // before the loop guards a region lanes leave from one block.
        let name = cstr(&format!(
            "{}.left",
            llvm::name(LLVMBasicBlockAsValue(c.header))
        ));
        let left = LLVMInsertBasicBlockInContext(ctx, c.exit, name.as_ptr());
        LLVMPositionBuilderAtEnd(b, left);
        let mut rebuilt = Vec::new();
        for phi in phis(c.exit) {
            let mut now = Vec::new();
            for (v, from) in incoming(phi) {
                if from == c.exiting {
                    let closed = build_phi(b, LLVMTypeOf(v), &[(v, c.exiting)]);
                    now.push((closed, left));
                    now.push((of(v), after));
                } else {
                    now.push((v, from));
                }
            }
            rebuilt.push((phi, now));
        }
        LLVMBuildBr(b, c.exit);
        let t = LLVMGetBasicBlockTerminator(c.exiting);
        for k in 0..LLVMGetNumSuccessors(t) {
            if LLVMGetSuccessor(t, k) == c.exit {
                LLVMSetSuccessor(t, k, left);
            }
        }
        for (phi, now) in rebuilt {
            replace_phi(b, phi, &now);
        }
    } else {
        LLVMBuildBr(b, c.header);
    }
    // Every phi's new incoming first: a phi may take another's value.
    let header_phis: Vec<_> = phis(c.header)
        .into_iter()
        .map(|phi| {
            let state = if latch_test {
                of(incoming_from(phi, c.latch).unwrap())
            } else {
                value[&phi]
            };
            let now: Vec<_> = incoming(phi)
                .into_iter()
                .map(|(v, from)| {
                    if from == c.preheader {
                        (state, after)
                    } else {
                        (v, from)
                    }
                })
                .collect();
            (phi, now)
        })
        .collect();
    for (phi, now) in header_phis {
        replace_phi(b, phi, &now);
    }
    let t = LLVMGetBasicBlockTerminator(c.preheader);
    for k in 0..LLVMGetNumSuccessors(t) {
        if LLVMGetSuccessor(t, k) == c.header {
            LLVMSetSuccessor(t, k, block_of[&c.header]);
        }
    }
    LLVMDisposeBuilder(b);
    block_of[&c.header]
}

/// At the builder's position, whether the last work-item of the group's
/// row passes `x pred bound` (`x` stepping by one from lane to lane,
/// `bound` the same in all, `pred` one of `<` and `<=`): `x - lid +
/// (local size - 1) pred bound`, exact in a wider integer. Then every
/// work-item of the row does.
pub(crate) unsafe fn group_last_passes(
    b: LLVMBuilderRef,
    (id, size): (LLVMValueRef, LLVMValueRef),
    x: LLVMValueRef,
    pred: LLVMIntPredicate,
    bound: LLVMValueRef,
) -> LLVMValueRef {
    let ctx = LLVMGetTypeContext(LLVMTypeOf(x));
    let bits = LLVMGetIntTypeWidth(LLVMTypeOf(x));
    let wide = LLVMIntTypeInContext(ctx, if bits <= 32 { 64 } else { 128 });
    let signed = matches!(
        pred,
        LLVMIntPredicate::LLVMIntSLT | LLVMIntPredicate::LLVMIntSLE
    );
    let widen = |v: LLVMValueRef, signed: bool| {
        if signed {
            LLVMBuildSExt(b, v, wide, c"".as_ptr())
        } else {
            LLVMBuildZExt(b, v, wide, c"".as_ptr())
        }
    };
    let zero = LLVMConstInt(LLVMInt32TypeInContext(ctx), 0, 0);
    let query = |f: LLVMValueRef, name: &std::ffi::CStr| {
        let mut args = [zero];
        LLVMBuildCall2(
            b,
            LLVMGlobalGetValueType(f),
            f,
            args.as_mut_ptr(),
            1,
            name.as_ptr(),
        )
    };
    let lid = widen(query(id, c"lid"), false);
    let local_size = widen(query(size, c"local_size"), false);
    let first = LLVMBuildSub(b, widen(x, signed), lid, c"group.first".as_ptr());
    let last = LLVMBuildAdd(b, first, local_size, c"".as_ptr());
    let last = LLVMBuildSub(b, last, LLVMConstInt(wide, 1, 0), c"group.last".as_ptr());
    LLVMBuildICmp(b, pred, last, widen(bound, signed), c"all.stay".as_ptr())
}
