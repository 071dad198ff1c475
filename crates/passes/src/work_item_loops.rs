//! Builds the work-group function: unpacks the packed arguments once, then
//! loops over the work-groups of its slice and, in each, over z, y and x
//! local ids, calling the kernel. The ids live in two `[3 x i64]` allocas
//! (`local_id`, `group_id`) that [`crate::mux_builtins`] reads and SROA
//! later turns into the loop counters.

use crate::barriers::Regions;
use compiler::llvm::cstr;
use compiler::{arg_layout, ArgKind, KernelInfo};
use kernel_ir::abi::{self, *};
use kernel_ir::build::{byte_gep, load_i64};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMIntPredicate::*;

/// Names of the allocas the work-item builtins read.
pub const LOCAL_ID: &str = "local_id";
pub const GROUP_ID: &str = "group_id";
pub const NUM_GROUPS: &str = "num_groups";

/// Placeholder for the start of the dynamic (argument) part of the local
/// block; [`crate::local_memory`] replaces it once the static part is laid out.
pub const DYNAMIC_LOCAL: &str = "__ferrocl_dynamic_local";

/// How the x work-item loop meets LLVM's optimizer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum XLoop {
    /// Kept rolled until the loop vectorizer has seen it: LLVM fully
    /// unrolls a short loop before it vectorizes, and the unrolled copies
    /// (indices computed in 32 bits, then extended) are rarely put back
    /// together into vector code.
    Rolled,
    /// Left to the unroller: for a loop the vectorizer will not take (its
    /// stores are non-temporal), unrolling is what amortizes the loop.
    Unrollable,
    /// Kept rolled, and `interleave` vector iterations interleaved: a
    /// kernel of math functions is long chains of dependent arithmetic,
    /// which one iteration at a time leaves the CPU waiting on (LLVM's
    /// cost model interleaves none, for the body's size).
    Compute { interleave: u32 },
}

/// A kernel's vector form (`vecz`) and how to call it.
#[derive(Clone, Debug)]
pub struct VectorForm {
    /// Runs `width` consecutive x ids of `rows` rows at once.
    pub function: LLVMValueRef,
    pub width: usize,
    /// Rows (y ids) one call runs (`crate::jam_rows`); the local size in y
    /// is a multiple of it.
    pub rows: usize,
    /// Runs one x id of `rows` rows: the x ids past the last whole run.
    pub rest: LLVMValueRef,
    /// X ids one vector register of `function` holds: where a region's
    /// work-items end short of a whole run, a last part of fewer than this
    /// goes through `rest` rather than under a mask (a masked register's
    /// loads and stores cost more than a few work-items one by one, and a
    /// masked store does not forward to the next region's load).
    pub register_lanes: usize,
    /// Regions the vector form leaves out (`barriers::leave_out`): their
    /// work-items run one at a time through `rest`.
    pub scalar_regions: Vec<u32>,
}

