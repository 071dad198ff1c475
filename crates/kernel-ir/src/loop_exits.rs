//! A loop left from several places made a loop left from one: every exit
//! edge, and every edge to the latch, goes to a new block at the end of
//! the iteration, which leaves where one of them left (a phi `leave` says
//! which kind came) and goes round otherwise. The rest of an iteration
//! after an exit (`if (x > t) break; out[i] = x;`) is then a part the
//! exit's branch guards, which the vectorizer runs for the lanes that
//! stayed, and its one exit test masks the lanes that left.
//!
//! Taken: a loop with one latch that only goes round, left from none of
//! the loops inside it (those are left once first), and every value used
//! after the loop (other than by the exit block's
//! phis) computed before the latch on every path (so that it is still
//! there at the new block). A loop leaving to several blocks (`for (..) {
//! if (c) { a[i] = x; return; } .. }`) first leaves to one new block,
//! which goes on to the block the edge taken led to (a phi numbers it) and
//! brings along what was used after the loop.

use crate::cfg::{build_phi, incoming, phis, replace_phi, Cfg};
use crate::loops::natural_loops;
use compiler::llvm;
use llvm_sys::core::*;
use llvm_sys::prelude::*;

/// Makes every loop of `f` of the shape above left from one block;
/// returns how many.
///
/// # Safety
/// `f` must be a function defined in a live module.
pub unsafe fn one_exit_per_loop(f: LLVMValueRef) -> usize {
    let mut made = 0;
    // Each step makes a loop left once or gives one a latch of its own;
    // the bound is a safety net.
    for _ in 0..2 * crate::cfg::blocks(f).len() {
        match several_exits(Cfg::of(f)) {
            None => break,
            Some(SeveralExits::RoundFrom(t, h)) => go_round_from_own_block(t, h),
            Some(SeveralExits::Targets(cfg, t)) => exit_through_one_block(&cfg, &t),
            Some(SeveralExits::Loop(l)) => {
                leave_once(&l);
                made += 1;
            }
        }
    }
    made
}

enum SeveralExits {
    /// A latch that also leaves, and the header it goes round to.
    RoundFrom(LLVMBasicBlockRef, LLVMBasicBlockRef),
    Loop(LoopExits),
    /// A loop leaving to several blocks, on the graph it was found in.
    Targets(Cfg, ExitTargets),
}

/// The exits of a loop to several blocks, by index in its graph.
struct ExitTargets {
    body: Vec<usize>,
    /// Each exiting block, the successor number that leaves, where to.
    edges: Vec<(usize, u32, usize)>,
    /// Where the edges go, each once, in block order.
    targets: Vec<usize>,
}

struct LoopExits {
    header: LLVMBasicBlockRef,
    /// The loop's blocks.
    body: Vec<LLVMBasicBlockRef>,
    latch: LLVMBasicBlockRef,
    exit: LLVMBasicBlockRef,
    /// The blocks that leave to `exit`.
    exiting: Vec<LLVMBasicBlockRef>,
}

