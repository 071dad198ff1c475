//! `printf` in kernels (OpenCL C 3.0 section 6.15.14): what kernels print
//! reaches the process's stdout, exactly as the C library formats it, in
//! work-group order, by the time the command's event is complete.
//!
//! Each check captures file descriptor 1 around its kernels, so this suite
//! runs without libtest's harness (`harness = false`): one check after the
//! other on the main thread, nothing else writing to stdout meanwhile.
//! `cargo test --test printf [name...]` runs the checks whose names
//! contain one of the names.

use ferrocl_tests::*;
use std::ffi::c_void;
use std::io::Read;
use std::os::fd::AsRawFd;
use std::ptr::{null, null_mut};

extern "C" {
    static mut stdout: *mut libc::FILE;
}

/// Puts fd 1 back however the capture ends.
struct Redirected {
    saved: i32,
}

impl Drop for Redirected {
    fn drop(&mut self) {
        // SAFETY: plain descriptor calls on descriptors this suite owns.
        unsafe {
            libc::fflush(stdout);
            libc::dup2(self.saved, 1);
            libc::close(self.saved);
        }
    }
}

/// What `f` writes to fd 1 (the kernels' output), as text.
fn captured(f: impl FnOnce()) -> String {
    let path = std::env::temp_dir().join(format!("ferrocl-printf-{}.out", std::process::id()));
    let file = std::fs::File::create(&path).expect("temporary file");
    {
        // SAFETY: as above.
        let saved = unsafe {
            libc::fflush(stdout);
            let saved = libc::dup(1);
            libc::dup2(file.as_raw_fd(), 1);
            saved
        };
        let _restore = Redirected { saved };
        f();
    }
    let mut text = String::new();
    std::fs::File::open(&path)
        .and_then(|mut f| f.read_to_string(&mut text))
        .expect("captured output");
    let _ = std::fs::remove_file(&path);
    text
}

/// Runs kernel `name` of `src` over `global` (`local`), waiting for its
/// event only: its output must be written by then.
fn printed(
    e: &Env,
    src: &str,
    name: &str,
    args: &[&Mem],
    global: &[usize],
    local: Option<&[usize]>,
) -> String {
    let (_p, k) = e.kernel(src, name);
    for (i, m) in args.iter().enumerate() {
        ok(set_mem(k.get(), i as cl_uint, m), "clSetKernelArg");
    }
    run_and_capture(e, &k, global, local)
}

fn run_and_capture(e: &Env, k: &Kern, global: &[usize], local: Option<&[usize]>) -> String {
    captured(|| {
        let mut event = null_mut();
        check(
            cl!(clEnqueueNDRangeKernel(
                e.q(),
                k.get(),
                global.len() as cl_uint,
                null(),
                global.as_ptr(),
                local.map_or(null(), |l| l.as_ptr()),
                0,
                null(),
                &mut event
            )),
            "clEnqueueNDRangeKernel",
        );
        let event = ev(event);
        check(cl!(clWaitForEvents(1, &event.get())), "clWaitForEvents");
        assert_eq!(event.status(), CL_COMPLETE);
    })
}

