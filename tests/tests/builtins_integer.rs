//! The integer builtins (OpenCL C 3.0 section 6.15.3) for every integer type
//! and vector width, checked lane by lane against a reference computed on the
//! host in 128-bit arithmetic.
//!
//! One kernel per type evaluates every function at every width; each lane's
//! result is widened to `ulong` (sign-extending signed results) so one host
//! comparison covers all result types.

use ferrocl_tests::*;

/// Elements per input array: a multiple of every width (2, 3, 4, 8, 16).
const M: usize = 240;
const WIDTHS: [usize; 6] = [1, 2, 3, 4, 8, 16];

#[derive(Clone, Copy, Debug)]
struct Ty {
    name: &'static str,
    uname: &'static str,
    bits: u32,
    signed: bool,
}

const TYPES: [Ty; 8] = [
    Ty {
        name: "char",
        uname: "uchar",
        bits: 8,
        signed: true,
    },
    Ty {
        name: "uchar",
        uname: "uchar",
        bits: 8,
        signed: false,
    },
    Ty {
        name: "short",
        uname: "ushort",
        bits: 16,
        signed: true,
    },
    Ty {
        name: "ushort",
        uname: "ushort",
        bits: 16,
        signed: false,
    },
    Ty {
        name: "int",
        uname: "uint",
        bits: 32,
        signed: true,
    },
    Ty {
        name: "uint",
        uname: "uint",
        bits: 32,
        signed: false,
    },
    Ty {
        name: "long",
        uname: "ulong",
        bits: 64,
        signed: true,
    },
    Ty {
        name: "ulong",
        uname: "ulong",
        bits: 64,
        signed: false,
    },
];

impl Ty {
    fn min(&self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }
    fn max(&self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }
    /// `v` reduced modulo 2^bits into the type's range.
    fn wrap(&self, v: i128) -> i128 {
        let m = 1i128 << self.bits;
        let u = v.rem_euclid(m);
        if self.signed && u > self.max() {
            u - m
        } else {
            u
        }
    }
    fn sat(&self, v: i128) -> i128 {
        v.clamp(self.min(), self.max())
    }
    /// The bit pattern as an unsigned number.
    fn bits_of(&self, v: i128) -> u128 {
        v.rem_euclid(1i128 << self.bits) as u128
    }
    /// Bytes of one element, little-endian, as the device stores it.
    fn to_bytes(&self, v: i128, out: &mut Vec<u8>) {
        let b = (v as u128).to_le_bytes();
        out.extend_from_slice(&b[..(self.bits / 8) as usize]);
    }
}

/// Edge cases first, then pseudo-random values, all in the type's range.
fn inputs(t: Ty, seed: u64) -> Vec<i128> {
    let mut v = vec![
        t.min(),
        t.max(),
        0,
        1,
        t.min() + 1,
        t.max() - 1,
        t.max() / 2,
        t.max() / 2 + 1,
        2,
        3,
    ];
    if t.signed {
        v.extend([-1, -2, -3, t.min() / 2]);
    }
    for s in 0..t.bits {
        v.push(t.wrap(1i128 << s));
    }
    let mut x = seed;
    while v.len() < M {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // Mix small magnitudes in: they exercise the non-saturating paths.
        let r = if x % 3 == 0 {
            (x >> 40) as i128 % 100 - 50
        } else {
            x as i128
        };
        v.push(t.wrap(r));
    }
    v.truncate(M);
    v
}

/// A function under test: its kernel expression (A, B, C, D are the vector
/// operands; SB, SD scalars for the vector-scalar forms) and its reference.
struct Func {
    name: &'static str,
    expr: &'static str,
    vector_only: bool,
    reference: fn(Ty, i128, i128, i128, i128) -> i128,
}

