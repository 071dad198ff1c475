//! Samplers. Without image support no sampler can be created (spec 5.9.1:
//! `CL_INVALID_OPERATION`), so every sampler handle is invalid.

use crate::context::Context;
use crate::entry;
use crate::object;
use opencl_sys::*;
use std::ffi::c_void;

pub unsafe extern "C" fn create_sampler(
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

pub unsafe extern "C" fn create_sampler_with_properties(
    context: cl_context,
    _properties: *const cl_sampler_properties,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    create_sampler(context, CL_FALSE, 0, 0, errcode_ret)
}

pub unsafe extern "C" fn retain_sampler(_sampler: cl_sampler) -> cl_int {
    CL_INVALID_SAMPLER
}

pub unsafe extern "C" fn release_sampler(_sampler: cl_sampler) -> cl_int {
    CL_INVALID_SAMPLER
}

pub unsafe extern "C" fn get_sampler_info(
    _sampler: cl_sampler,
    _param_name: cl_sampler_info,
    _param_value_size: usize,
    _param_value: *mut c_void,
    _param_value_size_ret: *mut usize,
) -> cl_int {
    CL_INVALID_SAMPLER
}
