//! Guards for the C boundary: a panic inside an entry point becomes an
//! error code, never an unwind into the application.

use opencl_sys::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs an entry point's body that returns a status code.
pub fn status(body: impl FnOnce() -> Result<(), cl_int>) -> cl_int {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => CL_SUCCESS,
        Ok(Err(e)) => e,
        Err(_) => CL_OUT_OF_HOST_MEMORY,
    }
}

/// Runs an entry point's body that returns a handle and reports its status
/// through `errcode_ret`.
///
/// # Safety
/// `errcode_ret` must be null or writable.
pub unsafe fn handle<T>(
    errcode_ret: *mut cl_int,
    null: T,
    body: impl FnOnce() -> Result<T, cl_int>,
) -> T {
    let (code, value) = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(v)) => (CL_SUCCESS, v),
        Ok(Err(e)) => (e, null),
        Err(_) => (CL_OUT_OF_HOST_MEMORY, null),
    };
    if !errcode_ret.is_null() {
        *errcode_ret = code;
    }
    value
}

/// `Err(code)` unless `cond` holds.
pub fn ensure(cond: bool, code: cl_int) -> Result<(), cl_int> {
    if cond {
        Ok(())
    } else {
        Err(code)
    }
}
