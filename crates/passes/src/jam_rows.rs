//! Unroll-and-jam across rows: a copy of the kernel that runs the
//! work-items `(x, y)`, `(x, y + 1)` .. `(x, y + rows - 1)` together, in
//! one pass over the kernel's code.
//!
//! In `for k: acc += a[row * n + k] * b[k * n + col]` the load of `b` is
//! the same for every row; run together, the rows load it once and each
//! spends it on an FMA of its own. Once the vectorizer (`vecz`) has widened
//! the copy across x, each vector of `b` feeds `rows` FMAs instead of one,
//! and the FMAs of different rows are independent chains.
//!
//! A value is per row when it depends on the y local id, on private
//! memory (an alloca) or on something with side effects; it is then
//! computed once per row, with the row's id `y + j`. Everything else is
//! computed once, for all the rows. Stores, atomics and calls that touch
//! memory run once per row, each row's in the kernel's own order; only
//! the interleaving of different work-items changes, which work-items
//! without barriers between them cannot tell. A load no row depends on
//! runs once: a row sees its own earlier stores there as before.
//!
//! It takes a kernel whose branches every row takes alike, and only when
//! the rows share a load that differs along x inside a loop, the case the
//! copy pays for; `run` says why it declines any other.

use compiler::llvm::{self, cstr};
use kernel_ir::builtin_kinds::{self, constant_dimension};
use kernel_ir::cfg::{reverse_post_order, Cfg};
use kernel_ir::form::{copy_of, kept_if_verified};
use kernel_ir::loops::natural_loops;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMAtomicOrdering, LLVMAttributeFunctionIndex, LLVMOpcode};
use std::collections::{HashMap, HashSet};

/// Adds `<kernel>.rows<rows>` to `m`: the kernel for the work-items of
/// rows `y .. y + rows` at the x the kernel is called for, where `y` is
/// what `__mux_get_local_id(1)` gives inside it. Returns the function, or
/// why the kernel is not taken.
///
/// # Safety
/// `m` must be a live module whose context this thread owns; `kernel` a
/// function defined in it with everything but math calls inlined and
/// without barriers.
pub unsafe fn run(
    m: LLVMModuleRef,
    kernel: LLVMValueRef,
    rows: u32,
) -> Result<LLVMValueRef, String> {
    if rows < 2 {
        return Err("fewer than two rows".into());
    }
    let cfg = Cfg::of(kernel);
    let order = reverse_post_order(&cfg);
    let insts: Vec<LLVMValueRef> = order
        .iter()
        .flat_map(|&b| llvm::block_instructions(cfg.blocks[b]))
        .collect();
    let per_row = depends(
        &insts,
        |i| Ok(local_id_dim(i)? == Some(1) || must_repeat(i)),
    )?;
    for &b in &order {
        if condition(cfg.blocks[b]).is_some_and(|c| per_row.contains(&c)) {
            return Err("a branch the rows take differently".into());
        }
    }
    let along_x = depends(&insts, |i| Ok(local_id_dim(i)? == Some(0)))?;
    let in_loops: HashSet<LLVMBasicBlockRef> = natural_loops(&cfg)
        .iter()
        .flat_map(|l| l.body.iter().map(|&b| cfg.blocks[b]))
        .collect();
    let shared_load = insts.iter().any(|&i| {
        LLVMGetInstructionOpcode(i) == LLVMOpcode::LLVMLoad
            && !per_row.contains(&i)
            && along_x.contains(&LLVMGetOperand(i, 0))
            && in_loops.contains(&LLVMGetInstructionParent(i))
    });
    if !shared_load {
        return Err("the rows share no load inside a loop".into());
    }
    let j = Jam::new(m, kernel, rows);
    let f = j.f;
    let made = j.emit(&cfg, &order, &per_row);
    kept_if_verified(f, made, "its copy for several rows does not verify")
}

/// The instructions that `seed` picks and everything computed from them
/// (through operands and phis): the least fixed point.
unsafe fn depends(
    insts: &[LLVMValueRef],
    seed: impl Fn(LLVMValueRef) -> Result<bool, String>,
) -> Result<HashSet<LLVMValueRef>, String> {
    let mut set = HashSet::new();
    for &i in insts {
        if seed(i)? {
            set.insert(i);
        }
    }
    loop {
        let mut grew = false;
        for &i in insts {
            if set.contains(&i) {
                continue;
            }
            let n = LLVMGetNumOperands(i) as u32;
            if (0..n).any(|k| set.contains(&LLVMGetOperand(i, k))) {
                set.insert(i);
                grew = true;
            }
        }
        if !grew {
            return Ok(set);
        }
    }
}

