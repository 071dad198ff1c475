//! Work-item loops come out of the optimizer as vector code: the kernels
//! here are compiled with FERROCL_DUMP_DIR set, and their optimized IR is
//! read back. The dump directory is set once for this process, before the
//! library compiles anything; each test reads its own kernel's file.

use ferrocl_tests::*;

before_main!({ dump_ir() });

/// The optimized IR of the work-group functions of `kernel`.
fn optimized_ir(kernel: &str) -> String {
    let prefix = format!("__ferrocl_wg.{kernel}.");
    let ir: String = std::fs::read_dir(ir_dump_dir())
        .unwrap()
        .map(|f| f.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with(&prefix) && name.ends_with(".ll") && !name.ends_with(".before-opt.ll")
        })
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    assert!(!ir.is_empty(), "no IR dumped for {kernel}");
    ir
}

/// Fails if `ir` calls any of `callees` (each a name with its opening
/// parenthesis): a function called one lane at a time.
fn assert_no_call(ir: &str, callees: &[&str]) {
    for callee in callees {
        let called = ir.lines().any(|l| l.contains("call") && l.contains(callee));
        assert!(!called, "a scalar call of {callee}:\n{ir}");
    }
}

/// Fails unless sin's vector variant was inlined into the work-item loop:
/// no variant is left a call, and its argument reduction (`x * 2/pi`
/// rounded) and rare path (`reduce_lanes`) are in the work-group function,
/// on vectors of `element`.
fn assert_vector_sin_inlined(ir: &str, element: &str) {
    let calls = |callee: &str| ir.lines().any(|l| l.contains("call") && l.contains(callee));
    assert!(
        !calls("@_ZGV_LLVM_N"),
        "a vector variant left a call:\n{ir}"
    );
    assert!(calls("@reduce_lanes"), "no sin body in the loop:\n{ir}");
    let vector_rint = ir
        .lines()
        .any(|l| l.contains("@llvm.rint.v") && l.contains(&format!(" x {element}>")));
    assert!(vector_rint, "no vector reduction of sin's argument:\n{ir}");
}

/// Whether `ir` has fused multiply-adds on vectors of `element`.
fn has_vector_fma(ir: &str, element: &str) -> bool {
    ir.lines()
        .any(|l| l.contains("@llvm.fma.v") && l.contains(&format!(" x {element}>")))
}

const SRC: &str = "__kernel void k(__global const float* a, __global float* s,\n\
                   __global float* e, __global float* l) {\n\
                   size_t i = get_global_id(0);\n\
                   s[i] = sin(a[i]); e[i] = exp(a[i]); l[i] = log(a[i]);\n}\n";

#[test]
fn a_loop_calling_sin_exp_and_log_is_vectorized() {
    let e = Env::new();
    let (_p, k) = e.kernel(SRC, "k");
    const N: usize = 4096;
    let a: Vec<f32> = (0..N).map(|i| i as f32 * 0.01 + 0.5).collect();
    let bufs = [
        e.buffer_from(&a),
        e.buffer(N * 4),
        e.buffer(N * 4),
        e.buffer(N * 4),
    ];
    e.run_with(&k, &bufs, &[N], None);
    let s = e.read::<f32>(&bufs[1], 0, N);
    assert!((s[100] - a[100].sin()).abs() < 1e-6);
    let ir = optimized_ir("k");
    // The loop called sin's vector variant (<4 x float> at least), which
    // was then inlined into it ...
    assert_vector_sin_inlined(&ir, "float");
    // ... exp and log became vector code: fused multiply-adds on vectors ...
    assert!(ir.contains("@llvm.fma.v"), "no vector arithmetic:\n{ir}");
    // ... and nothing is called one lane at a time.
    assert_no_call(
        &ir,
        &[
            "@_Z3sinf(",
            "@_Z3expf(",
            "@_Z3logf(",
            "@sinf(",
            "@expf(",
            "@logf(",
        ],
    );
}

const DOUBLE_SRC: &str = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
                          __kernel void kd(__global const double* a, __global double* s,\n\
                          __global double* e, __global double* l) {\n\
                          size_t i = get_global_id(0);\n\
                          s[i] = sin(a[i]); e[i] = exp(a[i]); l[i] = log(a[i]);\n}\n";

