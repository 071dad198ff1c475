//! The ferrocl platform: one per process, never released.

use crate::device::{self, Device};
use crate::entry::{ensure, status};
use crate::info::{answer, Info};
use crate::object::{self, ClObject, Kind};
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::{Arc, LazyLock};

pub struct Platform {
    pub devices: Vec<Arc<ClObject<Device>>>,
}

impl Kind for Platform {
    const INVALID: cl_int = CL_INVALID_PLATFORM;
}

pub const NAME: &str = "ferrocl";
pub const ICD_SUFFIX: &str = "FERRO";
pub const VERSION: cl_version = make_version(3, 0, 0);
pub const EXTENSIONS: &[&str] = &["cl_khr_icd"];

pub const fn make_version(major: u32, minor: u32, patch: u32) -> cl_version {
    mux::make_version(major, minor, patch)
}

static PLATFORM: LazyLock<Arc<ClObject<Platform>>> = LazyLock::new(|| {
    let devices = vec![device::create_host_device()];
    object::create(Platform { devices })
});

/// The platform, created on first use.
pub fn platform() -> &'static Arc<ClObject<Platform>> {
    let p = &*PLATFORM;
    for d in &p.devices {
        d.body.set_platform(object::handle(p));
    }
    p
}

/// Resolves a platform argument: NULL means ours (implementation-defined).
pub fn resolve(handle: cl_platform_id) -> Result<Arc<ClObject<Platform>>, cl_int> {
    if handle.is_null() {
        Ok(platform().clone())
    } else {
        platform();
        object::get::<Platform>(handle)
    }
}

pub unsafe extern "C" fn get_platform_ids(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> cl_int {
    status(|| {
        ensure(
            !(num_entries == 0 && !platforms.is_null()),
            CL_INVALID_VALUE,
        )?;
        ensure(
            !(platforms.is_null() && num_platforms.is_null()),
            CL_INVALID_VALUE,
        )?;
        if !platforms.is_null() {
            *platforms = object::handle(platform());
        }
        if !num_platforms.is_null() {
            *num_platforms = 1;
        }
        Ok(())
    })
}

pub unsafe extern "C" fn get_platform_info(
    platform: cl_platform_id,
    param_name: cl_platform_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    let result = resolve(platform).and_then(|p| {
        // What every device supports (one device: its list, which includes ours).
        let extensions = p.devices[0].extensions();
        let names: Vec<&str> = extensions.iter().map(|e| e.0.as_str()).collect();
        Ok(match param_name {
            CL_PLATFORM_PROFILE => Info::string(crate::program::PROFILE),
            CL_PLATFORM_VERSION => {
                Info::string(&format!("OpenCL 3.0 ferrocl {}", env!("CARGO_PKG_VERSION")))
            }
            CL_PLATFORM_NUMERIC_VERSION => Info::value(VERSION),
            CL_PLATFORM_NAME => Info::string(NAME),
            CL_PLATFORM_VENDOR => Info::string(NAME),
            CL_PLATFORM_EXTENSIONS => Info::string(&names.join(" ")),
            CL_PLATFORM_EXTENSIONS_WITH_VERSION => Info::name_versions(&extensions),
            CL_PLATFORM_HOST_TIMER_RESOLUTION => Info::value::<cl_ulong>(1),
            CL_PLATFORM_ICD_SUFFIX_KHR => Info::string(ICD_SUFFIX),
            // cl_khr_semaphore: binary semaphores, none imported or exported.
            CL_PLATFORM_SEMAPHORE_TYPES_KHR => {
                Info::slice::<cl_semaphore_type_khr>(&[CL_SEMAPHORE_TYPE_BINARY_KHR])
            }
            CL_PLATFORM_SEMAPHORE_IMPORT_HANDLE_TYPES_KHR
            | CL_PLATFORM_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR => {
                Info::slice::<cl_external_semaphore_handle_type_khr>(&[])
            }
            _ => return Err(CL_INVALID_VALUE),
        })
    });
    answer(result, size, value, size_ret)
}

pub unsafe extern "C" fn unload_platform_compiler(platform: cl_platform_id) -> cl_int {
    status(|| resolve(platform).map(|_| ()))
}

pub unsafe extern "C" fn unload_compiler() -> cl_int {
    CL_SUCCESS
}
