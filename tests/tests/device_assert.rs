//! `cl_intel_devicelib_assert`: a kernel's failed SYCL `assert` (a call of
//! `__devicelib_assert_fail`, which DPC++ imports when the device reports
//! the extension) reports the expression, file, line, function and the
//! work-item's ids on standard error and aborts the process, as `assert`
//! does on the host; a kernel whose asserts hold runs as without them.
//! The failing runs are child processes: this test binary run again.

use ferrocl_tests::*;
use std::os::unix::process::{CommandExt, ExitStatusExt};

/// As DPC++'s `assert` expands: the strings in global memory, reached by
/// generic pointers.
const SRC: &str = "
void __devicelib_assert_fail(const char *expr, const char *file, int line,
                             const char *func, ulong gid0, ulong gid1, ulong gid2,
                             ulong lid0, ulong lid1, ulong lid2);
global const char expr[] = \"in[g] >= 0\";
global const char file[] = \"check.cpp\";
global const char func[] = \"void k(int *, int *)\";
kernel void k(global const int *in, global int *out) {
    size_t g = get_global_id(0);
    if (in[g] < 0)
        __devicelib_assert_fail(expr, file, 12, func, g, get_global_id(1), 0,
                                get_local_id(0), get_local_id(1), 0);
    out[g] = in[g] * 2;
}";

const GLOBAL: usize = 256;
const LOCAL: usize = 32;
const CHILD: &str = "FERROCL_ASSERT_TEST_CHILD";

/// Builds `SRC` as OpenCL C or as SPIR-V from the Khronos translator, and
/// runs it over inputs that are negative at `failing` (if any).
fn run(spirv: bool, failing: Option<usize>) -> Vec<i32> {
    let env = Env::new();
    let (_p, k) = if spirv {
        il_kernel(&env, &spirv_from_translator(SRC, "-O2", &[]), "k")
    } else {
        env.kernel_opts(SRC, "k", "-cl-std=CL2.0")
    };
    let input: Vec<i32> = (0..GLOBAL as i32)
        .map(|i| if Some(i as usize) == failing { -1 } else { i })
        .collect();
    let a = env.buffer_from(&input);
    let out = env.buffer_from(&vec![0i32; GLOBAL]);
    env.run_with(&k, &[&a, &out], &[GLOBAL], Some(&[LOCAL]));
    env.read(&out, 0, GLOBAL)
}

/// This test run again as a child whose kernel fails its assert at
/// work-item 37: its exit status and standard error.
fn failing_child(test: &str) -> (std::process::ExitStatus, String) {
    let mut child = std::process::Command::new(std::env::current_exe().unwrap());
    child
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1");
    // SAFETY: only setrlimit, which is async-signal-safe, between fork
    // and exec: the abort leaves no core file.
    unsafe {
        child.pre_exec(|| {
            let none = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &none);
            Ok(())
        });
    }
    let out = child.output().unwrap();
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn check_report(spirv: bool, test: &str) {
    if std::env::var_os(CHILD).is_some() {
        run(spirv, Some(37));
        eprintln!("the kernel ended");
        return;
    }
    let (status, stderr) = failing_child(test);
    assert_eq!(status.signal(), Some(libc::SIGABRT), "{status:?}: {stderr}");
    let report = "check.cpp:12: void k(int *, int *): global id: [37,0,0], local id: [5,0,0] \
                  Assertion `in[g] >= 0` failed.";
    assert!(stderr.contains(report), "{stderr}");
    assert_eq!(stderr.matches("Assertion").count(), 1, "{stderr}");
    assert!(!stderr.contains("the kernel ended"), "{stderr}");
}

#[test]
fn a_failed_assert_in_opencl_c_reports_the_work_item_and_aborts() {
    check_report(
        false,
        "a_failed_assert_in_opencl_c_reports_the_work_item_and_aborts",
    );
}

#[test]
fn a_failed_assert_in_translated_spirv_reports_the_work_item_and_aborts() {
    check_report(
        true,
        "a_failed_assert_in_translated_spirv_reports_the_work_item_and_aborts",
    );
}

#[test]
fn kernels_whose_asserts_hold_compute_their_results() {
    for spirv in [false, true] {
        let got = run(spirv, None);
        let want: Vec<i32> = (0..GLOBAL as i32).map(|i| 2 * i).collect();
        assert_eq!(got, want, "from SPIR-V: {spirv}");
    }
}

#[test]
fn the_extension_is_reported() {
    let exts = device_extensions();
    assert!(
        exts.iter().any(|e| e == "cl_intel_devicelib_assert"),
        "{exts:?}"
    );
}
