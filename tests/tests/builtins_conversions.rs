//! Explicit conversions (OpenCL C 3.0 section 6.4.3),
//! convert_<dst>[_sat][_rte|_rtz|_rtp|_rtn](<src>), for every pair of the
//! types a program can use without cl_khr_fp64 and every width, against exact
//! host references; and shuffle/shuffle2.

use ferrocl_tests::*;

/// Inputs per source type: a multiple of every width (2, 3, 4, 8, 16).
const M: usize = 96;
const WIDTHS: [usize; 6] = [1, 2, 3, 4, 8, 16];

#[derive(Clone, Copy, Debug, PartialEq)]
struct Ty {
    name: &'static str,
    bytes: usize,
    signed: bool,
    float: bool,
}

const fn int(name: &'static str, bytes: usize, signed: bool) -> Ty {
    Ty {
        name,
        bytes,
        signed,
        float: false,
    }
}

const TYPES: [Ty; 9] = [
    int("char", 1, true),
    int("uchar", 1, false),
    int("short", 2, true),
    int("ushort", 2, false),
    int("int", 4, true),
    int("uint", 4, false),
    int("long", 8, true),
    int("ulong", 8, false),
    Ty {
        name: "float",
        bytes: 4,
        signed: true,
        float: true,
    },
];

impl Ty {
    fn bits(&self) -> u32 {
        self.bytes as u32 * 8
    }
    fn min(&self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits() - 1))
        } else {
            0
        }
    }
    fn max(&self) -> i128 {
        if self.signed {
            (1i128 << (self.bits() - 1)) - 1
        } else {
            (1i128 << self.bits()) - 1
        }
    }
    fn wrap(&self, v: i128) -> i128 {
        let m = 1i128 << self.bits();
        let u = v.rem_euclid(m);
        if self.signed && u > self.max() {
            u - m
        } else {
            u
        }
    }
}

/// Over 16 bytes (a 3-vector takes 4 elements' room): passed differently by
/// the library and by user programs for now, so tested apart.
fn is_wide(n: usize, bytes: usize) -> bool {
    (if n == 3 { 4 } else { n }) * bytes > 16
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Rte,
    Rtz,
    Rtp,
    Rtn,
}

/// A source value: an integer, or a float.
#[derive(Clone, Copy, Debug)]
enum Val {
    I(i128),
    F(f32),
}

fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

