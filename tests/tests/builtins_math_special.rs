//! The special values of the math builtins, exactly: the OpenCL C spec's
//! edge cases (OpenCL C 3.0 section 7.5.1, "Additional Requirements Beyond
//! C99 TC2") and those of C99 TC2 Annex F.9 it refers to, for every math
//! function, float and double. Each case runs through the scalar form and
//! through the 8-wide vector form (its lane among other cases' lanes), and
//! must give exactly the value the spec names: the sign of a zero, an
//! infinity, a NaN, 1, 0.25. Where the spec names an irrational value (pi/4
//! for atan2), the result must be within a few ulps of it.

use ferrocl_tests::*;

#[derive(Clone, Copy, PartialEq)]
enum Ty {
    F32,
    F64,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::F32 => "float",
            Ty::F64 => "double",
        }
    }
    /// The smallest positive denormal.
    fn denorm_min(self) -> f64 {
        match self {
            Ty::F32 => f32::from_bits(1) as f64,
            Ty::F64 => f64::from_bits(1),
        }
    }
    /// The largest value below 1.
    fn below_one(self) -> f64 {
        match self {
            Ty::F32 => 1.0 - 2f64.powi(-24),
            Ty::F64 => 1.0 - 2f64.powi(-53),
        }
    }
    /// The largest odd integer of the type.
    fn big_odd(self) -> f64 {
        match self {
            Ty::F32 => 2f64.powi(24) - 1.0,
            Ty::F64 => 2f64.powi(53) - 1.0,
        }
    }
    /// The ulp of |x| in the type (x normal or zero).
    fn ulp(self, x: f64) -> f64 {
        let (prec, min_exp) = match self {
            Ty::F32 => (24, -126),
            Ty::F64 => (53, -1022),
        };
        let e = if x == 0.0 {
            min_exp
        } else {
            x.abs().log2().floor() as i32
        };
        2f64.powi(e.max(min_exp) - (prec - 1))
    }
}

/// What the spec says a result is.
#[derive(Clone, Copy, Debug)]
enum Want {
    /// Exactly this value (the sign of a zero counts).
    Is(f64),
    /// A NaN.
    Nan,
    /// Within NEAR_ULPS of this (an irrational value such as pi/4).
    Near(f64),
    /// Not specified (e.g. lgamma_r's sign at an infinity).
    Any,
}

/// How far a result the spec gives as an irrational value may be from it.
const NEAR_ULPS: f64 = 4.0;

/// The spec's integer second output (frexp's exponent, remquo's quotient,
/// lgamma_r's sign) or result (ilogb).
#[derive(Clone, Copy, Debug)]
enum WantInt {
    Is(i32),
    Any,
}

#[derive(Clone, Debug)]
struct Case {
    /// OpenCL C statement(s) setting OUT (and OUT2 or IOUT) from A, B, C, N.
    code: String,
    a: f64,
    b: f64,
    c: f64,
    n: i32,
    want: Want,
    want2: Want,
    want_int: WantInt,
}

use Want::*;
const INF: f64 = f64::INFINITY;
const NAN: f64 = f64::NAN;

fn case(code: &str, a: f64, b: f64, want: Want) -> Case {
    Case {
        code: code.to_string(),
        a,
        b,
        c: 0.0,
        n: 0,
        want,
        want2: Any,
        want_int: WantInt::Any,
    }
}

/// `f(A)` for each (argument, result).
fn unary(cs: &mut Vec<Case>, f: &str, list: &[(f64, Want)]) {
    let code = format!("OUT = {f}(A);");
    cs.extend(list.iter().map(|&(a, w)| case(&code, a, 0.0, w)));
}

/// `f(A, B)` for each (arguments, result).
fn binary(cs: &mut Vec<Case>, f: &str, list: &[(f64, f64, Want)]) {
    let code = format!("OUT = {f}(A, B);");
    cs.extend(list.iter().map(|&(a, b, w)| case(&code, a, b, w)));
}

/// `f(A, N)` for each (arguments, result).
fn with_int(cs: &mut Vec<Case>, f: &str, list: &[(f64, i32, Want)]) {
    let code = format!("OUT = {f}(A, N);");
    cs.extend(list.iter().map(|&(a, n, w)| Case {
        n,
        ..case(&code, a, 0.0, w)
    }));
}

/// `f(A, &IOUT)` (or `f(A, B, &IOUT)`) for each (arguments, result, integer
/// output).
fn int_out(cs: &mut Vec<Case>, code: &str, list: &[(f64, f64, Want, WantInt)]) {
    cs.extend(list.iter().map(|&(a, b, w, wi)| Case {
        want_int: wi,
        ..case(code, a, b, w)
    }));
}

