//! Pipes. `CL_DEVICE_PIPE_SUPPORT` is false: creation is
//! `CL_INVALID_OPERATION` (spec 5.4.1), so no handle is a pipe.

use crate::context::Context;
use crate::entry;
use crate::object;
use opencl_sys::*;
use std::ffi::c_void;

pub unsafe extern "C" fn create_pipe(
    context: cl_context,
    _flags: cl_mem_flags,
    _packet_size: cl_uint,
    _max_packets: cl_uint,
    _properties: *const cl_pipe_properties,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        object::get::<Context>(context)?;
        Err(CL_INVALID_OPERATION)
    })
}

pub unsafe extern "C" fn get_pipe_info(
    _pipe: cl_mem,
    _param_name: cl_pipe_info,
    _param_value_size: usize,
    _param_value: *mut c_void,
    _param_value_size_ret: *mut usize,
) -> cl_int {
    CL_INVALID_MEM_OBJECT
}
