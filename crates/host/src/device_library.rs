//! The device library's functions (`compiler::device_library`), which
//! kernels' code calls by name and the loader links to these.

use std::ffi::{c_char, CStr};
use std::io::Write;
use std::sync::Mutex;

/// The address of the device library's function `name`, if it is one.
pub fn address(name: &[u8]) -> Option<u64> {
    use compiler::device_library::ASSERT_FAIL;
    let f: AssertFail = assert_fail;
    (name == ASSERT_FAIL.as_bytes()).then_some(f as usize as u64)
}

type AssertFail =
    extern "C" fn(*const c_char, *const c_char, i32, *const c_char, u64, u64, u64, u64, u64, u64);

/// A failed SYCL `assert`: the report goes to standard error in the form
/// DPC++ documents, then the process aborts, as `assert` does on the host
/// (and as `cl_intel_devicelib_assert` asks of the runtime). Work-items
/// that fail together report one at a time; the first report is the last.
extern "C" fn assert_fail(
    expr: *const c_char,
    file: *const c_char,
    line: i32,
    func: *const c_char,
    gid0: u64,
    gid1: u64,
    gid2: u64,
    lid0: u64,
    lid1: u64,
    lid2: u64,
) {
    static REPORTING: Mutex<()> = Mutex::new(());
    let _one_at_a_time = REPORTING.lock();
    let text = |p: *const c_char, absent: &str| {
        if p.is_null() {
            absent.to_string()
        } else {
            // SAFETY: the kernel passes NUL-terminated strings (or null).
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    };
    let report = format!(
        "{}:{}: {}: global id: [{gid0},{gid1},{gid2}], local id: [{lid0},{lid1},{lid2}] \
         Assertion `{}` failed.\n",
        text(file, "<unknown file>"),
        line,
        text(func, "<unknown function>"),
        text(expr, ""),
    );
    // Nothing to do if standard error is gone: the abort still says it.
    let _ = std::io::stderr().lock().write_all(report.as_bytes());
    std::process::abort();
}
