//! Contexts: a set of devices, its properties and its callbacks.

use crate::device::Device;
use crate::entry::{self, ensure, status};
use crate::info::{answer, Info};
use crate::object::{self, ClObject, Kind};
use crate::platform;
use opencl_sys::*;
use std::ffi::{c_char, c_void};
use std::sync::{Arc, Mutex, OnceLock};

type ErrorCallback = unsafe extern "C" fn(*const c_char, *const c_void, usize, *mut c_void);
type DestructorCallback = unsafe extern "C" fn(cl_context, *mut c_void);

pub struct Context {
    pub devices: Vec<Arc<ClObject<Device>>>,
    /// The properties as given, with their terminating 0 (empty if none).
    properties: Vec<cl_context_properties>,
    error_callback: Option<(ErrorCallback, usize)>,
    destructors: Mutex<Vec<(DestructorCallback, usize)>>,
    handle: OnceLock<usize>,
    /// SVM and USM allocations, found by address.
    pub shared: crate::shared_memory::Registry,
}

impl Kind for Context {
    const INVALID: cl_int = CL_INVALID_CONTEXT;
}

impl Context {
    pub fn has_device(&self, d: &Arc<ClObject<Device>>) -> bool {
        self.devices.iter().any(|x| Arc::ptr_eq(x, d))
    }

    /// Reports an error through the application's callback, if it gave one.
    pub fn report(&self, message: &str) {
        if let Some((cb, data)) = self.error_callback {
            let text = crate::util::c_string(message);
            // SAFETY: the application's callback, with its own user data.
            unsafe { cb(text.as_ptr(), std::ptr::null(), 0, data as *mut c_void) };
        }
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        let handle = self.handle.get().copied().unwrap_or(0) as cl_context;
        let callbacks = std::mem::take(&mut *self.destructors.lock().unwrap());
        // The spec: called in reverse order of registration.
        for (cb, data) in callbacks.into_iter().rev() {
            // SAFETY: the application's callback, with its own user data.
            unsafe { cb(handle, data as *mut c_void) };
        }
    }
}

/// Validates a properties list; returns it with its terminator.
unsafe fn parse_properties(
    properties: *const cl_context_properties,
) -> Result<Vec<cl_context_properties>, cl_int> {
    let mut out = Vec::new();
    if properties.is_null() {
        return Ok(out);
    }
    let mut seen = Vec::new();
    let mut p = properties;
    while *p != 0 {
        let (name, value) = (*p, *p.add(1));
        ensure(!seen.contains(&name), CL_INVALID_PROPERTY)?;
        seen.push(name);
        match name {
            CL_CONTEXT_PLATFORM => {
                object::get::<platform::Platform>(value as *mut c_void)
                    .map_err(|_| CL_INVALID_PLATFORM)?;
            }
            CL_CONTEXT_INTEROP_USER_SYNC => {
                ensure(
                    value == CL_TRUE as cl_context_properties
                        || value == CL_FALSE as cl_context_properties,
                    CL_INVALID_PROPERTY,
                )?;
            }
            _ => return Err(CL_INVALID_PROPERTY),
        }
        out.extend([name, value]);
        p = p.add(2);
    }
    out.push(0);
    Ok(out)
}

unsafe fn make(
    properties: *const cl_context_properties,
    devices: Vec<Arc<ClObject<Device>>>,
    pfn_notify: Option<ErrorCallback>,
    user_data: *mut c_void,
) -> Result<cl_context, cl_int> {
    ensure(
        !(pfn_notify.is_none() && !user_data.is_null()),
        CL_INVALID_VALUE,
    )?;
    let properties = parse_properties(properties)?;
    let ctx = object::create(Context {
        devices,
        properties,
        error_callback: pfn_notify.map(|f| (f, user_data as usize)),
        destructors: Mutex::new(Vec::new()),
        handle: OnceLock::new(),
        shared: Default::default(),
    });
    let h = object::handle(&ctx);
    let _ = ctx.handle.set(h as usize);
    Ok(h)
}

pub unsafe extern "C" fn create_context(
    properties: *const cl_context_properties,
    num_devices: cl_uint,
    devices: *const cl_device_id,
    pfn_notify: Option<ErrorCallback>,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_context {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        platform::platform();
        ensure(num_devices > 0 && !devices.is_null(), CL_INVALID_VALUE)?;
        let list = object::get_list::<Device>(num_devices, devices, CL_INVALID_VALUE)?;
        make(properties, list, pfn_notify, user_data)
    })
}

pub unsafe extern "C" fn create_context_from_type(
    properties: *const cl_context_properties,
    device_type: cl_device_type,
    pfn_notify: Option<ErrorCallback>,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_context {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        let mut count = 0;
        let mut device: cl_device_id = std::ptr::null_mut();
        // Validates the type and finds our device the way clGetDeviceIDs does.
        match crate::device::get_device_ids(
            std::ptr::null_mut(),
            device_type,
            1,
            &mut device,
            &mut count,
        ) {
            CL_SUCCESS => {}
            e => return Err(e),
        }
        make(
            properties,
            vec![object::get::<Device>(device)?],
            pfn_notify,
            user_data,
        )
    })
}

pub unsafe extern "C" fn retain_context(context: cl_context) -> cl_int {
    object::retain::<Context>(context)
}

pub unsafe extern "C" fn release_context(context: cl_context) -> cl_int {
    object::release::<Context>(context)
}

pub unsafe extern "C" fn get_context_info(
    context: cl_context,
    param_name: cl_context_info,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    let result = object::get::<Context>(context).and_then(|c| {
        Ok(match param_name {
            CL_CONTEXT_REFERENCE_COUNT => Info::value::<cl_uint>(c.ref_count()),
            CL_CONTEXT_NUM_DEVICES => Info::value::<cl_uint>(c.devices.len() as cl_uint),
            CL_CONTEXT_DEVICES => {
                let v: Vec<cl_device_id> = c.devices.iter().map(object::handle).collect();
                Info::slice(&v)
            }
            CL_CONTEXT_PROPERTIES => Info::slice(&c.properties),
            _ => return Err(CL_INVALID_VALUE),
        })
    });
    answer(result, size, value, size_ret)
}

pub unsafe extern "C" fn set_context_destructor_callback(
    context: cl_context,
    pfn_notify: Option<DestructorCallback>,
    user_data: *mut c_void,
) -> cl_int {
    status(|| {
        let c = object::get::<Context>(context)?;
        let cb = pfn_notify.ok_or(CL_INVALID_VALUE)?;
        c.destructors.lock().unwrap().push((cb, user_data as usize));
        Ok(())
    })
}
