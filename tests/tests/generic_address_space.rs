//! The generic address space (OpenCL C 3.0 `__opencl_c_generic_address_space`):
//! functions taking unqualified pointers called with global, local and
//! private ones; to_global, to_local, to_private and get_fence on each kind
//! of memory, wherever in an object the pointer points; and the builtins
//! that take generic pointers (vload/vstore, fract, modf, frexp, sincos,
//! remquo, lgamma_r, the atomics) on every memory.

use ferrocl_tests::*;

const CL3: &str = "-cl-std=CL3.0";

/// Work-groups enough that several pool threads each run many of them.
const GROUPS: usize = 48;

fn run_kernel(e: &Env, src: &str, options: &str, args: &[&Mem], global: usize, local: usize) {
    let (_p, k) = e.kernel_opts(src, "k", options);
    e.run_with(&k, args, &[global], Some(&[local]));
}

#[test]
fn the_device_offers_the_generic_address_space() {
    let d = device();
    assert!(ok(
        device_info(d, CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT),
        "GENERIC_ADDRESS_SPACE_SUPPORT"
    )
    .bool());
    let features = ok(device_info(d, CL_DEVICE_OPENCL_C_FEATURES), "C_FEATURES");
    let generic = features
        .name_versions()
        .into_iter()
        .find(|(n, _)| n == "__opencl_c_generic_address_space");
    let (_, version) = generic.expect("__opencl_c_generic_address_space is reported");
    assert_eq!(version_parts(version), (3, 0, 0));
}

/// Helpers with unqualified (generic) pointers, called with every memory.
const FUNCTIONS: &str = r#"
int sum(const int *p, int n) {
    int s = 0;
    for (int i = 0; i < n; i++) s += p[i];
    return s;
}
void scale(int *p, int n, int f) {
    for (int i = 0; i < n; i++) p[i] *= f;
}
__kernel void k(__global int *g, __global int *out) {
    __local int l[4 * 16];
    int pr[4];
    size_t lid = get_local_id(0), gid = get_global_id(0);
    for (int i = 0; i < 4; i++) {
        l[lid * 4 + i] = (int)gid * 4 + i;
        pr[i] = (int)gid * 4 + i;
    }
    scale(g + gid * 4, 4, 2);
    scale(l + lid * 4, 4, 3);
    scale(pr, 4, 5);
    out[gid * 3] = sum(g + gid * 4, 4);
    out[gid * 3 + 1] = sum(l + lid * 4, 4);
    out[gid * 3 + 2] = sum(pr, 4);
}
"#;

#[test]
fn functions_take_generic_pointers_to_global_local_and_private_memory() {
    let e = Env::new();
    let n = GROUPS * 16;
    let g = e.buffer_from(&(0..4 * n as i32).collect::<Vec<i32>>());
    let out = e.buffer_from(&vec![0i32; 3 * n]);
    run_kernel(&e, FUNCTIONS, CL3, &[&g, &out], n, 16);
    let got = e.read::<i32>(&out, 0, 3 * n);
    for gid in 0..n as i32 {
        let s = 16 * gid + 6;
        let at = 3 * gid as usize;
        assert_eq!(got[at..at + 3], [2 * s, 3 * s, 5 * s], "work-item {gid}");
    }
}

/// What the address space functions say of a pointer, as bits: 1 to_global
/// non-NULL, 2 to_local, 4 to_private; 8 if a non-NULL result is not the
/// same address; get_fence's flags from bit 8.
const KIND: &str = r#"
typedef struct { int a; int b[4]; } S;
int kind(const int *p) {
    int k = 0;
    const __global int *g = to_global(p);
    const __local int *l = to_local(p);
    const __private int *q = to_private(p);
    if (g) k |= 1;
    if (l) k |= 2;
    if (q) k |= 4;
    if ((g && (uintptr_t)g != (uintptr_t)p) || (l && (uintptr_t)l != (uintptr_t)p) ||
        (q && (uintptr_t)q != (uintptr_t)p))
        k |= 8;
    return k | (int)get_fence(p) << 8;
}
"#;

const GLOBAL: i32 = 1 | (2 << 8);
const LOCAL: i32 = 2 | (1 << 8);
/// Any fence is valid for private memory; this one is the global fence.
const PRIVATE: i32 = 4 | (2 << 8);

