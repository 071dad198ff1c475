//! half precision (cl_khr_fp16, __opencl_c_fp16): what the device reports,
//! arithmetic rounded once, conversions in every rounding mode and with
//! saturation, a sample of the math, common, geometric and relational
//! builtins against MPFR within the spec's half bounds, half images, and
//! each kernel's vectorized and scalar forms (work-groups of a vector's
//! width and of one work-item) giving the same bits.

use ferrocl_tests::*;
use rug::ops::Pow;
use rug::Float;

// ---------------------------------------------------------------------------
// Host halves: bits, values, rounding.

fn half_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    sign * match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

fn is_nan(h: u16) -> bool {
    h & 0x7fff > 0x7c00
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Rte,
    Rtz,
    Rtp,
    Rtn,
}
const MODES: [(Mode, &str); 4] = [
    (Mode::Rte, "_rte"),
    (Mode::Rtz, "_rtz"),
    (Mode::Rtp, "_rtp"),
    (Mode::Rtn, "_rtn"),
];

/// The half `x` rounds to in `mode`, found by bracketing |x| between
/// neighbouring halves.
fn to_half(x: f64, mode: Mode) -> u16 {
    if x.is_nan() {
        return 0x7e00;
    }
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    if a.is_infinite() {
        return sign | 0x7c00;
    }
    let (mut lo, mut hi) = (0u16, 0x7bffu16);
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if half_to_f64(mid) <= a {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let down = lo;
    if half_to_f64(down) == a {
        return sign | down;
    }
    let away = match mode {
        Mode::Rtz => false,
        Mode::Rtp => sign == 0,
        Mode::Rtn => sign != 0,
        Mode::Rte => {
            // Past the largest half the next step would be 2^16.
            let up = if down == 0x7bff {
                65536.0
            } else {
                half_to_f64(down + 1)
            };
            let (dl, du) = (a - half_to_f64(down), up - a);
            du < dl || (du == dl && down & 1 == 1)
        }
    };
    sign | if away { down + 1 } else { down }
}

/// The half's distance from `reference` in ulps of the reference's binade
/// (infinity counting as 2^16, as the Khronos CTS counts it).
fn ulps(h: u16, reference: f64) -> f64 {
    let v = half_to_f64(h);
    if v.is_nan() || reference.is_nan() {
        return if v.is_nan() && reference.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if reference.is_infinite() || v.is_infinite() {
        let clamp = |x: f64| x.clamp(-65536.0, 65536.0);
        if reference == v {
            return 0.0;
        }
        return (clamp(v) - clamp(reference)).abs() / 32.0;
    }
    let a = reference.abs().max(2f64.powi(-14));
    let ulp = 2f64.powi(a.log2().floor() as i32 - 10);
    (v - reference).abs() / ulp
}

fn xorshift(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

fn every_half() -> Vec<u16> {
    (0..=u16::MAX).collect()
}

/// `n` random halves, finite and not, from seed `seed`.
fn random_halves(n: usize, seed: u64) -> Vec<u16> {
    let mut s = seed;
    (0..n).map(|_| (xorshift(&mut s) >> 16) as u16).collect()
}

// ---------------------------------------------------------------------------
// Running kernels: every kernel here takes its buffers in order and writes
// its last, and runs in work-groups of one work-item (the scalar kernel)
// and of 64 (its vector form); both must give the same bits.

const SCALAR: &[usize] = &[1];
const VECTOR: &[usize] = &[64];

/// Runs `name` of `src` over `items` work-items with `inputs` and an output
/// of `out_len` elements of `O`; returns the output, the same from each
/// local size.
fn run<O: Copy + Default + PartialEq + std::fmt::Debug>(
    e: &Env,
    src: &str,
    name: &str,
    inputs: &[&Mem],
    items: usize,
    out_len: usize,
) -> Vec<O> {
    let (_p, k) = e.kernel(src, name);
    let mut results = Vec::new();
    for local in [SCALAR, VECTOR] {
        let out = e.buffer(out_len * std::mem::size_of::<O>());
        let mut bufs: Vec<&Mem> = inputs.to_vec();
        bufs.push(&out);
        e.run_with(&k, &bufs, &[items], Some(local));
        results.push(e.read::<O>(&out, 0, out_len));
    }
    let vector = results.pop().unwrap();
    let scalar = results.pop().unwrap();
    if let Some(i) = (0..out_len).find(|&i| scalar[i] != vector[i]) {
        panic!(
            "{name}: element {i} is {:?} run one work-item a group but {:?} in groups of 64",
            scalar[i], vector[i]
        );
    }
    scalar
}

/// Pads `v` with copies of its first element to a multiple of 512 (so
/// that it makes whole groups of 64 work-items of up to 8 elements each).
fn padded<T: Copy>(mut v: Vec<T>) -> Vec<T> {
    while !v.len().is_multiple_of(512) {
        v.push(v[0]);
    }
    v
}

/// The pragmas a source starts with (OpenCL C wants half enabled).
const FP16_FP64: &str = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
                         #pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";

// ---------------------------------------------------------------------------
// What the device says.

#[test]
fn the_device_reports_half_with_its_queries() {
    let d = device();
    let ext = device_info(d, CL_DEVICE_EXTENSIONS).unwrap().string();
    assert!(ext_names(&ext).iter().any(|e| e == "cl_khr_fp16"), "{ext}");
    let with_version = device_info(d, CL_DEVICE_EXTENSIONS_WITH_VERSION)
        .unwrap()
        .name_versions();
    assert!(with_version.iter().any(|(n, _)| n == "cl_khr_fp16"));
    let features = device_info(d, CL_DEVICE_OPENCL_C_FEATURES)
        .unwrap()
        .name_versions();
    assert!(features.iter().any(|(n, _)| n == "__opencl_c_fp16"));
    // The spec's minimum: round to nearest and infinities and NaNs; fma is
    // correctly rounded and denormals are kept, and it says so.
    let config = device_info(d, CL_DEVICE_HALF_FP_CONFIG).unwrap().u64();
    for bit in [
        CL_FP_ROUND_TO_NEAREST,
        CL_FP_INF_NAN,
        CL_FP_DENORM,
        CL_FP_FMA,
    ] {
        assert_ne!(
            config & bit,
            0,
            "CL_DEVICE_HALF_FP_CONFIG {config:#x} lacks {bit:#x}"
        );
    }
    for q in [
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF,
        CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF,
    ] {
        let w = device_info(d, q).unwrap().u32();
        assert!(w.is_power_of_two() && w >= 4, "half vector width {w}");
    }
}

#[test]
fn kernels_see_the_extension_and_feature_macros() {
    let e = Env::new();
    let src = r#"
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void macros(global int *out) {
#if defined(cl_khr_fp16) && defined(__opencl_c_fp16)
    out[0] = 1;
#else
    out[0] = 2;
#endif
    half h = 1.5h;
    out[1] = (int)(h * (half)2);
}
"#;
    let (_p, k) = e.kernel(src, "macros");
    let out = e.buffer(8);
    e.run_with(&k, &[&out], &[1], None);
    assert_eq!(e.read::<i32>(&out, 0, 2), vec![1, 3]);
}

// ---------------------------------------------------------------------------
// Arithmetic.

/// +, -, * and / of half pairs are correctly rounded: the exact result
/// (or for /, the double quotient, which rounds the same) rounded to
/// nearest even; scalar and half8 forms agree.
#[test]
fn arithmetic_is_rounded_once() {
    let e = Env::new();
    let src = r#"
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void arith(global const half *a, global const half *b, global half *out) {
    size_t i = get_global_id(0);
    half x = a[i], y = b[i];
    out[4 * i] = x + y;
    out[4 * i + 1] = x - y;
    out[4 * i + 2] = x * y;
    out[4 * i + 3] = x / y;
}
kernel void arith8(global const half *a, global const half *b, global half *out) {
    size_t i = get_global_id(0);
    half8 x = vload8(i, a), y = vload8(i, b);
    vstore8(x + y, 4 * i, out);
    vstore8(x - y, 4 * i + 1, out);
    vstore8(x * y, 4 * i + 2, out);
    vstore8(x / y, 4 * i + 3, out);
}
"#;
    // Every half against random partners, and some chosen pairs.
    let mut a = every_half();
    let mut b = random_halves(a.len(), 7);
    for (x, y) in [
        (0x3c00u16, 0x1000u16), // 1 + 2^-11: a tie, to even
        (0x7bff, 0x7bff),       // overflow
        (0x0001, 0x3800),       // the smallest subnormal halved: a tie to 0
        (0x0003, 0x3800),       // a tie to even: 2
        (0x7c00, 0xfc00),       // inf - inf
    ] {
        a.push(x);
        b.push(y);
    }
    let (a, b) = (padded(a), padded(b));
    let n = a.len();
    let (ma, mb) = (e.buffer_from(&a), e.buffer_from(&b));
    let got: Vec<u16> = run(&e, src, "arith", &[&ma, &mb], n, 4 * n);
    let got8: Vec<u16> = run(&e, src, "arith8", &[&ma, &mb], n / 8, 4 * n);
    for i in 0..n {
        let (x, y) = (half_to_f64(a[i]), half_to_f64(b[i]));
        for (k, (op, want)) in [("+", x + y), ("-", x - y), ("*", x * y), ("/", x / y)]
            .into_iter()
            .enumerate()
        {
            let g = got[4 * i + k];
            let w = to_half(want, Mode::Rte);
            assert!(
                g == w || (is_nan(g) && is_nan(w)),
                "{:#06x} {op} {:#06x} = {g:#06x}, want {w:#06x}",
                a[i],
                b[i]
            );
            // half8: lane i % 8 of vector 4 * (i / 8) + k.
            let g8 = got8[(4 * (i / 8) + k) * 8 + i % 8];
            assert!(
                g8 == g || (is_nan(g8) && is_nan(g)),
                "half8 {op}: {g8:#06x}, scalar {g:#06x}"
            );
        }
    }
}

/// fma is correctly rounded: the exact a b + c (MPFR) rounded once.
#[test]
fn fma_is_correctly_rounded_and_mad_close() {
    let e = Env::new();
    let src = r#"
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void fmas(global const half *a, global const half *b, global const half *c,
                 global half *out) {
    size_t i = get_global_id(0);
    out[2 * i] = fma(a[i], b[i], c[i]);
    out[2 * i + 1] = mad(a[i], b[i], c[i]);
}
"#;
    let mut a = random_halves(1 << 16, 11);
    let mut b = random_halves(1 << 16, 12);
    let mut c = random_halves(1 << 16, 13);
    // Products of significands near 1 and 2, many of them half-way
    // between two halves, nudged by the smallest subnormals and more.
    for x in (0x3c00u16..0x4400).step_by(3) {
        for y in [0x3c01u16, 0x3e00, 0x3c03, 0xbc05, 0x3fff] {
            for z in [0x0001u16, 0x8001, 0x0200, 0x8200, 0x0000, 0x1000] {
                a.push(x);
                b.push(y);
                c.push(z);
            }
        }
    }
    // a b the midpoint between 1 and the next half, c a tiny nudge: a
    // product and sum rounded separately (or in float) get it wrong.
    for (x, y, z) in [
        (0x3c01u16, 0x3c01u16, 0x0001u16),
        (0x3c01, 0x3c01, 0x8001),
        (0x3c01, 0xbc01, 0x0001),
        (0x3e00, 0x3e00, 0x0000),
    ] {
        a.push(x);
        b.push(y);
        c.push(z);
    }
    let (a, b, c) = (padded(a), padded(b), padded(c));
    let n = a.len();
    let bufs = [e.buffer_from(&a), e.buffer_from(&b), e.buffer_from(&c)];
    let got: Vec<u16> = run(&e, src, "fmas", &[&bufs[0], &bufs[1], &bufs[2]], n, 2 * n);
    for i in 0..n {
        let (x, y, z) = (half_to_f64(a[i]), half_to_f64(b[i]), half_to_f64(c[i]));
        // Exact at 200 bits.
        let exact = Float::with_val(200, x) * y + z;
        let g = got[2 * i];
        if x.is_nan() || y.is_nan() || z.is_nan() || exact.is_nan() {
            assert!(is_nan(g), "fma({x}, {y}, {z}) = {g:#06x}, want NaN");
            continue;
        }
        let want = round_half(&exact);
        assert_eq!(
            g, want,
            "fma({:#06x}, {:#06x}, {:#06x}) = {g:#06x}, want {want:#06x}",
            a[i], b[i], c[i]
        );
        // mad: any precision, but a product and a sum in float are within
        // an ulp of fma here.
        let m = got[2 * i + 1];
        assert!(
            ulps(m, half_to_f64(want)) <= 1.0 || (is_nan(m) && is_nan(want)),
            "mad = {m:#06x}, fma {want:#06x}"
        );
    }
}

/// The half nearest the exact `v`, ties to even: 11 significant bits, or
/// below 2^-14 a multiple of 2^-24.
fn round_half(v: &Float) -> u16 {
    let tiny = Float::with_val(8, 2f64.powi(-14));
    let rounded = if Float::with_val(v.prec(), v.abs_ref()) < tiny {
        (Float::with_val(v.prec(), v * 2f64.powi(24))).round_even() / 2f64.powi(24)
    } else {
        Float::with_val_round(11, v, rug::float::Round::Nearest).0
    };
    // Exact now (or 2^16, which is infinity).
    to_half(rounded.to_f64(), Mode::Rte) | if v.is_sign_negative() { 0x8000 } else { 0 }
}

/// `(half)d` for doubles just either side of half midpoints rounds once
/// (no double rounding through float), as does convert_half(double).
#[test]
fn doubles_become_halves_rounded_once() {
    let e = Env::new();
    let src = r#"
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void narrow(global const double *d, global half *out) {
    size_t i = get_global_id(0);
    out[2 * i] = (half)d[i];
    out[2 * i + 1] = convert_half(d[i]);
}
"#;
    let mut d = Vec::new();
    for h in (0u16..0x7c00).step_by(3) {
        let (x, y) = (half_to_f64(h), half_to_f64(h + 1));
        let mid = (x + y) / 2.0;
        for v in [
            x,
            mid,
            mid * (1.0 + 2f64.powi(-40)),
            mid * (1.0 - 2f64.powi(-40)),
        ] {
            d.push(v);
            d.push(-v);
        }
    }
    d.extend([
        65519.999,
        65520.0,
        1e300,
        f64::INFINITY,
        f64::NAN,
        1e-300,
        0.0,
    ]);
    let d = padded(d);
    let n = d.len();
    let m = e.buffer_from(&d);
    let got: Vec<u16> = run(&e, src, "narrow", &[&m], n, 2 * n);
    for (i, &v) in d.iter().enumerate() {
        let want = to_half(v, Mode::Rte);
        for (k, how) in ["(half)", "convert_half"].iter().enumerate() {
            let g = got[2 * i + k];
            assert!(
                g == want || (is_nan(g) && is_nan(want)),
                "{how}({v:e}) = {g:#06x}, want {want:#06x}"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Conversions.

/// convert_half{,_rte,_rtz,_rtp,_rtn} from float, double, int, long,
/// ushort and short against the host's rounding of the same value.
#[test]
fn conversions_to_half_in_every_rounding_mode() {
    let e = Env::new();
    let mut src = String::from(FP16_FP64);
    for (t, dt) in [
        ("float", "float"),
        ("double", "double"),
        ("int", "int"),
        ("long", "long"),
        ("ushort", "ushort"),
        ("short", "short"),
    ] {
        src += &format!(
            "kernel void from_{t}(global const {dt} *x, global half *out) {{\n\
             size_t i = get_global_id(0);\n"
        );
        for (k, (_, sfx)) in MODES.iter().enumerate() {
            src += &format!("  out[5 * i + {k}] = convert_half{sfx}(x[i]);\n");
        }
        src += "  out[5 * i + 4] = convert_half(x[i]);\n}\n";
        // The same through half4, lane for lane.
        src += &format!(
            "kernel void from_{t}4(global const {dt} *x, global half *out) {{\n\
             size_t i = get_global_id(0);\n  {dt}4 v = vload4(i, x);\n"
        );
        for (k, (_, sfx)) in MODES.iter().enumerate() {
            src += &format!("  vstore4(convert_half4{sfx}(v), 5 * i + {k}, out);\n");
        }
        src += "  vstore4(convert_half4(v), 5 * i + 4, out);\n}\n";
    }

    let mut floats: Vec<f64> = Vec::new();
    for h in (0u16..0x7c00).step_by(5) {
        let (x, y) = (half_to_f64(h), half_to_f64(h + 1));
        let mid = (x + y) / 2.0;
        for v in [
            x,
            mid,
            mid * (1.0 + 2f64.powi(-20)),
            mid * (1.0 - 2f64.powi(-20)),
        ] {
            floats.push(v);
            floats.push(-v);
        }
    }
    floats.extend([
        65504.0,
        65519.0,
        65520.0,
        65536.0,
        1e10,
        f64::INFINITY,
        f64::NAN,
    ]);
    floats.extend([-65520.0, -1e10, 1e-8, -1e-8, 2f64.powi(-25), 0.0, -0.0]);
    let floats = padded(floats);
    let mut ints: Vec<i64> = vec![0, 1, -1, 2047, 2049, 2051, -2049, 4097, 65504, 65519];
    ints.extend([
        65520,
        65535,
        -65519,
        -65520,
        100_000,
        i32::MAX as i64,
        i32::MIN as i64,
    ]);
    let mut s = 5u64;
    while ints.len() < 4096 {
        let r = xorshift(&mut s) as i64;
        ints.push(r >> (r as u64 % 48 + 15));
    }
    let ints = padded(ints);

    let check = |t: &str, values: &[f64], got: &[u16], got4: &[u16]| {
        for (i, &v) in values.iter().enumerate() {
            for (k, &(mode, sfx)) in MODES.iter().enumerate() {
                let want = to_half(v, mode);
                let g = got[5 * i + k];
                assert!(
                    g == want || (is_nan(g) && is_nan(want)),
                    "convert_half{sfx}(({t}){v:e}) = {g:#06x}, want {want:#06x}"
                );
                let g4 = got4[(5 * (i / 4) + k) * 4 + i % 4];
                assert_eq!(g4, g, "convert_half4{sfx}(({t}){v:e})");
            }
            let g = got[5 * i + 4];
            let want = to_half(v, Mode::Rte);
            assert!(
                g == want || (is_nan(g) && is_nan(want)),
                "convert_half(({t}){v:e})"
            );
        }
    };
    let run_both = |t: &str, buf: &Mem, n: usize| -> (Vec<u16>, Vec<u16>) {
        let got: Vec<u16> = run(&e, &src, &format!("from_{t}"), &[buf], n, 5 * n);
        let got4: Vec<u16> = run(&e, &src, &format!("from_{t}4"), &[buf], n / 4, 5 * n);
        (got, got4)
    };

    let f32s: Vec<f32> = floats.iter().map(|&v| v as f32).collect();
    let (g, g4) = run_both("float", &e.buffer_from(&f32s), f32s.len());
    let as_f64: Vec<f64> = f32s.iter().map(|&v| v as f64).collect();
    check("float", &as_f64, &g, &g4);

    let (g, g4) = run_both("double", &e.buffer_from(&floats), floats.len());
    check("double", &floats, &g, &g4);

    let i32s: Vec<i32> = ints.iter().map(|&v| v as i32).collect();
    let (g, g4) = run_both("int", &e.buffer_from(&i32s), i32s.len());
    check(
        "int",
        &i32s.iter().map(|&v| v as f64).collect::<Vec<_>>(),
        &g,
        &g4,
    );

    let (g, g4) = run_both("long", &e.buffer_from(&ints), ints.len());
    check(
        "long",
        &ints.iter().map(|&v| v as f64).collect::<Vec<_>>(),
        &g,
        &g4,
    );

    let u16s: Vec<u16> = ints.iter().map(|&v| v as u16).collect();
    let (g, g4) = run_both("ushort", &e.buffer_from(&u16s), u16s.len());
    check(
        "ushort",
        &u16s.iter().map(|&v| v as f64).collect::<Vec<_>>(),
        &g,
        &g4,
    );

    // Every short: the largest round up to 2^15, which no short holds.
    let i16s: Vec<i16> = (i16::MIN..=i16::MAX).collect();
    let (g, g4) = run_both("short", &e.buffer_from(&i16s), i16s.len());
    check(
        "short",
        &i16s.iter().map(|&v| v as f64).collect::<Vec<_>>(),
        &g,
        &g4,
    );
}

/// Every half to char, int and ulong with saturation in every mode, and to
/// float and double exactly.
#[test]
fn conversions_from_half_saturate_and_round() {
    let e = Env::new();
    let mut src = String::from(FP16_FP64);
    let targets = [("char", 1usize), ("int", 4), ("ulong", 8)];
    for (t, _) in targets {
        src += &format!(
            "kernel void to_{t}(global const half *h, global {t} *out) {{\n\
             size_t i = get_global_id(0);\n"
        );
        for (k, (_, sfx)) in MODES.iter().enumerate() {
            src += &format!("  out[5 * i + {k}] = convert_{t}_sat{sfx}(h[i]);\n");
        }
        src += "  out[5 * i + 4] = convert_";
        src += t;
        src += "_sat(h[i]);\n}\n";
    }
    src += "kernel void widen(global const half *h, global double *out) {\n\
            size_t i = get_global_id(0);\n\
            out[2 * i] = convert_float(h[i]);\n\
            out[2 * i + 1] = convert_double(h[i]);\n}\n";
    let halves = every_half();
    let n = halves.len();
    let hb = e.buffer_from(&halves);
    let round = |v: f64, mode: Mode| match mode {
        Mode::Rte => v.round_ties_even(),
        Mode::Rtz => v.trunc(),
        Mode::Rtp => v.ceil(),
        Mode::Rtn => v.floor(),
    };
    let saturate = |v: f64, lo: f64, hi: f64| {
        if v.is_nan() {
            0.0
        } else {
            v.clamp(lo, hi)
        }
    };
    let c: Vec<i8> = run(&e, &src, "to_char", &[&hb], n, 5 * n);
    let i: Vec<i32> = run(&e, &src, "to_int", &[&hb], n, 5 * n);
    let u: Vec<u64> = run(&e, &src, "to_ulong", &[&hb], n, 5 * n);
    for (j, &h) in halves.iter().enumerate() {
        let v = half_to_f64(h);
        let modes = MODES.iter().map(|&(m, s)| (m, s)).chain([(Mode::Rtz, "")]);
        for (k, (mode, sfx)) in modes.enumerate() {
            let r = round(v, mode);
            assert_eq!(
                c[5 * j + k] as f64,
                saturate(r, -128.0, 127.0),
                "convert_char_sat{sfx}({v})"
            );
            assert_eq!(
                i[5 * j + k] as f64,
                saturate(r, i32::MIN as f64, i32::MAX as f64),
                "convert_int_sat{sfx}({v})"
            );
            let want_u = if v.is_nan() || r <= 0.0 {
                0
            } else if r.is_infinite() {
                u64::MAX
            } else {
                r as u64
            };
            assert_eq!(u[5 * j + k], want_u, "convert_ulong_sat{sfx}({v})");
        }
    }
    let w: Vec<u64> = run(&e, &src, "widen", &[&hb], n, 2 * n);
    for (j, &h) in halves.iter().enumerate() {
        let v = half_to_f64(h);
        for k in 0..2 {
            let g = f64::from_bits(w[2 * j + k]);
            assert!(
                (g.is_nan() && v.is_nan())
                    || (g == v && g.is_sign_negative() == v.is_sign_negative()),
                "half {h:#06x} widened to {g}"
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Math.

/// A math function of the sample: its OpenCL C call on `x` (and `y`), the
/// MPFR reference and the spec's bound in half ulps.
struct MathFn {
    call: &'static str,
    binary: bool,
    ulps: f64,
    reference: fn(Float, Float) -> Float,
}

fn math_sample() -> Vec<MathFn> {
    fn u(call: &'static str, ulps: f64, reference: fn(Float, Float) -> Float) -> MathFn {
        MathFn {
            call,
            binary: false,
            ulps,
            reference,
        }
    }
    fn b(call: &'static str, ulps: f64, reference: fn(Float, Float) -> Float) -> MathFn {
        MathFn {
            call,
            binary: true,
            ulps,
            reference,
        }
    }
    vec![
        u("sin(x)", 2.0, |x, _| x.sin()),
        u("cos(x)", 2.0, |x, _| x.cos()),
        u("tan(x)", 2.0, |x, _| x.tan()),
        u("exp(x)", 2.0, |x, _| x.exp()),
        u("exp10(x)", 2.0, |x, _| x.exp10()),
        u("expm1(x)", 2.0, |x, _| x.exp_m1()),
        u("log(x)", 2.0, |x, _| x.ln()),
        u("log2(x)", 2.0, |x, _| x.log2()),
        u("log1p(x)", 2.0, |x, _| x.ln_1p()),
        u("sqrt(x)", 0.5, |x, _| x.sqrt()),
        // 1/sqrt(x): -inf at -0, as the spec's rsqrt (MPFR's rec_sqrt
        // gives +inf there).
        u("rsqrt(x)", 1.0, |x, _| x.sqrt().recip()),
        u("cbrt(x)", 2.0, |x, _| x.cbrt()),
        u("atan(x)", 2.0, |x, _| x.atan()),
        u("asin(x)", 2.0, |x, _| x.asin()),
        u("tanh(x)", 2.0, |x, _| x.tanh()),
        u("sinh(x)", 2.0, |x, _| x.sinh()),
        u("erf(x)", 4.0, |x, _| x.erf()),
        u("floor(x)", 0.0, |x, _| x.floor()),
        u("rint(x)", 0.0, |x, _| x.round_even()),
        b("pow(x, y)", 4.0, |x, y| x.pow(y)),
        b("atan2(x, y)", 2.0, |x, y| x.atan2(&y)),
        b("hypot(x, y)", 2.0, |x, y| x.hypot(&y)),
        b("fmod(x, y)", 0.0, |x, y| x % y),
        b("fdim(x, y)", 0.5, |x, y| {
            if x > y {
                x - y
            } else if x.is_nan() || y.is_nan() {
                Float::with_val(53, f64::NAN)
            } else {
                Float::with_val(53, 0)
            }
        }),
    ]
}

/// Every half through each unary function of the sample, random pairs
/// through the binary ones, within the bound; the half8 form of each gives
/// the scalar's bits.
#[test]
fn math_functions_within_the_half_bounds() {
    let e = Env::new();
    let sample = math_sample();
    let mut src = String::from(FP16_FP64);
    for (j, f) in sample.iter().enumerate() {
        let call8 = f.call.replace("(x", "(x8").replace(", y)", ", y8)");
        src += &format!(
            "kernel void m{j}(global const half *xs, global const half *ys, global half *out) {{\n\
             size_t i = get_global_id(0);\n  half x = xs[i], y = ys[i];\n  out[i] = {};\n}}\n\
             kernel void v{j}(global const half *xs, global const half *ys, global half *out) {{\n\
             size_t i = get_global_id(0);\n  half8 x8 = vload8(i, xs), y8 = vload8(i, ys);\n\
             vstore8({call8}, i, out);\n}}\n",
            f.call
        );
    }
    let xs = every_half();
    let ys = random_halves(xs.len(), 3);
    let n = xs.len();
    let (mx, my) = (e.buffer_from(&xs), e.buffer_from(&ys));
    for (j, f) in sample.iter().enumerate() {
        let got: Vec<u16> = run(&e, &src, &format!("m{j}"), &[&mx, &my], n, n);
        let got8: Vec<u16> = run(&e, &src, &format!("v{j}"), &[&mx, &my], n / 8, n);
        let mut worst = 0.0f64;
        for i in 0..n {
            let (x, y) = (half_to_f64(xs[i]), half_to_f64(ys[i]));
            let r = (f.reference)(Float::with_val(64, x), Float::with_val(64, y)).to_f64();
            let err = ulps(got[i], r);
            assert!(
                err <= f.ulps,
                "{} with x = {x:e}{}: {:e} ({:#06x}), want {r:e}: {err} ulps",
                f.call,
                if f.binary {
                    format!(", y = {y:e}")
                } else {
                    String::new()
                },
                half_to_f64(got[i]),
                got[i]
            );
            worst = worst.max(err);
            assert_eq!(got8[i], got[i], "{} half8 lane of x = {x:e}", f.call);
        }
        eprintln!("{}: worst {worst:.3} ulps", f.call);
    }
}

/// The pointer forms in global, local and private memory, and ilogb,
/// ldexp, nan, nextafter.
#[test]
fn pointer_forms_and_bit_functions() {
    let e = Env::new();
    let src = r#"
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void ptrs(global const half *xs, global half *out) {
    size_t i = get_global_id(0);
    local half lo[64];
    half x = xs[i];
    int k;
    out[8 * i] = fract(x, &out[8 * i + 1]);
    out[8 * i + 2] = modf(x, &lo[get_local_id(0)]);
    out[8 * i + 3] = lo[get_local_id(0)];
    out[8 * i + 4] = frexp(x, &k);
    out[8 * i + 5] = ldexp(out[8 * i + 4], k);
    out[8 * i + 6] = nextafter(x, (half)0);
    out[8 * i + 7] = (half)ilogb(x);
}
"#;
    let xs = every_half();
    let n = xs.len();
    let mx = e.buffer_from(&xs);
    let got: Vec<u16> = run(&e, src, "ptrs", &[&mx], n, 8 * n);
    let top_below_one = 0x3bffu16;
    for (i, &h) in xs.iter().enumerate() {
        let x = half_to_f64(h);
        let g = &got[8 * i..8 * i + 8];
        if x.is_nan() {
            assert!(
                is_nan(g[0]) && is_nan(g[2]) && is_nan(g[4]) && is_nan(g[6]),
                "{h:#06x}"
            );
            continue;
        }
        if x.is_finite() {
            let fl = x.floor();
            let fr = to_half(x - fl, Mode::Rte).min(top_below_one)
                | if x == 0.0 && x.is_sign_negative() {
                    0x8000
                } else {
                    0
                };
            assert_eq!(g[0], fr, "fract({x:e})");
            assert_eq!(half_to_f64(g[1]), fl, "fract({x:e}) floor");
            assert_eq!(half_to_f64(g[2]), x - x.trunc(), "modf({x:e})");
            assert_eq!(half_to_f64(g[3]), x.trunc(), "modf({x:e}) integral part");
            assert_eq!(g[5], h, "ldexp(frexp({x:e}))");
            let m = half_to_f64(g[4]).abs();
            assert!(
                x == 0.0 || (0.5..1.0).contains(&m),
                "frexp({x:e}) mantissa {m}"
            );
        }
        // One step towards zero, zeros staying.
        let want_next = if x == 0.0 { 0 } else { h - 1 };
        assert_eq!(g[6] & 0x7fff, want_next & 0x7fff, "nextafter({x:e}, 0)");
        if x.is_finite() && x != 0.0 {
            assert_eq!(half_to_f64(g[7]), x.abs().log2().floor(), "ilogb({x:e})");
        }
    }
}

// ---------------------------------------------------------------------------
// Common, geometric and relational functions.

#[test]
fn common_geometric_and_relational_functions() {
    let e = Env::new();
    let src = r#"
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void others(global const half *xs, global const half *ys, global half *out) {
    size_t i = get_global_id(0);
    half x = xs[i], y = ys[i];
    out[12 * i] = clamp(x, (half)-1, (half)1);
    out[12 * i + 1] = mix(x, y, (half)0.25);
    out[12 * i + 2] = smoothstep((half)-2, (half)2, x);
    out[12 * i + 3] = sign(x);
    out[12 * i + 4] = degrees(x);
    out[12 * i + 5] = max(x, y);
    out[12 * i + 6] = dot((half2)(x, y), (half2)(y, x));
    out[12 * i + 7] = length((half2)(x, y));
    out[12 * i + 8] = normalize((half2)(x, y)).x;
    out[12 * i + 9] = cross((half3)(x, y, 1), (half3)(y, 1, x)).z;
    out[12 * i + 10] = isless(x, y) | isnan(x) << 1 | signbit(x) << 2 | isnormal(x) << 3;
    out[12 * i + 11] = select(x, y, (short)isgreater(x, y));
}
"#;
    let xs = random_halves(1 << 14, 21);
    let ys = random_halves(1 << 14, 22);
    let n = xs.len();
    let (mx, my) = (e.buffer_from(&xs), e.buffer_from(&ys));
    let got: Vec<u16> = run(&e, src, "others", &[&mx, &my], n, 12 * n);
    for i in 0..n {
        let (x, y) = (half_to_f64(xs[i]), half_to_f64(ys[i]));
        if !(x.is_finite() && y.is_finite()) {
            continue;
        }
        let g = |k: usize| got[12 * i + k];
        let close = |k: usize, want: f64, bound: f64, what: &str| {
            let err = ulps(g(k), want);
            assert!(
                err <= bound,
                "{what} of {x:e}, {y:e}: {:e}, want {want:e}",
                half_to_f64(g(k))
            );
        };
        assert_eq!(half_to_f64(g(0)), x.clamp(-1.0, 1.0), "clamp({x:e})");
        close(1, x + (y - x) * 0.25, 1.0, "mix");
        let t = ((x + 2.0) / 4.0).clamp(0.0, 1.0);
        close(2, t * t * (3.0 - 2.0 * t), 1.0, "smoothstep");
        assert_eq!(
            half_to_f64(g(3)),
            if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                x
            },
            "sign({x:e})"
        );
        close(4, x.to_degrees(), 1.0, "degrees");
        assert_eq!(half_to_f64(g(5)), x.max(y), "max({x:e}, {y:e})");
        close(6, 2.0 * x * y, 1.0, "dot");
        close(7, x.hypot(y), 1.0, "length");
        let len = x.hypot(y);
        if len > 0.0 && len.is_finite() {
            let err = (half_to_f64(g(8)) - x / len).abs();
            assert!(
                err <= 2f64.powi(-10),
                "normalize(({x:e}, {y:e})).x: {:e}",
                half_to_f64(g(8))
            );
        }
        close(9, x - y * y, 1.0, "cross");
        let bits = (x < y) as u16
            | ((xs[i] & 0x8000 != 0) as u16 * 4)
            | ((x.abs() >= 2f64.powi(-14)) as u16 * 8);
        assert_eq!(
            half_to_f64(g(10)),
            bits as f64,
            "relational bits of {x:e}, {y:e}"
        );
        assert_eq!(
            g(11),
            if x > y { ys[i] } else { xs[i] },
            "select({x:e}, {y:e})"
        );
    }
}

// ---------------------------------------------------------------------------
// Images of half texels.

/// write_imageh then read_imageh round-trips every finite half through a
/// CL_HALF_FLOAT image, and the host reads the same bits.
#[test]
fn half_images_round_trip_through_write_imageh_and_read_imageh() {
    let e = Env::new();
    let src = r#"
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void put(global const half *in, write_only image2d_t im) {
    int x = get_global_id(0), y = get_global_id(1);
    write_imageh(im, (int2)(x, y), vload4(y * get_global_size(0) + x, in));
}
kernel void get(read_only image2d_t im, global half *out) {
    int x = get_global_id(0), y = get_global_id(1);
    vstore4(read_imageh(im, (int2)(x, y)), y * get_global_size(0) + x, out);
}
"#;
    let (w, h) = (128usize, 120usize);
    let texels: Vec<u16> = (0..w * h * 4).map(|i| (i as u16) % 0x7c00).collect();
    let format = image_format(CL_RGBA, CL_HALF_FLOAT);
    let desc = image_desc(CL_MEM_OBJECT_IMAGE2D, w, h, 0, 0);
    let im = e.image(CL_MEM_READ_WRITE, &format, &desc);
    let input = e.buffer_from(&texels);
    let (_p, put) = e.kernel(src, "put");
    ok(set_mem(put.get(), 0, &input), "arg");
    ok(set_mem(put.get(), 1, &im), "arg");
    e.run(&put, &[w, h], None);
    let out = e.buffer(texels.len() * 2);
    let (_q, get) = e.kernel(src, "get");
    ok(set_mem(get.get(), 0, &im), "arg");
    ok(set_mem(get.get(), 1, &out), "arg");
    e.run(&get, &[w, h], None);
    assert_eq!(e.read::<u16>(&out, 0, texels.len()), texels);
}

// ---------------------------------------------------------------------------
// Vector code.

/// A loop over half elements becomes vector code: the optimized work-group
/// function converts whole vectors of halves.
#[test]
fn half_kernels_become_vector_code() {
    let dir = ir_dump_dir();
    let e = Env::new();
    let src = r#"
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void half_axpy(half a, global const half *x, global half *y) {
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
"#;
    let n = 1 << 12;
    let x: Vec<u16> = (0..n)
        .map(|i| to_half(i as f64 / 64.0, Mode::Rte))
        .collect();
    let y: Vec<u16> = (0..n)
        .map(|i| to_half(1.0 - i as f64 / 128.0, Mode::Rte))
        .collect();
    let (_p, k) = e.kernel(src, "half_axpy");
    let (mx, my) = (e.buffer_from(&x), e.buffer_from(&y));
    let a: u16 = to_half(0.5, Mode::Rte);
    ok(set_arg(k.get(), 0, &a), "arg");
    ok(set_mem(k.get(), 1, &mx), "arg");
    ok(set_mem(k.get(), 2, &my), "arg");
    e.run(&k, &[n], Some(&[64]));
    let got = e.read::<u16>(&my, 0, n);
    for i in 0..n {
        // a x rounded to half, then the sum (or, contracted, one rounding).
        let ax = half_to_f64(to_half(0.5 * half_to_f64(x[i]), Mode::Rte));
        let want = [
            to_half(ax + half_to_f64(y[i]), Mode::Rte),
            to_half(0.5 * half_to_f64(x[i]) + half_to_f64(y[i]), Mode::Rte),
        ];
        assert!(
            want.contains(&got[i]),
            "element {i}: {:#06x}, want {want:x?}",
            got[i]
        );
    }
    let ir: String = std::fs::read_dir(dir)
        .unwrap()
        .map(|f| f.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with("__ferrocl_wg.half_axpy.")
                && name.ends_with(".ll")
                && !name.ends_with(".before-opt.ll")
        })
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    assert!(
        ir.contains("x half>"),
        "no vector of halves in the optimized kernel:\n{ir}"
    );
}