/// `f(A, &OUT2)` for each (argument, result, second result).
fn two_out(cs: &mut Vec<Case>, f: &str, list: &[(f64, Want, Want)]) {
    let code = format!("OUT = {f}(A, &OUT2);");
    cs.extend(list.iter().map(|&(a, w, w2)| Case {
        want2: w2,
        ..case(&code, a, 0.0, w)
    }));
}

/// Every case, for type `t`.
fn cases(t: Ty) -> Vec<Case> {
    let pi = std::f64::consts::PI;
    let (z, nz, i, ni) = (0.0, -0.0, INF, -INF);
    let mut cs = Vec::new();
    let cs_ = &mut cs;

    // Trigonometric functions (C99 F.9.1; OpenCL C 7.5.1 for the pi forms).
    unary(
        cs_,
        "acos",
        &[
            (1.0, Is(z)),
            (2.0, Nan),
            (-2.0, Nan),
            (i, Nan),
            (NAN, Nan),
            (-1.0, Near(pi)),
        ],
    );
    unary(
        cs_,
        "acospi",
        &[(1.0, Is(z)), (2.0, Nan), (-2.0, Nan), (ni, Nan), (NAN, Nan)],
    );
    unary(
        cs_,
        "asin",
        &[
            (z, Is(z)),
            (nz, Is(nz)),
            (2.0, Nan),
            (-2.0, Nan),
            (i, Nan),
            (NAN, Nan),
        ],
    );
    unary(
        cs_,
        "asinpi",
        &[
            (z, Is(z)),
            (nz, Is(nz)),
            (2.0, Nan),
            (-2.0, Nan),
            (ni, Nan),
            (NAN, Nan),
        ],
    );
    unary(
        cs_,
        "atan",
        &[
            (z, Is(z)),
            (nz, Is(nz)),
            (i, Near(pi / 2.0)),
            (ni, Near(-pi / 2.0)),
            (NAN, Nan),
        ],
    );
    unary(
        cs_,
        "atanpi",
        &[
            (z, Is(z)),
            (nz, Is(nz)),
            (i, Is(0.5)),
            (ni, Is(-0.5)),
            (NAN, Nan),
        ],
    );
    // atan2 and atan2pi: the same cases, in pi or in units of pi.
    for (f, unit) in [("atan2", pi), ("atan2pi", 1.0)] {
        let v = |k: f64| if unit == 1.0 { Is(k) } else { Near(k * unit) };
        binary(
            cs_,
            f,
            &[
                (z, nz, v(1.0)),
                (nz, nz, v(-1.0)),
                (z, z, Is(z)),
                (nz, z, Is(nz)),
                (z, -1.0, v(1.0)),
                (nz, -1.0, v(-1.0)),
                (z, 1.0, Is(z)),
                (nz, 1.0, Is(nz)),
                (-1.0, z, v(-0.5)),
                (-1.0, nz, v(-0.5)),
                (1.0, z, v(0.5)),
                (1.0, nz, v(0.5)),
                (1.0, ni, v(1.0)),
                (-1.0, ni, v(-1.0)),
                (1.0, i, Is(z)),
                (-1.0, i, Is(nz)),
                (i, 1.0, v(0.5)),
                (ni, 1.0, v(-0.5)),
                (i, -1.0, v(0.5)),
                (ni, -1.0, v(-0.5)),
                (i, ni, v(0.75)),
                (ni, ni, v(-0.75)),
                (i, i, v(0.25)),
                (ni, i, v(-0.25)),
                (NAN, 1.0, Nan),
                (1.0, NAN, Nan),
                (i, NAN, Nan),
            ],
        );
    }
    for f in ["cos", "cospi"] {
        unary(
            cs_,
            f,
            &[(z, Is(1.0)), (nz, Is(1.0)), (i, Nan), (ni, Nan), (NAN, Nan)],
        );
    }
    for f in ["sin", "tan", "sinpi", "tanpi"] {
        unary(
            cs_,
            f,
            &[(z, Is(z)), (nz, Is(nz)), (i, Nan), (ni, Nan), (NAN, Nan)],
        );
    }
    two_out(
        cs_,
        "sincos",
        &[
            (z, Is(z), Is(1.0)),
            (nz, Is(nz), Is(1.0)),
            (i, Nan, Nan),
            (ni, Nan, Nan),
            (NAN, Nan, Nan),
        ],
    );
    // cospi(n + 0.5) = +0; sinpi(n) = +0 for n > 0, -0 for n < 0.
    unary(
        cs_,
        "cospi",
        &[
            (0.5, Is(z)),
            (1.5, Is(z)),
            (2.5, Is(z)),
            (-0.5, Is(z)),
            (-1.5, Is(z)),
            (1000.5, Is(z)),
            (-4095.5, Is(z)),
        ],
    );
    unary(
        cs_,
        "sinpi",
        &[
            (1.0, Is(z)),
            (2.0, Is(z)),
            (4.0, Is(z)),
            (3.0, Is(z)),
            (-1.0, Is(nz)),
            (-2.0, Is(nz)),
            (-4.0, Is(nz)),
            (-3.0, Is(nz)),
            (t.big_odd(), Is(z)),
            (-t.big_odd(), Is(nz)),
            (2f64.powi(30), Is(z)),
            (-(2f64.powi(30)), Is(nz)),
        ],
    );
    // tanpi(n) = copysign(0, n) for even n, copysign(0, -n) for odd n;
    // tanpi(n + 0.5) = +inf for even n, -inf for odd n.
    unary(
        cs_,
        "tanpi",
        &[
            (2.0, Is(z)),
            (-2.0, Is(nz)),
            (1.0, Is(nz)),
            (-1.0, Is(z)),
            (3.0, Is(nz)),
            (-3.0, Is(z)),
            (t.big_odd(), Is(nz)),
            (-t.big_odd(), Is(z)),
            (2f64.powi(30), Is(z)),
            (-(2f64.powi(30)), Is(nz)),
            (0.5, Is(i)),
            (2.5, Is(i)),
            (1.5, Is(ni)),
            (-0.5, Is(ni)),
            (-1.5, Is(i)),
            (1000.5, Is(i)),
            (1001.5, Is(ni)),
        ],
    );

    // Hyperbolic functions (F.9.2).
    unary(
        cs_,
        "acosh",
        &[
            (1.0, Is(z)),
            (0.5, Nan),
            (-1.0, Nan),
            (ni, Nan),
            (i, Is(i)),
            (NAN, Nan),
        ],
    );
    unary(
        cs_,
        "asinh",
        &[
            (z, Is(z)),
            (nz, Is(nz)),
            (i, Is(i)),
            (ni, Is(ni)),
            (NAN, Nan),
        ],
    );
    unary(
        cs_,
        "atanh",
        &[
            (z, Is(z)),
            (nz, Is(nz)),
            (1.0, Is(i)),
            (-1.0, Is(ni)),
            (2.0, Nan),
            (-2.0, Nan),
            (i, Nan),
            (NAN, Nan),
        ],
    );
    unary(
        cs_,
        "cosh",
        &[
            (z, Is(1.0)),
            (nz, Is(1.0)),
            (i, Is(i)),
            (ni, Is(i)),
            (NAN, Nan),
        ],
    );
    unary(
        cs_,
        "sinh",
        &[
            (z, Is(z)),
            (nz, Is(nz)),
            (i, Is(i)),
            (ni, Is(ni)),
            (NAN, Nan),
        ],
    );
    unary(
        cs_,
        "tanh",
        &[
            (z, Is(z)),
            (nz, Is(nz)),
            (i, Is(1.0)),
            (ni, Is(-1.0)),
            (NAN, Nan),
        ],
    );

    // Exponential and logarithmic functions (F.9.3; exp10 7.5.1).
    for f in ["exp", "exp2", "exp10"] {
        unary(
            cs_,
            f,
            &[
                (z, Is(1.0)),
                (nz, Is(1.0)),
                (ni, Is(z)),
                (i, Is(i)),
                (NAN, Nan),
            ],
        );
    }
    unary(
        cs_,
        "expm1",
        &[
            (z, Is(z)),
            (nz, Is(nz)),
            (ni, Is(-1.0)),
            (i, Is(i)),
            (NAN, Nan),
        ],
    );
    int_out(
        cs_,
        "OUT = frexp(A, &IOUT);",
        &[
            (z, 0.0, Is(z), WantInt::Is(0)),
            (nz, 0.0, Is(nz), WantInt::Is(0)),
            (i, 0.0, Is(i), WantInt::Is(0)),
            (ni, 0.0, Is(ni), WantInt::Is(0)),
            (NAN, 0.0, Nan, WantInt::Is(0)),
            (
                t.denorm_min(),
                0.0,
                Is(0.5),
                WantInt::Is(if t == Ty::F32 { -148 } else { -1073 }),
            ),
        ],
    );
    // FP_ILOGB0 is INT_MIN and FP_ILOGBNAN INT_MAX (opencl-c-base.h); ilogb
    // of an infinity is INT_MAX.
    int_out(
        cs_,
        "IOUT = ilogb(A);",
        &[
            (z, 0.0, Any, WantInt::Is(i32::MIN)),
            (nz, 0.0, Any, WantInt::Is(i32::MIN)),
            (i, 0.0, Any, WantInt::Is(i32::MAX)),
            (ni, 0.0, Any, WantInt::Is(i32::MAX)),
            (NAN, 0.0, Any, WantInt::Is(i32::MAX)),
            (
                t.denorm_min(),
                0.0,
                Any,
                WantInt::Is(if t == Ty::F32 { -149 } else { -1074 }),
            ),
        ],
    );
    with_int(
        cs_,
        "ldexp",
        &[
            (z, 5, Is(z)),
            (nz, -5, Is(nz)),
            (i, -5, Is(i)),
            (ni, 5, Is(ni)),
            (1.5, 0, Is(1.5)),
            (NAN, 1, Nan),
        ],
    );
    for f in ["log", "log2", "log10"] {
        unary(
            cs_,
            f,
            &[
                (z, Is(ni)),
                (nz, Is(ni)),
                (1.0, Is(z)),
                (-1.0, Nan),
                (ni, Nan),
                (i, Is(i)),
                (NAN, Nan),
            ],
        );
    }
    unary(
        cs_,
        "log1p",
        &[
            (z, Is(z)),
            (nz, Is(nz)),
            (-1.0, Is(ni)),
            (-2.0, Nan),
            (ni, Nan),
            (i, Is(i)),
            (NAN, Nan),
        ],
    );
    unary(
        cs_,
        "logb",
        &[
            (z, Is(ni)),
            (nz, Is(ni)),
            (i, Is(i)),
            (ni, Is(i)),
            (NAN, Nan),
            (
                t.denorm_min(),
                Is(if t == Ty::F32 { -149.0 } else { -1074.0 }),
            ),
        ],
    );
    two_out(
        cs_,
        "modf",
        &[
            (z, Is(z), Is(z)),
            (nz, Is(nz), Is(nz)),
            (i, Is(z), Is(i)),
            (ni, Is(nz), Is(ni)),
            (NAN, Nan, Nan),
            (-2.0, Is(nz), Is(-2.0)),
            (-1.5, Is(-0.5), Is(-1.0)),
        ],
    );
    // fract (7.5.1): never 1 or more, never below 0.
    two_out(
        cs_,
        "fract",
        &[
            (z, Is(z), Is(z)),
            (nz, Is(nz), Is(nz)),
            (i, Is(z), Is(i)),
            (ni, Is(nz), Is(ni)),
            (NAN, Nan, Nan),
            (-t.denorm_min(), Is(t.below_one()), Is(-1.0)),
            (-(2f64.powi(-60)), Is(t.below_one()), Is(-1.0)),
            (-2.0, Is(z), Is(-2.0)),
        ],
    );

    // Power and absolute-value functions (F.9.4; pown, powr, rootn 7.5.1).
    unary(
        cs_,
        "cbrt",
        &[
            (z, Is(z)),
            (nz, Is(nz)),
            (i, Is(i)),
            (ni, Is(ni)),
            (NAN, Nan),
        ],
    );
    unary(
        cs_,
        "fabs",
        &[(z, Is(z)), (nz, Is(z)), (i, Is(i)), (ni, Is(i)), (NAN, Nan)],
    );
    binary(
        cs_,
        "hypot",
        &[
            (i, NAN, Is(i)),
            (NAN, ni, Is(i)),
            (ni, 1.0, Is(i)),
            (3.0, z, Is(3.0)),
            (-3.0, nz, Is(3.0)),
            (z, -3.0, Is(3.0)),
            (NAN, 1.0, Nan),
        ],
    );
    let odd = t.big_odd();
    let even = 2f64.powi(60);
    binary(
        cs_,
        "pow",
        &[
            (z, -3.0, Is(i)),
            (nz, -3.0, Is(ni)),
            (nz, -odd, Is(ni)),
            (z, -2.0, Is(i)),
            (nz, -2.0, Is(i)),
            (nz, -0.5, Is(i)),
            (nz, -even, Is(i)),
            (z, ni, Is(i)),
            (nz, ni, Is(i)),
            (z, 3.0, Is(z)),
            (nz, 3.0, Is(nz)),
            (nz, odd, Is(nz)),
            (nz, 2.0, Is(z)),
            (nz, 0.5, Is(z)),
            (nz, even, Is(z)),
            (z, i, Is(z)),
            (-1.0, i, Is(1.0)),
            (-1.0, ni, Is(1.0)),
            (1.0, NAN, Is(1.0)),
            (1.0, i, Is(1.0)),
            (1.0, -3.5, Is(1.0)),
            (NAN, z, Is(1.0)),
            (NAN, nz, Is(1.0)),
            (ni, z, Is(1.0)),
            (-2.0, nz, Is(1.0)),
            (-2.0, 0.5, Nan),
            (-2.0, -1.5, Nan),
            (0.5, ni, Is(i)),
            (-0.5, ni, Is(i)),
            (2.0, ni, Is(z)),
            (-2.0, ni, Is(z)),
            (0.5, i, Is(z)),
            (-0.5, i, Is(z)),
            (2.0, i, Is(i)),
            (-2.0, i, Is(i)),
            (ni, -3.0, Is(nz)),
            (ni, -odd, Is(nz)),
            (ni, -2.0, Is(z)),
            (ni, -0.5, Is(z)),
            (ni, 3.0, Is(ni)),
            (ni, odd, Is(ni)),
            (ni, 2.0, Is(i)),
            (ni, 0.5, Is(i)),
            (i, -1.0, Is(z)),
            (i, ni, Is(z)),
            (i, 1.0, Is(i)),
            (i, 0.5, Is(i)),
            (NAN, 1.0, Nan),
            (2.0, NAN, Nan),
            (-2.0, 3.0, Near(-8.0)),
        ],
    );
    with_int(
        cs_,
        "pown",
        &[
            (z, 0, Is(1.0)),
            (nz, 0, Is(1.0)),
            (i, 0, Is(1.0)),
            (ni, 0, Is(1.0)),
            (NAN, 0, Is(1.0)),
            (2.0, 0, Is(1.0)),
            (z, -1, Is(i)),
            (nz, -1, Is(ni)),
            (z, -3, Is(i)),
            (nz, -3, Is(ni)),
            (z, -2, Is(i)),
            (nz, -2, Is(i)),
            (z, 2, Is(z)),
            (nz, 2, Is(z)),
            (z, 1, Is(z)),
            (nz, 1, Is(nz)),
            (z, 3, Is(z)),
            (nz, 3, Is(nz)),
            (ni, 3, Is(ni)),
            (ni, -3, Is(nz)),
            (ni, 2, Is(i)),
            (NAN, 1, Nan),
        ],
    );
    binary(
        cs_,
        "powr",
        &[
            (2.0, z, Is(1.0)),
            (2.0, nz, Is(1.0)),
            (1.0, z, Is(1.0)),
            (z, -1.0, Is(i)),
            (nz, -1.0, Is(i)),
            (z, ni, Is(i)),
            (nz, ni, Is(i)),
            (z, 1.0, Is(z)),
            (nz, 1.0, Is(z)),
            (nz, i, Is(z)),
            (1.0, 2.0, Is(1.0)),
            (1.0, -1.0, Is(1.0)),
            (-1.0, 2.0, Nan),
            (-2.0, 0.5, Nan),
            (ni, 1.0, Nan),
            (z, z, Nan),
            (nz, nz, Nan),
            (z, nz, Nan),
            (i, z, Nan),
            (i, nz, Nan),
            (1.0, i, Nan),
            (1.0, ni, Nan),
            (2.0, NAN, Nan),
            (z, NAN, Nan),
            (NAN, 1.0, Nan),
            (NAN, z, Nan),
        ],
    );
    with_int(
        cs_,
        "rootn",
        &[
            (z, -1, Is(i)),
            (nz, -1, Is(ni)),
            (z, -3, Is(i)),
            (nz, -3, Is(ni)),
            (z, -2, Is(i)),
            (nz, -2, Is(i)),
            (z, 2, Is(z)),
            (nz, 2, Is(z)),
            (z, 1, Is(z)),
            (nz, 1, Is(nz)),
            (z, 3, Is(z)),
            (nz, 3, Is(nz)),
            (-1.0, 2, Nan),
            (-1.0, 4, Nan),
            (1.0, 0, Nan),
            (z, 0, Nan),
            (NAN, 3, Nan),
            (-8.0, 3, Near(-2.0)),
        ],
    );
    unary(
        cs_,
        "sqrt",
        &[
            (z, Is(z)),
            (nz, Is(nz)),
            (-1.0, Nan),
            (ni, Nan),
            (i, Is(i)),
            (NAN, Nan),
        ],
    );
    // rsqrt as 1/sqrt.
    unary(
        cs_,
        "rsqrt",
        &[
            (z, Is(i)),
            (nz, Is(ni)),
            (-1.0, Nan),
            (i, Is(z)),
            (NAN, Nan),
        ],
    );

    // Error and gamma functions (F.9.5; lgamma_r's sign 7.5.1).
    unary(
        cs_,
        "erf",
        &[
            (z, Is(z)),
            (nz, Is(nz)),
            (i, Is(1.0)),
            (ni, Is(-1.0)),
            (NAN, Nan),
        ],
    );
    unary(cs_, "erfc", &[(ni, Is(2.0)), (i, Is(z)), (NAN, Nan)]);
    unary(
        cs_,
        "lgamma",
        &[
            (1.0, Is(z)),
            (2.0, Is(z)),
            (z, Is(i)),
            (nz, Is(i)),
            (-1.0, Is(i)),
            (-2.0, Is(i)),
            (i, Is(i)),
            (ni, Is(i)),
            (NAN, Nan),
        ],
    );
    int_out(
        cs_,
        "OUT = lgamma_r(A, &IOUT);",
        &[
            (1.0, 0.0, Is(z), WantInt::Is(1)),
            (2.0, 0.0, Is(z), WantInt::Is(1)),
            (z, 0.0, Is(i), WantInt::Is(0)),
            (nz, 0.0, Is(i), WantInt::Is(0)),
            (-1.0, 0.0, Is(i), WantInt::Is(0)),
            (-2.0, 0.0, Is(i), WantInt::Is(0)),
            (i, 0.0, Is(i), WantInt::Any),
            (ni, 0.0, Is(i), WantInt::Any),
            (NAN, 0.0, Nan, WantInt::Any),
        ],
    );
    unary(
        cs_,
        "tgamma",
        &[
            (z, Is(i)),
            (nz, Is(ni)),
            (-1.0, Nan),
            (-2.0, Nan),
            (ni, Nan),
            (i, Is(i)),
            (NAN, Nan),
        ],
    );

    // Nearest integer functions (F.9.6; the negative fractions 7.5.1).
    for f in ["ceil", "floor", "rint", "round", "trunc"] {
        unary(
            cs_,
            f,
            &[
                (z, Is(z)),
                (nz, Is(nz)),
                (i, Is(i)),
                (ni, Is(ni)),
                (NAN, Nan),
            ],
        );
    }
    unary(
        cs_,
        "ceil",
        &[(-0.5, Is(nz)), (-0.25, Is(nz)), (-t.denorm_min(), Is(nz))],
    );
    unary(cs_, "floor", &[(0.5, Is(z)), (t.denorm_min(), Is(z))]);
    unary(
        cs_,
        "rint",
        &[
            (-0.5, Is(nz)),
            (-0.25, Is(nz)),
            (0.5, Is(z)),
            (2.5, Is(2.0)),
        ],
    );
    unary(
        cs_,
        "round",
        &[(-0.25, Is(nz)), (-0.5, Is(-1.0)), (2.5, Is(3.0))],
    );
    unary(
        cs_,
        "trunc",
        &[(-0.5, Is(nz)), (-0.25, Is(nz)), (-t.below_one(), Is(nz))],
    );

    // Remainder functions (F.9.7; remquo's quotient 7.5.1).
    binary(
        cs_,
        "fmod",
        &[
            (z, 2.0, Is(z)),
            (nz, 2.0, Is(nz)),
            (nz, ni, Is(nz)),
            (i, 2.0, Nan),
            (ni, 2.0, Nan),
            (2.0, z, Nan),
            (2.0, nz, Nan),
            (2.5, i, Is(2.5)),
            (-2.5, ni, Is(-2.5)),
            (z, NAN, Nan),
            (nz, NAN, Nan),
            (NAN, 2.0, Nan),
        ],
    );
    binary(
        cs_,
        "remainder",
        &[
            (z, 2.0, Is(z)),
            (nz, 2.0, Is(nz)),
            (i, 2.0, Nan),
            (ni, 2.0, Nan),
            (2.0, z, Nan),
            (2.0, nz, Nan),
            (2.5, i, Is(2.5)),
            (-2.5, ni, Is(-2.5)),
            (NAN, 2.0, Nan),
            (2.0, NAN, Nan),
        ],
    );
    int_out(
        cs_,
        "OUT = remquo(A, B, &IOUT);",
        &[
            (i, 2.0, Nan, WantInt::Is(0)),
            (ni, 2.0, Nan, WantInt::Is(0)),
            (2.0, z, Nan, WantInt::Is(0)),
            (2.0, nz, Nan, WantInt::Is(0)),
            (NAN, 2.0, Nan, WantInt::Is(0)),
            (2.0, NAN, Nan, WantInt::Is(0)),
            (NAN, z, Nan, WantInt::Is(0)),
            (i, NAN, Nan, WantInt::Is(0)),
            (z, 2.0, Is(z), WantInt::Is(0)),
            (nz, 2.0, Is(nz), WantInt::Is(0)),
        ],
    );

    // Manipulation, maximum, minimum and fma (F.9.8 to F.9.10; nextafter
    // and fdim 7.5.1).
    binary(
        cs_,
        "copysign",
        &[(1.0, nz, Is(-1.0)), (ni, z, Is(i)), (z, -1.0, Is(nz))],
    );
    binary(
        cs_,
        "nextafter",
        &[
            (nz, 1.0, Is(t.denorm_min())),
            (z, -1.0, Is(-t.denorm_min())),
            (t.denorm_min(), z, Is(z)),
            (z, nz, Is(nz)),
            (nz, z, Is(z)),
            (1.0, 1.0, Is(1.0)),
            (NAN, 1.0, Nan),
            (1.0, NAN, Nan),
            (i, i, Is(i)),
        ],
    );
    binary(
        cs_,
        "fdim",
        &[
            (1.0, NAN, Nan),
            (NAN, 1.0, Nan),
            (i, NAN, Nan),
            (NAN, i, Nan),
            (i, i, Is(z)),
            (2.0, 1.0, Is(1.0)),
            (1.0, 2.0, Is(z)),
        ],
    );
    for f in ["fmax", "fmin", "maxmag", "minmag"] {
        binary(
            cs_,
            f,
            &[(NAN, 1.0, Is(1.0)), (1.0, NAN, Is(1.0)), (NAN, NAN, Nan)],
        );
    }
    binary(cs_, "fmax", &[(ni, i, Is(i)), (2.0, -3.0, Is(2.0))]);
    binary(cs_, "fmin", &[(ni, i, Is(ni)), (2.0, -3.0, Is(-3.0))]);
    binary(
        cs_,
        "maxmag",
        &[(2.0, -3.0, Is(-3.0)), (-2.0, 2.0, Is(2.0))],
    );
    binary(
        cs_,
        "minmag",
        &[(2.0, -3.0, Is(2.0)), (-2.0, 2.0, Is(-2.0))],
    );
    let fma = |a: f64, b: f64, c: f64, w: Want| Case {
        c,
        ..case("OUT = fma(A, B, C);", a, b, w)
    };
    cs.extend([
        fma(i, z, 1.0, Nan),
        fma(z, ni, 1.0, Nan),
        fma(i, 1.0, ni, Nan),
        fma(ni, 1.0, i, Nan),
        fma(i, 1.0, 1.0, Is(i)),
        fma(i, 2.0, i, Is(i)),
        fma(1.0, 1.0, NAN, Nan),
        fma(nz, 1.0, nz, Is(nz)),
    ]);
    cs
}