/// Adds the work-group function for `kernel` to `m` and returns it.
///
/// # Safety
/// `m` must be a live module whose context this thread owns.
pub unsafe fn run(
    m: LLVMModuleRef,
    kernel: &KernelInfo,
    local_size: [usize; 3],
    regions: Option<&Regions>,
    x_loop: XLoop,
    vector: Option<VectorForm>,
    sub_group_width: usize,
) -> Result<LLVMValueRef, String> {
    let kname = cstr(&kernel.name);
    let k = match regions {
        Some(r) => r.function,
        None => LLVMGetNamedFunction(m, kname.as_ptr()),
    };
    if k.is_null() {
        return Err(format!("kernel {} not found", kernel.name));
    }
    let extra = if regions.is_some() {
        abi::REGION_PARAMS.len()
    } else {
        0
    };
    if LLVMCountParams(k) as usize != kernel.args.len() + extra {
        return Err(format!(
            "kernel {} does not match its reflection",
            kernel.name
        ));
    }
    // A kernel entry point cannot be called; from here on it is an ordinary
    // function the work-group function calls (and inlines).
    LLVMSetFunctionCallConv(k, llvm_sys::LLVMCallConv::LLVMCCallConv as u32);
    let ctx = LLVMGetModuleContext(m);
    let ptr = LLVMPointerTypeInContext(ctx, 0);
    let i64t = LLVMInt64TypeInContext(ctx);
    let i8t = LLVMInt8TypeInContext(ctx);
    let void = LLVMVoidTypeInContext(ctx);
    let mut params = [ptr, ptr, ptr, i64t, i64t, ptr];
    let fty = LLVMFunctionType(void, params.as_mut_ptr(), params.len() as u32, 0);
    let wname = cstr(&format!("{WORK_GROUP_PREFIX}{}", kernel.name));
    let wg = LLVMAddFunction(m, wname.as_ptr(), fty);
    for (i, n) in WORK_GROUP_PARAMS.iter().enumerate() {
        let p = LLVMGetParam(wg, i as u32);
        LLVMSetValueName2(p, n.as_ptr() as *const _, n.len());
    }
    let (args_p, sched_p) = (
        LLVMGetParam(wg, PARAM_ARGS),
        LLVMGetParam(wg, PARAM_SCHEDULE),
    );
    let (first, last) = (LLVMGetParam(wg, PARAM_FIRST), LLVMGetParam(wg, PARAM_LAST));
    // Arguments never alias the scheduling info or each other's packing.
    for i in [PARAM_ARGS, PARAM_SCHEDULE, PARAM_LOCAL, PARAM_STORAGE] {
        add_param_attr(ctx, wg, i, "noalias");
    }

    let b = LLVMCreateBuilderInContext(ctx);
    let entry = LLVMAppendBasicBlockInContext(ctx, wg, c"entry".as_ptr());
    LLVMPositionBuilderAtEnd(b, entry);
    let arr3 = LLVMArrayType2(i64t, 3);
    let local_id = LLVMBuildAlloca(b, arr3, cstr(LOCAL_ID).as_ptr());
    let group_id = LLVMBuildAlloca(b, arr3, cstr(GROUP_ID).as_ptr());
    let num_groups = LLVMBuildAlloca(b, arr3, cstr(NUM_GROUPS).as_ptr());
    let i32t = LLVMInt32TypeInContext(ctx);
    // The barrier region the work-items of a group reached.
    let next = LLVMBuildAlloca(b, i32t, c"next_region".as_ptr());
    // The region each lane of a sub-group reached.
    let lane_state = regions.filter(|r| r.has_sub_group_barriers()).map(|_| {
        let arr = LLVMArrayType2(i32t, builtins::mux::MAX_SUB_GROUP_WIDTH as u64);
        LLVMBuildAlloca(b, arr, c"lane_region".as_ptr())
    });

    // Unpack the arguments once per slice.
    let (offsets, _) = arg_layout(&kernel.args);
    let dynamic_local = cstr(DYNAMIC_LOCAL);
    let mut call_args = Vec::with_capacity(kernel.args.len());
    for (i, (a, &off)) in kernel.args.iter().zip(&offsets).enumerate() {
        let pty = LLVMTypeOf(LLVMGetParam(k, i as u32));
        let at = byte_gep(b, i8t, args_p, off as u64, "arg.addr");
        let v = match a.kind {
            ArgKind::ByVal => at,
            ArgKind::Value | ArgKind::Buffer | ArgKind::Image(_) | ArgKind::Sampler => {
                let l = LLVMBuildLoad2(b, pty, at, c"arg".as_ptr());
                LLVMSetAlignment(l, a.align as u32);
                l
            }
            ArgKind::Local => {
                // The offset is relative to the dynamic part of the local
                // block, which starts after the kernel's own variables; a
                // placeholder marks that start until `local_memory` knows it.
                let off = LLVMBuildLoad2(b, i64t, at, c"local.offset".as_ptr());
                LLVMSetAlignment(off, 8);
                let base = LLVMGetNamedGlobal(m, dynamic_local.as_ptr());
                let base = if base.is_null() {
                    let g = LLVMAddGlobal(m, i8t, dynamic_local.as_ptr());
                    LLVMSetLinkage(g, llvm_sys::LLVMLinkage::LLVMExternalLinkage);
                    g
                } else {
                    base
                };
                let mut idx = [off];
                let p = LLVMBuildGEP2(b, i8t, base, idx.as_mut_ptr(), 1, c"local.arg".as_ptr());
                LLVMBuildAddrSpaceCast(b, p, pty, c"local.arg.cast".as_ptr())
            }
        };
        call_args.push(v);
    }

    // The range's number of groups in each dimension, and the grid of
    // groups of the part this call runs (all of one size: the compiled
    // local size), which starts at group `group_offset`.
    let mut part = [std::ptr::null_mut(); 3];
    let mut part_offset = [std::ptr::null_mut(); 3];
    for d in 0..3 {
        let field =
            |offset: u64, name: &str| load_i64(b, i64t, i8t, sched_p, offset + 8 * d as u64, name);
        let ng = field(NUM_GROUPS_OFFSET, "num_groups");
        store_index(b, arr3, i64t, num_groups, d, ng);
        part[d] = field(PART_GROUPS_OFFSET, "part_groups");
        part_offset[d] = field(GROUP_OFFSET_OFFSET, "group_offset");
    }

    // for group in first..last
    let group_loop = LLVMAppendBasicBlockInContext(ctx, wg, c"group".as_ptr());
    LLVMBuildBr(b, group_loop);
    LLVMPositionBuilderAtEnd(b, group_loop);
    let g = LLVMBuildPhi(b, i64t, c"g".as_ptr());
    let gx = LLVMBuildURem(b, g, part[0], c"gx".as_ptr());
    let rest = LLVMBuildUDiv(b, g, part[0], c"gyz".as_ptr());
    let gy = LLVMBuildURem(b, rest, part[1], c"gy".as_ptr());
    let gz = LLVMBuildUDiv(b, rest, part[1], c"gz".as_ptr());
    for (d, v) in [gx, gy, gz].into_iter().enumerate() {
        let id = LLVMBuildAdd(b, v, part_offset[d], c"group.id".as_ptr());
        store_index(b, arr3, i64t, group_id, d, id);
    }

    // The loops' bounds: the compiled local size, or, for a generic
    // work-group function (sizes of 0), the part's, read in each group.
    let bounds = if local_size == [0; 3] {
        [0, 1, 2].map(|d| {
            load_i64(
                b,
                i64t,
                i8t,
                sched_p,
                LOCAL_SIZE_OFFSET + 8 * d,
                "local_size",
            )
        })
    } else {
        local_size.map(|n| LLVMConstInt(i64t, n as u64, 0))
    };
    let ids = Ids {
        arr3,
        i64t,
        local_id,
        local_size,
        bounds,
        x_loop,
    };
    // The sub-group loops' view of this function, from x id `first_x` on.
    let sub_group_run = |first_x: usize| {
        let storage = LLVMGetParam(wg, PARAM_STORAGE);
        crate::sub_group_loops::SubGroupRun {
            regions: k,
            args: call_args.clone(),
            storage,
            staged: storage,
            local_id,
            arr3,
            local_x: local_size[0] as u64,
            width: sub_group_width as u64,
            first_x: first_x as u64,
            next,
            state: lane_state.expect("made for sub-group barriers"),
        }
    };
    match regions {
        None => match &vector {
            Some(v) => vector_item_loops(b, wg, &ids, v, usize::MAX, |b, f, _| {
                call_kernel(b, f, &mut call_args.clone())
            }),
            None => item_loops(b, wg, &ids, ids.bounds[0], |b, _| {
                call_kernel(b, k, &mut call_args)
            }),
        },
        Some(r) if r.has_sub_group_barriers() && vector.is_some() => {
            let v = vector.as_ref().expect("matched");
            if r.work_group_barriers > 0 || v.width != sub_group_width || v.rows != 1 {
                return Err("a vector form of sub-groups between work-group barriers".into());
            }
            // The whole sub-groups of each row through the vector form, the
            // partial one at its end lane after lane.
            let lx = local_size[0];
            let whole = lx / sub_group_width * sub_group_width;
            let run = sub_group_run(whole);
            outer_loops(b, wg, &ids, 1, |b, row| {
                if whole > 0 {
                    let runs = XRange {
                        from: 0,
                        to: LLVMConstInt(i64t, whole as u64, 0),
                        step: sub_group_width,
                    };
                    self::x_loop(b, wg, &ids, runs, row, XLoop::Unrollable, |b, _| {
                        call_kernel(b, v.function, &mut call_args.clone())
                    });
                }
                if whole < lx {
                    let entry = LLVMConstInt(i32t, 0, 0);
                    crate::sub_group_loops::build(b, wg, r, &run, row, entry);
                }
            });
        }
        Some(r) if r.has_sub_group_barriers() => {
            if sub_group_width == 0 {
                return Err("sub-group barriers need a sub-group width".into());
            }
            // Run region 0 sub-group by sub-group, each up to the
            // work-group barrier they all reach, then on from there.
            LLVMBuildStore(b, LLVMConstInt(i32t, 0, 0), next);
            let dispatch = LLVMAppendBasicBlockInContext(ctx, wg, c"dispatch".as_ptr());
            let run_block = LLVMAppendBasicBlockInContext(ctx, wg, c"sub_groups".as_ptr());
            let group_done = LLVMAppendBasicBlockInContext(ctx, wg, c"group.done".as_ptr());
            LLVMBuildBr(b, dispatch);
            LLVMPositionBuilderAtEnd(b, dispatch);
            let from = LLVMBuildLoad2(b, i32t, next, c"region".as_ptr());
            let exit = LLVMConstInt(i32t, REGION_EXIT as u64, 0);
            let done = LLVMBuildICmp(b, LLVMIntEQ, from, exit, c"".as_ptr());
            LLVMBuildCondBr(b, done, group_done, run_block);
            LLVMPositionBuilderAtEnd(b, run_block);
            let run = sub_group_run(0);
            outer_loops(b, wg, &ids, 1, |b, row| {
                crate::sub_group_loops::build(b, wg, r, &run, row, from)
            });
            LLVMBuildBr(b, dispatch);
            LLVMPositionBuilderAtEnd(b, group_done);
        }
        Some(r) => {
            // Run region 0 for every work-item, then the region after the
            // barrier they reached, until they reach the end.
            LLVMBuildStore(b, LLVMConstInt(i32t, 0, 0), next);
            let storage = LLVMGetParam(wg, PARAM_STORAGE);
            let i8t = LLVMInt8TypeInContext(ctx);
            let (read, write, bytes) = r.staged.unwrap_or((0, 0, 0));
            let staged = byte_gep(b, i8t, storage, read as u64, "staged.read");
            let dispatch = LLVMAppendBasicBlockInContext(ctx, wg, c"dispatch".as_ptr());
            let group_done = LLVMAppendBasicBlockInContext(ctx, wg, c"group.done".as_ptr());
            // Where each region leads to one known region, they run one
            // after the other in straight-line code, so that LLVM sees
            // what one region stores and the next loads (a tree
            // reduction's levels); otherwise the region the work-items
            // reached picks the next.
            let chain = linear_chain(r.function, r.count, local_size[0]);
            if chain.is_some() {
                // A region copying its work-items' values into local
                // memory stays loads and stores, not a call of `memcpy`:
                // the next region's loads of them then become the values.
                compiler::llvm::set_function_attribute(wg, "no-builtin-memcpy", "");
            }
            LLVMBuildBr(b, dispatch);
            LLVMPositionBuilderAtEnd(b, dispatch);
            let order: Vec<u32> = match &chain {
                Some(chain) => chain.clone(),
                None => (0..r.count).collect(),
            };
            let runs: Vec<LLVMBasicBlockRef> = order
                .iter()
                .map(|id| {
                    LLVMAppendBasicBlockInContext(ctx, wg, cstr(&format!("region.{id}")).as_ptr())
                })
                .collect();
            if chain.is_some() {
                LLVMBuildBr(b, runs[0]);
            } else {
                let region = LLVMBuildLoad2(b, i32t, next, c"region".as_ptr());
                let switch = LLVMBuildSwitch(b, region, group_done, r.count);
                for (&id, &run) in order.iter().zip(&runs) {
                    LLVMAddCase(switch, LLVMConstInt(i32t, id as u64, 0), run);
                }
            }
            for (at, &id) in order.iter().enumerate() {
                LLVMPositionBuilderAtEnd(b, runs[at]);
                let call_region = |b, f, linear_id| {
                    let mut args = call_args.clone();
                    args.extend([LLVMConstInt(i32t, id as u64, 0), storage, linear_id, staged]);
                    let reached = call_kernel(b, f, &mut args);
                    // Every work-item reaches the same barrier.
                    LLVMBuildStore(b, reached, next);
                    reached
                };
                // The x ids a region starting `if (lid < s)` leaves out
                // are not run: they would only return.
                let bound = crate::barriers::x_bound(r.function, id)
                    .map_or(local_size[0], |c| (c as usize).min(local_size[0]));
                match &vector {
                    // The vector form runs runs of work-items of the
                    // region, its linear id the first's.
                    Some(v) if !v.scalar_regions.contains(&id) => {
                        vector_item_loops(b, wg, &ids, v, bound, call_region)
                    }
                    _ => {
                        let x_to = LLVMConstInt(i64t, bound as u64, 0);
                        item_loops(b, wg, &ids, x_to, |b, linear_id| {
                            call_region(b, k, linear_id)
                        })
                    }
                }
                if bytes > 0 {
                    // What the region wrote of its staged values is what the
                    // next one reads.
                    let at = |offset: usize| byte_gep(b, i8t, storage, offset as u64, "staged");
                    let align = SLOT_ALIGN as u32;
                    LLVMBuildMemCpy(
                        b,
                        at(read),
                        align,
                        at(write),
                        align,
                        LLVMConstInt(i64t, bytes as u64, 0),
                    );
                }
                let then = match chain {
                    Some(_) => runs.get(at + 1).copied().unwrap_or(group_done),
                    None => dispatch,
                };
                LLVMBuildBr(b, then);
            }
            LLVMPositionBuilderAtEnd(b, group_done);
        }
    }
    let gnext = LLVMBuildAdd(b, g, LLVMConstInt(i64t, 1, 0), c"g.next".as_ptr());
    let gmore = LLVMBuildICmp(b, LLVMIntULT, gnext, last, c"g.more".as_ptr());
    let glatch = LLVMGetInsertBlock(b);
    let exit = LLVMAppendBasicBlockInContext(ctx, wg, c"exit".as_ptr());
    LLVMBuildCondBr(b, gmore, group_loop, exit);
    let mut vals = [first, gnext];
    let mut blocks = [entry, glatch];
    LLVMAddIncoming(g, vals.as_mut_ptr(), blocks.as_mut_ptr(), 2);
    LLVMPositionBuilderAtEnd(b, exit);
    LLVMBuildRetVoid(b);
    LLVMDisposeBuilder(b);
    Ok(wg)
}

