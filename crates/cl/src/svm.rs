//! Shared virtual memory (OpenCL 2.0, optional in 3.0): allocations the
//! host and kernels reach at one address (`shared_memory::Registry`), the
//! SVM commands, and SVM pointers as kernel arguments. A device without
//! shared memory answers as the spec says for one without SVM: allocation
//! is NULL, commands and kernel arguments `CL_INVALID_OPERATION`.

use crate::context::Context;
use crate::entry::{self, ensure, status};
use crate::kernel::{ArgValue, Kernel};
use crate::object::{self, ClObject};
use crate::queue::{enqueue, wait_list, Queue};
use crate::shared_memory::{self, Origin};
use compiler::ArgKind;
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::Arc;

/// The queue, if its device has SVM.
fn svm_queue(queue: cl_command_queue) -> Result<Arc<ClObject<Queue>>, cl_int> {
    let q = object::get::<Queue>(queue)?;
    ensure(shared_memory::supported(&q.device), CL_INVALID_OPERATION)?;
    Ok(q)
}

fn context_has_svm(ctx: &Context) -> bool {
    ctx.devices.iter().all(|d| shared_memory::supported(d))
}

const ACCESS: cl_svm_mem_flags = CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY;

/// The flags `clSVMAlloc` takes, if every device of `ctx` supports them.
fn valid_flags(ctx: &Context, flags: cl_svm_mem_flags) -> bool {
    let fine = flags & CL_MEM_SVM_FINE_GRAIN_BUFFER != 0;
    let atomics = flags & CL_MEM_SVM_ATOMICS != 0;
    let supports = |need: bool, has: fn(&mux::SharedMemory) -> bool| {
        !need || ctx.devices.iter().all(|d| has(&d.info().shared_memory))
    };
    flags & !(ACCESS | CL_MEM_SVM_FINE_GRAIN_BUFFER | CL_MEM_SVM_ATOMICS) == 0
        && (flags & ACCESS).count_ones() <= 1
        && (!atomics || fine)
        && supports(fine, |s| s.fine_grain)
        && supports(atomics, |s| s.host_atomics)
}

/// `clSVMAlloc`: NULL for any invalid argument (it has no error code).
pub unsafe extern "C" fn svm_alloc(
    context: cl_context,
    flags: cl_svm_mem_flags,
    size: usize,
    alignment: cl_uint,
) -> *mut c_void {
    entry::handle(std::ptr::null_mut(), std::ptr::null_mut(), || {
        let ctx = object::get::<Context>(context)?;
        ensure(context_has_svm(&ctx), CL_INVALID_OPERATION)?;
        ensure(valid_flags(&ctx, flags), CL_INVALID_VALUE)?;
        let max = ctx
            .devices
            .iter()
            .map(|d| d.info().max_mem_alloc_size)
            .min()
            .unwrap_or(0);
        ensure(size > 0 && size as u64 <= max, CL_INVALID_VALUE)?;
        ensure(
            alignment == 0 || alignment.is_power_of_two(),
            CL_INVALID_VALUE,
        )?;
        // 0: the largest data type's size (long16), which the base
        // address alignment of every buffer also is.
        let align = if alignment == 0 {
            ctx.devices[0].info().mem_base_addr_align_bits as usize / 8
        } else {
            alignment as usize
        };
        let base = ctx
            .shared
            .allocate(&ctx, size, align, Origin::Svm, flags, None)?;
        Ok(base as *mut c_void)
    })
}

/// `clSVMFree`: immediate. A pointer that is not a live SVM allocation of
/// the context (NULL, freed already, or never one) is left alone.
pub unsafe extern "C" fn svm_free(context: cl_context, ptr: *mut c_void) {
    entry::handle(std::ptr::null_mut(), (), || {
        let ctx = object::get::<Context>(context)?;
        ctx.shared.free(ptr as usize, |o| o == Origin::Svm);
        Ok(())
    })
}