unsafe fn several_exits(cfg: Cfg) -> Option<SeveralExits> {
    // Inner loops first, each left once before the loop around it.
    let mut loops = natural_loops(&cfg);
    loops.sort_by_key(|l| (l.body.len(), l.header));
    for l in &loops {
        let inner: Vec<&crate::loops::Loop> = loops
            .iter()
            .filter(|o| o.header != l.header && l.body.contains(&o.header))
            .collect();
        let latches: Vec<usize> = cfg.preds[l.header]
            .iter()
            .copied()
            .filter(|p| l.body.contains(p))
            .collect();
        let [t] = latches[..] else { continue };
        if t == l.header {
            continue;
        }
        // In block order, so that what is made does not depend on the
        // order a set is walked in.
        let mut body: Vec<usize> = l.body.iter().copied().collect();
        body.sort_unstable();
        let exiting: Vec<usize> = body
            .iter()
            .copied()
            .filter(|&b| cfg.succs[b].iter().any(|s| !l.body.contains(s)))
            .collect();
        if exiting
            .iter()
            .any(|b| inner.iter().any(|o| o.body.contains(b)))
        {
            // Left from inside an inner loop too.
            continue;
        }
        let exits = crate::loops::exit_blocks(&cfg, l);
        if exits.len() > 1 {
            // Each exiting block leaves by one edge, so that an edge is
            // named by the block it comes from.
            let mut edges: Vec<(usize, u32, usize)> = Vec::new();
            for &b in &exiting {
                let term = LLVMGetBasicBlockTerminator(cfg.blocks[b]);
                for k in 0..LLVMGetNumSuccessors(term) {
                    let s = cfg.index[&LLVMGetSuccessor(term, k)];
                    if !l.body.contains(&s) {
                        edges.push((b, k, s));
                    }
                }
            }
            if edges.len() != exiting.len() {
                continue;
            }
            let targets = ExitTargets {
                body,
                edges,
                targets: exits,
            };
            return Some(SeveralExits::Targets(cfg, targets));
        }
        let [x] = exits[..] else { continue };
        if exiting.len() < 2 {
            continue;
        }
        if cfg.succs[t] != [l.header] {
            // The latch tests too (`while (1) { ..; if (c) break; }`): a
            // block of its own goes round first.
            return Some(SeveralExits::RoundFrom(cfg.blocks[t], cfg.blocks[l.header]));
        }
        // A value of the loop used after it, other than by the exit's
        // phis, must be there at the new block: computed in a block that
        // comes before the latch on every path.
        let used_after = l.body.iter().any(|&b| {
            llvm::block_instructions(cfg.blocks[b])
                .into_iter()
                .any(|i| {
                    let mut u = LLVMGetFirstUse(i);
                    let mut bad = false;
                    while !u.is_null() {
                        let user = LLVMGetUser(u);
                        u = LLVMGetNextUse(u);
                        let at = LLVMGetInstructionParent(user);
                        let outside = !l.body.contains(&cfg.index[&at]);
                        let exit_phi = at == cfg.blocks[x] && !LLVMIsAPHINode(user).is_null();
                        if outside && !exit_phi && !cfg.dom[t][b] {
                            bad = true;
                        }
                    }
                    bad
                })
        });
        if used_after {
            continue;
        }
        return Some(SeveralExits::Loop(LoopExits {
            header: cfg.blocks[l.header],
            body: body.iter().map(|&b| cfg.blocks[b]).collect(),
            latch: cfg.blocks[t],
            exit: cfg.blocks[x],
            exiting: exiting.iter().map(|&b| cfg.blocks[b]).collect(),
        }));
    }
    None
}

