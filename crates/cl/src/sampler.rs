//! Samplers: how a kernel's `read_image*` addresses and filters. A sampler
//! reaches kernels as the integer of its `CLK_*` bits (`libimg::sampler`),
//! the same integer a sampler constant in OpenCL C has.

use crate::context::Context;
use crate::entry::{self, ensure};
use crate::info::{answer, Info};
use crate::object::{self, ClObject, Kind};
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::Arc;

pub struct Sampler {
    pub context: Arc<ClObject<Context>>,
    pub normalized: bool,
    pub addressing: cl_addressing_mode,
    pub filter: cl_filter_mode,
    /// What kernels are given.
    pub bits: u32,
    /// `CL_SAMPLER_PROPERTIES` as given (empty if none).
    properties: Vec<cl_sampler_properties>,
}

impl Kind for Sampler {
    const INVALID: cl_int = CL_INVALID_SAMPLER;
}

fn create(
    context: cl_context,
    normalized: cl_bool,
    addressing: cl_addressing_mode,
    filter: cl_filter_mode,
    properties: Vec<cl_sampler_properties>,
) -> Result<cl_sampler, cl_int> {
    let ctx = object::get::<Context>(context)?;
    ensure(
        ctx.devices.iter().any(|d| d.info().images.is_some()),
        CL_INVALID_OPERATION,
    )?;
    ensure(
        normalized == CL_TRUE || normalized == CL_FALSE,
        CL_INVALID_VALUE,
    )?;
    let bits =
        libimg::sampler::bits(normalized == CL_TRUE, addressing, filter).ok_or(CL_INVALID_VALUE)?;
    let s = object::create(Sampler {
        context: ctx,
        normalized: normalized == CL_TRUE,
        addressing,
        filter,
        bits,
        properties,
    });
    Ok(object::handle(&s))
}

pub unsafe extern "C" fn create_sampler(
    context: cl_context,
    normalized: cl_bool,
    addressing: cl_addressing_mode,
    filter: cl_filter_mode,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        create(context, normalized, addressing, filter, Vec::new())
    })
}

pub unsafe extern "C" fn create_sampler_with_properties(
    context: cl_context,
    properties: *const cl_sampler_properties,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        object::get::<Context>(context)?;
        // The defaults, as for clCreateSampler without them.
        let (mut normalized, mut addressing, mut filter) =
            (CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST);
        let mut given = Vec::new();
        if !properties.is_null() {
            let mut seen = Vec::new();
            let mut p = properties;
            while *p != 0 {
                let (name, value) = (*p, *p.add(1));
                ensure(!seen.contains(&name), CL_INVALID_VALUE)?;
                seen.push(name);
                match name as cl_sampler_info {
                    CL_SAMPLER_NORMALIZED_COORDS => normalized = value as cl_bool,
                    CL_SAMPLER_ADDRESSING_MODE => addressing = value as cl_addressing_mode,
                    CL_SAMPLER_FILTER_MODE => filter = value as cl_filter_mode,
                    _ => return Err(CL_INVALID_VALUE),
                }
                given.extend([name, value]);
                p = p.add(2);
            }
            given.push(0);
        }
        create(context, normalized, addressing, filter, given)
    })
}

pub unsafe extern "C" fn retain_sampler(sampler: cl_sampler) -> cl_int {
    object::retain::<Sampler>(sampler)
}

pub unsafe extern "C" fn release_sampler(sampler: cl_sampler) -> cl_int {
    object::release::<Sampler>(sampler)
}

pub unsafe extern "C" fn get_sampler_info(
    sampler: cl_sampler,
    param_name: cl_sampler_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    let result = object::get::<Sampler>(sampler).and_then(|s| {
        Ok(match param_name {
            CL_SAMPLER_REFERENCE_COUNT => Info::value::<cl_uint>(s.ref_count()),
            CL_SAMPLER_CONTEXT => Info::value::<cl_context>(object::handle(&s.context)),
            CL_SAMPLER_NORMALIZED_COORDS => Info::bool(s.normalized),
            CL_SAMPLER_ADDRESSING_MODE => Info::value::<cl_addressing_mode>(s.addressing),
            CL_SAMPLER_FILTER_MODE => Info::value::<cl_filter_mode>(s.filter),
            CL_SAMPLER_PROPERTIES => Info::slice::<cl_sampler_properties>(&s.properties),
            _ => return Err(CL_INVALID_VALUE),
        })
    });
    answer(result, size, value, size_ret)
}
