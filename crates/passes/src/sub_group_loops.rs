//! The work-item loops of a kernel with sub-group barriers (a sub-group
//! collective is one): each sub-group (a run of the kernel's sub-group
//! width along x) runs region by region on its own, up to the next
//! work-group barrier, before the next sub-group starts.
//!
//! Within a sub-group, the lanes that reached the same sub-group barrier
//! run the region after it together, one after the other in lane order;
//! the work-group function first writes their mask to the sub-group
//! scratch (`__mux_get_sub_group_scratch`), which is how a collective knows
//! its active lanes (the builtins' `sub_group.h`). Lanes that control flow
//! sent to different barriers run apart: those at the barrier that comes
//! first in the kernel go first, so a loop's lanes run their iterations
//! before the lanes that left it go on. Lanes at a work-group barrier or at
//! the end wait for the rest of the sub-group; once every sub-group is
//! there, the work-group goes on from that barrier.
//!
//! ```text
//! for each row, for x0 in (0..local_x).step_by(width):
//!   lanes = min(width, local_x - x0); region = the work-group's; mask = all lanes
//!   loop:
//!     scratch.mask = mask
//!     for lane in mask: state[lane] = regions(region, x0 + lane)
//!     region = the least state[lane] that is a sub-group barrier, else done
//!     mask = the lanes whose state is that
//!   next = state[0]
//! ```

use crate::barriers::Regions;
use kernel_ir::abi::REGION_EXIT;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMIntPredicate::*;

/// What the sub-group loops need from the work-group function being built.
pub(crate) struct SubGroupRun {
    /// The region function and its arguments before `region`.
    pub regions: LLVMValueRef,
    pub args: Vec<LLVMValueRef>,
    /// `storage` and `staged`, its arguments after `linear_id`.
    pub storage: LLVMValueRef,
    pub staged: LLVMValueRef,
    /// The `[3 x i64]` local-id alloca and its type.
    pub local_id: LLVMValueRef,
    pub arr3: LLVMTypeRef,
    /// The local size in x (a constant: kernels with barriers have no
    /// generic form).
    pub local_x: u64,
    pub width: u64,
    /// The first x id it runs (those before it run through a vector form).
    pub first_x: u64,
    /// Where the region the work-group reached is kept.
    pub next: LLVMValueRef,
    /// `[64 x i32]`: the region each lane reached.
    pub state: LLVMValueRef,
}