fn every_conversion_and_flag() {
    let src = r#"
__kernel void k(void) {
    printf("%d|%i|%5d|%-5d|%05d|%+d|% d|%.3d|%d\n", 42, -42, 42, 42, 42, 42, 42, 7, -2147483647 - 1);
    printf("%o|%#o|%u|%x|%#x|%X|%#X|%08x|%.0u|\n", 8, 8, 4294967295u, 255, 255, 255, 255, 0xbeef, 0);
    printf("%hhd|%hhu|%hd|%hu|%ld|%lu|%lx|%hhx\n", (char)-3, (uchar)250, (short)-300, (ushort)65000,
           -5000000000L, 18446744073709551615UL, 0x123456789abcdefUL, 300);
    printf("%f|%.2f|%10.3f|%-10.1f|%+f|%F|%e|%.3E|%g|%G|%g|%#.0f\n", 3.5f, 0.125f, -2.25f, 2.5f,
           1.0f, 1.5f, 1234.5f, 0.0625f, 0.0001220703125f, 1048576.0f, 100000.0f, 3.0f);
    printf("%a|%A|%.1a|%e|%a|%.3e|%lf\n", 1.0, -0.5, 1.5, 1e300, 0x1.fffffffffffffp+1023, 5e-324, 0.1);
    printf("%c|%3c|%-3c|%s|%8s|%-8s|%.2s|%%|%s|%s\n", 'a', 'b', 'c', "str", "right", "left", "trunc", "", "%d");
    printf("plain text, no conversion\n");
}
"#;
    let e = Env::new();
    let out = printed(&e, src, "k", &[], &[1], None);
    let want = "42|-42|   42|42   |00042|+42| 42|007|-2147483648\n\
                10|010|4294967295|ff|0xff|FF|0XFF|0000beef||\n\
                -3|250|-300|65000|-5000000000|18446744073709551615|123456789abcdef|2c\n\
                3.500000|0.12|    -2.250|2.5       |+1.000000|1.500000|1.234500e+03|6.250E-02|0.00012207|1.04858E+06|100000|3.\n\
                0x1p+0|-0X1P-1|0x1.8p+0|1.000000e+300|0x1.fffffffffffffp+1023|4.941e-324|0.100000\n\
                a|  b|c  |str|   right|left    |tr|%||%d\n\
                plain text, no conversion\n";
    assert_eq!(out, want);
}

fn infinities_nans_and_negative_zero() {
    let src = r#"
__kernel void k(__global const float* x, __global const double* y) {
    printf("%f|%F|%e|%g|%a|%f|%F|%E|%f|%e|%+f|%a\n", x[0], x[1], x[0], x[1], x[0], x[2], x[2], x[3], x[4], x[4], x[5], x[4]);
    printf("%f|%G|%A|%f|%.2e|%g\n", y[0], y[1], y[1], y[2], y[3], y[3]);
    printf("%v4hlf|%v2lf\n", vload4(0, x), vload2(0, y));
}
"#;
    let e = Env::new();
    let xs = e.buffer_from(&[
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        -0.0f32,
        0.0,
    ]);
    let ys = e.buffer_from(&[f64::INFINITY, f64::NEG_INFINITY, -0.0f64, -f64::NAN]);
    let out = printed(&e, src, "k", &[&xs, &ys], &[1], None);
    let want = "inf|-INF|inf|-inf|inf|nan|NAN|-NAN|-0.000000|-0.000000e+00|+0.000000|-0x0p+0\n\
                inf|-INF|-INF|-0.000000|-nan|-nan\n\
                inf,-inf,nan,-nan|inf,-inf\n";
    assert_eq!(out, want);
}

fn vectors() {
    let src = r#"
__kernel void k(void) {
    printf("%v2hhd|%v4hlf|%v2hld|%v3hlf|%#v2hx|%v2ld|%v4hlu|%.1v2lf|%5v2hhu\n",
           (char2)(-1, 2), (float4)(1.0f, 2.5f, -3.0f, 0.0f), (int2)(7, -8),
           (float3)(0.5f, 1.5f, 2.5f), (ushort2)(0x12, 0xab), (long2)(-1, 1),
           (uint4)(1, 2, 3, 4294967295u), (double2)(0.25, 1.75), (uchar2)(255, 0));
    printf("%v16hhd\n", (char16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, -14, -15));
    printf("%v8hlx|%v16hd\n", (uint8)(1, 2, 3, 4, 0xa, 0xb, 0xc, 0xffffffff),
           (short16)(0, -1, 2, -3, 4, -5, 6, -7, 8, -9, 10, -11, 12, -13, 14, -32768));
    printf("%.2v8lf\n", (double8)(0.5, 1.5, 2.5, 3.5, -0.5, -1.5, 100.125, 1e10));
    printf("%v3lu|%v4hhx\n", (ulong3)(1, 2, 18446744073709551615UL), (uchar4)(0xde, 0xad, 0xbe, 0xef));
    printf("%v2d|%v4f\n", (int2)(-3, 4), (double4)(0.5, 1.0, -2.0, 8.0));
}
"#;
    let e = Env::new();
    let out = printed(&e, src, "k", &[], &[1], None);
    let want = "-1,2|1.000000,2.500000,-3.000000,0.000000|7,-8|0.500000,1.500000,2.500000|0x12,0xab|-1,1|1,2,3,4294967295|0.2,1.8|  255,    0\n\
                0,1,2,3,4,5,6,7,8,9,10,11,12,13,-14,-15\n\
                1,2,3,4,a,b,c,ffffffff|0,-1,2,-3,4,-5,6,-7,8,-9,10,-11,12,-13,14,-32768\n\
                0.50,1.50,2.50,3.50,-0.50,-1.50,100.12,10000000000.00\n\
                1,2,18446744073709551615|de,ad,be,ef\n\
                -3,4|0.500000,1.000000,-2.000000,8.000000\n";
    assert_eq!(out, want);
}