/// The same for double: exp and log are inlined into the work-item loop and
/// become vector code with it; sin is called through its vector variant.
#[test]
fn a_loop_calling_double_sin_exp_and_log_is_vectorized() {
    if !has_fp64() {
        return;
    }
    let e = Env::new();
    let (_p, k) = e.kernel(DOUBLE_SRC, "kd");
    const N: usize = 4096;
    let a: Vec<f64> = (0..N).map(|i| i as f64 * 0.01 + 0.5).collect();
    let bufs = [
        e.buffer_from(&a),
        e.buffer(N * 8),
        e.buffer(N * 8),
        e.buffer(N * 8),
    ];
    e.run_with(&k, &bufs, &[N], None);
    let s = e.read::<f64>(&bufs[1], 0, N);
    let x = e.read::<f64>(&bufs[2], 0, N);
    let l = e.read::<f64>(&bufs[3], 0, N);
    assert!((s[100] - a[100].sin()).abs() < 1e-15);
    assert!((x[100] - a[100].exp()).abs() < 1e-15 * a[100].exp());
    assert!((l[100] - a[100].ln()).abs() < 1e-15);
    let ir = optimized_ir("kd");
    assert_vector_sin_inlined(&ir, "double");
    // Fused multiply-adds on vectors of doubles ...
    assert!(
        has_vector_fma(&ir, "double"),
        "no vector double arithmetic:\n{ir}"
    );
    // ... and none of the three is called one lane at a time.
    assert_no_call(
        &ir,
        &[
            "@_Z3sind(",
            "@_Z3expd(",
            "@_Z3logd(",
            "@sin(",
            "@exp(",
            "@log(",
            "@llvm.exp.f64(",
            "@llvm.log.f64(",
        ],
    );
}

/// A 16x16 group copying through local memory between barriers, as a tiled
/// matrix multiply does: the region loops over 16 work-items in x, short
/// enough that LLVM would unroll it fully before vectorizing; it must come
/// out as vector loads and stores, not sixteen scalar copies (which is
/// what it was before the loop was kept rolled for the vectorizer).
const TILE_SRC: &str = "__attribute__((reqd_work_group_size(16, 16, 1)))\n\
    __kernel void tile(__global const float* in, __global float* out, int n) {\n\
    __local float t[16][16];\n\
    int x = get_local_id(0), y = get_local_id(1);\n\
    int gx = get_global_id(0), gy = get_global_id(1);\n\
    t[y][x] = in[gy * n + gx];\n\
    barrier(CLK_LOCAL_MEM_FENCE);\n\
    out[gy * n + gx] = t[y][15 - x] * 2.0f;\n}\n";

#[test]
fn a_short_work_item_loop_is_vectorized_not_unrolled() {
    let e = Env::new();
    let (_p, k) = e.kernel(TILE_SRC, "tile");
    const N: usize = 64;
    let input: Vec<f32> = (0..N * N).map(|i| i as f32).collect();
    let a = e.buffer_from(&input);
    let b = e.buffer(N * N * 4);
    ok(set_mem(k.get(), 0, &a), "set arg");
    ok(set_mem(k.get(), 1, &b), "set arg");
    ok(set_arg(k.get(), 2, &(N as i32)), "set arg");
    e.run(&k, &[N, N], Some(&[16, 16]));
    let out = e.read::<f32>(&b, 0, N * N);
    for (i, v) in out.iter().enumerate() {
        let (row, col) = (i / N, i % N);
        let mirrored = row * N + (col / 16) * 16 + 15 - col % 16;
        assert_eq!(*v, input[mirrored] * 2.0, "at {i}");
    }
    let ir = optimized_ir("tile");
    // Both regions move rows of floats as vectors.
    let vector = |op: &str| {
        ir.lines()
            .any(|l| l.contains(&format!("{op} <")) && l.contains(" x float>"))
    };
    assert!(vector("load"), "no vector load:\n{ir}");
    assert!(vector("store"), "no vector store:\n{ir}");
}

const MATH_SRC: &str = "__kernel void m(__global const float* a, __global const float* b,\n\
                        __global float* o) {\n\
                        size_t i = get_global_id(0);\n\
                        float x = a[i], y = b[i];\n\
                        o[5 * i] = asin(x); o[5 * i + 1] = atan2(x, y);\n\
                        o[5 * i + 2] = sinh(x); o[5 * i + 3] = cbrt(x);\n\
                        o[5 * i + 4] = hypot(x, y);\n}\n";

