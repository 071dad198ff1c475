//! Entry points of optional features the device does not report (images,
//! samplers, SVM, native kernels): each validates its handles and answers
//! with the code the spec gives when no device supports the feature.

use crate::context::Context;
use crate::entry::{self, status};
use crate::object;
use crate::queue::Queue;
use opencl_sys::*;
use std::ffi::c_void;

/// `CL_DEVICE_IMAGE_SUPPORT` is false: image and sampler creation is
/// `CL_INVALID_OPERATION` (spec 5.3.1, 5.9.1).
unsafe extern "C" fn create_image(
    context: cl_context,
    _flags: cl_mem_flags,
    _format: *const cl_image_format,
    _desc: *const cl_image_desc,
    _host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        object::get::<Context>(context)?;
        Err(CL_INVALID_OPERATION)
    })
}

unsafe extern "C" fn get_supported_image_formats(
    context: cl_context,
    _flags: cl_mem_flags,
    _image_type: cl_mem_object_type,
    num_entries: cl_uint,
    formats: *mut cl_image_format,
    num_formats: *mut cl_uint,
) -> cl_int {
    status(|| {
        object::get::<Context>(context)?;
        entry::ensure(!(num_entries == 0 && !formats.is_null()), CL_INVALID_VALUE)?;
        if !num_formats.is_null() {
            *num_formats = 0;
        }
        Ok(())
    })
}

unsafe extern "C" fn create_sampler(
    context: cl_context,
    _normalized: cl_bool,
    _addressing: cl_addressing_mode,
    _filter: cl_filter_mode,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        object::get::<Context>(context)?;
        Err(CL_INVALID_OPERATION)
    })
}

unsafe extern "C" fn create_sampler_with_properties(
    context: cl_context,
    _properties: *const cl_sampler_properties,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        object::get::<Context>(context)?;
        Err(CL_INVALID_OPERATION)
    })
}

/// `CL_DEVICE_SVM_CAPABILITIES` is 0: allocation fails with NULL.
unsafe extern "C" fn svm_alloc(
    _context: cl_context,
    _flags: cl_svm_mem_flags,
    _size: usize,
    _alignment: cl_uint,
) -> *mut c_void {
    std::ptr::null_mut()
}

unsafe extern "C" fn svm_free(_context: cl_context, _ptr: *mut c_void) {}

/// `CL_DEVICE_EXECUTION_CAPABILITIES` lacks `CL_EXEC_NATIVE_KERNEL`.
#[allow(clippy::too_many_arguments)]
unsafe extern "C" fn enqueue_native_kernel(
    queue: cl_command_queue,
    _user_func: Option<unsafe extern "C" fn(*mut c_void)>,
    _args: *mut c_void,
    _cb_args: usize,
    _num_mem_objects: cl_uint,
    _mem_list: *const cl_mem,
    _args_mem_loc: *mut *const c_void,
    _num_events: cl_uint,
    _event_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    status(|| {
        object::get::<Queue>(queue)?;
        Err(CL_INVALID_OPERATION)
    })
}

pub fn fill(d: &mut opencl_sys::cl_icd::_cl_icd_dispatch) {
    d.clCreateImage = Some(create_image);
    d.clGetSupportedImageFormats = Some(get_supported_image_formats);
    d.clCreateSampler = Some(create_sampler);
    d.clCreateSamplerWithProperties = Some(create_sampler_with_properties);
    d.clSVMAlloc = Some(svm_alloc);
    d.clSVMFree = Some(svm_free);
    d.clEnqueueNativeKernel = Some(enqueue_native_kernel);
}
