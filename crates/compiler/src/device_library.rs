//! Functions kernels call by name that the runtime defines, not the
//! builtins library: DPC++'s device library, whose SPIR-V imports them
//! when the device reports their extension. A kernel's code calls them as
//! external functions; the target that loads the code supplies each.

/// `cl_intel_devicelib_assert`: a SYCL `assert` that failed. Its
/// arguments: the expression, file, line and function (each a C string,
/// the function's possibly null), the global id and the local id.
pub const ASSERT_FAIL: &str = "__devicelib_assert_fail";

/// Every function of the device library.
pub const FUNCTIONS: &[&str] = &[ASSERT_FAIL];