/// Builds, at the builder's position, the runs of the sub-groups of the
/// row whose linear id (`z * size_y + y`) is `row` from x id
/// `run.first_x` on (a multiple of the width, below the local size), from
/// work-group region `from`.
///
/// # Safety
/// The builder must be inside the work-group function `wg`, which holds
/// every value of `run`.
pub(crate) unsafe fn build(
    b: LLVMBuilderRef,
    wg: LLVMValueRef,
    r: &Regions,
    run: &SubGroupRun,
    row: LLVMValueRef,
    from: LLVMValueRef,
) {
    let ctx = LLVMGetModuleContext(LLVMGetGlobalParent(wg));
    let i64t = LLVMInt64TypeInContext(ctx);
    let i32t = LLVMInt32TypeInContext(ctx);
    let c64 = |v: u64| LLVMConstInt(i64t, v, 0);
    let c32 = |v: u64| LLVMConstInt(i32t, v, 0);
    let scratch_fn = scratch_function(LLVMGetGlobalParent(wg), i64t);

    // for x0 in (0..local_x).step_by(width)
    let before = LLVMGetInsertBlock(b);
    let head = LLVMAppendBasicBlockInContext(ctx, wg, c"sub_group".as_ptr());
    LLVMBuildBr(b, head);
    LLVMPositionBuilderAtEnd(b, head);
    let x0 = LLVMBuildPhi(b, i64t, c"x0".as_ptr());
    let left = LLVMBuildSub(b, c64(run.local_x), x0, c"".as_ptr());
    let whole = LLVMBuildICmp(b, LLVMIntUGE, left, c64(run.width), c"".as_ptr());
    let lanes = LLVMBuildSelect(b, whole, c64(run.width), left, c"lanes".as_ptr());
    let all = LLVMBuildSelect(
        b,
        LLVMBuildICmp(b, LLVMIntUGE, lanes, c64(64), c"".as_ptr()),
        c64(u64::MAX),
        LLVMBuildSub(
            b,
            LLVMBuildShl(b, c64(1), lanes, c"".as_ptr()),
            c64(1),
            c"".as_ptr(),
        ),
        c"all".as_ptr(),
    );
    let entered = LLVMGetInsertBlock(b);

    // loop: the lanes of `mask` run `region`.
    let step = LLVMAppendBasicBlockInContext(ctx, wg, c"sub_group.step".as_ptr());
    LLVMBuildBr(b, step);
    LLVMPositionBuilderAtEnd(b, step);
    let region = LLVMBuildPhi(b, i32t, c"sub_group.region".as_ptr());
    let mask = LLVMBuildPhi(b, i64t, c"sub_group.mask".as_ptr());
    let scratch = LLVMBuildCall2(
        b,
        LLVMGlobalGetValueType(scratch_fn),
        scratch_fn,
        std::ptr::null_mut(),
        0,
        c"sub_group.scratch".as_ptr(),
    );
    let i8t = LLVMInt8TypeInContext(ctx);
    let mut at = [c64(builtins::mux::SUB_GROUP_SCRATCH_MASK as u64)];
    let mask_at = LLVMBuildInBoundsGEP2(b, i8t, scratch, at.as_mut_ptr(), 1, c"".as_ptr());
    LLVMBuildStore(b, mask, mask_at);
    lane_loop(b, wg, i64t, lanes, &[], |b, lane, _| {
        let bit = LLVMBuildAnd(
            b,
            LLVMBuildLShr(b, mask, lane, c"".as_ptr()),
            c64(1),
            c"".as_ptr(),
        );
        let active = LLVMBuildICmp(b, LLVMIntNE, bit, c64(0), c"active".as_ptr());
        let call = LLVMAppendBasicBlockInContext(ctx, wg, c"lane.run".as_ptr());
        let after = LLVMAppendBasicBlockInContext(ctx, wg, c"lane.after".as_ptr());
        LLVMBuildCondBr(b, active, call, after);
        LLVMPositionBuilderAtEnd(b, call);
        let x = LLVMBuildAdd(b, x0, lane, c"x".as_ptr());
        let mut idx = [c64(0), c64(0)];
        let at =
            LLVMBuildInBoundsGEP2(b, run.arr3, run.local_id, idx.as_mut_ptr(), 2, c"".as_ptr());
        LLVMBuildStore(b, x, at);
        let linear = LLVMBuildAdd(
            b,
            LLVMBuildMul(b, row, c64(run.local_x), c"".as_ptr()),
            x,
            c"linear_id".as_ptr(),
        );
        let mut args = run.args.clone();
        args.extend([region, run.storage, linear, run.staged]);
        let reached = LLVMBuildCall2(
            b,
            LLVMGlobalGetValueType(run.regions),
            run.regions,
            args.as_mut_ptr(),
            args.len() as u32,
            c"".as_ptr(),
        );
        LLVMSetInstructionCallConv(reached, LLVMGetFunctionCallConv(run.regions));
        LLVMBuildStore(b, reached, state_at(b, run, lane));
        LLVMBuildBr(b, after);
        LLVMPositionBuilderAtEnd(b, after);
        Vec::new()
    });

    // The first sub-group barrier some lane waits at, and those lanes.
    let nwg = c32(r.work_group_barriers as u64);
    let found = lane_loop(
        b,
        wg,
        i64t,
        lanes,
        &[(i32t, c32(REGION_EXIT as u64)), (i64t, c64(0))],
        |b, lane, acc| {
            let (best, lanes_at) = (acc[0], acc[1]);
            let s = LLVMBuildLoad2(b, i32t, state_at(b, run, lane), c"state".as_ptr());
            // A work-group barrier or the end (REGION_EXIT) is not a step of the
            // sub-group's own.
            let own = LLVMBuildICmp(b, LLVMIntUGT, s, nwg, c"".as_ptr());
            let s = LLVMBuildSelect(b, own, s, c32(REGION_EXIT as u64), c"".as_ptr());
            let bit = LLVMBuildShl(b, c64(1), lane, c"".as_ptr());
            let earlier = LLVMBuildICmp(b, LLVMIntULT, s, best, c"".as_ptr());
            let same = LLVMBuildICmp(b, LLVMIntEQ, s, best, c"".as_ptr());
            let with = LLVMBuildOr(b, lanes_at, bit, c"".as_ptr());
            let kept = LLVMBuildSelect(b, same, with, lanes_at, c"".as_ptr());
            vec![
                LLVMBuildSelect(b, earlier, s, best, c"best".as_ptr()),
                LLVMBuildSelect(b, earlier, bit, kept, c"lanes_at".as_ptr()),
            ]
        },
    );
    let (best, lanes_at) = (found[0], found[1]);
    let more = LLVMBuildICmp(b, LLVMIntNE, best, c32(REGION_EXIT as u64), c"".as_ptr());
    let stepped = LLVMGetInsertBlock(b);
    let done = LLVMAppendBasicBlockInContext(ctx, wg, c"sub_group.done".as_ptr());
    LLVMBuildCondBr(b, more, step, done);
    let mut vals = [from, best];
    let mut blocks = [entered, stepped];
    LLVMAddIncoming(region, vals.as_mut_ptr(), blocks.as_mut_ptr(), 2);
    let mut vals = [all, lanes_at];
    LLVMAddIncoming(mask, vals.as_mut_ptr(), blocks.as_mut_ptr(), 2);

    // Every lane is at the same work-group barrier, or at the end.
    LLVMPositionBuilderAtEnd(b, done);
    let reached = LLVMBuildLoad2(b, i32t, state_at(b, run, c64(0)), c"".as_ptr());
    LLVMBuildStore(b, reached, run.next);
    let x_next = LLVMBuildAdd(b, x0, c64(run.width), c"x0.next".as_ptr());
    let more_x = LLVMBuildICmp(b, LLVMIntULT, x_next, c64(run.local_x), c"".as_ptr());
    let latch = LLVMGetInsertBlock(b);
    let out = LLVMAppendBasicBlockInContext(ctx, wg, c"sub_groups.done".as_ptr());
    LLVMBuildCondBr(b, more_x, head, out);
    let mut vals = [c64(run.first_x), x_next];
    let mut blocks = [before, latch];
    LLVMAddIncoming(x0, vals.as_mut_ptr(), blocks.as_mut_ptr(), 2);
    LLVMPositionBuilderAtEnd(b, out);
}

