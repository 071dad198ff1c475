//! Software prefetches for the streams a long loop reads.
//!
//! A loop whose iteration is long (a kernel of math functions: hundreds of
//! instructions for each vector of work-items) gets to an iteration's loads
//! only once the one before is nearly done, as the core's out-of-order
//! window holds about one iteration. Where the data is not in the caches
//! (another program's work, or the idle core's, evicted it) and the
//! hardware prefetcher has not caught up with the stream, each iteration
//! then waits for memory in turn, and the loop runs at the memory's
//! latency. A prefetch some distance ahead of each load whose address
//! steps by a constant number of bytes an iteration overlaps that wait
//! with the iterations before it.
//!
//! A loop gets its prefetches only where the window cannot already see
//! that far ahead: where the iterations the distance spans hold more
//! instructions than the window. A short loop (a copy) issues its loads
//! early by itself, and a prefetch would only take issue slots. Only a
//! stream stepping a cache line or more an iteration is fetched: one
//! stepping less would fetch each line many times over (a row of a matrix
//! read element by element). And only `__global` and `__constant` memory:
//! local memory and work-item storage are the thread's own, in its caches.

use compiler::llvm;
use compiler::program_globals::GLOBAL_AS;
use kernel_ir::abi::CONSTANT_AS;
use kernel_ir::build::intrinsic_call;
use kernel_ir::cfg::Cfg;
use kernel_ir::inductions::{step_of, Step};
use kernel_ir::loops::{natural_loops, Loop};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::{LLVMABISizeOfType, LLVMGetModuleDataLayout, LLVMTargetDataRef};
use llvm_sys::LLVMOpcode::*;
use llvm_sys::LLVMTypeKind::*;
use std::collections::HashSet;

/// What the target says of its cores.
#[derive(Clone, Copy, Debug)]
pub struct Tuning {
    /// How far ahead a stream is fetched, in bytes.
    pub distance: u64,
    /// The instructions the out-of-order window holds.
    pub window: u64,
    /// The cache line's bytes.
    pub line: u64,
}

/// Adds the prefetches to every loop of `m`'s functions that needs them.
/// Returns how many.
///
/// # Safety
/// `m` must be a live module whose context this thread owns.
pub unsafe fn run(m: LLVMModuleRef, tuning: Tuning) -> usize {
    let td = LLVMGetModuleDataLayout(m);
    let b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
    let mut added = 0;
    for f in llvm::functions(m) {
        if LLVMCountBasicBlocks(f) == 0 {
            continue;
        }
        let cfg = Cfg::of(f);
        let loops = natural_loops(&cfg);
        for l in &loops {
            added += prefetch_loop(m, b, td, &cfg, &loops, l, tuning);
        }
    }
    LLVMDisposeBuilder(b);
    added
}

unsafe fn prefetch_loop(
    m: LLVMModuleRef,
    b: LLVMBuilderRef,
    td: LLVMTargetDataRef,
    cfg: &Cfg,
    loops: &[Loop],
    l: &Loop,
    tuning: Tuning,
) -> usize {
    // The loop's own blocks: not those of loops inside it, whose loads
    // step with their own inductions.
    let inner: HashSet<usize> = loops
        .iter()
        .filter(|o| o.header != l.header && l.body.contains(&o.header))
        .flat_map(|o| o.body.iter().copied())
        .collect();
    let own: Vec<usize> = l
        .body
        .iter()
        .copied()
        .filter(|b| !inner.contains(b))
        .collect();
    let length: u64 = own
        .iter()
        .map(|&i| llvm::block_instructions(cfg.blocks[i]).len() as u64)
        .sum();
    let in_loop: HashSet<LLVMBasicBlockRef> = l.body.iter().map(|&i| cfg.blocks[i]).collect();
    let header = cfg.blocks[l.header];
    let mut loads = Vec::new();
    for &i in &own {
        for inst in llvm::block_instructions(cfg.blocks[i]) {
            if !LLVMIsALoadInst(inst).is_null() && LLVMGetVolatile(inst) == 0 {
                loads.push(inst);
            }
        }
    }
    let mut added = 0;
    let mut fetched = HashSet::new();
    for load in loads {
        let address = LLVMGetOperand(load, 0);
        let space = LLVMGetPointerAddressSpace(LLVMTypeOf(address));
        if space != GLOBAL_AS && space != CONSTANT_AS || !fetched.insert(address) {
            continue;
        }
        let walk = Walk {
            td,
            header,
            in_loop: &in_loop,
        };
        let Some(stride) = walk.coefficient(address) else {
            continue;
        };
        if stride.unsigned_abs() < tuning.line {
            continue;
        }
        // Iterations ahead; only where they hold more than the window.
        let ahead = tuning.distance.div_ceil(stride.unsigned_abs());
        if ahead.saturating_mul(length) <= tuning.window {
            continue;
        }
        LLVMPositionBuilderBefore(b, load);
        let ctx = LLVMGetModuleContext(m);
        let i8t = LLVMInt8TypeInContext(ctx);
        let i32t = LLVMInt32TypeInContext(ctx);
        let mut offset = [LLVMConstInt(
            LLVMInt64TypeInContext(ctx),
            (ahead as i64).wrapping_mul(stride) as u64,
            1,
        )];
        // The address ahead may lie past the data: a prefetch never faults.
        let at = LLVMBuildGEP2(b, i8t, address, offset.as_mut_ptr(), 1, c"ahead".as_ptr());
        let mut args = [
            at,
            LLVMConstInt(i32t, 0, 0), // a read
            LLVMConstInt(i32t, 3, 0), // into every level of cache
            LLVMConstInt(i32t, 1, 0), // data
        ];
        intrinsic_call(m, b, "llvm.prefetch", &[LLVMTypeOf(address)], &mut args);
        added += 1;
    }
    added
}

