//! Work-group collective functions (OpenCL C 3.0 section 6.15.16) and
//! cl_khr_work_group_uniform_arithmetic: every function for every type, over
//! 1-, 2- and 3-D ranges and local sizes of every shape (non-powers of two,
//! one work-item), checked exactly against a host reference that combines
//! each group's values in linear local-id order (a float sum or product in
//! eight partial results combined pairwise, bit for bit);
//! collectives in loops, beside the kernel's own local memory, and the
//! device's query and feature.

use ferrocl_tests::*;
use std::ffi::CString;
use std::ptr::{null, null_mut};

const CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT: cl_device_info = 0x1068;

/// (global size, local size) of each range the functions run over.
const RANGES: &[(&[usize], &[usize])] = &[
    (&[64], &[16]),
    (&[21], &[7]),
    (&[5], &[1]),
    (&[512], &[256]),
    (&[14, 6], &[7, 3]),
    (&[6, 4], &[1, 1]),
    (&[8, 6, 4], &[4, 3, 2]),
    (&[10, 4, 3], &[5, 1, 3]),
];

/// The work-items of a range by group: each group's global linear ids, in
/// linear local-id order (x fastest), and the group's id in each dimension.
struct Groups {
    n: usize,
    local: [usize; 3],
    groups: Vec<([usize; 3], Vec<usize>)>,
}

fn groups(global: &[usize], local: &[usize]) -> Groups {
    let g = |d: usize| global.get(d).copied().unwrap_or(1);
    let l = |d: usize| local.get(d).copied().unwrap_or(1);
    let (gs, ls) = ([g(0), g(1), g(2)], [l(0), l(1), l(2)]);
    let mut groups = Vec::new();
    for gz in 0..gs[2] / ls[2] {
        for gy in 0..gs[1] / ls[1] {
            for gx in 0..gs[0] / ls[0] {
                let mut items = Vec::new();
                for lz in 0..ls[2] {
                    for ly in 0..ls[1] {
                        for lx in 0..ls[0] {
                            let (x, y, z) = (gx * ls[0] + lx, gy * ls[1] + ly, gz * ls[2] + lz);
                            items.push((z * gs[1] + y) * gs[0] + x);
                        }
                    }
                }
                groups.push(([gx, gy, gz], items));
            }
        }
    }
    Groups {
        n: gs.iter().product(),
        local: ls,
        groups,
    }
}

