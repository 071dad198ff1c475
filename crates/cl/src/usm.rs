//! `cl_intel_unified_shared_memory` 1.1: host, device and shared
//! allocations named by pointer (`shared_memory::Registry`), their
//! commands, and pointers as kernel arguments. Host and device share one
//! memory here, so the three kinds differ only in what they report; each
//! is reached by the host and by kernels at its one address.

use crate::context::Context;
use crate::device::Device;
use crate::entry::{self, ensure, status};
use crate::info::{answer, Info};
use crate::object::{self, ClObject};
use crate::queue::{enqueue, Queue};
use crate::shared_memory::{self, Origin};
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::Arc;

/// `clEnqueueMemAdviseINTEL`'s one advice: none. The extension defines no
/// advice values; 0 is what applications pass for "no advice".
const NO_ADVICE: cl_mem_advice_intel = 0;

const ALLOC_FLAGS: cl_mem_alloc_flags_intel = CL_MEM_ALLOC_WRITE_COMBINED_INTEL
    | CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL
    | CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL;

/// Reads an allocation's properties: its `CL_MEM_ALLOC_FLAGS_INTEL`.
unsafe fn alloc_flags(
    properties: *const cl_mem_properties_intel,
) -> Result<cl_mem_alloc_flags_intel, cl_int> {
    let mut flags = None;
    if properties.is_null() {
        return Ok(0);
    }
    let mut p = properties;
    while *p != 0 {
        let (name, value) = (*p, *p.add(1));
        ensure(
            name == CL_MEM_ALLOC_FLAGS_INTEL && flags.is_none(),
            CL_INVALID_PROPERTY,
        )?;
        let both =
            CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL | CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL;
        ensure(
            value & !ALLOC_FLAGS == 0 && value & both != both,
            CL_INVALID_PROPERTY,
        )?;
        flags = Some(value);
        p = p.add(2);
    }
    Ok(flags.unwrap_or(0))
}

/// The device an allocation names: `device` must be one of the context's
/// (NULL only where `optional`).
fn named_device(
    ctx: &Context,
    device: cl_device_id,
    optional: bool,
) -> Result<Option<Arc<ClObject<Device>>>, cl_int> {
    if device.is_null() && optional {
        return Ok(None);
    }
    let d = object::get::<Device>(device)?;
    ensure(ctx.has_device(&d), CL_INVALID_DEVICE)?;
    Ok(Some(d))
}

/// Validates and makes an allocation of `origin`.
unsafe fn allocate(
    context: cl_context,
    device: cl_device_id,
    properties: *const cl_mem_properties_intel,
    size: usize,
    alignment: cl_uint,
    origin: Origin,
) -> Result<*mut c_void, cl_int> {
    let ctx = object::get::<Context>(context)?;
    let device = match origin {
        Origin::UsmDevice => named_device(&ctx, device, false)?,
        Origin::UsmShared => named_device(&ctx, device, true)?,
        _ => None,
    };
    // The devices that must reach the allocation.
    let users: Vec<&Arc<ClObject<Device>>> = match &device {
        Some(d) => vec![d],
        None => ctx.devices.iter().collect(),
    };
    ensure(
        users.iter().all(|d| shared_memory::supported(d)),
        CL_INVALID_OPERATION,
    )?;
    let flags = alloc_flags(properties)?;
    ensure(
        alignment == 0 || alignment.is_power_of_two(),
        CL_INVALID_VALUE,
    )?;
    let max = users
        .iter()
        .map(|d| d.info().max_mem_alloc_size)
        .min()
        .unwrap_or(0);
    ensure(size > 0 && size as u64 <= max, CL_INVALID_BUFFER_SIZE)?;
    // 0: the largest data type's size (long16).
    let align = if alignment == 0 {
        users[0].info().mem_base_addr_align_bits as usize / 8
    } else {
        alignment as usize
    };
    let base = ctx
        .shared
        .allocate(&ctx, size, align, origin, flags, device)?;
    Ok(base as *mut c_void)
}

pub unsafe extern "C" fn host_mem_alloc(
    context: cl_context,
    properties: *const cl_mem_properties_intel,
    size: usize,
    alignment: cl_uint,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        allocate(
            context,
            std::ptr::null_mut(),
            properties,
            size,
            alignment,
            Origin::UsmHost,
        )
    })
}

