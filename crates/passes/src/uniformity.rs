//! Which values of a kernel are the same for every work-item of a group
//! (uniform) and which may differ (varying). A value kept across a barrier
//! needs one copy per work-item only if it is varying; a uniform one is
//! kept once, and the vectorized work-item loop reads it as a scalar.
//!
//! The analysis is conservative: a value is varying if it depends on the
//! local id, on memory (any load: private or racing memory may differ), on
//! a call it cannot see into, or on control flow that diverges. A phi is
//! varying when its block may be reached by work-items that took different
//! sides of a varying branch: inside the branch's region of influence (the
//! blocks reachable from it before it reconverges at its immediate
//! post-dominator) or at that reconvergence point. A loop left on a varying
//! condition is such a region, so its counters are varying too.

use compiler::llvm;
use kernel_ir::builtin_kinds;
use kernel_ir::cfg::{blocks, successors};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;
use std::collections::{HashMap, HashSet};

pub struct Uniformity {
    varying: HashSet<LLVMValueRef>,
    /// Blocks some work-items of a group may reach and others not.
    partial: HashSet<LLVMBasicBlockRef>,
}

impl Uniformity {
    /// Analyses `f`.
    ///
    /// # Safety
    /// `f` must be a live function with a body.
    pub unsafe fn of(f: LLVMValueRef) -> Uniformity {
        let cfg = PostDominance::of(f);
        let insts = llvm::instructions(f);
        let mut varying: HashSet<LLVMValueRef> = HashSet::new();
        loop {
            let divergent = cfg.divergent_blocks(&varying, true);
            let mut changed = false;
            for &i in &insts {
                if !varying.contains(&i) && is_varying(i, &varying, &divergent) {
                    varying.insert(i);
                    changed = true;
                }
            }
            if !changed {
                let partial = cfg.divergent_blocks(&varying, false);
                return Uniformity { varying, partial };
            }
        }
    }

    /// Whether `v` has the same value for every work-item that computes it.
    pub fn is_uniform(&self, v: LLVMValueRef) -> bool {
        !self.varying.contains(&v)
    }

    /// Whether every work-item of a group that runs the kernel reaches
    /// `bb` (as often as the others), or none does.
    pub fn reached_by_all(&self, bb: LLVMBasicBlockRef) -> bool {
        !self.partial.contains(&bb)
    }
}

/// The rule for one instruction, given what is varying so far.
unsafe fn is_varying(
    i: LLVMValueRef,
    varying: &HashSet<LLVMValueRef>,
    divergent: &HashSet<LLVMBasicBlockRef>,
) -> bool {
    use LLVMOpcode::*;
    let operand_varies = |n: u32| (0..n).any(|k| varying.contains(&LLVMGetOperand(i, k)));
    let n = LLVMGetNumOperands(i) as u32;
    match LLVMGetInstructionOpcode(i) {
        LLVMLoad | LLVMAlloca | LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMVAArg => true,
        LLVMPHI => divergent.contains(&LLVMGetInstructionParent(i)) || operand_varies(n),
        LLVMCall => {
            let Some(callee) = llvm::called_function(i) else {
                return true;
            };
            let name = llvm::name(callee);
            if builtin_kinds::is_local_id(&name) {
                return true;
            }
            let known = builtin_kinds::is_query(&name) || LLVMGetIntrinsicID(callee) != 0;
            // The callee is the last operand.
            !known || operand_varies(n - 1)
        }
        _ => operand_varies(n),
    }
}

/// Blocks, edges and post-dominators of a function.
struct PostDominance {
    blocks: Vec<LLVMBasicBlockRef>,
    succs: Vec<Vec<usize>>,
    /// `ipdom[b]`: the immediate post-dominator, `None` for the exit.
    ipdom: Vec<Option<usize>>,
    terminators: Vec<LLVMValueRef>,
}

impl PostDominance {
    unsafe fn of(f: LLVMValueRef) -> PostDominance {
        let blocks = blocks(f);
        let index: HashMap<_, _> = blocks.iter().enumerate().map(|(i, &b)| (b, i)).collect();
        let terminators: Vec<_> = blocks
            .iter()
            .map(|&b| LLVMGetBasicBlockTerminator(b))
            .collect();
        let succs: Vec<Vec<usize>> = blocks
            .iter()
            .map(|&b| successors(b).iter().map(|s| index[s]).collect())
            .collect();
        let n = blocks.len();
        // pdom(b) = {b} ∪ ⋂ pdom(succs); blocks without successors reach the exit.
        let mut pdom = vec![vec![true; n]; n];
        for b in 0..n {
            if succs[b].is_empty() {
                pdom[b] = (0..n).map(|x| x == b).collect();
            }
        }
        let mut changed = true;
        while changed {
            changed = false;
            for b in (0..n).rev() {
                if succs[b].is_empty() {
                    continue;
                }
                let mut new = vec![true; n];
                for &s in &succs[b] {
                    for (x, p) in new.iter_mut().zip(&pdom[s]) {
                        *x &= *p;
                    }
                }
                new[b] = true;
                if new != pdom[b] {
                    pdom[b] = new;
                    changed = true;
                }
            }
        }
        // The immediate one: the strict post-dominator that all the others
        // post-dominate, i.e. the one with the most post-dominators.
        let ipdom = (0..n)
            .map(|b| {
                (0..n)
                    .filter(|&p| p != b && pdom[b][p])
                    .max_by_key(|&p| pdom[p].iter().filter(|&&x| x).count())
            })
            .collect();
        PostDominance {
            blocks,
            succs,
            ipdom,
            terminators,
        }
    }

