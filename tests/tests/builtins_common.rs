//! The common functions (OpenCL C 3.0 section 6.15.4) for float and every
//! vector width, lane by lane against the host. The double forms are in the
//! library too, but programs can only call them once the device reports
//! cl_khr_fp64.

use ferrocl_tests::*;

/// Elements per input array: a multiple of every width (2, 3, 4, 8, 16).
const M: usize = 240;
const WIDTHS: [usize; 6] = [1, 2, 3, 4, 8, 16];

/// How a result is compared with the host's.
#[derive(Clone, Copy)]
enum Cmp {
    /// Bit for bit (so -0.0 differs from +0.0; NaN matches any NaN).
    Exact,
    /// Within `rel` of the reference, relative to max(1, |reference|).
    Near(f32),
}

/// One lane's operands: the lane of each vector argument, and the scalars
/// (element 0 of the vector's lanes) for the vector-scalar forms.
struct In {
    a: f32,
    b: f32,
    c: f32,
    d: f32,
    sb: f32,
    sc: f32,
    sd: f32,
}

struct Func {
    name: &'static str,
    expr: &'static str,
    vector_only: bool,
    cmp: Cmp,
    reference: fn(&In) -> f32,
}

fn funcs() -> Vec<Func> {
    fn f(name: &'static str, expr: &'static str, cmp: Cmp, reference: fn(&In) -> f32) -> Func {
        Func {
            name,
            expr,
            vector_only: false,
            cmp,
            reference,
        }
    }
    fn vs(name: &'static str, expr: &'static str, cmp: Cmp, reference: fn(&In) -> f32) -> Func {
        Func {
            name,
            expr,
            vector_only: true,
            cmp,
            reference,
        }
    }
    use Cmp::*;
    vec![
        f(
            "max",
            "max(A, B)",
            Exact,
            |x| if x.a < x.b { x.b } else { x.a },
        ),
        f(
            "min",
            "min(A, B)",
            Exact,
            |x| if x.b < x.a { x.b } else { x.a },
        ),
        f("clamp", "clamp(A, B, D)", Exact, |x| x.a.max(x.b).min(x.d)),
        f("degrees", "degrees(A)", Near(2e-7), |x| {
            x.a * (180.0 / std::f32::consts::PI)
        }),
        f("radians", "radians(A)", Near(2e-7), |x| {
            x.a * (std::f32::consts::PI / 180.0)
        }),
        f("mix", "mix(A, B, C)", Near(1e-6), |x| {
            x.a + (x.b - x.a) * x.c
        }),
        f("step", "step(B, A)", Exact, |x| {
            if x.a < x.b {
                0.0
            } else {
                1.0
            }
        }),
        f("smoothstep", "smoothstep(B, D, A)", Near(1e-6), |x| {
            smoothstep(x.b, x.d, x.a)
        }),
        f("sign", "sign(A)", Exact, |x| sign(x.a)),
        vs("max(v, s)", "max(A, SB)", Exact, |x| {
            if x.a < x.sb {
                x.sb
            } else {
                x.a
            }
        }),
        vs("min(v, s)", "min(A, SB)", Exact, |x| {
            if x.sb < x.a {
                x.sb
            } else {
                x.a
            }
        }),
        vs("clamp(v, s, s)", "clamp(A, SB, SD)", Exact, |x| {
            x.a.max(x.sb).min(x.sd)
        }),
        vs("mix(v, v, s)", "mix(A, B, SC)", Near(1e-6), |x| {
            x.a + (x.b - x.a) * x.sc
        }),
        vs("step(s, v)", "step(SB, A)", Exact, |x| {
            if x.a < x.sb {
                0.0
            } else {
                1.0
            }
        }),
        vs(
            "smoothstep(s, s, v)",
            "smoothstep(SB, SD, A)",
            Near(1e-6),
            |x| smoothstep(x.sb, x.sd, x.a),
        ),
    ]
}

fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

fn sign(x: f32) -> f32 {
    if x.is_nan() {
        0.0
    } else if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        x
    }
}

fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// Finite values: zeros of both signs, denormals, extremes, small integers,
/// then pseudo-random values of varied magnitude.
fn finite_inputs(seed: u64) -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        1e-40,
        -1e-40,
        f32::MAX,
        f32::MIN,
        3.0,
        -7.25,
        1e30,
        -1e-30,
    ];
    let mut x = seed;
    while v.len() < M {
        let r = next(&mut x);
        let mant = (r >> 11) as f32 / (1u64 << 53) as f32 * 2.0 - 1.0;
        let exp = ((r >> 3) % 40) as i32 - 20;
        v.push(mant * 2f32.powi(exp));
    }
    v
}

fn lane(l: usize) -> String {
    format!("s{l:x}")
}

/// float8 and float16 are over 16 bytes: see `check_functions`.
fn is_wide(n: usize) -> bool {
    n > 4
}

/// Every function at every selected width in one kernel: work-item i takes
/// elements [i*N, i*N+N) and writes lane l of function f at width index w to
/// out[(f * 6 + w) * M + i*N + l].
fn kernel_source(fs: &[Func], wide: bool) -> String {
    let mut s = String::from(
        "__kernel void k(__global const float* a, __global const float* b,\n\
         __global const float* c, __global const float* d, __global float* out) {\n\
         size_t i = get_global_id(0);\n",
    );
    for (wi, &n) in WIDTHS.iter().enumerate() {
        if is_wide(n) != wide {
            continue;
        }
        let vt = if n == 1 {
            "float".to_string()
        } else {
            format!("float{n}")
        };
        s += &format!("  if (i < {}) {{\n    size_t e = i * {n};\n", M / n);
        for (arr, var) in [("a", "A"), ("b", "B"), ("c", "C"), ("d", "D")] {
            let lanes: Vec<String> = (0..n).map(|l| format!("{arr}[e + {l}]")).collect();
            s += &format!("    {vt} {var} = ({vt})({});\n", lanes.join(", "));
        }
        s += "    float SB = b[e], SC = c[e], SD = d[e];\n";
        for (fi, f) in fs.iter().enumerate() {
            if f.vector_only && n == 1 {
                continue;
            }
            let base = (fi * WIDTHS.len() + wi) * M;
            s += &format!("    {{ {vt} r = {};\n", f.expr);
            for l in 0..n {
                let v = if n == 1 {
                    "r".to_string()
                } else {
                    format!("r.{}", lane(l))
                };
                s += &format!("      out[{base} + e + {l}] = {v};\n");
            }
            s += "    }\n";
        }
        s += "  }\n";
    }
    s + "}\n"
}

fn matches(cmp: Cmp, got: f32, want: f32, scale: f32) -> bool {
    match cmp {
        Cmp::Exact => got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
        Cmp::Near(rel) => {
            (got.is_nan() && want.is_nan())
                || got == want
                || (got - want).abs() <= rel * want.abs().max(scale).max(1.0)
        }
    }
}