/// `__mux_get_sub_group_scratch`, declared if need be: the mask is its
/// word at `SUB_GROUP_SCRATCH_MASK` (`local_memory` lays it out).
unsafe fn scratch_function(m: LLVMModuleRef, i64t: LLVMTypeRef) -> LLVMValueRef {
    let name = compiler::llvm::cstr(builtins::mux::GET_SUB_GROUP_SCRATCH);
    let f = LLVMGetNamedFunction(m, name.as_ptr());
    if !f.is_null() {
        return f;
    }
    let ctx = LLVMGetTypeContext(i64t);
    let ptr = LLVMPointerTypeInContext(ctx, kernel_ir::abi::LOCAL_AS);
    let fty = LLVMFunctionType(ptr, std::ptr::null_mut(), 0, 0);
    LLVMAddFunction(m, name.as_ptr(), fty)
}

/// `&state[lane]`.
unsafe fn state_at(b: LLVMBuilderRef, run: &SubGroupRun, lane: LLVMValueRef) -> LLVMValueRef {
    let ctx = LLVMGetTypeContext(LLVMTypeOf(lane));
    let i32t = LLVMInt32TypeInContext(ctx);
    let arr = LLVMArrayType2(i32t, builtins::mux::MAX_SUB_GROUP_WIDTH as u64);
    let mut idx = [LLVMConstInt(LLVMTypeOf(lane), 0, 0), lane];
    LLVMBuildInBoundsGEP2(b, arr, run.state, idx.as_mut_ptr(), 2, c"".as_ptr())
}

