//! Kernel objects (OpenCL 3.0 API spec, section 5.9 "Kernel Objects":
//! clCreateKernel, clCreateKernelsInProgram, clSetKernelArg, clCloneKernel,
//! clGetKernelInfo, clGetKernelWorkGroupInfo, clGetKernelArgInfo) and
//! argument passing through clEnqueueNDRangeKernel (section 5.10).

use ferrocl_tests::*;
use std::collections::BTreeSet;
use std::ffi::c_void;
use std::ptr::{null, null_mut};

const FILL_SRC: &str = r#"
__kernel void fillv(__global int* out, int v) { out[get_global_id(0)] = v; }
"#;

const MULTI_SRC: &str = r#"
__kernel void first(__global int* p) { p[0] = 1; }
__kernel void second(__global int* p) { p[0] = 2; }
__kernel void third(__global int* p) { p[0] = 3; }
"#;

const REQD_SRC: &str = r#"
__kernel __attribute__((reqd_work_group_size(4,1,1)))
void reqd(__global int* p) { p[get_global_id(0)] = (int)get_local_size(0); }
__kernel void plain(__global int* p) { p[get_global_id(0)] = 0; }
"#;

const ARG_INFO_SRC: &str = r#"
__kernel void info(__global const float* restrict a,
                   __global volatile int* b,
                   __local float* scratch,
                   __constant float* c,
                   int n,
                   float4 v,
                   unsigned int u,
                   __global uint* pu)
{
    size_t i = get_global_id(0);
    scratch[0] = a[i];
    b[i] = n + (int)c[0] + (int)v.x + (int)u + (int)pu[0] + (int)scratch[0];
}
"#;

const NULL_ARG_SRC: &str = r#"
__kernel void isnull(__global int* p, __global int* out) { out[0] = (p == 0) ? 1 : 0; }
"#;

fn kinfo(k: &Kern, name: cl_kernel_info) -> Info {
    ok(kernel_info(k.get(), name), "clGetKernelInfo")
}

fn wg(k: &Kern, name: cl_kernel_work_group_info) -> Info {
    ok(
        kernel_wg_info(k.get(), device(), name),
        "clGetKernelWorkGroupInfo",
    )
}

fn fill_with(e: &Env, k: &Kern, out: &Mem, n: usize) -> Vec<i32> {
    ok(set_mem(k.get(), 0, out), "set out");
    e.run(k, &[n], None);
    e.read::<i32>(out, 0, n)
}

// ---------------------------------------------------------------------------
// creation

#[test]
fn create_kernel_by_name() {
    let e = Env::new();
    let p = e.program(MULTI_SRC, "");
    let k = ok(create_kernel(p.get(), "second"), "clCreateKernel");
    assert_eq!(kinfo(&k, CL_KERNEL_FUNCTION_NAME).string(), "second");
}

#[test]
fn create_kernel_with_unknown_name_is_invalid_kernel_name() {
    let e = Env::new();
    let p = e.program(MULTI_SRC, "");
    assert_err(
        create_kernel(p.get(), "fourth"),
        CL_INVALID_KERNEL_NAME,
        "clCreateKernel(\"fourth\")",
    );
    assert_err(
        create_kernel(p.get(), ""),
        CL_INVALID_KERNEL_NAME,
        "clCreateKernel(\"\")",
    );
}

#[test]
fn create_kernel_with_null_name_is_invalid_value() {
    let e = Env::new();
    let p = e.program(MULTI_SRC, "");
    let mut rc = 0;
    let k = cl!(clCreateKernel(p.get(), null(), &mut rc));
    assert!(k.is_null());
    assert_code(rc, CL_INVALID_VALUE, "clCreateKernel(NULL name)");
}

