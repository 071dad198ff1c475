//! Shared virtual memory. `CL_DEVICE_SVM_CAPABILITIES` is 0: allocation
//! answers NULL (spec 5.6.1), and the SVM commands and kernel arguments are
//! `CL_INVALID_OPERATION` once their queue or kernel is known valid.

use crate::entry::status;
use crate::kernel::Kernel;
use crate::object;
use crate::queue::Queue;
use opencl_sys::*;
use std::ffi::c_void;

fn no_svm_queue(queue: cl_command_queue) -> Result<(), cl_int> {
    object::get::<Queue>(queue)?;
    Err(CL_INVALID_OPERATION)
}

pub unsafe extern "C" fn svm_alloc(
    _context: cl_context,
    _flags: cl_svm_mem_flags,
    _size: usize,
    _alignment: cl_uint,
) -> *mut c_void {
    std::ptr::null_mut()
}

/// Nothing was ever allocated, so there is nothing to free.
pub unsafe extern "C" fn svm_free(_context: cl_context, _ptr: *mut c_void) {}

type FreeFn =
    Option<unsafe extern "C" fn(cl_command_queue, cl_uint, *mut *mut c_void, *mut c_void)>;

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_svm_free(
    queue: cl_command_queue,
    _num_pointers: cl_uint,
    _pointers: *mut *mut c_void,
    _free_fn: FreeFn,
    _user_data: *mut c_void,
    _num_events: cl_uint,
    _event_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    status(|| no_svm_queue(queue))
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_svm_memcpy(
    queue: cl_command_queue,
    _blocking: cl_bool,
    _dst: *mut c_void,
    _src: *const c_void,
    _size: usize,
    _num_events: cl_uint,
    _event_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    status(|| no_svm_queue(queue))
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_svm_mem_fill(
    queue: cl_command_queue,
    _ptr: *mut c_void,
    _pattern: *const c_void,
    _pattern_size: usize,
    _size: usize,
    _num_events: cl_uint,
    _event_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    status(|| no_svm_queue(queue))
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_svm_map(
    queue: cl_command_queue,
    _blocking: cl_bool,
    _flags: cl_map_flags,
    _ptr: *mut c_void,
    _size: usize,
    _num_events: cl_uint,
    _event_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    status(|| no_svm_queue(queue))
}

pub unsafe extern "C" fn enqueue_svm_unmap(
    queue: cl_command_queue,
    _ptr: *mut c_void,
    _num_events: cl_uint,
    _event_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    status(|| no_svm_queue(queue))
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_svm_migrate_mem(
    queue: cl_command_queue,
    _num_pointers: cl_uint,
    _pointers: *mut *const c_void,
    _sizes: *const usize,
    _flags: cl_mem_migration_flags,
    _num_events: cl_uint,
    _event_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    status(|| no_svm_queue(queue))
}

pub unsafe extern "C" fn set_kernel_arg_svm_pointer(
    kernel: cl_kernel,
    _index: cl_uint,
    _value: *const c_void,
) -> cl_int {
    status(|| {
        object::get::<Kernel>(kernel)?;
        Err(CL_INVALID_OPERATION)
    })
}

/// The only execution infos the spec defines are about SVM.
pub unsafe extern "C" fn set_kernel_exec_info(
    kernel: cl_kernel,
    param_name: cl_kernel_exec_info,
    _param_value_size: usize,
    _param_value: *const c_void,
) -> cl_int {
    status(|| {
        object::get::<Kernel>(kernel)?;
        match param_name {
            CL_KERNEL_EXEC_INFO_SVM_PTRS | CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM => {
                Err(CL_INVALID_OPERATION)
            }
            _ => Err(CL_INVALID_VALUE),
        }
    })
}