fn funcs() -> Vec<Func> {
    fn f(
        name: &'static str,
        expr: &'static str,
        r: fn(Ty, i128, i128, i128, i128) -> i128,
    ) -> Func {
        Func {
            name,
            expr,
            vector_only: false,
            reference: r,
        }
    }
    let mut v = vec![
        f("abs", "abs(A)", |_, a, _, _, _| a.abs()),
        f("abs_diff", "abs_diff(A, B)", |_, a, b, _, _| (a - b).abs()),
        f("add_sat", "add_sat(A, B)", |t, a, b, _, _| t.sat(a + b)),
        f("sub_sat", "sub_sat(A, B)", |t, a, b, _, _| t.sat(a - b)),
        f("hadd", "hadd(A, B)", |_, a, b, _, _| (a + b) >> 1),
        f("rhadd", "rhadd(A, B)", |_, a, b, _, _| (a + b + 1) >> 1),
        f("clz", "clz(A)", |t, a, _, _, _| {
            let u = t.bits_of(a);
            (u.leading_zeros() - (128 - t.bits)) as i128
        }),
        f("ctz", "ctz(A)", |t, a, _, _, _| {
            let u = t.bits_of(a);
            if u == 0 {
                t.bits as i128
            } else {
                u.trailing_zeros() as i128
            }
        }),
        f("popcount", "popcount(A)", |t, a, _, _, _| {
            t.bits_of(a).count_ones() as i128
        }),
        f("rotate", "rotate(A, B)", |t, a, b, _, _| {
            let u = t.bits_of(a);
            let s = t.bits_of(b) as u32 % t.bits;
            let mask = (1u128 << t.bits) - 1;
            let r = if s == 0 {
                u
            } else {
                ((u << s) | (u >> (t.bits - s))) & mask
            };
            t.wrap(r as i128)
        }),
        f("max", "max(A, B)", |_, a, b, _, _| a.max(b)),
        f("min", "min(A, B)", |_, a, b, _, _| a.min(b)),
        f("clamp", "clamp(A, B, D)", |_, a, b, _, d| a.max(b).min(d)),
        f("mul_hi", "mul_hi(A, B)", |t, a, b, _, _| mul_hi(t, a, b)),
        f("mad_hi", "mad_hi(A, B, C)", |t, a, b, c, _| {
            t.wrap(mul_hi(t, a, b) + c)
        }),
        f("mad_sat", "mad_sat(A, B, C)", |t, a, b, c, _| {
            if !t.signed && t.bits == 64 {
                // a * b + c < 2^128: exact in u128.
                let r = a as u128 * b as u128 + c as u128;
                r.min(u64::MAX as u128) as i128
            } else {
                t.sat(a * b + c)
            }
        }),
    ];
    let vs = |name, expr, r| Func {
        name,
        expr,
        vector_only: true,
        reference: r,
    };
    v.push(vs("max(v, s)", "max(A, SB)", |_, a, b, _, _| a.max(b)));
    v.push(vs("min(v, s)", "min(A, SB)", |_, a, b, _, _| a.min(b)));
    v.push(vs("clamp(v, s, s)", "clamp(A, SB, SD)", |_, a, b, _, d| {
        a.max(b).min(d)
    }));
    v
}

fn mul_hi(t: Ty, a: i128, b: i128) -> i128 {
    if !t.signed && t.bits == 64 {
        ((a as u128 * b as u128) >> 64) as i128
    } else {
        (a * b) >> t.bits
    }
}

/// Whether a vector of `n` elements of `bits` is wider than 16 bytes (a
/// 3-vector takes 4 elements' room). Such vectors are passed to functions in
/// AVX registers or in memory depending on the CPU features the caller was
/// compiled for; the tests for them are kept apart and ignored until the two agree.
fn is_wide(n: usize, bits: u32) -> bool {
    let n = if n == 3 { 4 } else { n };
    n * bits as usize / 8 > 16
}

fn lane(l: usize) -> String {
    format!("s{l:x}")
}

/// The kernel source for type `t`: work-item i evaluates every function on
/// elements [i*N, i*N+N) for each width N and writes each lane, as ulong, to
/// out[(f * 6 + width index) * M + element].
fn kernel_source(t: Ty, fs: &[Func], wide: bool) -> String {
    let mut s = format!(
        "__kernel void k(__global const {T}* a, __global const {T}* b, __global const {T}* c,\n\
         __global const {T}* d, __global ulong* out) {{\n  size_t i = get_global_id(0);\n",
        T = t.name
    );
    for (wi, &n) in WIDTHS.iter().enumerate() {
        if is_wide(n, t.bits) != wide {
            continue;
        }
        let vt = if n == 1 {
            t.name.to_string()
        } else {
            format!("{}{n}", t.name)
        };
        s += &format!("  if (i < {}) {{\n    size_t e = i * {n};\n", M / n);
        for (arr, var) in [("a", "A"), ("b", "B"), ("c", "C"), ("d", "D")] {
            let lanes: Vec<String> = (0..n).map(|l| format!("{arr}[e + {l}]")).collect();
            s += &format!("    {vt} {var} = ({vt})({});\n", lanes.join(", "));
        }
        s += &format!("    {T} SB = b[e], SD = d[e];\n", T = t.name);
        for (fi, f) in fs.iter().enumerate() {
            if f.vector_only && n == 1 {
                continue;
            }
            let base = (fi * WIDTHS.len() + wi) * M;
            s += &format!("    {{ __auto_type r = {};\n", f.expr);
            for l in 0..n {
                let v = if n == 1 {
                    "r".to_string()
                } else {
                    format!("r.{}", lane(l))
                };
                s += &format!("      out[{base} + e + {l}] = (ulong)({v});\n");
            }
            s += "    }\n";
        }
        s += "  }\n";
    }
    s + "}\n"
}