/// The regions of region function `f` in the order they run, where
/// each leads to one known region (`barriers::successor`) and none runs
/// twice: from region 0 to the one that leads to the end. Only where the
/// regions after the first run few work-items together, at most twice
/// as many as the second (a tree's levels halve): in straight-line code
/// LLVM keeps what a work-item stores in one region and loads in the
/// next in registers, and the steps of a scan, each over all `local_x`
/// x ids, would carry every work-item's value across each and spill.
unsafe fn linear_chain(f: LLVMValueRef, count: u32, local_x: usize) -> Option<Vec<u32>> {
    let mut chain = vec![0];
    loop {
        let next = crate::barriers::successor(f, *chain.last()?)?;
        if next == REGION_EXIT {
            break;
        }
        if next >= count || chain.contains(&next) {
            return None;
        }
        chain.push(next);
    }
    let items =
        |id: u32| crate::barriers::x_bound(f, id).map_or(local_x, |c| (c as usize).min(local_x));
    let after_first: usize = chain[1..].iter().map(|&id| items(id)).sum();
    let second = chain.get(1).map_or(0, |&id| items(id));
    (after_first <= 2 * second).then_some(chain)
}

/// What the work-item loops need to know.
struct Ids {
    arr3: LLVMTypeRef,
    i64t: LLVMTypeRef,
    local_id: LLVMValueRef,
    local_size: [usize; 3],
    /// The local size as values: constants, or loads for a generic form.
    bounds: [LLVMValueRef; 3],
    x_loop: XLoop,
}