type FreeFn =
    Option<unsafe extern "C" fn(cl_command_queue, cl_uint, *mut *mut c_void, *mut c_void)>;

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_svm_free(
    queue: cl_command_queue,
    num_pointers: cl_uint,
    pointers: *mut *mut c_void,
    free_fn: FreeFn,
    user_data: *mut c_void,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = svm_queue(queue)?;
        ensure((num_pointers == 0) == pointers.is_null(), CL_INVALID_VALUE)?;
        // The list as it is now: the application may reuse its memory.
        let mut list: Vec<usize> = if pointers.is_null() {
            Vec::new()
        } else {
            std::slice::from_raw_parts(pointers, num_pointers as usize)
                .iter()
                .map(|&p| p as usize)
                .collect()
        };
        let (ctx, handle) = (q.context.clone(), object::handle(&q) as usize);
        let data = user_data as usize;
        let work = Box::new(move || {
            match free_fn {
                // The application frees them itself.
                Some(f) => {
                    // SAFETY: the application's callback with its own data;
                    // the list lives through the call.
                    unsafe {
                        f(
                            handle as cl_command_queue,
                            list.len() as cl_uint,
                            list.as_mut_ptr() as *mut *mut c_void,
                            data as *mut c_void,
                        )
                    }
                }
                None => {
                    for p in list {
                        ctx.shared.free(p, |o| o == Origin::Svm);
                    }
                }
            }
            Ok(())
        });
        enqueue(
            &q,
            CL_COMMAND_SVM_FREE,
            num_events,
            event_list,
            event,
            false,
            work,
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_svm_memcpy(
    queue: cl_command_queue,
    blocking: cl_bool,
    dst: *mut c_void,
    src: *const c_void,
    size: usize,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = svm_queue(queue)?;
        let action = shared_memory::memcpy_action(&q, dst as usize, src as usize, size)?;
        shared_memory::enqueue_action(
            &q,
            CL_COMMAND_SVM_MEMCPY,
            num_events,
            event_list,
            event,
            blocking != 0,
            action,
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_svm_mem_fill(
    queue: cl_command_queue,
    ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = svm_queue(queue)?;
        let action =
            shared_memory::fill_action(&q, ptr as usize, pattern as *const u8, pattern_size, size)?;
        shared_memory::enqueue_action(
            &q,
            CL_COMMAND_SVM_MEMFILL,
            num_events,
            event_list,
            event,
            false,
            action,
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_svm_map(
    queue: cl_command_queue,
    blocking: cl_bool,
    flags: cl_map_flags,
    ptr: *mut c_void,
    size: usize,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = svm_queue(queue)?;
        const KNOWN: cl_map_flags = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
        ensure(flags & !KNOWN == 0, CL_INVALID_VALUE)?;
        ensure(
            !(flags & CL_MAP_WRITE_INVALIDATE_REGION != 0
                && flags & (CL_MAP_READ | CL_MAP_WRITE) != 0),
            CL_INVALID_VALUE,
        )?;
        // Checked first: the map is recorded once its command is sure to be.
        wait_list(&q.context, num_events, event_list)?;
        let work = shared_memory::map_work(&q.context, ptr as usize, size)?;
        enqueue(
            &q,
            CL_COMMAND_SVM_MAP,
            num_events,
            event_list,
            event,
            blocking != 0,
            work,
        )
    })
}

pub unsafe extern "C" fn enqueue_svm_unmap(
    queue: cl_command_queue,
    ptr: *mut c_void,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = svm_queue(queue)?;
        wait_list(&q.context, num_events, event_list)?;
        let work = shared_memory::unmap_work(&q.context, ptr as usize)?;
        enqueue(
            &q,
            CL_COMMAND_SVM_UNMAP,
            num_events,
            event_list,
            event,
            false,
            work,
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_svm_migrate_mem(
    queue: cl_command_queue,
    num_pointers: cl_uint,
    pointers: *mut *const c_void,
    sizes: *const usize,
    flags: cl_mem_migration_flags,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = svm_queue(queue)?;
        ensure(num_pointers > 0 && !pointers.is_null(), CL_INVALID_VALUE)?;
        const KNOWN: cl_mem_migration_flags =
            CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED;
        ensure(flags & !KNOWN == 0, CL_INVALID_VALUE)?;
        let system = shared_memory::system_supported(&q.device);
        for i in 0..num_pointers as usize {
            let p = *pointers.add(i) as usize;
            let size = if sizes.is_null() { 0 } else { *sizes.add(i) };
            ensure(p != 0, CL_INVALID_VALUE)?;
            // 0: the whole allocation holding `p`.
            match q.context.shared.find(p) {
                Some((a, _)) => ensure(
                    p.checked_add(size)
                        .is_some_and(|end| end <= a.base + a.size),
                    CL_INVALID_VALUE,
                )?,
                None => ensure(system, CL_INVALID_VALUE)?,
            }
        }
        // Host and device share one memory: nothing moves.
        enqueue(
            &q,
            CL_COMMAND_SVM_MIGRATE_MEM,
            num_events,
            event_list,
            event,
            false,
            Box::new(|| Ok(())),
        )
    })
}

/// `clSetKernelArgSVMPointer`, and USM's `clSetKernelArgMemPointerINTEL`:
/// any address inside an allocation of the kernel's context, NULL, or with
/// fine-grained system SVM any host address.
pub unsafe extern "C" fn set_kernel_arg_svm_pointer(
    kernel: cl_kernel,
    index: cl_uint,
    value: *const c_void,
) -> cl_int {
    status(|| {
        let k = object::get::<Kernel>(kernel)?;
        let ctx = &k.program.context;
        ensure(context_has_svm(ctx), CL_INVALID_OPERATION)?;
        let arg = k
            .info
            .args
            .get(index as usize)
            .ok_or(CL_INVALID_ARG_INDEX)?;
        // Only a global or constant pointer takes an address.
        ensure(arg.kind == ArgKind::Buffer, CL_INVALID_ARG_INDEX)?;
        ensure(
            shared_memory::valid_kernel_pointer(ctx, value as usize),
            CL_INVALID_ARG_VALUE,
        )?;
        k.args.lock().unwrap()[index as usize] = Some(ArgValue::Pointer(value as usize));
        Ok(())
    })
}

/// Reads an exec info value of `cl_bool`.
unsafe fn bool_value(size: usize, value: *const c_void) -> Result<bool, cl_int> {
    ensure(
        size == std::mem::size_of::<cl_bool>() && !value.is_null(),
        CL_INVALID_VALUE,
    )?;
    Ok(*(value as *const cl_bool) != CL_FALSE)
}

/// Checks a list of pointers a kernel reaches through its data
/// (`CL_KERNEL_EXEC_INFO_SVM_PTRS`, `CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL`).
/// Every allocation of the context is the device's at its address all
/// the time, so once valid the list asks nothing more of it.
unsafe fn check_pointer_list(
    ctx: &Context,
    size: usize,
    value: *const c_void,
) -> Result<(), cl_int> {
    let word = std::mem::size_of::<*const c_void>();
    // An empty list (0 and NULL) unsets the previous one.
    if size == 0 {
        return Ok(());
    }
    ensure(
        !value.is_null() && size.is_multiple_of(word),
        CL_INVALID_VALUE,
    )?;
    let list = std::slice::from_raw_parts(value as *const usize, size / word);
    ensure(
        list.iter()
            .all(|&p| shared_memory::valid_kernel_pointer(ctx, p)),
        CL_INVALID_VALUE,
    )
}

/// `clSetKernelExecInfo`: SVM's infos and `cl_intel_unified_shared_memory`'s.
pub unsafe extern "C" fn set_kernel_exec_info(
    kernel: cl_kernel,
    param_name: cl_kernel_exec_info,
    size: usize,
    value: *const c_void,
) -> cl_int {
    status(|| {
        let k = object::get::<Kernel>(kernel)?;
        let ctx = &k.program.context;
        let known = matches!(
            param_name,
            CL_KERNEL_EXEC_INFO_SVM_PTRS
                | CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM
                | CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL
                | CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL
                | CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL
                | CL_KERNEL_EXEC_INFO_INDIRECT_SHARED_ACCESS_INTEL
        );
        ensure(known, CL_INVALID_VALUE)?;
        ensure(context_has_svm(ctx), CL_INVALID_OPERATION)?;
        match param_name {
            CL_KERNEL_EXEC_INFO_SVM_PTRS | CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL => {
                check_pointer_list(ctx, size, value)
            }
            CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM => {
                let on = bool_value(size, value)?;
                let system = ctx
                    .devices
                    .iter()
                    .any(|d| shared_memory::system_supported(d));
                ensure(!on || system, CL_INVALID_OPERATION)
            }
            // Indirect access to USM allocations: kernels reach every
            // allocation all the time, so either answer is kept by default.
            _ => bool_value(size, value).map(|_| ()),
        }
    })
}
