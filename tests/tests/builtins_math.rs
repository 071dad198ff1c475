//! The math builtins (OpenCL C 3.0 section 6.15.2) for float and double
//! against MPFR's correctly rounded results, in ulps, within the spec's
//! bounds (OpenCL 1.2 section 7.4, tables 7.1 and 7.2). Each function runs
//! on at least 10^5 inputs (special values first, then random bit patterns,
//! values near 0 and 1, denormals and large values) through one kernel per
//! type; the vector forms are checked lane by lane against the scalar form.

use ferrocl_tests::*;
use rug::float::Round;
use rug::ops::Pow;
use rug::Float;

const M: usize = 100_000;

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
    /// Precision, minimum exponent (of the smallest normal, as 2^(e-1)).
    fn prec(self) -> (i32, i32) {
        match self {
            Ty::F32 => (24, -125),
            Ty::F64 => (53, -1021),
        }
    }
    fn max(self) -> f64 {
        match self {
            Ty::F32 => f32::MAX as f64,
            Ty::F64 => f64::MAX,
        }
    }
}

/// The reference of one output.
enum Ref {
    /// Correctly rounded through MPFR (high precision value).
    Mp(Float),
    /// An exact value (bit-exact comparison, NaN matches any NaN).
    Exact(f64),
    /// Not checked (an unspecified output).
    Skip,
}

const P: u32 = 160;

fn mp(x: f64) -> Float {
    Float::with_val(P, x)
}

type RefFn = fn(f64, f64, i32, Ty) -> Ref;

struct Func {
    name: &'static str,
    /// OpenCL C statement(s) writing OUT (and OUT2 / IOUT) from A, B, N.
    code: &'static str,
    /// Bound in ulps for float and double; None: exact.
    bound: (f64, f64),
    /// How the second argument is drawn.
    b_kind: BKind,
    reference: RefFn,
    /// Reference of the second output (OUT2 / IOUT), if any.
    second: Option<RefFn>,
}

#[derive(Clone, Copy, PartialEq)]
enum BKind {
    None,
    Any,
    Int,
}

fn mpf(f: impl Fn(Float) -> Float, x: f64) -> Ref {
    Ref::Mp(f(mp(x)))
}