/// Nested counted loops over z, y and x (innermost) from the builder's
/// position, x up to `x_to` (the local size, or where a region's work-items
/// stop doing anything); `body` runs for each work-item with its linear
/// local id and returns its calls of the kernel. Work-items are independent
/// between barriers, so the x loop is declared parallel for those calls'
/// memory accesses. The builder ends after the loops.
unsafe fn item_loops(
    b: LLVMBuilderRef,
    wg: LLVMValueRef,
    ids: &Ids,
    x_to: LLVMValueRef,
    body: impl FnOnce(LLVMBuilderRef, LLVMValueRef) -> LLVMValueRef,
) {
    outer_loops(b, wg, ids, 1, |b, yz| {
        let x = XRange {
            from: 0,
            to: x_to,
            step: 1,
        };
        x_loop(b, wg, ids, x, yz, ids.x_loop, body);
    });
}

/// The z and y loops, y stepping by `rows`; `inner` builds the x part
/// inside them, given the linear id of the row (`z * size_y + y`).
unsafe fn outer_loops(
    b: LLVMBuilderRef,
    wg: LLVMValueRef,
    ids: &Ids,
    rows: usize,
    inner: impl FnOnce(LLVMBuilderRef, LLVMValueRef),
) {
    let i64t = ids.i64t;
    let mut latches = Vec::new();
    let mut linear = LLVMConstInt(i64t, 0, 0);
    for d in [2, 1] {
        let (head, block, id) = loop_head(b, wg, ids, d, LLVMConstInt(i64t, 0, 0));
        store_index(b, ids.arr3, i64t, ids.local_id, d, id);
        // linear = linear * size[d] + id, z outermost.
        let scaled = LLVMBuildMul(b, linear, ids.bounds[d], c"".as_ptr());
        linear = LLVMBuildAdd(b, scaled, id, c"linear_id".as_ptr());
        latches.push((d, head, block, id));
    }
    inner(b, linear);
    for (d, head, block, id) in latches.into_iter().rev() {
        let step = if d == 1 { rows } else { 1 };
        loop_latch(b, wg, ids, (head, block, id), step, ids.bounds[d]);
    }
}