/// The optimized IR of the work-group functions of `kernel` (the suite
/// sets FERROCL_DUMP_DIR before the library compiles anything).
fn optimized_ir(kernel: &str) -> String {
    let prefix = format!("__ferrocl_wg.{kernel}.");
    std::fs::read_dir(ir_dump_dir())
        .unwrap()
        .map(|f| f.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with(&prefix) && name.ends_with(".ll") && !name.ends_with(".before-opt.ll")
        })
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// A printf under a condition some work-items meet: the kernel still runs
/// vectorized (lanes that skip it skip its memory accesses too), and the
/// records come out in work-item order; a printf no work-item reaches
/// prints nothing and leaves the kernel vector code.
fn a_printf_some_work_items_reach_keeps_the_kernel_vectorized() {
    let src = r#"
__kernel void scaled(__global const float* x, __global float* y, float a, uint every) {
    size_t i = get_global_id(0);
    float v = a * x[i] + y[i];
    y[i] = v;
    if (i % every == 3)
        printf("item %u: %.2f from %.1f (%v2hld)\n", (uint)i, v, x[i], (int2)((int)i, -(int)i));
}
"#;
    let e = Env::new();
    let n = 200usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let y0: Vec<f32> = (0..n).map(|i| 1.0 + i as f32).collect();
    let (_p, k) = e.kernel(src, "scaled");
    let bx = e.buffer_from(&x);
    for every in [7u32, 1_000_000] {
        let by = e.buffer_from(&y0);
        ok(set_mem(k.get(), 0, &bx), "x");
        ok(set_mem(k.get(), 1, &by), "y");
        ok(set_arg(k.get(), 2, &2.0f32), "a");
        ok(set_arg(k.get(), 3, &every), "every");
        let out = run_and_capture(&e, &k, &[n], Some(&[100]));
        let mut want = String::new();
        for i in (0..n).filter(|i| *i as u32 % every == 3) {
            let v = 2.0 * x[i] + y0[i];
            want += &format!("item {i}: {v:.2} from {:.1} ({i},-{i})\n", x[i]);
        }
        assert_eq!(out, want, "every {every}");
        let y = e.read::<f32>(&by, 0, n);
        for i in 0..n {
            assert_eq!(y[i], 2.0 * x[i] + y0[i], "item {i}");
        }
    }
    let ir = optimized_ir("scaled");
    let vector_fma = ir
        .lines()
        .any(|l| l.contains("@llvm.fma.v") || (l.contains("fmul") && l.contains(" x float>")));
    assert!(vector_fma, "not vectorized:\n{ir}");
}

fn many_work_groups_in_order() {
    let src = r#"
__kernel void k(void) {
    printf("g%lu.%lu l%lu.%lu\n", get_group_id(0), get_group_id(1), get_local_id(0), get_local_id(1));
    if (get_local_id(0) == 0) printf("group %lu,%lu again\n", get_group_id(0), get_group_id(1));
}
__kernel void b(void) {
    printf("before %lu\n", get_global_id(0));
    barrier(CLK_LOCAL_MEM_FENCE);
    printf("after %lu\n", get_global_id(0));
}
"#;
    let e = Env::new();
    let out = printed(&e, src, "k", &[], &[8, 3], Some(&[2, 1]));
    // Groups x fastest; in each, its work-items in order.
    let mut want = String::new();
    for gy in 0..3 {
        for gx in 0..4 {
            for lx in 0..2 {
                want += &format!("g{gx}.{gy} l{lx}.0\n");
                if lx == 0 {
                    want += &format!("group {gx},{gy} again\n");
                }
            }
        }
    }
    assert_eq!(out, want);
    // With a barrier: every work-item of a group reaches it first.
    let out = printed(&e, src, "b", &[], &[12], Some(&[4]));
    let mut want = String::new();
    for g in 0..3 {
        for i in 0..4 {
            want += &format!("before {}\n", 4 * g + i);
        }
        for i in 0..4 {
            want += &format!("after {}\n", 4 * g + i);
        }
    }
    assert_eq!(out, want);
}

