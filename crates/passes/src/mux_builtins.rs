//! Defines the mux builtins the builtins library calls (`__mux_get_local_id`
//! and friends) inside the work-group function: ids are loads from the
//! loops' id arrays, local sizes are constants, the rest come from the
//! scheduling info. Out-of-range dimensions give the spec's 0 or 1.
//!
//! A field of the scheduling info named by a constant dimension is loaded
//! once, in the entry block: a load inside a work-item loop, under a
//! condition and without the loop's access group, would keep LLVM from
//! vectorizing that loop.

use crate::work_item_loops::*;
use builtins::mux as names;
use compiler::llvm;
use kernel_ir::abi::*;
use kernel_ir::build::byte_gep;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMIntPredicate::LLVMIntULT;

/// Where a dimension-indexed value comes from.
enum Source {
    /// An `[3 x i64]` alloca of the work-group function.
    Array(LLVMValueRef),
    /// Three i64s in the scheduling info, from this byte offset.
    Schedule(u64),
    /// Constants (the local size).
    Constant([usize; 3]),
}

/// Replaces every mux builtin call in `wg`, compiled for work-groups of
/// `local_size` in a range enqueued with `enqueued_local_size` (larger in a
/// dimension where this is the range's last, smaller group); sizes of 0
/// (a generic work-group function) are read from the scheduling info. `printf_arg` is where a
/// printing kernel's hidden argument lies in the packed block
/// (`compiler::printf_arg_offset`): the buffer's address, then each
/// work-group's share of it. `sub_group_width` is the kernel's
/// (`__mux_get_sub_group_width`).
///
/// # Safety
/// `m` must be a live module whose function `wg` was built by
/// [`crate::work_item_loops`] and has had everything inlined.
pub unsafe fn run(
    m: LLVMModuleRef,
    wg: LLVMValueRef,
    local_size: [usize; 3],
    enqueued_local_size: [usize; 3],
    printf_arg: Option<u64>,
    sub_group_width: usize,
) -> Result<(), String> {
    let ctx = LLVMGetModuleContext(m);
    let i64t = LLVMInt64TypeInContext(ctx);
    let i32t = LLVMInt32TypeInContext(ctx);
    let i8t = LLVMInt8TypeInContext(ctx);
    let arr3 = LLVMArrayType2(i64t, 3);
    let sched = LLVMGetParam(wg, PARAM_SCHEDULE);
    let alloca = |name: &str| {
        llvm::instructions(wg)
            .into_iter()
            .find(|&i| !LLVMIsAAllocaInst(i).is_null() && llvm::name(i) == name)
    };
    let (local_id, group_id, num_groups) =
        match (alloca(LOCAL_ID), alloca(GROUP_ID), alloca(NUM_GROUPS)) {
            (Some(a), Some(b), Some(c)) => (a, b, c),
            _ => return Err("not a work-group function".into()),
        };

    let b = LLVMCreateBuilderInContext(ctx);
    // Loads of the argument at the top of the entry block (after its
    // allocas) dominate every use; found again each time, as the
    // instruction there may be a call this pass replaces.
    let entry_top = || {
        let mut i = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(wg));
        while !LLVMIsAAllocaInst(i).is_null() {
            i = LLVMGetNextInstruction(i);
        }
        i
    };
    // (byte offset in the scheduling info) → its value, loaded in the entry.
    let mut entry_loads: std::collections::HashMap<u64, LLVMValueRef> = Default::default();
    let mut result = Ok(());
    for call in llvm::instructions(wg) {
        let Some(f) = llvm::called_function(call) else {
            continue;
        };
        let name = llvm::name(f);
        if name == names::GET_PRINTF_BUFFER || name == names::GET_PRINTF_BUFFER_SIZE {
            let Some(arg) = printf_arg else {
                result = Err("printf without its buffer argument".to_string());
                break;
            };
            let args = LLVMGetParam(wg, PARAM_ARGS);
            // The share, loaded once: 8 bytes after the buffer's address.
            let share = *entry_loads.entry(u64::MAX).or_insert_with(|| {
                LLVMPositionBuilderBefore(b, entry_top());
                let at = byte_gep(b, i8t, args, arg + 8, "printf.share.addr");
                let l = LLVMBuildLoad2(b, i64t, at, c"printf.share".as_ptr());
                LLVMSetAlignment(l, 8);
                l
            });
            LLVMPositionBuilderBefore(b, call);
            let value = if name == names::GET_PRINTF_BUFFER_SIZE {
                LLVMBuildTrunc(b, share, i32t, c"".as_ptr())
            } else {
                let base = *entry_loads.entry(u64::MAX - 1).or_insert_with(|| {
                    LLVMPositionBuilderBefore(b, entry_top());
                    let at = byte_gep(b, i8t, args, arg, "printf.buffer.addr");
                    let l = LLVMBuildLoad2(b, LLVMTypeOf(call), at, c"printf.buffer".as_ptr());
                    LLVMSetAlignment(l, 8);
                    l
                });
                LLVMPositionBuilderBefore(b, call);
                // The group's linear id, x fastest, as the host reads the chunks.
                let id = |a: LLVMValueRef, d: usize| {
                    dimension_value(
                        b,
                        i64t,
                        i8t,
                        arr3,
                        sched,
                        Source::Array(a),
                        LLVMConstInt(i32t, d as u64, 0),
                        0,
                    )
                };
                let (gx, gy, gz) = (id(group_id, 0), id(group_id, 1), id(group_id, 2));
                let (nx, ny) = (id(num_groups, 0), id(num_groups, 1));
                let yz = LLVMBuildAdd(b, gy, LLVMBuildMul(b, ny, gz, c"".as_ptr()), c"".as_ptr());
                let linear = LLVMBuildAdd(
                    b,
                    gx,
                    LLVMBuildMul(b, nx, yz, c"".as_ptr()),
                    c"printf.group".as_ptr(),
                );
                let offset = LLVMBuildMul(b, linear, share, c"".as_ptr());
                let mut idx = [offset];
                LLVMBuildInBoundsGEP2(b, i8t, base, idx.as_mut_ptr(), 1, c"printf.chunk".as_ptr())
            };
            LLVMReplaceAllUsesWith(call, value);
            LLVMInstructionEraseFromParent(call);
            continue;
        }
        let (source, default) = match name.as_str() {
            names::GET_LOCAL_ID => (Source::Array(local_id), 0),
            names::GET_GROUP_ID => (Source::Array(group_id), 0),
            names::GET_NUM_GROUPS => (Source::Array(num_groups), 1),
            // A generic work-group function (sizes of 0) reads them.
            names::GET_LOCAL_SIZE if local_size == [0; 3] => {
                (Source::Schedule(LOCAL_SIZE_OFFSET), 1)
            }
            names::GET_ENQUEUED_LOCAL_SIZE if local_size == [0; 3] => {
                (Source::Schedule(ENQUEUED_LOCAL_SIZE_OFFSET), 1)
            }
            names::GET_LOCAL_SIZE => (Source::Constant(local_size), 1),
            names::GET_ENQUEUED_LOCAL_SIZE => (Source::Constant(enqueued_local_size), 1),
            names::GET_GLOBAL_SIZE => (Source::Schedule(GLOBAL_SIZE_OFFSET), 1),
            names::GET_GLOBAL_OFFSET => (Source::Schedule(GLOBAL_OFFSET_OFFSET), 0),
            names::GET_WORK_DIM => {
                let v = *entry_loads.entry(WORK_DIM_OFFSET).or_insert_with(|| {
                    LLVMPositionBuilderBefore(b, entry_top());
                    let at = byte_gep(b, i8t, sched, WORK_DIM_OFFSET, "work_dim.addr");
                    LLVMBuildLoad2(b, i32t, at, c"work_dim".as_ptr())
                });
                LLVMReplaceAllUsesWith(call, v);
                LLVMInstructionEraseFromParent(call);
                continue;
            }
            names::GET_SUB_GROUP_WIDTH => {
                LLVMReplaceAllUsesWith(call, LLVMConstInt(i32t, sub_group_width as u64, 0));
                LLVMInstructionEraseFromParent(call);
                continue;
            }
            names::SUB_GROUP_BARRIER => {
                result = Err("a sub-group barrier left outside the barrier regions".to_string());
                break;
            }
            names::WORK_GROUP_BARRIER => {
                // With one work-item per group a barrier has nothing to wait for.
                if local_size.iter().product::<usize>() == 1 {
                    LLVMInstructionEraseFromParent(call);
                    continue;
                }
                result = Err("work-group barriers need a work-group size of 1".to_string());
                break;
            }
            _ => continue,
        };
        let dim = LLVMGetOperand(call, 0);
        if let (Source::Schedule(off), false) = (&source, LLVMIsAConstantInt(dim).is_null()) {
            let d = LLVMConstIntGetZExtValue(dim);
            let value = if d >= 3 {
                LLVMConstInt(i64t, default, 0)
            } else {
                *entry_loads.entry(off + 8 * d).or_insert_with(|| {
                    LLVMPositionBuilderBefore(b, entry_top());
                    let at = byte_gep(b, i8t, sched, off + 8 * d, "sched.field");
                    let l = LLVMBuildLoad2(b, i64t, at, c"".as_ptr());
                    LLVMSetAlignment(l, 8);
                    l
                })
            };
            LLVMReplaceAllUsesWith(call, value);
            LLVMInstructionEraseFromParent(call);
            continue;
        }
        LLVMPositionBuilderBefore(b, call);
        let value = dimension_value(b, i64t, i8t, arr3, sched, source, dim, default);
        LLVMReplaceAllUsesWith(call, value);
        LLVMInstructionEraseFromParent(call);
    }
    LLVMDisposeBuilder(b);
    result
}