/// The loop's exit edges through one new block, `loop.exit`: a phi of it
/// (`exit.to`) numbers the target each edge led to, and it branches on it
/// to that target (a chain of tests past two). What the targets' phis took
/// from the loop, and any other use after the loop of a value of the loop,
/// comes through phis of `loop.exit` (poison from the edges that did not
/// bring it: those never reach such a use).
unsafe fn exit_through_one_block(cfg: &Cfg, l: &ExitTargets) {
    let block = |b: usize| cfg.blocks[b];
    let ctx = LLVMGetTypeContext(LLVMTypeOf(LLVMBasicBlockAsValue(block(0))));
    let b = LLVMCreateBuilderInContext(ctx);
    let i32t = LLVMInt32TypeInContext(ctx);
    let number = |t: usize| {
        let k = l.targets.iter().position(|&x| x == t).unwrap();
        LLVMConstInt(i32t, k as u64, 0)
    };
    let join = LLVMInsertBasicBlockInContext(ctx, block(l.targets[0]), c"loop.exit".as_ptr());
    // The block each target is reached from: `join` tests for the first,
    // then one block per further test.
    let mut tests = vec![join];
    for _ in 2..l.targets.len() {
        tests.push(LLVMInsertBasicBlockInContext(
            ctx,
            block(l.targets[0]),
            c"loop.exit.to".as_ptr(),
        ));
    }
    let from = |k: usize| tests[k.min(tests.len() - 1)];
    let body: Vec<LLVMBasicBlockRef> = l.body.iter().map(|&x| block(x)).collect();
    let edges: Vec<(LLVMBasicBlockRef, usize)> =
        l.edges.iter().map(|&(x, _, t)| (block(x), t)).collect();
    LLVMPositionBuilderAtEnd(b, join);
    let to = build_phi(
        b,
        i32t,
        &edges
            .iter()
            .map(|&(x, t)| (number(t), x))
            .collect::<Vec<_>>(),
    );
    LLVMSetValueName2(to, c"exit.to".as_ptr(), 7);
    // The targets' phis.
    for (k, &t) in l.targets.iter().enumerate() {
        for phi in phis(block(t)) {
            let incoming = incoming(phi);
            let ty = LLVMTypeOf(phi);
            let carried: Vec<_> = edges
                .iter()
                .map(|&(x, target)| {
                    let v = incoming
                        .iter()
                        .find(|&&(_, bb)| bb == x && target == t)
                        .map_or(LLVMGetPoison(ty), |&(v, _)| v);
                    (v, x)
                })
                .collect();
            LLVMPositionBuilderBefore(b, to);
            let carried = build_phi(b, ty, &carried);
            let mut kept: Vec<_> = incoming
                .into_iter()
                .filter(|(_, bb)| !body.contains(bb))
                .collect();
            kept.push((carried, from(k)));
            replace_phi(b, phi, &kept);
        }
    }
    // Any other use after the loop.
    let ours: Vec<LLVMBasicBlockRef> = tests.clone();
    for &x in &l.body {
        for v in llvm::block_instructions(block(x)) {
            let mut users = Vec::new();
            let mut u = LLVMGetFirstUse(v);
            while !u.is_null() {
                let user = LLVMGetUser(u);
                let at = LLVMGetInstructionParent(user);
                if !body.contains(&at) && !ours.contains(&at) && !users.contains(&user) {
                    users.push(user);
                }
                u = LLVMGetNextUse(u);
            }
            if users.is_empty() {
                continue;
            }
            let carried: Vec<_> = l
                .edges
                .iter()
                .map(|&(e, _, _)| {
                    let there = cfg.dom[e][x];
                    (
                        if there {
                            v
                        } else {
                            LLVMGetPoison(LLVMTypeOf(v))
                        },
                        block(e),
                    )
                })
                .collect();
            LLVMPositionBuilderBefore(b, to);
            let carried = build_phi(b, LLVMTypeOf(v), &carried);
            for user in users {
                for k in 0..LLVMGetNumOperands(user) as u32 {
                    if LLVMGetOperand(user, k) == v {
                        LLVMSetOperand(user, k, carried);
                    }
                }
            }
        }
    }
    for &(x, k, _) in &l.edges {
        LLVMSetSuccessor(LLVMGetBasicBlockTerminator(block(x)), k, join);
    }
    let last = l.targets.len() - 1;
    for (k, &test) in tests.iter().enumerate() {
        LLVMPositionBuilderAtEnd(b, test);
        let here = LLVMBuildICmp(
            b,
            llvm_sys::LLVMIntPredicate::LLVMIntEQ,
            to,
            LLVMConstInt(i32t, k as u64, 0),
            c"".as_ptr(),
        );
        let otherwise = if k + 1 < tests.len() {
            tests[k + 1]
        } else {
            block(l.targets[last])
        };
        LLVMBuildCondBr(b, here, block(l.targets[k]), otherwise);
    }
    LLVMDisposeBuilder(b);
}

/// A new latch between `t` and header `h`, which only goes round.
unsafe fn go_round_from_own_block(t: LLVMBasicBlockRef, h: LLVMBasicBlockRef) {
    let ctx = LLVMGetTypeContext(LLVMTypeOf(LLVMBasicBlockAsValue(h)));
    let b = LLVMCreateBuilderInContext(ctx);
    let round = LLVMInsertBasicBlockInContext(ctx, h, c"round".as_ptr());
    LLVMPositionBuilderAtEnd(b, round);
    LLVMBuildBr(b, h);
    let term = LLVMGetBasicBlockTerminator(t);
    for k in 0..LLVMGetNumSuccessors(term) {
        if LLVMGetSuccessor(term, k) == h {
            LLVMSetSuccessor(term, k, round);
        }
    }
    for phi in phis(h) {
        crate::cfg::retarget_phi(b, phi, t, round);
    }
    LLVMDisposeBuilder(b);
}