#[test]
fn casts_and_fences_tell_every_memory_apart() {
    let cases = [
        ("the start of a buffer", "g", GLOBAL),
        ("the middle of a buffer", "g + gid + 1", GLOBAL),
        ("a __local array's element", "&ls[(lid + 1) % 16]", LOCAL),
        ("a __local argument", "da + lid", LOCAL),
        ("the middle of a second __local argument", "db + 3", LOCAL),
        ("the last element of a __local argument", "db + 15", LOCAL),
        ("a private scalar", "&x", PRIVATE),
        ("a private array's element", "&arr[lid % 8]", PRIVATE),
        ("a private struct's member", "&s.b[2]", PRIVATE),
        ("a by-value argument's member", "&sarg.b[1]", PRIVATE),
    ];
    let mut src = format!(
        "{KIND}\n__kernel void k(__global int *g, __global int *out, __local int *da,\n\
         __local int *db, S sarg) {{\n\
         __local int ls[16];\n  size_t lid = get_local_id(0), gid = get_global_id(0);\n\
         int x = (int)gid;\n  int arr[8];\n  S s = sarg;\n\
         for (int i = 0; i < 8; i++) arr[i] = (int)gid + i;\n\
         ls[lid] = (int)lid; da[lid] = 1; db[lid] = 2;\n"
    );
    for (i, (_, p, _)) in cases.iter().enumerate() {
        src += &format!("  out[gid * {} + {i}] = kind({p});\n", cases.len());
    }
    // The objects stay alive and their contents used.
    src += "  g[gid + 1] += x + arr[gid % 8] + s.b[2] + ls[lid] + da[lid] + db[lid];\n}\n";
    let e = Env::new();
    let n = GROUPS * 16;
    let g = e.buffer(4 * (n + 1));
    let out = e.buffer_from(&vec![-1i32; cases.len() * n]);
    let (_p, k) = e.kernel_opts(&src, "k", CL3);
    ok(set_mem(k.get(), 0, &g), "arg 0");
    ok(set_mem(k.get(), 1, &out), "arg 1");
    ok(set_local(k.get(), 2, 16 * 4), "arg 2");
    ok(set_local(k.get(), 3, 16 * 4), "arg 3");
    ok(set_arg(k.get(), 4, &[7i32, 1, 2, 3, 4]), "arg 4");
    e.run(&k, &[n], Some(&[16]));
    let got = e.read::<i32>(&out, 0, cases.len() * n);
    for gid in 0..n {
        for (i, (what, p, want)) in cases.iter().enumerate() {
            let k = got[gid * cases.len() + i];
            assert_eq!(k, *want, "{what} ({p}) in work-item {gid}: {k:#x}");
        }
    }
}

#[test]
fn private_memory_that_lives_across_a_barrier_is_still_private() {
    let src = format!(
        "{KIND}\n__kernel void k(__global int *out, __local int *da) {{\n\
         __local int ls[16];\n  size_t lid = get_local_id(0), gid = get_global_id(0);\n\
         int arr[8];\n  for (int i = 0; i < 8; i++) arr[i] = (int)gid + i;\n\
         const int *before = &arr[3];\n  ls[lid] = (int)lid; da[lid] = (int)lid;\n\
         barrier(CLK_LOCAL_MEM_FENCE);\n\
         out[gid * 5] = kind(&arr[lid % 8]);\n\
         out[gid * 5 + 1] = kind(before);\n\
         out[gid * 5 + 2] = kind(&ls[(lid + 1) % 16]);\n\
         out[gid * 5 + 3] = kind(da + (lid + 1) % 16);\n\
         barrier(CLK_LOCAL_MEM_FENCE);\n\
         out[gid * 5 + 4] = arr[lid % 8] + *before + ls[(lid + 1) % 16] + da[15 - lid];\n}}\n"
    );
    let e = Env::new();
    let n = GROUPS * 16;
    let out = e.buffer_from(&vec![-1i32; 5 * n]);
    let (_p, k) = e.kernel_opts(&src, "k", CL3);
    ok(set_mem(k.get(), 0, &out), "arg 0");
    ok(set_local(k.get(), 1, 16 * 4), "arg 1");
    e.run(&k, &[n], Some(&[16]));
    let got = e.read::<i32>(&out, 0, 5 * n);
    for gid in 0..n {
        let lid = gid % 16;
        let at = gid * 5;
        assert_eq!(
            got[at..at + 4],
            [PRIVATE, PRIVATE, LOCAL, LOCAL],
            "work-item {gid}"
        );
        let sum = (gid + lid % 8) + (gid + 3) + (lid + 1) % 16 + (15 - lid);
        assert_eq!(got[at + 4], sum as i32, "work-item {gid}'s values");
    }
}