/// How values of a loop change from one iteration to the next.
struct Walk<'a> {
    td: LLVMTargetDataRef,
    header: LLVMBasicBlockRef,
    in_loop: &'a HashSet<LLVMBasicBlockRef>,
}

impl Walk<'_> {
    /// By how much `v` (an integer, or a pointer in bytes) grows each
    /// iteration, where that is a constant: a sum, difference, constant
    /// multiple or cast of the loop's inductions (header phis stepped by a
    /// constant) and values the same every iteration.
    unsafe fn coefficient(&self, v: LLVMValueRef) -> Option<i64> {
        self.coefficient_at(v, 0)
    }

    unsafe fn coefficient_at(&self, v: LLVMValueRef, depth: u32) -> Option<i64> {
        if depth > 16 {
            return None;
        }
        if LLVMIsAInstruction(v).is_null() {
            // Constants and arguments: the same every iteration.
            return Some(0);
        }
        if !self.in_loop.contains(&LLVMGetInstructionParent(v)) {
            return Some(0);
        }
        let c = |x: LLVMValueRef| self.coefficient_at(x, depth + 1);
        let operand = |i: u32| LLVMGetOperand(v, i);
        match LLVMGetInstructionOpcode(v) {
            LLVMPHI => self.induction_step(v),
            LLVMAdd => c(operand(0))?.checked_add(c(operand(1))?),
            LLVMSub => c(operand(0))?.checked_sub(c(operand(1))?),
            // `or disjoint` adds.
            LLVMOr if LLVMGetIsDisjoint(v) != 0 => c(operand(0))?.checked_add(c(operand(1))?),
            LLVMMul => {
                let (x, k) = match (constant(operand(0)), constant(operand(1))) {
                    (_, Some(k)) => (operand(0), k),
                    (Some(k), _) => (operand(1), k),
                    _ => return None,
                };
                c(x)?.checked_mul(k)
            }
            LLVMShl => {
                let k = constant(operand(1)).filter(|k| (0..63).contains(k))?;
                c(operand(0))?.checked_mul(1 << k)
            }
            LLVMSExt | LLVMZExt | LLVMTrunc | LLVMAddrSpaceCast | LLVMBitCast => c(operand(0)),
            LLVMGetElementPtr => self.gep_coefficient(v, depth),
            _ => None,
        }
    }

    /// A phi of the header stepped by a constant along every back edge
    /// (`kernel_ir::inductions`: a sum, a difference or a pointer's GEP,
    /// through integer casts): its step in bytes for a pointer. Another
    /// phi changes no one knows how.
    unsafe fn induction_step(&self, phi: LLVMValueRef) -> Option<i64> {
        if LLVMGetInstructionParent(phi) != self.header {
            return None;
        }
        let mut step = None;
        for i in 0..LLVMCountIncoming(phi) {
            if !self.in_loop.contains(&LLVMGetIncomingBlock(phi, i)) {
                continue;
            }
            let next = LLVMGetIncomingValue(phi, i);
            let is_constant = |u| constant(u).is_some();
            let s = match step_of(next, phi, true, is_constant)? {
                Step::Add(u) => constant(u)?,
                Step::Sub(u) => constant(u)?.checked_neg()?,
                Step::Gep(t, u) => {
                    constant(u)?.checked_mul(i64::try_from(LLVMABISizeOfType(self.td, t)).ok()?)?
                }
            };
            if step.is_some_and(|t| t != s) {
                return None;
            }
            step = Some(s);
        }
        step
    }

    /// A GEP's growth in bytes: its base's, plus each index's times the
    /// size of what it steps over.
    unsafe fn gep_coefficient(&self, gep: LLVMValueRef, depth: u32) -> Option<i64> {
        let mut total = self.coefficient_at(LLVMGetOperand(gep, 0), depth + 1)?;
        let mut ty = LLVMGetGEPSourceElementType(gep);
        for i in 1..LLVMGetNumOperands(gep) as u32 {
            let index = LLVMGetOperand(gep, i);
            let (size, next) = if i == 1 {
                (LLVMABISizeOfType(self.td, ty), ty)
            } else {
                match LLVMGetTypeKind(ty) {
                    LLVMStructTypeKind => {
                        // A field: a constant index, no growth.
                        let k = u32::try_from(constant(index)?).ok()?;
                        ty = LLVMStructGetTypeAtIndex(ty, k);
                        continue;
                    }
                    LLVMArrayTypeKind | LLVMVectorTypeKind => {
                        let e = LLVMGetElementType(ty);
                        (LLVMABISizeOfType(self.td, e), e)
                    }
                    _ => return None,
                }
            };
            ty = next;
            let k = self.coefficient_at(index, depth + 1)?;
            total = total.checked_add(k.checked_mul(i64::try_from(size).ok()?)?)?;
        }
        Some(total)
    }
}