/// A deterministic stream of 64-bit values.
fn hash(i: u64) -> u64 {
    let mut x = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A type the collectives take, with the host's version of each operation.
trait Elem: Copy + Default + std::fmt::Debug {
    const NAME: &'static str;
    const INTEGER: bool;
    fn make(h: u64) -> Self;
    fn from_i64(v: i64) -> Self;
    fn add(a: Self, b: Self) -> Self;
    fn mul(a: Self, b: Self) -> Self;
    fn min(a: Self, b: Self) -> Self;
    fn max(a: Self, b: Self) -> Self;
    fn and(a: Self, b: Self) -> Self;
    fn or(a: Self, b: Self) -> Self;
    fn xor(a: Self, b: Self) -> Self;
    fn largest() -> Self;
    fn smallest() -> Self;
    /// Equal bit for bit.
    fn same(a: Self, b: Self) -> bool;
}

macro_rules! integer {
    ($t:ty, $name:literal) => {
        impl Elem for $t {
            const NAME: &'static str = $name;
            const INTEGER: bool = true;
            // Any value: sums and products wrap.
            fn make(h: u64) -> Self {
                h as $t
            }
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            fn add(a: Self, b: Self) -> Self {
                a.wrapping_add(b)
            }
            fn mul(a: Self, b: Self) -> Self {
                a.wrapping_mul(b)
            }
            fn min(a: Self, b: Self) -> Self {
                Ord::min(a, b)
            }
            fn max(a: Self, b: Self) -> Self {
                Ord::max(a, b)
            }
            fn and(a: Self, b: Self) -> Self {
                a & b
            }
            fn or(a: Self, b: Self) -> Self {
                a | b
            }
            fn xor(a: Self, b: Self) -> Self {
                a ^ b
            }
            fn largest() -> Self {
                <$t>::MAX
            }
            fn smallest() -> Self {
                <$t>::MIN
            }
            fn same(a: Self, b: Self) -> bool {
                a == b
            }
        }
    };
}
integer!(i32, "int");
integer!(u32, "uint");
integer!(i64, "long");
integer!(u64, "ulong");

macro_rules! float {
    ($t:ty, $name:literal) => {
        impl Elem for $t {
            const NAME: &'static str = $name;
            const INTEGER: bool = false;
            // Between 0.9 and 1.1 with a full mantissa: sums depend on
            // their order, and products of a few hundred stay finite.
            fn make(h: u64) -> Self {
                (0.9 + (h % 200_001) as f64 / 1e6) as $t
            }
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            fn add(a: Self, b: Self) -> Self {
                a + b
            }
            fn mul(a: Self, b: Self) -> Self {
                a * b
            }
            // OpenCL C's: min(x, y) is y if y < x, max(x, y) is y if x < y.
            fn min(a: Self, b: Self) -> Self {
                if b < a {
                    b
                } else {
                    a
                }
            }
            fn max(a: Self, b: Self) -> Self {
                if a < b {
                    b
                } else {
                    a
                }
            }
            fn and(_: Self, _: Self) -> Self {
                unreachable!()
            }
            fn or(_: Self, _: Self) -> Self {
                unreachable!()
            }
            fn xor(_: Self, _: Self) -> Self {
                unreachable!()
            }
            fn largest() -> Self {
                <$t>::INFINITY
            }
            fn smallest() -> Self {
                <$t>::NEG_INFINITY
            }
            fn same(a: Self, b: Self) -> bool {
                a.to_bits() == b.to_bits()
            }
        }
    };
}
float!(f32, "float");
float!(f64, "double");

#[derive(Clone, Copy, Debug)]
enum Op {
    Add,
    Mul,
    Min,
    Max,
    And,
    Or,
    Xor,
}

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Add => "add",
            Op::Mul => "mul",
            Op::Min => "min",
            Op::Max => "max",
            Op::And => "and",
            Op::Or => "or",
            Op::Xor => "xor",
        }
    }

    fn apply<T: Elem>(self, a: T, b: T) -> T {
        match self {
            Op::Add => T::add(a, b),
            Op::Mul => T::mul(a, b),
            Op::Min => T::min(a, b),
            Op::Max => T::max(a, b),
            Op::And => T::and(a, b),
            Op::Or => T::or(a, b),
            Op::Xor => T::xor(a, b),
        }
    }

    /// The spec's identity: what an exclusive scan gives linear id 0.
    fn identity<T: Elem>(self) -> T {
        match self {
            Op::Add | Op::Or | Op::Xor => T::from_i64(0),
            Op::Mul => T::from_i64(1),
            Op::Min => T::largest(),
            Op::Max => T::smallest(),
            Op::And => T::from_i64(-1),
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Reduce,
    Inclusive,
    Exclusive,
}

impl Kind {
    fn prefix(self) -> &'static str {
        match self {
            Kind::Reduce => "work_group_reduce_",
            Kind::Inclusive => "work_group_scan_inclusive_",
            Kind::Exclusive => "work_group_scan_exclusive_",
        }
    }

    /// Each work-item's result, for a group's values in linear order,
    /// combined one after the other from the first; a float sum or product
    /// (`lanes`) reduced as [`lanes_reduce`] does.
    fn reference<T: Elem>(
        self,
        values: &[T],
        combine: impl Fn(T, T) -> T,
        identity: T,
        lanes: bool,
    ) -> Vec<T> {
        if lanes && matches!(self, Kind::Reduce) {
            return vec![lanes_reduce(values, combine); values.len()];
        }
        let mut running = Vec::with_capacity(values.len());
        let mut acc = identity;
        for (i, &v) in values.iter().enumerate() {
            let before = acc;
            acc = if i == 0 { v } else { combine(acc, v) };
            running.push(match self {
                Kind::Exclusive => before,
                _ => acc,
            });
        }
        match self {
            Kind::Reduce => vec![acc; values.len()],
            _ => running,
        }
    }
}

const KINDS: [Kind; 3] = [Kind::Reduce, Kind::Inclusive, Kind::Exclusive];