fn funcs() -> Vec<Func> {
    use BKind::*;
    macro_rules! u {
        ($name:expr, $b:expr, $f:expr) => {
            Func {
                name: $name,
                code: concat!("OUT = ", $name, "(A);"),
                bound: $b,
                b_kind: None,
                reference: |a, _, _, _| mpf($f, a),
                second: Option::None,
            }
        };
    }
    macro_rules! bin {
        ($name:expr, $b:expr, $f:expr) => {
            Func {
                name: $name,
                code: concat!("OUT = ", $name, "(A, B);"),
                bound: $b,
                b_kind: Any,
                reference: |a, b, _, _| $f(a, b),
                second: Option::None,
            }
        };
    }
    let pi = || Float::with_val(P, rug::float::Constant::Pi);
    vec![
        u!("sin", (4.0, 4.0), |x| x.sin()),
        u!("cos", (4.0, 4.0), |x| x.cos()),
        u!("tan", (5.0, 5.0), |x| x.tan()),
        u!("asin", (4.0, 4.0), |x| x.asin()),
        u!("acos", (4.0, 4.0), |x| x.acos()),
        u!("atan", (5.0, 5.0), |x| x.atan()),
        u!("sinh", (4.0, 4.0), |x| x.sinh()),
        u!("cosh", (4.0, 4.0), |x| x.cosh()),
        u!("tanh", (5.0, 5.0), |x| x.tanh()),
        u!("asinh", (4.0, 4.0), |x| x.asinh()),
        u!("acosh", (4.0, 4.0), |x| x.acosh()),
        u!("atanh", (5.0, 5.0), |x| x.atanh()),
        u!("asinpi", (5.0, 5.0), |x| x.asin()
            / Float::with_val(P, rug::float::Constant::Pi)),
        u!("acospi", (5.0, 5.0), |x| x.acos()
            / Float::with_val(P, rug::float::Constant::Pi)),
        u!("atanpi", (5.0, 5.0), |x| x.atan()
            / Float::with_val(P, rug::float::Constant::Pi)),
        Func {
            name: "sinpi",
            code: "OUT = sinpi(A);",
            bound: (4.0, 4.0),
            b_kind: None,
            reference: |a, _, _, _| trig_pi(a, |x| x.sin(), true),
            second: Option::None,
        },
        Func {
            name: "cospi",
            code: "OUT = cospi(A);",
            bound: (4.0, 4.0),
            b_kind: None,
            reference: |a, _, _, _| trig_pi(a, |x| x.cos(), false),
            second: Option::None,
        },
        Func {
            name: "tanpi",
            code: "OUT = tanpi(A);",
            bound: (6.0, 6.0),
            b_kind: None,
            reference: |a, _, _, _| tanpi_ref(a),
            second: Option::None,
        },
        u!("exp", (3.0, 3.0), |x| x.exp()),
        u!("exp2", (3.0, 3.0), |x| x.exp2()),
        u!("exp10", (3.0, 3.0), |x| x.exp10()),
        u!("expm1", (3.0, 3.0), |x| x.exp_m1()),
        u!("log", (3.0, 3.0), |x| x.ln()),
        u!("log2", (3.0, 3.0), |x| x.log2()),
        u!("log10", (3.0, 3.0), |x| x.log10()),
        u!("log1p", (2.0, 2.0), |x| x.ln_1p()),
        u!("cbrt", (2.0, 2.0), |x| x.cbrt()),
        u!("erf", (16.0, 16.0), |x| x.erf()),
        u!("erfc", (16.0, 16.0), |x| x.erfc()),
        u!("tgamma", (16.0, 16.0), |x| x.gamma()),
        u!("sqrt", (3.0, 0.0), |x| x.sqrt()),
        u!("rsqrt", (3.0, 2.0), |x| if x.is_zero() {
            // 1 / sqrt(-0) = -inf
            Float::with_val(P, 1) / x
        } else {
            x.recip_sqrt()
        }),
        Func {
            name: "lgamma_r",
            code: "OUT = lgamma_r(A, IOUT);",
            // Undefined in the spec: checked to 16 ulps away from its zeros.
            bound: (16.0, 16.0),
            b_kind: None,
            reference: |a, _, _, _| lgamma_ref(a),
            second: Some(|a, _, _, _| {
                if a.is_nan() || a.is_infinite() {
                    Ref::Skip
                } else if a <= 0.0 && a == a.floor() {
                    // Zero and the negative integers (OpenCL C 7.5.1).
                    Ref::Exact(0.0)
                } else {
                    let (_, o) = mp(a).ln_abs_gamma();
                    Ref::Exact(if o == std::cmp::Ordering::Less {
                        -1.0
                    } else {
                        1.0
                    })
                }
            }),
        },
        bin!("atan2", (6.0, 6.0), |a, b| Ref::Mp(mp(a).atan2(&mp(b)))),
        bin!("atan2pi", (6.0, 6.0), |a, b| Ref::Mp(
            mp(a).atan2(&mp(b)) / Float::with_val(P, rug::float::Constant::Pi)
        )),
        bin!("pow", (16.0, 16.0), |a, b| pow_ref(a, b)),
        bin!("powr", (16.0, 16.0), |a: f64, b: f64| powr_ref(a, b)),
        bin!("hypot", (4.0, 4.0), |a, b| Ref::Mp(mp(a).hypot(&mp(b)))),
        bin!("fmod", (0.0, 0.0), |a, b| Ref::Exact(a % b)),
        bin!("remainder", (0.0, 0.0), |a, b| Ref::Mp(
            mp(a).remainder(&mp(b))
        )),
        bin!("fdim", (0.0, 0.0), |a: f64, b: f64| Ref::Exact(
            if a.is_nan() || b.is_nan() {
                f64::NAN
            } else if a > b {
                a - b
            } else {
                0.0
            }
        )),
        bin!("nextafter", (0.0, 0.0), |a, b| Ref::Exact(a + b)), // replaced per type
        Func {
            name: "remquo",
            code: "OUT = remquo(A, B, IOUT);",
            bound: (0.0, 0.0),
            b_kind: Any,
            reference: |a, b, _, _| Ref::Mp(mp(a).remainder(&mp(b))),
            second: Some(|a, b, _, _| {
                if !a.is_finite() || b.is_nan() || b == 0.0 {
                    return Ref::Skip;
                }
                Ref::Exact(quotient_low_bits(a, b) as f64)
            }),
        },
        Func {
            name: "pown",
            code: "OUT = pown(A, N);",
            bound: (16.0, 16.0),
            b_kind: Int,
            reference: |a, _, n, _| pow_ref(a, n as f64),
            second: Option::None,
        },
        Func {
            name: "rootn",
            code: "OUT = rootn(A, N);",
            bound: (16.0, 16.0),
            b_kind: Int,
            reference: |a, _, n, _| rootn_ref(a, n),
            second: Option::None,
        },
        Func {
            name: "ldexp",
            code: "OUT = ldexp(A, N);",
            bound: (0.0, 0.0),
            b_kind: Int,
            reference: |a, _, n, _| {
                if !a.is_finite() || a == 0.0 {
                    Ref::Exact(a)
                } else {
                    Ref::Mp(mp(a) << n)
                }
            },
            second: Option::None,
        },
        Func {
            name: "sincos",
            code: "OUT = sincos(A, OUT2);",
            bound: (4.0, 4.0),
            b_kind: None,
            reference: |a, _, _, _| mpf(|x| x.sin(), a),
            second: Some(|a, _, _, _| mpf(|x| x.cos(), a)),
        },
        Func {
            name: "fract",
            code: "OUT = fract(A, OUT2);",
            bound: (0.0, 0.0),
            b_kind: None,
            reference: |a, _, _, t| {
                let one_minus = match t {
                    Ty::F32 => 1.0 - f32::EPSILON as f64 / 2.0,
                    Ty::F64 => 1.0 - f64::EPSILON / 2.0,
                };
                Ref::Exact(if a.is_nan() {
                    a
                } else if a.is_infinite() || a == 0.0 {
                    0f64.copysign(a)
                } else {
                    // x - floor(x) rounded to the type, then clamped below 1.
                    let r = round_to(mp(a) - mp(a.floor()), t);
                    r.min(one_minus)
                })
            },
            second: Some(|a, _, _, _| Ref::Exact(a.floor())),
        },
        Func {
            name: "modf",
            code: "OUT = modf(A, OUT2);",
            bound: (0.0, 0.0),
            b_kind: None,
            reference: |a, _, _, _| {
                Ref::Exact(if a.is_infinite() {
                    0f64.copysign(a)
                } else {
                    (a - a.trunc()).copysign(a)
                })
            },
            second: Some(|a, _, _, _| Ref::Exact(a.trunc())),
        },
        Func {
            name: "frexp",
            code: "OUT = frexp(A, IOUT);",
            bound: (0.0, 0.0),
            b_kind: None,
            reference: |a, _, _, _| Ref::Exact(frexp(a).0),
            second: Some(|a, _, _, _| {
                if a.is_finite() {
                    Ref::Exact(frexp(a).1 as f64)
                } else {
                    Ref::Skip
                }
            }),
        },
        Func {
            name: "ilogb",
            code: "IOUT[0] = ilogb(A); OUT = 0;",
            bound: (0.0, 0.0),
            b_kind: None,
            reference: |_, _, _, _| Ref::Exact(0.0),
            second: Some(|a, _, _, _| {
                Ref::Exact(if a.is_nan() || a.is_infinite() {
                    i32::MAX as f64
                } else if a == 0.0 {
                    i32::MIN as f64
                } else {
                    (frexp(a).1 - 1) as f64
                })
            }),
        },
        Func {
            name: "logb",
            code: "OUT = logb(A);",
            bound: (0.0, 0.0),
            b_kind: None,
            reference: |a, _, _, _| {
                Ref::Exact(if a.is_nan() {
                    a
                } else if a.is_infinite() {
                    f64::INFINITY
                } else if a == 0.0 {
                    f64::NEG_INFINITY
                } else {
                    (frexp(a).1 - 1) as f64
                })
            },
            second: Option::None,
        },
        bin!("maxmag", (0.0, 0.0), |a: f64, b: f64| Ref::Exact(
            if a.abs() > b.abs() {
                a
            } else if b.abs() > a.abs() {
                b
            } else {
                a.max(b)
            }
        )),
        bin!("minmag", (0.0, 0.0), |a: f64, b: f64| Ref::Exact(
            if a.abs() < b.abs() {
                a
            } else if b.abs() < a.abs() {
                b
            } else {
                a.min(b)
            }
        )),
        bin!("copysign", (0.0, 0.0), |a: f64, b: f64| Ref::Exact(
            a.copysign(b)
        )),
        bin!("fmin", (0.0, 0.0), |a: f64, b: f64| Ref::Exact(a.min(b))),
        bin!("fmax", (0.0, 0.0), |a: f64, b: f64| Ref::Exact(a.max(b))),
        u!("fabs", (0.0, 0.0), |x| x.abs()),
        u!("floor", (0.0, 0.0), |x| x.floor()),
        u!("ceil", (0.0, 0.0), |x| x.ceil()),
        u!("trunc", (0.0, 0.0), |x| x.trunc()),
        u!("round", (0.0, 0.0), |x| x.round()),
        u!("rint", (0.0, 0.0), |x| x.round_even()),
        Func {
            name: "fma",
            code: "OUT = fma(A, B, A * 0.75f);",
            bound: (0.0, 0.0),
            b_kind: Any,
            reference: |a, b, _, t| {
                let c = round_to(mp(a) * 0.75f64, t);
                Ref::Mp(mp(a) * mp(b) + mp(c))
            },
            second: Option::None,
        },
    ]
    .into_iter()
    .map(|mut f| {
        let _ = &pi;
        if f.name == "nextafter" {
            f.reference = |a, b, _, t| Ref::Exact(nextafter(a, b, t));
        }
        f
    })
    .collect()
}

