//! The relational functions (OpenCL C 3.0 section 6.15.6) at every width:
//! scalar tests return int 1/0, vector tests -1/0 per lane; any/all look at
//! the most significant bits; bitselect and select for every type.

use ferrocl_tests::*;

/// Elements per input array: a multiple of every width (2, 3, 4, 8, 16).
const M: usize = 240;
const WIDTHS: [usize; 6] = [1, 2, 3, 4, 8, 16];

fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// Whether an n-vector of `bytes`-byte elements is over 16 bytes (a 3-vector
/// takes the room of 4). The library and user programs currently disagree on
/// how such vectors are passed to functions, so their tests are ignored.
fn is_wide(n: usize, bytes: usize) -> bool {
    (if n == 3 { 4 } else { n }) * bytes > 16
}

fn vec_type(t: &str, n: usize) -> String {
    if n == 1 {
        t.to_string()
    } else {
        format!("{t}{n}")
    }
}

fn lane_expr(v: &str, n: usize, l: usize) -> String {
    if n == 1 {
        v.to_string()
    } else {
        format!("{v}.s{l:x}")
    }
}

/// `{vt}(arr[e + 0], ..., arr[e + n - 1])`
fn load(vt: &str, arr: &str, n: usize) -> String {
    let lanes: Vec<String> = (0..n).map(|l| format!("{arr}[e + {l}]")).collect();
    format!("({vt})({})", lanes.join(", "))
}

fn run_kernel<T: Copy + Default>(
    e: &Env,
    src: &str,
    inputs: &[Mem],
    out_len: usize,
    fill: T,
) -> Vec<T> {
    let (_p, k) = e.kernel(src, "k");
    let mo = e.buffer_from(&vec![fill; out_len]);
    for (i, m) in inputs.iter().enumerate() {
        ok(set_mem(k.get(), i as cl_uint, m), "set arg");
    }
    ok(set_mem(k.get(), inputs.len() as cl_uint, &mo), "set arg");
    e.run(&k, &[M], None);
    e.read::<T>(&mo, 0, out_len)
}

// ---------------------------------------------------------------------------
// Comparisons and classification of floats

fn float_inputs(seed: u64) -> Vec<f32> {
    let mut v = vec![
        f32::NAN,
        -f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        1e-40,
        -1e-45,
        f32::MAX,
        f32::MIN,
        f32::from_bits(0x7f80_0001), // a signalling NaN
        f32::from_bits(0xffc1_2345),
        2.5,
        2.5,
    ];
    let mut x = seed;
    while v.len() < M {
        let r = next(&mut x);
        // Small integers so equal pairs happen; now and then raw bit patterns.
        v.push(if r % 4 == 0 {
            f32::from_bits((r >> 32) as u32)
        } else {
            ((r >> 40) % 5) as f32 - 2.0
        });
    }
    v
}

type FRef = fn(f32, f32) -> bool;

const FLOAT_FUNCS: [(&str, &str, FRef); 14] = [
    ("isequal", "isequal(A, B)", |a, b| a == b),
    ("isnotequal", "isnotequal(A, B)", |a, b| a != b),
    ("isgreater", "isgreater(A, B)", |a, b| a > b),
    ("isgreaterequal", "isgreaterequal(A, B)", |a, b| a >= b),
    ("isless", "isless(A, B)", |a, b| a < b),
    ("islessequal", "islessequal(A, B)", |a, b| a <= b),
    ("islessgreater", "islessgreater(A, B)", |a, b| {
        a < b || a > b
    }),
    ("isordered", "isordered(A, B)", |a, b| {
        !a.is_nan() && !b.is_nan()
    }),
    ("isunordered", "isunordered(A, B)", |a, b| {
        a.is_nan() || b.is_nan()
    }),
    ("isnan", "isnan(A)", |a, _| a.is_nan()),
    ("isinf", "isinf(A)", |a, _| a.is_infinite()),
    ("isfinite", "isfinite(A)", |a, _| a.is_finite()),
    ("isnormal", "isnormal(A)", |a, _| a.is_normal()),
    ("signbit", "signbit(A)", |a, _| a.is_sign_negative()),
];