pub unsafe extern "C" fn device_mem_alloc(
    context: cl_context,
    device: cl_device_id,
    properties: *const cl_mem_properties_intel,
    size: usize,
    alignment: cl_uint,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        allocate(
            context,
            device,
            properties,
            size,
            alignment,
            Origin::UsmDevice,
        )
    })
}

pub unsafe extern "C" fn shared_mem_alloc(
    context: cl_context,
    device: cl_device_id,
    properties: *const cl_mem_properties_intel,
    size: usize,
    alignment: cl_uint,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        allocate(
            context,
            device,
            properties,
            size,
            alignment,
            Origin::UsmShared,
        )
    })
}

fn is_usm(o: Origin) -> bool {
    o != Origin::Svm
}

/// Frees the USM allocation at `ptr`: NULL is nothing to free, anything
/// else that is not one of the context's is `CL_INVALID_VALUE`.
unsafe fn free(context: cl_context, ptr: *mut c_void, blocking: bool) -> Result<(), cl_int> {
    let ctx = object::get::<Context>(context)?;
    if ptr.is_null() {
        return Ok(());
    }
    let known = ctx
        .shared
        .find(ptr as usize)
        .is_some_and(|(a, offset)| offset == 0 && is_usm(a.origin));
    ensure(known, CL_INVALID_VALUE)?;
    if blocking {
        // Commands that may use it end first.
        ctx.shared.finish_queues();
    }
    ctx.shared.free(ptr as usize, is_usm);
    Ok(())
}

pub unsafe extern "C" fn mem_free(context: cl_context, ptr: *mut c_void) -> cl_int {
    status(|| free(context, ptr, false))
}

pub unsafe extern "C" fn mem_blocking_free(context: cl_context, ptr: *mut c_void) -> cl_int {
    status(|| free(context, ptr, true))
}

pub unsafe extern "C" fn get_mem_alloc_info(
    context: cl_context,
    ptr: *const c_void,
    param_name: cl_mem_info_intel,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    let result = object::get::<Context>(context).and_then(|ctx| {
        // Any address inside a USM allocation; others are unknown.
        let found = ctx
            .shared
            .find(ptr as usize)
            .map(|(a, _)| a)
            .filter(|a| is_usm(a.origin));
        let kind = match found.as_ref().map(|a| a.origin) {
            Some(Origin::UsmHost) => CL_MEM_TYPE_HOST_INTEL,
            Some(Origin::UsmDevice) => CL_MEM_TYPE_DEVICE_INTEL,
            Some(Origin::UsmShared) => CL_MEM_TYPE_SHARED_INTEL,
            _ => CL_MEM_TYPE_UNKNOWN_INTEL,
        };
        Ok(match param_name {
            CL_MEM_ALLOC_TYPE_INTEL => Info::value::<cl_unified_shared_memory_type_intel>(kind),
            CL_MEM_ALLOC_BASE_PTR_INTEL => {
                Info::value::<*mut c_void>(found.as_ref().map_or(0, |a| a.base) as *mut c_void)
            }
            CL_MEM_ALLOC_SIZE_INTEL => Info::value::<usize>(found.as_ref().map_or(0, |a| a.size)),
            CL_MEM_ALLOC_DEVICE_INTEL => Info::value::<cl_device_id>(
                found
                    .as_ref()
                    .and_then(|a| a.device.as_ref())
                    .map_or(std::ptr::null_mut(), object::handle),
            ),
            // The property's name (a cl_mem_properties_intel) as a query.
            p if p as cl_mem_properties_intel == CL_MEM_ALLOC_FLAGS_INTEL => {
                Info::value::<cl_mem_alloc_flags_intel>(found.as_ref().map_or(0, |a| a.flags))
            }
            _ => return Err(CL_INVALID_VALUE),
        })
    });
    answer(result, size, value, size_ret)
}

