//! Program binaries (`CL_PROGRAM_BINARIES`, `clCreateProgramWithBinary`):
//! every binary type round-trips, the options that shape code survive it,
//! objects and libraries link, bad binaries are refused; and the on-disk
//! cache sees a header edited under the same source and options.

use ferrocl_tests::*;
use std::ffi::{c_char, CString};
use std::path::PathBuf;
use std::ptr::{null, null_mut};
use std::sync::OnceLock;

/// What the code generator is given, as FERROCL_DUMP_DIR writes it: every
/// test's kernels, each named by its test's own values.
static DUMP_DIR: OnceLock<PathBuf> = OnceLock::new();

before_main!({
    let dir = temp_dir("binaries-dump");
    std::env::set_var("FERROCL_DUMP_DIR", &dir);
    DUMP_DIR.set(dir).unwrap();
});

/// The binary of `p` for the device.
fn binary_of(p: &Prog) -> Vec<u8> {
    let sizes = ok(
        program_info(p.get(), CL_PROGRAM_BINARY_SIZES),
        "BINARY_SIZES",
    )
    .usizes();
    assert_eq!(sizes.len(), 1);
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
    bin
}

/// `clCreateProgramWithBinary` of `bin`: the program, or the error code
/// and the device's binary status.
fn from_binary(e: &Env, bin: &[u8]) -> Result<Prog, (cl_int, cl_int)> {
    let d = device();
    let len = bin.len();
    let bp = bin.as_ptr();
    let mut status = -1;
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
    if rc == CL_SUCCESS {
        assert_eq!(status, CL_SUCCESS, "binary_status of an accepted binary");
        Ok(Prog(p))
    } else {
        assert!(p.is_null());
        Err((rc, status))
    }
}