fn check_float_functions(wide: bool) {
    let e = Env::new();
    let a = float_inputs(0x1234_5678_9abc);
    // b: the same values in another order, so every special value meets
    // every other one, and equal pairs occur.
    let b: Vec<f32> = (0..M).map(|i| a[(i * 7 + i / 18) % M]).collect();
    let mut src = String::from(
        "__kernel void k(__global const float* a, __global const float* b, __global int* out) {\n\
         size_t i = get_global_id(0);\n",
    );
    for (wi, &n) in WIDTHS.iter().enumerate() {
        if is_wide(n, 4) != wide {
            continue;
        }
        let vt = vec_type("float", n);
        src += &format!(
            "  if (i < {}) {{ size_t e = i * {n};\n    {vt} A = {}, B = {};\n",
            M / n,
            load(&vt, "a", n),
            load(&vt, "b", n)
        );
        for (fi, (_, expr, _)) in FLOAT_FUNCS.iter().enumerate() {
            src += &format!("    {{ {} r = {expr};\n", vec_type("int", n));
            for l in 0..n {
                let base = (fi * WIDTHS.len() + wi) * M;
                src += &format!("      out[{base} + e + {l}] = {};\n", lane_expr("r", n, l));
            }
            src += "    }\n";
        }
        src += "  }\n";
    }
    src += "}\n";
    let inputs = [e.buffer_from(&a), e.buffer_from(&b)];
    let total = FLOAT_FUNCS.len() * WIDTHS.len() * M;
    let out = run_kernel(&e, &src, &inputs, total, 7i32);
    let mut fails = Vec::new();
    for (fi, (name, _, r)) in FLOAT_FUNCS.iter().enumerate() {
        for (wi, &n) in WIDTHS.iter().enumerate() {
            if is_wide(n, 4) != wide {
                continue;
            }
            for el in 0..M {
                let t = if n == 1 { 1 } else { -1 };
                let want = if r(a[el], b[el]) { t } else { 0 };
                let got = out[(fi * WIDTHS.len() + wi) * M + el];
                if got != want && fails.len() < 20 {
                    fails.push(format!(
                        "{name} width {n}: a={:e} ({:#x}) b={:e}: got {got}, want {want}",
                        a[el],
                        a[el].to_bits(),
                        b[el]
                    ));
                }
            }
        }
    }
    assert!(fails.is_empty(), "mismatches:\n{}", fails.join("\n"));
}

#[test]
fn float_comparisons_and_classes() {
    check_float_functions(false);
}

#[test]
fn float_comparisons_and_classes_wide() {
    check_float_functions(true);
}

// ---------------------------------------------------------------------------
// Integer types: any, all, bitselect, select

#[derive(Clone, Copy)]
struct Ty {
    name: &'static str,
    /// The signed and unsigned integer types of the same size.
    sname: &'static str,
    uname: &'static str,
    bytes: usize,
}

const TYPES: [Ty; 10] = [
    Ty {
        name: "char",
        sname: "char",
        uname: "uchar",
        bytes: 1,
    },
    Ty {
        name: "uchar",
        sname: "char",
        uname: "uchar",
        bytes: 1,
    },
    Ty {
        name: "short",
        sname: "short",
        uname: "ushort",
        bytes: 2,
    },
    Ty {
        name: "ushort",
        sname: "short",
        uname: "ushort",
        bytes: 2,
    },
    Ty {
        name: "int",
        sname: "int",
        uname: "uint",
        bytes: 4,
    },
    Ty {
        name: "uint",
        sname: "int",
        uname: "uint",
        bytes: 4,
    },
    Ty {
        name: "long",
        sname: "long",
        uname: "ulong",
        bytes: 8,
    },
    Ty {
        name: "ulong",
        sname: "long",
        uname: "ulong",
        bytes: 8,
    },
    Ty {
        name: "float",
        sname: "int",
        uname: "uint",
        bytes: 4,
    },
    Ty {
        name: "double",
        sname: "long",
        uname: "ulong",
        bytes: 8,
    },
];

/// Raw bit patterns of `bytes`-byte elements (as u64): zero, one, the sign
/// bit alone, all ones, then random patterns.
fn patterns(bytes: usize, seed: u64) -> Vec<u64> {
    let mask = if bytes == 8 {
        u64::MAX
    } else {
        (1u64 << (bytes * 8)) - 1
    };
    let msb = 1u64 << (bytes * 8 - 1);
    let mut v = vec![0, 1, msb, mask, msb | 1, mask ^ msb, 2, mask - 1];
    let mut x = seed;
    while v.len() < M {
        let r = next(&mut x);
        // Half the time, a value with only the low bits set (MSB clear).
        v.push(if r % 2 == 0 {
            r & mask
        } else {
            (r >> 8) & (mask >> 1)
        });
    }
    v
}

fn to_bytes(v: &[u64], bytes: usize) -> Vec<u8> {
    v.iter()
        .flat_map(|x| x.to_le_bytes()[..bytes].to_vec())
        .collect()
}

fn from_bytes(b: &[u8], bytes: usize) -> Vec<u64> {
    b.chunks_exact(bytes)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..bytes].copy_from_slice(c);
            u64::from_le_bytes(w)
        })
        .collect()
}