#[test]
fn a_loop_calling_inverse_trig_hyperbolic_and_root_functions_is_vectorized() {
    let e = Env::new();
    let (_p, k) = e.kernel(MATH_SRC, "m");
    const N: usize = 4096;
    let a: Vec<f32> = (0..N).map(|i| i as f32 / N as f32 - 0.5).collect();
    let b: Vec<f32> = (0..N).map(|i| 1.0 + i as f32 * 0.001).collect();
    let bufs = [e.buffer_from(&a), e.buffer_from(&b), e.buffer(5 * N * 4)];
    e.run_with(&k, &bufs, &[N], None);
    let o = e.read::<f32>(&bufs[2], 0, 5 * N);
    let (x, y) = (a[100] as f64, b[100] as f64);
    for (got, want) in [
        (o[500], x.asin()),
        (o[501], x.atan2(y)),
        (o[502], x.sinh()),
        (o[503], x.cbrt()),
        (o[504], x.hypot(y)),
    ] {
        assert!(
            (got as f64 - want).abs() <= 1e-6 * want.abs(),
            "{got} vs {want}"
        );
    }
    let ir = optimized_ir("m");
    // The functions became vector code ...
    assert!(ir.contains("@llvm.fma.v"), "no vector arithmetic:\n{ir}");
    // ... with no call of any of them, nor of the C library's, left.
    assert_no_call(
        &ir,
        &[
            "@_Z4asinf(",
            "@_Z5atan2ff(",
            "@_Z4sinhf(",
            "@_Z4cbrtf(",
            "@_Z5hypotff(",
            "@asin(",
            "@atan2(",
            "@sinh(",
            "@cbrt(",
            "@hypot(",
            "@asinh(",
            "@log1p(",
            "@acos(",
            "@sin(",
            "@tan(",
            "@erf(",
            "@erfc(",
            "@asinf(",
            "@atan2f(",
            "@sinhf(",
            "@cbrtf(",
            "@hypotf(",
        ],
    );
}

const DOUBLE_MATH_SRC: &str = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
    __kernel void md(__global const double* a, __global const double* b,\n\
    __global double* o) {\n\
    size_t i = get_global_id(0), W = 16;\n\
    double x = a[i], y = b[i];\n\
    o[W * i] = pow(x, y); o[W * i + 1] = powr(y, x);\n\
    o[W * i + 2] = pown(y, (int)(i % 64) - 32); o[W * i + 3] = rootn(x, 3);\n\
    o[W * i + 4] = cbrt(x); o[W * i + 5] = hypot(x, y);\n\
    o[W * i + 6] = asinh(x); o[W * i + 7] = acosh(y); o[W * i + 8] = atanh(x);\n\
    o[W * i + 9] = atan2(x, y); o[W * i + 10] = asin(x); o[W * i + 11] = acospi(x);\n\
    o[W * i + 12] = sinpi(x * y); o[W * i + 13] = tanpi(x);\n\
    o[W * i + 14] = erf(x); o[W * i + 15] = erfc(y);\n}\n";

/// The double functions of math_double.cl beyond exp, log and sin (pow and
/// its kin, cbrt, hypot, asinh, acosh, atanh, atan2, asin, acospi, sinpi,
/// tanpi, erf, erfc): inlined
/// into the work-item loop and vector code with it, no call left.
#[test]
fn a_loop_calling_double_pow_and_friends_is_vectorized() {
    if !has_fp64() {
        return;
    }
    let e = Env::new();
    let (_p, k) = e.kernel(DOUBLE_MATH_SRC, "md");
    const N: usize = 4096;
    const W: usize = 16;
    let a: Vec<f64> = (0..N).map(|i| i as f64 / N as f64 - 0.5).collect();
    let b: Vec<f64> = (0..N).map(|i| 1.0 + i as f64 * 0.001).collect();
    let bufs = [e.buffer_from(&a), e.buffer_from(&b), e.buffer(W * N * 8)];
    e.run_with(&k, &bufs, &[N], None);
    let o = e.read::<f64>(&bufs[2], 0, W * N);
    let i = 3000;
    let (x, y) = (a[i], b[i]);
    for (got, want) in [
        (o[W * i], x.powf(y)),
        (o[W * i + 1], y.powf(x)),
        (o[W * i + 2], y.powi((i % 64) as i32 - 32)),
        (o[W * i + 3], x.cbrt()),
        (o[W * i + 4], x.cbrt()),
        (o[W * i + 5], x.hypot(y)),
        (o[W * i + 6], x.asinh()),
        (o[W * i + 7], y.acosh()),
        (o[W * i + 8], x.atanh()),
        (o[W * i + 9], x.atan2(y)),
        (o[W * i + 10], x.asin()),
        (o[W * i + 11], x.acos() / std::f64::consts::PI),
        (o[W * i + 12], (x * y * std::f64::consts::PI).sin()),
        (o[W * i + 13], (x * std::f64::consts::PI).tan()),
        (o[W * i + 14], 0.25761313697286886), // erf(x), erfc(y): x = 0.232421875, y = 4
        (o[W * i + 15], 1.541725790028002e-8),
    ] {
        assert!((got - want).abs() <= 1e-14 * want.abs(), "{got} vs {want}");
    }
    let ir = optimized_ir("md");
    // Fused multiply-adds on vectors of doubles ...
    assert!(
        has_vector_fma(&ir, "double"),
        "no vector double arithmetic:\n{ir}"
    );
    // ... and no call of the functions, nor of the C library's, left.
    assert_no_call(
        &ir,
        &[
            "@_Z3powdd(",
            "@_Z4powrdd(",
            "@_Z4powndi(",
            "@_Z5rootndi(",
            "@_Z4cbrtd(",
            "@_Z5hypotdd(",
            "@_Z5asinhd(",
            "@_Z5acoshd(",
            "@_Z5atanhd(",
            "@_Z5atan2dd(",
            "@_Z4asind(",
            "@_Z6acospid(",
            "@_Z5sinpid(",
            "@_Z5tanpid(",
            "@_Z3erfd(",
            "@_Z4erfcd(",
            "@pow(",
            "@cbrt(",
            "@hypot(",
            "@asinh(",
            "@log1p(",
            "@atan2(",
            "@asin(",
            "@acos(",
            "@sin(",
            "@tan(",
            "@erf(",
            "@erfc(",
            "@llvm.pow.f64(",
            "@log(",
            "@exp(",
        ],
    );
}