/// An integer constant's value, sign-extended.
unsafe fn constant(v: LLVMValueRef) -> Option<i64> {
    if LLVMIsAConstantInt(v).is_null() || LLVMGetIntTypeWidth(LLVMTypeOf(v)) > 64 {
        return None;
    }
    Some(LLVMConstIntGetSExtValue(v))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    const TUNING: Tuning = Tuning {
        distance: 1024,
        window: 512,
        line: 64,
    };

    /// `ir`'s module after the pass with no window and 4-byte lines, so
    /// that every stream it finds is fetched, 256 bytes ahead: it must add
    /// `streams` prefetches.
    fn fetching_every_stream(ir: &str, streams: usize) -> String {
        let ir = Ir::parse(ir);
        let all = Tuning {
            distance: 256,
            window: 0,
            line: 4,
        };
        unsafe {
            assert_eq!(run(ir.m, all), streams, "{}", ir.text());
            llvm::verify(ir.m).unwrap();
        }
        ir.text()
    }

    /// A loop over `<16 x float>` vectors (64 bytes an iteration) whose body
    /// holds `work` more instructions.
    fn vector_loop(work: usize) -> String {
        let mut body = String::new();
        let mut last = "%v".to_string();
        for i in 0..work {
            body += &format!("  %w{i} = fmul <16 x float> {last}, {last}\n");
            last = format!("%w{i}");
        }
        format!(
            r#"
target datalayout = "e-m:e-i64:64-n8:16:32:64-S128"
define void @f(ptr addrspace(1) %in, ptr addrspace(1) %out, i64 %base, ptr %priv) {{
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %at = add i64 %base, %i
  %p = getelementptr inbounds <8 x float>, ptr addrspace(1) %in, i64 %at
  %v = load <16 x float>, ptr addrspace(1) %p, align 32
  %k = load i32, ptr %priv
{body}  %q = getelementptr inbounds <8 x float>, ptr addrspace(1) %out, i64 %at
  store <16 x float> {last}, ptr addrspace(1) %q, align 32
  %next = add nuw i64 %i, 2
  %more = icmp ult i64 %next, 256
  br i1 %more, label %loop, label %done
done:
  ret void
}}
"#
        )
    }

    #[test]
    fn a_long_loop_fetches_its_stream_the_distance_ahead() {
        let ir = Ir::parse(&vector_loop(100));
        unsafe {
            assert_eq!(run(ir.m, TUNING), 1);
            llvm::verify(ir.m).unwrap();
        }
        let text = ir.text();
        // 1024 bytes is 16 iterations of 64 bytes; the load of the same
        // address every iteration is not a stream.
        assert!(
            text.contains("%ahead = getelementptr i8, ptr addrspace(1) %p, i64 1024"),
            "{text}"
        );
        assert!(
            text.contains(
                "call void @llvm.prefetch.p1(ptr addrspace(1) %ahead, i32 0, i32 3, i32 1)"
            ),
            "{text}"
        );
        let prefetch = text.find("@llvm.prefetch.p1(").unwrap();
        assert!(prefetch < text.find("%v = load").unwrap(), "{text}");
    }

    #[test]
    fn a_short_loop_is_left_to_the_window() {
        let ir = Ir::parse(&vector_loop(4));
        unsafe { assert_eq!(run(ir.m, TUNING), 0) };
        assert!(!ir.text().contains("prefetch"));
    }

    #[test]
    fn strides_through_casts_shifts_and_struct_fields_are_followed() {
        let text = fetching_every_stream(
            r#"
target datalayout = "e-m:e-i64:64-n8:16:32:64-S128"
%pair = type { float, [4 x float] }
define void @f(ptr addrspace(1) %in, ptr addrspace(2) %p2, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %w = sext i32 %i to i64
  %s = shl i64 %w, 1
  %a = getelementptr %pair, ptr addrspace(1) %in, i64 %s, i32 1, i64 2
  %x = load float, ptr addrspace(1) %a
  %d = sub i32 100, %i
  %dw = zext i32 %d to i64
  %b = getelementptr float, ptr addrspace(2) %p2, i64 %dw
  %y = load float, ptr addrspace(2) %b
  %next = add i32 %i, 1
  %more = icmp ult i32 %next, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}
"#,
            2,
        );
        // 2 pairs of 20 bytes an iteration: 7 iterations ahead.
        assert!(
            text.contains("getelementptr i8, ptr addrspace(1) %a, i64 280"),
            "{text}"
        );
        // 4 bytes back an iteration: 64 iterations back.
        assert!(
            text.contains("getelementptr i8, ptr addrspace(2) %b, i64 -256"),
            "{text}"
        );
    }

    #[test]
    fn an_address_stepped_otherwise_gets_no_prefetch() {
        // Only the index array is a stream: a geometric step, a square and
        // a gather are not, and local memory is the thread's own.
        let text = fetching_every_stream(
            r#"
target datalayout = "e-m:e-i64:64-n8:16:32:64-S128"
define void @f(ptr addrspace(1) %in, ptr addrspace(1) %idx, ptr addrspace(3) %tile, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %j = phi i64 [ 1, %entry ], [ %j2, %loop ]
  %j2 = mul i64 %j, 3
  %a = getelementptr float, ptr addrspace(1) %in, i64 %j
  %x = load float, ptr addrspace(1) %a
  %sq = mul i64 %i, %i
  %b = getelementptr float, ptr addrspace(1) %in, i64 %sq
  %y = load float, ptr addrspace(1) %b
  %t = getelementptr i64, ptr addrspace(3) %tile, i64 %i
  %tv = load i64, ptr addrspace(3) %t
  %ip = getelementptr i64, ptr addrspace(1) %idx, i64 %i
  %k = load i64, ptr addrspace(1) %ip
  %c = getelementptr float, ptr addrspace(1) %in, i64 %k
  %z = load float, ptr addrspace(1) %c
  %next = add i64 %i, 1
  %more = icmp ult i64 %next, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}
"#,
            1,
        );
        assert!(
            text.contains("getelementptr i8, ptr addrspace(1) %ip, i64 256"),
            "{text}"
        );
    }

    #[test]
    fn an_inner_loops_loads_step_with_its_own_induction() {
        let text = fetching_every_stream(
            r#"
target datalayout = "e-m:e-i64:64-n8:16:32:64-S128"
define void @f(ptr addrspace(1) %in, i64 %n) {
entry:
  br label %outer
outer:
  %i = phi i64 [ 0, %entry ], [ %inext, %latch ]
  br label %inner
inner:
  %j = phi i64 [ 0, %outer ], [ %jnext, %inner ]
  %at = add i64 %i, %j
  %a = getelementptr float, ptr addrspace(1) %in, i64 %at
  %x = load float, ptr addrspace(1) %a
  %jnext = add i64 %j, 16
  %jmore = icmp ult i64 %jnext, %n
  br i1 %jmore, label %inner, label %latch
latch:
  %inext = add i64 %i, 1
  %more = icmp ult i64 %inext, %n
  br i1 %more, label %outer, label %done
done:
  ret void
}
"#,
            1,
        );
        // 64 bytes an iteration of the inner loop: 4 ahead.
        assert!(
            text.contains("getelementptr i8, ptr addrspace(1) %a, i64 256"),
            "{text}"
        );
    }

    #[test]
    fn a_stream_stepping_less_than_a_line_is_left_to_the_hardware() {
        // The same loop stepping one float.
        let ir = Ir::parse(&vector_loop(100).replace(
            "getelementptr inbounds <8 x float>, ptr addrspace(1) %in",
            "getelementptr inbounds float, ptr addrspace(1) %in",
        ));
        unsafe { assert_eq!(run(ir.m, TUNING), 0) };
    }

    #[test]
    fn a_pointer_stepped_by_a_gep_is_a_stream() {
        let text = fetching_every_stream(
            r#"
target datalayout = "e-m:e-i64:64-n8:16:32:64-S128"
define void @f(ptr addrspace(1) %in, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %p = phi ptr addrspace(1) [ %in, %entry ], [ %p.next, %loop ]
  %v = load <16 x float>, ptr addrspace(1) %p
  %p.next = getelementptr <16 x float>, ptr addrspace(1) %p, i64 1
  %next = add i64 %i, 1
  %more = icmp ult i64 %next, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}
"#,
            1,
        );
        // 64 bytes an iteration: 4 ahead.
        assert!(
            text.contains("getelementptr i8, ptr addrspace(1) %p, i64 256"),
            "{text}"
        );
    }
}