fn check_functions(wide: bool) {
    let e = Env::new();
    let fs = funcs();
    let a = finite_inputs(0x1234_5678_9abc_def1);
    // b rotated so edge cases meet other edge cases.
    let b: Vec<f32> = finite_inputs(0x0fed_cba9_8765_4321)
        .into_iter()
        .cycle()
        .skip(5)
        .take(M)
        .collect();
    // mix's weight lies in [0, 1] (the spec's domain), ends included.
    let mut x = 77u64;
    let c: Vec<f32> = (0..M)
        .map(|i| match i % 7 {
            0 => 0.0,
            1 => 1.0,
            _ => (next(&mut x) >> 40) as f32 / (1u64 << 24) as f32,
        })
        .collect();
    // d > b (clamp needs lo <= hi, smoothstep edge0 < edge1); kept close to
    // b now and then so smoothstep's interior is reached.
    let d: Vec<f32> = b
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let r = x + if i % 2 == 0 {
                1.0
            } else {
                x.abs() * 0.5 + 1e-3
            };
            if r > x {
                r
            } else {
                f32::MAX
            }
        })
        .collect();
    let src = kernel_source(&fs, wide);
    let (_p, k) = e.kernel(&src, "k");
    let total = fs.len() * WIDTHS.len() * M;
    let bufs = [
        e.buffer_from(&a),
        e.buffer_from(&b),
        e.buffer_from(&c),
        e.buffer_from(&d),
        e.buffer_from(&vec![f32::from_bits(0x7fc0_dead); total]),
    ];
    e.run_with(&k, &bufs, &[M], None);
    let out = e.read::<f32>(&bufs[4], 0, total);
    let mut failures = Vec::new();
    for (fi, f) in fs.iter().enumerate() {
        for (wi, &n) in WIDTHS.iter().enumerate() {
            if (f.vector_only && n == 1) || is_wide(n) != wide {
                continue;
            }
            for el in 0..M {
                let first = el - el % n;
                let x = In {
                    a: a[el],
                    b: b[el],
                    c: c[el],
                    d: d[el],
                    sb: b[first],
                    sc: c[first],
                    sd: d[first],
                };
                let want = (f.reference)(&x);
                let got = out[(fi * WIDTHS.len() + wi) * M + el];
                // mix and smoothstep lose digits to cancellation: the
                // tolerance scales with the operands.
                let scale = x.a.abs().max(x.b.abs()).max(x.d.abs());
                if !matches(f.cmp, got, want, scale) && failures.len() < 20 {
                    failures.push(format!(
                        "{} width {n}: a={:e} b={:e} c={:e} d={:e}: got {got:e}, want {want:e}",
                        f.name, x.a, x.b, x.c, x.d
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
}

#[test]
fn common_functions_float() {
    check_functions(false);
}

#[test]
fn common_functions_float_wide() {
    check_functions(true);
}

/// sign on the special values, every width: NaN gives 0, zeros keep their
/// sign, infinities give +-1.
#[test]
fn sign_of_special_values() {
    let e = Env::new();
    let vals = [
        f32::NAN,
        -f32::NAN,
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1e-45,
        -1e-45,
        -5.0,
        5.0,
        f32::MAX,
        f32::MIN,
        0.25,
        -0.25,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
    ];
    let src = r#"
    __kernel void k(__global const float* a, __global float* out) {
        out[get_global_id(0)] = sign(a[get_global_id(0)]);
        size_t i = get_global_id(0);
        if (i < 4) {
            float4 v = (float4)(a[4 * i], a[4 * i + 1], a[4 * i + 2], a[4 * i + 3]);
            float4 r = sign(v);
            out[48 + 4 * i] = r.x; out[49 + 4 * i] = r.y;
            out[50 + 4 * i] = r.z; out[51 + 4 * i] = r.w;
        }
        if (i == 0) {
            float2 r2 = sign((float2)(a[0], a[1]));
            out[16] = r2.x; out[17] = r2.y;
            float3 r3 = sign((float3)(a[0], a[1], a[2]));
            out[32] = r3.x; out[33] = r3.y; out[34] = r3.z;
        }
    }"#;
    let (_p, k) = e.kernel(src, "k");
    let ma = e.buffer_from(&vals);
    let mo = e.buffer_from(&[7.0f32; 64]);
    ok(set_mem(k.get(), 0, &ma), "arg");
    ok(set_mem(k.get(), 1, &mo), "arg");
    e.run(&k, &[16], None);
    let out = e.read::<f32>(&mo, 0, 64);
    let check = |got: f32, x: f32, what: &str| {
        assert!(
            matches(Cmp::Exact, got, sign(x), 0.0),
            "{what} sign({x:e}) = {got:e}, want {:e}",
            sign(x)
        );
    };
    for (i, &x) in vals.iter().enumerate() {
        check(out[i], x, "scalar");
        check(out[48 + i], x, "float4");
    }
    for i in 0..2 {
        check(out[16 + i], vals[i], "float2");
    }
    for i in 0..3 {
        check(out[32 + i], vals[i], "float3");
    }
}