#[test]
fn casts_work_without_optimization_and_in_groups_of_one() {
    let src = format!(
        "{KIND}\n__kernel void k(__global int *g, __global int *out, __local int *da) {{\n\
         __local int ls[4];\n  int x = 1;\n  size_t gid = get_global_id(0);\n\
         ls[0] = 1; da[0] = 1;\n\
         out[gid * 4] = kind(g + gid);\n  out[gid * 4 + 1] = kind(&ls[2]);\n\
         out[gid * 4 + 2] = kind(da);\n  out[gid * 4 + 3] = kind(&x);\n}}\n"
    );
    for (options, local) in [(format!("{CL3} -cl-opt-disable"), 4), (CL3.to_string(), 1)] {
        let e = Env::new();
        let n = 64;
        let g = e.buffer(4 * n);
        let out = e.buffer_from(&vec![-1i32; 4 * n]);
        let (_p, k) = e.kernel_opts(&src, "k", &options);
        ok(set_mem(k.get(), 0, &g), "arg 0");
        ok(set_mem(k.get(), 1, &out), "arg 1");
        ok(set_local(k.get(), 2, 64), "arg 2");
        e.run(&k, &[n], Some(&[local]));
        let got = e.read::<i32>(&out, 0, 4 * n);
        for gid in 0..n {
            assert_eq!(
                got[gid * 4..gid * 4 + 4],
                [GLOBAL, LOCAL, LOCAL, PRIVATE],
                "{options}, local size {local}, work-item {gid}"
            );
        }
    }
}

/// The pointer-taking math functions through a helper with generic
/// pointers, its outputs in `__global`, `__local` or private memory: six
/// results and six outputs per call.
const MATH: &str = r#"
void math(float x, float *ip, float *mf, int *e, float *c, int *q, int *sg, float *res) {
    res[0] = fract(x, ip);
    res[1] = modf(x, mf);
    res[2] = frexp(x, e);
    res[3] = sincos(x, c);
    res[4] = remquo(x, 2.0f, q);
    res[5] = lgamma_r(x, sg);
}
void copy(const float *f, const int *i, __global float *outf, __global int *outi) {
    for (int k = 0; k < 3; k++) outf[k] = f[k];
    for (int k = 0; k < 3; k++) outi[k] = i[k];
}
__kernel void k(float x, __global float *res, __global float *gf, __global int *gi,
                __global float *outf, __global int *outi) {
    __local float lf[3];
    __local int li[3];
    float pf[3];
    int pi[3];
    math(x, gf, gf + 1, gi, gf + 2, gi + 1, gi + 2, res);
    math(x, lf, lf + 1, li, lf + 2, li + 1, li + 2, res + 6);
    math(x, pf, pf + 1, pi, pf + 2, pi + 1, pi + 2, res + 12);
    copy(gf, gi, outf, outi);
    copy(lf, li, outf + 3, outi + 3);
    copy(pf, pi, outf + 6, outi + 6);
}
"#;

#[test]
fn math_functions_write_through_generic_pointers_to_every_memory() {
    let e = Env::new();
    let x = -2.75f32;
    let res = e.buffer(18 * 4);
    let gf = e.buffer(3 * 4);
    let gi = e.buffer(3 * 4);
    let outf = e.buffer(9 * 4);
    let outi = e.buffer(9 * 4);
    let (_p, k) = e.kernel_opts(MATH, "k", CL3);
    ok(set_arg(k.get(), 0, &x), "x");
    for (i, m) in [&res, &gf, &gi, &outf, &outi].iter().enumerate() {
        ok(set_mem(k.get(), i as cl_uint + 1, m), "buffer");
    }
    e.run(&k, &[1], Some(&[1]));
    let r = e.read::<f32>(&res, 0, 18);
    let f = e.read::<f32>(&outf, 0, 9);
    let i = e.read::<i32>(&outi, 0, 9);
    for (m, memory) in ["global", "local", "private"].iter().enumerate() {
        let r = &r[6 * m..6 * m + 6];
        let (f, i) = (&f[3 * m..3 * m + 3], &i[3 * m..3 * m + 3]);
        // fract: 0.25 and floor -3; modf: -0.75 and -2; frexp: -0.6875 * 2^2.
        assert_eq!((r[0], f[0]), (0.25, -3.0), "fract, {memory}");
        assert_eq!((r[1], f[1]), (-0.75, -2.0), "modf, {memory}");
        assert_eq!((r[2], i[0]), (-0.6875, 2), "frexp, {memory}");
        assert!((r[3] - x.sin()).abs() < 1e-6, "sin {} {memory}", r[3]);
        assert!((f[2] - x.cos()).abs() < 1e-6, "cos {} {memory}", f[2]);
        // -2.75 / 2 rounds to -1: the remainder is -0.75, the quotient -1.
        assert_eq!((r[4], i[1]), (-0.75, -1), "remquo, {memory}");
        // Gamma(-2.75) = Gamma(1.25) / (-2.75 * -1.75 * -0.75 * 0.25) < 0.
        let gamma = 0.906_402_477_055_477_f64 / (-2.75 * -1.75 * -0.75 * 0.25);
        assert!(
            (r[5] as f64 - gamma.abs().ln()).abs() < 1e-6,
            "lgamma {}",
            r[5]
        );
        assert_eq!(i[2], -1, "lgamma_r's sign, {memory}");
    }
}