const DOUBLE_REM_SRC: &str = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
    __kernel void mr(__global const double* a, __global const double* b,\n\
    __global double* o, __global int* q) {\n\
    size_t i = get_global_id(0);\n\
    double x = a[i], y = b[i];\n\
    o[3 * i] = fmod(x, y); o[3 * i + 1] = remainder(x, y);\n\
    o[3 * i + 2] = remquo(x, y, q + i);\n}\n";

/// fmod, remainder and remquo for double: their reduction loop (as many
/// steps as the widest exponent difference of the lanes needs) is inlined
/// and runs for a vector of work-items at once, no call left.
#[test]
fn a_loop_calling_double_fmod_remainder_and_remquo_is_vectorized() {
    if !has_fp64() {
        return;
    }
    let e = Env::new();
    let (_p, k) = e.kernel(DOUBLE_REM_SRC, "mr");
    const N: usize = 4096;
    let a: Vec<f64> = (0..N)
        .map(|i| (i as f64 + 0.5) * 2f64.powi(i as i32 % 900))
        .collect();
    let b: Vec<f64> = (0..N).map(|i| 1.0 + i as f64 * 0.001).collect();
    let bufs = [
        e.buffer_from(&a),
        e.buffer_from(&b),
        e.buffer(3 * N * 8),
        e.buffer(N * 4),
    ];
    e.run_with(&k, &bufs, &[N], None);
    let o = e.read::<f64>(&bufs[2], 0, 3 * N);
    for i in [0, 100, 2000, 4095] {
        assert_eq!(o[3 * i], a[i] % b[i], "fmod at {i}");
    }
    let ir = optimized_ir("mr");
    let vector = ir
        .lines()
        .any(|l| l.contains("fdiv <") && l.contains(" x double>"));
    assert!(vector, "no vector double division:\n{ir}");
    assert_no_call(
        &ir,
        &[
            "@_Z4fmoddd(",
            "@_Z9remainderdd(",
            "@_Z6remquoddPU3AS1i(",
            "@_Z6remquoddPi(",
            "@fmod(",
            "@remainder(",
            "@remquo(",
        ],
    );
}

const DOUBLE_GAMMA_SRC: &str = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
    __kernel void mg(__global const double* a, __global double* o, __global int* s) {\n\
    size_t i = get_global_id(0);\n\
    double x = a[i];\n\
    o[3 * i] = tgamma(x); o[3 * i + 1] = lgamma(x);\n\
    o[3 * i + 2] = lgamma_r(x, s + i);\n}\n";

/// tgamma, lgamma and lgamma_r for double: every region computed and
/// selected, the rising product a loop run for a vector of work-items at
/// once; no call left, of them or of the C library.
#[test]
fn a_loop_calling_double_tgamma_and_lgamma_is_vectorized() {
    if !has_fp64() {
        return;
    }
    let e = Env::new();
    let (_p, k) = e.kernel(DOUBLE_GAMMA_SRC, "mg");
    const N: usize = 4096;
    let a: Vec<f64> = (0..N).map(|i| i as f64 * 0.01 - 20.005).collect();
    let bufs = [e.buffer_from(&a), e.buffer(3 * N * 8), e.buffer(N * 4)];
    e.run_with(&k, &bufs, &[N], None);
    let o = e.read::<f64>(&bufs[1], 0, 3 * N);
    // Gamma(a[i]) for a[2500] = 4.995..., a[2150] = 1.495...
    for (i, g) in [(2500, 23.820010614970705), (2150, 0.8860756173043529)] {
        assert!((o[3 * i] - g).abs() <= 1e-14 * g, "{} vs {g}", o[3 * i]);
        assert!(
            (o[3 * i + 1] - g.ln()).abs() <= 1e-14,
            "{} vs {}",
            o[3 * i + 1],
            g.ln()
        );
    }
    let ir = optimized_ir("mg");
    assert!(
        has_vector_fma(&ir, "double"),
        "no vector double arithmetic:\n{ir}"
    );
    assert_no_call(
        &ir,
        &[
            "@_Z6tgammad(",
            "@_Z6lgammad(",
            "@_Z8lgamma_rdPU3AS1i(",
            "@_Z8lgamma_rdPi(",
            "@tgamma(",
            "@lgamma(",
            "@lgamma_r(",
            "@log(",
            "@exp(",
            "@pow(",
        ],
    );
}

