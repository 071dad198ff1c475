//! The OpenCL C 3.0 atomics (atomic types, atomic_init, load, store,
//! exchange, compare-exchange, fetch-and-modify, atomic_flag and
//! atomic_work_item_fence): every form with every memory order and scope
//! on __global and __local memory, 32- and 64-bit, the LLVM orderings they
//! become, and their results under contention, many work-groups on every
//! core updating the same words.

use ferrocl_tests::*;
use std::fmt::Write;

const CL3: &str = "-cl-std=CL3.0";

/// Enough work-items that every pool thread takes many work-groups.
const N: usize = 1 << 18;

const ORDERS: [&str; 5] = [
    "memory_order_relaxed",
    "memory_order_acquire",
    "memory_order_release",
    "memory_order_acq_rel",
    "memory_order_seq_cst",
];
const LOAD_ORDERS: [&str; 3] = [
    "memory_order_relaxed",
    "memory_order_acquire",
    "memory_order_seq_cst",
];
const STORE_ORDERS: [&str; 3] = [
    "memory_order_relaxed",
    "memory_order_release",
    "memory_order_seq_cst",
];
/// The scopes an atomic operation takes (work-item scope is for fences).
const SCOPES: [&str; 4] = [
    "memory_scope_work_group",
    "memory_scope_device",
    "memory_scope_all_svm_devices",
    "memory_scope_all_devices",
];

// Every test compiles with the IR dump on.
before_main!({ dump_ir() });

fn env() -> Env {
    Env::new()
}

/// The forms of a call: `name(args)`, `name_explicit(args, order)` for each
/// order, `name_explicit(args, order, scope)` for each order (with the
/// scopes in turn) and for each scope (with the strongest order).
fn forms(name: &str, args: &str, orders: &[&str]) -> Vec<String> {
    let mut v = vec![format!("{name}({args})")];
    for (k, o) in orders.iter().enumerate() {
        v.push(format!("{name}_explicit({args}, {o})"));
        v.push(format!(
            "{name}_explicit({args}, {o}, {})",
            SCOPES[k % SCOPES.len()]
        ));
    }
    let strongest = orders.last().unwrap();
    for s in SCOPES {
        v.push(format!("{name}_explicit({args}, {strongest}, {s})"));
    }
    v
}

/// Collects checks, each a block that sets `pass` to whether it held, into
/// kernels of one work-item, a few dozen checks each (one huge function
/// would take the optimizer far longer than several small ones).
#[derive(Default)]
struct Checks {
    blocks: Vec<String>,
    names: Vec<String>,
}

const CHECKS_PER_KERNEL: usize = 48;

impl Checks {
    fn add(&mut self, name: String, block: &str) {
        self.blocks.push(block.to_string());
        self.names.push(name);
    }

    fn run(&self, e: &Env) {
        let mut src = String::new();
        for (k, chunk) in self.blocks.chunks(CHECKS_PER_KERNEL).enumerate() {
            writeln!(
                src,
                "__kernel void checks{k}(__global ulong *g, __global uint *ok) {{\n\
                 __local ulong l[4];\n\
                 ulong priv[1];"
            )
            .unwrap();
            for (i, block) in chunk.iter().enumerate() {
                writeln!(src, "  {{ {block} ok[{i}] = pass; }}").unwrap();
            }
            writeln!(src, "}}").unwrap();
        }
        let p = e.program(&src, CL3);
        let g = e.buffer_from(&[0u64; 4]);
        let mut failed = Vec::new();
        for (k, names) in self.names.chunks(CHECKS_PER_KERNEL).enumerate() {
            let kernel = ok(
                create_kernel(p.get(), &format!("checks{k}")),
                "clCreateKernel",
            );
            let ok_buf = e.buffer_from(&vec![7u32; names.len()]);
            e.run_with(&kernel, &[&g, &ok_buf], &[1], Some(&[1]));
            let got = e.read::<u32>(&ok_buf, 0, names.len());
            failed.extend(
                names
                    .iter()
                    .zip(&got)
                    .filter(|(_, &v)| v != 1)
                    .map(|(n, _)| n),
            );
        }
        assert!(
            failed.is_empty(),
            "{} of {} checks failed, e.g. {:?}",
            failed.len(),
            self.names.len(),
            &failed[..failed.len().min(10)]
        );
    }
}

