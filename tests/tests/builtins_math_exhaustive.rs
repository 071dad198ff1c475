//! Every one of the 2^32 float inputs through single-argument float math
//! functions, against the same function in double precision (the C
//! library's, within an ulp of double: far finer than a float ulp), in
//! float ulps, within the spec's bounds. It takes minutes per function, so
//! it runs only when asked:
//!
//! ```sh
//! FERROCL_EXHAUSTIVE=sin,exp,log make test-cargo   # or `all`
//! ```
//!
//! and prints each function's largest error and where it occurs.

use ferrocl_tests::*;

/// Name, OpenCL C expression of `x`, double reference, bound in ulps.
type Case = (&'static str, &'static str, fn(f64) -> f64, f64);

const CASES: &[Case] = &[
    ("sin", "sin(x)", f64::sin, 4.0),
    ("cos", "cos(x)", f64::cos, 4.0),
    ("tan", "tan(x)", f64::tan, 5.0),
    ("asin", "asin(x)", f64::asin, 4.0),
    ("acos", "acos(x)", f64::acos, 4.0),
    ("atan", "atan(x)", f64::atan, 5.0),
    ("asinpi", "asinpi(x)", asinpi, 5.0),
    ("acospi", "acospi(x)", acospi, 5.0),
    ("atanpi", "atanpi(x)", atanpi, 5.0),
    ("sinh", "sinh(x)", f64::sinh, 4.0),
    ("cosh", "cosh(x)", f64::cosh, 4.0),
    ("tanh", "tanh(x)", f64::tanh, 5.0),
    ("asinh", "asinh(x)", f64::asinh, 4.0),
    ("acosh", "acosh(x)", f64::acosh, 4.0),
    ("atanh", "atanh(x)", f64::atanh, 5.0),
    ("sinpi", "sinpi(x)", sinpi, 4.0),
    ("cospi", "cospi(x)", cospi, 4.0),
    ("tanpi", "tanpi(x)", tanpi, 6.0),
    ("exp", "exp(x)", f64::exp, 3.0),
    ("exp2", "exp2(x)", f64::exp2, 3.0),
    ("exp10", "exp10(x)", exp10, 3.0),
    ("expm1", "expm1(x)", f64::exp_m1, 3.0),
    ("log", "log(x)", f64::ln, 3.0),
    ("log2", "log2(x)", f64::log2, 3.0),
    ("log10", "log10(x)", f64::log10, 3.0),
    ("log1p", "log1p(x)", f64::ln_1p, 2.0),
    ("cbrt", "cbrt(x)", f64::cbrt, 2.0),
    ("erf", "erf(x)", erf, 16.0),
    ("erfc", "erfc(x)", erfc, 16.0),
    ("sqrt", "sqrt(x)", f64::sqrt, 3.0),
    ("rsqrt", "rsqrt(x)", rsqrt, 2.0),
    // Division's bound, for the reciprocal an AVX-512 CPU estimates.
    ("recip", "1.0f / x", recip, 2.5),
];

extern "C" {
    // The C library's, in double (Rust's std has no erf).
    #[link_name = "erf"]
    fn c_erf(x: f64) -> f64;
    #[link_name = "erfc"]
    fn c_erfc(x: f64) -> f64;
}

fn erf(x: f64) -> f64 {
    unsafe { c_erf(x) }
}

fn erfc(x: f64) -> f64 {
    unsafe { c_erfc(x) }
}

fn asinpi(x: f64) -> f64 {
    x.asin() / std::f64::consts::PI
}

fn acospi(x: f64) -> f64 {
    x.acos() / std::f64::consts::PI
}

fn atanpi(x: f64) -> f64 {
    x.atan() / std::f64::consts::PI
}

/// x = sign (n/2 + r + 2i) exactly, |r| <= 1/4: (n mod 4, r); NaN r for
/// infinite or NaN x.
fn reduce_half(x: f64) -> (i64, f64) {
    if x.is_infinite() {
        return (0, f64::NAN);
    }
    let m = x.abs() % 2.0;
    let n = (2.0 * m).round();
    ((n as i64) & 3, m - n / 2.0)
}