/// Which x ids a loop visits: `from`, `from + step`, .. below `to`.
#[derive(Clone, Copy)]
struct XRange {
    from: usize,
    to: LLVMValueRef,
    step: usize,
}

/// A loop over the x ids of `range`, calling `body` for each with its
/// linear local id; marked parallel for the calls `body` returns.
unsafe fn x_loop(
    b: LLVMBuilderRef,
    wg: LLVMValueRef,
    ids: &Ids,
    range: XRange,
    yz: LLVMValueRef,
    x_loop: XLoop,
    body: impl FnOnce(LLVMBuilderRef, LLVMValueRef) -> LLVMValueRef,
) {
    let i64t = ids.i64t;
    let from = LLVMConstInt(i64t, range.from as u64, 0);
    let (head, block, id) = loop_head(b, wg, ids, 0, from);
    store_index(b, ids.arr3, i64t, ids.local_id, 0, id);
    let scaled = LLVMBuildMul(b, yz, ids.bounds[0], c"".as_ptr());
    let linear = LLVMBuildAdd(b, scaled, id, c"linear_id".as_ptr());
    let call = body(b, linear);
    let branch = loop_latch(b, wg, ids, (head, block, id), range.step, range.to);
    let (rolled, interleave) = match x_loop {
        XLoop::Rolled => (true, 0),
        XLoop::Unrollable => (false, 0),
        XLoop::Compute { interleave } => (true, interleave),
    };
    clang_frontend::mark_parallel_loop(branch, &[call], rolled, interleave);
}

/// Opens the loop over dimension `d` starting at `from`: its block and id.
unsafe fn loop_head(
    b: LLVMBuilderRef,
    wg: LLVMValueRef,
    ids: &Ids,
    d: usize,
    from: LLVMValueRef,
) -> (LLVMBasicBlockRef, LLVMBasicBlockRef, LLVMValueRef) {
    let ctx = LLVMGetTypeContext(ids.i64t);
    let head = LLVMGetInsertBlock(b);
    let name = cstr(&format!("item.{}", ["x", "y", "z"][d]));
    let block = LLVMAppendBasicBlockInContext(ctx, wg, name.as_ptr());
    LLVMBuildBr(b, block);
    LLVMPositionBuilderAtEnd(b, block);
    let id = LLVMBuildPhi(b, ids.i64t, c"id".as_ptr());
    let mut vals = [from];
    let mut blocks = [head];
    LLVMAddIncoming(id, vals.as_mut_ptr(), blocks.as_mut_ptr(), 1);
    (head, block, id)
}

/// Closes a loop `loop_head` opened: the id steps by `step` while below
/// `to`. Returns the back branch.
unsafe fn loop_latch(
    b: LLVMBuilderRef,
    wg: LLVMValueRef,
    ids: &Ids,
    (_, block, id): (LLVMBasicBlockRef, LLVMBasicBlockRef, LLVMValueRef),
    step: usize,
    to: LLVMValueRef,
) -> LLVMValueRef {
    let ctx = LLVMGetTypeContext(ids.i64t);
    let i64t = ids.i64t;
    let next = LLVMBuildAdd(b, id, LLVMConstInt(i64t, step as u64, 0), c"next".as_ptr());
    let more = LLVMBuildICmp(b, LLVMIntULT, next, to, c"more".as_ptr());
    let latch = LLVMGetInsertBlock(b);
    let after = LLVMAppendBasicBlockInContext(ctx, wg, c"items.done".as_ptr());
    let branch = LLVMBuildCondBr(b, more, block, after);
    let mut vals = [next];
    let mut blocks = [latch];
    LLVMAddIncoming(id, vals.as_mut_ptr(), blocks.as_mut_ptr(), 1);
    LLVMPositionBuilderAtEnd(b, after);
    branch
}