/// The word under test in each address space, and where a compare-exchange
/// keeps its expected value.
const SPACES: [(&str, &str); 2] = [("__global", "g"), ("__local", "l")];
const EXPECTED_IN: [(&str, &str); 3] = [
    ("__global", "(__global {T} *)(g + 2)"),
    ("__local", "(__local {T} *)(l + 2)"),
    ("__private", "(__private {T} *)priv"),
];

/// Integer types with a starting value and an operand that tell the
/// operations (and signed from unsigned min and max) apart.
const INTEGERS: [(&str, &str, &str, &str); 4] = [
    ("int", "atomic_int", "-5", "3"),
    ("uint", "atomic_uint", "0xfffffff0u", "3u"),
    ("long", "atomic_long", "-0x123456789L", "0x70000000L"),
    ("ulong", "atomic_ulong", "0xffffffff00000001UL", "0x2UL"),
];

#[test]
fn fetch_operations_in_every_form_order_and_scope_return_the_old_value_and_store_the_new() {
    let e = env();
    let mut c = Checks::default();
    for (space, word) in SPACES {
        for (t, a, start, operand) in INTEGERS {
            let p = format!("(volatile {space} {a} *){word}");
            for (op, expect) in [
                ("add", "s + v"),
                ("sub", "s - v"),
                ("or", "s | v"),
                ("xor", "s ^ v"),
                ("and", "s & v"),
                ("min", "min(s, v)"),
                ("max", "max(s, v)"),
            ] {
                for call in forms(&format!("atomic_fetch_{op}"), "p, v", &ORDERS) {
                    c.add(
                        format!("{space} {t}: {call}"),
                        &format!(
                            "volatile {space} {a} *p = {p}; {t} s = {start}, v = {operand}; \
                             atomic_init(p, s); {t} old = {call}; \
                             bool pass = old == s && atomic_load(p) == ({t})({expect});"
                        ),
                    );
                }
            }
        }
        // The pointer-sized types and the mixes of signedness the spec lists.
        let p = |a: &str| format!("(volatile {space} {a} *){word}");
        for (a, t, m, op, start, v, want) in [
            (
                "atomic_uintptr_t",
                "uintptr_t",
                "ptrdiff_t",
                "add",
                "100",
                "-3",
                "97",
            ),
            (
                "atomic_uintptr_t",
                "uintptr_t",
                "ptrdiff_t",
                "sub",
                "100",
                "-3",
                "103",
            ),
            (
                "atomic_uintptr_t",
                "uintptr_t",
                "intptr_t",
                "min",
                "100",
                "-3",
                "100",
            ),
            (
                "atomic_uintptr_t",
                "uintptr_t",
                "intptr_t",
                "max",
                "100",
                "-3",
                "(uintptr_t)-3",
            ),
            (
                "atomic_uintptr_t",
                "uintptr_t",
                "intptr_t",
                "or",
                "0x10",
                "-1",
                "(uintptr_t)-1",
            ),
            (
                "atomic_intptr_t",
                "intptr_t",
                "uintptr_t",
                "min",
                "-7",
                "5",
                "-7",
            ),
            (
                "atomic_intptr_t",
                "intptr_t",
                "uintptr_t",
                "and",
                "-7",
                "0xff",
                "0xf9",
            ),
            (
                "atomic_intptr_t",
                "intptr_t",
                "uintptr_t",
                "xor",
                "-1",
                "1",
                "-2",
            ),
            ("atomic_size_t", "size_t", "size_t", "add", "1", "2", "3"),
            (
                "atomic_ptrdiff_t",
                "ptrdiff_t",
                "ptrdiff_t",
                "max",
                "-1",
                "-9",
                "-1",
            ),
        ] {
            for call in forms(&format!("atomic_fetch_{op}"), "p, v", &ORDERS[4..]) {
                c.add(
                    format!("{space} {a} with {m}: {call}"),
                    &format!(
                        "volatile {space} {a} *p = {}; atomic_init(p, ({t}){start}); {m} v = ({m}){v}; \
                         {t} old = {call}; bool pass = old == ({t}){start} && atomic_load(p) == ({t}){want};",
                        p(a)
                    ),
                );
            }
        }
    }
    c.run(&e);
}