/// One program with a scalar kernel `s<j>` and an 8-wide kernel `v<j>` for
/// each distinct statement j of `codes`.
fn source(codes: &[&str], t: Ty) -> String {
    let ty = t.name();
    let mut s = String::from("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
    for (j, code) in codes.iter().enumerate() {
        for (kind, f, i) in [
            ("s", ty.to_string(), "int"),
            ("v", format!("{ty}8"), "int8"),
        ] {
            let (load, loadi, store, storei) = if kind == "s" {
                ("X[i]", "X[i]", "X[i] = V;", "X[i] = V;")
            } else {
                (
                    "vload8(i, X)",
                    "vload8(i, X)",
                    "vstore8(V, i, X);",
                    "vstore8(V, i, X);",
                )
            };
            let ld = |x: &str| load.replace('X', x);
            s += &format!(
                "__kernel void {kind}{j}(__global const {ty}* a, __global const {ty}* b,\n\
                 __global const {ty}* c, __global const int* n, __global {ty}* out,\n\
                 __global {ty}* out2, __global int* iout) {{\n\
                 size_t i = get_global_id(0);\n\
                 {f} A = {}, B = {}, C = {};\n\
                 {i} N = {};\n\
                 {f} OUT = 0, OUT2 = 0;\n\
                 {i} IOUT = 0;\n\
                 {{ {code} }}\n\
                 {} {} {}\n}}\n",
                ld("a"),
                ld("b"),
                ld("c"),
                loadi.replace('X', "n"),
                store.replace('X', "out").replace('V', "OUT"),
                store.replace('X', "out2").replace('V', "OUT2"),
                storei.replace('X', "iout").replace('V', "IOUT"),
            );
        }
    }
    s
}

/// The results of one kernel over its cases: (out, out2, iout).
type Results = (Vec<f64>, Vec<f64>, Vec<i32>);

/// Runs kernel `name` on `cs` (padded to a multiple of 8 by repeating the
/// last case, for the vector kernel), `items` work-items.
fn run(e: &Env, prog: &Prog, name: &str, cs: &[&Case], t: Ty, items: usize) -> Results {
    let len = cs.len().div_ceil(8) * 8;
    let pick = |f: &dyn Fn(&Case) -> f64| -> Vec<f64> {
        (0..len).map(|k| f(cs[k.min(cs.len() - 1)])).collect()
    };
    let (a, b, c) = (pick(&|x| x.a), pick(&|x| x.b), pick(&|x| x.c));
    let n: Vec<i32> = (0..len).map(|k| cs[k.min(cs.len() - 1)].n).collect();
    let k = ok(create_kernel(prog.get(), name), "clCreateKernel");
    macro_rules! go {
        ($ty:ty) => {{
            let conv = |v: &[f64]| -> Vec<$ty> { v.iter().map(|&x| x as $ty).collect() };
            let bufs = [
                e.buffer_from(&conv(&a)),
                e.buffer_from(&conv(&b)),
                e.buffer_from(&conv(&c)),
                e.buffer_from(&n),
                e.buffer_from(&vec![0 as $ty; len]),
                e.buffer_from(&vec![0 as $ty; len]),
                e.buffer_from(&vec![0i32; len]),
            ];
            e.run_with(&k, &bufs, &[items], None);
            let back = |m: &Mem| -> Vec<f64> {
                e.read::<$ty>(m, 0, cs.len())
                    .into_iter()
                    .map(|v| v as f64)
                    .collect()
            };
            (
                back(&bufs[4]),
                back(&bufs[5]),
                e.read::<i32>(&bufs[6], 0, cs.len()),
            )
        }};
    }
    match t {
        Ty::F32 => go!(f32),
        Ty::F64 => go!(f64),
    }
}

/// Whether `got` is what `want` says, in type `t`.
fn matches(got: f64, want: Want, t: Ty) -> bool {
    match want {
        Is(v) => {
            let v = if t == Ty::F32 { v as f32 as f64 } else { v };
            got.to_bits() == v.to_bits()
        }
        Nan => got.is_nan(),
        Near(v) => {
            got.is_finite() && (got - v).abs() <= NEAR_ULPS * t.ulp(v) && got.signum() == v.signum()
        }
        Any => true,
    }
}

fn show(x: f64) -> String {
    if x.is_finite() && x != 0.0 && x == x.trunc() && x.abs() < 1e9 {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// Every case of type `t`, through both forms; returns the failures.
fn check_type(t: Ty) -> Vec<String> {
    let e = Env::new();
    let all = cases(t);
    let mut codes: Vec<&str> = Vec::new();
    for c in &all {
        if !codes.contains(&c.code.as_str()) {
            codes.push(&c.code);
        }
    }
    let prog = e.program(&source(&codes, t), "");
    let mut fails = Vec::new();
    for (j, code) in codes.iter().enumerate() {
        let cs: Vec<&Case> = all.iter().filter(|c| c.code == *code).collect();
        let scalar = run(
            &e,
            &prog,
            &format!("s{j}"),
            &cs,
            t,
            cs.len().div_ceil(8) * 8,
        );
        let vector = run(&e, &prog, &format!("v{j}"), &cs, t, cs.len().div_ceil(8));
        for (form, (out, out2, iout)) in [("scalar", scalar), ("8-wide", vector)] {
            for (k, c) in cs.iter().enumerate() {
                let ok = matches(out[k], c.want, t)
                    && matches(out2[k], c.want2, t)
                    && match c.want_int {
                        WantInt::Is(v) => iout[k] == v,
                        WantInt::Any => true,
                    };
                if !ok {
                    fails.push(format!(
                        "{} {form}: `{}` with A = {}, B = {}, C = {}, N = {}: got {}, {}, {}; want {:?}, {:?}, {:?}",
                        t.name(),
                        c.code,
                        show(c.a),
                        show(c.b),
                        show(c.c),
                        c.n,
                        show(out[k]),
                        show(out2[k]),
                        iout[k],
                        c.want,
                        c.want2,
                        c.want_int
                    ));
                }
            }
        }
    }
    fails
}

fn assert_none(fails: Vec<String>) {
    assert!(
        fails.is_empty(),
        "{} failures:\n{}",
        fails.len(),
        fails.join("\n")
    );
}

#[test]
fn float_special_values_are_the_specs() {
    assert_none(check_type(Ty::F32));
}

#[test]
fn double_special_values_are_the_specs() {
    if !has_fp64() {
        return;
    }
    assert_none(check_type(Ty::F64));
}
