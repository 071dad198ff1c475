//! The geometric functions (OpenCL C 3.0 section 6.15.5) for float, float2,
//! float3 and float4 against references computed on the host in double.
//! (The double forms are in the library, callable once cl_khr_fp64 is
//! reported.)

use ferrocl_tests::*;

/// Vectors per width.
const V: usize = 200;

fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// `V * n` floats: hand-picked vectors first (zero, huge, tiny, mixed
/// magnitudes), then random ones.
fn inputs(n: usize, seed: u64) -> Vec<f32> {
    let special: [f32; 8] = [0.0, -0.0, 1e30, -3e30, 1e-30, -2e-40, 1.0, -2.5];
    let mut v = Vec::new();
    for s in special {
        v.extend(std::iter::repeat(s).take(n));
    }
    for i in 0..special.len() {
        for l in 0..n {
            v.push(special[(i + l) % special.len()]);
        }
    }
    let mut x = seed;
    while v.len() < V * n {
        let r = next(&mut x);
        let mant = (r >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
        let exp = ((r >> 3) % 12) as i32 - 6;
        v.push((mant * 10f64.powi(exp)) as f32);
    }
    v
}

fn dot(a: &[f32], b: &[f32]) -> f64 {
    a.iter().zip(b).map(|(&x, &y)| x as f64 * y as f64).sum()
}
fn len(a: &[f32]) -> f64 {
    dot(a, a).sqrt()
}

fn close(got: f32, want: f64, rel: f64, scale: f64) -> bool {
    if want.is_nan() {
        return got.is_nan();
    }
    let w32 = want as f32;
    if w32.is_infinite() || got.is_infinite() {
        return got == w32;
    }
    (got as f64 - want).abs() <= rel * want.abs().max(scale) + 1e-44
}

struct Out {
    scalars: Vec<f32>,
    vectors: Vec<f32>,
}

/// Runs every geometric function of width `n` on pairs of vectors.
/// scalars[v * 5 + j]: dot, length, distance, fast_length, fast_distance;
/// vectors[(v * 3 + j) * n + l]: normalize, fast_normalize, cross (3 and 4).
fn run(e: &Env, n: usize, a: &[f32], b: &[f32]) -> Out {
    let t = if n == 1 {
        "float".to_string()
    } else {
        format!("float{n}")
    };
    let ld = |arr: &str| {
        let lanes: Vec<String> = (0..n).map(|l| format!("{arr}[{n} * i + {l}]")).collect();
        format!("({t})({})", lanes.join(", "))
    };
    let st = |expr: &str, j: usize| {
        let mut s = format!("  {{ {t} r = {expr};\n");
        for l in 0..n {
            let v = if n == 1 {
                "r".into()
            } else {
                format!("r.s{l:x}")
            };
            s += &format!("    vo[(i * 3 + {j}) * {n} + {l}] = {v};\n");
        }
        s + "  }\n"
    };
    let mut src = format!(
        "__kernel void k(__global const float* a, __global const float* b,\n\
         __global float* so, __global float* vo) {{\n\
         size_t i = get_global_id(0);\n  {t} A = {}, B = {};\n\
         so[i * 5] = dot(A, B);\n  so[i * 5 + 1] = length(A);\n\
         so[i * 5 + 2] = distance(A, B);\n  so[i * 5 + 3] = fast_length(A);\n\
         so[i * 5 + 4] = fast_distance(A, B);\n",
        ld("a"),
        ld("b")
    );
    src += &st("normalize(A)", 0);
    src += &st("fast_normalize(A)", 1);
    if n >= 3 {
        src += &st("cross(A, B)", 2);
    }
    src += "}\n";
    let (_p, k) = e.kernel(&src, "k");
    let ma = e.buffer_from(a);
    let mb = e.buffer_from(b);
    let ms = e.buffer_from(&vec![f32::NAN; V * 5]);
    let mv = e.buffer_from(&vec![f32::NAN; V * 3 * n]);
    for (i, m) in [&ma, &mb, &ms, &mv].iter().enumerate() {
        ok(set_mem(k.get(), i as cl_uint, m), "set arg");
    }
    e.run(&k, &[V], None);
    Out {
        scalars: e.read(&ms, 0, V * 5),
        vectors: e.read(&mv, 0, V * 3 * n),
    }
}

fn check_width(n: usize) {
    let e = Env::new();
    let a = inputs(n, 0x1234_5678 + n as u64);
    let b: Vec<f32> = inputs(n, 0x8765_4321 + n as u64)
        .into_iter()
        .rev()
        .collect();
    let out = run(&e, n, &a, &b);
    let mut fails = Vec::new();
    for v in 0..V {
        let (x, y) = (&a[v * n..v * n + n], &b[v * n..v * n + n]);
        let diff: Vec<f32> = x.iter().zip(y).map(|(p, q)| p - q).collect();
        let abs_dot: f64 = x
            .iter()
            .zip(y)
            .map(|(&p, &q)| (p as f64 * q as f64).abs())
            .sum();
        let s = &out.scalars[v * 5..v * 5 + 5];
        let mut chk = |what: &str, got: f32, want: f64, rel: f64, scale: f64| {
            if !close(got, want, rel, scale) && fails.len() < 20 {
                fails.push(format!(
                    "{what} float{n} {x:?} {y:?}: got {got:e}, want {want:e}"
                ));
            }
        };
        chk("dot", s[0], dot(x, y), 1e-6, abs_dot);
        chk("length", s[1], len(x), 1e-6, 0.0);
        chk("distance", s[2], len(&diff), 1e-6, 0.0);
        // The fast forms may lose range (their sum of squares may overflow or
        // underflow), but not precision: 8192 ulp of the exact result.
        let fast_ok = dot(x, x) < f32::MAX as f64 && dot(x, x) > 1e-30;
        if fast_ok {
            chk("fast_length", s[3], len(x), 1e-3, 0.0);
        }
        if dot(&diff, &diff) < f32::MAX as f64 && dot(&diff, &diff) > 1e-30 {
            chk("fast_distance", s[4], len(&diff), 1e-3, 0.0);
        }
        let l = len(x);
        for i in 0..n {
            let want = if l == 0.0 {
                x[i] as f64
            } else {
                x[i] as f64 / l
            };
            let got = out.vectors[(v * 3) * n + i];
            chk("normalize", got, want, 1e-6, 1e-6);
            if fast_ok || l == 0.0 {
                let got = out.vectors[(v * 3 + 1) * n + i];
                chk("fast_normalize", got, want, 1e-3, 1e-3);
            }
        }
        if n >= 3 {
            let c = [
                x[1] as f64 * y[2] as f64 - x[2] as f64 * y[1] as f64,
                x[2] as f64 * y[0] as f64 - x[0] as f64 * y[2] as f64,
                x[0] as f64 * y[1] as f64 - x[1] as f64 * y[0] as f64,
                0.0,
            ];
            let scale = [
                (x[1] as f64 * y[2] as f64).abs() + (x[2] as f64 * y[1] as f64).abs(),
                (x[2] as f64 * y[0] as f64).abs() + (x[0] as f64 * y[2] as f64).abs(),
                (x[0] as f64 * y[1] as f64).abs() + (x[1] as f64 * y[0] as f64).abs(),
                0.0,
            ];
            for i in 0..n {
                let got = out.vectors[(v * 3 + 2) * n + i];
                chk("cross", got, c[i], 1e-6, scale[i]);
            }
        }
    }
    assert!(fails.is_empty(), "mismatches:\n{}", fails.join("\n"));
}

#[test]
fn geometric_float() {
    check_width(1);
}

#[test]
fn geometric_float2() {
    check_width(2);
}

#[test]
fn geometric_float3() {
    check_width(3);
}

#[test]
fn geometric_float4() {
    check_width(4);
}

/// normalize's special cases: zeros stay, infinite elements become +-1 with
/// the rest zeros, NaN gives NaN; length does not overflow or underflow.
#[test]
fn normalize_and_length_special_cases() {
    let e = Env::new();
    let src = r#"
    __kernel void k(__global float4* out, __global float* len) {
        float inf = INFINITY;
        out[0] = normalize((float4)(0.0f, -0.0f, 0.0f, 0.0f));
        out[1] = normalize((float4)(-inf, 3.0f, -2.0f, 0.0f));
        out[2] = normalize((float4)(inf, 1.0f, inf, -5.0f));
        out[3] = normalize((float4)(1.0f, NAN, 0.0f, 0.0f));
        out[4] = (float4)(normalize((float2)(3e30f, -4e30f)), normalize((float2)(3e-40f, 4e-40f)));
        out[5] = (float4)(normalize(-0.0f), normalize(-7.0f), normalize(inf), normalize(1e-45f));
        len[0] = length((float3)(3e30f, 4e30f, 0.0f));
        len[1] = length((float2)(3e-30f, 4e-30f));
        len[2] = length((float4)(1.0f, inf, 2.0f, 3.0f));
        len[3] = length((float4)(1.0f, NAN, 2.0f, 3.0f));
        len[4] = distance((float2)(3e38f, 0.0f), (float2)(-3e38f, 0.0f));
        len[5] = length(-2e-45f);
    }"#;
    let (_p, k) = e.kernel(src, "k");
    let mo = e.buffer_from(&[0.5f32; 24]);
    let ml = e.buffer_from(&[0.5f32; 6]);
    ok(set_mem(k.get(), 0, &mo), "arg");
    ok(set_mem(k.get(), 1, &ml), "arg");
    e.run(&k, &[1], None);
    let o = e.read::<f32>(&mo, 0, 24);
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&o[0..4]), bits(&[0.0, -0.0, 0.0, 0.0]), "normalize(0)");
    assert_eq!(
        bits(&o[4..8]),
        bits(&[-1.0, 0.0, -0.0, 0.0]),
        "normalize(-inf, ...)"
    );
    let h = std::f32::consts::FRAC_1_SQRT_2;
    assert!((o[8] - h).abs() < 1e-6 && o[9] == 0.0 && (o[10] - h).abs() < 1e-6);
    assert_eq!(
        o[11].to_bits(),
        (-0.0f32).to_bits(),
        "normalize(inf, 1, inf, -5).w"
    );
    assert!(
        o[12..16].iter().all(|f| f.is_nan()),
        "normalize with NaN: {:?}",
        &o[12..16]
    );
    // 3e-40 and 4e-40 are denormals: their ratio is only close to 3:4.
    for (i, (x, y)) in [(3e30f32, -4e30f32), (3e-40, 4e-40)]
        .into_iter()
        .enumerate()
    {
        let l = (x as f64).hypot(y as f64);
        let got = &o[16 + 2 * i..18 + 2 * i];
        for (g, want) in got.iter().zip([x as f64 / l, y as f64 / l]) {
            assert!(
                (*g as f64 - want).abs() < 3e-7,
                "normalize(({x:e}, {y:e})) = {got:?}, want {want}"
            );
        }
    }
    assert_eq!(
        bits(&o[20..24]),
        bits(&[-0.0, -1.0, 1.0, 1.0]),
        "scalar normalize"
    );
    let l = e.read::<f32>(&ml, 0, 6);
    assert!(
        (l[0] / 5e30 - 1.0).abs() < 1e-6,
        "length of huge vector: {}",
        l[0]
    );
    assert!(
        (l[1] / 5e-30 - 1.0).abs() < 1e-6,
        "length of tiny vector: {}",
        l[1]
    );
    assert_eq!(l[2], f32::INFINITY);
    assert!(l[3].is_nan());
    // p0 - p1 itself overflows.
    assert_eq!(l[4], f32::INFINITY, "distance");
    assert_eq!(l[5], (-2e-45f32).abs(), "length of a denormal scalar");
}