/// Every atomic type with two distinct values.
fn all_types() -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    let mut v = INTEGERS.to_vec();
    v.push(("float", "atomic_float", "1.5f", "-2.25f"));
    v.push(("double", "atomic_double", "1e300", "-0.5"));
    v
}

#[test]
fn init_load_store_and_exchange_in_every_form_order_and_scope() {
    let e = env();
    let mut c = Checks::default();
    for (space, word) in SPACES {
        for (t, a, x, y) in all_types() {
            let decl = format!(
                "volatile {space} {a} *p = (volatile {space} {a} *){word}; {t} x = {x}, y = {y};"
            );
            c.add(
                format!("{space} {t}: atomic_init"),
                &format!("{decl} atomic_init(p, x); bool pass = atomic_load(p) == x;"),
            );
            for store in forms("atomic_store", "p, y", &STORE_ORDERS) {
                c.add(
                    format!("{space} {t}: {store}"),
                    &format!("{decl} atomic_init(p, x); {store}; bool pass = atomic_load(p) == y;"),
                );
            }
            for load in forms("atomic_load", "p", &LOAD_ORDERS) {
                c.add(
                    format!("{space} {t}: {load}"),
                    &format!("{decl} atomic_init(p, y); bool pass = {load} == y;"),
                );
            }
            for xchg in forms("atomic_exchange", "p, y", &ORDERS) {
                c.add(
                    format!("{space} {t}: {xchg}"),
                    &format!(
                        "{decl} atomic_init(p, x); {t} old = {xchg}; \
                         bool pass = old == x && atomic_load(p) == y;"
                    ),
                );
            }
        }
    }
    c.run(&e);
}

/// The (success, failure) orders a compare-exchange may take: failure is
/// neither release nor stronger than success.
const CAS_ORDERS: [(&str, &str); 8] = [
    ("memory_order_relaxed", "memory_order_relaxed"),
    ("memory_order_acquire", "memory_order_relaxed"),
    ("memory_order_acquire", "memory_order_acquire"),
    ("memory_order_release", "memory_order_relaxed"),
    ("memory_order_acq_rel", "memory_order_acquire"),
    ("memory_order_seq_cst", "memory_order_relaxed"),
    ("memory_order_seq_cst", "memory_order_acquire"),
    ("memory_order_seq_cst", "memory_order_seq_cst"),
];

#[test]
fn compare_exchange_strong_and_weak_for_every_type_expected_space_order_and_scope() {
    let e = env();
    let mut c = Checks::default();
    for (space, word) in SPACES {
        for (t, a, x, y) in all_types() {
            for (e_space, e_ptr) in EXPECTED_IN {
                let e_ptr = e_ptr.replace("{T}", t);
                for kind in ["strong", "weak"] {
                    let name = format!("atomic_compare_exchange_{kind}");
                    let mut calls = vec![format!("{name}(p, e, d)")];
                    for (k, (s, f)) in CAS_ORDERS.iter().enumerate() {
                        let scope = SCOPES[k % SCOPES.len()];
                        calls.push(format!("{name}_explicit(p, e, d, {s}, {f})"));
                        calls.push(format!("{name}_explicit(p, e, d, {s}, {f}, {scope})"));
                    }
                    for scope in SCOPES {
                        calls.push(format!(
                            "{name}_explicit(p, e, d, memory_order_seq_cst, memory_order_seq_cst, {scope})"
                        ));
                    }
                    for call in calls {
                        // Succeeds when *e holds the value (weak may fail
                        // spuriously, leaving *e as it was: try again), fails
                        // otherwise and writes the value into *e.
                        c.add(
                            format!("{space} {t}, expected in {e_space}: {call}"),
                            &format!(
                                "volatile {space} {a} *p = (volatile {space} {a} *){word}; \
                                 {e_space} {t} *e = {e_ptr}; {t} x = {x}, y = {y}, d = y; \
                                 atomic_init(p, x); *e = x; bool swapped; \
                                 do {{ swapped = {call}; }} while (!swapped && *e == x); \
                                 bool pass = swapped && *e == x && atomic_load(p) == y; \
                                 *e = x; d = x; \
                                 pass = pass && !({call}) && *e == y && atomic_load(p) == y;"
                            ),
                        );
                    }
                }
            }
        }
    }
    c.run(&e);
}

