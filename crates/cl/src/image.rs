//! Images. The device reports `CL_DEVICE_IMAGE_SUPPORT` = false, so no image
//! object can exist: creation is `CL_INVALID_OPERATION` (spec 5.3.1), as is
//! every image command on a valid queue (5.3.4), and any handle given as an
//! image is not one (`CL_INVALID_MEM_OBJECT`).

use crate::context::Context;
use crate::entry::{self, status};
use crate::object;
use crate::queue::Queue;
use opencl_sys::*;
use std::ffi::c_void;

/// The answer to an image command: the queue is checked first, then the
/// device's lack of images.
fn no_images(queue: cl_command_queue) -> Result<(), cl_int> {
    object::get::<Queue>(queue)?;
    Err(CL_INVALID_OPERATION)
}

pub unsafe extern "C" fn create_image(
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

pub unsafe extern "C" fn create_image_with_properties(
    context: cl_context,
    _properties: *const cl_mem_properties,
    flags: cl_mem_flags,
    format: *const cl_image_format,
    desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    create_image(context, flags, format, desc, host_ptr, errcode_ret)
}

/// No format is supported for any image type: the list is empty.
pub unsafe extern "C" fn get_supported_image_formats(
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

pub unsafe extern "C" fn get_image_info(
    _image: cl_mem,
    _param_name: cl_image_info,
    _param_value_size: usize,
    _param_value: *mut c_void,
    _param_value_size_ret: *mut usize,
) -> cl_int {
    CL_INVALID_MEM_OBJECT
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_read_image(
    queue: cl_command_queue,
    _image: cl_mem,
    _blocking: cl_bool,
    _origin: *const usize,
    _region: *const usize,
    _row_pitch: usize,
    _slice_pitch: usize,
    _ptr: *mut c_void,
    _num_events: cl_uint,
    _event_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    status(|| no_images(queue))
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_write_image(
    queue: cl_command_queue,
    _image: cl_mem,
    _blocking: cl_bool,
    _origin: *const usize,
    _region: *const usize,
    _row_pitch: usize,
    _slice_pitch: usize,
    _ptr: *const c_void,
    _num_events: cl_uint,
    _event_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    status(|| no_images(queue))
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_copy_image(
    queue: cl_command_queue,
    _src: cl_mem,
    _dst: cl_mem,
    _src_origin: *const usize,
    _dst_origin: *const usize,
    _region: *const usize,
    _num_events: cl_uint,
    _event_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    status(|| no_images(queue))
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_fill_image(
    queue: cl_command_queue,
    _image: cl_mem,
    _fill_color: *const c_void,
    _origin: *const usize,
    _region: *const usize,
    _num_events: cl_uint,
    _event_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    status(|| no_images(queue))
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_map_image(
    queue: cl_command_queue,
    _image: cl_mem,
    _blocking: cl_bool,
    _flags: cl_map_flags,
    _origin: *const usize,
    _region: *const usize,
    _row_pitch: *mut usize,
    _slice_pitch: *mut usize,
    _num_events: cl_uint,
    _event_list: *const cl_event,
    _event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        no_images(queue).map(|_| std::ptr::null_mut())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_copy_image_to_buffer(
    queue: cl_command_queue,
    _src_image: cl_mem,
    _dst_buffer: cl_mem,
    _src_origin: *const usize,
    _region: *const usize,
    _dst_offset: usize,
    _num_events: cl_uint,
    _event_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    status(|| no_images(queue))
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_copy_buffer_to_image(
    queue: cl_command_queue,
    _src_buffer: cl_mem,
    _dst_image: cl_mem,
    _src_offset: usize,
    _dst_origin: *const usize,
    _region: *const usize,
    _num_events: cl_uint,
    _event_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    status(|| no_images(queue))
}

/// The OpenCL 1.0 forms of `clCreateImage`.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn create_image_2d(
    context: cl_context,
    flags: cl_mem_flags,
    format: *const cl_image_format,
    _width: usize,
    _height: usize,
    _row_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    create_image(
        context,
        flags,
        format,
        std::ptr::null(),
        host_ptr,
        errcode_ret,
    )
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn create_image_3d(
    context: cl_context,
    flags: cl_mem_flags,
    format: *const cl_image_format,
    _width: usize,
    _height: usize,
    _depth: usize,
    _row_pitch: usize,
    _slice_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    create_image(
        context,
        flags,
        format,
        std::ptr::null(),
        host_ptr,
        errcode_ret,
    )
}