/// `dim < 3 ? source[dim] : default`, folded when `dim` is a constant.
#[allow(clippy::too_many_arguments)]
unsafe fn dimension_value(
    b: LLVMBuilderRef,
    i64t: LLVMTypeRef,
    i8t: LLVMTypeRef,
    arr3: LLVMTypeRef,
    sched: LLVMValueRef,
    source: Source,
    dim: LLVMValueRef,
    default: u64,
) -> LLVMValueRef {
    let def = LLVMConstInt(i64t, default, 0);
    if !LLVMIsAConstantInt(dim).is_null() {
        let d = LLVMConstIntGetZExtValue(dim);
        if d >= 3 {
            return def;
        }
        if let Source::Constant(c) = source {
            return LLVMConstInt(i64t, c[d as usize] as u64, 0);
        }
    }
    let d64 = LLVMBuildZExt(b, dim, i64t, c"dim".as_ptr());
    let in_range = LLVMBuildICmp(
        b,
        LLVMIntULT,
        d64,
        LLVMConstInt(i64t, 3, 0),
        c"dim.ok".as_ptr(),
    );
    // Index 0 when out of range, so the load stays inside the array.
    let safe = LLVMBuildSelect(
        b,
        in_range,
        d64,
        LLVMConstInt(i64t, 0, 0),
        c"dim.safe".as_ptr(),
    );
    let v = match source {
        Source::Array(a) => {
            let mut idx = [LLVMConstInt(i64t, 0, 0), safe];
            let p = LLVMBuildInBoundsGEP2(b, arr3, a, idx.as_mut_ptr(), 2, c"".as_ptr());
            LLVMBuildLoad2(b, i64t, p, c"".as_ptr())
        }
        Source::Schedule(off) => {
            let base = byte_gep(b, i8t, sched, off, "sched.field");
            let mut idx = [safe];
            let p = LLVMBuildInBoundsGEP2(b, i64t, base, idx.as_mut_ptr(), 1, c"".as_ptr());
            let l = LLVMBuildLoad2(b, i64t, p, c"".as_ptr());
            LLVMSetAlignment(l, 8);
            l
        }
        Source::Constant(c) => {
            let vals = c.map(|x| LLVMConstInt(i64t, x as u64, 0));
            let is0 = LLVMBuildICmp(
                b,
                llvm_sys::LLVMIntPredicate::LLVMIntEQ,
                safe,
                LLVMConstInt(i64t, 0, 0),
                c"".as_ptr(),
            );
            let is1 = LLVMBuildICmp(
                b,
                llvm_sys::LLVMIntPredicate::LLVMIntEQ,
                safe,
                LLVMConstInt(i64t, 1, 0),
                c"".as_ptr(),
            );
            let s12 = LLVMBuildSelect(b, is1, vals[1], vals[2], c"".as_ptr());
            LLVMBuildSelect(b, is0, vals[0], s12, c"".as_ptr())
        }
    };
    LLVMBuildSelect(b, in_range, v, def, c"".as_ptr())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    const WG: &str = r#"
declare i64 @__mux_get_local_id(i32)
declare i64 @__mux_get_local_size(i32)
declare i64 @__mux_get_global_size(i32)
declare i32 @__mux_get_work_dim()
declare i64 @__mux_get_global_offset(i32)
declare void @__mux_work_group_barrier(i32)
define void @wg(ptr %args, ptr %schedule_info, ptr %local, i64 %first, i64 %last, i32 %d) {
  %local_id = alloca [3 x i64]
  %group_id = alloca [3 x i64]
  %num_groups = alloca [3 x i64]
  br label %items
items:
  %o = call i64 @__mux_get_global_offset(i32 1)
  store i64 %o, ptr %args
  %a = call i64 @__mux_get_local_id(i32 1)
  %b = call i64 @__mux_get_local_size(i32 0)
  %c = call i64 @__mux_get_local_size(i32 7)
  %e = call i64 @__mux_get_global_size(i32 %d)
  %w = call i32 @__mux_get_work_dim()
  call void @__mux_work_group_barrier(i32 1)
  store i64 %a, ptr %args
  store i64 %b, ptr %args
  store i64 %c, ptr %args
  store i64 %e, ptr %args
  store i32 %w, ptr %args
  ret void
}
"#;

    #[test]
    fn a_generic_form_reads_the_local_size() {
        let ir = Ir::parse(&WG.replace("  call void @__mux_work_group_barrier(i32 1)\n", ""));
        unsafe {
            run(ir.m, ir.function("wg"), [0; 3], [0; 3], None, 16).unwrap();
            llvm::verify(ir.m).unwrap();
        }
        let text = ir.text();
        // get_local_size(0): the scheduling info's local size, byte 48.
        assert!(text.contains(&format!("i64 {LOCAL_SIZE_OFFSET}")), "{text}");
        assert!(!text.contains("store i64 0, ptr %args"), "{text}");
    }

    #[test]
    fn builtins_become_loads_and_constants() {
        let ir = Ir::parse(WG);
        unsafe { run(ir.m, ir.function("wg"), [8, 1, 1], [8, 1, 1], None, 16).unwrap_err() };
        let ir = Ir::parse(WG);
        unsafe {
            run(ir.m, ir.function("wg"), [1, 1, 1], [1, 1, 1], None, 16).unwrap();
            llvm::verify(ir.m).unwrap();
        }
        let text = ir.text();
        let body = &text[text.find("define void @wg").unwrap()..];
        assert!(!body.contains("call"), "{text}");
        // local size of dimension 0 is the constant, dimension 7 the default 1.
        assert!(body.contains("store i64 1, ptr %args"), "{text}");
        // A field for a constant dimension is loaded in the entry block.
        let entry = &body[..body.find("items:").unwrap()];
        assert!(
            entry.contains("getelementptr inbounds i8, ptr %schedule_info, i64 32"),
            "{text}"
        );
        // the variable dimension is range-checked before it indexes.
        assert!(body.contains("icmp ult i64 %dim, 3"), "{text}");
        assert!(
            body.contains("getelementptr inbounds [3 x i64], ptr %local_id, i64 0, i64 1"),
            "{text}"
        );
    }

    #[test]
    fn the_printf_chunk_is_the_groups_share_of_the_hidden_argument() {
        let wg = r#"
declare ptr addrspace(1) @__mux_get_printf_buffer()
declare i32 @__mux_get_printf_buffer_size()
define void @wg(ptr %args, ptr %schedule_info, ptr %local, i64 %first, i64 %last) {
  %local_id = alloca [3 x i64]
  %group_id = alloca [3 x i64]
  %num_groups = alloca [3 x i64]
  br label %items
items:
  %c = call ptr addrspace(1) @__mux_get_printf_buffer()
  %n = call i32 @__mux_get_printf_buffer_size()
  store i32 %n, ptr addrspace(1) %c
  ret void
}
"#;
        let ir = Ir::parse(wg);
        let e =
            unsafe { run(ir.m, ir.function("wg"), [1, 1, 1], [1, 1, 1], None, 16) }.unwrap_err();
        assert!(e.contains("printf"), "{e}");
        let ir = Ir::parse(wg);
        unsafe {
            run(ir.m, ir.function("wg"), [4, 1, 1], [4, 1, 1], Some(24), 16).unwrap();
            llvm::verify(ir.m).unwrap();
        }
        let text = ir.text();
        let body = &text[text.find("define void @wg").unwrap()..];
        assert!(!body.contains("call"), "{text}");
        // The address at offset 24 and the share at 32, loaded once in the entry.
        let entry = &body[..body.find("items:").unwrap()];
        assert!(
            entry.contains("getelementptr inbounds i8, ptr %args, i64 24"),
            "{text}"
        );
        assert!(
            entry.contains("getelementptr inbounds i8, ptr %args, i64 32"),
            "{text}"
        );
        assert!(
            body.contains(
                "%printf.chunk = getelementptr inbounds i8, ptr addrspace(1) %printf.buffer"
            ),
            "{text}"
        );
        assert!(body.contains("trunc i64 %printf.share to i32"), "{text}");
    }
}