#[test]
fn atomic_flag_test_and_set_and_clear_in_every_form_order_and_scope() {
    let e = env();
    let mut c = Checks::default();
    for (space, word) in SPACES {
        let f =
            format!("volatile {space} atomic_flag *f = (volatile {space} atomic_flag *){word};");
        for set in forms("atomic_flag_test_and_set", "f", &ORDERS) {
            c.add(
                format!("{space}: {set}"),
                &format!(
                    "{f} atomic_flag_clear(f); bool first = {set}; bool second = {set}; \
                     bool pass = !first && second;"
                ),
            );
        }
        for clear in forms("atomic_flag_clear", "f", &STORE_ORDERS) {
            c.add(
                format!("{space}: {clear}"),
                &format!(
                    "{f} atomic_flag_test_and_set(f); {clear}; \
                     bool pass = !atomic_flag_test_and_set(f) && atomic_flag_test_and_set(f);"
                ),
            );
        }
    }
    // Fences for every flag set, order and scope, between accesses whose
    // values they must not change.
    for flags in [
        "CLK_GLOBAL_MEM_FENCE",
        "CLK_LOCAL_MEM_FENCE",
        "CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE",
    ] {
        for order in ORDERS {
            for scope in std::iter::once("memory_scope_work_item").chain(SCOPES) {
                c.add(
                    format!("atomic_work_item_fence({flags}, {order}, {scope})"),
                    &format!(
                        "g[1] = 11; l[1] = 12; atomic_work_item_fence({flags}, {order}, {scope}); \
                         bool pass = g[1] == 11 && l[1] == 12;"
                    ),
                );
            }
        }
    }
    c.run(&e);
}

/// The optimized IR of every work-group function of `kernel`.
fn optimized_ir(kernel: &str) -> String {
    let prefix = format!("__ferrocl_wg.{kernel}.");
    std::fs::read_dir(ir_dump_dir())
        .unwrap()
        .map(|f| f.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with(&prefix) && name.ends_with(".ll") && !name.ends_with(".before-opt.ll")
        })
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

