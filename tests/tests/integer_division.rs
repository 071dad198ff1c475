//! Integer `/` and `%` by zero, and of the minimum value by -1, are
//! undefined in OpenCL C but must not kill the application (x86 raises
//! SIGFPE for them). Every other quotient and remainder is still exact,
//! scalar, in vectors, and in kernels the vectorizer widens.

use ferrocl_tests::*;

/// Work-items: enough for the vectorized kernel to run full vectors.
const N: usize = 256;

/// Dividends and divisors of every type, as i64, with the trapping pairs
/// among them: a zero divisor every 5th element, MIN / -1 every 7th.
fn operands(bits: u32, signed: bool) -> (Vec<i64>, Vec<i64>) {
    let min = if signed { -(1i64 << (bits - 1)) } else { 0 };
    let mut a = Vec::with_capacity(N);
    let mut b = Vec::with_capacity(N);
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for i in 0..N {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let wrap = |v: u64| -> i64 {
            let v = if bits == 64 {
                v
            } else {
                v & ((1u64 << bits) - 1)
            };
            if signed && bits < 64 && v >> (bits - 1) == 1 {
                v as i64 - (1i64 << bits)
            } else {
                v as i64
            }
        };
        let (ai, bi) = match i % 35 {
            0 | 5 | 10 | 15 | 20 | 25 | 30 => (wrap(x), 0),
            7 | 14 | 21 | 28 if signed => (min, -1),
            _ => (wrap(x), wrap(x >> 29 | 1)),
        };
        a.push(ai);
        b.push(bi);
    }
    (a, b)
}

/// Whether `a / b` is defined for the type.
fn defined(a: i64, b: i64, bits: u32, signed: bool) -> bool {
    b != 0 && !(signed && b == -1 && a == -(1i64 << (bits - 1)))
}

/// The host's quotient and remainder, in the type's own arithmetic.
fn reference(a: i64, b: i64, bits: u32, signed: bool) -> (i64, i64) {
    if signed {
        (a / b, a % b)
    } else {
        let mask = if bits == 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let (ua, ub) = (a as u64 & mask, b as u64 & mask);
        ((ua / ub) as i64, (ua % ub) as i64)
    }
}

struct Ty {
    name: &'static str,
    bits: u32,
    signed: bool,
}

const TYPES: [Ty; 8] = [
    Ty {
        name: "char",
        bits: 8,
        signed: true,
    },
    Ty {
        name: "uchar",
        bits: 8,
        signed: false,
    },
    Ty {
        name: "short",
        bits: 16,
        signed: true,
    },
    Ty {
        name: "ushort",
        bits: 16,
        signed: false,
    },
    Ty {
        name: "int",
        bits: 32,
        signed: true,
    },
    Ty {
        name: "uint",
        bits: 32,
        signed: false,
    },
    Ty {
        name: "long",
        bits: 64,
        signed: true,
    },
    Ty {
        name: "ulong",
        bits: 64,
        signed: false,
    },
];

/// Runs `src` (kernel `k(a, b, q, r)` over `long`s) and checks every
/// defined lane against the host.
fn check(e: &Env, src: &str, ty: &Ty, what: &str) {
    let (a, b) = operands(ty.bits, ty.signed);
    let (_p, k) = e.kernel(src, "k");
    let bufs = [
        e.buffer_from(&a),
        e.buffer_from(&b),
        e.buffer(N * 8),
        e.buffer(N * 8),
    ];
    e.run_with(&k, &bufs, &[N / 4], None);
    let q: Vec<i64> = e.read(&bufs[2], 0, N);
    let r: Vec<i64> = e.read(&bufs[3], 0, N);
    let mut undefined = 0;
    for i in 0..N {
        if !defined(a[i], b[i], ty.bits, ty.signed) {
            undefined += 1;
            continue;
        }
        let (eq, er) = reference(a[i], b[i], ty.bits, ty.signed);
        assert_eq!(
            (q[i], r[i]),
            (eq, er),
            "{what} {}: {} / {} at {i}",
            ty.name,
            a[i],
            b[i]
        );
    }
    assert!(undefined > 40, "the operands hold the trapping cases");
}

/// Each work-item divides a `type4` (so scalar and vector code both run).
#[test]
fn division_by_zero_and_overflow_do_not_trap_scalar_or_vector() {
    let e = Env::new();
    for ty in &TYPES {
        let t = ty.name;
        let src = format!(
            r#"
__kernel void k(__global const long *a, __global const long *b,
                __global long *q, __global long *r) {{
    size_t i = get_global_id(0);
    {t} x0 = ({t})a[4 * i];
    {t} y0 = ({t})b[4 * i];
    q[4 * i] = x0 / y0;
    r[4 * i] = x0 % y0;
    {t}3 x = ({t}3)(({t})a[4 * i + 1], ({t})a[4 * i + 2], ({t})a[4 * i + 3]);
    {t}3 y = ({t}3)(({t})b[4 * i + 1], ({t})b[4 * i + 2], ({t})b[4 * i + 3]);
    {t}3 vq = x / y, vr = x % y;
    q[4 * i + 1] = vq.x; q[4 * i + 2] = vq.y; q[4 * i + 3] = vq.z;
    r[4 * i + 1] = vr.x; r[4 * i + 2] = vr.y; r[4 * i + 3] = vr.z;
}}
"#
        );
        check(&e, &src, ty, "scalar and vector");
    }
}

/// A loop over each work-item's four elements of type `t`, each quotient
/// and remainder computed, or only where the divisor is not 0 (`guarded`,
/// as SYCL's remainder kernels have it): the form the whole-kernel
/// vectorizer takes, one work-item per lane.
fn loop_kernel(t: &str, guarded: bool) -> String {
    let guard = if guarded { "if (y != 0)" } else { "" };
    format!(
        r#"
__kernel void k(__global const long *a, __global const long *b,
                __global long *q, __global long *r) {{
    size_t i = get_global_id(0), n = get_global_size(0);
    for (int j = 0; j < 4; ++j) {{
        {t} x = ({t})a[j * n + i], y = ({t})b[j * n + i];
        {guard} {{
            q[j * n + i] = x / y;
            r[j * n + i] = x % y;
        }}
    }}
}}
"#
    )
}

#[test]
fn division_by_zero_and_overflow_do_not_trap_in_vectorized_kernels() {
    let e = Env::new();
    for ty in &TYPES {
        check(&e, &loop_kernel(ty.name, false), ty, "vectorized");
    }
}

/// The vector form runs a guarded division for every lane, those the guard
/// keeps out dividing by 1.
#[test]
fn a_division_guarded_against_zero_does_not_trap_in_vectorized_kernels() {
    let e = Env::new();
    for ty in &TYPES {
        check(&e, &loop_kernel(ty.name, true), ty, "guarded");
    }
}