/// How a float sum or product of a group reduces: work-item `i` into
/// partial result `i % 8`, in linear order within each, then the partial
/// results pairwise (4 apart, 2, 1), as a vector's lanes would be.
fn lanes_reduce<T: Copy>(values: &[T], combine: impl Fn(T, T) -> T) -> T {
    let mut lanes: Vec<T> = values.iter().take(8).copied().collect();
    for (i, &v) in values.iter().enumerate().skip(8) {
        lanes[i % 8] = combine(lanes[i % 8], v);
    }
    for apart in [4, 2, 1] {
        for j in 0..apart {
            if j + apart < lanes.len() {
                lanes[j] = combine(lanes[j], lanes[j + apart]);
            }
        }
    }
    lanes[0]
}

/// The arithmetic functions of `T`: (reduce or scan, operation).
fn arithmetic<T: Elem>() -> Vec<(Kind, Op)> {
    let mut ops = vec![Op::Add, Op::Min, Op::Max, Op::Mul];
    if T::INTEGER {
        ops.extend([Op::And, Op::Or, Op::Xor]);
    }
    KINDS
        .iter()
        .flat_map(|&k| ops.iter().map(move |&o| (k, o)))
        .collect()
}

/// A kernel that writes every arithmetic function of `T` and broadcast,
/// one after the other, function `j` to `out[j * n + global linear id]`.
fn arithmetic_source<T: Elem>() -> String {
    let t = T::NAME;
    let mut body = String::new();
    for (j, (kind, op)) in arithmetic::<T>().into_iter().enumerate() {
        body += &format!(
            "    out[{j} * n + i] = {}{}(v);\n",
            kind.prefix(),
            op.name()
        );
    }
    let j = arithmetic::<T>().len();
    format!(
        r#"
__kernel void k(__global const {t} *in, __global {t} *out, uint n) {{
    size_t i = get_global_linear_id();
    {t} v = in[i];
{body}
    // From a work-item that moves with the group, in as many dimensions
    // as the range has.
    size_t x = get_group_id(0) % get_local_size(0);
    size_t y = get_group_id(1) % get_local_size(1);
    size_t z = get_group_id(2) % get_local_size(2);
    {t} b;
    if (get_work_dim() == 1)
        b = work_group_broadcast(v, x);
    else if (get_work_dim() == 2)
        b = work_group_broadcast(v, x, y);
    else
        b = work_group_broadcast(v, x, y, z);
    out[{j} * n + i] = b;
}}
"#
    )
}

fn check_arithmetic<T: Elem>(e: &Env) {
    let (_p, k) = e.kernel_opts(&arithmetic_source::<T>(), "k", "-cl-std=CL3.0");
    let functions = arithmetic::<T>();
    for &(global, local) in RANGES {
        let r = groups(global, local);
        let input: Vec<T> = (0..r.n as u64).map(|i| T::make(hash(i))).collect();
        let inb = e.buffer_from(&input);
        let out = e.buffer((functions.len() + 1) * r.n * std::mem::size_of::<T>());
        ok(set_mem(k.get(), 0, &inb), "arg in");
        ok(set_mem(k.get(), 1, &out), "arg out");
        ok(set_arg(k.get(), 2, &(r.n as u32)), "arg n");
        e.run(&k, global, Some(local));
        let got = e.read::<T>(&out, 0, (functions.len() + 1) * r.n);
        for (group, items) in &r.groups {
            let values: Vec<T> = items.iter().map(|&i| input[i]).collect();
            for (j, &(kind, op)) in functions.iter().enumerate() {
                let lanes = !T::INTEGER && matches!(op, Op::Add | Op::Mul);
                let want = kind.reference(&values, |a, b| op.apply(a, b), op.identity(), lanes);
                for (&i, &w) in items.iter().zip(&want) {
                    let g = got[j * r.n + i];
                    assert!(
                        T::same(g, w),
                        "{}{}({}) over {global:?}/{local:?}, group {group:?}, item {i}: \
                         {g:?}, not {w:?}",
                        kind.prefix(),
                        op.name(),
                        T::NAME
                    );
                }
            }
            let from = (0..3).map(|d| group[d] % r.local[d]).collect::<Vec<_>>();
            let want = values[(from[2] * r.local[1] + from[1]) * r.local[0] + from[0]];
            for &i in items {
                let g = got[functions.len() * r.n + i];
                assert!(
                    T::same(g, want),
                    "work_group_broadcast({}) over {global:?}/{local:?}, group {group:?}, \
                     item {i}: {g:?}, not {want:?}",
                    T::NAME
                );
            }
        }
    }
}