fn compile(p: &Prog, options: &str) -> cl_int {
    let opts = CString::new(options).unwrap();
    let d = device();
    cl!(clCompileProgram(
        p.get(),
        1,
        &d,
        opts.as_ptr(),
        0,
        null(),
        null_mut::<*const c_char>(),
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

fn binary_type(p: &Prog) -> cl_program_binary_type {
    ok(
        build_info(p.get(), device(), CL_PROGRAM_BINARY_TYPE),
        "BINARY_TYPE",
    )
    .u32() as cl_program_binary_type
}

fn build_status(p: &Prog) -> cl_build_status {
    ok(
        build_info(p.get(), device(), CL_PROGRAM_BUILD_STATUS),
        "BUILD_STATUS",
    )
    .i32()
}

/// Runs kernel `k(__global int* out)` of `p` over `n` work-items.
fn run_ints(e: &Env, p: &Prog, n: usize, local: Option<&[usize]>) -> Vec<i32> {
    let k = ok(create_kernel(p.get(), "k"), "clCreateKernel");
    let out = e.buffer_from(&vec![-1i32; n]);
    ok(set_mem(k.get(), 0, &out), "set arg");
    e.run(&k, &[n], local);
    e.read::<i32>(&out, 0, n)
}

const HELPER: &str = "int helper(int x) { return x * 3 + 1; }\n";
const MAIN: &str = "int helper(int x);
__kernel void k(__global int* out) { out[get_global_id(0)] = helper((int)get_global_id(0)); }\n";

fn helper_values(n: usize) -> Vec<i32> {
    (0..n as i32).map(|i| i * 3 + 1).collect()
}

#[test]
fn a_compiled_object_binary_builds_into_an_executable() {
    let e = Env::new();
    let src =
        "__kernel void k(__global int* out) { out[get_global_id(0)] = 7 * (int)get_global_id(0); }";
    let p = create_program(e.c(), src);
    check(compile(&p, ""), "clCompileProgram");
    let bin = binary_of(&p);
    let q = from_binary(&e, &bin).expect("object binary accepted");
    assert_eq!(binary_type(&q), CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
    // An object is no executable: no kernels yet, in the compiled program
    // or the one from its binary.
    for p in [&p, &q] {
        assert_err(
            program_info(p.get(), CL_PROGRAM_NUM_KERNELS),
            CL_INVALID_PROGRAM_EXECUTABLE,
            "NUM_KERNELS of an object",
        );
        assert_err(
            create_kernel(p.get(), "k"),
            CL_INVALID_PROGRAM_EXECUTABLE,
            "clCreateKernel of an object",
        );
    }
    check(build_program(q.get(), ""), "clBuildProgram(object binary)");
    assert_eq!(binary_type(&q), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    assert_eq!(build_status(&q), CL_BUILD_SUCCESS);
    let want: Vec<i32> = (0..8).map(|i| 7 * i).collect();
    assert_eq!(run_ints(&e, &q, 8, None), want);
}

#[test]
fn a_library_binary_builds_and_links_with_objects_and_sources() {
    let e = Env::new();
    let helper = create_program(e.c(), HELPER);
    check(compile(&helper, ""), "compile helper");
    let lib = link(&e, &[&helper], "-create-library").expect("library");
    assert_eq!(binary_type(&lib), CL_PROGRAM_BINARY_TYPE_LIBRARY);
    let lib_bin = binary_of(&lib);
    let lib2 = from_binary(&e, &lib_bin).expect("library binary accepted");
    assert_eq!(binary_type(&lib2), CL_PROGRAM_BINARY_TYPE_LIBRARY);

    // A library binary with an object compiled from source.
    let main = create_program(e.c(), MAIN);
    check(compile(&main, ""), "compile main");
    let exe = link(&e, &[&main, &lib2], "").expect("link object + library binary");
    assert_eq!(binary_type(&exe), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    assert_eq!(run_ints(&e, &exe, 16, None), helper_values(16));

    // An object binary with a library binary.
    let main_bin = binary_of(&main);
    let main2 = from_binary(&e, &main_bin).expect("object binary");
    let exe = link(&e, &[&main2, &lib2], "").expect("link two binaries");
    assert_eq!(run_ints(&e, &exe, 16, None), helper_values(16));

    // A library binary that defines a kernel builds alone.
    let whole = create_program(e.c(), &format!("{HELPER}{MAIN}"));
    check(compile(&whole, ""), "compile whole");
    let whole_lib = link(&e, &[&whole], "-create-library").expect("library");
    let q = from_binary(&e, &binary_of(&whole_lib)).expect("library binary");
    check(build_program(q.get(), ""), "clBuildProgram(library binary)");
    assert_eq!(binary_type(&q), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    assert_eq!(run_ints(&e, &q, 4, None), helper_values(4));
}

#[test]
fn an_executable_binary_round_trips_with_its_queries() {
    let e = Env::new();
    let src = "#warning the original build's
__kernel __attribute__((reqd_work_group_size(4, 1, 1)))
void k(__global int* out) { out[get_global_id(0)] = 100 + (int)get_global_id(0); }
__kernel void other(__global const float* restrict a, __local int* l, float4 v) { }";
    let p = e.program(src, "-cl-kernel-arg-info");
    let q = from_binary(&e, &binary_of(&p)).expect("accepted");
    assert_eq!(binary_type(&q), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    // Before its build: no executable yet.
    assert_eq!(build_status(&q), CL_BUILD_NONE);
    check(build_program(q.get(), "-cl-mad-enable"), "build");
    assert_eq!(build_status(&q), CL_BUILD_SUCCESS);
    // The build of the binary compiled nothing: no log of its own.
    assert!(build_log(p.get()).contains("original build"));
    assert_eq!(build_log(q.get()), "");
    let options = ok(
        build_info(q.get(), device(), CL_PROGRAM_BUILD_OPTIONS),
        "BUILD_OPTIONS",
    );
    assert_eq!(options.string(), "-cl-mad-enable");
    assert_eq!(
        ok(program_info(q.get(), CL_PROGRAM_KERNEL_NAMES), "names").string(),
        "k;other"
    );
    assert_eq!(
        ok(program_info(q.get(), CL_PROGRAM_NUM_KERNELS), "count").usize(),
        2
    );
    let want: Vec<i32> = (0..8).map(|i| 100 + i).collect();
    assert_eq!(run_ints(&e, &q, 8, Some(&[4])), want);
    let k = ok(create_kernel(q.get(), "other"), "other");
    let name = ok(kernel_arg_info(k.get(), 0, CL_KERNEL_ARG_NAME), "arg name").string();
    assert_eq!(name, "a");
    let qual = ok(
        kernel_arg_info(k.get(), 0, CL_KERNEL_ARG_TYPE_QUALIFIER),
        "type qualifier",
    )
    .u64();
    assert_ne!(qual & u64::from(CL_KERNEL_ARG_TYPE_RESTRICT), 0);
    let k = ok(create_kernel(q.get(), "k"), "k");
    let reqd = ok(
        kernel_wg_info(k.get(), device(), CL_KERNEL_COMPILE_WORK_GROUP_SIZE),
        "reqd",
    )
    .usizes();
    assert_eq!(reqd, [4, 1, 1]);
}

/// Bits of the float `a * b` computes on the device, `a` a denormal.
fn denormal_product(e: &Env, p: &Prog) -> u32 {
    let k = ok(create_kernel(p.get(), "k"), "kernel");
    let input = e.buffer_from(&[f32::from_bits(0x0000_1000), 3.0f32]);
    let out = e.buffer_from(&[0u32]);
    ok(set_mem(k.get(), 0, &input), "arg 0");
    ok(set_mem(k.get(), 1, &out), "arg 1");
    e.run(&k, &[1], None);
    e.read::<u32>(&out, 0, 1)[0]
}

#[test]
fn denormals_are_zero_survives_a_binary() {
    let e = Env::new();
    let src = "__kernel void k(__global const float* in, __global float* out) {
    out[0] = in[0] * in[1] + 0.0f; }";
    let p = e.program(src, "-cl-denorms-are-zero");
    assert_eq!(
        denormal_product(&e, &p),
        0,
        "flushed when built from source"
    );
    let q = from_binary(&e, &binary_of(&p)).expect("accepted");
    check(build_program(q.get(), ""), "build from binary");
    assert_eq!(
        denormal_product(&e, &q),
        0,
        "flushed when built from its binary"
    );
    let plain = e.program(src, "");
    assert_eq!(
        denormal_product(&e, &plain),
        0x3000,
        "kept without the option"
    );
}

#[test]
fn opt_disable_survives_a_binary() {
    let dir = DUMP_DIR.get().unwrap();
    let e = Env::new();
    // A kernel of this run alone, so no cache holds its code.
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as i32
        & 0xffff;
    let src = format!(
        "__kernel void k(__global int* out) {{ int x = (int)get_global_id(0); out[x] = x * 4111 + {nonce}; }}"
    );
    let p = e.program(&src, "-cl-opt-disable");
    let q = from_binary(&e, &binary_of(&p)).expect("accepted");
    drop(p);
    check(build_program(q.get(), ""), "build from binary");
    let out = run_ints(&e, &q, 4, Some(&[2]));
    assert_eq!(out, [0, 4111, 8222, 12333].map(|v| v + nonce));
    let dumped: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|f| f.path())
        .filter(|f| {
            f.to_string_lossy().ends_with(".ll") && !f.to_string_lossy().contains("before-opt")
        })
        .map(|f| std::fs::read_to_string(f).unwrap())
        // Other tests of this process may be compiling meanwhile.
        .filter(|ir| ir.contains(&format!(", {nonce}")))
        .collect();
    assert_eq!(dumped.len(), 1, "the kernel was compiled once");
    // The optimizer infers attributes of the work-group function.
    assert!(
        !dumped[0].contains("local_unnamed_addr"),
        "optimized although -cl-opt-disable"
    );
}

#[test]
fn an_edited_header_is_seen_by_the_next_build() {
    let dir = std::env::temp_dir().join(format!(
        "ferrocl-binaries-header-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let header = dir.join("value.h");
    let src = "#include \"value.h\"\n__kernel void k(__global int* out) { out[get_global_id(0)] = VALUE; }";
    let options = format!("-I {}", dir.display());
    let e = Env::new();
    for value in [11, 12, 13] {
        std::fs::write(&header, format!("#define VALUE {value}\n")).unwrap();
        let p = e.program(src, &options);
        assert_eq!(run_ints(&e, &p, 2, None), [value, value]);
    }
    // A header that includes another: the inner one is read too.
    std::fs::write(&header, "#include \"inner.h\"\n").unwrap();
    for value in [21, 22] {
        std::fs::write(dir.join("inner.h"), format!("#define VALUE {value}\n")).unwrap();
        let p = e.program(src, &options);
        assert_eq!(run_ints(&e, &p, 2, None), [value, value]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_binaries_are_refused_with_the_device_status() {
    let e = Env::new();
    let p = e.program(
        "__kernel void k(__global int* out) { out[get_global_id(0)] = 5; }",
        "",
    );
    let good = binary_of(&p);
    assert!(from_binary(&e, &good).is_ok());
    // Truncated anywhere.
    for len in [0usize, 1, 4, 16, 64, good.len() / 2, good.len() - 1] {
        if len == 0 {
            continue; // a zero length is CL_INVALID_VALUE
        }
        let r = from_binary(&e, &good[..len]);
        assert_eq!(
            r.err(),
            Some((CL_INVALID_BINARY, CL_INVALID_BINARY)),
            "truncated to {len}"
        );
    }
    // Another format version (the word after the notes' magic), another
    // machine (the ELF header's e_machine: AArch64).
    let magic = b"ferrocl program binary";
    let at = good
        .windows(magic.len())
        .position(|w| w == magic)
        .expect("the notes' magic")
        + magic.len();
    let mut other_version = good.clone();
    other_version[at] = other_version[at].wrapping_add(1);
    let mut other_machine = good.clone();
    other_machine[18..20].copy_from_slice(&183u16.to_le_bytes());
    for (what, bad) in [("version", other_version), ("machine", other_machine)] {
        assert_eq!(
            from_binary(&e, &bad).err(),
            Some((CL_INVALID_BINARY, CL_INVALID_BINARY)),
            "another {what}"
        );
    }
    // A flipped byte anywhere.
    let step = (good.len() / 97).max(1);
    for at in (0..good.len()).step_by(step) {
        let mut bad = good.clone();
        bad[at] ^= 0x20;
        if let Ok(q) = from_binary(&e, &bad) {
            // A byte no reader looks at (ELF padding): still the same program.
            check(build_program(q.get(), ""), "build");
            assert_eq!(run_ints(&e, &q, 2, None), [5, 5], "flipped at {at}");
        } else {
            assert_eq!(
                from_binary(&e, &bad).err(),
                Some((CL_INVALID_BINARY, CL_INVALID_BINARY))
            );
        }
    }
}