/// The dimension of a `__mux_get_local_id` call (`None` for any other
/// instruction).
unsafe fn local_id_dim(i: LLVMValueRef) -> Result<Option<u64>, String> {
    if LLVMGetInstructionOpcode(i) != LLVMOpcode::LLVMCall
        || !builtin_kinds::callee_name(i).is_some_and(|n| builtin_kinds::is_local_id(&n))
    {
        return Ok(None);
    }
    match constant_dimension(i) {
        Some(d) => Ok(Some(d)),
        None => Err("a local id of a dimension not known".into()),
    }
}

/// Whether each row must run `i` itself: it has side effects, reads what
/// may change under it, or is the row's private memory.
unsafe fn must_repeat(i: LLVMValueRef) -> bool {
    use LLVMOpcode::*;
    match LLVMGetInstructionOpcode(i) {
        LLVMAlloca | LLVMStore | LLVMAtomicRMW | LLVMAtomicCmpXchg | LLVMFence => true,
        LLVMLoad => {
            LLVMGetVolatile(i) != 0
                || LLVMGetOrdering(i) != LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic
        }
        // The work-item builtins other than the y id are the same for
        // every row, and so is what a call that touches no memory gives
        // for the same arguments; any other call runs per row.
        LLVMCall => {
            !(touches_no_memory(i)
                || llvm::called_function(i).is_some_and(|f| {
                    builtin_kinds::is_query(&llvm::name(f)) || touches_no_memory(f)
                }))
        }
        _ => false,
    }
}

/// Whether a function or call is `memory(none)`.
unsafe fn touches_no_memory(v: LLVMValueRef) -> bool {
    let kind = LLVMGetEnumAttributeKindForName(c"memory".as_ptr(), 6);
    let a = if LLVMIsAFunction(v).is_null() {
        LLVMGetCallSiteEnumAttribute(v, LLVMAttributeFunctionIndex, kind)
    } else {
        LLVMGetEnumAttributeAtIndex(v, LLVMAttributeFunctionIndex, kind)
    };
    !a.is_null() && LLVMGetEnumAttributeValue(a) == 0
}

/// The condition `bb` branches on, if any.
unsafe fn condition(bb: LLVMBasicBlockRef) -> Option<LLVMValueRef> {
    let t = LLVMGetBasicBlockTerminator(bb);
    match LLVMGetInstructionOpcode(t) {
        LLVMOpcode::LLVMBr if LLVMIsConditional(t) != 0 => Some(LLVMGetCondition(t)),
        LLVMOpcode::LLVMSwitch | LLVMOpcode::LLVMIndirectBr => Some(LLVMGetOperand(t, 0)),
        _ => None,
    }
}

/// A value of the copy: one for all rows, or one per row.
enum Copy {
    Shared(LLVMValueRef),
    Rows(Vec<LLVMValueRef>),
}

struct Jam {
    b: LLVMBuilderRef,
    f: LLVMValueRef,
    rows: u32,
    blocks: HashMap<LLVMBasicBlockRef, LLVMBasicBlockRef>,
    values: HashMap<LLVMValueRef, Copy>,
}

impl Drop for Jam {
    fn drop(&mut self) {
        unsafe { LLVMDisposeBuilder(self.b) }
    }
}

impl Jam {
    unsafe fn new(m: LLVMModuleRef, kernel: LLVMValueRef, rows: u32) -> Jam {
        let ctx = LLVMGetModuleContext(m);
        let f = copy_of(m, kernel, &format!("rows{rows}"));
        let mut values = HashMap::new();
        for k in 0..LLVMCountParams(kernel) {
            values.insert(LLVMGetParam(kernel, k), Copy::Shared(LLVMGetParam(f, k)));
        }
        Jam {
            b: LLVMCreateBuilderInContext(ctx),
            f,
            rows,
            blocks: HashMap::new(),
            values,
        }
    }

    /// Row `row`'s copy of `v` (`v` itself for a constant or a global).
    unsafe fn of(&self, v: LLVMValueRef, row: usize) -> LLVMValueRef {
        if LLVMValueIsBasicBlock(v) != 0 {
            return LLVMBasicBlockAsValue(self.blocks[&LLVMValueAsBasicBlock(v)]);
        }
        match self.values.get(&v) {
            Some(Copy::Shared(c)) => *c,
            Some(Copy::Rows(cs)) => cs[row],
            None => v,
        }
    }