unsafe fn leave_once(l: &LoopExits) {
    let ctx = LLVMGetTypeContext(LLVMTypeOf(LLVMBasicBlockAsValue(l.latch)));
    let b = LLVMCreateBuilderInContext(ctx);
    let i1 = LLVMInt1TypeInContext(ctx);
    let end = LLVMInsertBasicBlockInContext(ctx, l.latch, c"iteration.end".as_ptr());
    // Each exit edge through a block of its own (an exiting block may also
    // go on to the latch: the two edges bring different `leave`s).
    let mut left = Vec::new();
    for &x in &l.exiting {
        let t = LLVMGetBasicBlockTerminator(x);
        for k in 0..LLVMGetNumSuccessors(t) {
            if LLVMGetSuccessor(t, k) == l.exit {
                let via = LLVMInsertBasicBlockInContext(ctx, end, c"leaving".as_ptr());
                LLVMPositionBuilderAtEnd(b, via);
                LLVMBuildBr(b, end);
                LLVMSetSuccessor(t, k, via);
                left.push((x, via));
            }
        }
    }
    // The edges that went round go to the end of the iteration first.
    let mut stayed = Vec::new();
    for p in crate::cfg::blocks(LLVMGetBasicBlockParent(l.latch)) {
        let t = LLVMGetBasicBlockTerminator(p);
        if t.is_null() || p == end {
            continue;
        }
        for k in 0..LLVMGetNumSuccessors(t) {
            if LLVMGetSuccessor(t, k) == l.latch {
                LLVMSetSuccessor(t, k, end);
                stayed.push(p);
            }
        }
    }
    LLVMPositionBuilderAtEnd(b, end);
    let leave = LLVMBuildPhi(b, i1, c"leave".as_ptr());
    for &(_, via) in &left {
        add_incoming(leave, LLVMConstInt(i1, 1, 0), via);
    }
    for &p in &stayed {
        add_incoming(leave, LLVMConstInt(i1, 0, 0), p);
    }
    // The latch's phis (a latch reached from several blocks) and the exit's
    // take what their edges brought through phis of the new block.
    for phi in phis(l.latch) {
        retarget_through(
            b,
            phi,
            end,
            &stayed.iter().map(|&p| (p, p)).collect::<Vec<_>>(),
            &left,
        );
    }
    for phi in phis(l.exit) {
        retarget_through(
            b,
            phi,
            end,
            &left,
            &stayed.iter().map(|&p| (p, p)).collect::<Vec<_>>(),
        );
    }
    // What the latch and the way round take from the iteration comes
    // through the end too (poison where the iteration left, which never
    // goes round).
    let stayed_edges: Vec<_> = stayed.iter().map(|&p| (p, p)).collect();
    for &bb in &l.body {
        if bb == l.header || bb == l.latch {
            continue;
        }
        for v in llvm::block_instructions(bb) {
            let mut uses = Vec::new();
            let mut u = LLVMGetFirstUse(v);
            while !u.is_null() {
                let user = LLVMGetUser(u);
                let at = LLVMGetInstructionParent(user);
                let round = at == l.header
                    && !LLVMIsAPHINode(user).is_null()
                    && (0..LLVMCountIncoming(user)).any(|k| {
                        LLVMGetIncomingBlock(user, k) == l.latch
                            && LLVMGetIncomingValue(user, k) == v
                    });
                if at == l.latch || round {
                    uses.push(user);
                }
                u = LLVMGetNextUse(u);
            }
            if uses.is_empty() {
                continue;
            }
            LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(end));
            let carried = LLVMBuildPhi(b, LLVMTypeOf(v), c"".as_ptr());
            for &(p, _) in &stayed_edges {
                add_incoming(carried, v, p);
            }
            for &(_, via) in &left {
                add_incoming(carried, LLVMGetPoison(LLVMTypeOf(v)), via);
            }
            for user in uses {
                for k in 0..LLVMGetNumOperands(user) as u32 {
                    if LLVMGetOperand(user, k) == v {
                        LLVMSetOperand(user, k, carried);
                    }
                }
            }
        }
    }
    LLVMPositionBuilderAtEnd(b, end);
    LLVMBuildCondBr(b, leave, l.exit, l.latch);
    LLVMDisposeBuilder(b);
}