#[test]
fn orders_become_the_matching_llvm_orderings_at_system_scope() {
    let e = env();
    let src = r#"
    __kernel void orderings(volatile __global atomic_int *a, volatile __global atomic_long *b,
                            __global long *out) {
        out[0] = atomic_fetch_add_explicit(a, 1, memory_order_relaxed, memory_scope_device);
        out[1] = atomic_fetch_sub_explicit(a, 2, memory_order_acquire);
        atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_device);
        out[2] = atomic_fetch_or_explicit(a, 4, memory_order_release, memory_scope_work_group);
        atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_acquire, memory_scope_work_item);
        out[3] = atomic_fetch_xor_explicit(b, 8, memory_order_acq_rel, memory_scope_all_svm_devices);
        atomic_work_item_fence(CLK_LOCAL_MEM_FENCE, memory_order_acq_rel, memory_scope_work_group);
        out[4] = atomic_fetch_max(b, 16);
        atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst, memory_scope_all_devices);
        out[5] = atomic_load_explicit(a, memory_order_acquire);
        atomic_store_explicit(b, 32, memory_order_release, memory_scope_device);
        long expected = 32;
        out[6] = atomic_compare_exchange_strong_explicit(b, &expected, 64, memory_order_acq_rel,
                                                         memory_order_acquire, memory_scope_device);
        out[7] = atomic_flag_test_and_set_explicit((volatile __global atomic_flag *)a,
                                                   memory_order_acquire);
    }"#;
    let (_p, k) = e.kernel_opts(src, "orderings", CL3);
    let a = e.buffer_from(&[0i32]);
    let b = e.buffer_from(&[0i64]);
    let out = e.buffer(8 * 8);
    e.run_with(&k, &[&a, &b, &out], &[1], Some(&[1]));
    // 1 - 2 | 4 ^ ... : the values first, then the instructions.
    assert_eq!(e.read::<i64>(&out, 0, 8), vec![0, 1, -1, 0, 8, -1, 1, 1]);
    let ir = optimized_ir("orderings");
    let lines: Vec<&str> = ir.lines().collect();
    let has = |parts: &[&str]| lines.iter().any(|l| parts.iter().all(|p| l.contains(p)));
    // The __global pointers reach the atomics as generic ones (addrspace 4).
    for parts in [
        &["atomicrmw volatile add ptr addrspace(4)", "i32 1 monotonic"][..],
        &["atomicrmw volatile sub ptr addrspace(4)", "i32 2 acquire"],
        &["atomicrmw volatile or ptr addrspace(4)", "i32 4 release"],
        &["atomicrmw volatile xor ptr addrspace(4)", "i64 8 acq_rel"],
        &["atomicrmw volatile max ptr addrspace(4)", "i64 16 seq_cst"],
        &["load atomic volatile i32, ptr addrspace(4)", "acquire"],
        &["store atomic volatile i64 32, ptr addrspace(4)", "release"],
        &[
            "cmpxchg volatile ptr addrspace(4)",
            "i64 64 acq_rel acquire",
        ],
        &["atomicrmw volatile xchg ptr addrspace(4)", "i32 1 acquire"],
        &["fence release"],
        &["fence syncscope(\"singlethread\") acquire"],
        &["fence acq_rel"],
        &["fence seq_cst"],
    ] {
        assert!(has(parts), "no line with {parts:?} in\n{ir}");
    }
    // Every scope is the system's: no atomic names a narrower one.
    for l in &lines {
        if l.contains("atomicrmw") || l.contains("cmpxchg") || l.contains("load atomic") {
            assert!(!l.contains("syncscope"), "{l}");
        }
    }
}

// ---------------------------------------------------------------------------
// Under contention

fn run_global(e: &Env, src: &str, name: &str, args: &[&Mem], global: usize, local: Option<usize>) {
    let (_p, k) = e.kernel_opts(src, name, CL3);
    let local = local.map(|l| [l]);
    e.run_with(&k, args, &[global], local.as_ref().map(|l| &l[..]));
}

#[test]
fn fetch_add_hands_out_every_ticket_once_32_and_64_bit() {
    let e = env();
    let src = r#"
    __kernel void k(volatile __global atomic_uint *c32, volatile __global atomic_ulong *c64,
                    __global uint *seen32, __global uint *seen64) {
        uint t = atomic_fetch_add_explicit(c32, 1u, memory_order_relaxed, memory_scope_device);
        seen32[t] += 1u;
        ulong u = atomic_fetch_add(c64, 1ul << 33) >> 33;
        seen64[u] += 1u;
    }"#;
    let c32 = e.buffer_from(&[0u32]);
    let c64 = e.buffer_from(&[0u64]);
    let seen32 = e.buffer_from(&vec![0u32; N]);
    let seen64 = e.buffer_from(&vec![0u32; N]);
    run_global(&e, src, "k", &[&c32, &c64, &seen32, &seen64], N, None);
    assert_eq!(e.read::<u32>(&c32, 0, 1), vec![N as u32]);
    assert_eq!(e.read::<u64>(&c64, 0, 1), vec![(N as u64) << 33]);
    for seen in [&seen32, &seen64] {
        assert!(
            e.read::<u32>(seen, 0, N).iter().all(|&c| c == 1),
            "a ticket was handed out twice or never"
        );
    }
}