/// The work-items of a kernel (or of a barrier region) when it has a
/// vector form: in each group of `rows` rows, the x ids in runs of `width`
/// through it, then the rest one at a time through `rest`; those from
/// `bound` on, which do nothing, are not run (a run that `bound` splits
/// is: the vector form leaves its lanes past it out). `call` calls one of
/// the two for the work-item of a linear id (the run's first).
unsafe fn vector_item_loops(
    b: LLVMBuilderRef,
    wg: LLVMValueRef,
    ids: &Ids,
    v: &VectorForm,
    bound: usize,
    call: impl Fn(LLVMBuilderRef, LLVMValueRef, LLVMValueRef) -> LLVMValueRef,
) {
    let (vector, width, kernel) = (v.function, v.width, v.rest);
    let lx = ids.local_size[0].min(bound);
    let full = lx / width * width;
    let last = if lx - full < v.register_lanes {
        full
    } else {
        full + width
    };
    let whole = (ids.local_size[0] / width * width).min(last);
    outer_loops(b, wg, ids, v.rows, |b, yz| {
        if whole > 0 {
            let runs = XRange {
                from: 0,
                to: LLVMConstInt(ids.i64t, whole as u64, 0),
                step: width,
            };
            x_loop(b, wg, ids, runs, yz, XLoop::Unrollable, |b, linear| {
                call(b, vector, linear)
            });
        }
        if whole < lx {
            let rest = XRange {
                from: whole,
                to: LLVMConstInt(ids.i64t, lx as u64, 0),
                step: 1,
            };
            x_loop(b, wg, ids, rest, yz, ids.x_loop, |b, linear| {
                call(b, kernel, linear)
            });
        }
    });
}

unsafe fn call_kernel(
    b: LLVMBuilderRef,
    k: LLVMValueRef,
    args: &mut [LLVMValueRef],
) -> LLVMValueRef {
    let call = LLVMBuildCall2(
        b,
        LLVMGlobalGetValueType(k),
        k,
        args.as_mut_ptr(),
        args.len() as u32,
        c"".as_ptr(),
    );
    LLVMSetInstructionCallConv(call, LLVMGetFunctionCallConv(k));
    call
}

unsafe fn add_param_attr(ctx: LLVMContextRef, f: LLVMValueRef, param: u32, name: &str) {
    let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
    let attr = LLVMCreateEnumAttribute(ctx, kind, 0);
    LLVMAddAttributeAtIndex(f, param + 1, attr);
}

unsafe fn element(
    b: LLVMBuilderRef,
    arr: LLVMTypeRef,
    i64t: LLVMTypeRef,
    base: LLVMValueRef,
    d: usize,
) -> LLVMValueRef {
    let mut idx = [LLVMConstInt(i64t, 0, 0), LLVMConstInt(i64t, d as u64, 0)];
    LLVMBuildInBoundsGEP2(b, arr, base, idx.as_mut_ptr(), 2, c"".as_ptr())
}