#[test]
fn int_functions_match_the_reference() {
    check_arithmetic::<i32>(&Env::new());
}

#[test]
fn uint_functions_match_the_reference() {
    check_arithmetic::<u32>(&Env::new());
}

#[test]
fn long_functions_match_the_reference() {
    check_arithmetic::<i64>(&Env::new());
}

#[test]
fn ulong_functions_match_the_reference() {
    check_arithmetic::<u64>(&Env::new());
}

#[test]
fn float_functions_match_the_reference_bit_for_bit() {
    check_arithmetic::<f32>(&Env::new());
}

#[test]
fn double_functions_match_the_reference_bit_for_bit() {
    check_arithmetic::<f64>(&Env::new());
}

/// How a predicate function combines two truth values.
type Logic = fn(bool, bool) -> bool;

/// The predicate functions: name, reduce or scan, combination, identity;
/// `all` and `any` are reductions.
const LOGICAL: &[(&str, Kind, Logic, bool)] = &[
    ("work_group_all", Kind::Reduce, |a, b| a && b, true),
    ("work_group_any", Kind::Reduce, |a, b| a || b, false),
    (
        "work_group_reduce_logical_and",
        Kind::Reduce,
        |a, b| a && b,
        true,
    ),
    (
        "work_group_reduce_logical_or",
        Kind::Reduce,
        |a, b| a || b,
        false,
    ),
    (
        "work_group_reduce_logical_xor",
        Kind::Reduce,
        |a, b| a != b,
        false,
    ),
    (
        "work_group_scan_inclusive_logical_and",
        Kind::Inclusive,
        |a, b| a && b,
        true,
    ),
    (
        "work_group_scan_inclusive_logical_or",
        Kind::Inclusive,
        |a, b| a || b,
        false,
    ),
    (
        "work_group_scan_inclusive_logical_xor",
        Kind::Inclusive,
        |a, b| a != b,
        false,
    ),
    (
        "work_group_scan_exclusive_logical_and",
        Kind::Exclusive,
        |a, b| a && b,
        true,
    ),
    (
        "work_group_scan_exclusive_logical_or",
        Kind::Exclusive,
        |a, b| a || b,
        false,
    ),
    (
        "work_group_scan_exclusive_logical_xor",
        Kind::Exclusive,
        |a, b| a != b,
        false,
    ),
];

#[test]
fn predicate_functions_match_the_reference() {
    let e = Env::new();
    let mut body = String::new();
    for (j, (name, ..)) in LOGICAL.iter().enumerate() {
        body += &format!("    out[{j} * n + i] = {name}(p);\n");
    }
    let src = format!(
        "__kernel void k(__global const int *pred, __global int *out, uint n) {{\n\
         size_t i = get_global_linear_id();\n int p = pred[i];\n{body}}}\n"
    );
    let (_p, k) = e.kernel_opts(&src, "k", "-cl-std=CL3.0");
    for &(global, local) in RANGES {
        let r = groups(global, local);
        // By group: all true, all false, only the last true, or mixed; true
        // is any non-zero value.
        let mut pred = vec![0i32; r.n];
        for (g, (_, items)) in r.groups.iter().enumerate() {
            for (at, &i) in items.iter().enumerate() {
                let h = hash(i as u64 + 7);
                let nonzero = (h as i32 >> 1) | 1;
                pred[i] = match g % 4 {
                    0 => nonzero,
                    1 => 0,
                    2 if at + 1 == items.len() => nonzero,
                    2 => 0,
                    _ if h.is_multiple_of(3) => 0,
                    _ => nonzero,
                };
            }
        }
        let predb = e.buffer_from(&pred);
        let out = e.buffer(LOGICAL.len() * r.n * 4);
        ok(set_mem(k.get(), 0, &predb), "arg pred");
        ok(set_mem(k.get(), 1, &out), "arg out");
        ok(set_arg(k.get(), 2, &(r.n as u32)), "arg n");
        e.run(&k, global, Some(local));
        let got = e.read::<i32>(&out, 0, LOGICAL.len() * r.n);
        for (group, items) in &r.groups {
            let values: Vec<bool> = items.iter().map(|&i| pred[i] != 0).collect();
            for (j, &(name, kind, combine, identity)) in LOGICAL.iter().enumerate() {
                let want = reference_bool(kind, &values, combine, identity);
                for (&i, &w) in items.iter().zip(&want) {
                    // A non-zero result is true.
                    let g = got[j * r.n + i];
                    assert_eq!(
                        g != 0,
                        w,
                        "{name} over {global:?}/{local:?}, group {group:?}, item {i}: {g}"
                    );
                }
            }
        }
    }
}