fn buffer_size(e: &Env) -> usize {
    ok(
        device_info(e.device, CL_DEVICE_PRINTF_BUFFER_SIZE),
        "PRINTF_BUFFER_SIZE",
    )
    .usize()
}

fn overflow_returns_minus_one_and_the_rest_is_printed() {
    // Each record: the id, a size_t, an int and a long16, 144 bytes.
    let src = r#"
__kernel void k(__global int* ret, int n) {
    size_t g = get_global_id(0);
    int calls = g == 0 ? n : 3;
    for (int i = 0; i < calls; i++)
        ret[g * n + i] = printf("%lu %d %v16ld\n", g, i, (long16)(i));
}
"#;
    const RECORD: usize = 4 + 8 + 4 + 128;
    let e = Env::new();
    let size = buffer_size(&e);
    assert!(
        size >= 1 << 20,
        "CL_DEVICE_PRINTF_BUFFER_SIZE is at least 1 MiB"
    );
    // Two work-groups of one work-item: each has half the buffer.
    let chunk = (size / 2) & !3;
    let fit = (chunk - 8) / RECORD;
    let n = fit + 100;
    let ret = e.buffer_from(&vec![7i32; 2 * n]);
    let (_p, k) = e.kernel(src, "k");
    ok(set_mem(k.get(), 0, &ret), "arg 0");
    ok(set_arg(k.get(), 1, &(n as i32)), "arg 1");
    let out = run_and_capture(&e, &k, &[2], Some(&[1]));
    let ret = e.read::<i32>(&ret, 0, 2 * n);
    // Work-group 0: the calls that fit return 0, every later one -1.
    for (i, &r) in ret[..n].iter().enumerate() {
        assert_eq!(r, if i < fit { 0 } else { -1 }, "call {i} of work-group 0");
    }
    assert_eq!(&ret[n..n + 3], &[0, 0, 0], "work-group 1 did not overflow");
    let line = |g: usize, i: usize| format!("{g} {i} {}\n", vec![i.to_string(); 16].join(","));
    let want: String = (0..fit)
        .map(|i| line(0, i))
        .chain((0..3).map(|i| line(1, i)))
        .collect();
    assert!(
        out == want,
        "{} bytes printed, {} expected",
        out.len(),
        want.len()
    );
}

fn too_many_work_groups_is_out_of_resources() {
    let src = r#"__kernel void k(__global int* ret) { ret[get_global_id(0)] = printf("x\n"); }"#;
    let e = Env::new();
    let size = buffer_size(&e);
    // The smallest chunk is its 8-byte header.
    let most = size / 8;
    let ret = e.buffer(4 * (most + 1));
    let (_p, k) = e.kernel(src, "k");
    ok(set_mem(k.get(), 0, &ret), "arg");
    assert_code(
        e.enqueue(&k, None, &[most + 1], Some(&[1])),
        CL_OUT_OF_RESOURCES,
        "a work-group's chunk below its header",
    );
    // As many as fit: each chunk is only a header, so every call overflows.
    let out = run_and_capture(&e, &k, &[most], Some(&[1]));
    assert_eq!(out, "");
    let r = e.read::<i32>(&ret, 0, most);
    assert!(r.iter().all(|&v| v == -1), "every call overflowed");
    // Fewer groups, room again.
    let out = run_and_capture(&e, &k, &[most / 2], Some(&[1]));
    assert_eq!(out, "x\n".repeat(most / 2));
    assert!(e.read::<i32>(&ret, 0, most / 2).iter().all(|&v| v == 0));
}