fn frexp(a: f64) -> (f64, i32) {
    if a == 0.0 || !a.is_finite() {
        return (a, 0);
    }
    let e = mp(a).get_exp().unwrap();
    // Scaled exactly by MPFR: 2^-e alone may not be a double (DBL_MAX, denormals).
    let mut m = mp(a);
    m >>= e;
    (m.to_f64(), e)
}

fn round_to(x: Float, t: Ty) -> f64 {
    match t {
        Ty::F32 => x.to_f32() as f64,
        Ty::F64 => x.to_f64(),
    }
}

fn nextafter(a: f64, b: f64, t: Ty) -> f64 {
    if a.is_nan() || b.is_nan() {
        return f64::NAN;
    }
    if a == b {
        return b;
    }
    match t {
        Ty::F32 => {
            let x = a as f32;
            let bits = if x == 0.0 {
                ((b as f32).to_bits() & 0x8000_0000) | 1
            } else if (a < b) == (x > 0.0) {
                x.to_bits() + 1
            } else {
                x.to_bits() - 1
            };
            f32::from_bits(bits) as f64
        }
        Ty::F64 => {
            let bits = if a == 0.0 {
                (b.to_bits() & (1 << 63)) | 1
            } else if (a < b) == (a > 0.0) {
                a.to_bits() + 1
            } else {
                a.to_bits() - 1
            };
            f64::from_bits(bits)
        }
    }
}