#[test]
fn create_kernels_in_program_count_and_names() {
    let e = Env::new();
    let p = e.program(MULTI_SRC, "");
    let mut n: cl_uint = 0;
    check(
        cl!(clCreateKernelsInProgram(p.get(), 0, null_mut(), &mut n)),
        "count",
    );
    assert_eq!(n, 3);
    let mut ks = vec![null_mut(); 3];
    let mut n2: cl_uint = 0;
    check(
        cl!(clCreateKernelsInProgram(
            p.get(),
            3,
            ks.as_mut_ptr(),
            &mut n2
        )),
        "create all",
    );
    assert_eq!(n2, 3);
    let ks: Vec<Kern> = ks.into_iter().map(Kern).collect();
    let names: BTreeSet<String> = ks
        .iter()
        .map(|k| kinfo(k, CL_KERNEL_FUNCTION_NAME).string())
        .collect();
    assert_eq!(
        names,
        ["first", "second", "third"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    );
}

#[test]
fn create_kernels_in_program_with_short_array_is_invalid_value() {
    let e = Env::new();
    let p = e.program(MULTI_SRC, "");
    let mut ks = [null_mut(); 1];
    let rc = cl!(clCreateKernelsInProgram(
        p.get(),
        1,
        ks.as_mut_ptr(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_VALUE, "num_kernels 1 < 3 kernels");
}

#[test]
fn created_kernels_run() {
    let e = Env::new();
    let p = e.program(MULTI_SRC, "");
    for (name, v) in [("first", 1), ("second", 2), ("third", 3)] {
        let k = ok(create_kernel(p.get(), name), name);
        let out = e.buffer(4);
        assert_eq!(fill_with(&e, &k, &out, 1), vec![v]);
    }
}

// ---------------------------------------------------------------------------
// clone

#[test]
fn clone_kernel_copies_argument_values() {
    let e = Env::new();
    let (_p, k) = e.kernel(FILL_SRC, "fillv");
    let a = e.buffer(16 * 4);
    ok(set_mem(k.get(), 0, &a), "arg 0");
    ok(set_arg(k.get(), 1, &7i32), "arg 1");
    let c = Kern(ok(cl3::kernel::clone_kernel(k.get()), "clCloneKernel"));
    e.run(&c, &[16], None);
    assert_eq!(e.read::<i32>(&a, 0, 16), vec![7; 16]);
    assert_eq!(kinfo(&c, CL_KERNEL_FUNCTION_NAME).string(), "fillv");
    assert_eq!(kinfo(&c, CL_KERNEL_NUM_ARGS).u32(), 2);
}

#[test]
fn cloned_kernel_is_independent_afterwards() {
    let e = Env::new();
    let (_p, k) = e.kernel(FILL_SRC, "fillv");
    let a = e.buffer(16 * 4);
    let b = e.buffer(16 * 4);
    ok(set_mem(k.get(), 0, &a), "arg 0");
    ok(set_arg(k.get(), 1, &7i32), "arg 1");
    let c = Kern(ok(cl3::kernel::clone_kernel(k.get()), "clCloneKernel"));
    ok(set_mem(c.get(), 0, &b), "clone arg 0");
    ok(set_arg(c.get(), 1, &9i32), "clone arg 1");
    e.run(&k, &[16], None);
    assert_eq!(
        e.read::<i32>(&a, 0, 16),
        vec![7; 16],
        "original keeps its arguments"
    );
    ok(set_arg(k.get(), 1, &11i32), "original arg 1");
    e.run(&c, &[16], None);
    assert_eq!(
        e.read::<i32>(&b, 0, 16),
        vec![9; 16],
        "clone keeps its own arguments"
    );
    assert_eq!(kinfo(&c, CL_KERNEL_REFERENCE_COUNT).u32(), 1);
}

// ---------------------------------------------------------------------------
// kernel info

#[test]
fn kernel_info_queries() {
    let e = Env::new();
    let (p, k) = e.kernel(FILL_SRC, "fillv");
    assert_eq!(kinfo(&k, CL_KERNEL_FUNCTION_NAME).string(), "fillv");
    assert_eq!(kinfo(&k, CL_KERNEL_NUM_ARGS).u32(), 2);
    assert_eq!(kinfo(&k, CL_KERNEL_CONTEXT).ptr(), e.c());
    assert_eq!(kinfo(&k, CL_KERNEL_PROGRAM).ptr(), p.get());
}

#[test]
fn kernel_reference_count_follows_retain_and_release() {
    let e = Env::new();
    let (_p, k) = e.kernel(FILL_SRC, "fillv");
    assert_eq!(kinfo(&k, CL_KERNEL_REFERENCE_COUNT).u32(), 1);
    check(cl!(clRetainKernel(k.get())), "clRetainKernel");
    assert_eq!(kinfo(&k, CL_KERNEL_REFERENCE_COUNT).u32(), 2);
    check(cl!(clReleaseKernel(k.get())), "clReleaseKernel");
    assert_eq!(kinfo(&k, CL_KERNEL_REFERENCE_COUNT).u32(), 1);
}

#[test]
fn kernel_attributes_report_reqd_work_group_size() {
    let e = Env::new();
    let (_p, k) = e.kernel(REQD_SRC, "reqd");
    let attrs = kinfo(&k, CL_KERNEL_ATTRIBUTES).string();
    assert!(
        attrs.contains("reqd_work_group_size(4,1,1)"),
        "CL_KERNEL_ATTRIBUTES {attrs:?}"
    );
}

#[test]
fn kernel_attributes_empty_without_attributes() {
    let e = Env::new();
    let (_p, k) = e.kernel(REQD_SRC, "plain");
    assert_eq!(kinfo(&k, CL_KERNEL_ATTRIBUTES).string(), "");
}

#[test]
fn kernel_info_unknown_param_is_invalid_value() {
    let e = Env::new();
    let (_p, k) = e.kernel(FILL_SRC, "fillv");
    let mut buf = [0u8; 64];
    let rc = cl!(clGetKernelInfo(
        k.get(),
        0x7777,
        64,
        buf.as_mut_ptr().cast(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_VALUE, "clGetKernelInfo(0x7777)");
    let rc = cl!(clGetKernelInfo(
        k.get(),
        CL_KERNEL_NUM_ARGS,
        2,
        buf.as_mut_ptr().cast(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_VALUE, "CL_KERNEL_NUM_ARGS into 2 bytes");
}

// ---------------------------------------------------------------------------
// argument info

fn arg_info_kernel(e: &Env, options: &str) -> (Prog, Kern) {
    e.kernel_opts(ARG_INFO_SRC, "info", options)
}

#[test]
fn arg_address_qualifiers() {
    let e = Env::new();
    let (_p, k) = arg_info_kernel(&e, "-cl-kernel-arg-info");
    let want = [
        CL_KERNEL_ARG_ADDRESS_GLOBAL,
        CL_KERNEL_ARG_ADDRESS_GLOBAL,
        CL_KERNEL_ARG_ADDRESS_LOCAL,
        CL_KERNEL_ARG_ADDRESS_CONSTANT,
        CL_KERNEL_ARG_ADDRESS_PRIVATE,
        CL_KERNEL_ARG_ADDRESS_PRIVATE,
        CL_KERNEL_ARG_ADDRESS_PRIVATE,
        CL_KERNEL_ARG_ADDRESS_GLOBAL,
    ];
    for (i, w) in want.iter().enumerate() {
        let got = ok(
            kernel_arg_info(k.get(), i as u32, CL_KERNEL_ARG_ADDRESS_QUALIFIER),
            "ADDRESS_QUALIFIER",
        )
        .u32();
        assert_eq!(got, *w, "arg {i}");
    }
}

#[test]
fn arg_access_qualifiers_are_none_for_non_images() {
    let e = Env::new();
    let (_p, k) = arg_info_kernel(&e, "-cl-kernel-arg-info");
    for i in 0..8 {
        let got = ok(
            kernel_arg_info(k.get(), i, CL_KERNEL_ARG_ACCESS_QUALIFIER),
            "ACCESS_QUALIFIER",
        )
        .u32();
        assert_eq!(got, CL_KERNEL_ARG_ACCESS_NONE, "arg {i}");
    }
}

#[test]
fn arg_type_names() {
    let e = Env::new();
    let (_p, k) = arg_info_kernel(&e, "-cl-kernel-arg-info");
    let want = [
        "float*", "int*", "float*", "float*", "int", "float4", "uint", "uint*",
    ];
    for (i, w) in want.iter().enumerate() {
        let got = ok(
            kernel_arg_info(k.get(), i as u32, CL_KERNEL_ARG_TYPE_NAME),
            "TYPE_NAME",
        )
        .string();
        assert_eq!(got, *w, "arg {i}");
    }
}

#[test]
fn arg_type_qualifiers() {
    let e = Env::new();
    let (_p, k) = arg_info_kernel(&e, "-cl-kernel-arg-info");
    let want = [
        CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_RESTRICT,
        CL_KERNEL_ARG_TYPE_VOLATILE,
        CL_KERNEL_ARG_TYPE_NONE,
        CL_KERNEL_ARG_TYPE_CONST, // __constant address space
        CL_KERNEL_ARG_TYPE_NONE,
        CL_KERNEL_ARG_TYPE_NONE,
        CL_KERNEL_ARG_TYPE_NONE,
        CL_KERNEL_ARG_TYPE_NONE,
    ];
    for (i, w) in want.iter().enumerate() {
        let got = ok(
            kernel_arg_info(k.get(), i as u32, CL_KERNEL_ARG_TYPE_QUALIFIER),
            "TYPE_QUALIFIER",
        )
        .u64();
        assert_eq!(got, u64::from(*w), "arg {i}");
    }
}

#[test]
fn arg_names() {
    let e = Env::new();
    let (_p, k) = arg_info_kernel(&e, "-cl-kernel-arg-info");
    let want = ["a", "b", "scratch", "c", "n", "v", "u", "pu"];
    for (i, w) in want.iter().enumerate() {
        let got = ok(
            kernel_arg_info(k.get(), i as u32, CL_KERNEL_ARG_NAME),
            "ARG_NAME",
        )
        .string();
        assert_eq!(got, *w, "arg {i}");
    }
}

#[test]
fn arg_info_index_out_of_range_is_invalid_arg_index() {
    let e = Env::new();
    let (_p, k) = arg_info_kernel(&e, "-cl-kernel-arg-info");
    assert_err(
        kernel_arg_info(k.get(), 8, CL_KERNEL_ARG_NAME),
        CL_INVALID_ARG_INDEX,
        "arg 8 of 8",
    );
}

#[test]
fn arg_info_without_kernel_arg_info_option_is_not_available() {
    let e = Env::new();
    let (_p, k) = arg_info_kernel(&e, "");
    for q in [
        CL_KERNEL_ARG_ADDRESS_QUALIFIER,
        CL_KERNEL_ARG_ACCESS_QUALIFIER,
        CL_KERNEL_ARG_TYPE_NAME,
        CL_KERNEL_ARG_TYPE_QUALIFIER,
        CL_KERNEL_ARG_NAME,
    ] {
        assert_err(
            kernel_arg_info(k.get(), 0, q),
            CL_KERNEL_ARG_INFO_NOT_AVAILABLE,
            &format!("clGetKernelArgInfo({q:#x}) without -cl-kernel-arg-info"),
        );
    }
}

// ---------------------------------------------------------------------------
// clSetKernelArg errors

#[test]
fn set_arg_bad_index_is_invalid_arg_index() {
    let e = Env::new();
    let (_p, k) = e.kernel(FILL_SRC, "fillv");
    assert_err(
        set_arg(k.get(), 2, &1i32),
        CL_INVALID_ARG_INDEX,
        "arg 2 of 2",
    );
    assert_err(
        set_arg(k.get(), 1000, &1i32),
        CL_INVALID_ARG_INDEX,
        "arg 1000",
    );
}

#[test]
fn set_arg_wrong_scalar_size_is_invalid_arg_size() {
    let e = Env::new();
    let (_p, k) = e.kernel(FILL_SRC, "fillv");
    assert_err(
        set_arg(k.get(), 1, &1i64),
        CL_INVALID_ARG_SIZE,
        "int arg given 8 bytes",
    );
    assert_err(
        set_arg(k.get(), 1, &1i16),
        CL_INVALID_ARG_SIZE,
        "int arg given 2 bytes",
    );
}

#[test]
fn set_arg_null_value_for_scalar_is_invalid_arg_value() {
    let e = Env::new();
    let (_p, k) = e.kernel(FILL_SRC, "fillv");
    let rc = cl!(clSetKernelArg(k.get(), 1, 4, null()));
    assert_code(rc, CL_INVALID_ARG_VALUE, "int arg with NULL arg_value");
}

#[test]
fn set_arg_buffer_with_wrong_size_is_invalid_arg_size() {
    let e = Env::new();
    let (_p, k) = e.kernel(FILL_SRC, "fillv");
    let m = e.buffer(64);
    let rc = cl!(clSetKernelArg(
        k.get(),
        0,
        4,
        (&m.0 as *const cl_mem).cast()
    ));
    assert_code(rc, CL_INVALID_ARG_SIZE, "buffer arg with arg_size 4");
}

#[test]
fn set_arg_non_mem_object_for_buffer_is_invalid_mem_object() {
    let e = Env::new();
    let (_p, k) = e.kernel(FILL_SRC, "fillv");
    // A valid OpenCL object of the wrong type where a cl_mem is expected.
    let not_mem: cl_context = e.c();
    assert_err(
        set_arg(k.get(), 0, &not_mem),
        CL_INVALID_MEM_OBJECT,
        "context handle as a buffer",
    );
    let not_mem2: cl_command_queue = e.q();
    assert_err(
        set_arg(k.get(), 0, &not_mem2),
        CL_INVALID_MEM_OBJECT,
        "queue handle as a buffer",
    );
}

#[test]
fn set_arg_local_with_value_is_invalid_arg_value() {
    let e = Env::new();
    let (_p, k) = arg_info_kernel(&e, "");
    let v = 0f32;
    let rc = cl!(clSetKernelArg(k.get(), 2, 4, (&v as *const f32).cast()));
    assert_code(
        rc,
        CL_INVALID_ARG_VALUE,
        "__local arg with non-NULL arg_value",
    );
}

#[test]
fn set_arg_local_with_zero_size_is_invalid_arg_size() {
    // OpenCL 3.0 (the rule was lifted only in 3.1).
    let e = Env::new();
    let (_p, k) = arg_info_kernel(&e, "");
    assert_err(
        set_local(k.get(), 2, 0),
        CL_INVALID_ARG_SIZE,
        "__local arg of size 0",
    );
}

#[test]
fn failed_set_arg_keeps_the_previous_value() {
    // "the internal state of kernel may only be modified when that error code
    // is CL_OUT_OF_RESOURCES or CL_OUT_OF_HOST_MEMORY".
    let e = Env::new();
    let (_p, k) = e.kernel(FILL_SRC, "fillv");
    ok(set_arg(k.get(), 1, &5i32), "arg 1");
    assert_err(
        set_arg(k.get(), 1, &6i64),
        CL_INVALID_ARG_SIZE,
        "wrong size",
    );
    let out = e.buffer(4 * 4);
    assert_eq!(fill_with(&e, &k, &out, 4), vec![5; 4]);
}

#[test]
fn null_buffer_is_allowed_for_global_pointer_args() {
    let e = Env::new();
    let (_p, k) = e.kernel(NULL_ARG_SRC, "isnull");
    let out = e.buffer_from(&[7i32]);
    ok(set_mem(k.get(), 1, &out), "arg 1");

    // arg_value NULL.
    check(
        cl!(clSetKernelArg(
            k.get(),
            0,
            std::mem::size_of::<cl_mem>(),
            null()
        )),
        "arg_value NULL",
    );
    e.run(&k, &[1], None);
    assert_eq!(
        e.read::<i32>(&out, 0, 1),
        vec![1],
        "kernel must see NULL (arg_value NULL)"
    );

    // A real buffer: not NULL.
    let m = e.buffer(16);
    ok(set_mem(k.get(), 0, &m), "real buffer");
    e.run(&k, &[1], None);
    assert_eq!(
        e.read::<i32>(&out, 0, 1),
        vec![0],
        "kernel must see a non-NULL pointer"
    );

    // arg_value pointing to a NULL cl_mem.
    let null_mem: cl_mem = null_mut();
    ok(set_arg(k.get(), 0, &null_mem), "pointer to NULL cl_mem");
    e.run(&k, &[1], None);
    assert_eq!(
        e.read::<i32>(&out, 0, 1),
        vec![1],
        "kernel must see NULL (points to NULL)"
    );
}

#[test]
fn enqueue_with_unset_arg_is_invalid_kernel_args() {
    let e = Env::new();
    let (_p, k) = e.kernel(FILL_SRC, "fillv");
    let out = e.buffer(16);
    ok(set_mem(k.get(), 0, &out), "arg 0 only");
    assert_code(
        e.enqueue(&k, None, &[4], None),
        CL_INVALID_KERNEL_ARGS,
        "arg 1 never set",
    );
}

#[test]
fn enqueue_task_with_unset_arg_is_invalid_kernel_args() {
    let e = Env::new();
    let (_p, k) = e.kernel(FILL_SRC, "fillv");
    let rc = cl!(clEnqueueTask(e.q(), k.get(), 0, null(), null_mut()));
    assert_code(rc, CL_INVALID_KERNEL_ARGS, "clEnqueueTask with no args set");
}

// ---------------------------------------------------------------------------
// work-group info

#[test]
fn work_group_size_is_within_device_max() {
    let e = Env::new();
    let (_p, k) = e.kernel(FILL_SRC, "fillv");
    let s = wg(&k, CL_KERNEL_WORK_GROUP_SIZE).usize();
    let max = ok(
        device_info(device(), CL_DEVICE_MAX_WORK_GROUP_SIZE),
        "MAX_WORK_GROUP_SIZE",
    )
    .usize();
    assert!(
        s >= 1 && s <= max,
        "CL_KERNEL_WORK_GROUP_SIZE {s}, device max {max}"
    );
}

#[test]
fn compile_work_group_size_reflects_reqd_work_group_size() {
    let e = Env::new();
    let p = e.program(REQD_SRC, "");
    let reqd = ok(create_kernel(p.get(), "reqd"), "reqd");
    let plain = ok(create_kernel(p.get(), "plain"), "plain");
    assert_eq!(
        wg(&reqd, CL_KERNEL_COMPILE_WORK_GROUP_SIZE).usizes(),
        vec![4, 1, 1]
    );
    assert_eq!(
        wg(&plain, CL_KERNEL_COMPILE_WORK_GROUP_SIZE).usizes(),
        vec![0, 0, 0]
    );
}

#[test]
fn preferred_work_group_size_multiple_is_positive() {
    let e = Env::new();
    let (_p, k) = e.kernel(FILL_SRC, "fillv");
    assert!(wg(&k, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE).usize() > 0);
}

#[test]
fn private_mem_size_counts_the_private_arrays() {
    let e = Env::new();
    let src = r#"
float pick(int i, int n) {
    float table[32];
    for (int k = 0; k < n; k++) table[k] = k * 0.5f;
    return table[i & 31];
}
__kernel void big(__global float* out, int n) {
    int hist[100];
    for (int k = 0; k < n; k++) hist[k] = k;
    out[get_global_id(0)] = hist[get_global_id(0) % 100] + pick(get_global_id(0), n);
}
__kernel void none(__global float* out) { out[get_global_id(0)] = 1.0f; }
"#;
    let p = e.program(src, "");
    let big = ok(create_kernel(p.get(), "big"), "big");
    let none = ok(create_kernel(p.get(), "none"), "none");
    // hist and table.
    assert_eq!(wg(&big, CL_KERNEL_PRIVATE_MEM_SIZE).u64(), 528);
    assert_eq!(wg(&none, CL_KERNEL_PRIVATE_MEM_SIZE).u64(), 0);
}

const LOCAL_MEM_SRC: &str = r#"
__kernel void lm(__global int* out, __local int* scratch) {
    __local int tmp[64];
    size_t l = get_local_id(0);
    tmp[l] = (int)l;
    scratch[l] = (int)l * 2;
    out[get_global_id(0)] = tmp[l] + scratch[l];
}
"#;

#[test]
fn local_mem_size_counts_local_variables_and_local_args() {
    let e = Env::new();
    let (_p, k) = e.kernel(LOCAL_MEM_SRC, "lm");
    let before = wg(&k, CL_KERNEL_LOCAL_MEM_SIZE).u64();
    assert!(
        before >= 64 * 4,
        "CL_KERNEL_LOCAL_MEM_SIZE {before} < 256 bytes of __local tmp"
    );
    ok(set_local(k.get(), 1, 1024), "__local arg of 1024 bytes");
    let after = wg(&k, CL_KERNEL_LOCAL_MEM_SIZE).u64();
    assert!(
        after >= before + 1024,
        "CL_KERNEL_LOCAL_MEM_SIZE {after} after a 1024-byte __local arg (was {before})"
    );
    // And the kernel works with that local memory.
    let out = e.buffer(128 * 4);
    ok(set_mem(k.get(), 0, &out), "arg 0");
    e.run(&k, &[128], Some(&[64]));
    let got = e.read::<i32>(&out, 0, 128);
    for (g, v) in got.iter().enumerate() {
        let l = (g % 64) as i32;
        assert_eq!(*v, l + 2 * l, "work-item {g}");
    }
}

#[test]
fn global_work_size_query_is_invalid_value_for_cpu_kernels() {
    let e = Env::new();
    let (_p, k) = e.kernel(FILL_SRC, "fillv");
    assert_err(
        kernel_wg_info(k.get(), device(), CL_KERNEL_GLOBAL_WORK_SIZE),
        CL_INVALID_VALUE,
        "CL_KERNEL_GLOBAL_WORK_SIZE on a non-custom device, non-built-in kernel",
    );
}

#[test]
fn work_group_info_with_null_device_for_single_device_kernel() {
    let e = Env::new();
    let (_p, k) = e.kernel(FILL_SRC, "fillv");
    let a = ok(
        kernel_wg_info(k.get(), null_mut(), CL_KERNEL_WORK_GROUP_SIZE),
        "device NULL",
    )
    .usize();
    assert_eq!(a, wg(&k, CL_KERNEL_WORK_GROUP_SIZE).usize());
}

// ---------------------------------------------------------------------------
// argument values arrive intact

#[test]
fn scalar_args_arrive_intact() {
    let e = Env::new();
    let src = r#"
__kernel void scalars(__global long* out, char c, uchar uc, short s, ushort us,
                      int i, uint ui, long l, ulong ul, float f) {
    out[0] = c; out[1] = uc; out[2] = s; out[3] = us; out[4] = i; out[5] = ui;
    out[6] = l; out[7] = as_long(ul); out[8] = as_int(f);
}
"#;
    let (_p, k) = e.kernel(src, "scalars");
    let out = e.buffer(9 * 8);
    ok(set_mem(k.get(), 0, &out), "out");
    ok(set_arg(k.get(), 1, &-5i8), "char");
    ok(set_arg(k.get(), 2, &250u8), "uchar");
    ok(set_arg(k.get(), 3, &-30000i16), "short");
    ok(set_arg(k.get(), 4, &60000u16), "ushort");
    ok(set_arg(k.get(), 5, &-2_000_000_000i32), "int");
    ok(set_arg(k.get(), 6, &4_000_000_000u32), "uint");
    ok(set_arg(k.get(), 7, &-0x1234_5678_9abc_def0i64), "long");
    ok(set_arg(k.get(), 8, &0xfedc_ba98_7654_3210u64), "ulong");
    ok(set_arg(k.get(), 9, &-1.25f32), "float");
    e.run(&k, &[1], None);
    let got = e.read::<i64>(&out, 0, 9);
    assert_eq!(
        got,
        vec![
            -5,
            250,
            -30000,
            60000,
            -2_000_000_000,
            4_000_000_000,
            -0x1234_5678_9abc_def0,
            0xfedc_ba98_7654_3210u64 as i64,
            (-1.25f32).to_bits() as i32 as i64,
        ]
    );
}

const VECTOR_SRC: &str = r#"
__kernel void vecs(__global float* fout, __global int* iout,
                   float4 a, int2 b, float3 c, uchar16 d) {
    fout[0] = a.x; fout[1] = a.y; fout[2] = a.z; fout[3] = a.w;
    fout[4] = c.x; fout[5] = c.y; fout[6] = c.z;
    iout[0] = b.x; iout[1] = b.y;
    for (int i = 0; i < 16; i++) iout[2 + i] = ((uchar*)&d)[i];
}
"#;

#[test]
fn vector_args_arrive_intact() {
    let e = Env::new();
    let (_p, k) = e.kernel(VECTOR_SRC, "vecs");
    let fout = e.buffer(7 * 4);
    let iout = e.buffer(18 * 4);
    ok(set_mem(k.get(), 0, &fout), "fout");
    ok(set_mem(k.get(), 1, &iout), "iout");
    ok(set_arg(k.get(), 2, &[1.5f32, -2.5, 3.25, 4.0]), "float4");
    ok(set_arg(k.get(), 3, &[-7i32, 8]), "int2");
    // float3 has the size (and alignment) of float4: 16 bytes.
    ok(
        set_arg(k.get(), 4, &[10.5f32, 20.5, 30.5, 0.0]),
        "float3 (16 bytes)",
    );
    let d: [u8; 16] = std::array::from_fn(|i| (i * 13 + 1) as u8);
    ok(set_arg(k.get(), 5, &d), "uchar16");
    e.run(&k, &[1], None);
    assert_eq!(
        e.read::<f32>(&fout, 0, 7),
        vec![1.5, -2.5, 3.25, 4.0, 10.5, 20.5, 30.5]
    );
    let mut want = vec![-7, 8];
    want.extend(d.iter().map(|&x| x as i32));
    assert_eq!(e.read::<i32>(&iout, 0, 18), want);
}

#[test]
fn float3_arg_with_12_bytes_is_invalid_arg_size() {
    let e = Env::new();
    let (_p, k) = e.kernel(VECTOR_SRC, "vecs");
    assert_err(
        set_arg(k.get(), 4, &[1.0f32, 2.0, 3.0]),
        CL_INVALID_ARG_SIZE,
        "float3 given 12 bytes",
    );
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Mixed {
    a: i32,
    b: f32,
    c: i8,
    d: i64,
    e: i16,
}

#[test]
fn struct_arg_by_value_arrives_intact() {
    let e = Env::new();
    let src = r#"
typedef struct { int a; float b; char c; long d; short e; } Mixed;
__kernel void st(__global long* out, Mixed s) {
    out[0] = s.a; out[1] = (long)(s.b * 1000.0f); out[2] = s.c; out[3] = s.d; out[4] = s.e;
}
"#;
    assert_eq!(std::mem::size_of::<Mixed>(), 32);
    let (_p, k) = e.kernel(src, "st");
    let out = e.buffer(5 * 8);
    ok(set_mem(k.get(), 0, &out), "out");
    let s = Mixed {
        a: -123456,
        b: 1.5,
        c: -7,
        d: 0x1122_3344_5566_7788,
        e: -321,
    };
    ok(set_arg(k.get(), 1, &s), "struct by value");
    e.run(&k, &[1], None);
    assert_eq!(
        e.read::<i64>(&out, 0, 5),
        vec![-123456, 1500, -7, 0x1122_3344_5566_7788, -321]
    );
}

#[test]
fn struct_arg_with_wrong_size_is_invalid_arg_size() {
    let e = Env::new();
    let src = r#"
typedef struct { int a; float b; char c; long d; short e; } Mixed;
__kernel void st(__global long* out, Mixed s) { out[0] = s.a; }
"#;
    let (_p, k) = e.kernel(src, "st");
    let short = [0u8; 24];
    assert_err(
        set_arg(k.get(), 1, &short),
        CL_INVALID_ARG_SIZE,
        "32-byte struct given 24 bytes",
    );
}

#[test]
fn arg_values_are_copied_at_set_time() {
    // "The argument data pointed to by arg_value is copied and the arg_value
    // pointer can therefore be reused by the application".
    let e = Env::new();
    let (_p, k) = e.kernel(FILL_SRC, "fillv");
    let mut v = 31i32;
    check(
        cl!(clSetKernelArg(
            k.get(),
            1,
            4,
            (&v as *const i32).cast::<c_void>()
        )),
        "set",
    );
    v = 99;
    let _ = v;
    let out = e.buffer(4 * 4);
    assert_eq!(fill_with(&e, &k, &out, 4), vec![31; 4]);
}

#[test]
fn opencl3_execute_kernel() {
    use opencl3::kernel::ExecuteKernel;
    use opencl3::memory::Buffer;
    let dev = opencl3::device::Device::new(device());
    let ctx = opencl3::context::Context::from_device(&dev).unwrap();
    let q =
        opencl3::command_queue::CommandQueue::create_default_with_properties(&ctx, 0, 0).unwrap();
    let p = opencl3::program::Program::create_and_build_from_source(&ctx, FILL_SRC, "").unwrap();
    let k = opencl3::kernel::Kernel::create(&p, "fillv").unwrap();
    let out = unsafe { Buffer::<i32>::create(&ctx, CL_MEM_WRITE_ONLY, 64, null_mut()) }.unwrap();
    let ev = unsafe {
        ExecuteKernel::new(&k)
            .set_arg(&out)
            .set_arg(&42i32)
            .set_global_work_size(64)
            .enqueue_nd_range(&q)
    }
    .unwrap();
    ev.wait().unwrap();
    let mut back = vec![0i32; 64];
    unsafe { q.enqueue_read_buffer(&out, CL_TRUE, 0, &mut back, &[]) }.unwrap();
    assert_eq!(back, vec![42; 64]);
}

static ARG_BUFFER_DESTROYED: std::sync::atomic::AtomicUsize =
    std::sync::atomic::AtomicUsize::new(0);

unsafe extern "C" fn on_arg_buffer_destroyed(_m: cl_mem, _user_data: *mut c_void) {
    ARG_BUFFER_DESTROYED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
}

#[test]
fn a_kernel_argument_does_not_keep_a_released_buffer_alive() {
    use std::sync::atomic::Ordering;
    use std::time::{Duration, Instant};
    let e = Env::new();
    let (_p, k) = e.kernel(FILL_SRC, "fillv");
    // A buffer still running in a command stays valid for that command.
    let out = e.buffer(64 * 4);
    ok(set_mem(k.get(), 0, &out), "arg 0");
    ok(set_arg(k.get(), 1, &7i32), "arg 1");
    let m = e.buffer(64 * 4).into_raw();
    check(
        cl!(clSetMemObjectDestructorCallback(
            m,
            Some(on_arg_buffer_destroyed),
            null_mut()
        )),
        "clSetMemObjectDestructorCallback",
    );
    check(
        cl!(clSetKernelArg(
            k.get(),
            0,
            std::mem::size_of::<cl_mem>(),
            (&m as *const cl_mem).cast()
        )),
        "clSetKernelArg(buffer)",
    );
    e.run(&k, &[64], None);
    e.finish();
    check(cl!(clReleaseMemObject(m)), "clReleaseMemObject");
    let t = Instant::now();
    while ARG_BUFFER_DESTROYED.load(Ordering::SeqCst) == 0 {
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "the destructor callback of a buffer released by the application \
             never ran while it was a kernel argument"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    // The argument now names a released buffer: the launch is refused,
    // nothing runs on freed memory.
    let rc = cl!(clEnqueueNDRangeKernel(
        e.q(),
        k.get(),
        1,
        null(),
        [64usize].as_ptr(),
        null(),
        0,
        null(),
        null_mut()
    ));
    assert_code(
        rc,
        CL_INVALID_MEM_OBJECT,
        "launch with a released buffer argument",
    );
    // Set again, the kernel runs.
    ok(set_mem(k.get(), 0, &out), "arg 0 again");
    e.run(&k, &[64], None);
    assert_eq!(e.read::<i32>(&out, 0, 64), vec![7; 64]);
}

#[test]
fn a_local_struct_declared_after_a_statement_gives_its_layout() {
    // pyopencl learns a struct's layout this way for every custom dtype.
    let src = r#"
struct s { char a; int b; };
__kernel void k(__global uint *r) {
    r[0] = sizeof(struct s);
    __local struct s dummy;
    r[1] = (uint)((__local char *)&dummy.b - (__local char *)&dummy);
}
"#;
    let e = Env::new();
    let (_p, k) = e.kernel(src, "k");
    let out = e.buffer(8);
    e.run_with(&k, &[&out], &[1], Some(&[1]));
    assert_eq!(e.read::<u32>(&out, 0, 2), vec![8, 4]);
}

#[test]
fn every_local_object_is_aligned_to_its_type_size() {
    // Variables and arguments of each width of long and double, after a
    // char that would misalign them if packed.
    let mut src = String::from(
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
         __kernel void k(__global ulong *r, __local char *c, __local long16 *arg16, __local double3 *arg3) {\n\
         __local char pad[3];\n",
    );
    let types = ["long", "long2", "long3", "long4", "long8", "long16"];
    for t in types {
        src += &format!("__local {t} v_{t}[3];\n");
    }
    src += "r[0] = (ulong)pad; r[1] = (ulong)c; r[2] = (ulong)arg16; r[3] = (ulong)arg3;\n";
    for (i, t) in types.iter().enumerate() {
        src += &format!(
            "r[{}] = (ulong)&v_{t}[1]; v_{t}[0] = ({t})(pad[0]);\n",
            4 + i
        );
    }
    src += "}\n";
    let e = Env::new();
    if !has_fp64() {
        return;
    }
    let (_p, k) = e.kernel(&src, "k");
    let out = e.buffer(10 * 8);
    ok(set_mem(k.get(), 0, &out), "arg 0");
    ok(set_local(k.get(), 1, 1), "arg 1");
    ok(set_local(k.get(), 2, 128), "arg 2");
    ok(set_local(k.get(), 3, 32), "arg 3");
    e.run(&k, &[1], Some(&[1]));
    let r = e.read::<u64>(&out, 0, 10);
    let sizes = [1u64, 1, 128, 32, 8, 16, 32, 32, 64, 128];
    for (i, (&addr, &size)) in r.iter().zip(&sizes).enumerate() {
        assert_eq!(
            addr % size,
            0,
            "object {i} at {addr:#x} is not aligned to {size}"
        );
    }
}