    /// Blocks that work-items may reach having taken different sides of a
    /// varying branch: each such branch's region of influence, and (with
    /// `joins`) its reconvergence point.
    unsafe fn divergent_blocks(
        &self,
        varying: &HashSet<LLVMValueRef>,
        joins: bool,
    ) -> HashSet<LLVMBasicBlockRef> {
        let mut out = HashSet::new();
        for (b, &t) in self.terminators.iter().enumerate() {
            if t.is_null() {
                continue;
            }
            let conditional = match LLVMGetInstructionOpcode(t) {
                LLVMOpcode::LLVMBr => LLVMIsConditional(t) != 0,
                LLVMOpcode::LLVMSwitch => true,
                _ => false,
            };
            // The condition is operand 0 of a branch and of a switch alike
            // (LLVMGetCondition is for branches only).
            if !conditional || !varying.contains(&LLVMGetOperand(t, 0)) {
                continue;
            }
            let stop = self.ipdom[b];
            if let (Some(join), true) = (stop, joins) {
                out.insert(self.blocks[join]);
            }
            let mut work: Vec<usize> = self.succs[b].clone();
            let mut seen = HashSet::new();
            while let Some(x) = work.pop() {
                if Some(x) == stop || !seen.insert(x) {
                    continue;
                }
                out.insert(self.blocks[x]);
                work.extend(&self.succs[x]);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    fn value(ir: &Ir, f: &str, name: &str) -> LLVMValueRef {
        unsafe {
            llvm::instructions(ir.function(f))
                .into_iter()
                .find(|&i| llvm::name(i) == name)
                .unwrap_or_else(|| panic!("no %{name}"))
        }
    }

    const DECLS: &str = r#"
declare i64 @__mux_get_local_id(i32)
declare i64 @__mux_get_group_id(i32)
"#;

    #[test]
    fn ids_loads_and_what_they_reach_vary_sizes_and_arguments_do_not() {
        let ir = Ir::parse(&format!(
            "{DECLS}{}",
            r#"
define void @k(ptr %p, i64 %n) {
  %lid = call i64 @__mux_get_local_id(i32 0)
  %grp = call i64 @__mux_get_group_id(i32 0)
  %base = mul i64 %grp, %n
  %at = add i64 %base, %lid
  %v = load i64, ptr %p
  %w = add i64 %base, %v
  ret void
}
"#
        ));
        let u = unsafe { Uniformity::of(ir.function("k")) };
        for (name, uniform) in [
            ("lid", false),
            ("grp", true),
            ("base", true),
            ("at", false),
            ("v", false),
            ("w", false),
        ] {
            assert_eq!(u.is_uniform(value(&ir, "k", name)), uniform, "%{name}");
        }
    }

    #[test]
    fn a_switch_on_a_varying_value_makes_its_join_vary() {
        let ir = Ir::parse(&format!(
            "{DECLS}{}",
            r#"
define void @k(ptr %p, i64 %n) {
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  switch i64 %lid, label %other [ i64 0, label %zero
                                  i64 1, label %one ]
zero:
  br label %join
one:
  br label %join
other:
  br label %join
join:
  %picked = phi i64 [ 5, %zero ], [ 6, %one ], [ %n, %other ]
  switch i64 %n, label %done [ i64 3, label %three ]
three:
  br label %done
done:
  %same = phi i64 [ 7, %three ], [ 8, %join ]
  ret void
}
"#
        ));
        let u = unsafe { Uniformity::of(ir.function("k")) };
        assert!(!u.is_uniform(value(&ir, "k", "picked")));
        assert!(u.is_uniform(value(&ir, "k", "same")));
    }

    #[test]
    fn a_loop_on_uniform_bounds_keeps_a_uniform_counter_even_with_a_varying_if_inside() {
        let ir = Ir::parse(&format!(
            "{DECLS}{}",
            r#"
define void @k(ptr %p, i64 %n) {
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  br label %loop
loop:
  %s = phi i64 [ %n, %entry ], [ %half, %next ]
  %take = icmp ult i64 %lid, %s
  br i1 %take, label %then, label %next
then:
  store i64 %s, ptr %p
  br label %next
next:
  %joined = phi i64 [ 1, %then ], [ 2, %loop ]
  %half = lshr i64 %s, 1
  %more = icmp ne i64 %half, 0
  br i1 %more, label %loop, label %done
done:
  ret void
}
"#
        ));
        let u = unsafe { Uniformity::of(ir.function("k")) };
        assert!(u.is_uniform(value(&ir, "k", "s")));
        assert!(u.is_uniform(value(&ir, "k", "half")));
        // Where the varying branch joins, a phi of constants still varies.
        assert!(!u.is_uniform(value(&ir, "k", "joined")));
    }

    #[test]
    fn a_loop_left_on_a_varying_condition_has_varying_counters() {
        let ir = Ir::parse(&format!(
            "{DECLS}{}",
            r#"
define void @k(ptr %p) {
entry:
  %lid = call i64 @__mux_get_local_id(i32 0)
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %next = add i64 %i, 1
  %more = icmp ult i64 %next, %lid
  br i1 %more, label %loop, label %done
done:
  store i64 %next, ptr %p
  ret void
}
"#
        ));
        let u = unsafe { Uniformity::of(ir.function("k")) };
        assert!(!u.is_uniform(value(&ir, "k", "i")));
        assert!(!u.is_uniform(value(&ir, "k", "next")));
    }
}
