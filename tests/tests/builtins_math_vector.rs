//! The math functions that are written to vectorize (the library's
//! `math_float.cl` and `math_double.cl`): at every vector width each lane is, bit for bit, the
//! scalar function's result, on inputs that mix special values, denormals,
//! huge arguments (the exact reduction of sin/cos/tan, taken by some lanes
//! of a vector only) and ordinary ones. The reference is the scalar form
//! built with -cl-opt-disable; the scalar form optimized (vectorized by
//! LLVM across work-items) must match it too.

use ferrocl_tests::*;

/// Name and OpenCL C expression of X (floatN), Y (floatN), NN (intN); C is
/// a floatN and QQ an intN the expression may write, TOF(v) an intN as a
/// floatN.
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
    ("fmod", "fmod(X, Y)"),
    ("remainder", "remainder(X, Y)"),
    ("remquo", "remquo(X, Y, &QQ)"),
    ("remquo.quo", "(remquo(X, Y, &QQ), TOF(QQ))"),
    ("tgamma", "tgamma(X)"),
    ("lgamma", "lgamma(X)"),
    ("lgamma_r", "lgamma_r(X, &QQ)"),
    ("lgamma_r.sign", "(lgamma_r(X, &QQ), TOF(QQ))"),
    ("native_sin", "native_sin(X)"),
    ("half_exp", "half_exp(X)"),
];