/// vload/vstore and their half forms through generic pointers.
const VECTOR_DATA: &str = r#"
float4 load(const float *p, size_t i) { return vload4(i, p); }
void store(float4 v, size_t i, float *p) { vstore4(v, i, p); }
float load_half(const half *p, size_t i) { return vload_half(i, p); }
void store_half(float v, size_t i, half *p) { vstore_half_rtz(v, i, p); }
__kernel void k(__global float *g, __global float *out, __global half *gh) {
    __local float l[9];
    /* half is storage only: its arrays are of ushort. */
    __local ushort lh[4];
    float p[9];
    ushort ph[4];
    for (int i = 0; i < 9; i++) { l[i] = g[i] * 2; p[i] = g[i] * 3; }
    /* From element 1: only the element's alignment holds. */
    store(load(g + 1, 1), 0, out);
    store(load(l + 1, 1), 1, out);
    store(load(p + 1, 1), 2, out);
    store(load(g + 1, 0) + 1, 1, g + 1);
    store(load(l + 1, 0) + 1, 1, l + 1);
    store(load(p + 1, 0) + 1, 1, p + 1);
    for (int i = 0; i < 4; i++) { out[12 + i] = g[5 + i]; out[16 + i] = l[5 + i];
                                  out[20 + i] = p[5 + i]; }
    store_half(1.0f / 3, 1, gh);
    store_half(-2.0f / 3, 1, (__local half *)lh);
    store_half(65504.0f * 2, 1, (half *)ph);
    out[24] = load_half(gh, 1);
    out[25] = load_half((__local half *)lh, 1);
    out[26] = load_half((half *)ph, 1);
}
"#;

#[test]
fn vload_and_vstore_take_generic_pointers_to_every_memory() {
    let e = Env::new();
    let g = e.buffer_from(&(0..9).map(|i| i as f32).collect::<Vec<f32>>());
    let out = e.buffer_from(&[0f32; 27]);
    let gh = e.buffer(4 * 2);
    run_kernel(&e, VECTOR_DATA, CL3, &[&g, &out, &gh], 1, 1);
    let o = e.read::<f32>(&out, 0, 27);
    for (m, f) in [1.0f32, 2.0, 3.0].iter().enumerate() {
        let want: Vec<f32> = (5..9).map(|i| i as f32 * f).collect();
        assert_eq!(o[4 * m..4 * m + 4], want[..], "vload4, memory {m}");
        let plus: Vec<f32> = (1..5).map(|i| i as f32 * f + 1.0).collect();
        assert_eq!(o[12 + 4 * m..16 + 4 * m], plus[..], "vstore4, memory {m}");
    }
    // Rounded toward zero: 1/3 and -2/3 to the half below their magnitude,
    // a float beyond the halves to the largest finite one.
    assert_eq!(o[24], 0.333_251_95, "half in global memory");
    assert_eq!(o[25], -0.666_503_9, "half in local memory");
    assert_eq!(o[26], 65504.0, "half in private memory");
}

