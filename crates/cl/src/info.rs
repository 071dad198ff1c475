//! The `clGet*Info` size-query protocol, in one place: a value is written
//! only if it fits, its size is reported if asked for.

use opencl_sys::*;
use std::ffi::c_void;

/// A value an info query returns, as bytes.
pub enum Info {
    Bytes(Vec<u8>),
}

impl Info {
    pub fn string(s: &str) -> Info {
        let mut v = s.as_bytes().to_vec();
        v.push(0);
        Info::Bytes(v)
    }

    pub fn value<T: Copy>(v: T) -> Info {
        Info::slice(std::slice::from_ref(&v))
    }

    pub fn slice<T: Copy>(v: &[T]) -> Info {
        // SAFETY: any `Copy` value is readable as bytes (the types used here
        // are C integers, pointers and plain structs).
        let bytes = unsafe {
            std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v))
        };
        Info::Bytes(bytes.to_vec())
    }

    pub fn bool(b: bool) -> Info {
        Info::value::<cl_bool>(if b { CL_TRUE } else { CL_FALSE })
    }

    pub fn name_versions(items: &[(String, cl_version)]) -> Info {
        let v: Vec<cl_name_version> = items
            .iter()
            .map(|(n, ver)| {
                let mut name = [0u8; CL_NAME_VERSION_MAX_NAME_SIZE];
                for (d, s) in name
                    .iter_mut()
                    .zip(n.bytes().take(CL_NAME_VERSION_MAX_NAME_SIZE - 1))
                {
                    *d = s;
                }
                cl_name_version {
                    version: *ver,
                    name,
                }
            })
            .collect();
        Info::slice(&v)
    }

    /// Writes the value per the protocol.
    ///
    /// # Safety
    /// `value` must point to `size` writable bytes when non-null;
    /// `size_ret` must be null or writable.
    pub unsafe fn write(self, size: usize, value: *mut c_void, size_ret: *mut usize) -> cl_int {
        let Info::Bytes(bytes) = self;
        if !value.is_null() {
            if size < bytes.len() {
                return CL_INVALID_VALUE;
            }
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), value as *mut u8, bytes.len());
        }
        if !size_ret.is_null() {
            *size_ret = bytes.len();
        }
        CL_SUCCESS
    }
}

/// Answers an info query with `query` (which returns `Err(code)` for an
/// unknown parameter name).
///
/// # Safety
/// As for [`Info::write`].
pub unsafe fn answer(
    result: Result<Info, cl_int>,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    match result {
        Ok(info) => info.write(size, value, size_ret),
        Err(e) => e,
    }
}