fn sinpi(x: f64) -> f64 {
    let (q, r) = reduce_half(x);
    let (s, c) = (std::f64::consts::PI * r).sin_cos();
    let v = [s, c, -s, -c][q as usize];
    let v = if v == 0.0 { 0.0 } else { v };
    if x.is_sign_negative() {
        -v
    } else {
        v
    }
}

fn cospi(x: f64) -> f64 {
    let (q, r) = reduce_half(x);
    let (s, c) = (std::f64::consts::PI * r).sin_cos();
    [c, -s, -c, s][q as usize] + 0.0
}

fn tanpi(x: f64) -> f64 {
    let (q, r) = reduce_half(x);
    let v = if r == 0.0 {
        // Zeros and poles: signed by the quadrant (spec section 7.5.1).
        let v = if q & 1 == 1 { f64::INFINITY } else { 0.0 };
        if q & 2 == 2 {
            -v
        } else {
            v
        }
    } else if q & 1 == 1 {
        -1.0 / (std::f64::consts::PI * r).tan()
    } else {
        (std::f64::consts::PI * r).tan()
    };
    if x.is_sign_negative() {
        -v
    } else {
        v
    }
}

fn exp10(x: f64) -> f64 {
    10f64.powf(x)
}

fn rsqrt(x: f64) -> f64 {
    1.0 / x.sqrt()
}

fn recip(x: f64) -> f64 {
    1.0 / x
}

/// |got - want| in ulps of `want` rounded to float (the spec's measure);
/// NaNs must match NaNs, infinities must be exact.
fn float_ulps(got: f32, want: f64) -> f64 {
    if want.is_nan() {
        return if got.is_nan() { 0.0 } else { f64::INFINITY };
    }
    if got.is_nan() {
        return f64::INFINITY;
    }
    let w = want as f32;
    if w.is_infinite() || got.is_infinite() {
        // A finite result just past the largest float rounds to infinity.
        return if got == w { 0.0 } else { f64::INFINITY };
    }
    // The ulp of the float nearest `want`: denormal spacing at the bottom.
    let e = if w == 0.0 {
        -126
    } else {
        (w.abs().log2().floor() as i32).max(-126)
    };
    let ulp = 2f64.powi(e - 23);
    (got as f64 - want).abs() / ulp
}

const CHUNK: usize = 1 << 24;

#[test]
fn every_float_input_of_the_one_argument_functions() {
    let Some(asked) = std::env::var("FERROCL_EXHAUSTIVE").ok() else {
        eprintln!("set FERROCL_EXHAUSTIVE=sin,exp,... (or all) to run");
        return;
    };
    let names: Vec<&str> = asked.split(',').map(str::trim).collect();
    let cases: Vec<&Case> = CASES
        .iter()
        .filter(|c| names.contains(&"all") || names.contains(&c.0))
        .collect();
    assert!(
        !cases.is_empty(),
        "no function named in FERROCL_EXHAUSTIVE={asked}"
    );
    let e = Env::new();
    let out = e.buffer(CHUNK * 4);
    let mut failures = Vec::new();
    for &&(name, expr, reference, bound) in &cases {
        let src = format!(
            "__kernel void k(__global float* out, uint base) {{\n\
             uint i = base + (uint)get_global_id(0);\n\
             float x = as_float(i);\n\
             out[get_global_id(0)] = {expr};\n}}"
        );
        let (_p, k) = e.kernel(&src, "k");
        ok(set_mem(k.get(), 0, &out), "arg 0");
        let (mut worst, mut at) = (0f64, 0u32);
        for chunk in 0..(1u64 << 32) / CHUNK as u64 {
            let base = (chunk * CHUNK as u64) as u32;
            ok(set_arg(k.get(), 1, &base), "arg 1");
            e.run(&k, &[CHUNK], None);
            let got = e.read::<f32>(&out, 0, CHUNK);
            for (j, g) in got.iter().enumerate() {
                let bits = base + j as u32;
                let err = float_ulps(*g, reference(f32::from_bits(bits) as f64));
                if err > worst {
                    (worst, at) = (err, bits);
                }
            }
        }
        let x = f32::from_bits(at);
        println!("{name:>6}: max {worst:.3} ulp (bound {bound}) at {x:e} ({at:#010x})");
        if worst > bound {
            failures.push(format!("{name}: {worst:.3} ulp at {x:e}"));
        }
    }
    assert!(failures.is_empty(), "over the bound: {failures:?}");
}