unsafe fn add_incoming(phi: LLVMValueRef, v: LLVMValueRef, bb: LLVMBasicBlockRef) {
    let (mut vs, mut bs) = ([v], [bb]);
    LLVMAddIncoming(phi, vs.as_mut_ptr(), bs.as_mut_ptr(), 1);
}

/// `phi` (of a block `end` now goes to) takes from `end` a new phi of it:
/// what each edge `(old pred, new pred of end)` in `through` brought, and
/// poison from `others`. Its own entries for those old preds go.
unsafe fn retarget_through(
    b: LLVMBuilderRef,
    phi: LLVMValueRef,
    end: LLVMBasicBlockRef,
    through: &[(LLVMBasicBlockRef, LLVMBasicBlockRef)],
    others: &[(LLVMBasicBlockRef, LLVMBasicBlockRef)],
) {
    let ty = LLVMTypeOf(phi);
    let incoming = incoming(phi);
    // One entry per edge into `end`, in the order its preds were added.
    let mut used = vec![false; incoming.len()];
    let mut carried = Vec::new();
    for &(old, new) in through {
        let k = (0..incoming.len())
            .find(|&k| !used[k] && incoming[k].1 == old)
            .or_else(|| (0..incoming.len()).find(|&k| incoming[k].1 == old));
        let v = k.map_or(LLVMGetPoison(ty), |k| {
            used[k] = true;
            incoming[k].0
        });
        carried.push((v, new));
    }
    carried.extend(others.iter().map(|&(_, new)| (LLVMGetPoison(ty), new)));
    LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(end));
    let carried = build_phi(b, ty, &carried);
    let olds: Vec<LLVMBasicBlockRef> = through.iter().map(|&(o, _)| o).collect();
    let mut kept: Vec<_> = incoming
        .into_iter()
        .filter(|(_, bb)| !olds.contains(bb))
        .collect();
    kept.push((carried, end));
    replace_phi(b, phi, &kept);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Ir;

    /// `for (j = 0; j < n; j++) { x = a[j]; if (x > t) break; s += x;
    /// a[j] = s; }`: left by the loop's test and by the break, with a store
    /// after the break's test.
    const BREAK_THEN_STORE: &str = r#"
define float @k(ptr %a, i32 %n, float %t) {
entry:
  br label %head
head:
  %j = phi i32 [ 0, %entry ], [ %j1, %latch ]
  %s = phi float [ 0.0, %entry ], [ %s1, %latch ]
  %more = icmp slt i32 %j, %n
  br i1 %more, label %body, label %done
body:
  %p = getelementptr float, ptr %a, i32 %j
  %x = load float, ptr %p, align 4
  %big = fcmp ogt float %x, %t
  br i1 %big, label %done, label %rest
rest:
  %s1 = fadd float %s, %x
  store float %s1, ptr %p, align 4
  br label %latch
latch:
  %j1 = add i32 %j, 1
  br label %head
done:
  %r = phi float [ %s, %head ], [ %x, %body ]
  ret float %r
}
"#;

    #[test]
    fn a_loop_left_from_two_places_is_left_from_one() {
        let ir = Ir::parse(BREAK_THEN_STORE);
        assert_eq!(unsafe { one_exit_per_loop(ir.function("k")) }, 1);
        unsafe { llvm::verify(ir.m) }.unwrap();
        let text = ir.text();
        // Both exits and the way round meet at the end of the iteration,
        // which alone leaves.
        let end = &text[text.find("\niteration.end:").expect(&text)..];
        assert!(
            end.contains("%leave = phi i1 [ true, %leaving ], [ true, %leaving"),
            "{text}"
        );
        assert!(end.contains("[ false, %rest ]"), "{text}");
        assert!(
            end.contains("br i1 %leave, label %done, label %latch"),
            "{text}"
        );
        assert!(
            text.contains("br i1 %more, label %body, label %leaving"),
            "{text}"
        );
        assert!(text.contains("br i1 %big, label %leaving"), "{text}");
        // The exit's phi takes what each exit brought through the end.
        assert!(end.contains("phi float [ %s, %leaving"), "{text}");
        assert!(end.contains("[ %x, %leaving"), "{text}");
        assert!(end.contains("[ poison, %rest ]"), "{text}");
        let done = &text[text.find("\ndone:").unwrap()..];
        assert!(done.contains("%r = phi float [ %"), "{text}");
        assert!(done.contains(", %iteration.end ]"), "{text}");
        assert_eq!(unsafe { one_exit_per_loop(ir.function("k")) }, 0);
    }

    /// `while (1) { y = y / 2 + 1; if (y < 3) break; k++; if (k > n) break; }`:
    /// the latch tests too.
    const WHILE_TRUE: &str = r#"