/// sin and cos of one value: in float (float8 lanes) they share the
/// reduction and the polynomials, their common path being the same pure
/// code; in double (a loop through the vector variants) each is one
/// reduction by pi and one polynomial. In both, the huge-argument path comes
/// after the common one, taken for the vectors that have a huge lane.
#[test]
fn sin_and_cos_of_one_value_share_their_reduction() {
    let src = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
               __kernel void sc8(__global const float8* a, __global float8* o) {\n\
               size_t i = get_global_id(0); o[i] = sin(a[i]) * cos(a[i]);\n}\n\
               __kernel void scd(__global const double* a, __global double* o) {\n\
               size_t i = get_global_id(0); o[i] = sin(a[i]) * cos(a[i]);\n}\n";
    let e = Env::new();
    if !has_fp64() {
        return;
    }
    const N: usize = 1024;
    let a: Vec<f32> = (0..N * 8).map(|i| i as f32 * 0.37 - 1500.0).collect();
    // Every 7th value huge, so that some vectors mix both paths.
    let ad: Vec<f64> = (0..N)
        .map(|i| i as f64 * 0.37 - 150.0)
        .map(|x| if x as i64 % 7 == 0 { x * 1e9 } else { x })
        .collect();
    let (_p, k8) = e.kernel(src, "sc8");
    let bufs = [e.buffer_from(&a), e.buffer(N * 32)];
    e.run_with(&k8, &bufs, &[N], None);
    let o = e.read::<f32>(&bufs[1], 0, N * 8);
    for i in [0, 77, 4095, 8191] {
        let x = a[i] as f64;
        assert!((o[i] as f64 - x.sin() * x.cos()).abs() < 1e-6, "sc8[{i}]");
    }
    let (_q, kd) = e.kernel(src, "scd");
    let bufs = [e.buffer_from(&ad), e.buffer(N * 8)];
    e.run_with(&kd, &bufs, &[N], None);
    let o = e.read::<f64>(&bufs[1], 0, N);
    for i in 0..N {
        let want = ad[i].sin() * ad[i].cos();
        assert!((o[i] - want).abs() < 1e-15, "scd[{i}]: {} for {want}", o[i]);
    }
    for kernel in ["sc8", "scd"] {
        let ir = optimized_ir(kernel);
        // Each vector of x is rounded to its multiple of pi/2 once, for
        // the two functions' huge-argument paths (one each).
        let calls = |callee: &str| {
            ir.lines()
                .filter(|l| l.contains("call") && l.contains(callee))
                .count()
        };
        let (rint, huge) = (calls("@llvm.rint.v"), calls("@reduce_lanes"));
        assert!(rint > 0, "{kernel}: no vector reduction:\n{ir}");
        if kernel == "sc8" {
            assert_eq!(
                2 * rint,
                huge,
                "{kernel}: {rint} reductions for {huge} huge paths:\n{ir}"
            );
        } else {
            // Each function's reduction by pi, then, on its huge path,
            // the reduction by pi/2 before the exact one.
            assert_eq!(
                rint,
                2 * huge,
                "{kernel}: {rint} reductions for {huge} huge paths:\n{ir}"
            );
        }
    }
}

/// Runs `kernel` of `src`, whose work-items each compute `want` of every
/// lane of a vector of `lanes` elements of type `T` (`stride` apart in
/// memory: a 3-vector takes four), in work-groups of `local` (so that
/// runs of the vector form and the scalar form both run), on arguments
/// with some lanes huge (the rare path); checks each lane against the host
/// within `tolerance` and returns the kernel's optimized IR, with every
/// vector variant inlined.
fn run_vector_math<T>(
    src: &str,
    kernel: &str,
    (lanes, stride): (usize, usize),
    local: usize,
    want: impl Fn(f64) -> f64,
    tolerance: f64,
) -> String
where
    T: Copy + Default + Into<f64>,
    f64: AsTo<T>,
{
    let e = Env::new();
    let n = local * 9;
    let a: Vec<T> = (0..n * stride)
        .map(|i| i as f64 * 0.61 - 150.0)
        .map(|x| if x as i64 % 5 == 0 { x * 1e6 } else { x })
        .map(|x| x.as_to())
        .collect();
    let (_p, k) = e.kernel(src, kernel);
    let bytes = n * stride * std::mem::size_of::<T>();
    let bufs = [e.buffer_from(&a), e.buffer(bytes)];
    e.run_with(&k, &bufs, &[n], Some(&[local]));
    let o = e.read::<T>(&bufs[1], 0, n * stride);
    for (i, (&x, &y)) in a.iter().zip(&o).enumerate() {
        if i % stride >= lanes {
            continue;
        }
        let (x, y): (f64, f64) = (x.into(), y.into());
        let w = want(x);
        assert!((y - w).abs() < tolerance, "{kernel} lane {i}: {y} for {w}");
    }
    let ir = optimized_ir(kernel);
    assert_no_call(&ir, &["@_ZGV_LLVM_N", "@_Z3sinDv", "@_Z3cosDv"]);
    ir
}