#[test]
fn compare_exchange_loops_lose_no_update() {
    let e = env();
    // Each work-item adds its id through a strong loop (32-bit) and a weak
    // loop (64-bit), and multiplies a 64-bit product by an odd factor, which
    // a lost update would show.
    let src = r#"
    __kernel void k(volatile __global atomic_int *sum, volatile __global atomic_long *sum64,
                    volatile __global atomic_ulong *product) {
        int i = (int)get_global_id(0);
        int old = atomic_load_explicit(sum, memory_order_relaxed);
        while (!atomic_compare_exchange_strong_explicit(sum, &old, old + i, memory_order_acq_rel,
                                                        memory_order_relaxed, memory_scope_device))
            ;
        long old64 = atomic_load(sum64);
        while (!atomic_compare_exchange_weak(sum64, &old64, old64 + ((long)i << 20)))
            ;
        ulong p = atomic_load(product);
        while (!atomic_compare_exchange_weak_explicit(product, &p, p * (2ul * (ulong)i + 1ul),
                                                      memory_order_seq_cst, memory_order_acquire))
            ;
    }"#;
    let sum = e.buffer_from(&[0i32]);
    let sum64 = e.buffer_from(&[0i64]);
    let product = e.buffer_from(&[1u64]);
    run_global(&e, src, "k", &[&sum, &sum64, &product], N, None);
    let ids = 0..N as i64;
    assert_eq!(
        e.read::<i32>(&sum, 0, 1)[0],
        ids.clone().sum::<i64>() as i32
    );
    assert_eq!(
        e.read::<i64>(&sum64, 0, 1)[0],
        ids.clone().sum::<i64>() << 20
    );
    let want = ids.fold(1u64, |p, i| p.wrapping_mul(2 * i as u64 + 1));
    assert_eq!(e.read::<u64>(&product, 0, 1)[0], want);
}

#[test]
fn fetch_min_and_max_respect_signedness_under_contention() {
    let e = env();
    let src = r#"
    __kernel void k(volatile __global atomic_int *smin, volatile __global atomic_int *smax,
                    volatile __global atomic_uint *umin, volatile __global atomic_uint *umax,
                    volatile __global atomic_long *lmin, volatile __global atomic_ulong *lmax) {
        int i = (int)get_global_id(0);
        int v = (i * 7919) % 100003 - 50000;
        atomic_fetch_min(smin, v);
        atomic_fetch_max_explicit(smax, v, memory_order_relaxed);
        atomic_fetch_min_explicit(umin, (uint)v, memory_order_acq_rel, memory_scope_device);
        atomic_fetch_max_explicit(umax, (uint)v, memory_order_release, memory_scope_all_svm_devices);
        atomic_fetch_min(lmin, (long)v << 30);
        atomic_fetch_max(lmax, (ulong)((long)v << 30));
    }"#;
    let vals: Vec<i32> = (0..N as i32).map(|i| (i * 7919) % 100003 - 50000).collect();
    let bufs = [
        e.buffer_from(&[i32::MAX]),
        e.buffer_from(&[i32::MIN]),
        e.buffer_from(&[u32::MAX]),
        e.buffer_from(&[0u32]),
        e.buffer_from(&[i64::MAX]),
        e.buffer_from(&[0u64]),
    ];
    run_global(&e, src, "k", &bufs.iter().collect::<Vec<_>>(), N, None);
    let got = |i: usize| e.read::<u64>(&bufs[i], 0, 1)[0];
    let got32 = |i: usize| e.read::<u32>(&bufs[i], 0, 1)[0];
    assert_eq!(got32(0) as i32, *vals.iter().min().unwrap());
    assert_eq!(got32(1) as i32, *vals.iter().max().unwrap());
    assert_eq!(got32(2), vals.iter().map(|&v| v as u32).min().unwrap());
    assert_eq!(got32(3), vals.iter().map(|&v| v as u32).max().unwrap());
    assert_eq!(
        got(4) as i64,
        vals.iter().map(|&v| (v as i64) << 30).min().unwrap()
    );
    assert_eq!(
        got(5),
        vals.iter()
            .map(|&v| ((v as i64) << 30) as u64)
            .max()
            .unwrap()
    );
}