fn reference_bool(kind: Kind, values: &[bool], combine: Logic, identity: bool) -> Vec<bool> {
    let mut acc = identity;
    let mut running = Vec::new();
    for &v in values {
        let before = acc;
        acc = combine(acc, v);
        running.push(match kind {
            Kind::Exclusive => before,
            _ => acc,
        });
    }
    match kind {
        Kind::Reduce => vec![acc; values.len()],
        _ => running,
    }
}

/// Collectives one after the other in a loop of a run-time count, one in a
/// loop's condition, and a per-item loop before them (which the compiler
/// may run across work-items at once).
const LOOPS: &str = r#"
__kernel void k(__global const int *in, __global uint *acc_out,
                __global int *steps_out, __global float *sum_out, int rounds) {
    size_t i = get_global_linear_id();
    int v = in[i];
    uint acc = 0;
    for (int r = 0; r < rounds; r++) {
        int s = work_group_reduce_add(v + r);
        int e = work_group_scan_exclusive_add(v * r);
        int m = work_group_scan_inclusive_max(e);
        v = v + (s & 7) + (e & 3);
        acc = acc * 31u + (uint)(s ^ e ^ m);
    }
    acc_out[i] = acc;

    int x = in[i] & 15;
    int steps = 0;
    while (work_group_any(x > 0)) {
        x--;
        steps++;
    }
    steps_out[i] = steps;

    int f = 0;
    for (int j = 0; j < 16; j++)
        f += (in[i] & 255) * j;
    sum_out[i] = work_group_reduce_add((float)f * 0.37f);
}
"#;

#[test]
fn collectives_in_loops_see_each_iteration_s_values() {
    let e = Env::new();
    let (_p, k) = e.kernel_opts(LOOPS, "k", "-cl-std=CL3.0");
    let rounds: i32 = 5;
    for &(global, local) in RANGES {
        let r = groups(global, local);
        let input: Vec<i32> = (0..r.n as u64).map(|i| (hash(i) % 1000) as i32).collect();
        let inb = e.buffer_from(&input);
        let (acc, steps, sum) = (e.buffer(r.n * 4), e.buffer(r.n * 4), e.buffer(r.n * 4));
        for (j, m) in [&inb, &acc, &steps, &sum].into_iter().enumerate() {
            ok(set_mem(k.get(), j as cl_uint, m), "arg");
        }
        ok(set_arg(k.get(), 4, &rounds), "arg rounds");
        e.run(&k, global, Some(local));
        let (acc, steps, sum) = (
            e.read::<u32>(&acc, 0, r.n),
            e.read::<i32>(&steps, 0, r.n),
            e.read::<f32>(&sum, 0, r.n),
        );
        for (group, items) in &r.groups {
            let mut v: Vec<i32> = items.iter().map(|&i| input[i]).collect();
            let mut accs = vec![0u32; v.len()];
            for round in 0..rounds {
                let s = v.iter().fold(0i32, |a, &x| a.wrapping_add(x + round));
                let mut ex = Vec::new();
                let mut running = 0i32;
                for &x in &v {
                    ex.push(running);
                    running = running.wrapping_add(x * round);
                }
                let mut m = i32::MIN;
                for (at, x) in v.iter_mut().enumerate() {
                    m = m.max(ex[at]);
                    *x += (s & 7) + (ex[at] & 3);
                    accs[at] = accs[at]
                        .wrapping_mul(31)
                        .wrapping_add((s ^ ex[at] ^ m) as u32);
                }
            }
            let most = items.iter().map(|&i| input[i] & 15).max().unwrap();
            let partial =
                |i: usize| (0..16).map(|j| (input[i] & 255) * j).sum::<i32>() as f32 * 0.37;
            let partials: Vec<f32> = items.iter().map(|&i| partial(i)).collect();
            let total = lanes_reduce(&partials, |a, b| a + b);
            for (at, &i) in items.iter().enumerate() {
                let place = format!("{global:?}/{local:?}, group {group:?}, item {i}");
                assert_eq!(acc[i], accs[at], "loop of collectives, {place}");
                assert_eq!(steps[i], most, "work_group_any loop, {place}");
                assert_eq!(
                    sum[i].to_bits(),
                    total.to_bits(),
                    "reduce after a loop, {place}"
                );
            }
        }
    }
}