fn malformed_formats_fail_the_build_naming_the_call() {
    let e = Env::new();
    let cases = [
        ("printf(\"%y\\n\", 1);", "invalid conversion specifier"),
        (
            "printf(\"%v4c\\n\", (char4)(1));",
            "a vector is printed with",
        ),
        ("printf(\"%v5hlf\\n\", (float4)(1));", "2, 3, 4, 8 or 16"),
        ("printf(\"%hlf\\n\", 1.0f);", "vectors only"),
        ("printf(\"%*d\\n\", 1, 2);", "`*`"),
        ("printf(\"%v2hhf\\n\", (float2)(1));", "hh"),
        ("printf(\"%5\");", "incomplete"),
    ];
    for (call, why) in cases {
        let src = format!(
            "void helper(int x) {{ printf(\"fine %d\\n\", x); {call} }}\n__kernel void k(void) {{ helper(1); }}"
        );
        let p = create_program(e.c(), &src);
        assert_code(build_program(p.get(), ""), CL_BUILD_PROGRAM_FAILURE, call);
        let log = build_log(p.get());
        assert!(
            log.contains("printf call 2 in function `helper`") && log.contains(why),
            "{call}: {log}"
        );
    }
    // `%s` prints string literals only.
    let p = create_program(
        e.c(),
        "__kernel void k(__constant char* s) { printf(\"%s\\n\", s); }",
    );
    assert_code(
        build_program(p.get(), ""),
        CL_BUILD_PROGRAM_FAILURE,
        "%s of a pointer",
    );
    let log = build_log(p.get());
    assert!(log.contains("printf call 1 in function `k`"), "{log}");
}

fn kernels_without_printf_are_unchanged() {
    let src = r#"
__kernel void quiet(__global int* p) { p[get_global_id(0)] = 5; }
__kernel void loud(__global int* p) { p[0] = printf("loud %d\n", p[0]); }
"#;
    let e = Env::new();
    let p = e.program(src, "");
    for name in ["quiet", "loud"] {
        let k = ok(create_kernel(p.get(), name), "clCreateKernel");
        // The printf buffer is no argument the application sees.
        assert_eq!(
            ok(kernel_info(k.get(), CL_KERNEL_NUM_ARGS), "NUM_ARGS").u32(),
            1
        );
        let m = e.buffer(4);
        assert_err(set_mem(k.get(), 1, &m), CL_INVALID_ARG_INDEX, "argument 1");
    }
    let k = ok(create_kernel(p.get(), "quiet"), "quiet");
    let m = e.buffer_from(&[0i32; 64]);
    ok(set_mem(k.get(), 0, &m), "arg");
    assert_eq!(run_and_capture(&e, &k, &[64], None), "");
    assert_eq!(e.read::<i32>(&m, 0, 64), vec![5; 64]);
    let k = ok(create_kernel(p.get(), "loud"), "loud");
    let m = e.buffer_from(&[9i32]);
    ok(set_mem(k.get(), 0, &m), "arg");
    assert_eq!(run_and_capture(&e, &k, &[1], None), "loud 9\n");
    assert_eq!(e.read::<i32>(&m, 0, 1), vec![0]);
}

fn a_program_binary_keeps_its_printf_calls() {
    let src = r#"__kernel void k(float f) { printf("%s=%.1f %v2hld\n", "f", f, (int2)(1, 2)); }"#;
    let e = Env::new();
    let p = e.program(src, "");
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
    let d = e.device;
    let (len, bp) = (bin.len(), bin.as_ptr());
    let (mut status, mut rc) = (-1, 0);
    let p2 = Prog(cl!(clCreateProgramWithBinary(
        e.c(),
        1,
        &d,
        &len,
        &bp,
        &mut status,
        &mut rc
    )));
    check(rc, "clCreateProgramWithBinary");
    check(build_program(p2.get(), ""), "build from binary");
    let k = ok(create_kernel(p2.get(), "k"), "kernel");
    ok(set_arg(k.get(), 0, &2.5f32), "arg");
    assert_eq!(run_and_capture(&e, &k, &[1], None), "f=2.5 1,2\n");
}