fn inputs(t: Ty) -> Vec<Val> {
    let mut v = Vec::new();
    let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ t.bytes as u64;
    if t.float {
        let special = [
            0.0f32,
            -0.0,
            0.5,
            -0.5,
            1.5,
            2.5,
            -2.5,
            0.49999997,
            -1.5,
            127.5,
            -128.5,
            128.0,
            255.5,
            256.0,
            -129.0,
            32767.5,
            65535.5,
            -32768.5,
            2147483520.0,
            2147483648.0,
            -2147483648.0,
            -2147483904.0,
            4294967040.0,
            4294967296.0,
            9.223371e18,
            9.223372e18,
            -9.223372e18,
            1.8446743e19,
            1.8446744e19,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            1e-45,
            -3.75,
            1e10,
            -1e10,
        ];
        v.extend(special.iter().map(|&f| Val::F(f)));
        while v.len() < M {
            let r = next(&mut x);
            let mant = (r >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
            let exp = ((r >> 3) % 70) as i32 - 4;
            v.push(Val::F((mant * 2f64.powi(exp)) as f32));
        }
    } else {
        let mut ints = vec![t.min(), t.max(), 0, 1, t.min() + 1, t.max() - 1];
        if t.signed {
            ints.extend([-1, -2]);
        }
        // Around the float precision limits: 2^24 +- 1, 2^25 + 1, 2^24 + 3,
        // and values needing rounding in the upper bits.
        for p in [7u32, 8, 15, 16, 24, 25, 31, 32, 53, 54, 63] {
            for d in [-1i128, 1, 3] {
                let v = (1i128 << p) + d;
                if v <= t.max() {
                    ints.push(v);
                }
                if t.signed && -v >= t.min() {
                    ints.push(-v);
                }
            }
        }
        ints.truncate(M / 2);
        v.extend(ints.iter().map(|&i| Val::I(i)));
        while v.len() < M {
            let r = next(&mut x) as i128;
            v.push(Val::I(t.wrap(r)));
        }
    }
    v.truncate(M);
    v
}

fn f32_next_up(f: f32) -> f32 {
    let b = f.to_bits() as i32;
    f32::from_bits((if b < 0 { b - 1 } else { b + 1 }) as u32)
}

fn f32_next_down(f: f32) -> f32 {
    let b = f.to_bits() as i32;
    f32::from_bits((if b < 0 { b + 1 } else { b - 1 }) as u32)
}

/// The float `mode` rounds integer v to: the nearest (ties to even) from
/// Rust's conversion, stepped when a directed mode wants the other side.
fn int_to_f32(v: i128, mode: Mode) -> f32 {
    let f = v as f32;
    let fv = f as i128; // exact: f is an integer no larger than 2^64
    match mode {
        Mode::Rte => f,
        // Towards zero: a result of larger magnitude steps back.
        Mode::Rtz if fv.abs() > v.abs() => {
            if f > 0.0 {
                f32_next_down(f)
            } else {
                f32_next_up(f)
            }
        }
        Mode::Rtp if fv < v => f32_next_up(f),
        Mode::Rtn if fv > v => f32_next_down(f),
        _ => f,
    }
}

/// The reference result as the device's bits widened to u64 (integers
/// sign-extended, floats as their bits), or None where the spec leaves it
/// undefined (out-of-range or NaN float to integer without _sat).
fn reference(s: Ty, d: Ty, x: Val, mode: Mode, sat: bool) -> Option<u64> {
    match (x, d.float) {
        (Val::I(v), false) => Some(
            (if sat {
                v.clamp(d.min(), d.max())
            } else {
                d.wrap(v)
            }) as u64,
        ),
        (Val::I(v), true) => Some(int_to_f32(v, mode).to_bits() as u64),
        (Val::F(f), true) => {
            let _ = s;
            Some(f.to_bits() as u64)
        }
        (Val::F(f), false) => {
            if f.is_nan() {
                return if sat { Some(0) } else { None };
            }
            let g = f as f64;
            let r = match mode {
                Mode::Rte => g.round_ties_even(),
                Mode::Rtz => g.trunc(),
                Mode::Rtp => g.ceil(),
                Mode::Rtn => g.floor(),
            };
            // Compared as integers: d.max() as f64 may round up.
            let ri = r as i128; // saturates for infinities
            if ri >= d.min() && ri <= d.max() {
                Some(ri as u64)
            } else if !sat {
                None
            } else if ri < d.min() {
                Some(d.min() as u64)
            } else {
                Some(d.max() as u64)
            }
        }
    }
}

fn to_bytes(t: Ty, v: &[Val]) -> Vec<u8> {
    let mut out = Vec::new();
    for &x in v {
        match x {
            Val::I(i) => out.extend_from_slice(&(i as u128).to_le_bytes()[..t.bytes]),
            Val::F(f) => out.extend_from_slice(&f.to_le_bytes()),
        }
    }
    out
}

/// (destination, function suffix after the width, mode, saturated)
fn variants() -> Vec<(Ty, String, Mode, bool)> {
    let modes = [
        ("", None),
        ("_rte", Some(Mode::Rte)),
        ("_rtz", Some(Mode::Rtz)),
        ("_rtp", Some(Mode::Rtp)),
        ("_rtn", Some(Mode::Rtn)),
    ];
    let mut v = Vec::new();
    for d in TYPES {
        for sat in [false, true] {
            if sat && d.float {
                continue;
            }
            for (m, mode) in modes {
                let sfx = format!("{}{m}", if sat { "_sat" } else { "" });
                v.push((
                    d,
                    sfx,
                    mode.unwrap_or(if d.float { Mode::Rte } else { Mode::Rtz }),
                    sat,
                ));
            }
        }
    }
    v
}

/// Every conversion from `s` at every selected width, lane by lane.
fn check_from(e: &Env, s: Ty, wide: bool) {
    let x = inputs(s);
    let vars = variants();
    let mut src = format!(
        "__kernel void k(__global const {S}* x, __global ulong* out) {{\n  size_t i = get_global_id(0);\n",
        S = s.name
    );
    for (wi, &n) in WIDTHS.iter().enumerate() {
        if is_wide(n, s.bytes) != wide {
            continue;
        }
        let w = if n == 1 { String::new() } else { n.to_string() };
        let lanes: Vec<String> = (0..n).map(|l| format!("x[e + {l}]")).collect();
        src += &format!(
            "  if (i < {}) {{ size_t e = i * {n}; {S}{w} X = ({S}{w})({});\n",
            M / n,
            lanes.join(", "),
            S = s.name
        );
        for (vi, (d, sfx, _, _)) in vars.iter().enumerate() {
            src += &format!("    {{ {D}{w} r = convert_{D}{w}{sfx}(X);\n", D = d.name);
            for l in 0..n {
                let lane = if n == 1 {
                    "r".to_string()
                } else {
                    format!("r.s{l:x}")
                };
                let val = if d.float {
                    format!("as_uint({lane})")
                } else {
                    lane
                };
                src += &format!(
                    "      out[{} + e + {l}] = (ulong)({val});\n",
                    (vi * WIDTHS.len() + wi) * M
                );
            }
            src += "    }\n";
        }
        src += "  }\n";
    }
    src += "}\n";
    let (_p, k) = e.kernel(&src, "k");
    let mx = e.buffer_from(&to_bytes(s, &x));
    let total = vars.len() * WIDTHS.len() * M;
    let mo = e.buffer_from(&vec![0xdead_beefu64; total]);
    ok(set_mem(k.get(), 0, &mx), "arg");
    ok(set_mem(k.get(), 1, &mo), "arg");
    e.run(&k, &[M], None);
    let out = e.read::<u64>(&mo, 0, total);
    let mut fails = Vec::new();
    for (vi, (d, sfx, mode, sat)) in vars.iter().enumerate() {
        for (wi, &n) in WIDTHS.iter().enumerate() {
            if is_wide(n, s.bytes) != wide {
                continue;
            }
            for (el, &v) in x.iter().enumerate() {
                let Some(want) = reference(s, *d, v, *mode, *sat) else {
                    continue;
                };
                let got = out[(vi * WIDTHS.len() + wi) * M + el];
                if got != want && fails.len() < 25 {
                    fails.push(format!(
                        "convert_{}{}{sfx}({}{}) of {v:?}: got {got:#x}, want {want:#x}",
                        d.name,
                        if n == 1 { String::new() } else { n.to_string() },
                        s.name,
                        if n == 1 { String::new() } else { n.to_string() },
                    ));
                }
            }
        }
    }
    assert!(fails.is_empty(), "mismatches:\n{}", fails.join("\n"));
}

macro_rules! from_tests {
    ($($test:ident $(, $wide:ident)?: $i:expr),* $(,)?) => {$(
        #[test]
        fn $test() {
            check_from(&Env::new(), TYPES[$i], false);
        }
        $(
        #[test]
        fn $wide() {
            check_from(&Env::new(), TYPES[$i], true);
        }
        )?
    )*};
}

from_tests! {
    convert_from_char: 0,
    convert_from_uchar: 1,
    convert_from_short, convert_from_short_wide: 2,
    convert_from_ushort, convert_from_ushort_wide: 3,
    convert_from_int, convert_from_int_wide: 4,
    convert_from_uint, convert_from_uint_wide: 5,
    convert_from_long, convert_from_long_wide: 6,
    convert_from_ulong, convert_from_ulong_wide: 7,
    convert_from_float, convert_from_float_wide: 8,
}

/// shuffle and shuffle2 for every type and every (source, result) width;
/// mask elements carry junk in their high bits, which must be ignored.
fn check_shuffles(wide: bool) {
    let e = Env::new();
    let ws = [2usize, 4, 8, 16];
    for t in TYPES {
        let u = match t.bytes {
            1 => "uchar",
            2 => "ushort",
            4 => "uint",
            _ => "ulong",
        };
        let mut src = format!(
            "__kernel void k(__global const {T}* a, __global const {u}* m, __global {T}* out) {{\n",
            T = t.name
        );
        let mut combos = Vec::new();
        for &sm in &ws {
            for &n in &ws {
                if (is_wide(sm, t.bytes) || is_wide(n, t.bytes)) != wide {
                    continue;
                }
                let base = combos.len() * 32;
                combos.push((sm, n));
                let lanes = |arr: &str, off: usize, k: usize| {
                    (0..k)
                        .map(|l| format!("{arr}[{}]", off + l))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                src += &format!(
                    "  {{ {T}{sm} x = ({T}{sm})({}); {T}{sm} y = ({T}{sm})({});\n\
                     {U}{n} k = ({U}{n})({});\n\
                     {T}{n} r = shuffle(x, k); {T}{n} r2 = shuffle2(x, y, k);\n",
                    lanes("a", 0, sm),
                    lanes("a", 16, sm),
                    lanes("m", 0, n),
                    T = t.name,
                    U = u
                );
                for l in 0..n {
                    src += &format!(
                        "    out[{}] = r.s{l:x}; out[{}] = r2.s{l:x};\n",
                        base + l,
                        base + 16 + l
                    );
                }
                src += "  }\n";
            }
        }
        src += "}\n";
        if combos.is_empty() {
            continue;
        }
        let a: Vec<u8> = (0..32 * t.bytes).map(|i| (i * 29 + 3) as u8).collect();
        // Each mask element: an index plus junk in the bits above 5.
        let masks: Vec<u64> = (0..16u64)
            .map(|i| (i * 7 + 3) % 32 | (i * 0x5a5a_5a40))
            .collect();
        let mb: Vec<u8> = masks
            .iter()
            .flat_map(|m| m.to_le_bytes()[..t.bytes].to_vec())
            .collect();
        let (_p, k) = e.kernel(&src, "k");
        let ma = e.buffer_from(&a);
        let mm = e.buffer_from(&mb);
        let mo = e.buffer_from(&vec![0u8; combos.len() * 32 * t.bytes]);
        for (i, m) in [&ma, &mm, &mo].iter().enumerate() {
            ok(set_mem(k.get(), i as cl_uint, m), "arg");
        }
        e.run(&k, &[1], None);
        let out = e.read::<u8>(&mo, 0, combos.len() * 32 * t.bytes);
        let elem = |buf: &[u8], i: usize| buf[i * t.bytes..(i + 1) * t.bytes].to_vec();
        for (c, &(sm, n)) in combos.iter().enumerate() {
            for l in 0..n {
                // The mask element as the device sees it (its low bytes).
                let mk = u64::from_le_bytes({
                    let mut w = [0u8; 8];
                    w[..t.bytes].copy_from_slice(&elem(&mb, l));
                    w
                }) as usize;
                let want1 = elem(&a, mk % sm);
                let j = mk % (2 * sm);
                let want2 = if j < sm {
                    elem(&a, j)
                } else {
                    elem(&a, 16 + j - sm)
                };
                assert_eq!(
                    elem(&out, c * 32 + l),
                    want1,
                    "shuffle {}{sm} -> {n}, lane {l}",
                    t.name
                );
                assert_eq!(
                    elem(&out, c * 32 + 16 + l),
                    want2,
                    "shuffle2 {}{sm} -> {n}, lane {l}",
                    t.name
                );
            }
        }
    }
}

#[test]
fn shuffle_and_shuffle2_every_type_and_width() {
    check_shuffles(false);
}

#[test]
fn shuffle_and_shuffle2_every_type_and_width_wide() {
    check_shuffles(true);
}

/// as_<type> is Clang's reinterpretation (no library function): a check that
/// it reinterprets, including across widths of equal size.
#[test]
fn as_type_reinterprets_bits() {
    let e = Env::new();
    let src = r#"
    __kernel void k(__global uint* out) {
        out[0] = as_uint(1.0f);
        out[1] = as_uint((uchar4)(1, 2, 3, 4));
        float2 f = as_float2((ulong)0x3f80000040000000ul);
        out[2] = as_uint(f.x);
        out[3] = as_uint(f.y);
        out[4] = as_uint(as_int(-1.5f) >> 31);
    }"#;
    let (_p, k) = e.kernel(src, "k");
    let mo = e.buffer_from(&[0u32; 5]);
    ok(set_mem(k.get(), 0, &mo), "arg");
    e.run(&k, &[1], None);
    assert_eq!(
        e.read::<u32>(&mo, 0, 5),
        vec![0x3f80_0000, 0x0403_0201, 0x4000_0000, 0x3f80_0000, u32::MAX]
    );
}

/// `x` rounded to float in `mode`, exactly: `x` is scaled by the quantum of
/// the float it lies among (an ulp, or the smallest denormal below the
/// normal range), rounded to an integer there, and scaled back; a result
/// beyond the float range is the infinity or the largest float, as `mode`
/// rounds.
fn f64_to_f32(x: f64, mode: Mode) -> f32 {
    if !x.is_finite() {
        return x as f32;
    }
    let exp = ((x.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let quantum = 2f64.powi((exp - 23).max(-149));
    let y = x / quantum; // exact: a power of two
    let n = match mode {
        Mode::Rte => y.round_ties_even(),
        Mode::Rtz => y.trunc(),
        Mode::Rtp => y.ceil(),
        Mode::Rtn => y.floor(),
    };
    let r = n * quantum; // exact, the sign of a zero kept
    if r.abs() < 2f64.powi(128) {
        return r as f32;
    }
    let away = match mode {
        Mode::Rte => true,
        Mode::Rtz => false,
        Mode::Rtp => r > 0.0,
        Mode::Rtn => r < 0.0,
    };
    let m = if away { f32::INFINITY } else { f32::MAX };
    if r < 0.0 {
        -m
    } else {
        m
    }
}

/// Doubles that round to float zeros, denormals and their neighbours, the
/// smallest normals, halfway cases, and the top of the range.
fn tiny_doubles() -> Vec<f64> {
    let p = |e: i32| 2f64.powi(e);
    let mut v = vec![
        0.0,
        f64::from_bits(0x0010_0000_0000_0001), // 0x1.0000000000001p-1022
        f64::from_bits(1),                     // the smallest double
        p(-1022),
        p(-200),
        p(-150),                  // half the smallest float denormal
        p(-150) * (1.0 + p(-52)), // just above it
        p(-150) * (1.0 - p(-53)), // just below it
        p(-149),
        p(-149) * 1.5, // halfway between 1 and 2 denormal steps
        p(-149) * 2.5, // halfway between 2 and 3 (ties to even: 2)
        p(-149) * 3.25,
        p(-126),                  // the smallest float normal
        p(-126) * (1.0 - p(-30)), // just below: rounds between denormals
        p(-126) - p(-150),        // halfway between the largest denormal and it
        p(-126) * (1.0 + p(-40)), // just above
        1.0 + p(-24),             // halfway between 1 and its successor
        1.0 + p(-30),
        f32::MAX as f64,
        f32::MAX as f64 * (1.0 + p(-30)),
        p(128) * (1.0 - p(-25)), // halfway between FLT_MAX and 2^128
        p(128),
        f64::MAX,
        f64::INFINITY,
        f64::NAN,
    ];
    // Random magnitudes from 2^-160 to 2^-120.
    let mut s = 0x5eed_u64;
    while v.len() < 120 {
        let r = next(&mut s);
        let e = -160 + (r % 41) as i32;
        let m = 1.0 + (next(&mut s) >> 12) as f64 * p(-52);
        v.push(m * p(e));
    }
    let neg: Vec<f64> = v.iter().map(|x| -x).collect();
    v.extend(neg);
    v
}

/// convert_float{n}[_rte|_rtz|_rtp|_rtn](double{n}) of doubles below and
/// around the float range, every width, against exact rounding.
#[test]
fn double_to_float_rounds_tiny_values_and_denormals_in_every_mode() {
    if !has_fp64() {
        return;
    }
    let e = Env::new();
    let x = tiny_doubles();
    let count = x.len(); // a multiple of every width, 3 too
    assert_eq!(count % 48, 0);
    let modes = [
        ("", Mode::Rte),
        ("_rte", Mode::Rte),
        ("_rtz", Mode::Rtz),
        ("_rtp", Mode::Rtp),
        ("_rtn", Mode::Rtn),
    ];
    let mut src = String::from(
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
         __kernel void k(__global const double* x, __global float* out) {\n\
         size_t i = get_global_id(0);\n",
    );
    let mut slot = 0;
    for n in WIDTHS {
        let w = if n == 1 { String::new() } else { n.to_string() };
        for (sfx, _) in modes {
            let (load, store) = if n == 1 {
                (
                    "x[i]".to_string(),
                    format!("out[{} + i] = r;", slot * count),
                )
            } else {
                (
                    format!("vload{n}(i, x)"),
                    format!("vstore{n}(r, i, out + {});", slot * count),
                )
            };
            src += &format!(
                "  if (i < {}) {{ float{w} r = convert_float{w}{sfx}({load}); {store} }}\n",
                count / n
            );
            slot += 1;
        }
    }
    src += "}\n";
    let (_p, k) = e.kernel(&src, "k");
    let mx = e.buffer_from(&x);
    let mo = e.buffer_from(&vec![0u32; slot * count]);
    e.run_with(&k, &[&mx, &mo], &[count], None);
    let out = e.read::<u32>(&mo, 0, slot * count);
    let mut fails = Vec::new();
    let mut slot = 0;
    for n in WIDTHS {
        for (sfx, mode) in modes {
            for (el, &v) in x.iter().enumerate() {
                let want = f64_to_f32(v, mode);
                let got = f32::from_bits(out[slot * count + el]);
                let same = got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan());
                if !same && fails.len() < 25 {
                    fails.push(format!(
                        "convert_float{}{sfx}({v:e} = {:#x}): got {got:e} ({:#x}), want {want:e} ({:#x})",
                        if n == 1 { String::new() } else { n.to_string() },
                        v.to_bits(),
                        got.to_bits(),
                        want.to_bits()
                    ));
                }
            }
            slot += 1;
        }
    }
    assert!(fails.is_empty(), "mismatches:\n{}", fails.join("\n"));
}