/// The queue, if its device has USM.
fn usm_queue(queue: cl_command_queue) -> Result<Arc<ClObject<Queue>>, cl_int> {
    let q = object::get::<Queue>(queue)?;
    ensure(shared_memory::supported(&q.device), CL_INVALID_OPERATION)?;
    Ok(q)
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_mem_fill(
    queue: cl_command_queue,
    dst: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
    size: usize,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = usm_queue(queue)?;
        let action =
            shared_memory::fill_action(&q, dst as usize, pattern as *const u8, pattern_size, size)?;
        shared_memory::enqueue_action(
            &q,
            CL_COMMAND_MEMFILL_INTEL,
            num_events,
            event_list,
            event,
            false,
            action,
        )
    })
}

/// The deprecated byte fill: `value`'s low byte over `size` bytes.
pub unsafe extern "C" fn enqueue_memset(
    queue: cl_command_queue,
    dst: *mut c_void,
    value: cl_int,
    size: usize,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    let byte = value as u8;
    enqueue_mem_fill(
        queue,
        dst,
        &byte as *const u8 as *const c_void,
        1,
        size,
        num_events,
        event_list,
        event,
    )
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_memcpy(
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
        let q = usm_queue(queue)?;
        let action = shared_memory::memcpy_action(&q, dst as usize, src as usize, size)?;
        shared_memory::enqueue_action(
            &q,
            CL_COMMAND_MEMCPY_INTEL,
            num_events,
            event_list,
            event,
            blocking != 0,
            action,
        )
    })
}

/// A range of an allocation (or, sharing all host memory, of any memory)
/// that a migration or advice names.
fn check_range(q: &Queue, ptr: usize, size: usize) -> Result<(), cl_int> {
    ensure(ptr != 0, CL_INVALID_VALUE)?;
    let end = ptr.checked_add(size).ok_or(CL_INVALID_VALUE)?;
    match q.context.shared.find(ptr) {
        Some((a, _)) => ensure(end <= a.base + a.size, CL_INVALID_VALUE),
        None => ensure(shared_memory::system_supported(&q.device), CL_INVALID_VALUE),
    }
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_migrate_mem(
    queue: cl_command_queue,
    ptr: *const c_void,
    size: usize,
    flags: cl_mem_migration_flags,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = usm_queue(queue)?;
        const KNOWN: cl_mem_migration_flags =
            CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED;
        ensure(flags & !KNOWN == 0, CL_INVALID_VALUE)?;
        check_range(&q, ptr as usize, size)?;
        // Host and device share one memory: nothing moves.
        enqueue(
            &q,
            CL_COMMAND_MIGRATEMEM_INTEL,
            num_events,
            event_list,
            event,
            false,
            Box::new(|| Ok(())),
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_mem_advise(
    queue: cl_command_queue,
    ptr: *const c_void,
    size: usize,
    advice: cl_mem_advice_intel,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = usm_queue(queue)?;
        check_range(&q, ptr as usize, size)?;
        ensure(advice == NO_ADVICE, CL_INVALID_VALUE)?;
        enqueue(
            &q,
            CL_COMMAND_MEMADVISE_INTEL,
            num_events,
            event_list,
            event,
            false,
            Box::new(|| Ok(())),
        )
    })
}

/// The extension's functions by name.
pub fn function(name: &str) -> Option<*mut c_void> {
    Some(match name {
        "clHostMemAllocINTEL" => host_mem_alloc as *mut c_void,
        "clDeviceMemAllocINTEL" => device_mem_alloc as *mut c_void,
        "clSharedMemAllocINTEL" => shared_mem_alloc as *mut c_void,
        "clMemFreeINTEL" => mem_free as *mut c_void,
        "clMemBlockingFreeINTEL" => mem_blocking_free as *mut c_void,
        "clGetMemAllocInfoINTEL" => get_mem_alloc_info as *mut c_void,
        "clSetKernelArgMemPointerINTEL" => crate::svm::set_kernel_arg_svm_pointer as *mut c_void,
        "clEnqueueMemFillINTEL" => enqueue_mem_fill as *mut c_void,
        "clEnqueueMemsetINTEL" => enqueue_memset as *mut c_void,
        "clEnqueueMemcpyINTEL" => enqueue_memcpy as *mut c_void,
        "clEnqueueMigrateMemINTEL" => enqueue_migrate_mem as *mut c_void,
        "clEnqueueMemAdviseINTEL" => enqueue_mem_advise as *mut c_void,
        _ => return None,
    })
}