unsafe fn store_index(
    b: LLVMBuilderRef,
    arr: LLVMTypeRef,
    i64t: LLVMTypeRef,
    base: LLVMValueRef,
    d: usize,
    v: LLVMValueRef,
) {
    LLVMBuildStore(b, v, element(b, arr, i64t, base, d));
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    const KERNEL: &str = r#"
target triple = "x86_64-unknown-linux-gnu"
define spir_kernel void @k(ptr addrspace(1) %out, i32 %n) {
  store i32 %n, ptr addrspace(1) %out
  ret void
}
"#;

    fn info() -> KernelInfo {
        let arg = |kind, size| compiler::ArgInfo {
            kind,
            address_space: compiler::AddressSpace::Global,
            size,
            align: size,
            access: "none".into(),
            type_name: String::new(),
            type_qualifier: String::new(),
            name: None,
        };
        KernelInfo {
            name: "k".into(),
            args: vec![arg(ArgKind::Buffer, 8), arg(ArgKind::Value, 4)],
            reqd_work_group_size: None,
            work_group_size_hint: None,
            vec_type_hint: None,
            uniform_work_group_size: true,
            reqd_sub_group_size: None,
            compile_num_sub_groups: None,
            uses_barrier: false,
            static_local_memory: 0,
            private_memory: 0,
            uses_program_globals: false,
            printf_calls: Vec::new(),
        }
    }

    #[test]
    fn wrapper_unpacks_arguments_and_loops_over_items() {
        let ir = Ir::parse(KERNEL);
        let wg = unsafe { run(ir.m, &info(), [4, 2, 1], None, XLoop::Rolled, None, 16).unwrap() };
        unsafe { compiler::llvm::verify(ir.m).unwrap() };
        let text = ir.text();
        assert!(text.contains("define void @__ferrocl_wg.k(ptr noalias %args, ptr noalias %schedule_info, ptr noalias %local, i64 %first, i64 %last, ptr noalias %storage)"), "{text}");
        // The second argument sits at byte 8 of the packed block.
        assert!(
            text.contains("getelementptr inbounds i8, ptr %args, i64 8"),
            "{text}"
        );
        // One loop per dimension, bounded by the local size.
        assert!(text.contains("icmp ult i64 %next, 4"), "{text}");
        assert!(
            text.contains("icmp ult i64 %next1, 2") || text.contains(", 2\n"),
            "{text}"
        );
        assert!(text.contains("call void @k("), "{text}");
        assert!(!wg.is_null());
        // The x loop is declared parallel for the kernel call's accesses.
        assert!(text.contains(", !llvm.access.group !"), "{text}");
        assert!(text.contains("!llvm.loop !"), "{text}");
        assert!(text.contains("!\"llvm.loop.parallel_accesses\""), "{text}");
        // It reaches the vectorizer rolled; what the vectorizer makes of it
        // may be unrolled.
        assert!(text.contains("!\"llvm.loop.unroll.disable\""), "{text}");
        assert!(
            text.contains("!\"llvm.loop.vectorize.followup_all\""),
            "{text}"
        );
        // A loop the vectorizer will not take is left to the unroller.
        let ir = Ir::parse(KERNEL);
        unsafe { run(ir.m, &info(), [4, 2, 1], None, XLoop::Unrollable, None, 16).unwrap() };
        let text = ir.text();
        assert!(text.contains("!\"llvm.loop.parallel_accesses\""), "{text}");
        assert!(!text.contains("llvm.loop.unroll.disable"), "{text}");
        assert!(!text.contains("llvm.loop.interleave.count"), "{text}");
        // A kernel of math functions: rolled, vectors interleaved.
        let ir = Ir::parse(KERNEL);
        let x_loop = XLoop::Compute { interleave: 2 };
        unsafe { run(ir.m, &info(), [4, 2, 1], None, x_loop, None, 16).unwrap() };
        let text = ir.text();
        assert!(text.contains("!\"llvm.loop.unroll.disable\""), "{text}");
        assert!(
            text.contains("!{!\"llvm.loop.interleave.count\", i32 2}"),
            "{text}"
        );
    }

    #[test]
    fn a_generic_form_loops_to_the_local_size_of_the_scheduling_info() {
        let ir = Ir::parse(KERNEL);
        unsafe { run(ir.m, &info(), [0, 0, 0], None, XLoop::Rolled, None, 16).unwrap() };
        unsafe { compiler::llvm::verify(ir.m).unwrap() };
        let text = ir.text();
        // The three sizes are read at byte 48 on, and bound the loops.
        for offset in [48, 56, 64] {
            assert!(
                text.contains(&format!(
                    "getelementptr inbounds i8, ptr %schedule_info, i64 {offset}"
                )),
                "{text}"
            );
        }
        assert!(text.contains("icmp ult i64 %next, %local_size"), "{text}");
        assert!(!text.contains("icmp ult i64 %next, 0"), "{text}");
    }

    #[test]
    fn a_vector_form_takes_runs_of_its_width_and_the_kernel_the_rest() {
        let ir = Ir::parse(&format!(
            "{KERNEL}
define internal void @k.v8(ptr addrspace(1) %out, i32 %n) {{
  ret void
}}"
        ));
        let v = ir.function("k.v8");
        let k = ir.function("k");
        let form = VectorForm {
            function: v,
            width: 8,
            rows: 1,
            rest: k,
            register_lanes: 8,
            scalar_regions: vec![],
        };
        unsafe {
            run(
                ir.m,
                &info(),
                [20, 1, 1],
                None,
                XLoop::Rolled,
                Some(form),
                16,
            )
            .unwrap()
        };
        unsafe { compiler::llvm::verify(ir.m).unwrap() };
        let text = ir.text();
        // x = 0, 8 through the vector form (while x + 8 < 16) ...
        assert!(text.contains("call void @k.v8("), "{text}");
        let line =
            |start: &str, end: &str| text.lines().any(|l| l.contains(start) && l.ends_with(end));
        assert!(line("= add i64 %id", ", 8"), "{text}");
        assert!(line("icmp ult i64 %next", ", 16"), "{text}");
        // ... then 16 .. 19 one at a time.
        assert!(text.contains("phi i64 [ 16,"), "{text}");
        assert!(text.contains("call void @k("), "{text}");
        assert!(line("icmp ult i64 %next", ", 20"), "{text}");
    }

    /// The module's text once kernel `k` of `ir` is split into regions
    /// (for 8 work-items) and given its work-group function; `check` sees
    /// the regions first.
    fn work_group_of(ir: &Ir, check: impl FnOnce(&crate::barriers::Regions)) -> String {
        work_group_with(ir, |regions| {
            check(regions);
            None
        })
    }

    /// As `work_group_of`, with the vector form of the regions `vector`
    /// makes, if any.
    fn work_group_with(
        ir: &Ir,
        vector: impl FnOnce(&crate::barriers::Regions) -> Option<VectorForm>,
    ) -> String {
        unsafe {
            let regions = crate::barriers::run(ir.m, ir.function("k"), 8)
                .unwrap()
                .unwrap();
            let form = vector(&regions);
            run(
                ir.m,
                &info(),
                [8, 1, 1],
                Some(&regions),
                XLoop::Rolled,
                form,
                16,
            )
            .unwrap();
            compiler::llvm::verify(ir.m).unwrap();
        }
        ir.text()
    }

    /// Four barriers; each region after the first stores while
    /// `lid < bound` (8, the local size: every work-item).
    fn four_steps(bounds: [u32; 4]) -> String {
        let mut body = String::from(
            "entry:\n  %lid = call i64 @__mux_get_local_id(i32 0)\n  store i32 0, ptr addrspace(1) %out\n",
        );
        for (k, c) in bounds.iter().enumerate() {
            let next = if k == 3 {
                "done".to_string()
            } else {
                format!("b{k}")
            };
            body += &format!(
                "  call void @__mux_work_group_barrier(i32 1)\n  %t{k} = icmp ult i64 %lid, {c}\n  br i1 %t{k}, label %w{k}, label %{next}\nw{k}:\n  store i32 {k}, ptr addrspace(1) %out\n  br label %{next}\n"
            );
            if k < 3 {
                body += &format!("b{k}:\n");
            }
        }
        format!(
            "target triple = \"x86_64-unknown-linux-gnu\"\ndeclare void @__mux_work_group_barrier(i32)\ndeclare i64 @__mux_get_local_id(i32)\ndefine spir_kernel void @k(ptr addrspace(1) %out) {{\n{body}done:\n  ret void\n}}\n"
        )
    }

    #[test]
    fn a_tree_of_regions_runs_straight_and_a_scan_of_full_steps_through_the_dispatch() {
        for (bounds, straight) in [([4, 2, 1, 1], true), ([8, 8, 8, 8], false)] {
            let ir = Ir::parse(&four_steps(bounds));
            unsafe {
                let regions = crate::barriers::run(ir.m, ir.function("k"), 8)
                    .unwrap()
                    .unwrap();
                let chain = linear_chain(regions.function, regions.count, 8);
                assert_eq!(
                    chain,
                    straight.then(|| vec![0, 1, 2, 3, 4]),
                    "{bounds:?}\n{}",
                    ir.text()
                );
            }
        }
    }

    #[test]
    fn a_region_of_fewer_work_items_than_a_register_or_left_out_runs_them_one_by_one() {
        // Region 1 left out of the vector form (a collective's) runs
        // through the scalar one too.
        for (scalar, vector_calls, scalar_calls) in [(vec![], 3, 2), (vec![1], 2, 3)] {
            // Regions for all 8 x ids, then 8, 4, 2 and 1 of them; the
            // parameters `info` reflects.
            let src = four_steps([8, 4, 2, 1]).replace(
                "@k(ptr addrspace(1) %out)",
                "@k(ptr addrspace(1) %out, i32 %n)",
            );
            let ir = Ir::parse(&src);
            let text = work_group_with(&ir, |regions| unsafe {
                let ty = LLVMGlobalGetValueType(regions.function);
                let v = LLVMAddFunction(ir.m, c"k.regions.v8".as_ptr(), ty);
                let b = LLVMCreateBuilderInContext(ir.ctx);
                LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlock(v, c"entry".as_ptr()));
                LLVMBuildRet(b, LLVMConstInt(LLVMInt32TypeInContext(ir.ctx), 0, 0));
                LLVMDisposeBuilder(b);
                Some(VectorForm {
                    function: v,
                    width: 8,
                    rows: 1,
                    rest: regions.function,
                    register_lanes: 4,
                    scalar_regions: scalar.clone(),
                })
            });
            let wg = &text[text.find("define void @__ferrocl_wg.k").unwrap()..];
            let calls = |f: &str| wg.lines().filter(|l| l.contains(&format!("@{f}("))).count();
            // Three regions of a register or more (8, 8 and 4 x ids)
            // through the vector form, masked past its bound; the regions
            // of 2 and 1 through the scalar one.
            assert_eq!(calls("k.regions.v8"), vector_calls, "{text}");
            assert_eq!(calls("k.regions"), scalar_calls, "{text}");
        }
    }

    #[test]
    fn regions_a_loop_repeats_are_picked_by_the_barrier_reached() {
        let ir = Ir::parse(
            r#"
target triple = "x86_64-unknown-linux-gnu"
declare void @__mux_work_group_barrier(i32)
define spir_kernel void @k(ptr addrspace(1) %out, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  store i32 %i, ptr addrspace(1) %out
  call void @__mux_work_group_barrier(i32 1)
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %n
  br i1 %more, label %loop, label %done
done:
  ret void
}
"#,
        );
        let text = work_group_of(&ir, |regions| unsafe {
            // Region 1 leads to itself or to the end.
            assert_eq!(crate::barriers::successor(regions.function, 0), Some(1));
            assert_eq!(crate::barriers::successor(regions.function, 1), None);
        });
        assert!(
            text.contains("switch i32 %region, label %group.done"),
            "{text}"
        );
        assert!(
            text.contains("region.0:") && text.contains("region.1:"),
            "{text}"
        );
        assert!(!text.contains("no-builtin-memcpy"), "{text}");
    }

    #[test]
    fn a_kernel_with_barriers_runs_each_region_for_every_item() {
        let ir = Ir::parse(
            r#"
target triple = "x86_64-unknown-linux-gnu"
declare void @__mux_work_group_barrier(i32)
define spir_kernel void @k(ptr addrspace(1) %out, i32 %n) {
  store i32 %n, ptr addrspace(1) %out
  call void @__mux_work_group_barrier(i32 1)
  store i32 0, ptr addrspace(1) %out
  ret void
}
"#,
        );
        let text = work_group_of(&ir, |_| {});
        // One loop nest per region; region 0 always leads to region 1, so
        // they follow each other with no dispatch between.
        assert!(
            text.contains("region.0:") && text.contains("region.1:"),
            "{text}"
        );
        let wg = &text[text.find("define void @__ferrocl_wg.k").unwrap()..];
        assert!(!wg.contains("switch"), "{text}");
        assert!(wg.contains("br label %region.1"), "{text}");
        // A copy loop in a region stays loads and stores.
        assert!(text.contains("\"no-builtin-memcpy\""), "{text}");
        assert!(
            text.contains("call i32 @k.regions(ptr addrspace(1) %arg, i32 %arg2, i32 1, ptr %storage, i64 %linear_id")
                && text.contains(", ptr %staged.read)"),
            "{text}"
        );
        // The slot for the region reached is made once, in the entry block.
        let entry = &text[text.find("define void @__ferrocl_wg.k").unwrap()..];
        let entry = &entry[..entry.find("br label %group").unwrap()];
        assert!(entry.contains("%next_region = alloca i32"), "{text}");
    }

    #[test]
    fn a_missing_kernel_is_an_error() {
        let ir = Ir::parse(KERNEL);
        let mut k = info();
        k.name = "nope".into();
        assert!(unsafe { run(ir.m, &k, [1, 1, 1], None, XLoop::Rolled, None, 16) }.is_err());
    }
}