fn check_any_all(wide: bool) {
    let e = Env::new();
    for t in [TYPES[0], TYPES[2], TYPES[4], TYPES[6]] {
        let msb = 1u64 << (t.bytes * 8 - 1);
        let mut x = patterns(t.bytes, 42 + t.bytes as u64);
        // Runs of lanes with the sign bit all set or all clear, so all() is
        // true for some vectors of every width.
        for (i, v) in x.iter_mut().enumerate().take(96) {
            if (i / 16) % 2 == 0 {
                *v |= msb;
            } else {
                *v &= !msb;
            }
        }
        let mut src = format!(
            "__kernel void k(__global const {T}* a, __global int* out) {{\n\
             size_t i = get_global_id(0);\n",
            T = t.name
        );
        for (wi, &n) in WIDTHS.iter().enumerate() {
            if is_wide(n, t.bytes) != wide {
                continue;
            }
            let vt = vec_type(t.name, n);
            src += &format!(
                "  if (i < {}) {{ size_t e = i * {n}; {vt} A = {};\n\
                 out[{} + 2 * i] = any(A); out[{} + 2 * i + 1] = all(A); }}\n",
                M / n,
                load(&vt, "a", n),
                wi * 2 * M,
                wi * 2 * M
            );
        }
        src += "}\n";
        let inputs = [e.buffer_from(&to_bytes(&x, t.bytes))];
        let out = run_kernel(&e, &src, &inputs, WIDTHS.len() * 2 * M, 7i32);
        for (wi, &n) in WIDTHS.iter().enumerate() {
            if is_wide(n, t.bytes) != wide {
                continue;
            }
            for i in 0..M / n {
                let lanes = &x[i * n..i * n + n];
                let any = lanes.iter().any(|v| v & msb != 0) as i32;
                let all = lanes.iter().all(|v| v & msb != 0) as i32;
                let got = (out[wi * 2 * M + 2 * i], out[wi * 2 * M + 2 * i + 1]);
                assert_eq!(got, (any, all), "any/all of {}{n} {lanes:x?}", t.name);
            }
        }
    }
}

#[test]
fn any_and_all_test_the_sign_bits() {
    check_any_all(false);
}

#[test]
fn any_and_all_test_the_sign_bits_wide() {
    check_any_all(true);
}

/// bitselect(a, b, c), select(a, b, signed c) and select(a, b, unsigned c)
/// for type `t`, every width; results compared as bit patterns.
fn check_selects(e: &Env, t: Ty, wide: bool) {
    let a = patterns(t.bytes, 1);
    let b: Vec<u64> = patterns(t.bytes, 2).into_iter().rev().collect();
    let c: Vec<u64> = patterns(t.bytes, 3)
        .into_iter()
        .cycle()
        .skip(3)
        .take(M)
        .collect();
    let exprs = ["bitselect(A, B, C)", "select(A, B, CS)", "select(A, B, CU)"];
    let mut src = format!(
        "__kernel void k(__global const {T}* a, __global const {T}* b,\n\
         __global const {S}* c, __global {T}* out) {{\n  size_t i = get_global_id(0);\n",
        T = t.name,
        S = t.sname
    );
    for (wi, &n) in WIDTHS.iter().enumerate() {
        if is_wide(n, t.bytes) != wide {
            continue;
        }
        let (vt, st, ut) = (
            vec_type(t.name, n),
            vec_type(t.sname, n),
            vec_type(t.uname, n),
        );
        src += &format!(
            "  if (i < {}) {{ size_t e = i * {n};\n    {vt} A = {}, B = {};\n    {st} CS = {};\n\
             {ut} CU = as_{ut}(CS);\n    {vt} C = as_{vt}(CS);\n",
            M / n,
            load(&vt, "a", n),
            load(&vt, "b", n),
            load(&st, "c", n),
        );
        for (fi, expr) in exprs.iter().enumerate() {
            src += &format!("    {{ {vt} r = {expr};\n");
            for l in 0..n {
                let base = (fi * WIDTHS.len() + wi) * M;
                src += &format!("      out[{base} + e + {l}] = {};\n", lane_expr("r", n, l));
            }
            src += "    }\n";
        }
        src += "  }\n";
    }
    src += "}\n";
    let inputs = [
        e.buffer_from(&to_bytes(&a, t.bytes)),
        e.buffer_from(&to_bytes(&b, t.bytes)),
        e.buffer_from(&to_bytes(&c, t.bytes)),
    ];
    let total = exprs.len() * WIDTHS.len() * M;
    let raw = run_kernel(&e, &src, &inputs, total * t.bytes, 0xa5u8);
    let out = from_bytes(&raw, t.bytes);
    let msb = 1u64 << (t.bytes * 8 - 1);
    for (wi, &n) in WIDTHS.iter().enumerate() {
        if is_wide(n, t.bytes) != wide {
            continue;
        }
        for el in 0..M {
            let (x, y, z) = (a[el], b[el], c[el]);
            let bitsel = (x & !z) | (y & z);
            // Scalars select on non-zero, vectors on the most significant bit.
            let pick = if n == 1 { z != 0 } else { z & msb != 0 };
            let sel = if pick { y } else { x };
            for (fi, want) in [bitsel, sel, sel].into_iter().enumerate() {
                let got = out[(fi * WIDTHS.len() + wi) * M + el];
                assert_eq!(
                    got, want,
                    "{} on {}{n}: a={x:#x} b={y:#x} c={z:#x}",
                    exprs[fi], t.name
                );
            }
        }
    }
}

#[test]
fn bitselect_and_select_every_type() {
    let e = Env::new();
    for t in TYPES {
        // double needs cl_khr_fp64, which the device does not report.
        if t.name != "double" {
            check_selects(&e, t, false);
        }
    }
}

#[test]
fn bitselect_and_select_every_type_wide() {
    let e = Env::new();
    for t in TYPES {
        if t.name != "double" && t.bytes > 1 {
            check_selects(&e, t, true);
        }
    }
}
