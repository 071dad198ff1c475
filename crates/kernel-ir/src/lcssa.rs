//! Values of a loop read after it, read through phis of its exit block
//! (LLVM's "loop-closed" form): what a loop hands on is then one phi per
//! value on the loop's way out, where the vectorizer gives each lane the
//! value it had when it left.
//!
//! Taken: a loop left to one block, entered from the loop alone, whose
//! values read after it come from blocks that come before every edge out.

use crate::cfg::{build_phi, Cfg};
use crate::loops::natural_loops;
use compiler::llvm;
use llvm_sys::core::*;
use llvm_sys::prelude::*;

/// Puts the values of `f`'s loops read after them through phis of their
/// exit blocks; returns how many phis it made.
///
/// # Safety
/// `f` must be a function defined in a live module.
pub unsafe fn close_loops(f: LLVMValueRef) -> usize {
    let cfg = Cfg::of(f);
    let mut loops = natural_loops(&cfg);
    // Inner loops first: what an inner loop hands on is then a value of
    // the loop around it, which closes over it in turn.
    loops.sort_by_key(|l| (l.body.len(), l.header));
    let ctx = LLVMGetTypeContext(LLVMTypeOf(LLVMBasicBlockAsValue(cfg.blocks[0])));
    let b = LLVMCreateBuilderInContext(ctx);
    let mut made = 0;
    for l in &loops {
        let [x] = crate::loops::exit_blocks(&cfg, l)[..] else {
            continue;
        };
        let preds = &cfg.preds[x];
        if preds.iter().any(|p| !l.body.contains(p)) {
            continue;
        }
        let exit = cfg.blocks[x];
        let mut body: Vec<usize> = l.body.iter().copied().collect();
        body.sort_unstable();
        for &at in &body {
            // Before every edge out, so that the value is there on each.
            if !preds.iter().all(|&p| cfg.dom[p][at]) {
                continue;
            }
            for v in llvm::block_instructions(cfg.blocks[at]) {
                let mut outside = Vec::new();
                let mut u = LLVMGetFirstUse(v);
                while !u.is_null() {
                    let user = LLVMGetUser(u);
                    u = LLVMGetNextUse(u);
                    let block = LLVMGetInstructionParent(user);
                    let index = cfg.index.get(&block);
                    let in_loop = index.is_some_and(|i| l.body.contains(i));
                    let exit_phi = block == exit && !LLVMIsAPHINode(user).is_null();
                    if !in_loop && !exit_phi && !outside.contains(&user) {
                        outside.push(user);
                    }
                }
                if outside.is_empty() {
                    continue;
                }
                LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(exit));
                let incoming: Vec<_> = preds.iter().map(|&p| (v, cfg.blocks[p])).collect();
                let closed = build_phi(b, LLVMTypeOf(v), &incoming);
                made += 1;
                for user in outside {
                    for k in 0..LLVMGetNumOperands(user) as u32 {
                        if LLVMGetOperand(user, k) == v {
                            LLVMSetOperand(user, k, closed);
                        }
                    }
                }
            }
        }
    }
    LLVMDisposeBuilder(b);
    made
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::Ir;

    #[test]
    fn a_counter_read_after_its_loop_is_read_through_the_exit_block() {
        let ir = Ir::parse(
            r#"
define i32 @k(i32 %n, ptr %p) {
entry:
  br label %head
head:
  %j = phi i32 [ 0, %entry ], [ %j1, %body ]
  %more = icmp slt i32 %j, %n
  br i1 %more, label %body, label %done
body:
  %j1 = add i32 %j, 1
  br label %head
done:
  %twice = mul i32 %j, 2
  store i32 %j, ptr %p
  ret i32 %twice
}
"#,
        );
        assert_eq!(unsafe { close_loops(ir.function("k")) }, 1);
        unsafe { llvm::verify(ir.m) }.unwrap();
        let text = ir.text();
        let done = &text[text.find("\ndone:").unwrap()..];
        assert!(done.contains("= phi i32 [ %j, %head ]"), "{text}");
        assert!(!done.contains("mul i32 %j,"), "{text}");
        assert!(!done.contains("store i32 %j,"), "{text}");
        // Closed once is closed.
        assert_eq!(unsafe { close_loops(ir.function("k")) }, 0);
    }
}
