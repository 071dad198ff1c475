//! `clc` as a user runs it: binaries of each kind, diagnostics in Clang's
//! format on stderr, exit status, help and version.

use std::path::PathBuf;
use std::process::{Command, Output};

fn clc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clc"))
        .args(args)
        .output()
        .expect("clc runs")
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("clc-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(name: &str, text: &str) -> String {
    let p = dir().join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

fn binary(path: &str) -> compiler::ProgramModule {
    compiler::ProgramModule::from_binary(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn an_executable_with_machine_code_for_a_local_size() {
    let src = write(
        "k.cl",
        "__kernel void k(__global int* o) { o[get_global_id(0)] = N; }",
    );
    let out = dir().join("k.bin").to_string_lossy().into_owned();
    let r = clc(&[
        "-D",
        "N=5",
        "-cl-std=CL3.0",
        "-cl-opt-disable",
        "--local-size",
        "8,2",
        "-o",
        &out,
        &src,
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let p = binary(&out);
    assert_eq!(p.kind, compiler::ModuleKind::Executable);
    assert!(p.codegen().opt_disable);
    assert_eq!(p.kernels()[0].name, "k");
    let here = compiler::Target::machine(&host::HostTarget::new());
    let spec = compiler::Specialization {
        local_size: [8, 2, 1],
        enqueued_local_size: [8, 2, 1],
        streaming: 0,
        images: [None; compiler::MAX_SPECIALIZED_IMAGES],
    };
    assert!(p.specialized_code(&here, "k", &spec).is_some());
    let generic = compiler::Specialization::GENERIC;
    assert!(p.specialized_code(&here, "k", &generic).is_some());
}

#[test]
fn a_kernel_that_requires_a_size_gets_its_code_unasked() {
    let src = write(
        "r.cl",
        "__kernel __attribute__((reqd_work_group_size(4, 2, 1))) void k(__global int* o) { o[0] = 1; }",
    );
    let out = dir().join("r.bin").to_string_lossy().into_owned();
    assert!(clc(&["-o", &out, &src]).status.success());
    let here = compiler::Target::machine(&host::HostTarget::new());
    let spec = compiler::Specialization {
        local_size: [4, 2, 1],
        enqueued_local_size: [4, 2, 1],
        streaming: 0,
        images: [None; compiler::MAX_SPECIALIZED_IMAGES],
    };
    assert!(binary(&out).specialized_code(&here, "k", &spec).is_some());
}

#[test]
fn objects_libraries_and_links_of_several_inputs() {
    let a = write("a.cl", "int helper(int x) { return x + 1; }");
    let b = write(
        "b.cl",
        "int helper(int x);\n__kernel void k(__global int* o) { o[0] = helper(1); }",
    );
    let d = dir();
    let obj = d.join("a.o.bin").to_string_lossy().into_owned();
    assert!(clc(&["-c", "-o", &obj, &a]).status.success());
    assert_eq!(binary(&obj).kind, compiler::ModuleKind::Object);
    let lib = d.join("ab.lib.bin").to_string_lossy().into_owned();
    assert!(clc(&["--create-library", "-o", &lib, &a, &b])
        .status
        .success());
    assert_eq!(binary(&lib).kind, compiler::ModuleKind::Library);
    let exe = d.join("ab.bin").to_string_lossy().into_owned();
    assert!(clc(&["-o", &exe, &a, &b]).status.success());
    assert_eq!(binary(&exe).kind, compiler::ModuleKind::Executable);
    // -c of several inputs to one file is refused.
    assert!(!clc(&["-c", "-o", &obj, &a, &b]).status.success());
}

#[test]
fn errors_are_clang_s_diagnostics_naming_the_file_and_exit_1() {
    let bad = write("bad.cl", "__kernel void k( { }");
    let r = clc(&["-o", "/dev/null", &bad]);
    assert_eq!(r.status.code(), Some(1));
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(
        err.contains(&format!("{bad}:1:")) && err.contains("error:"),
        "{err}"
    );
    let r = clc(&["-cl-no-such-option", "-o", "/dev/null", &bad]);
    assert_eq!(r.status.code(), Some(1));
}

#[test]
fn help_version_targets_and_what_can_be_emitted() {
    let help = String::from_utf8(clc(&["--help"]).stdout).unwrap();
    assert!(help.contains("--create-library") && help.contains("--target-cpu"));
    let version = String::from_utf8(clc(&["--version"]).stdout).unwrap();
    assert!(version.starts_with("clc "));
    let targets = String::from_utf8(clc(&["--list-targets"]).stdout).unwrap();
    assert!(targets.contains("x86-64-v3"));
    let src = write(
        "e.cl",
        "__kernel void k(__global float* o) { o[get_global_id(0)] *= 2.0f; }",
    );
    let ir = clc(&["--emit=llvm", "-o", "-", &src]);
    assert!(String::from_utf8_lossy(&ir.stdout).contains("define"));
    let asm = clc(&["--emit=asm", "--target-cpu", "x86-64-v3", "-o", "-", &src]);
    let asm = String::from_utf8_lossy(&asm.stdout);
    assert!(
        asm.contains("__ferrocl_wg.k") && asm.contains("ymm"),
        "{asm}"
    );
}

#[test]
fn the_cts_offline_compiler_interface() {
    let src = write("cts.cl", "__kernel void k(__global int* o) { o[0] = V; }");
    let out = dir().join("cts.bin").to_string_lossy().into_owned();
    let info = write("info.txt", "CL_DEVICE_ADDRESS_BITS=64\n");
    let r = clc(&[
        "--source",
        &src,
        "--output",
        &out,
        "--cl-device-info",
        &info,
        "--mode",
        "binary",
        "--",
        "-DV=3",
        "-cl-mad-enable",
    ]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    assert_eq!(binary(&out).options, "-DV=3 -cl-mad-enable");
}

#[test]
fn spirv_inputs_with_x_spirv() {
    let src = write(
        "s.cl",
        "__kernel void k(__global int* o) { o[get_global_id(0)] = 3; }",
    );
    let spv = dir().join("s.spv").to_string_lossy().into_owned();
    let made = Command::new("clang-22")
        .args(["--target=spirv64", "-cl-std=CL3.0", "-c", "-o", &spv, &src])
        .status()
        .expect("clang-22 runs");
    assert!(made.success());
    let out = dir().join("s.bin").to_string_lossy().into_owned();
    let r = clc(&["-x", "spirv", "-o", &out, &spv]);
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let p = binary(&out);
    assert_eq!(p.kernels()[0].name, "k");
    // OpenCL C given as SPIR-V is refused, naming why.
    let r = clc(&["-x", "spirv", "-o", &out, &src]);
    assert_eq!(r.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&r.stderr).contains("error"));
}
