//! Program objects (OpenCL 3.0 API spec, section 5.8 "Program Objects":
//! clCreateProgramWithSource, clBuildProgram, clCompileProgram,
//! clLinkProgram, clCreateProgramWithBinary, the compiler options of 5.8.6,
//! clGetProgramInfo, clGetProgramBuildInfo) and the predefined macros of the
//! OpenCL C spec (section 6.12 "Preprocessor Directives and Macros").

use ferrocl_tests::*;
use std::collections::BTreeSet;
use std::ffi::{c_char, c_void, CString};
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

const THREE_KERNELS: &str = r#"
__kernel void alpha(__global int* p) { p[get_global_id(0)] = 1; }
__kernel void beta(__global int* p, int v) { p[get_global_id(0)] = v; }
__kernel void gamma(__global float* p) { p[get_global_id(0)] *= 2.0f; }
"#;

const SYNTAX_ERROR: &str = "__kernel void broken(__global int* p) { p[0] = ; }\n";

/// Source of a kernel `k` that stores `exprs[i]` into `out[i]`.
fn value_kernel(prelude: &str, exprs: &[&str]) -> String {
    let mut s = String::from(prelude);
    s.push_str("\n__kernel void k(__global int* out) {\n");
    for (i, e) in exprs.iter().enumerate() {
        s.push_str(&format!("    out[{i}] = {e};\n"));
    }
    s.push_str("}\n");
    s
}

/// Builds `src` with `options`, runs kernel `k` once and returns `out[0..n]`.
#[track_caller]
fn run_values(e: &Env, src: &str, options: &str, n: usize) -> Vec<i32> {
    let (_p, k) = e.kernel_opts(src, "k", options);
    let out = e.buffer_from(&vec![-12345i32; n]);
    ok(set_mem(k.get(), 0, &out), "set arg");
    e.run(&k, &[1], None);
    e.read::<i32>(&out, 0, n)
}

fn bstatus(p: &Prog) -> cl_int {
    ok(
        build_info(p.get(), device(), CL_PROGRAM_BUILD_STATUS),
        "CL_PROGRAM_BUILD_STATUS",
    )
    .i32()
}

fn boptions(p: &Prog) -> String {
    ok(
        build_info(p.get(), device(), CL_PROGRAM_BUILD_OPTIONS),
        "CL_PROGRAM_BUILD_OPTIONS",
    )
    .string()
}

#[track_caller]
fn build_err(e: &Env, src: &str, options: &str) -> BuildFailure {
    match build(e.c(), src, options) {
        Ok(_) => panic!("build with options {options:?} succeeded, expected a failure"),
        Err(f) => f,
    }
}

// ---------------------------------------------------------------------------
// creation and build

#[test]
fn build_from_source_succeeds() {
    let e = Env::new();
    let p = e.program(THREE_KERNELS, "");
    assert_eq!(bstatus(&p), CL_BUILD_SUCCESS);
    assert_eq!(
        ok(
            build_info(p.get(), device(), CL_PROGRAM_BINARY_TYPE),
            "BINARY_TYPE"
        )
        .u32(),
        CL_PROGRAM_BINARY_TYPE_EXECUTABLE
    );
}

#[test]
fn build_status_before_build_is_none_with_empty_options() {
    let e = Env::new();
    let p = create_program(e.c(), THREE_KERNELS);
    assert_eq!(bstatus(&p), CL_BUILD_NONE);
    assert_eq!(boptions(&p), "");
    assert_eq!(
        ok(
            build_info(p.get(), device(), CL_PROGRAM_BINARY_TYPE),
            "BINARY_TYPE"
        )
        .u32(),
        CL_PROGRAM_BINARY_TYPE_NONE
    );
}

#[test]
fn build_with_null_device_list_builds_for_all_devices() {
    let e = Env::new();
    let p = create_program(e.c(), THREE_KERNELS);
    check(
        cl!(clBuildProgram(p.get(), 0, null(), null(), None, null_mut())),
        "clBuildProgram(NULL devices, NULL options)",
    );
    assert_eq!(bstatus(&p), CL_BUILD_SUCCESS);
}

#[test]
fn build_with_inconsistent_device_list_is_invalid_value() {
    let e = Env::new();
    let p = create_program(e.c(), THREE_KERNELS);
    let rc = cl!(clBuildProgram(p.get(), 1, null(), null(), None, null_mut()));
    assert_code(rc, CL_INVALID_VALUE, "device_list NULL, num_devices 1");
    let d = device();
    let rc = cl!(clBuildProgram(p.get(), 0, &d, null(), None, null_mut()));
    assert_code(rc, CL_INVALID_VALUE, "device_list set, num_devices 0");
}

#[test]
fn build_with_user_data_but_no_callback_is_invalid_value() {
    let e = Env::new();
    let p = create_program(e.c(), THREE_KERNELS);
    let mut x = 0u8;
    let rc = cl!(clBuildProgram(
        p.get(),
        0,
        null(),
        null(),
        None,
        (&mut x as *mut u8).cast()
    ));
    assert_code(rc, CL_INVALID_VALUE, "pfn_notify NULL, user_data set");
}