/// The same for double (XD, YD, CD: doubleN; TOF(v): an intN as a doubleN).
const DOUBLE_FUNCS: &[(&str, &str)] = &[
    ("sin", "sin(XD)"),
    ("cos", "cos(XD)"),
    ("tan", "tan(XD)"),
    ("sincos", "sincos(XD, &CD)"),
    ("sincos.cos", "(sincos(XD, &CD), CD)"),
    ("exp", "exp(XD)"),
    ("exp2", "exp2(XD)"),
    ("exp10", "exp10(XD)"),
    ("expm1", "expm1(XD)"),
    ("log", "log(XD)"),
    ("log2", "log2(XD)"),
    ("log10", "log10(XD)"),
    ("log1p", "log1p(XD)"),
    ("pow", "pow(XD, YD)"),
    ("powr", "powr(XD, YD)"),
    ("pown", "pown(XD, NN)"),
    ("rootn", "rootn(XD, NN)"),
    ("sinh", "sinh(XD)"),
    ("cosh", "cosh(XD)"),
    ("tanh", "tanh(XD)"),
    ("cbrt", "cbrt(XD)"),
    ("hypot", "hypot(XD, YD)"),
    ("asinh", "asinh(XD)"),
    ("acosh", "acosh(XD)"),
    ("atanh", "atanh(XD)"),
    ("asin", "asin(XD)"),
    ("acos", "acos(XD)"),
    ("atan", "atan(XD)"),
    ("asinpi", "asinpi(XD)"),
    ("acospi", "acospi(XD)"),
    ("atanpi", "atanpi(XD)"),
    ("atan2", "atan2(XD, YD)"),
    ("atan2pi", "atan2pi(XD, YD)"),
    ("sinpi", "sinpi(XD)"),
    ("cospi", "cospi(XD)"),
    ("tanpi", "tanpi(XD)"),
    ("erf", "erf(XD)"),
    ("erfc", "erfc(XD)"),
    ("fmod", "fmod(XD, YD)"),
    ("remainder", "remainder(XD, YD)"),
    ("remquo", "remquo(XD, YD, &QQ)"),
    ("remquo.quo", "(remquo(XD, YD, &QQ), TOF(QQ))"),
    ("tgamma", "tgamma(XD)"),
    ("lgamma", "lgamma(XD)"),
    ("lgamma_r", "lgamma_r(XD, &QQ)"),
    ("lgamma_r.sign", "(lgamma_r(XD, &QQ), TOF(QQ))"),
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

/// Double inputs: the float ones, with some lanes spread over the whole
/// double range (and arguments of sin/cos/tan beyond their fast
/// reduction).
fn inputs_f64(seed: u64) -> Vec<f64> {
    let mut x = seed ^ 0x5555;
    inputs(seed)
        .into_iter()
        .enumerate()
        .map(|(i, v)| {
            let r = next(&mut x);
            match i % 7 {
                5 => f64::from_bits(r),
                6 => v as f64 * (1.0 + (r >> 12) as f64 / (1u64 << 52) as f64),
                _ => v as f64,
            }
        })
        .collect()
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
fn source(w: usize, elem: &str, funcs: &[(&str, &str)]) -> String {
    let (f, i) = (ty(elem, w), ty("int", w));
    let (x, y, c) = if elem == "double" {
        ("XD", "YD", "CD")
    } else {
        ("X", "Y", "C")
    };
    let load = |p: &str, t: &str| {
        if w == 1 {
            format!("{p}[gid]")
        } else {
            let _ = t;
            format!("vload{w}(gid, {p})")
        }
    };
    let mut s = format!(
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
         __kernel void k(__global const {elem}* a, __global const {elem}* b,\n\
         __global const int* n, __global {elem}* out) {{\n\
         size_t gid = get_global_id(0);\n\
         {f} {x} = {}, {y} = {}, {c}; {i} NN = {}, QQ;\n\
         #define TOF(v) convert_{f}(v)\n",
        load("a", &f),
        load("b", &f),
        load("n", &i)
    );
    for (k, (_, expr)) in funcs.iter().enumerate() {
        if w == 1 {
            s += &format!("  out[{} + gid] = {expr};\n", k * M);
        } else {
            s += &format!("  vstore{w}({expr}, gid, out + {});\n", k * M);
        }
    }
    s + "}\n"
}

/// Runs every width of `funcs` on `a`, `b` (elements of type $t, named
/// $elem in OpenCL C) and checks each lane against the scalar form.
macro_rules! lanes_equal_scalar {
    ($t:ty, $elem:expr, $funcs:expr, $a:expr, $b:expr) => {{
        let funcs: &[(&str, &str)] = $funcs;
        let e = Env::new();
        let a: Vec<$t> = $a;
        let b: Vec<$t> = $b;
        let mut x = 5u64;
        let n: Vec<i32> = (0..M).map(|_| (next(&mut x) % 21) as i32 - 10).collect();
        let ma = e.buffer_from(&a);
        let mb = e.buffer_from(&b);
        let mn = e.buffer_from(&n);
        let total = funcs.len() * M;
        let mut results = Vec::new();
        // The reference: the scalar form unoptimized (not vectorized either),
        // then every width optimized (the scalar one vectorized by LLVM).
        let runs = std::iter::once((1, "-cl-opt-disable")).chain(WIDTHS.iter().map(|&w| (w, "")));
        for (w, options) in runs {
            let (_p, k) = e.kernel_opts(&source(w, $elem, funcs), "k", options);
            let out = e.buffer(total * std::mem::size_of::<$t>());
            for (i, m) in [&ma, &mb, &mn, &out].iter().enumerate() {
                ok(set_mem(k.get(), i as cl_uint, m), "set arg");
            }
            e.run(&k, &[M / w], None);
            results.push(e.read::<$t>(&out, 0, total));
        }
        let mut failures = Vec::new();
        for (wi, w) in WIDTHS.iter().enumerate() {
            for (f, (name, _)) in funcs.iter().enumerate() {
                for el in 0..M {
                    let s = results[0][f * M + el];
                    let v = results[wi + 1][f * M + el];
                    let same = s.to_bits() == v.to_bits() || (s.is_nan() && v.is_nan());
                    if !same && failures.len() < 20 {
                        failures.push(format!(
                            "{name} {} width {w}: x={:e} y={:e} n={}: scalar {s:e}, lane {v:e}",
                            $elem, a[el], b[el], n[el]
                        ));
                    }
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }};
}

#[test]
fn vector_forms_equal_the_scalar_form_lane_by_lane() {
    lanes_equal_scalar!(
        f32,
        "float",
        FUNCS,
        inputs(0x1234_5678_9abc_def1),
        inputs(0x0fed_cba9_8765_4321)
    );
}

/// Runs once the device reports cl_khr_fp64.
#[test]
fn double_vector_forms_equal_the_scalar_form_lane_by_lane() {
    if !has_fp64() {
        return;
    }
    lanes_equal_scalar!(
        f64,
        "double",
        DOUBLE_FUNCS,
        inputs_f64(0x1234_5678_9abc_def1),
        inputs_f64(0x0fed_cba9_8765_4321)
    );
}