    unsafe fn emit(
        mut self,
        cfg: &Cfg,
        order: &[usize],
        per_row: &HashSet<LLVMValueRef>,
    ) -> Result<(), String> {
        let ctx = LLVMGetTypeContext(LLVMTypeOf(self.f));
        for &bi in order {
            let bb = cfg.blocks[bi];
            let name = cstr(&llvm::name(LLVMBasicBlockAsValue(bb)));
            self.blocks.insert(
                bb,
                LLVMAppendBasicBlockInContext(ctx, self.f, name.as_ptr()),
            );
        }
        let mut phis = Vec::new();
        for &bi in order {
            let bb = cfg.blocks[bi];
            LLVMPositionBuilderAtEnd(self.b, self.blocks[&bb]);
            for i in llvm::block_instructions(bb) {
                let copies = if per_row.contains(&i) { self.rows } else { 1 };
                let made: Vec<LLVMValueRef> = if !LLVMIsAPHINode(i).is_null() {
                    phis.push(i);
                    let name = cstr(&llvm::name(i));
                    (0..copies)
                        .map(|_| LLVMBuildPhi(self.b, LLVMTypeOf(i), name.as_ptr()))
                        .collect()
                } else if local_id_dim(i)? == Some(1) {
                    // Row `j`'s id is `y + j`.
                    let y = self.clone(i, 0);
                    let next = (1..self.rows as u64).map(|j| {
                        let step = LLVMConstInt(LLVMTypeOf(y), j, 0);
                        LLVMBuildNUWAdd(self.b, y, step, c"row.id".as_ptr())
                    });
                    std::iter::once(y).chain(next).collect()
                } else {
                    (0..copies as usize).map(|row| self.clone(i, row)).collect()
                };
                let copy = match &made[..] {
                    [one] => Copy::Shared(*one),
                    _ => Copy::Rows(made),
                };
                self.values.insert(i, copy);
            }
        }
        for p in phis {
            let n = LLVMCountIncoming(p);
            let copies = match &self.values[&p] {
                Copy::Shared(c) => vec![*c],
                Copy::Rows(cs) => cs.clone(),
            };
            for (row, c) in copies.into_iter().enumerate() {
                for k in 0..n {
                    let from = LLVMGetIncomingBlock(p, k);
                    // A predecessor no path from the entry reaches has no copy.
                    let Some(&block) = self.blocks.get(&from) else {
                        continue;
                    };
                    let mut v = [self.of(LLVMGetIncomingValue(p, k), row)];
                    let mut b = [block];
                    LLVMAddIncoming(c, v.as_mut_ptr(), b.as_mut_ptr(), 1);
                }
            }
        }
        Ok(())
    }