/// Conversion of the arguments `run_vector_math` makes.
trait AsTo<T> {
    fn as_to(self) -> T;
}
impl AsTo<f32> for f64 {
    fn as_to(self) -> f32 {
        self as f32
    }
}
impl AsTo<f64> for f64 {
    fn as_to(self) -> f64 {
        self
    }
}

/// Whether `ir` rounds a vector of type `ty` (`v16f32`) to integers: the
/// argument reduction of sin and cos at that width.
fn reduces(ir: &str, ty: &str) -> bool {
    ir.lines().any(|l| l.contains(&format!("@llvm.rint.{ty}")))
}

#[test]
fn a_float8_kernel_calling_sin_runs_two_work_items_as_one_float16_call() {
    let src = "__kernel void sin8x2(__global const float8* a, __global float8* o) {\n\
               size_t i = get_global_id(0); o[i] = sin(a[i]) + cos(a[i]) * 0.5f;\n}\n";
    // Work-groups of 7: three pairs, one work-item through the scalar form.
    let want = |x: f64| x.sin() + x.cos() * 0.5;
    let ir = run_vector_math::<f32>(src, "sin8x2", (8, 8), 7, want, 2e-6);
    // The two work-items' sine as one 16-lane reduction, beside the
    // scalar form's 8-lane one.
    assert!(reduces(&ir, "v16f32"), "no 16-lane sine:\n{ir}");
    assert!(reduces(&ir, "v8f32"), "no scalar form:\n{ir}");
}

#[test]
fn a_double2_kernel_calling_sin_runs_four_work_items_as_one_double8_call() {
    if !has_fp64() {
        return;
    }
    let src = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
               __kernel void sin2x4(__global const double2* a, __global double2* o) {\n\
               size_t i = get_global_id(0); o[i] = sin(a[i]);\n}\n";
    // Work-groups of 6: one run of four, two through the scalar form.
    let ir = run_vector_math::<f64>(src, "sin2x4", (2, 2), 6, f64::sin, 1e-15);
    assert!(reduces(&ir, "v8f64"), "no 8-lane sine:\n{ir}");
    assert!(reduces(&ir, "v2f64"), "no scalar form:\n{ir}");
}

#[test]
fn a_float2_kernel_calling_cos_runs_eight_work_items_as_one_float16_call() {
    // The library takes a float2 as a double: the bits cross over.
    let src = "__kernel void cos2x8(__global const float2* a, __global float2* o) {\n\
               size_t i = get_global_id(0); o[i] = cos(a[i]);\n}\n";
    // Work-groups of 10: one run of eight, two through the scalar form.
    let ir = run_vector_math::<f32>(src, "cos2x8", (2, 2), 10, f64::cos, 1e-6);
    assert!(reduces(&ir, "v16f32"), "no 16-lane cosine:\n{ir}");
}

#[test]
fn a_float3_kernel_calling_sin_runs_four_work_items_as_one_padded_float16_call() {
    let src = "__kernel void sin3x4(__global const float3* a, __global float3* o) {\n\
               size_t i = get_global_id(0); o[i] = sin(a[i]);\n}\n";
    // Work-groups of 5: one run of four (12 lanes, padded to 16), one
    // through the scalar form.
    let ir = run_vector_math::<f32>(src, "sin3x4", (3, 4), 5, f64::sin, 1e-6);
    assert!(reduces(&ir, "v16f32"), "no 16-lane sine:\n{ir}");
}