/// sin(pi x) or cos(pi x) with the exact reduction of x mod 2, and the
/// spec's signed zeros.
fn trig_pi(a: f64, f: fn(Float) -> Float, odd: bool) -> Ref {
    if !a.is_finite() {
        return Ref::Exact(f64::NAN);
    }
    let m = a.abs() % 2.0; // exact
    let pi = Float::with_val(P, rug::float::Constant::Pi);
    let v = f(pi * mp(m));
    let exact_zero = if odd {
        m == 0.0 || m == 1.0
    } else {
        m == 0.5 || m == 1.5
    };
    if exact_zero {
        return Ref::Exact(if odd { 0f64.copysign(a) } else { 0.0 });
    }
    Ref::Mp(if odd && a < 0.0 { -v } else { v })
}

fn tanpi_ref(a: f64) -> Ref {
    if !a.is_finite() {
        return Ref::Exact(f64::NAN);
    }
    let m = a.abs() % 2.0;
    let fl = a.floor();
    let odd_fl = fl % 2.0 != 0.0;
    if m.fract() == 0.0 {
        let odd = m == 1.0;
        return Ref::Exact(if odd {
            -(0f64.copysign(a))
        } else {
            0f64.copysign(a)
        });
    }
    if m.fract() == 0.5 {
        return Ref::Exact(if odd_fl {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    let pi = Float::with_val(P, rug::float::Constant::Pi);
    let v = (pi * mp(m)).tan();
    Ref::Mp(if a < 0.0 { -v } else { v })
}

/// The low 7 bits of round(a / b) (ties to even), with the sign of a / b:
/// exact for any exponents, from |a| mod 128|b| (exact in MPFR), whose
/// quotient by |b| is below 128 and rounds the same way.
fn quotient_low_bits(a: f64, b: f64) -> i32 {
    if b.is_infinite() {
        return 0;
    }
    let r1 = mp(a.abs()) % &(mp(b.abs()) * 128u32);
    let q = (r1 / mp(b.abs())).round_even().to_f64() as i32 & 127;
    if (a < 0.0) != (b < 0.0) {
        -q
    } else {
        q
    }
}

fn lgamma_ref(a: f64) -> Ref {
    if a.is_nan() {
        return Ref::Exact(a);
    }
    if a.is_infinite() || (a <= 0.0 && a == a.floor()) {
        return Ref::Exact(f64::INFINITY);
    }
    Ref::Mp(mp(a).ln_abs_gamma().0)
}

fn pow_ref(a: f64, b: f64) -> Ref {
    // The C99 / OpenCL special cases are MPFR's too.
    Ref::Mp(mp(a).pow(&mp(b)))
}

fn powr_ref(a: f64, b: f64) -> Ref {
    if a < 0.0
        || a.is_nan()
        || b.is_nan()
        || (a == 0.0 && b == 0.0)
        || (a.is_infinite() && b == 0.0)
        || (a == 1.0 && b.is_infinite())
    {
        return Ref::Exact(f64::NAN);
    }
    Ref::Mp(mp(a.abs()).pow(&mp(b)))
}

fn rootn_ref(a: f64, n: i32) -> Ref {
    if n == 0 || (a < 0.0 && n % 2 == 0) || a.is_nan() {
        return Ref::Exact(f64::NAN);
    }
    let r = if n > 0 {
        mp(a).root(n as u32)
    } else {
        mp(a).root(n.unsigned_abs()).recip()
    };
    Ref::Mp(r)
}

/// The error of `got` against `r` in ulps of the type (ulp of the
/// reference, at least the smallest denormal's).
fn ulps(got: f64, r: &Float, t: Ty) -> f64 {
    let (p, emin) = t.prec();
    if r.is_nan() {
        return if got.is_nan() { 0.0 } else { f64::INFINITY };
    }
    let rounded = round_to(r.clone(), t);
    if got.is_nan() {
        return f64::INFINITY;
    }
    if got.is_infinite() || rounded.is_infinite() {
        if got == rounded {
            return 0.0;
        }
        // A finite result just below the overflow threshold.
        if got.is_infinite() && r.clone().abs() > t.max() && got.signum() == r.to_f64().signum() {
            return 1.0;
        }
        return f64::INFINITY;
    }
    if r.is_zero() {
        return if got == 0.0 { 0.0 } else { f64::INFINITY };
    }
    let e = r.get_exp().unwrap().max(emin);
    let diff = Float::with_val(P, mp(got) - r);
    let ulp = Float::with_val(P, 1) << (e - p);
    (diff / ulp).abs().to_f64()
}

fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

fn specials(t: Ty) -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        1.5,
        -1.5,
        3.0,
        -3.0,
        0.25,
        -0.25,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        10.0,
        -10.0,
        100.0,
        -100.5,
        std::f64::consts::PI,
        -std::f64::consts::PI,
        170.5,
        -170.5,
        35.0,
        -35.5,
        1e-5,
        -1e-5,
    ];
    match t {
        Ty::F32 => v.extend([
            f32::MAX as f64,
            f32::MIN as f64,
            f32::MIN_POSITIVE as f64,
            -f32::MIN_POSITIVE as f64,
            1e-45,
            -1e-45,
            1e-40,
            -1e-40,
            88.72,
            -103.9,
            0.99999994,
            1.0000001,
        ]),
        Ty::F64 => v.extend([
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            1e-310,
            -1e-310,
            709.78,
            -745.1,
            1.0 - f64::EPSILON / 2.0,
            1.0 + f64::EPSILON,
        ]),
    }
    v
}

/// Inputs: specials, then random bit patterns, values in [-4, 4], values of
/// magnitude 2^-30..2^30, denormals, values near 1, large values.
fn inputs(t: Ty, seed: u64) -> Vec<f64> {
    let mut v: Vec<f64> = specials(t)
        .into_iter()
        .map(|v| if t == Ty::F32 { v as f32 as f64 } else { v })
        .collect();
    let mut x = seed;
    while v.len() < M {
        let r = next(&mut x);
        let u = (r >> 11) as f64 / (1u64 << 53) as f64; // [0, 1)
        let s = if r & 1 == 1 { -1.0 } else { 1.0 };
        let val = match v.len() % 6 {
            0 => match t {
                Ty::F32 => f32::from_bits((r >> 32) as u32) as f64,
                Ty::F64 => f64::from_bits(r),
            },
            1 => s * u * 4.0,
            2 => s * (1.0 + u) * 2f64.powi(((r >> 3) % 61) as i32 - 30),
            3 => match t {
                Ty::F32 => f32::from_bits(((r >> 40) as u32) & 0x807f_ffff) as f64,
                Ty::F64 => f64::from_bits(r & 0x800f_ffff_ffff_ffff),
            },
            4 => 1.0 + s * u * 2f64.powi(-(((r >> 3) % 30) as i32)),
            _ => s * (1.0 + u) * 2f64.powi(((r >> 3) % 120) as i32),
        };
        let val = if t == Ty::F32 { val as f32 as f64 } else { val };
        if !val.is_nan() || r % 64 == 0 {
            v.push(val);
        }
    }
    v
}

fn kernel_source(fs: &[Func], t: Ty) -> String {
    let ty = t.name();
    let mut s = format!(
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
         __kernel void k(__global const {ty}* a, __global const {ty}* b,\n\
         __global const int* n, __global {ty}* out, __global {ty}* out2, __global int* iout) {{\n\
         size_t i = get_global_id(0);\n\
         {ty} A = a[i], B = b[i]; int N = n[i];\n"
    );
    for (fi, f) in fs.iter().enumerate() {
        let code = f
            .code
            .replace("OUT2", &format!("(out2 + {} + i)", fi * M))
            .replace("IOUT", &format!("(iout + {} + i)", fi * M))
            .replace("OUT", &format!("out[{} + i]", fi * M));
        let code = if t == Ty::F64 {
            code.replace("0.75f", "0.75")
        } else {
            code
        };
        s += &format!("  {{ {code} }}\n");
    }
    s + "}\n"
}

struct Run {
    a: Vec<f64>,
    b: Vec<f64>,
    n: Vec<i32>,
    out: Vec<f64>,
    out2: Vec<f64>,
    iout: Vec<i32>,
}

fn run(e: &Env, fs: &[Func], t: Ty) -> Run {
    let a = inputs(t, 0x1234_5678_9abc_def1);
    let mut b = inputs(t, 0x0fed_cba9_8765_4321);
    b.rotate_left(7);
    let mut x = 99u64;
    let n: Vec<i32> = (0..M)
        .map(|i| {
            let r = next(&mut x);
            match i % 3 {
                0 => (r % 9) as i32 - 4,
                1 => (r % 200) as i32 - 100,
                _ => r as i32,
            }
        })
        .collect();
    run_on(e, fs, t, a, b, n)
}

/// Runs `fs` on the inputs a, b, n (M of each).
fn run_on(e: &Env, fs: &[Func], t: Ty, a: Vec<f64>, b: Vec<f64>, n: Vec<i32>) -> Run {
    let src = kernel_source(fs, t);
    let (_p, k) = e.kernel(&src, "k");
    let total = fs.len() * M;
    macro_rules! bufs {
        ($ty:ty) => {{
            let av: Vec<$ty> = a.iter().map(|&v| v as $ty).collect();
            let bv: Vec<$ty> = b.iter().map(|&v| v as $ty).collect();
            let ma = e.buffer_from(&av);
            let mb = e.buffer_from(&bv);
            let mn = e.buffer_from(&n);
            let mo = e.buffer(total * std::mem::size_of::<$ty>());
            let mo2 = e.buffer(total * std::mem::size_of::<$ty>());
            let mi = e.buffer_from(&vec![0i32; total]);
            for (i, m) in [&ma, &mb, &mn, &mo, &mo2, &mi].iter().enumerate() {
                ok(set_mem(k.get(), i as cl_uint, m), "set arg");
            }
            e.run(&k, &[M], None);
            let out: Vec<f64> = e
                .read::<$ty>(&mo, 0, total)
                .into_iter()
                .map(|v| v as f64)
                .collect();
            let out2: Vec<f64> = e
                .read::<$ty>(&mo2, 0, total)
                .into_iter()
                .map(|v| v as f64)
                .collect();
            (out, out2, e.read::<i32>(&mi, 0, total))
        }};
    }
    let (out, out2, iout) = match t {
        Ty::F32 => bufs!(f32),
        Ty::F64 => bufs!(f64),
    };
    Run {
        a,
        b,
        n,
        out,
        out2,
        iout,
    }
}

/// The largest error of each function and the failures, over all inputs.
fn check(fs: &[Func], t: Ty, r: &Run) -> Vec<String> {
    let threads = 2;
    let results: Vec<(usize, f64, Vec<String>)> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads)
            .map(|th| {
                s.spawn(move || {
                    let mut res = Vec::new();
                    for (fi, f) in fs.iter().enumerate().filter(|(i, _)| i % threads == th) {
                        let (mx, fails) = check_one(f, fi, t, r);
                        res.push((fi, mx, fails));
                    }
                    res
                })
            })
            .collect();
        hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let mut fails = Vec::new();
    let mut rows: Vec<_> = results.into_iter().collect();
    rows.sort_by_key(|r| r.0);
    for (fi, mx, f) in rows {
        eprintln!("{:>10} {:>7}: max {mx:.3} ulp", fs[fi].name, t.name());
        fails.extend(f);
    }
    fails
}

fn check_one(f: &Func, fi: usize, t: Ty, r: &Run) -> (f64, Vec<String>) {
    let bound = match t {
        Ty::F32 => f.bound.0,
        Ty::F64 => f.bound.1,
    };
    let mut mx = 0f64;
    let mut fails = Vec::new();
    for i in 0..M {
        let a = r.a[i];
        let b = if f.b_kind == BKind::Any { r.b[i] } else { 0.0 };
        let n = r.n[i];
        let got = r.out[fi * M + i];
        let mut check_val = |got: f64, rf: Ref, what: &str| {
            let err = match rf {
                Ref::Skip => 0.0,
                Ref::Exact(w) => {
                    let w = if f.name == "fdim" {
                        round_to(mp(w), t)
                    } else {
                        w
                    };
                    if (w.is_nan() && got.is_nan()) || got.to_bits() == w.to_bits() {
                        0.0
                    } else {
                        f64::INFINITY
                    }
                }
                Ref::Mp(w) => {
                    let e = ulps(got, &w, t);
                    // A bound of 0: correctly rounded.
                    let e = if bound == 0.0 && e <= 0.5 { 0.0 } else { e };
                    // Zeros of the result's sign must match when exact.
                    if e == 0.0
                        && got == 0.0
                        && w.is_zero()
                        && got.is_sign_negative() != w.is_sign_negative()
                    {
                        f64::INFINITY
                    } else {
                        e
                    }
                }
            };
            let err = if f.name == "lgamma_r" && what == "" && err > bound {
                // Near lgamma's zeros only an absolute bound makes sense.
                let w = lgamma_ref(a);
                match w {
                    Ref::Mp(w) => {
                        let abs = (mp(got) - w).abs().to_f64();
                        let eps = match t {
                            Ty::F32 => 1e-6,
                            Ty::F64 => 1e-14,
                        };
                        if abs < eps {
                            0.0
                        } else {
                            err
                        }
                    }
                    _ => err,
                }
            } else {
                err
            };
            if err.is_finite() {
                mx = mx.max(err);
            }
            if err > bound && fails.len() < 8 {
                fails.push(format!(
                    "{}{what}({a:e}, {b:e}, {n}) {}: got {got:e}, error {err} ulp > {bound}",
                    f.name,
                    t.name()
                ));
            }
        };
        check_val(got, (f.reference)(a, b, n, t), "");
        if let Some(second) = f.second {
            let g2 = if matches!(f.name, "sincos" | "fract" | "modf") {
                r.out2[fi * M + i]
            } else {
                r.iout[fi * M + i] as f64
            };
            let mut rf = second(a, b, n, t);
            if f.name == "remquo" {
                // The low 7 bits and the sign (the sign only matters when
                // they are not all zero).
                if let Ref::Exact(w) = rf {
                    let w = w as i32;
                    let g = g2 as i32;
                    let okq = w.signum() * g.signum() >= 0 && (w.abs() & 127) == (g.abs() & 127);
                    rf = Ref::Exact(if okq { g2 } else { w as f64 });
                }
            }
            check_val(g2, rf, "[2nd]");
        }
    }
    let _ = Round::Nearest;
    (mx, fails)
}

fn assert_no_failures(fails: Vec<String>) {
    assert!(
        fails.is_empty(),
        "{} failures:\n{}",
        fails.len(),
        fails.join("\n")
    );
}

fn check_type(t: Ty) {
    let e = Env::new();
    let fs = funcs();
    let r = run(&e, &fs, t);
    assert_no_failures(check(&fs, t, &r));
}

#[test]
fn math_float_against_mpfr() {
    check_type(Ty::F32);
}

/// Runs once the device reports cl_khr_fp64 (programs cannot use double
/// before).
#[test]
fn math_double_against_mpfr() {
    if !has_fp64() {
        return;
    }
    check_type(Ty::F64);
}

/// Inputs for pow, powr, pown and rootn (and the other functions of two
/// arguments): every pair of special values (with every special exponent
/// n), then pairs whose result is finite and nonzero or near the overflow
/// and underflow thresholds (y ln|x| spread over [-760, 720]), x near 1
/// with large y, negative x with integral y, pairs of about the same
/// magnitude, and large n.
fn pow_inputs(t: Ty) -> (Vec<f64>, Vec<f64>, Vec<i32>) {
    let sp: Vec<f64> = specials(t)
        .into_iter()
        .map(|v| if t == Ty::F32 { v as f32 as f64 } else { v })
        .collect();
    let ns = [
        0,
        1,
        -1,
        2,
        -2,
        3,
        -3,
        4,
        -5,
        7,
        -8,
        1023,
        -1075,
        i32::MAX,
        i32::MIN,
        i32::MIN + 1,
    ];
    let (mut a, mut b, mut n) = (Vec::new(), Vec::new(), Vec::new());
    for &x in &sp {
        for (j, &y) in sp.iter().enumerate() {
            a.push(x);
            b.push(y);
            n.push(ns[j % ns.len()]);
        }
    }
    for &x in &sp {
        for &k in &ns {
            a.push(x);
            b.push(k as f64);
            n.push(k);
        }
    }
    let mut r = 0x2545_f491_4f6c_dd1du64;
    let rt = |v: f64| if t == Ty::F32 { v as f32 as f64 } else { v };
    while a.len() < M {
        let u1 = (next(&mut r) >> 11) as f64 / (1u64 << 53) as f64;
        let u2 = (next(&mut r) >> 11) as f64 / (1u64 << 53) as f64;
        let bits = next(&mut r);
        let s = if bits & 1 == 1 { -1.0 } else { 1.0 };
        let (x, y, k) = match a.len() % 6 {
            // Any positive x, y so that y ln x is in [-760, 720].
            0 => {
                let x = rt(match t {
                    Ty::F32 => f32::from_bits((bits >> 33) as u32 & 0x7fff_ffff) as f64,
                    Ty::F64 => f64::from_bits(bits >> 1),
                });
                let y = rt((u1 * 1480.0 - 760.0) / x.ln());
                (x, y, (u2 * 2300.0) as i32 - 1150)
            }
            // x near 1, large y.
            1 => {
                let x = rt(1.0 + s * u1 * 2f64.powi(-(((bits >> 8) % 52) as i32)));
                let y = rt((u2 * 1480.0 - 760.0) / x.ln());
                (x, y, ((bits >> 20) % 2000) as i32 - 1000)
            }
            // Negative x, integral y (odd and even), results in range.
            2 => {
                let x = rt(-(0.25 + u1 * 8.0));
                let y = ((u2 * 1480.0 - 760.0) / x.abs().ln()).trunc();
                (x, rt(y), y.clamp(-2e9, 2e9) as i32)
            }
            // x in [-4, 4], y in [-8, 8].
            3 => (
                rt(s * u1 * 4.0),
                rt(u2 * 16.0 - 8.0),
                ((bits >> 8) % 41) as i32 - 20,
            ),
            // Random x, y of about its magnitude (hypot, atan2).
            4 => {
                let x = rt(match t {
                    Ty::F32 => f32::from_bits((bits >> 32) as u32) as f64,
                    Ty::F64 => f64::from_bits(bits),
                });
                (x, rt(x * (u1 * 4.0 - 2.0)), (u2 * 200.0) as i32 - 100)
            }
            // Random x, y in [-2, 2], n anything.
            _ => (
                rt(match t {
                    Ty::F32 => f32::from_bits((bits >> 32) as u32) as f64,
                    Ty::F64 => f64::from_bits(bits),
                }),
                rt(u1 * 4.0 - 2.0),
                next(&mut r) as i32,
            ),
        };
        if x.is_nan() || y.is_nan() {
            continue;
        }
        a.push(x);
        b.push(y);
        n.push(k);
    }
    a.truncate(M);
    b.truncate(M);
    n.truncate(M);
    (a, b, n)
}

/// pow, powr, pown, rootn, and hypot, atan2 and atan2pi for double on
/// pow_inputs.
#[test]
fn pow_double_against_mpfr() {
    if !has_fp64() {
        return;
    }
    let e = Env::new();
    let fs: Vec<Func> = funcs()
        .into_iter()
        .filter(|f| {
            matches!(
                f.name,
                "pow" | "powr" | "pown" | "rootn" | "hypot" | "atan2" | "atan2pi"
            )
        })
        .collect();
    let (a, b, n) = pow_inputs(Ty::F64);
    let r = run_on(&e, &fs, Ty::F64, a, b, n);
    assert_no_failures(check(&fs, Ty::F64, &r));
}

/// Runs the functions named in `names` on (a, b) for type `t` (fewer than M
/// inputs are padded with the first pair) and asserts their bounds.
fn check_named(names: &[&str], t: Ty, mut a: Vec<f64>, mut b: Vec<f64>) {
    let e = Env::new();
    let fs: Vec<Func> = funcs()
        .into_iter()
        .filter(|f| names.contains(&f.name))
        .collect();
    a.truncate(M);
    b.truncate(M);
    a.resize(M, a[0]);
    b.resize(M, b[0]);
    let r = run_on(&e, &fs, t, a, b, vec![0; M]);
    assert_no_failures(check(&fs, t, &r));
}

/// Pairs for fmod, remainder and remquo whose exponents lie far apart:
/// specials against tiny, huge and denormal divisors, then random
/// dividends of any magnitude over random divisors that are denormal, tiny,
/// of about the same magnitude or larger.
fn far_apart_pairs(t: Ty) -> (Vec<f64>, Vec<f64>) {
    let (max, min_den, min_norm) = match t {
        Ty::F32 => (f32::MAX as f64, 1e-45f32 as f64, f32::MIN_POSITIVE as f64),
        Ty::F64 => (f64::MAX, 5e-324, f64::MIN_POSITIVE),
    };
    let big = match t {
        Ty::F32 => 2f64.powi(127),
        Ty::F64 => 2f64.powi(1023),
    };
    let mut sp = specials(t);
    sp.extend([big, -big, 3.0 * min_den, min_norm * 1.5, max * 0.75]);
    let rt = |v: f64| if t == Ty::F32 { v as f32 as f64 } else { v };
    let sp: Vec<f64> = sp.into_iter().map(rt).collect();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for &x in &sp {
        for &y in &sp {
            a.push(x);
            b.push(y);
        }
    }
    let bits = |r: u64| match t {
        Ty::F32 => f32::from_bits((r >> 32) as u32) as f64,
        Ty::F64 => f64::from_bits(r),
    };
    let den = |r: u64| match t {
        Ty::F32 => f32::from_bits(((r >> 40) as u32) & 0x807f_ffff) as f64,
        Ty::F64 => f64::from_bits(r & 0x800f_ffff_ffff_ffff),
    };
    let mut r = 0x9e37_79b9_7f4a_7c15u64;
    for i in 0.. {
        if a.len() == M {
            break;
        }
        let x = bits(next(&mut r));
        let v = next(&mut r);
        let u = (v >> 11) as f64 / (1u64 << 53) as f64;
        // Denormal, near the smallest normal, near x, anything.
        let y = match i % 4 {
            0 => den(v),
            1 => rt((1.0 + u) * min_norm * 2f64.powi((v % 80) as i32 - 30)),
            2 => rt(x * (1.0 + u) * 2f64.powi((v % 40) as i32 - 20)),
            _ => bits(v),
        };
        if x.is_nan() || y.is_nan() || y == 0.0 {
            continue;
        }
        a.push(x);
        b.push(y);
    }
    (a, b)
}

#[test]
fn remainder_functions_on_far_apart_exponents() {
    for t in [Ty::F32, Ty::F64] {
        if t == Ty::F64 && !has_fp64() {
            continue;
        }
        let (a, b) = far_apart_pairs(t);
        check_named(&["fmod", "remainder", "remquo"], t, a, b);
    }
}

/// sin, cos, tan and sincos for double on arguments beyond the fast
/// reduction, up to the largest double: the classic hard cases (closest to
/// a multiple of pi/2), doubles nearest multiples of pi/2 below 2^53, and
/// random ones of every exponent from 2^20 to 2^1023.
#[test]
fn trig_double_on_huge_arguments() {
    if !has_fp64() {
        return;
    }
    let mut a: Vec<f64> = vec![
        // 0x1.6ac5b262ca1ffp+849, the double nearest a multiple of pi/2.
        6381956970095103.0 * 2f64.powi(797),
        -6381956970095103.0 * 2f64.powi(797),
        f64::MAX,
        -f64::MAX,
        1e308,
        1e300,
        1e22,
        2f64.powi(30),
        2f64.powi(30) - 1.0,
        -2f64.powi(30),
        2f64.powi(53),
        2f64.powi(1023),
    ];
    let half_pi = Float::with_val(P, rug::float::Constant::Pi) / 2u32;
    let mut r = 0x1234_5678_9abc_def1u64;
    while a.len() < M {
        let v = next(&mut r);
        let s = if v & 1 == 1 { -1.0 } else { 1.0 };
        let x = match a.len() % 3 {
            0 => {
                // k pi/2 rounded, for k below 2^52.
                let k = (next(&mut r) >> 12) >> (v % 24);
                (Float::with_val(P, k) * &half_pi).to_f64()
            }
            _ => {
                f64::from_bits((v >> 1 & 0x000f_ffff_ffff_ffff) | ((1043 + (v >> 53) % 1004) << 52))
            }
        };
        a.push(s * x);
    }
    let b = a.clone();
    check_named(&["sin", "cos", "tan", "sincos"], Ty::F64, a, b);
}