static BUILD_CALLBACKS: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn on_build_done(_p: cl_program, user_data: *mut c_void) {
    assert_eq!(user_data as usize, 0x5eed);
    BUILD_CALLBACKS.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn build_callback_is_called_once_the_build_is_complete() {
    let e = Env::new();
    let p = create_program(e.c(), THREE_KERNELS);
    let d = device();
    check(
        cl!(clBuildProgram(
            p.get(),
            1,
            &d,
            null(),
            Some(on_build_done),
            0x5eed as *mut c_void
        )),
        "clBuildProgram with callback",
    );
    let t = Instant::now();
    while BUILD_CALLBACKS.load(Ordering::SeqCst) == 0 && t.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(BUILD_CALLBACKS.load(Ordering::SeqCst), 1);
    assert_eq!(bstatus(&p), CL_BUILD_SUCCESS);
}

#[test]
fn create_program_with_zero_count_or_null_strings_is_invalid_value() {
    let e = Env::new();
    let s = CString::new(THREE_KERNELS).unwrap();
    let sp = s.as_ptr();
    let mut rc = 0;
    let p = cl!(clCreateProgramWithSource(e.c(), 0, &sp, null(), &mut rc));
    assert!(p.is_null());
    assert_code(rc, CL_INVALID_VALUE, "count 0");
    let p = cl!(clCreateProgramWithSource(e.c(), 1, null(), null(), &mut rc));
    assert!(p.is_null());
    assert_code(rc, CL_INVALID_VALUE, "strings NULL");
    let nulls: [*const c_char; 1] = [null()];
    let p = cl!(clCreateProgramWithSource(
        e.c(),
        1,
        nulls.as_ptr(),
        null(),
        &mut rc
    ));
    assert!(p.is_null());
    assert_code(rc, CL_INVALID_VALUE, "strings[0] NULL");
}

#[test]
fn program_source_is_concatenation_of_strings() {
    let e = Env::new();
    let parts = [
        "__kernel void one(__global int* p) { p[0] = 1; }\n",
        "__kernel void two(__global int* p) { p[0] = 2; }\n",
    ];
    // Raw call: cl3's create_program_with_source passes &[&str] (fat
    // pointers) as the strings array, which only works for one string.
    let cparts: Vec<CString> = parts.iter().map(|s| CString::new(*s).unwrap()).collect();
    let ptrs: Vec<*const c_char> = cparts.iter().map(|s| s.as_ptr()).collect();
    let mut rc = 0;
    // lengths NULL: every string is NUL-terminated.
    let p = cl!(clCreateProgramWithSource(
        e.c(),
        2,
        ptrs.as_ptr(),
        null(),
        &mut rc
    ));
    check(rc, "clCreateProgramWithSource(2 strings)");
    let p = Prog(p);
    let src = ok(
        program_info(p.get(), CL_PROGRAM_SOURCE),
        "CL_PROGRAM_SOURCE",
    )
    .string();
    assert_eq!(src, parts.concat());
    check(build_program(p.get(), ""), "build");
    assert_eq!(
        ok(program_info(p.get(), CL_PROGRAM_NUM_KERNELS), "NUM_KERNELS").usize(),
        2
    );
}

#[test]
fn program_source_with_explicit_lengths() {
    // Strings need not be NUL-terminated when lengths are given.
    let e = Env::new();
    let text =
        "__kernel void k(__global int* out) { out[0] = 4242; }GARBAGE-NOT-PART-OF-THE-SOURCE";
    let len = text.find("GARBAGE").unwrap();
    let sp = text.as_ptr() as *const c_char;
    let mut rc = 0;
    let p = cl!(clCreateProgramWithSource(e.c(), 1, &sp, &len, &mut rc));
    check(rc, "clCreateProgramWithSource(lengths)");
    let p = Prog(p);
    check(build_program(p.get(), ""), "build");
    assert_eq!(
        ok(program_info(p.get(), CL_PROGRAM_SOURCE), "SOURCE").string(),
        &text[..len]
    );
    let k = ok(create_kernel(p.get(), "k"), "kernel");
    let out = e.buffer(4);
    ok(set_mem(k.get(), 0, &out), "arg");
    e.run(&k, &[1], None);
    assert_eq!(e.read::<i32>(&out, 0, 1), vec![4242]);
}

#[test]
fn program_info_queries() {
    let e = Env::new();
    let p = e.program(THREE_KERNELS, "");
    assert_eq!(
        ok(program_info(p.get(), CL_PROGRAM_NUM_DEVICES), "NUM_DEVICES").u32(),
        1
    );
    assert_eq!(
        ok(program_info(p.get(), CL_PROGRAM_DEVICES), "DEVICES").usizes(),
        vec![device() as usize]
    );
    assert_eq!(
        ok(program_info(p.get(), CL_PROGRAM_CONTEXT), "CONTEXT").ptr(),
        e.c()
    );
    assert_eq!(
        ok(program_info(p.get(), CL_PROGRAM_SOURCE), "SOURCE").string(),
        THREE_KERNELS
    );
    assert_eq!(
        ok(program_info(p.get(), CL_PROGRAM_NUM_KERNELS), "NUM_KERNELS").usize(),
        3
    );
    let names = ok(
        program_info(p.get(), CL_PROGRAM_KERNEL_NAMES),
        "KERNEL_NAMES",
    )
    .string();
    let set: BTreeSet<&str> = names.split(';').collect();
    assert_eq!(
        set,
        BTreeSet::from(["alpha", "beta", "gamma"]),
        "CL_PROGRAM_KERNEL_NAMES {names:?}"
    );
}

#[test]
fn program_binary_sizes_query_works() {
    let e = Env::new();
    let p = e.program(THREE_KERNELS, "");
    let sizes = ok(
        program_info(p.get(), CL_PROGRAM_BINARY_SIZES),
        "BINARY_SIZES",
    )
    .usizes();
    assert_eq!(sizes.len(), 1);
}

#[test]
fn program_reference_count_follows_retain_and_release() {
    let e = Env::new();
    let p = create_program(e.c(), THREE_KERNELS);
    let rc = || {
        ok(
            program_info(p.get(), CL_PROGRAM_REFERENCE_COUNT),
            "REFERENCE_COUNT",
        )
        .u32()
    };
    assert_eq!(rc(), 1);
    check(cl!(clRetainProgram(p.get())), "clRetainProgram");
    assert_eq!(rc(), 2);
    check(cl!(clReleaseProgram(p.get())), "clReleaseProgram");
    assert_eq!(rc(), 1);
}

#[test]
fn kernel_queries_before_build_are_invalid_program_executable() {
    let e = Env::new();
    let p = create_program(e.c(), THREE_KERNELS);
    assert_err(
        program_info(p.get(), CL_PROGRAM_NUM_KERNELS),
        CL_INVALID_PROGRAM_EXECUTABLE,
        "NUM_KERNELS",
    );
    assert_err(
        program_info(p.get(), CL_PROGRAM_KERNEL_NAMES),
        CL_INVALID_PROGRAM_EXECUTABLE,
        "KERNEL_NAMES",
    );
}

#[test]
fn create_kernel_before_build_is_invalid_program_executable() {
    let e = Env::new();
    let p = create_program(e.c(), THREE_KERNELS);
    assert_err(
        create_kernel(p.get(), "alpha"),
        CL_INVALID_PROGRAM_EXECUTABLE,
        "clCreateKernel before build",
    );
    let mut n: cl_uint = 0;
    let rc = cl!(clCreateKernelsInProgram(p.get(), 0, null_mut(), &mut n));
    assert_code(
        rc,
        CL_INVALID_PROGRAM_EXECUTABLE,
        "clCreateKernelsInProgram before build",
    );
}

#[test]
fn syntax_error_is_build_program_failure_with_log() {
    let e = Env::new();
    let f = build_err(&e, SYNTAX_ERROR, "");
    assert_code(
        f.code,
        CL_BUILD_PROGRAM_FAILURE,
        "clBuildProgram of a syntax error",
    );
    assert!(
        f.log.contains("error"),
        "build log does not mention an error:\n{}",
        f.log
    );
    assert_eq!(bstatus(&f.program), CL_BUILD_ERROR);
}

#[test]
fn create_kernel_after_failed_build_is_invalid_program_executable() {
    let e = Env::new();
    let f = build_err(&e, SYNTAX_ERROR, "");
    assert_err(
        create_kernel(f.program.get(), "broken"),
        CL_INVALID_PROGRAM_EXECUTABLE,
        "clCreateKernel",
    );
}

#[test]
fn successful_rebuild_after_failed_build() {
    // A failed build can be followed by a successful one on a new program
    // in the same context; the context is not poisoned.
    let e = Env::new();
    let _f = build_err(&e, SYNTAX_ERROR, "");
    let p = e.program(THREE_KERNELS, "");
    assert_eq!(bstatus(&p), CL_BUILD_SUCCESS);
}

#[test]
fn build_options_are_echoed() {
    let e = Env::new();
    let opts = "-D FOO=3 -cl-mad-enable";
    let p = e.program(&value_kernel("", &["FOO"]), opts);
    assert_eq!(boptions(&p), opts);
}

#[test]
fn rebuild_with_new_options_uses_them() {
    let e = Env::new();
    let p = create_program(e.c(), &value_kernel("", &["V"]));
    for v in [1, 2] {
        check(build_program(p.get(), &format!("-D V={v}")), "build");
        let k = ok(create_kernel(p.get(), "k"), "kernel");
        let out = e.buffer(4);
        ok(set_mem(k.get(), 0, &out), "arg");
        e.run(&k, &[1], None);
        assert_eq!(e.read::<i32>(&out, 0, 1), vec![v]);
    }
}

#[test]
fn rebuild_with_attached_kernel_is_invalid_operation() {
    let e = Env::new();
    let p = e.program(THREE_KERNELS, "");
    let _k = ok(create_kernel(p.get(), "alpha"), "kernel");
    assert_code(
        build_program(p.get(), ""),
        CL_INVALID_OPERATION,
        "clBuildProgram with a kernel attached",
    );
}

// ---------------------------------------------------------------------------
// preprocessor options

#[test]
fn define_with_value_is_visible() {
    let e = Env::new();
    let got = run_values(
        &e,
        &value_kernel("", &["NAME", "SCALE"]),
        "-D NAME=17 -D SCALE=(3+4)",
        2,
    );
    assert_eq!(got, vec![17, 7]);
}

#[test]
fn define_without_value_is_one() {
    let e = Env::new();
    let src = value_kernel("#ifndef FLAG\n#error FLAG not defined\n#endif", &["FLAG"]);
    assert_eq!(run_values(&e, &src, "-D FLAG", 1), vec![1]);
}

#[test]
fn include_dir_is_searched_for_headers() {
    let e = Env::new();
    let dir = temp_dir("include");
    std::fs::write(
        dir.join("ferro_test_header.h"),
        "#define FROM_HEADER 31337\n",
    )
    .unwrap();
    let src = value_kernel("#include \"ferro_test_header.h\"", &["FROM_HEADER"]);
    let got = run_values(&e, &src, &format!("-I {}", dir.display()), 1);
    assert_eq!(got, vec![31337]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]

fn include_dir_may_be_quoted() {
    let e = Env::new();
    let dir = temp_dir("include quoted");
    std::fs::write(dir.join("q.h"), "#define QUOTED 99\n").unwrap();
    let src = value_kernel("#include \"q.h\"", &["QUOTED"]);
    let got = run_values(&e, &src, &format!("-I \"{}\"", dir.display()), 1);
    assert_eq!(got, vec![99]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn missing_include_is_build_program_failure() {
    let e = Env::new();
    let src = value_kernel("#include \"ferro_no_such_header_anywhere.h\"", &["1"]);
    let f = build_err(&e, &src, "");
    assert_code(f.code, CL_BUILD_PROGRAM_FAILURE, "missing header");
}

// ---------------------------------------------------------------------------
// OpenCL C version

#[test]
fn default_opencl_c_version_is_highest_1_x() {
    let e = Env::new();
    let got = run_values(&e, &value_kernel("", &["__OPENCL_C_VERSION__"]), "", 1);
    assert_eq!(got, vec![120]);
}

#[test]
fn cl_std_cl1_2_is_accepted() {
    let e = Env::new();
    let got = run_values(
        &e,
        &value_kernel("", &["__OPENCL_C_VERSION__", "CL_VERSION_1_2"]),
        "-cl-std=CL1.2",
        2,
    );
    assert_eq!(got, vec![120, 120]);
}

#[test]
fn cl_std_cl1_1_is_accepted() {
    let e = Env::new();
    let got = run_values(
        &e,
        &value_kernel("", &["__OPENCL_C_VERSION__"]),
        "-cl-std=CL1.1",
        1,
    );
    assert_eq!(got, vec![110]);
}

#[test]
fn cl_std_cl3_0_is_accepted() {
    let e = Env::new();
    let got = run_values(
        &e,
        &value_kernel("", &["__OPENCL_C_VERSION__", "CL_VERSION_3_0"]),
        "-cl-std=CL3.0",
        2,
    );
    assert_eq!(got, vec![300, 300]);
}

/// `-cl-std=CL2.0` builds, as PoCL and Intel's CPU runtime let it, though
/// OpenCL C 2.0 is not among CL_DEVICE_OPENCL_C_ALL_VERSIONS (no pipes, no
/// device-side enqueue): a program builds where the 2.0 features it uses
/// are offered.
#[test]
fn cl_std_cl2_0_builds_as_opencl_c_2_0() {
    let e = Env::new();
    let src = value_kernel("", &["__OPENCL_C_VERSION__"]);
    assert_eq!(run_values(&e, &src, "-cl-std=CL2.0", 1), vec![200]);
}

#[test]
fn cl_std_unknown_version_is_invalid_build_options() {
    let e = Env::new();
    for opt in ["-cl-std=CL9.9", "-cl-std=", "-cl-std=CL1.5"] {
        let f = build_err(&e, &value_kernel("", &["1"]), opt);
        assert_code(f.code, CL_INVALID_BUILD_OPTIONS, opt);
    }
}

#[test]

fn opencl_version_macro_is_defined() {
    let e = Env::new();
    let got = run_values(&e, &value_kernel("", &["__OPENCL_VERSION__"]), "", 1);
    assert!(got[0] >= 200, "__OPENCL_VERSION__ = {}", got[0]);
}

#[test]
fn endian_and_image_support_macros_match_device() {
    let e = Env::new();
    let src = value_kernel(
        "#ifdef __ENDIAN_LITTLE__\n#define EL __ENDIAN_LITTLE__\n#else\n#define EL 0\n#endif\n\
         #ifdef __IMAGE_SUPPORT__\n#define IS __IMAGE_SUPPORT__\n#else\n#define IS 0\n#endif",
        &["EL", "IS"],
    );
    let got = run_values(&e, &src, "", 2);
    let little = ok(
        device_info(device(), CL_DEVICE_ENDIAN_LITTLE),
        "ENDIAN_LITTLE",
    )
    .bool();
    let images = ok(
        device_info(device(), CL_DEVICE_IMAGE_SUPPORT),
        "IMAGE_SUPPORT",
    )
    .bool();
    assert_eq!(got, vec![little as i32, images as i32]);
}

#[test]
fn opencl_c_3_0_feature_macros_match_device_features() {
    let e = Env::new();
    let features: BTreeSet<String> = ok(
        device_info(device(), CL_DEVICE_OPENCL_C_FEATURES),
        "C_FEATURES",
    )
    .name_versions()
    .into_iter()
    .map(|(n, _)| n)
    .collect();
    let known = [
        "__opencl_c_3d_image_writes",
        "__opencl_c_atomic_order_acq_rel",
        "__opencl_c_atomic_order_seq_cst",
        "__opencl_c_atomic_scope_device",
        "__opencl_c_atomic_scope_all_devices",
        "__opencl_c_device_enqueue",
        "__opencl_c_generic_address_space",
        "__opencl_c_fp64",
        "__opencl_c_images",
        "__opencl_c_int64",
        "__opencl_c_pipes",
        "__opencl_c_program_scope_global_variables",
        "__opencl_c_read_write_images",
        "__opencl_c_subgroups",
        "__opencl_c_work_group_collective_functions",
    ];
    let mut names: Vec<&str> = known.to_vec();
    for f in &features {
        if !names.contains(&f.as_str()) {
            names.push(f);
        }
    }
    let exprs: Vec<String> = names
        .iter()
        .map(|n| format!("\n#ifdef {n}\n1\n#else\n0\n#endif\n"))
        .collect();
    let expr_refs: Vec<&str> = exprs.iter().map(String::as_str).collect();
    let got = run_values(
        &e,
        &value_kernel("", &expr_refs),
        "-cl-std=CL3.0",
        names.len(),
    );
    for (n, v) in names.iter().zip(&got) {
        assert_eq!(
            *v == 1,
            features.contains(*n),
            "macro {n} defined: {}, listed in CL_DEVICE_OPENCL_C_FEATURES: {}",
            *v == 1,
            features.contains(*n)
        );
    }
}

// ---------------------------------------------------------------------------
// warnings

const WARNING_SRC: &str = "#warning ferro_custom_warning_text\n\
    __kernel void k(__global int* out) { out[0] = 1; }\n";

#[test]
fn warning_does_not_fail_the_build() {
    let e = Env::new();
    let p = e.program(WARNING_SRC, "");
    assert_eq!(bstatus(&p), CL_BUILD_SUCCESS);
}

#[test]
fn warning_appears_in_build_log() {
    let e = Env::new();
    let p = e.program(WARNING_SRC, "");
    let log = build_log(p.get());
    assert!(
        log.contains("ferro_custom_warning_text"),
        "build log lacks the warning:\n{log}"
    );
}

#[test]
fn werror_makes_a_warning_fail_the_build() {
    let e = Env::new();
    let f = build_err(&e, WARNING_SRC, "-Werror");
    assert_code(f.code, CL_BUILD_PROGRAM_FAILURE, "-Werror with a #warning");
    assert_eq!(bstatus(&f.program), CL_BUILD_ERROR);
}

#[test]
fn w_suppresses_warnings() {
    let e = Env::new();
    let p = e.program(WARNING_SRC, "-w");
    let log = build_log(p.get());
    assert!(
        !log.contains("ferro_custom_warning_text"),
        "-w did not suppress the warning:\n{log}"
    );
}

// ---------------------------------------------------------------------------
// math, optimization and other options

const MATH_SRC: &str = r#"
__kernel void k(__global float* out, __global const float* in) {
    size_t i = get_global_id(0);
    out[i] = in[i] * 2.0f + 1.0f;
}
"#;

fn check_math_program(e: &Env, options: &str) {
    let (_p, k) = e.kernel_opts(MATH_SRC, "k", options);
    let input: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let inb = e.buffer_from(&input);
    let out = e.buffer(64 * 4);
    ok(set_mem(k.get(), 0, &out), "arg 0");
    ok(set_mem(k.get(), 1, &inb), "arg 1");
    e.run(&k, &[64], None);
    let got = e.read::<f32>(&out, 0, 64);
    for (i, v) in got.iter().enumerate() {
        assert_eq!(*v, i as f32 * 2.0 + 1.0, "options {options:?}, element {i}");
    }
}

#[test]

fn math_and_optimization_options_are_accepted() {
    let e = Env::new();
    for opt in [
        "-cl-fast-relaxed-math",
        "-cl-mad-enable",
        "-cl-finite-math-only",
        "-cl-denorms-are-zero",
        "-cl-no-signed-zeros",
        "-cl-unsafe-math-optimizations",
        "-cl-single-precision-constant",
        "-cl-opt-disable",
        "-cl-kernel-arg-info",
    ] {
        check_math_program(&e, opt);
    }
}

#[test]

fn all_math_options_together_are_accepted() {
    let e = Env::new();
    check_math_program(
        &e,
        "-cl-mad-enable -cl-finite-math-only -cl-denorms-are-zero -cl-no-signed-zeros \
         -cl-unsafe-math-optimizations -cl-single-precision-constant -cl-kernel-arg-info -w",
    );
}

#[test]
fn uniform_work_group_size_option_is_accepted_with_cl3_0() {
    let e = Env::new();
    check_math_program(&e, "-cl-std=CL3.0 -cl-uniform-work-group-size");
}

#[test]
fn correctly_rounded_divide_sqrt_follows_fp_config() {
    let e = Env::new();
    let cfg = ok(
        device_info(device(), CL_DEVICE_SINGLE_FP_CONFIG),
        "SINGLE_FP_CONFIG",
    )
    .u64();
    let opt = "-cl-fp32-correctly-rounded-divide-sqrt";
    if cfg & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT != 0 {
        check_math_program(&e, opt);
    } else {
        // "will fail to compile the program for a device if the option is
        // specified and CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT is not set".
        let f = build_err(&e, MATH_SRC, opt);
        assert!(
            f.code == CL_BUILD_PROGRAM_FAILURE || f.code == CL_INVALID_BUILD_OPTIONS,
            "got {}",
            err_name(f.code)
        );
    }
}

#[test]
fn fast_relaxed_math_defines_its_macro() {
    let e = Env::new();
    let src = value_kernel(
        "#ifdef __FAST_RELAXED_MATH__\n#define FRM __FAST_RELAXED_MATH__\n#else\n#define FRM 0\n#endif",
        &["FRM"],
    );
    assert_eq!(run_values(&e, &src, "-cl-fast-relaxed-math", 1), vec![1]);
    assert_eq!(run_values(&e, &src, "", 1), vec![0]);
}

#[test]
fn unknown_option_is_invalid_build_options() {
    let e = Env::new();
    for opt in ["-ferrocl-no-such-option", "-cl-no-such-option", "--bogus"] {
        let f = build_err(&e, THREE_KERNELS, opt);
        assert_code(f.code, CL_INVALID_BUILD_OPTIONS, opt);
    }
}

#[test]
fn options_with_extra_whitespace_are_accepted() {
    let e = Env::new();
    let got = run_values(
        &e,
        &value_kernel("", &["X"]),
        "  -D X=5   -cl-mad-enable  ",
        1,
    );
    assert_eq!(got, vec![5]);
}

// ---------------------------------------------------------------------------
// separate compilation, linking and binaries

fn compile(p: &Prog, options: &str, headers: &[(&str, &Prog)]) -> cl_int {
    let opts = CString::new(options).unwrap();
    let names: Vec<CString> = headers
        .iter()
        .map(|(n, _)| CString::new(*n).unwrap())
        .collect();
    let name_ptrs: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
    let progs: Vec<cl_program> = headers.iter().map(|(_, p)| p.get()).collect();
    let d = device();
    cl!(clCompileProgram(
        p.get(),
        1,
        &d,
        opts.as_ptr(),
        headers.len() as cl_uint,
        if headers.is_empty() {
            null()
        } else {
            progs.as_ptr()
        },
        if headers.is_empty() {
            null()
        } else {
            name_ptrs.as_ptr()
        },
        None,
        null_mut()
    ))
}

fn link(e: &Env, inputs: &[&Prog], options: &str) -> Result<Prog, cl_int> {
    let opts = CString::new(options).unwrap();
    let progs: Vec<cl_program> = inputs.iter().map(|p| p.get()).collect();
    let d = device();
    let mut rc = 0;
    let p = cl!(clLinkProgram(
        e.c(),
        1,
        &d,
        opts.as_ptr(),
        progs.len() as cl_uint,
        progs.as_ptr(),
        None,
        null_mut(),
        &mut rc
    ));
    result(rc, p).map(Prog)
}

#[test]
fn compile_then_link_produces_a_runnable_executable() {
    let e = Env::new();
    let lib = create_program(e.c(), "int helper(int x) { return x * 3 + 1; }\n");
    let main = create_program(
        e.c(),
        "int helper(int x);\n__kernel void k(__global int* out) { out[get_global_id(0)] = helper((int)get_global_id(0)); }\n",
    );
    check(compile(&lib, "", &[]), "clCompileProgram(lib)");
    check(compile(&main, "", &[]), "clCompileProgram(main)");
    for p in [&lib, &main] {
        assert_eq!(
            ok(
                build_info(p.get(), device(), CL_PROGRAM_BINARY_TYPE),
                "BINARY_TYPE"
            )
            .u32(),
            CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT
        );
    }
    let exe = ok(link(&e, &[&main, &lib], ""), "clLinkProgram");
    assert_eq!(
        ok(
            build_info(exe.get(), device(), CL_PROGRAM_BINARY_TYPE),
            "BINARY_TYPE"
        )
        .u32(),
        CL_PROGRAM_BINARY_TYPE_EXECUTABLE
    );
    let k = ok(create_kernel(exe.get(), "k"), "clCreateKernel");
    let out = e.buffer(16 * 4);
    ok(set_mem(k.get(), 0, &out), "arg");
    e.run(&k, &[16], None);
    assert_eq!(
        e.read::<i32>(&out, 0, 16),
        (0..16).map(|i| i * 3 + 1).collect::<Vec<_>>()
    );
}

#[test]

fn compile_with_embedded_header() {
    let e = Env::new();
    let header = create_program(e.c(), "#define EMBEDDED_VALUE 777\n");
    let main = create_program(
        e.c(),
        &value_kernel("#include \"inc/embedded.h\"", &["EMBEDDED_VALUE"]),
    );
    check(
        compile(&main, "", &[("inc/embedded.h", &header)]),
        "clCompileProgram with header",
    );
    let exe = ok(link(&e, &[&main], ""), "clLinkProgram");
    let k = ok(create_kernel(exe.get(), "k"), "kernel");
    let out = e.buffer(4);
    ok(set_mem(k.get(), 0, &out), "arg");
    e.run(&k, &[1], None);
    assert_eq!(e.read::<i32>(&out, 0, 1), vec![777]);
}

#[test]
fn compile_syntax_error_is_compile_program_failure() {
    let e = Env::new();
    let p = create_program(e.c(), SYNTAX_ERROR);
    assert_code(
        compile(&p, "", &[]),
        CL_COMPILE_PROGRAM_FAILURE,
        "clCompileProgram of a syntax error",
    );
    assert_eq!(bstatus(&p), CL_BUILD_ERROR);
}

#[test]
fn compile_unknown_option_is_invalid_compiler_options() {
    let e = Env::new();
    let p = create_program(e.c(), THREE_KERNELS);
    assert_code(
        compile(&p, "-ferrocl-no-such-option", &[]),
        CL_INVALID_COMPILER_OPTIONS,
        "bad compile option",
    );
}

#[test]
fn link_with_unresolved_symbol_is_link_program_failure() {
    let e = Env::new();
    let main = create_program(
        e.c(),
        "int ferro_missing_fn(int x);\n__kernel void k(__global int* out) { out[0] = ferro_missing_fn(2); }\n",
    );
    check(compile(&main, "", &[]), "compile");
    assert_err(
        link(&e, &[&main], ""),
        CL_LINK_PROGRAM_FAILURE,
        "link with an undefined function",
    );
}

#[test]
fn create_library_then_link_it() {
    let e = Env::new();
    let lib_src = create_program(e.c(), "int twice(int x) { return 2 * x; }\n");
    check(compile(&lib_src, "", &[]), "compile lib");
    let lib = ok(
        link(&e, &[&lib_src], "-create-library"),
        "link -create-library",
    );
    assert_eq!(
        ok(
            build_info(lib.get(), device(), CL_PROGRAM_BINARY_TYPE),
            "BINARY_TYPE"
        )
        .u32(),
        CL_PROGRAM_BINARY_TYPE_LIBRARY
    );
    let main = create_program(e.c(), &value_kernel("int twice(int x);", &["twice(21)"]));
    check(compile(&main, "", &[]), "compile main");
    let exe = ok(link(&e, &[&main, &lib], ""), "link exe");
    let k = ok(create_kernel(exe.get(), "k"), "kernel");
    let out = e.buffer(4);
    ok(set_mem(k.get(), 0, &out), "arg");
    e.run(&k, &[1], None);
    assert_eq!(e.read::<i32>(&out, 0, 1), vec![42]);
}

#[test]
fn program_binary_roundtrip() {
    let e = Env::new();
    let p = e.program(&value_kernel("", &["606"]), "");
    let sizes = ok(
        program_info(p.get(), CL_PROGRAM_BINARY_SIZES),
        "BINARY_SIZES",
    )
    .usizes();
    assert_eq!(sizes.len(), 1);
    assert!(sizes[0] > 0, "a built program has a binary");
    let mut bin = vec![0u8; sizes[0]];
    let mut ptrs = [bin.as_mut_ptr()];
    check(
        cl!(clGetProgramInfo(
            p.get(),
            CL_PROGRAM_BINARIES,
            std::mem::size_of_val(&ptrs),
            ptrs.as_mut_ptr().cast(),
            null_mut()
        )),
        "CL_PROGRAM_BINARIES",
    );
    let d = device();
    let len = bin.len();
    let bp = bin.as_ptr();
    let mut status = -1;
    let mut rc = 0;
    let p2 = cl!(clCreateProgramWithBinary(
        e.c(),
        1,
        &d,
        &len,
        &bp,
        &mut status,
        &mut rc
    ));
    check(rc, "clCreateProgramWithBinary");
    assert_eq!(status, CL_SUCCESS);
    let p2 = Prog(p2);
    check(build_program(p2.get(), ""), "build from binary");
    let k = ok(create_kernel(p2.get(), "k"), "kernel from binary");
    let out = e.buffer(4);
    ok(set_mem(k.get(), 0, &out), "arg");
    e.run(&k, &[1], None);
    assert_eq!(e.read::<i32>(&out, 0, 1), vec![606]);
}

#[test]
fn create_program_with_garbage_binary_is_invalid_binary() {
    let e = Env::new();
    let bin = vec![0x5Au8; 64];
    let d = device();
    let len = bin.len();
    let bp = bin.as_ptr();
    let mut status = 0;
    let mut rc = 0;
    let p = cl!(clCreateProgramWithBinary(
        e.c(),
        1,
        &d,
        &len,
        &bp,
        &mut status,
        &mut rc
    ));
    assert!(p.is_null());
    assert_code(rc, CL_INVALID_BINARY, "clCreateProgramWithBinary(garbage)");
    assert_code(status, CL_INVALID_BINARY, "binary_status");
}

#[test]
fn opencl3_create_and_build_from_source() {
    let dev = opencl3::device::Device::new(device());
    let ctx = opencl3::context::Context::from_device(&dev).unwrap();
    let p = opencl3::program::Program::create_and_build_from_source(&ctx, THREE_KERNELS, "")
        .expect("Program::create_and_build_from_source");
    let names: BTreeSet<String> = p.kernel_names().split(';').map(str::to_owned).collect();
    assert_eq!(names.len(), 3);
    let err = opencl3::program::Program::create_and_build_from_source(&ctx, SYNTAX_ERROR, "")
        .expect_err("syntax error must not build");
    assert!(err.contains("CL_BUILD_PROGRAM_FAILURE"), "{err}");
}

#[test]
fn denormals_are_kept_unless_the_program_allows_flushing() {
    // The device reports CL_FP_DENORM: a denormal product is kept; with
    // -cl-denorms-are-zero ferrocl runs the kernel with denormals flushed.
    let src = r#"
    __kernel void k(__global const float* in, __global float* out) {
        size_t i = get_global_id(0);
        out[i] = in[i] * 0.5f;
    }"#;
    let e = Env::new();
    let tiny = f32::from_bits(2);
    let input = e.buffer_from(&[tiny; 64]);
    for (options, want) in [("", f32::from_bits(1)), ("-cl-denorms-are-zero", 0.0)] {
        let (_p, k) = e.kernel_opts(src, "k", options);
        let out = e.buffer_from(&[7.0f32; 64]);
        ok(set_mem(k.get(), 0, &input), "arg 0");
        ok(set_mem(k.get(), 1, &out), "arg 1");
        e.run(&k, &[64], None);
        assert_eq!(
            e.read::<f32>(&out, 0, 64),
            vec![want; 64],
            "options {options:?}"
        );
    }
}

#[test]
fn specialization_constants_need_a_device_that_takes_il() {
    let e = Env::new();
    let p = e.program(THREE_KERNELS, "");
    let il = ok(
        device_info(e.device, CL_DEVICE_IL_VERSION),
        "CL_DEVICE_IL_VERSION",
    )
    .string();
    let value = 1u32;
    let rc = cl!(clSetProgramSpecializationConstant(
        p.get(),
        0,
        4,
        (&value as *const u32).cast()
    ));
    if il.is_empty() {
        assert_code(
            rc,
            CL_INVALID_OPERATION,
            "clSetProgramSpecializationConstant without IL",
        );
    } else {
        // A program from source has no specialization constants.
        assert_code(
            rc,
            CL_INVALID_PROGRAM,
            "clSetProgramSpecializationConstant on source",
        );
    }
}

/// An OpenCL C 2.0 program builds and runs where the 2.0 features it uses
/// are offered: generic pointers, program-scope variables, the C11
/// atomics and the work-group functions.
#[test]
fn opencl_c_2_0_programs_build_with_the_features_offered() {
    let e = Env::new();
    let src = r#"
global int bias = 3;
int twice(int* p) { return *p * 2; }
kernel void k(global int* out, global atomic_int* total) {
    int mine = (int)get_global_id(0);
    local int shared;
    if (get_local_id(0) == 0) shared = 5;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = twice(&mine) + twice(&shared) + work_group_reduce_add(1) + bias;
    atomic_fetch_add(total, 1);
}
"#;
    let (_p, k) = e.kernel_opts(src, "k", "-cl-std=CL2.0");
    let out = e.buffer_from(&[0i32; 32]);
    let total = e.buffer_from(&[0i32]);
    e.run_with(&k, &[&out, &total], &[32], Some(&[8]));
    let got = e.read::<i32>(&out, 0, 32);
    for (i, v) in got.iter().enumerate() {
        assert_eq!(*v, 2 * i as i32 + 10 + 8 + 3, "item {i}");
    }
    assert_eq!(e.read::<i32>(&total, 0, 1), [32]);
}