#[test]
fn prefetch_fetches_each_line_of_what_it_names() {
    let src = "__kernel void fetch_ahead(__global const float* a, __global float* o) {\n\
               size_t i = get_global_id(0);\n\
               if (i % 64 == 0) prefetch(a + i + 64, 64);\n\
               o[i] = a[i] * 2.0f;\n}\n";
    let e = Env::new();
    let n = 1024;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let (_p, k) = e.kernel(src, "fetch_ahead");
    let bufs = [e.buffer_from(&a), e.buffer(n * 4)];
    e.run_with(&k, &bufs, &[n], None);
    let o = e.read::<f32>(&bufs[1], 0, n);
    assert!(o.iter().zip(&a).all(|(y, x)| *y == x * 2.0));
    // 64 floats: four lines, each a prefetch.
    let ir = optimized_ir("fetch_ahead");
    assert!(ir.contains("@llvm.prefetch.p1("), "no prefetch:\n{ir}");
}

#[test]
fn a_loop_of_math_functions_fetches_its_input_ahead() {
    let src = "__kernel void math_ahead(__global const float* a, __global float* o) {\n\
               size_t i = get_global_id(0);\n\
               float x = a[i];\n\
               o[i] = sin(x) * cos(x) + exp(-fabs(x)) + log(fabs(x) + 1.0f);\n}\n";
    let want = |x: f64| x.sin() * x.cos() + (-x.abs()).exp() + (x.abs() + 1.0).ln();
    let e = Env::new();
    let n = 4096;
    let a: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin() * 4.0).collect();
    let (_p, k) = e.kernel(src, "math_ahead");
    let bufs = [e.buffer_from(&a), e.buffer(n * 4)];
    e.run_with(&k, &bufs, &[n], Some(&[256]));
    let o = e.read::<f32>(&bufs[1], 0, n);
    for (x, y) in a.iter().zip(&o) {
        let w = want(*x as f64);
        assert!((*y as f64 - w).abs() < 1e-5, "{y} for {w}");
    }
    // The input a vector of work-items a line an iteration, fetched 2 KiB
    // ahead; the output is not fetched.
    let ir = optimized_ir("math_ahead");
    let prefetches: Vec<&str> = ir
        .lines()
        .filter(|l| l.contains("call void @llvm.prefetch.p1("))
        .collect();
    assert_eq!(prefetches.len(), 1, "{ir}");
    assert!(ir.contains(", i64 2048\n"), "{ir}");
}

#[test]
fn a_kernel_of_pixels_runs_a_vector_of_work_items_at_once() {
    let src = "__kernel void scale_pixels(__global const uchar4* in, __global uchar4* out,\n\
               float4 scale, float4 bias) {\n\
               size_t i = get_global_id(0);\n\
               out[i] = convert_uchar4_sat(convert_float4(in[i]) * scale + bias);\n}\n";
    let e = Env::new();
    let n = 4096;
    let pixels: Vec<u8> = (0..n * 4).map(|i| (i * 7 % 256) as u8).collect();
    let (_p, k) = e.kernel(src, "scale_pixels");
    let (scale, bias) = ([1.5f32, 0.5, 2.0, 1.0], [10.0f32, -20.0, 0.0, 3.0]);
    let bufs = [e.buffer_from(&pixels), e.buffer(n * 4)];
    set_arg(k.get(), 2, &scale).unwrap();
    set_arg(k.get(), 3, &bias).unwrap();
    e.run_with(&k, &bufs, &[n], None);
    let o = e.read::<u8>(&bufs[1], 0, n * 4);
    for (i, (&p, &q)) in pixels.iter().zip(&o).enumerate() {
        let c = i % 4;
        // `_sat` to an integer rounds toward zero.
        let want = (p as f32 * scale[c] + bias[c]).clamp(0.0, 255.0).trunc();
        assert_eq!(q as f32, want, "pixel {} channel {c}", i / 4);
    }
    // The four channels of several work-items in one vector (16 on
    // AVX-512, 8 with AVX2), not one pixel at a time.
    let ir = optimized_ir("scale_pixels");
    let widest = ir
        .split('<')
        .filter_map(|t| t.split_once(" x i8>")?.0.parse::<u32>().ok())
        .max()
        .unwrap_or(0);
    assert!(widest >= 16, "one work-item at a time:\n{ir}");
}

/// A sliding window as DPC++'s `dpnp.convolve` kernel keeps it: a private
/// struct around an array, reached through a generic pointer and indexed
/// at run time, filled by reads padded with a private zero past the
/// input's ends, and shifted along the sub-group.
const WINDOW_SRC: &str = r#"
typedef struct { float data[4]; } window_t;
typedef struct { window_t w; } registry_t;

float padded(__generic const float *p, __generic const float *begin,
             __generic const float *end) {
    float zero = 0.0f;
    return *((p < begin || p >= end) ? &zero : p);
}