#[test]
fn fetch_or_xor_and_and_exchange_under_contention() {
    let e = env();
    // Every work-item sets one bit, clears one, flips a pattern, and swaps
    // its id into one slot, getting back the id it displaced.
    let src = r#"
    __kernel void k(volatile __global atomic_ulong *ors, volatile __global atomic_uint *ands,
                    volatile __global atomic_ulong *xors, volatile __global atomic_int *slot,
                    __global int *displaced) {
        int i = (int)get_global_id(0);
        atomic_fetch_or_explicit(ors, 1ul << (i % 64), memory_order_relaxed, memory_scope_device);
        atomic_fetch_and(ands, ~(1u << (i % 31)));
        atomic_fetch_xor_explicit(xors, (ulong)i * 0x9e3779b97f4a7c15ul, memory_order_acq_rel);
        displaced[i] = atomic_exchange_explicit(slot, i, memory_order_acq_rel, memory_scope_device);
    }"#;
    let ors = e.buffer_from(&[0u64]);
    let ands = e.buffer_from(&[u32::MAX]);
    let xors = e.buffer_from(&[0u64]);
    let slot = e.buffer_from(&[-1i32]);
    let displaced = e.buffer(N * 4);
    run_global(
        &e,
        src,
        "k",
        &[&ors, &ands, &xors, &slot, &displaced],
        N,
        None,
    );
    assert_eq!(e.read::<u64>(&ors, 0, 1)[0], u64::MAX);
    assert_eq!(e.read::<u32>(&ands, 0, 1)[0], 1 << 31);
    let want_xor = (0..N as u64).fold(0u64, |x, i| x ^ i.wrapping_mul(0x9e3779b97f4a7c15));
    assert_eq!(e.read::<u64>(&xors, 0, 1)[0], want_xor);
    // The displaced ids and the last one left form -1, 0, .., N - 1 once each.
    let mut all = e.read::<i32>(&displaced, 0, N);
    all.push(e.read::<i32>(&slot, 0, 1)[0]);
    all.sort_unstable();
    assert!(
        all.iter().copied().eq(-1..N as i32),
        "an exchange lost or repeated a value"
    );
}

#[test]
fn atomic_flag_is_a_lock_around_plain_memory() {
    let e = env();
    // The critical section reads and writes plain (non-atomic) counters;
    // acquire on taking the flag and release on clearing it make every
    // work-item see the last one's writes.
    let src = r#"
    __kernel void k(volatile __global atomic_flag *lock, __global uint *count32,
                    __global ulong *count64) {
        while (atomic_flag_test_and_set_explicit(lock, memory_order_acquire, memory_scope_device))
            ;
        *count32 = *count32 + 1u;
        *count64 = *count64 + (1ul << 32) + 1ul;
        atomic_flag_clear_explicit(lock, memory_order_release, memory_scope_device);
    }"#;
    let lock = e.buffer_from(&[0u32]);
    let c32 = e.buffer_from(&[0u32]);
    let c64 = e.buffer_from(&[0u64]);
    let n = N / 4;
    run_global(&e, src, "k", &[&lock, &c32, &c64], n, None);
    assert_eq!(e.read::<u32>(&c32, 0, 1)[0], n as u32);
    assert_eq!(e.read::<u64>(&c64, 0, 1)[0], ((n as u64) << 32) + n as u64);
    assert_eq!(e.read::<u32>(&lock, 0, 1)[0], 0, "the lock is left clear");
}