fn command_buffers_refuse_printf_kernels() {
    const CAPABILITIES: cl_uint = 0x12A9;
    const KERNEL_PRINTF: cl_ulong = 1;
    type CreateFn = unsafe extern "C" fn(
        cl_uint,
        *const cl_command_queue,
        *const cl_ulong,
        *mut cl_int,
    ) -> *mut c_void;
    type ReleaseFn = unsafe extern "C" fn(*mut c_void) -> cl_int;
    type NdRangeFn = unsafe extern "C" fn(
        *mut c_void,
        cl_command_queue,
        *const cl_ulong,
        cl_kernel,
        cl_uint,
        *const usize,
        *const usize,
        *const usize,
        cl_uint,
        *const cl_uint,
        *mut cl_uint,
        *mut c_void,
    ) -> cl_int;
    let e = Env::new();
    let caps = ok(
        device_info(e.device, CAPABILITIES),
        "COMMAND_BUFFER_CAPABILITIES",
    )
    .u64();
    assert_eq!(
        caps & KERNEL_PRINTF,
        0,
        "printf in recorded commands is not offered"
    );
    let create: CreateFn = extension_function("clCreateCommandBufferKHR");
    let release: ReleaseFn = extension_function("clReleaseCommandBufferKHR");
    let ndrange: NdRangeFn = extension_function("clCommandNDRangeKernelKHR");
    let p = e.program(
        "__kernel void loud(void) { printf(\"Hello World\\n\"); }\n__kernel void quiet(void) { }",
        "",
    );
    let mut rc = 0;
    let q = e.q();
    let cb = unsafe { create(1, &q, null(), &mut rc) };
    check(rc, "clCreateCommandBufferKHR");
    let record = |name: &str| {
        let k = ok(create_kernel(p.get(), name), name);
        let global = [1usize];
        unsafe {
            ndrange(
                cb,
                null_mut(),
                null(),
                k.get(),
                1,
                null(),
                global.as_ptr(),
                null(),
                0,
                null(),
                null_mut(),
                null_mut(),
            )
        }
    };
    assert_code(record("loud"), CL_INVALID_OPERATION, "a printf kernel");
    check(record("quiet"), "a kernel without printf");
    check(unsafe { release(cb) }, "clReleaseCommandBufferKHR");
}

before_main!({ dump_ir() });

fn main() {
    let checks: &[(&str, fn())] = &[
        (
            "a_printf_some_work_items_reach_keeps_the_kernel_vectorized",
            a_printf_some_work_items_reach_keeps_the_kernel_vectorized,
        ),
        ("every_conversion_and_flag", every_conversion_and_flag),
        (
            "infinities_nans_and_negative_zero",
            infinities_nans_and_negative_zero,
        ),
        ("vectors", vectors),
        ("many_work_groups_in_order", many_work_groups_in_order),
        (
            "overflow_returns_minus_one_and_the_rest_is_printed",
            overflow_returns_minus_one_and_the_rest_is_printed,
        ),
        (
            "too_many_work_groups_is_out_of_resources",
            too_many_work_groups_is_out_of_resources,
        ),
        (
            "malformed_formats_fail_the_build_naming_the_call",
            malformed_formats_fail_the_build_naming_the_call,
        ),
        (
            "kernels_without_printf_are_unchanged",
            kernels_without_printf_are_unchanged,
        ),
        (
            "a_program_binary_keeps_its_printf_calls",
            a_program_binary_keeps_its_printf_calls,
        ),
        (
            "command_buffers_refuse_printf_kernels",
            command_buffers_refuse_printf_kernels,
        ),
    ];
    // Names to run (libtest's own flags, which cargo may pass, are not names).
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let mut failed = Vec::new();
    let mut ran = 0;
    for (name, check) in checks {
        if !wanted.is_empty() && !wanted.iter().any(|w| name.contains(w.as_str())) {
            continue;
        }
        ran += 1;
        match std::panic::catch_unwind(check) {
            Ok(()) => eprintln!("printf::{name} ... ok"),
            Err(_) => {
                eprintln!("printf::{name} ... FAILED");
                failed.push(*name);
            }
        }
    }
    eprintln!(
        "printf: {} passed, {} failed",
        ran - failed.len(),
        failed.len()
    );
    if !failed.is_empty() {
        eprintln!("failed: {}", failed.join(", "));
        std::process::exit(1);
    }
}