fn check_type(e: &Env, t: Ty, wide: bool) {
    let fs = funcs();
    let a = inputs(t, 0x1234_5678_9abc_def1 ^ t.bits as u64);
    let b = inputs(t, 0x0fed_cba9_8765_4321 ^ t.bits as u64);
    let c = inputs(t, 0x5555_aaaa_3333_cccc ^ t.bits as u64);
    // b rotated, so pairs (a, b) meet edge cases against other edge cases.
    let b: Vec<i128> = b.iter().cycle().skip(7).take(M).copied().collect();
    // clamp's upper bound is at least its lower bound (else undefined).
    let d: Vec<i128> = b.iter().zip(&c).map(|(&x, &y)| x.max(y)).collect();
    let bytes = |v: &[i128]| {
        let mut out = Vec::new();
        for &x in v {
            t.to_bytes(x, &mut out);
        }
        out
    };
    let src = kernel_source(t, &fs, wide);
    // ctz is OpenCL C 2.0 and later.
    let (_p, k) = e.kernel_opts(&src, "k", "-cl-std=CL3.0");
    let ma = e.buffer_from(&bytes(&a));
    let mb = e.buffer_from(&bytes(&b));
    let mc = e.buffer_from(&bytes(&c));
    let md = e.buffer_from(&bytes(&d));
    let total = fs.len() * WIDTHS.len() * M;
    let mo = e.buffer_from(&vec![0xdead_beef_u64; total]);
    for (i, m) in [&ma, &mb, &mc, &md, &mo].iter().enumerate() {
        ok(set_mem(k.get(), i as cl_uint, m), "set arg");
    }
    e.run(&k, &[M], None);
    let out = e.read::<u64>(&mo, 0, total);
    let mut failures = Vec::new();
    for (fi, f) in fs.iter().enumerate() {
        for (wi, &n) in WIDTHS.iter().enumerate() {
            if (f.vector_only && n == 1) || is_wide(n, t.bits) != wide {
                continue;
            }
            for el in 0..M {
                // The vector-scalar forms use the first lane's b and d.
                let (bb, dd) = if f.vector_only {
                    let first = el - el % n;
                    (b[first], d[first])
                } else {
                    (b[el], d[el])
                };
                let want = (f.reference)(t, a[el], bb, c[el], dd) as u64;
                let got = out[(fi * WIDTHS.len() + wi) * M + el];
                if got != want && failures.len() < 20 {
                    failures.push(format!(
                        "{} {}{}: a={} b={} c={} d={}: got {:#x}, want {:#x}",
                        f.name,
                        t.name,
                        if n == 1 { String::new() } else { n.to_string() },
                        a[el],
                        bb,
                        c[el],
                        dd,
                        got,
                        want
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        t.name,
        failures.join("\n")
    );
}

macro_rules! type_tests {
    ($($test:ident $(, $wide:ident)?: $i:expr),* $(,)?) => {$(
        #[test]
        fn $test() {
            check_type(&Env::new(), TYPES[$i], false);
        }
        $(
        #[test]
        fn $wide() {
            check_type(&Env::new(), TYPES[$i], true);
        }
        )?
    )*};
}

// char16 is 16 bytes: every char vector is narrow.
type_tests! {
    integer_functions_char: 0,
    integer_functions_uchar: 1,
    integer_functions_short, integer_functions_short_wide: 2,
    integer_functions_ushort, integer_functions_ushort_wide: 3,
    integer_functions_int, integer_functions_int_wide: 4,
    integer_functions_uint, integer_functions_uint_wide: 5,
    integer_functions_long, integer_functions_long_wide: 6,
    integer_functions_ulong, integer_functions_ulong_wide: 7,
}

/// Runs `body` (which reads `a`/`b` as `T`/`U` vectors of width N via the
/// placeholders and stores lanes of `r` as ulong) for every width of a pair
/// of types, returning out[width index * M + element].
fn run_pair(e: &Env, t: Ty, u: Ty, expr: &str, a: &[i128], b: &[i128], wide: bool) -> Vec<u64> {
    let mut s = format!(
        "__kernel void k(__global const {T}* a, __global const {U}* b, __global ulong* out) {{\n\
         size_t i = get_global_id(0);\n",
        T = t.name,
        U = u.name
    );
    for (wi, &n) in WIDTHS.iter().enumerate() {
        if is_wide(n, t.bits) != wide {
            continue;
        }
        let sfx = if n == 1 { String::new() } else { n.to_string() };
        s += &format!("  if (i < {}) {{ size_t e = i * {n};\n", M / n);
        for (arr, ty, var) in [("a", t.name, "A"), ("b", u.name, "B")] {
            let lanes: Vec<String> = (0..n).map(|l| format!("{arr}[e + {l}]")).collect();
            s += &format!("    {ty}{sfx} {var} = ({ty}{sfx})({});\n", lanes.join(", "));
        }
        s += &format!("    __auto_type r = {expr};\n");
        for l in 0..n {
            let v = if n == 1 {
                "r".to_string()
            } else {
                format!("r.{}", lane(l))
            };
            s += &format!("    out[{} + e + {l}] = (ulong)({v});\n", wi * M);
        }
        s += "  }\n";
    }
    s += "}\n";
    let (_p, k) = e.kernel(&s, "k");
    let bytes = |ty: Ty, v: &[i128]| {
        let mut out = Vec::new();
        for &x in v {
            ty.to_bytes(x, &mut out);
        }
        out
    };
    let ma = e.buffer_from(&bytes(t, a));
    let mb = e.buffer_from(&bytes(u, b));
    let mo = e.buffer_from(&vec![0xdead_beef_u64; WIDTHS.len() * M]);
    for (i, m) in [&ma, &mb, &mo].iter().enumerate() {
        ok(set_mem(k.get(), i as cl_uint, m), "set arg");
    }
    e.run(&k, &[M], None);
    e.read::<u64>(&mo, 0, WIDTHS.len() * M)
}

fn check_upsample(wide: bool) {
    let e = Env::new();
    for pair in [0, 2, 4] {
        for hi_t in [TYPES[pair], TYPES[pair + 1]] {
            let lo_t = TYPES[pair + 1];
            let a = inputs(hi_t, 99);
            let b: Vec<i128> = inputs(lo_t, 7).into_iter().rev().collect();
            let out = run_pair(&e, hi_t, lo_t, "upsample(A, B)", &a, &b, wide);
            for (wi, &n) in WIDTHS.iter().enumerate() {
                if is_wide(n, hi_t.bits) != wide {
                    continue;
                }
                for el in 0..M {
                    let want = (a[el] * (1i128 << hi_t.bits) + b[el]) as u64;
                    let got = out[wi * M + el];
                    assert_eq!(
                        got, want,
                        "upsample({}{n}, {}{n}) lane {el}: hi={} lo={}",
                        hi_t.name, lo_t.name, a[el], b[el]
                    );
                }
            }
        }
    }
}

fn check_mul24(wide: bool) {
    let e = Env::new();
    for t in [TYPES[4], TYPES[5]] {
        // Operands within the 24-bit range the spec defines the result for.
        let r24 = Ty {
            name: t.name,
            uname: t.uname,
            bits: 24,
            signed: t.signed,
        };
        let a = inputs(r24, 5);
        let b: Vec<i128> = inputs(r24, 11).into_iter().rev().collect();
        let mul = run_pair(&e, t, t, "mul24(A, B)", &a, &b, wide);
        let mad = run_pair(&e, t, t, "mad24(A, B, B)", &a, &b, wide);
        for (wi, &n) in WIDTHS.iter().enumerate() {
            if is_wide(n, t.bits) != wide {
                continue;
            }
            for el in 0..M {
                let m = t.wrap(a[el] * b[el]);
                assert_eq!(
                    mul[wi * M + el],
                    m as u64,
                    "mul24 {} {} {}",
                    t.name,
                    a[el],
                    b[el]
                );
                let want = t.wrap(m + b[el]) as u64;
                assert_eq!(
                    mad[wi * M + el],
                    want,
                    "mad24 {} {} {}",
                    t.name,
                    a[el],
                    b[el]
                );
            }
        }
    }
}

#[test]
fn upsample_joins_high_and_low_halves() {
    check_upsample(false);
}

#[test]
fn upsample_joins_high_and_low_halves_wide() {
    check_upsample(true);
}

#[test]
fn mul24_and_mad24_multiply_24_bit_values() {
    check_mul24(false);
}

#[test]
fn mul24_and_mad24_multiply_24_bit_values_wide() {
    check_mul24(true);
}
