//! Small conversions at the C boundary.

use std::ffi::{c_char, CStr, CString};

/// A C string for a callback, with interior NULs dropped.
pub fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

/// Reads a NUL-terminated option string; NULL reads as empty.
///
/// # Safety
/// `p` must be null or a NUL-terminated string.
pub unsafe fn read_c_string(p: *const c_char) -> String {
    if p.is_null() {
        String::new()
    } else {
        CStr::from_ptr(p).to_string_lossy().into_owned()
    }
}