    /// A copy of `i` on row `row`'s values, at the builder.
    unsafe fn clone(&self, i: LLVMValueRef, row: usize) -> LLVMValueRef {
        let c = LLVMInstructionClone(i);
        for k in 0..LLVMGetNumOperands(i) as u32 {
            LLVMSetOperand(c, k, self.of(LLVMGetOperand(i, k), row));
        }
        // The copy belongs to no subprogram of its own.
        llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(c, std::ptr::null_mut());
        let name = cstr(&llvm::name(i));
        LLVMInsertIntoBuilderWithName(self.b, c, name.as_ptr());
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    use kernel_ir::test_support::HEAD;

    /// `c[y * 64 + x] = sum over k < n of a[y * n + k] * b[k * 64 + x]`,
    /// with `extra` before the loop's latch.
    fn gemm(extra: &str) -> String {
        format!(
            "{HEAD}
define void @k(ptr %a, ptr %b, ptr %c, ptr %count, i32 %n) {{
entry:
  %x = call i64 @__mux_get_local_id(i32 0)
  %y = call i64 @__mux_get_local_id(i32 1)
  %n64 = sext i32 %n to i64
  %arow = mul i64 %y, %n64
  br label %loop
loop:
  %k = phi i64 [ 0, %entry ], [ %k1, %loop ]
  %acc = phi float [ 0.0, %entry ], [ %acc1, %loop ]
  %ia = add i64 %arow, %k
  %pa = getelementptr float, ptr %a, i64 %ia
  %va = load float, ptr %pa, align 4
  %brow = mul i64 %k, 64
  %ib = add i64 %brow, %x
  %pb = getelementptr float, ptr %b, i64 %ib
  %vb = load float, ptr %pb, align 4
  %acc1 = call float @llvm.fmuladd.f32(float %va, float %vb, float %acc)
  {extra}
  %k1 = add i64 %k, 1
  %more = icmp slt i64 %k1, %n64
  br i1 %more, label %loop, label %out
out:
  %crow = mul i64 %y, 64
  %ic = add i64 %crow, %x
  %pc = getelementptr float, ptr %c, i64 %ic
  store float %acc1, ptr %pc, align 4
  ret void
}}"
        )
    }

    /// The copy of `@k` for `rows` rows, as text, once the module with it
    /// verifies.
    fn jammed_text(src: &str, rows: u32) -> String {
        let ir = Ir::parse(src);
        unsafe { run(ir.m, ir.function("k"), rows).unwrap() };
        unsafe { compiler::llvm::verify(ir.m).unwrap() };
        let text = ir.text();
        let at = text.find(&format!("define internal void @k.rows{rows}"));
        text[at.expect("no copy for several rows")..].to_string()
    }

    fn count(text: &str, what: &str) -> usize {
        text.matches(what).count()
    }

    #[test]
    fn rows_share_the_load_that_does_not_depend_on_y() {
        let t = jammed_text(&gemm(""), 4);
        // b[k * 64 + x] once, a[y * n + k] once per row.
        assert_eq!(count(&t, "load float, ptr %pb"), 1, "{t}");
        assert_eq!(count(&t, "= load float, ptr %pa"), 4, "{t}");
        // Four accumulators, four FMAs on the one b, four stores.
        assert_eq!(count(&t, "phi float"), 4, "{t}");
        assert_eq!(count(&t, "float %vb, float %acc"), 4, "{t}");
        assert_eq!(count(&t, "store float"), 4, "{t}");
        // Row j's id is y + j; the loop counter stays one.
        assert_eq!(count(&t, "call i64 @__mux_get_local_id(i32 1)"), 1, "{t}");
        for j in 1..4 {
            assert!(t.contains(&format!("add nuw i64 %y, {j}")), "{t}");
        }
        assert_eq!(count(&t, "phi i64"), 1, "{t}");
        // Each row's accumulator takes its own row's FMA around the loop.
        for line in t.lines().filter(|l| l.contains("phi float")) {
            let acc = line.trim().split(' ').next().unwrap();
            let back = line.split("[ ").nth(2).unwrap().split(',').next().unwrap();
            let fma = t
                .lines()
                .find(|l| l.trim().starts_with(&format!("{back} =")))
                .unwrap();
            assert!(fma.contains(&format!("float {acc})")), "{acc} {back}:\n{t}");
        }
    }

    #[test]
    fn side_effects_and_private_memory_repeat_per_row() {
        let extra = "%p = alloca float, align 4
  store float %vb, ptr %p, align 4
  %old = atomicrmw add ptr %count, i32 1 monotonic
  call void @effect(ptr %count)";
        let src = format!("{}\ndeclare void @effect(ptr)", gemm(extra));
        let t = jammed_text(&src, 2);
        // The atomic adds for every row, though its operands are shared.
        assert_eq!(count(&t, "atomicrmw add ptr %count"), 2, "{t}");
        assert_eq!(count(&t, "alloca float"), 2, "{t}");
        assert_eq!(count(&t, "store float %vb"), 2, "{t}");
        assert_eq!(count(&t, "call void @effect(ptr %count)"), 2, "{t}");
        assert_eq!(count(&t, "load float, ptr %pb"), 1, "{t}");
    }

    #[test]
    fn a_call_that_touches_no_memory_is_shared_and_may_be_branched_on() {
        // The loop runs while sqrt(b) is below n: the same for every row.
        let src = gemm(
            "%root = call float @llvm.sqrt.f32(float %vb)
  %nf = sitofp i64 %n64 to float
  %small = fcmp olt float %root, %nf",
        )
        .replace(
            "%more = icmp slt i64 %k1, %n64",
            "%more0 = icmp slt i64 %k1, %n64\n  %more = and i1 %more0, %small",
        );
        let t = jammed_text(&format!("{src}\ndeclare float @llvm.sqrt.f32(float)"), 4);
        assert_eq!(count(&t, "call float @llvm.sqrt.f32"), 1, "{t}");
        assert_eq!(count(&t, "call float @llvm.fmuladd.f32"), 4, "{t}");
    }

    #[test]
    fn a_branch_on_the_row_is_declined() {
        let src = gemm("").replace(
            "%more = icmp slt i64 %k1, %n64",
            "%more = icmp slt i64 %k1, %y",
        );
        let ir = Ir::parse(&src);
        let err = unsafe { run(ir.m, ir.function("k"), 4) }.unwrap_err();
        assert!(err.contains("branch"), "{err}");
        // Nothing is left behind.
        assert!(ir.function("k.rows4").is_null());
    }

    #[test]
    fn rows_that_share_no_load_along_x_are_left_alone() {
        // b[k * 64] is the same for every x: nothing a vector load saves.
        let src = gemm("").replace("%ib = add i64 %brow, %x", "%ib = add i64 %brow, 0");
        let ir = Ir::parse(&src);
        let err = unsafe { run(ir.m, ir.function("k"), 4) }.unwrap_err();
        assert!(err.contains("share no load"), "{err}");
    }
}
