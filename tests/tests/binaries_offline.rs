//! A program built from its executable binary on the CPU it was compiled
//! for runs no compiler at all: with `FERROCL_FORBID_COMPILER` set, any run
//! of Clang, the SPIR-V translator or LLVM's optimizer is an error, and the
//! kernels specialized before the binary was taken still run. One test per
//! process: the library reads the cache settings once, and the test sets
//! `FERROCL_FORBID_COMPILER` while no other thread reads the environment.

use ferrocl_tests::*;
use std::ptr::null_mut;

// No on-disk cache: only the binary can hold the machine code.
before_main!({ std::env::set_var("FERROCL_CACHE", "0") });

fn binary_of(p: &Prog) -> Vec<u8> {
    let size = ok(
        program_info(p.get(), CL_PROGRAM_BINARY_SIZES),
        "BINARY_SIZES",
    )
    .usizes()[0];
    let mut bin = vec![0u8; size];
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

fn run(e: &Env, p: &Prog, local: usize) -> Result<Vec<i32>, cl_int> {
    let k = ok(create_kernel(p.get(), "k"), "clCreateKernel");
    let out = e.buffer_from(&[0i32; 64]);
    ok(set_mem(k.get(), 0, &out), "arg");
    let q = e.q();
    let (g, l) = (64usize, local);
    let rc = cl!(clEnqueueNDRangeKernel(
        q,
        k.get(),
        1,
        std::ptr::null(),
        &g,
        &l,
        0,
        std::ptr::null(),
        null_mut()
    ));
    if rc != CL_SUCCESS {
        return Err(rc);
    }
    check(cl!(clFinish(q)), "clFinish");
    Ok(e.read::<i32>(&out, 0, 64))
}

#[test]
fn an_executable_binary_for_this_cpu_runs_without_the_compiler() {
    let e = Env::new();
    let src =
        "__kernel void k(__global int* o) { o[get_global_id(0)] = (int)get_global_id(0) * 9 + 2; }";
    let want: Vec<i32> = (0..64).map(|i| i * 9 + 2).collect();
    let bin = {
        let p = e.program(src, "");
        assert_eq!(run(&e, &p, 4).unwrap(), want);
        binary_of(&p)
    };
    // The source program and its kernels are gone: nothing is loaded.
    std::env::set_var("FERROCL_FORBID_COMPILER", "1");
    // The knob works: building from source now fails.
    let refused = build(e.c(), src, "");
    assert!(refused.is_err(), "a build from source ran the compiler");
    let d = device();
    let (len, bp) = (bin.len(), bin.as_ptr());
    let (mut status, mut rc) = (-1, -1);
    let p = Prog(cl!(clCreateProgramWithBinary(
        e.c(),
        1,
        &d,
        &len,
        &bp,
        &mut status,
        &mut rc
    )));
    check(rc, "clCreateProgramWithBinary");
    check(build_program(p.get(), ""), "clBuildProgram of the binary");
    assert_eq!(run(&e, &p, 4).unwrap(), want, "run from the binary");
    // No local size given: the one the binary holds code for is taken.
    let k = ok(create_kernel(p.get(), "k"), "clCreateKernel");
    let out = e.buffer_from(&[0i32; 64]);
    ok(set_mem(k.get(), 0, &out), "arg");
    e.run(&k, &[64], None);
    assert_eq!(
        e.read::<i32>(&out, 0, 64),
        want,
        "run with a NULL local size"
    );
    // Another local size needs code the binary does not hold.
    assert!(run(&e, &p, 8).is_err(), "compiled although forbidden");
    std::env::remove_var("FERROCL_FORBID_COMPILER");
    assert_eq!(run(&e, &p, 8).unwrap(), want, "compiled from the bitcode");
}