/// The reduction DPC++ makes of `sum` (dpnp's `reduction_over_group_temps`):
/// each work-item adds the elements a grid of its group's size gives it,
/// under a guard for the end of the array, then the group reduces the
/// partial sums and its first work-item writes the group's. The loop's
/// region is vectorized and the collective's runs work-item by work-item:
/// still in the collective's order, bit for bit.
const GROUP_SUMS: &str = r#"
__kernel void k(__global const float *in, __global float *out, ulong n, int per) {
    size_t g = get_group_id(0), l = get_local_id(0), size = get_local_size(0);
    float acc = 0.0f;
    for (int i = 0; i < per; i++) {
        size_t at = (g * per + i) * size + l;
        if (at < n)
            acc += in[at];
    }
    float sum = work_group_reduce_add(acc);
    if (l == 0)
        out[g] = sum;
}
"#;

#[test]
fn a_reduction_after_a_guarded_loop_sums_each_group_in_linear_order() {
    let e = Env::new();
    let (_p, k) = e.kernel_opts(GROUP_SUMS, "k", "-cl-std=CL3.0");
    let per: i32 = 6;
    // Whole groups, a last group the guard leaves partly out, and one
    // whose every work-item it leaves out in some iterations.
    for &(n, local) in &[(256 * 6 * 3, 256usize), (5000, 128), (1000, 64), (70, 32)] {
        let groups = (n as usize).div_ceil(local * per as usize);
        let input: Vec<f32> = (0..n).map(|i| (hash(i) % 10_000) as f32 * 1.0e-3).collect();
        let inb = e.buffer_from(&input);
        let out = e.buffer(groups * 4);
        ok(set_mem(k.get(), 0, &inb), "arg in");
        ok(set_mem(k.get(), 1, &out), "arg out");
        ok(set_arg(k.get(), 2, &n), "arg n");
        ok(set_arg(k.get(), 3, &per), "arg per");
        e.run(&k, &[groups * local], Some(&[local]));
        let got = e.read::<f32>(&out, 0, groups);
        for (g, &sum) in got.iter().enumerate() {
            let partial = |l: usize| {
                (0..per as usize)
                    .map(|i| (g * per as usize + i) * local + l)
                    .filter(|&at| at < n as usize)
                    .fold(0.0f32, |a, at| a + input[at])
            };
            let partials: Vec<f32> = (0..local).map(partial).collect();
            let want = lanes_reduce(&partials, |a, b| a + b);
            assert_eq!(
                sum.to_bits(),
                want.to_bits(),
                "n {n}, local {local}, group {g}: {sum} {want}"
            );
        }
    }
}