__kernel void window(__global const float *in, __global float *out,
                     __global uint *widths, int n, uint taps) {
    size_t i = get_global_id(0);
    registry_t r;
    __generic registry_t *reg = &r;
    for (int j = 0; j < 4; j++)
        reg->w.data[j] = padded(in + i + j, in, in + n);
    uint lane = get_sub_group_local_id(), width = get_sub_group_size();
    float acc = 0.0f;
    for (uint t = 0; t < taps; t++) {
        float next = sub_group_shuffle(reg->w.data[(t + 1) % 4], (lane + 1) % width);
        acc += reg->w.data[t % 4] * next;
    }
    out[i] = acc;
    widths[i] = width;
}
"#;

#[test]
fn a_sliding_window_in_a_generic_private_struct_is_vectorized_across_the_sub_group() {
    let e = Env::new();
    let (_p, k) = e.kernel_opts(WINDOW_SRC, "window", "-cl-std=CL3.0");
    const N: usize = 1024;
    let taps: u32 = 3;
    let input: Vec<f32> = (0..N).map(|i| (i % 13) as f32 * 0.25).collect();
    let bufs = [e.buffer_from(&input), e.buffer(N * 4), e.buffer(N * 4)];
    for (j, b) in bufs.iter().enumerate() {
        ok(set_mem(k.get(), j as cl_uint, b), "set arg");
    }
    ok(set_arg(k.get(), 3, &(N as i32)), "set arg n");
    ok(set_arg(k.get(), 4, &taps), "set arg taps");
    e.run(&k, &[N], Some(&[128]));
    let out = e.read::<f32>(&bufs[1], 0, N);
    let width = e.read::<u32>(&bufs[2], 0, 1)[0] as usize;
    assert!(width > 1 && 128 % width == 0, "sub-group size {width}");
    let data = |i: usize, j: usize| input.get(i + j).copied().unwrap_or(0.0);
    for i in 0..N {
        let first = i / width * width;
        let partner = first + (i - first + 1) % width;
        let want = (0..taps as usize).fold(0.0f32, |acc, t| {
            acc + data(i, t % 4) * data(partner, (t + 1) % 4)
        });
        assert_eq!(out[i], want, "work-item {i}");
    }
    // The shuffles became vector shuffles: no sub-group function is left
    // a call, and the window's values are vectors of floats.
    let ir = optimized_ir("window");
    assert_no_call(&ir, &["sub_group_shuffle", "__mux_sub_group_barrier("]);
    assert!(ir.contains("x float>"), "no vector of floats:\n{ir}");
}

/// Pixels of three bytes (`vload3`), as OpenCV's area resize reads them:
/// each output pixel the mean of a 2x2 block, in a loop. A vector form
/// would gather each channel a byte per lane, which x86 makes one load per
/// lane; the kernel keeps its scalar form, and no byte gather is left in
/// its code.
const AREA_SRC: &str = r#"
__kernel void area(__global const uchar *src, __global uchar *dst, int cols, int rows) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x < cols && y < rows) {
        int3 sum = (int3)(0);
        for (int py = 0; py < 2; py++)
            for (int px = 0; px < 2; px++)
                sum += convert_int3(vload3((2 * y + py) * 2 * cols + 2 * x + px, src));
        vstore3(convert_uchar3((sum + 2) / 4), y * cols + x, dst);
    }
}
"#;

#[test]
fn three_byte_pixels_are_not_gathered_byte_by_byte() {
    let e = Env::new();
    let (_p, k) = e.kernel(AREA_SRC, "area");
    let (cols, rows) = (301usize, 37usize);
    let input: Vec<u8> = (0..3 * 4 * cols * rows)
        .map(|i| (i * 7 % 251) as u8)
        .collect();
    let bufs = [e.buffer_from(&input), e.buffer(3 * cols * rows)];
    for (j, b) in bufs.iter().enumerate() {
        ok(set_mem(k.get(), j as cl_uint, b), "set arg");
    }
    ok(set_arg(k.get(), 2, &(cols as i32)), "set arg cols");
    ok(set_arg(k.get(), 3, &(rows as i32)), "set arg rows");
    e.run(&k, &[320, 40], Some(&[32, 8]));
    let out = e.read::<u8>(&bufs[1], 0, 3 * cols * rows);
    for y in 0..rows {
        for x in 0..cols {
            for c in 0..3 {
                let at = |py: usize, px: usize| {
                    input[3 * ((2 * y + py) * 2 * cols + 2 * x + px) + c] as u32
                };
                let want = (at(0, 0) + at(0, 1) + at(1, 0) + at(1, 1) + 2) / 4;
                assert_eq!(
                    out[3 * (y * cols + x) + c] as u32,
                    want,
                    "({x}, {y}) channel {c}"
                );
            }
        }
    }
    let ir = optimized_ir("area");
    let byte_gather = ir
        .lines()
        .any(|l| l.contains("@llvm.masked.gather.v") && l.contains("i8"));
    assert!(!byte_gather, "a gather of bytes:\n{ir}");
}