/// Atomics through generic pointers on global, local and private memory,
/// with every work-item of many groups on every pool thread taking part.
const ATOMICS: &str = r#"
int bump(volatile atomic_int *p) { return atomic_fetch_add(p, 1); }
void add_two(volatile atomic_int *p) {
    int seen = atomic_load(p);
    while (!atomic_compare_exchange_strong(p, &seen, seen + 2))
        ;
}
__kernel void k(__global atomic_int *gc, __global int *out, __local atomic_int *dl) {
    __local atomic_int lc;
    __local atomic_flag lf;
    size_t lid = get_local_id(0), gid = get_global_id(0), group = get_group_id(0);
    if (lid == 0) {
        atomic_init(&lc, 0);
        atomic_init(dl, 0);
        atomic_flag_clear(&lf);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    bump(gc);
    bump(&lc);
    add_two(&lc);
    add_two(dl);
    atomic_fetch_add_explicit(dl, 1, memory_order_relaxed, memory_scope_work_group);
    /* Global for odd work-items, local for even ones: only known at run time. */
    volatile atomic_int *either = (gid & 1) ? (volatile atomic_int *)gc : &lc;
    bump(either);
    int first = !atomic_flag_test_and_set(&lf);
    atomic_int mine;
    atomic_init(&mine, 5);
    bump(&mine);
    int expected = 6;
    int swapped = atomic_compare_exchange_strong(&mine, &expected, 10);
    int kept = !atomic_compare_exchange_strong(&mine, &expected, 20) && expected == 10;
    atomic_flag pf;
    atomic_flag_clear(&pf);
    int flag = !atomic_flag_test_and_set(&pf) && atomic_flag_test_and_set(&pf);
    out[gid * 2] = swapped && kept && flag && atomic_load(&mine) == 10;
    out[gid * 2 + 1] = first;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        out[2 * get_global_size(0) + group * 2] = atomic_load(&lc);
        out[2 * get_global_size(0) + group * 2 + 1] = atomic_load(dl);
    }
}
"#;

#[test]
fn atomics_on_generic_pointers_work_on_every_memory() {
    let e = Env::new();
    let local = 64;
    let n = GROUPS * local;
    let gc = e.buffer_from(&[0i32]);
    let out = e.buffer_from(&vec![-1i32; 2 * n + 2 * GROUPS]);
    let (_p, k) = e.kernel_opts(ATOMICS, "k", CL3);
    ok(set_mem(k.get(), 0, &gc), "arg 0");
    ok(set_mem(k.get(), 1, &out), "arg 1");
    ok(set_local(k.get(), 2, 4), "arg 2");
    for round in 1..=3 {
        e.run(&k, &[n], Some(&[local]));
        // Every work-item once, and the odd ones once more.
        assert_eq!(
            e.read::<i32>(&gc, 0, 1)[0],
            (round * (n + n / 2)) as i32,
            "the global counter, round {round}"
        );
    }
    let got = e.read::<i32>(&out, 0, 2 * n + 2 * GROUPS);
    for gid in 0..n {
        assert_eq!(got[gid * 2], 1, "private atomics of work-item {gid}");
    }
    for group in 0..GROUPS {
        let firsts: i32 = (0..local).map(|l| got[(group * local + l) * 2 + 1]).sum();
        assert_eq!(
            firsts, 1,
            "one work-item of group {group} set the local flag"
        );
        let at = 2 * n + group * 2;
        // One and two from each work-item, and one more from the even ones.
        assert_eq!(
            got[at],
            (3 * local + local / 2) as i32,
            "group {group}'s counter"
        );
        assert_eq!(
            got[at + 1],
            3 * local as i32,
            "group {group}'s __local argument"
        );
    }
}

#[test]
fn named_address_space_forms_remain_for_opencl_c_1_2() {
    let src = r#"
__kernel void k(__global float *g, __global float *out) {
    __local float l[4];
    float p[4];
    out[0] = fract(1.25f, g);
    out[1] = fract(2.5f, l);
    out[2] = fract(3.75f, p);
    vstore4(vload4(0, g + 4), 0, l);
    vstore4(vload4(0, l), 0, p);
    out[3] = g[0] + l[0] + p[0];
    out[4] = vload4(0, p).w;
}
"#;
    let e = Env::new();
    let g = e.buffer_from(&(0..8).map(|i| i as f32).collect::<Vec<f32>>());
    let out = e.buffer_from(&[0f32; 5]);
    run_kernel(&e, src, "-cl-std=CL1.2", &[&g, &out], 1, 1);
    // fract's integral parts 1, 2 and 3 were stored to g[0], l[0] and p[0]
    // before the vector copies overwrote l and p with g[4..8].
    assert_eq!(
        e.read::<f32>(&out, 0, 5),
        [0.25, 0.5, 0.75, 1.0 + 4.0 + 4.0, 7.0]
    );
}