define i32 @k(float %y0, i32 %n) {
entry:
  br label %head
head:
  %y = phi float [ %y0, %entry ], [ %y1, %test2 ]
  %k = phi i32 [ 0, %entry ], [ %k1, %test2 ]
  %h = fmul float %y, 0.5
  %y1 = fadd float %h, 1.0
  %small = fcmp olt float %y1, 3.0
  br i1 %small, label %done, label %test2
test2:
  %k1 = add i32 %k, 1
  %many = icmp sgt i32 %k1, %n
  br i1 %many, label %done, label %head
done:
  %r = phi i32 [ %k, %head ], [ %k1, %test2 ]
  ret i32 %r
}
"#;

    #[test]
    fn a_loop_whose_latch_tests_gets_a_latch_of_its_own_and_is_left_once() {
        let ir = Ir::parse(WHILE_TRUE);
        assert_eq!(unsafe { one_exit_per_loop(ir.function("k")) }, 1);
        unsafe { llvm::verify(ir.m) }.unwrap();
        let text = ir.text();
        assert!(text.contains("\nround:"), "{text}");
        assert!(
            text.contains("br i1 %leave, label %done, label %round"),
            "{text}"
        );
        // What goes round comes through the end of the iteration.
        let head = &text[text.find("\nhead:").unwrap()..];
        assert!(head.contains("%round ]"), "{text}");
    }

    #[test]
    fn a_loop_leaving_to_two_places_leaves_to_one_then_to_either() {
        let ir = Ir::parse(
            &BREAK_THEN_STORE
                .replace(
                    "br i1 %big, label %done, label %rest",
                    "br i1 %big, label %other, label %rest",
                )
                .replace(
                    "done:\n  %r = phi float [ %s, %head ], [ %x, %body ]\n  ret float %r",
                    "done:\n  ret float %s\nother:\n  %y = fmul float %x, 2.0\n  ret float %y",
                ),
        );
        assert_eq!(unsafe { one_exit_per_loop(ir.function("k")) }, 1);
        unsafe { llvm::verify(ir.m) }.unwrap();
        let text = ir.text();
        // Then left once, as a loop leaving to one block is: the end of the
        // iteration numbers the target each exit led to, and brings the
        // value the target uses (poison from the other exit).
        let end = &text[text.find("\niteration.end:").expect(&text)..];
        assert!(
            end.contains("phi i32 [ 0, %leaving ], [ 1, %leaving1 ], [ poison, %rest ]"),
            "{text}"
        );
        assert!(
            end.contains("phi float [ poison, %leaving ], [ %x, %leaving1 ]"),
            "{text}"
        );
        assert!(
            end.contains("br i1 %leave, label %loop.exit, label %latch"),
            "{text}"
        );
        let exit = &text[text.find("\nloop.exit:").unwrap()..];
        assert!(exit.contains("%exit.to = phi i32"), "{text}");
        assert!(exit.contains("label %done, label %other"), "{text}");
        let other = &text[text.find("\nother:").unwrap()..];
        assert!(!other.contains("fmul float %x,"), "{text}");
    }

    #[test]
    fn a_block_leaving_to_two_places_is_left_alone() {
        let ir = Ir::parse(
            &BREAK_THEN_STORE
                .replace(
                    "br i1 %big, label %done, label %rest",
                    "switch i32 %j, label %rest [ i32 5, label %done\n i32 7, label %other ]",
                )
                .replace(
                    "  ret float %r\n",
                    "  ret float %r\nother:\n  ret float %x\n",
                ),
        );
        let before = ir.text();
        assert_eq!(unsafe { one_exit_per_loop(ir.function("k")) }, 0);
        assert_eq!(ir.text(), before);
    }
}