/// `for lane in 0..count` (count ≥ 1) carrying the values of `carried`
/// (type, start); `body` returns their next values (it may end in another
/// block). Returns their values after the loop.
unsafe fn lane_loop(
    b: LLVMBuilderRef,
    wg: LLVMValueRef,
    i64t: LLVMTypeRef,
    count: LLVMValueRef,
    carried: &[(LLVMTypeRef, LLVMValueRef)],
    body: impl FnOnce(LLVMBuilderRef, LLVMValueRef, &[LLVMValueRef]) -> Vec<LLVMValueRef>,
) -> Vec<LLVMValueRef> {
    let ctx = LLVMGetTypeContext(i64t);
    let before = LLVMGetInsertBlock(b);
    let head = LLVMAppendBasicBlockInContext(ctx, wg, c"lane".as_ptr());
    LLVMBuildBr(b, head);
    LLVMPositionBuilderAtEnd(b, head);
    let lane = LLVMBuildPhi(b, i64t, c"lane".as_ptr());
    let phis: Vec<LLVMValueRef> = carried
        .iter()
        .map(|&(t, _)| LLVMBuildPhi(b, t, c"".as_ptr()))
        .collect();
    let next_values = body(b, lane, &phis);
    let next = LLVMBuildAdd(b, lane, LLVMConstInt(i64t, 1, 0), c"lane.next".as_ptr());
    let more = LLVMBuildICmp(b, LLVMIntULT, next, count, c"".as_ptr());
    let latch = LLVMGetInsertBlock(b);
    let after = LLVMAppendBasicBlockInContext(ctx, wg, c"lanes.done".as_ptr());
    LLVMBuildCondBr(b, more, head, after);
    let mut blocks = [before, latch];
    let mut vals = [LLVMConstInt(i64t, 0, 0), next];
    LLVMAddIncoming(lane, vals.as_mut_ptr(), blocks.as_mut_ptr(), 2);
    for (i, &phi) in phis.iter().enumerate() {
        let mut vals = [carried[i].1, next_values[i]];
        LLVMAddIncoming(phi, vals.as_mut_ptr(), blocks.as_mut_ptr(), 2);
    }
    LLVMPositionBuilderAtEnd(b, after);
    next_values
}

#[cfg(test)]
mod tests {
    use crate::work_item_loops::{run, XLoop};
    use compiler::{ArgInfo, ArgKind, KernelInfo};
    use kernel_ir::test_support::Ir;

    fn info() -> KernelInfo {
        KernelInfo {
            name: "k".into(),
            args: vec![ArgInfo {
                kind: ArgKind::Buffer,
                address_space: compiler::AddressSpace::Global,
                size: 8,
                align: 8,
                access: "none".into(),
                type_name: "int*".into(),
                type_qualifier: String::new(),
                name: None,
            }],
            reqd_work_group_size: None,
            work_group_size_hint: None,
            vec_type_hint: None,
            uniform_work_group_size: true,
            reqd_sub_group_size: None,
            compile_num_sub_groups: None,
            uses_barrier: true,
            static_local_memory: 0,
            private_memory: 0,
            uses_program_globals: false,
            printf_calls: Vec::new(),
        }
    }

    #[test]
    fn each_sub_group_runs_its_lanes_region_by_region_with_their_mask() {
        let ir = Ir::parse(
            r#"
target triple = "x86_64-unknown-linux-gnu"
declare void @__mux_sub_group_barrier()
declare void @__mux_work_group_barrier(i32)
define spir_kernel void @k(ptr addrspace(1) %p) {
  store i32 1, ptr addrspace(1) %p
  call void @__mux_sub_group_barrier()
  store i32 2, ptr addrspace(1) %p
  call void @__mux_work_group_barrier(i32 1)
  store i32 3, ptr addrspace(1) %p
  ret void
}
"#,
        );
        let text = unsafe {
            let r = crate::barriers::run(ir.m, ir.function("k"), 20)
                .unwrap()
                .unwrap();
            // The work-group barrier is 1, the sub-group barrier after it.
            assert_eq!((r.count, r.work_group_barriers), (3, 1));
            assert!(r.has_sub_group_barriers());
            run(ir.m, &info(), [20, 1, 1], Some(&r), XLoop::Rolled, None, 8).unwrap();
            compiler::llvm::verify(ir.m).unwrap();
            ir.text()
        };
        // Lanes of 8 (the last sub-group of a row has 4), their regions by lane.
        assert!(text.contains("%lane_region = alloca [64 x i32]"), "{text}");
        assert!(text.contains("select i1"), "{text}");
        // The mask goes to the scratch's word after the slots, then the
        // lanes in it run the region the sub-group is at.
        let mask_at = format!("i64 {}", builtins::mux::SUB_GROUP_SCRATCH_MASK);
        assert!(
            text.contains("call ptr addrspace(3) @__mux_get_sub_group_scratch()"),
            "{text}"
        );
        assert!(text.contains(&mask_at), "{text}");
        assert!(
            text.contains("call i32 @k.regions(ptr addrspace(1) %arg, i32 %sub_group.region"),
            "{text}"
        );
        // The next step: the first sub-group barrier some lane is at (ids
        // above the work-group barriers), else done.
        assert!(text.contains("icmp ugt i32 %state, 1"), "{text}");
    }
}