/// The kernel's own `__local` variable and a `__local` argument keep their
/// contents across collectives: the collectives' memory is apart from them.
const BESIDE_LOCAL: &str = r#"
__kernel void k(__global int *out, __local int *arg) {
    __local int tile[64];
    size_t l = get_local_linear_id();
    size_t n = get_local_size(0) * get_local_size(1) * get_local_size(2);
    for (size_t j = l; j < 64; j += n)
        tile[j] = (int)j * 3 + 1;
    arg[l] = (int)l * 5 + 2;
    barrier(CLK_LOCAL_MEM_FENCE);
    long s = work_group_reduce_add((long)l);
    double m = work_group_reduce_max((double)l);
    int b = work_group_broadcast((int)l, n - 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    int ok = s == (long)(n * (n - 1) / 2) && m == (double)(n - 1) && b == (int)(n - 1);
    for (size_t j = 0; j < 64; j++)
        ok = ok && tile[j] == (int)j * 3 + 1;
    for (size_t j = 0; j < n; j++)
        ok = ok && arg[j] == (int)j * 5 + 2;
    out[get_global_linear_id()] = ok;
}
"#;

#[test]
fn collectives_leave_the_kernel_s_local_memory_alone() {
    let e = Env::new();
    let (_p, k) = e.kernel_opts(BESIDE_LOCAL, "k", "-cl-std=CL3.0");
    let (global, local) = (64, 32);
    let out = e.buffer(global * 4);
    ok(set_mem(k.get(), 0, &out), "arg out");
    ok(set_local(k.get(), 1, local * 4), "arg local");
    e.run(&k, &[global], Some(&[local]));
    assert_eq!(e.read::<i32>(&out, 0, global), vec![1; global]);
    // The collectives' memory is the kernel's too.
    let size = kernel_wg_info(k.get(), e.device, CL_KERNEL_LOCAL_MEM_SIZE)
        .unwrap()
        .u64();
    assert!(size > 64 * 4 + local as u64 * 4, "{size}");
}

#[test]
fn the_device_reports_the_feature() {
    let e = Env::new();
    let d = e.device;
    assert!(
        device_info(d, CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT)
            .unwrap()
            .bool()
    );
    let features = device_info(d, CL_DEVICE_OPENCL_C_FEATURES)
        .unwrap()
        .name_versions();
    let feature = features
        .iter()
        .find(|(n, _)| n == "__opencl_c_work_group_collective_functions")
        .map(|(_, v)| version_parts(*v));
    assert_eq!(feature, Some((3, 0, 0)));
    // The uniform arithmetic functions are offered, the extension is not
    // reported: the Khronos CTS does not approve it (compiler_defines_for_extensions).
    let names = ext_names(&device_info(d, CL_DEVICE_EXTENSIONS).unwrap().string());
    assert!(!names
        .iter()
        .any(|n| n == "cl_khr_work_group_uniform_arithmetic"));

    let src = "__kernel void k(__global int* out) {\n\
               out[0] = 0;\n\
               #ifdef __opencl_c_work_group_collective_functions\n out[0] |= 1;\n#endif\n\
               #ifdef cl_khr_work_group_uniform_arithmetic\n out[0] |= 2;\n#endif\n}\n";
    let (_p, k) = e.kernel_opts(src, "k", "-cl-std=CL3.0");
    let out = e.buffer_from(&[0i32]);
    e.run_with(&k, &[&out], &[1], None);
    assert_eq!(e.read::<i32>(&out, 0, 1), vec![1]);
}

/// A program's own header beside the declarations the compiler adds, built
/// in two steps (`clCompileProgram`, `clLinkProgram`).
#[test]
fn uniform_arithmetic_is_declared_for_separately_compiled_programs() {
    let e = Env::new();
    let header = create_program(e.c(), "#define FACTOR 3\n");
    let main = create_program(
        e.c(),
        "#include \"factor.h\"\n\
         __kernel void k(__global ulong *out) {\n\
         out[get_global_id(0)] = work_group_reduce_mul((ulong)FACTOR) + \
         work_group_scan_exclusive_xor((ulong)get_local_id(0));\n}\n",
    );
    let d = e.device;
    let options = CString::new("-cl-std=CL3.0").unwrap();
    let name = CString::new("factor.h").unwrap();
    let (headers, names) = ([header.get()], [name.as_ptr()]);
    let code = cl!(clCompileProgram(
        main.get(),
        1,
        &d,
        options.as_ptr(),
        1,
        headers.as_ptr(),
        names.as_ptr(),
        None,
        null_mut()
    ));
    assert_code(code, CL_SUCCESS, &build_log(main.get()));
    let mut rc = 0;
    let programs = [main.get()];
    let exe = cl!(clLinkProgram(
        e.c(),
        1,
        &d,
        null(),
        1,
        programs.as_ptr(),
        None,
        null_mut(),
        &mut rc
    ));
    check(rc, "clLinkProgram");
    let exe = Prog(exe);
    let k = ok(create_kernel(exe.get(), "k"), "clCreateKernel");
    let out = e.buffer(4 * 8);
    e.run_with(&k, &[&out], &[4], Some(&[4]));
    assert_eq!(e.read::<u64>(&out, 0, 4), vec![81, 81, 82, 84]);
}
