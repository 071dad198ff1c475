//! The float math functions that are written to vectorize (the library's
//! `math_float.cl`): at every vector width each lane is, bit for bit, the
//! scalar function's result, on inputs that mix special values, denormals,
//! huge arguments (the exact reduction of sin/cos/tan, taken by some lanes
//! of a vector only) and ordinary ones. The reference is the scalar form
//! built with -cl-opt-disable; the scalar form optimized (vectorized by
//! LLVM across work-items) must match it too.

use ferrocl_tests::*;

/// Name and OpenCL C expression of X (floatN), Y (floatN), NN (intN); C is
/// a floatN the expression may write.
const FUNCS: &[(&str, &str)] = &[
    ("sin", "sin(X)"),
    ("cos", "cos(X)"),
    ("tan", "tan(X)"),
    ("sincos", "sincos(X, &C)"),
    ("sincos.cos", "(sincos(X, &C), C)"),
    ("exp", "exp(X)"),
    ("exp2", "exp2(X)"),
    ("exp10", "exp10(X)"),
    ("expm1", "expm1(X)"),
    ("log", "log(X)"),
    ("log2", "log2(X)"),
    ("log10", "log10(X)"),
    ("log1p", "log1p(X)"),
    ("asin", "asin(X)"),
    ("acos", "acos(X)"),
    ("atan", "atan(X)"),
    ("asinpi", "asinpi(X)"),
    ("acospi", "acospi(X)"),
    ("atanpi", "atanpi(X)"),
    ("atan2", "atan2(X, Y)"),
    ("atan2pi", "atan2pi(X, Y)"),
    ("sinh", "sinh(X)"),
    ("cosh", "cosh(X)"),
    ("tanh", "tanh(X)"),
    ("asinh", "asinh(X)"),
    ("acosh", "acosh(X)"),
    ("atanh", "atanh(X)"),
    ("sinpi", "sinpi(X)"),
    ("cospi", "cospi(X)"),
    ("tanpi", "tanpi(X)"),
    ("cbrt", "cbrt(X)"),
    ("hypot", "hypot(X, Y)"),
    ("erf", "erf(X)"),
    ("erfc", "erfc(X)"),
    ("pow", "pow(X, Y)"),
    ("powr", "powr(X, Y)"),
    ("pown", "pown(X, NN)"),
    ("rootn", "rootn(X, NN)"),
    ("native_sin", "native_sin(X)"),
    ("half_exp", "half_exp(X)"),
];

const WIDTHS: [usize; 6] = [1, 2, 3, 4, 8, 16];
/// Inputs per function: a multiple of every width.
const M: usize = 48 * 1024;

fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

fn inputs(seed: u64) -> Vec<f32> {
    let specials = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        1e-40,
        -1e-40,
        f32::MAX,
        f32::MIN,
        131071.99,
        131072.0,
        -131072.0,
        1e10,
        -3.0e30,
        88.72,
        -103.9,
        std::f32::consts::FRAC_PI_2,
        3.0,
        -2.0,
    ];
    let mut v: Vec<f32> = specials.to_vec();
    let mut x = seed;
    while v.len() < M {
        let r = next(&mut x);
        let u = (r >> 40) as f32 / (1u64 << 24) as f32;
        let s = if r & 1 == 1 { -1.0 } else { 1.0 };
        v.push(match v.len() % 5 {
            0 => f32::from_bits((r >> 32) as u32),
            1 => s * u * 10.0,
            2 => s * u * 300.0,
            3 => s * (1.0 + u) * 2f32.powi(((r >> 3) % 40) as i32 - 10),
            // Now and then a huge argument among ordinary ones.
            _ => s * (1.0 + u) * 2f32.powi(((r >> 3) % 120) as i32),
        });
    }
    v
}

fn ty(base: &str, w: usize) -> String {
    if w == 1 {
        base.to_string()
    } else {
        format!("{base}{w}")
    }
}

/// One kernel per width: work-item i takes elements [i*w, i*w+w) of the
/// inputs and writes function f's results at out[f*M + i*w ...].
fn source(w: usize) -> String {
    let (f, i) = (ty("float", w), ty("int", w));
    let load = |p: &str, t: &str| {
        if w == 1 {
            format!("{p}[gid]")
        } else {
            let _ = t;
            format!("vload{w}(gid, {p})")
        }
    };
    let mut s = format!(
        "__kernel void k(__global const float* a, __global const float* b,\n\
         __global const int* n, __global float* out) {{\n\
         size_t gid = get_global_id(0);\n\
         {f} X = {}, Y = {}, C; {i} NN = {};\n",
        load("a", &f),
        load("b", &f),
        load("n", &i)
    );
    for (k, (_, expr)) in FUNCS.iter().enumerate() {
        if w == 1 {
            s += &format!("  out[{} + gid] = {expr};\n", k * M);
        } else {
            s += &format!("  vstore{w}({expr}, gid, out + {});\n", k * M);
        }
    }
    s + "}\n"
}

#[test]
fn vector_forms_equal_the_scalar_form_lane_by_lane() {
    let e = Env::new();
    let a = inputs(0x1234_5678_9abc_def1);
    let b = inputs(0x0fed_cba9_8765_4321);
    let mut x = 5u64;
    let n: Vec<i32> = (0..M).map(|_| (next(&mut x) % 21) as i32 - 10).collect();
    let ma = e.buffer_from(&a);
    let mb = e.buffer_from(&b);
    let mn = e.buffer_from(&n);
    let total = FUNCS.len() * M;
    let mut results = Vec::new();
    // The reference: the scalar form unoptimized (not vectorized either),
    // then every width optimized (the scalar one vectorized by LLVM).
    let runs = std::iter::once((1, "-cl-opt-disable")).chain(WIDTHS.iter().map(|&w| (w, "")));
    for (w, options) in runs {
        let (_p, k) = e.kernel_opts(&source(w), "k", options);
        let out = e.buffer(total * 4);
        for (i, m) in [&ma, &mb, &mn, &out].iter().enumerate() {
            ok(set_mem(k.get(), i as cl_uint, m), "set arg");
        }
        e.run(&k, &[M / w], None);
        results.push(e.read::<f32>(&out, 0, total));
    }
    let mut failures = Vec::new();
    for (wi, w) in WIDTHS.iter().enumerate() {
        for (f, (name, _)) in FUNCS.iter().enumerate() {
            for el in 0..M {
                let s = results[0][f * M + el];
                let v = results[wi + 1][f * M + el];
                let same = s.to_bits() == v.to_bits() || (s.is_nan() && v.is_nan());
                if !same && failures.len() < 20 {
                    failures.push(format!(
                        "{name} width {w}: x={:e} y={:e} n={}: scalar {s:e}, lane {v:e}",
                        a[el], b[el], n[el]
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