#[test]
fn local_atomics_count_lock_and_compare_within_each_work_group() {
    let e = env();
    // Per work-group, on __local atomics: a 32-bit ticket counter, a 64-bit
    // sum through a compare-exchange loop, min and max, and a flag locking a
    // plain __local counter; one work-item writes the group's results.
    let src = r#"
    __kernel void k(__global uint *out) {
        __local atomic_uint tickets;
        __local atomic_long sum;
        __local atomic_int lo, hi;
        __local atomic_flag lock;
        __local uint plain;
        __local uint seen[256];
        uint lid = get_local_id(0);
        if (lid == 0) {
            atomic_init(&tickets, 0u);
            atomic_init(&sum, 0L);
            atomic_init(&lo, INT_MAX);
            atomic_init(&hi, INT_MIN);
            atomic_flag_clear(&lock);
            plain = 0u;
        }
        seen[lid] = 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        uint t = atomic_fetch_add_explicit(&tickets, 1u, memory_order_relaxed, memory_scope_work_group);
        seen[t] += 1u;
        long g = (long)get_global_id(0);
        long old = atomic_load_explicit(&sum, memory_order_relaxed, memory_scope_work_group);
        while (!atomic_compare_exchange_weak_explicit(&sum, &old, old + (g << 32),
                                                      memory_order_acq_rel, memory_order_relaxed,
                                                      memory_scope_work_group))
            ;
        int v = (int)((g * 7919) % 1009) - 500;
        atomic_fetch_min_explicit(&lo, v, memory_order_relaxed, memory_scope_work_group);
        atomic_fetch_max_explicit(&hi, v, memory_order_relaxed, memory_scope_work_group);
        while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire, memory_scope_work_group))
            ;
        plain += 1u;
        atomic_flag_clear_explicit(&lock, memory_order_release, memory_scope_work_group);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            uint once = 1u;
            for (uint i = 0; i < get_local_size(0); i++)
                once &= seen[i] == 1u;
            __global uint *o = out + 8 * get_group_id(0);
            o[0] = atomic_load(&tickets);
            o[1] = once;
            long s = atomic_load(&sum);
            o[2] = (uint)s;
            o[3] = (uint)(s >> 32);
            o[4] = (uint)atomic_load(&lo);
            o[5] = (uint)atomic_load(&hi);
            o[6] = plain;
            o[7] = atomic_flag_test_and_set(&lock);
        }
    }"#;
    let (local, groups) = (256usize, 64usize);
    let out = e.buffer_from(&vec![0u32; 8 * groups]);
    run_global(&e, src, "k", &[&out], local * groups, Some(local));
    let got = e.read::<u32>(&out, 0, 8 * groups);
    for g in 0..groups {
        let ids = (g * local) as i64..((g + 1) * local) as i64;
        let v = |i: i64| ((i * 7919) % 1009 - 500) as i32;
        let sum: i64 = ids.clone().sum::<i64>() << 32;
        let want = [
            local as u32,
            1,
            sum as u32,
            (sum >> 32) as u32,
            ids.clone().map(v).min().unwrap() as u32,
            ids.clone().map(v).max().unwrap() as u32,
            local as u32,
            0,
        ];
        assert_eq!(got[8 * g..8 * g + 8], want, "work-group {g}");
    }
}

#[test]
fn the_device_reports_every_order_and_scope() {
    let memory = ok(
        device_info(device(), CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES),
        "CL_DEVICE_ATOMIC_MEMORY_CAPABILITIES",
    )
    .u64();
    let fence = ok(
        device_info(device(), CL_DEVICE_ATOMIC_FENCE_CAPABILITIES),
        "CL_DEVICE_ATOMIC_FENCE_CAPABILITIES",
    )
    .u64();
    let all = CL_DEVICE_ATOMIC_ORDER_RELAXED
        | CL_DEVICE_ATOMIC_ORDER_ACQ_REL
        | CL_DEVICE_ATOMIC_ORDER_SEQ_CST
        | CL_DEVICE_ATOMIC_SCOPE_WORK_GROUP
        | CL_DEVICE_ATOMIC_SCOPE_DEVICE
        | CL_DEVICE_ATOMIC_SCOPE_ALL_DEVICES;
    assert_eq!(memory, all);
    assert_eq!(fence, all | CL_DEVICE_ATOMIC_SCOPE_WORK_ITEM);
}

#[test]
fn an_atomic_function_on_a_plain_type_fails_the_build_with_clangs_reason() {
    let e = env();
    let src = "kernel void k(global int* p) { atomic_fetch_add(p, 1); }";
    match build(e.c(), src, "-cl-std=CL3.0") {
        Ok(_) => panic!("atomic_fetch_add on a plain int built"),
        Err(f) => {
            assert_eq!(f.code, CL_BUILD_PROGRAM_FAILURE);
            assert!(f.log.contains("atomic_fetch_add"), "{}", f.log);
        }
    }
    // The context goes on building and running.
    let (_p, k) = e.kernel_opts(
        "kernel void k(global atomic_int* p) { atomic_fetch_add(p, 1); }",
        "k",
        "-cl-std=CL3.0",
    );
    let counter = e.buffer_from(&[0i32]);
    e.run_with(&k, &[&counter], &[64], None);
    assert_eq!(e.read::<i32>(&counter, 0, 1), [64]);
}
