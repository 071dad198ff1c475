//! Kernels whose work lies in loops of their own run through the
//! whole-kernel vectorizer (`vecz`) when a work-group has a
//! vector register's worth of work-items in dimension 0, and through the
//! scalar kernel otherwise. Each kernel here runs with work-groups of one
//! work-item (scalar), of a vector's width and of a width with a scalar
//! remainder, and must give the same bits every time. The IR dumped
//! before optimization shows which form ran.

use ferrocl_tests::*;

/// Floats in one of the CPU's vector registers (16 with AVX-512, 8 with
/// AVX2): the vector forms are a few registers wide.
fn float_lanes() -> usize {
    ok(
        device_info(device(), CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT),
        "native float width",
    )
    .u32() as usize
}

// Every vector form is made here, also those the pipeline expects to run
// slower than the scalar form (work-items branching apart inside loops), as
// the tests are of what they compute; and the IR is dumped.
before_main!({
    std::env::set_var("FERROCL_VECTORIZE", "all");
    dump_ir();
});

/// The IR of every work-group function of `kernel`, before optimization.
fn work_group_ir(kernel: &str) -> String {
    let prefix = format!("__ferrocl_wg.{kernel}.");
    std::fs::read_dir(ir_dump_dir())
        .unwrap()
        .map(|f| f.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            name.starts_with(&prefix) && name.ends_with(".before-opt.ll")
        })
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// An argument of a kernel run: a buffer's contents or a scalar.
enum Arg<'a> {
    In(&'a [u8]),
    /// Read back after the run.
    InOut(&'a [u8]),
    Out(usize),
    Int(i32),
    Long(i64),
}

fn bytes<T: Copy>(v: &[T]) -> &[u8] {
    // SAFETY: plain old data, read as bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

/// Runs `name` over `global` with each local size; returns the output
/// buffers of each run.
fn run_each(
    src: &str,
    name: &str,
    args: &[Arg],
    global: &[usize],
    locals: &[&[usize]],
) -> Vec<Vec<Vec<u8>>> {
    let e = Env::new();
    let (_p, k) = e.kernel(src, name);
    locals
        .iter()
        .map(|local| {
            let mut outs = Vec::new();
            for (i, a) in args.iter().enumerate() {
                let i = i as cl_uint;
                match a {
                    Arg::In(data) => {
                        let m = e.buffer_from(data);
                        ok(set_mem(k.get(), i, &m), "set buffer");
                        outs.push((m, 0));
                    }
                    Arg::Out(size) => {
                        let m = e.buffer_from(&vec![0xa5u8; *size]);
                        ok(set_mem(k.get(), i, &m), "set buffer");
                        outs.push((m, *size));
                    }
                    Arg::InOut(data) => {
                        let m = e.buffer_from(data);
                        ok(set_mem(k.get(), i, &m), "set buffer");
                        outs.push((m, data.len()));
                    }
                    Arg::Int(v) => ok(set_arg(k.get(), i, v), "set int"),
                    Arg::Long(v) => ok(set_arg(k.get(), i, v), "set long"),
                }
            }
            e.run(&k, global, Some(local));
            outs.iter()
                .filter(|(_, size)| *size > 0)
                .map(|(m, size)| e.read::<u8>(m, 0, *size))
                .collect()
        })
        .collect()
}

fn floats(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|x| f32::from_ne_bytes(x.try_into().unwrap()))
        .collect()
}

fn ints(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|x| i32::from_ne_bytes(x.try_into().unwrap()))
        .collect()
}

/// Work-items left a loop at more than `at_least` different iterations.
fn left_apart(counts: &[i32], at_least: usize) {
    let distinct: std::collections::HashSet<i32> = counts.iter().copied().collect();
    assert!(distinct.len() > at_least, "{counts:?}");
}

/// The outputs of `name` over 120 work-items, which must be the same at
/// local sizes 1 (the scalar form), 24, 40 and 120.
fn same_bits_at_every_local_size(src: &str, name: &str, args: &[Arg]) -> Vec<Vec<u8>> {
    let locals: [&[usize]; 4] = [&[1], &[24], &[40], &[120]];
    let runs = run_each(src, name, args, &[120], &locals);
    assert_all_equal(&runs, &locals);
    runs.into_iter().next().unwrap()
}

/// The outputs of kernel `name(int n, global const float *a, global float
/// *o, global int *cnt)` over `inputs()`, the same at every local size;
/// its vector form masks stores and holds `marker`.
fn masked_and_same_bits(src: &str, name: &str, n: i32, marker: &str) -> Vec<Vec<u8>> {
    let a = inputs();
    let args = [
        Arg::Int(n),
        Arg::In(bytes(&a)),
        Arg::Out(120 * 4),
        Arg::Out(120 * 4),
    ];
    let out = same_bits_at_every_local_size(src, name, &args);
    let ir = work_group_ir(name);
    assert!(
        ir.contains(marker) && ir.contains("@llvm.masked.store"),
        "not vectorized with masks:\n{ir}"
    );
    out
}

/// 256 values in [0, 1): the input of the kernels run by
/// `same_bits_at_every_local_size`.
fn inputs() -> Vec<f32> {
    (0..256).map(|i| ((i * 37) % 101) as f32 / 100.0).collect()
}

fn assert_all_equal(runs: &[Vec<Vec<u8>>], locals: &[&[usize]]) {
    for (r, local) in runs.iter().zip(locals).skip(1) {
        assert!(
            r == &runs[0],
            "local size {local:?} differs from {:?}",
            locals[0]
        );
    }
}

const GEMM: &str = r#"
kernel void gemm(int n, global const float *a, global const float *b, global float *c) {
    int col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (int k = 0; k < n; k++)
        acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
}
"#;

/// Two N x N matrices of small fractions, and the product's element
/// (`row`, `col`) as the kernel's loop computes it.
struct Matrices {
    a: Vec<f32>,
    b: Vec<f32>,
}

impl Matrices {
    const N: usize = 80;

    fn new() -> Matrices {
        let n = Self::N;
        Matrices {
            a: (0..n * n)
                .map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0)
                .collect(),
            b: (0..n * n)
                .map(|i| ((i * 53 % 89) as f32 - 40.0) / 3.0)
                .collect(),
        }
    }

    fn product(&self, row: usize, col: usize) -> f32 {
        let n = Self::N;
        (0..n).fold(0.0, |acc, k| {
            self.a[row * n + k].mul_add(self.b[k * n + col], acc)
        })
    }

    fn args(&self) -> [Arg<'_>; 4] {
        let n = Self::N;
        [
            Arg::Int(n as i32),
            Arg::In(bytes(&self.a)),
            Arg::In(bytes(&self.b)),
            Arg::Out(n * n * 4),
        ]
    }
}

#[test]
fn a_matrix_product_gives_the_same_bits_vectorized_and_scalar() {
    const N: usize = Matrices::N;
    let m = Matrices::new();
    let args = m.args();
    let locals: [&[usize]; 4] = [&[1, 1], &[16, 1], &[80, 1], &[40, 2]];
    let runs = run_each(GEMM, "gemm", &args, &[N, N], &locals);
    assert_all_equal(&runs, &locals);
    // And the bits are the product's.
    let c = floats(&runs[0][0]);
    let (row, col) = (7, 61);
    assert_eq!(c[row * N + col], m.product(row, col));
    // Work-groups 80 wide ran four registers of floats' worth of
    // work-items at once (64 with AVX-512), then the rest one at a time.
    let ir = work_group_ir("gemm");
    let lanes = 4 * float_lanes();
    assert!(
        ir.contains(&format!("phi <{lanes} x float>")),
        "no accumulator of {lanes} lanes:\n{ir}"
    );
    assert!(
        ir.contains(&format!("load <{lanes} x float>")),
        "no contiguous load of b:\n{ir}"
    );
    assert!(!ir.contains("masked.gather"), "a gather:\n{ir}");
}

#[test]
fn rows_run_together_give_the_same_bits() {
    const N: usize = Matrices::N;
    let m = Matrices::new();
    let args = m.args();
    // Scalar; four rows at a time with whole vectors; with a scalar rest
    // of x (40 = 32 + 8); two groups of four rows; rows apart.
    let locals: [&[usize]; 5] = [&[1, 1], &[16, 4], &[40, 4], &[20, 8], &[80, 1]];
    // Its own name, so that its IR is told apart from the test above's.
    let src = GEMM.replace("void gemm(", "void gemm_rows(");
    let runs = run_each(&src, "gemm_rows", &args, &[N, N], &locals);
    assert_all_equal(&runs, &locals);
    let c = floats(&runs[0][0]);
    for (row, col) in [(0, 0), (7, 61), (78, 79), (41, 3)] {
        assert_eq!(c[row * N + col], m.product(row, col), "c[{row}][{col}]");
    }
    // The rows ran together: row j's id is y + j.
    let ir = work_group_ir("gemm_rows");
    assert!(ir.contains("%row.id"), "no rows together:\n{ir}");
}

/// Reads ids per row under a uniform condition; `BOUND` is the loop's
/// bound, which may differ from row to row.
const ROW_IDS: &str = r#"
kernel void NAME(int n, global const float *b, global float *out, global int *ids) {
    int x = get_global_id(0), y = get_global_id(1), w = get_global_size(0);
    float acc = 0.0f;
    for (int k = 0; k < BOUND; k++) {
        float v = b[k * w + x];
        if (k % 3 == 1)
            acc = acc * 0.5f + v * (float)(y + 1);
        else
            acc += v - (float)get_local_id(1);
    }
    int i = y * w + x;
    out[i] = acc;
    ids[3 * i] = get_global_id(1) * get_global_size(0) + get_global_id(0);
    ids[3 * i + 1] = get_local_id(1) * get_local_size(0) + get_local_id(0);
    ids[3 * i + 2] = get_local_id(1) * 1000 + get_group_id(1);
}
"#;

#[test]
fn rows_run_together_see_their_own_ids_and_rows_that_branch_apart_do_not() {
    const W: usize = 64;
    const H: usize = 8;
    const N: usize = 12;
    let b: Vec<f32> = (0..W * (N + 2)).map(|i| (i % 13) as f32 * 0.75).collect();
    for (name, bound, together) in [
        ("row_ids", "n", true),
        ("row_ids_apart", "n + y % 3", false),
    ] {
        let src = ROW_IDS.replace("NAME", name).replace("BOUND", bound);
        let args = [
            Arg::Int(N as i32),
            Arg::In(bytes(&b)),
            Arg::Out(W * H * 4),
            Arg::Out(W * H * 12),
        ];
        let locals: [&[usize]; 3] = [&[1, 4], &[16, 4], &[32, 8]];
        let runs = run_each(&src, name, &args, &[W, H], &locals);
        for (run, local) in runs.iter().zip(locals) {
            let out = floats(&run[0]);
            let ids = ints(&run[1]);
            for y in 0..H {
                for x in 0..W {
                    let i = y * W + x;
                    let (lx, ly) = (x % local[0], y % local[1]);
                    let mut acc = 0.0f32;
                    let bound = if together { N } else { N + y % 3 };
                    for k in 0..bound {
                        let v = b[k * W + x];
                        acc = if k % 3 == 1 {
                            acc * 0.5 + v * (y + 1) as f32
                        } else {
                            acc + (v - ly as f32)
                        };
                    }
                    assert_eq!(out[i], acc, "{name} {local:?} ({x}, {y})");
                    let want = [i, ly * local[0] + lx, ly * 1000 + y / local[1]];
                    assert_eq!(
                        ids[3 * i..3 * i + 3],
                        want.map(|v| v as i32),
                        "{name} {local:?}"
                    );
                }
            }
        }
        let ir = work_group_ir(name);
        assert!(ir.contains("phi <"), "{name} not vectorized:\n{ir}");
        assert_eq!(ir.contains("%row.id"), together, "{name}:\n{ir}");
    }
}

const MIXED: &str = r#"
kernel void mixed(int n, global const float *a, global const int *idx, global float *out,
                  global int *iout) {
    int i = get_global_id(0);
    float acc = 0.0f;
    int h = i;
    for (int k = 0; k < n; k++) {
        int j = idx[(i + k) % n];
        float x = a[j];
        acc += (k & 1) ? x * 2.0f : fabs(x) - 1.0f;
        if (n > 8)
            acc = fmin(acc, 1000.0f);
        h = rotate(h * 31 + j, 5) ^ (int)popcount(h) ^ (int)clz(h + 1);
    }
    out[i] = acc + sqrt((float)i);
    iout[3 * i] = h;
    iout[3 * i + 1] = get_global_id(0);
    iout[3 * i + 2] = mul_hi(h, i) + hadd(h, -i);
}
"#;

#[test]
fn gathers_scatters_uniform_branches_and_integer_builtins_give_the_same_bits() {
    const N: usize = 96;
    let a: Vec<f32> = (0..N).map(|i| (i as f32 - 40.0) * 0.37).collect();
    let idx: Vec<i32> = (0..N).map(|i| ((i * 29 + 7) % N) as i32).collect();
    let args = [
        Arg::Int(N as i32),
        Arg::In(bytes(&a)),
        Arg::In(bytes(&idx)),
        Arg::Out(N * 4),
        Arg::Out(N * 12),
    ];
    let locals: [&[usize]; 3] = [&[1], &[32], &[96]];
    let runs = run_each(MIXED, "mixed", &args, &[N], &locals);
    assert_all_equal(&runs, &locals);
    let ids = ints(&runs[0][1]);
    assert!((0..N).all(|i| ids[3 * i + 1] == i as i32));
    let ir = work_group_ir("mixed");
    assert!(
        ir.contains("masked.gather"),
        "the indexed load is not a gather:\n{ir}"
    );
    assert!(
        ir.contains("masked.scatter"),
        "the strided store is not a scatter:\n{ir}"
    );
}

const ROWS: &str = r#"
kernel void rows(int w, global const float *in, global float *out) {
    int x = get_global_id(0), y = get_global_id(1);
    float acc = 0.0f;
    for (int k = 0; k < w; k += 3)
        acc = acc * 0.5f + in[y * w + k] - in[y * w + x] * (float)get_local_size(1);
    out[y * w + x] = acc + (float)(get_group_id(1) * get_local_size(1) + get_local_id(1));
}
"#;

#[test]
fn a_two_dimensional_kernel_gives_the_same_bits_vectorized_and_scalar() {
    const W: usize = 64;
    const H: usize = 6;
    let input: Vec<f32> = (0..W * H).map(|i| (i % 17) as f32 * 0.25).collect();
    let args = [
        Arg::Int(W as i32),
        Arg::In(bytes(&input)),
        Arg::Out(W * H * 4),
    ];
    // Local sizes differ in y, which the kernel reads: compare runs with
    // the same y size.
    let locals: [&[usize]; 3] = [&[1, 2], &[16, 2], &[64, 2]];
    let runs = run_each(ROWS, "rows", &args, &[W, H], &locals);
    assert_all_equal(&runs, &locals);
}

const DOUBLE_SIN: &str = r#"
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void dsin(int n, global const double *a, global double *out) {
    int i = get_global_id(0);
    double acc = 0.0;
    for (int k = 0; k < n; k++)
        acc += sin(a[i] + k) * 0.5;
    out[i] = acc;
}
"#;

#[test]
fn a_loop_calling_sin_in_double_gives_the_same_bits_through_the_vector_variant() {
    if !has_fp64() {
        return;
    }
    const N: usize = 64;
    let a: Vec<f64> = (0..N).map(|i| i as f64 * 0.731 - 9.0).collect();
    let args = [Arg::Int(12), Arg::In(bytes(&a)), Arg::Out(N * 8)];
    let locals: [&[usize]; 3] = [&[1], &[8], &[64]];
    let runs = run_each(DOUBLE_SIN, "dsin", &args, &[N], &locals);
    assert_all_equal(&runs, &locals);
    // Two registers of doubles at a time, through sin's variant of that
    // many lanes (inlined: its blocks keep its name).
    let ir = work_group_ir("dsin");
    let lanes = float_lanes().min(16);
    assert!(
        ir.contains(&format!("phi <{lanes} x double>")),
        "no accumulator of {lanes} lanes:\n{ir}"
    );
    assert!(
        ir.contains(&format!("_ZGV_LLVM_N{lanes}v__Z3sind.exit")),
        "sin's {lanes}-lane variant not called:\n{ir}"
    );
}

const ESCAPE: &str = r#"
kernel void escape(int max_iter, global const float *c, global const int *lim, global int *out,
                   global float *sum, global float *trace) {
    int i = get_global_id(0);
    float z = 0.0f, x = c[i];
    int n = 0, l = lim[i];
    while (n < max_iter && n < l && fabs(z) <= 2.0f) {
        z = z * z + x;
        sum[i] += z;
        trace[4 * i + (n & 3)] = z;
        n++;
    }
    out[i] = n;
}
"#;

#[test]
fn a_loop_work_items_leave_at_different_iterations_gives_the_same_bits() {
    const N: usize = 128;
    let c: Vec<f32> = (0..N).map(|i| -2.2 + i as f32 * 0.021).collect();
    let lim: Vec<i32> = (0..N).map(|i| (i * 7 % 50) as i32).collect();
    let args = [
        Arg::Int(40),
        Arg::In(bytes(&c)),
        Arg::In(bytes(&lim)),
        Arg::Out(N * 4),
        Arg::Out(N * 4),
        Arg::Out(N * 16),
    ];
    let locals: [&[usize]; 3] = [&[1], &[16], &[128]];
    let runs = run_each(ESCAPE, "escape", &args, &[N], &locals);
    assert_all_equal(&runs, &locals);
    // Work-items left the loop at many different iterations.
    let n = ints(&runs[0][0]);
    left_apart(&n, 10);
    // The loop ran for all lanes at once, under a mask.
    let ir = work_group_ir("escape");
    assert!(
        ir.contains("@llvm.vector.reduce.or"),
        "no test of any lane left:\n{ir}"
    );
    assert!(
        ir.contains("@llvm.masked.store"),
        "the store to sum is not masked:\n{ir}"
    );
    assert!(
        ir.contains("@llvm.masked.scatter"),
        "no masked scatter to trace:\n{ir}"
    );
}

/// Grid-stride loops: on `int` ids with `<`, on `size_t` ids with `<=`
/// from an offset, and one whose work-items also store as they go; each
/// item's result depends on the order of its iterations.
const GRID_STRIDE: &str = r#"
kernel void grid_int(int n, global const int *in, global int *out, global int *count) {
    int acc = 1, k = 0;
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
        acc = acc * 3 + in[i];
        k++;
    }
    out[get_global_id(0)] = acc;
    count[get_global_id(0)] = k;
}

kernel void grid_size_t(ulong last, global const int *in, global int *out, global int *count) {
    int acc = 7, k = 0;
    for (size_t i = get_global_id(0) + 3; i <= last; i += get_global_size(0)) {
        acc = acc * 5 - in[i];
        k++;
    }
    out[get_global_id(0)] = acc;
    count[get_global_id(0)] = k;
}

kernel void grid_two(int n, int m, global const int *in, global int *out) {
    int acc = 1;
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        acc = acc * 3 + in[i];
    for (int i = get_global_id(0) + 1; i < m; i += get_global_size(0))
        acc = acc * 5 - in[i];
    out[get_global_id(0)] = acc;
}

kernel void grid_store(int n, global int *io, global int *count) {
    int k = 0;
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
        io[i] = io[i] * 2 + k;
        k++;
    }
    count[get_global_id(0)] = k;
}
"#;

/// What `grid_int` (`grid_size_t` with `first` 3 and `<=`) gives each
/// work-item of `global`, and its count of iterations.
fn grid_on_host(
    input: &[i32],
    global: usize,
    first: usize,
    end: usize,
    seed: i32,
    step: impl Fn(i32, i32) -> i32,
) -> (Vec<i32>, Vec<i32>) {
    (0..global)
        .map(|g| {
            let (mut acc, mut k) = (seed, 0);
            let mut i = g + first;
            while i < end {
                acc = step(acc, input[i]);
                k += 1;
                i += global;
            }
            (acc, k)
        })
        .unzip()
}

#[test]
fn grid_stride_loops_give_the_host_results_where_items_leave_apart_or_together() {
    const GLOBAL: usize = 128;
    let input: Vec<i32> = (0..2048).map(|i| (i * 29 % 97) - 48).collect();
    let locals: [&[usize]; 4] = [&[1], &[8], &[64], &[128]];
    let mul3 = |acc: i32, x: i32| acc.wrapping_mul(3).wrapping_add(x);
    // A whole number of strides, a part of one, less than one, none.
    for n in [1024, 1000, 1957, 100, 0, -5] {
        let args = [
            Arg::Int(n),
            Arg::In(bytes(&input)),
            Arg::Out(GLOBAL * 4),
            Arg::Out(GLOBAL * 4),
        ];
        let runs = run_each(GRID_STRIDE, "grid_int", &args, &[GLOBAL], &locals);
        assert_all_equal(&runs, &locals);
        let (acc, k) = grid_on_host(&input, GLOBAL, 0, n.max(0) as usize, 1, mul3);
        assert_eq!(ints(&runs[0][0]), acc, "n = {n}");
        assert_eq!(ints(&runs[0][1]), k, "n = {n}");
    }
    let mul5 = |acc: i32, x: i32| acc.wrapping_mul(5).wrapping_sub(x);
    for last in [1026u64, 1000, 1957, 2, 0] {
        let args = [
            Arg::Long(last as i64),
            Arg::In(bytes(&input)),
            Arg::Out(GLOBAL * 4),
            Arg::Out(GLOBAL * 4),
        ];
        let runs = run_each(GRID_STRIDE, "grid_size_t", &args, &[GLOBAL], &locals);
        assert_all_equal(&runs, &locals);
        let (acc, k) = grid_on_host(&input, GLOBAL, 3, last as usize + 1, 7, mul5);
        assert_eq!(ints(&runs[0][0]), acc, "last = {last}");
        assert_eq!(ints(&runs[0][1]), k, "last = {last}");
    }
    // Two loops one after the other, each split.
    for (n, m) in [(1024, 1000), (1000, 2047), (50, 300)] {
        let args = [
            Arg::Int(n),
            Arg::Int(m),
            Arg::In(bytes(&input)),
            Arg::Out(GLOBAL * 4),
        ];
        let runs = run_each(GRID_STRIDE, "grid_two", &args, &[GLOBAL], &locals);
        assert_all_equal(&runs, &locals);
        let (first, _) = grid_on_host(&input, GLOBAL, 0, n as usize, 1, mul3);
        let want: Vec<i32> = (0..GLOBAL)
            .map(|g| {
                let mut acc = first[g];
                let mut i = g + 1;
                while i < m as usize {
                    acc = mul5(acc, input[i]);
                    i += GLOBAL;
                }
                acc
            })
            .collect();
        assert_eq!(ints(&runs[0][0]), want, "n = {n}, m = {m}");
    }
    // Each work-group function with a vector form (inlined) splits both
    // loops.
    let ir = work_group_ir("grid_two");
    let vectorized = ir
        .split("define void @__ferrocl_wg.")
        .skip(1)
        .filter(|f| f.contains("grid_two.v"));
    for f in vectorized {
        let tests = f
            .lines()
            .filter(|l| l.contains("%all.stay") && l.contains("= icmp"))
            .count();
        assert!(tests >= 2, "{f}");
    }
    for n in [1024, 1001] {
        let args = [Arg::Int(n), Arg::InOut(bytes(&input)), Arg::Out(GLOBAL * 4)];
        let runs = run_each(GRID_STRIDE, "grid_store", &args, &[GLOBAL], &locals);
        assert_all_equal(&runs, &locals);
        let mut want = input.clone();
        for g in 0..GLOBAL {
            let mut k = 0;
            let mut i = g;
            while i < n as usize {
                want[i] = want[i] * 2 + k;
                k += 1;
                i += GLOBAL;
            }
        }
        assert_eq!(ints(&runs[0][0]), want, "n = {n}");
    }
    // The vector forms run the loop first as a copy all their lanes stay
    // in, tested on the group's last work-item.
    for k in ["grid_int", "grid_size_t", "grid_store", "grid_two"] {
        let ir = work_group_ir(k);
        assert!(ir.contains("all.stay"), "{k} not split:\n{ir}");
    }
}

/// A loop left by its own test or by a `break` before its increment, work-items
/// leaving at different iterations by either.
const BREAK_LOOP: &str = r#"
kernel void break_loop(int n, global const float *a, global float *s_out, global int *j_out) {
    int i = get_global_id(0);
    float x = a[i % 256] - 0.3f;
    float s = 0.0f;
    int j;
    for (j = 0; j < n; j++) {
        s += x * (float)j;
        if (s > 20.0f || s < -5.0f)
            break;
    }
    s_out[i] = s;
    j_out[i] = j;
}
"#;

#[test]
fn a_loop_left_by_a_break_is_vectorized_and_gives_the_same_bits() {
    const N: usize = 120;
    let a = inputs();
    let args = [
        Arg::Int(40),
        Arg::In(bytes(&a)),
        Arg::Out(N * 4),
        Arg::Out(N * 4),
    ];
    let out = same_bits_at_every_local_size(BREAK_LOOP, "break_loop", &args);
    let j = ints(&out[1]);
    // Left by the break at many iterations, and by the loop's test.
    left_apart(&j, 10);
    assert!(j.contains(&40), "{j:?}");
    let ir = work_group_ir("break_loop");
    assert!(
        ir.contains("@llvm.vector.reduce.or"),
        "no test of any lane left:\n{ir}"
    );
}

/// Regions under a varying guard: an early return before a loop, and an
/// `if` around a loop work-items leave at different iterations.
const REGIONS: &str = r#"
kernel void regions(int n, global const float *a, global float *o, global int *cnt) {
    int i = get_global_id(0);
    if (i % 5 == 3)
        return;
    float s = 0.0f;
    for (int j = 0; j < n; j++)
        s += a[(i + j) & 255] * (float)j;
    o[i] = s;
    if (a[i & 255] > 0.4f) {
        int k = 0;
        while (k < i % 13) {
            o[i] += (float)k;
            k++;
        }
        cnt[i] = k;
    }
}
"#;

/// An if/else whose then part holds an if/else and whose else part is a
/// loop work-items leave at different iterations, in a loop.
const IF_ELSE_REGIONS: &str = r#"
kernel void if_else_regions(int n, global const float *a, global float *o, global int *cnt) {
    int i = get_global_id(0);
    float r = 0.0f;
    for (int t = 0; t < n; t++) {
        float x = a[(i * 3 + t) & 255] - 0.5f;
        if (x > 0.0f) {
            if ((i + t) % 3 == 0) {
                r += x * 3.0f;
                o[i] = r;
            } else {
                r -= 1.0f;
            }
        } else {
            int j = 0;
            while (j < (i + t) % 7) {
                r += x;
                o[i] -= x;
                j++;
            }
            cnt[i] += j;
        }
    }
    o[i] += r;
}
"#;

#[test]
fn an_if_else_of_regions_is_vectorized_and_gives_the_same_bits() {
    let out = masked_and_same_bits(IF_ELSE_REGIONS, "if_else_regions", 12, "else.test");
    left_apart(&ints(&out[1]), 10);
}

/// A `switch` work-items take different cases of, in a loop.
const SWITCH_CASES: &str = r#"
kernel void switch_cases(int n, global const float *a, global float *o, global int *cnt) {
    int i = get_global_id(0);
    float s = 0.0f;
    int c = 0;
    for (int j = 0; j < n; j++) {
        float x = a[(i * 5 + j * 3) & 255];
        switch ((int)(x * 16.0f) & 3) {
        case 0: s += x * 2.0f; c += 1; break;
        case 1: s += x + 1.0f; break;
        case 2: s -= sqrt(x); o[i] = s; c += 3; break;
        default: s = -s;
        }
    }
    o[i] += s;
    cnt[i] = c;
}
"#;

/// Cases that fall through, after a `default` in the middle.
const SWITCH_FALLTHROUGH: &str = r#"
kernel void switch_fallthrough(int n, global const float *a, global float *o, global int *cnt) {
    int i = get_global_id(0);
    int c = 0;
    for (int j = 0; j < n; j++) {
        switch ((i * j) % 5) {
        case 0: c += 1;
        default: c -= 1;
        case 1: c += 2; break;
        case 3: c ^= 5;
        }
    }
    o[i] = a[i & 255];
    cnt[i] = c;
}
"#;

/// Cases that fall through into a case with a guarded `break`, counting
/// in a private array.
const SWITCH_FALLTHROUGH_COUNTS: &str = r#"
kernel void switch_fallthrough_counts(int n, global const float *a, global float *o, global int *cnt) {
    int i = get_global_id(0);
    int h[4] = {0, 0, 0, 0};
    int c = 0;
    for (int j = 0; j < n; j++) {
        switch ((i + j * 3) % 6) {
        case 0: h[0]++;
        case 1: h[1] += 2; break;
        case 2: if (a[(i + j) & 255] > 0.5f) { h[2]++; break; }
        case 3: h[3] += 3;
        default: c++;
        }
    }
    cnt[i] = h[0] + 10 * h[1] + 100 * h[2] + 1000 * h[3] + 10000 * c;
    o[i] = c;
}
"#;

/// Loops left by `break`, `continue` and `goto` inside loops work-items
/// leave apart, with a private array indexed by what the lanes read.
const MIXED_CONTROL_FLOW: &str = r#"
kernel void mixed_control_flow(int n, global const float *a, global float *o, global int *cnt) {
    int i = get_global_id(0);
    float t[8];
    int c = 0;
    for (int j = 0; j < 8; j++)
        t[j] = a[(i * 5 + j) & 255];
    for (int j = 0; j < i % 9; j++) {
        int k = (int)(t[j & 7] * 8.0f) & 7;
        if (t[k] > 0.5f) { t[k] -= 0.25f; c++; }
        else if (j > 3) break;
    }
    float s = 0.0f;
    for (int j = 0; j < n; j++) {
        for (int k = 0; k < (i + j) % 4; k++) {
            if (a[(i + j + k) & 255] > 0.8f)
                continue;
            s += t[(k + j) & 7];
            c++;
            if (c > 20)
                break;
        }
        if (s > 10.0f)
            break;
    }
    for (int j = 0; j < i % 7; j++) {
        float x = a[(i + j * 11) & 255];
        int k = 0;
        while (x < 4.0f) {
            x = x * 1.7f + 0.1f;
            k++;
            if (k > (i % 5) + j)
                goto out;
        }
        s += x;
        c += 100 * k;
    }
out:
    o[i] = s;
    cnt[i] = c;
}
"#;

#[test]
fn mixed_control_flow_with_a_private_array_gives_the_same_bits() {
    let a = inputs();
    let args = [
        Arg::Int(6),
        Arg::In(bytes(&a)),
        Arg::Out(120 * 4),
        Arg::Out(120 * 4),
    ];
    let out = same_bits_at_every_local_size(MIXED_CONTROL_FLOW, "mixed_control_flow", &args);
    left_apart(&ints(&out[1]), 10);
    let ir = work_group_ir("mixed_control_flow");
    assert!(ir.contains("@llvm.masked.gather"), "not vectorized:\n{ir}");
}

#[test]
fn switches_work_items_take_apart_give_the_same_bits() {
    let out = masked_and_same_bits(SWITCH_CASES, "switch_cases", 14, "else.test");
    // Work-items took the cases different numbers of times.
    left_apart(&ints(&out[1]), 3);
    let a = inputs();
    let args = [
        Arg::Int(14),
        Arg::In(bytes(&a)),
        Arg::Out(120 * 4),
        Arg::Out(120 * 4),
    ];
    let counts = same_bits_at_every_local_size(
        SWITCH_FALLTHROUGH_COUNTS,
        "switch_fallthrough_counts",
        &args,
    );
    left_apart(&ints(&counts[1]), 3);
    let out = same_bits_at_every_local_size(SWITCH_FALLTHROUGH, "switch_fallthrough", &args);
    left_apart(&ints(&out[1]), 3);
    // The cases that fall through are copied into the arms that reach
    // them, each run for its lanes.
    let ir = work_group_ir("switch_fallthrough");
    assert!(
        ir.contains(".arm") && ir.contains("else.test") && ir.contains("phi <"),
        "not vectorized:\n{ir}"
    );
}

/// Loops left from several places: a `break` with stores after it, a
/// `while (1)` left by two tests, and a `return` from inside a loop.
const LOOP_EXITS: &str = r#"
kernel void loop_exits(int n, global const float *a, global float *o, global int *cnt) {
    int i = get_global_id(0);
    float s = 0.0f;
    int j;
    for (j = 0; j < n; j++) {
        float x = a[(i * 3 + j) & 255];
        if (x > 0.9f)
            break;
        s += x;
        o[i] = s;
    }
    float y = a[i & 255] * 40.0f;
    int k = 0;
    while (1) {
        y = y * 0.5f + 1.0f;
        k++;
        if (y < 2.5f)
            break;
        if (k > i % 9)
            break;
    }
    cnt[i] = j * 100 + k;
    for (int m = 0; m < n; m++) {
        if (a[(i + m * 7) & 255] < 0.05f)
            return;
        o[i] += y;
    }
}
"#;

#[test]
fn loops_left_from_several_places_are_vectorized_and_give_the_same_bits() {
    let out = masked_and_same_bits(LOOP_EXITS, "loop_exits", 30, "@llvm.vector.reduce.or");
    left_apart(&ints(&out[1]), 10);
}

/// Loops that leave to different places: a `goto` past the code after
/// the loop's own test, and a `return` after stores from inside a loop.
const LOOP_TARGETS: &str = r#"
kernel void loop_targets(int n, global const float *a, global float *o, global int *cnt) {
    int i = get_global_id(0);
    float x = a[i & 255];
    int j;
    for (j = 0; j < n; j++) {
        if (x > (float)(i % 40))
            goto big;
        x = x * 1.5f + a[(i + j) & 255];
    }
    o[i] = x;
    cnt[i] = -j;
    goto second;
big:
    o[i] = -x * j;
    cnt[i] = j;
second:
    for (int m = 0; m < n; m++) {
        float y = a[(i * 5 + m) & 255];
        if (y > 0.95f) {
            o[i] += y * m;
            cnt[i] += 1000 * m;
            return;
        }
        o[i] += y;
    }
    cnt[i] += 7;
}
"#;

#[test]
fn loops_leaving_to_different_places_are_vectorized_and_give_the_same_bits() {
    let out = masked_and_same_bits(LOOP_TARGETS, "loop_targets", 8, "@llvm.vector.reduce.or");
    let cnt = ints(&out[1]);
    left_apart(&cnt, 10);
    // Each pair of ways out was taken: the first loop's count is -8 where
    // it ran to its end, 0..8 where it left; the second adds 7 where it
    // ran to its end, 1000 times its count where it returned.
    let took = |ways: std::ops::Range<i32>| cnt.iter().any(|c| ways.contains(c));
    assert!(took(-1..0), "both loops to their ends: {cnt:?}");
    assert!(
        took(7..15),
        "the first left, the second to its end: {cnt:?}"
    );
    assert!(
        took(992..1000),
        "the first to its end, the second left: {cnt:?}"
    );
    assert!(took(1000..8000), "both left: {cnt:?}");
}

/// Loops inside loops work-items leave apart: one whose count differs too,
/// one of a uniform count in a loop left by a `break`, and one run before
/// the test of a `do`/`while` around it.
const NESTED_LOOPS: &str = r#"
kernel void nested_loops(int n, global const float *a, global float *o, global int *cnt) {
    int i = get_global_id(0);
    float s = 0.0f;
    int c = 0;
    for (int j = 0; j < (i * 7) % 5; j++) {
        int m = (i + j * 3) % 4;
        for (int k = 0; k < m; k++) {
            s += a[(i * 13 + j * 5 + k) & 255];
            c++;
        }
        o[i] = s;
    }
    for (int j = 0; j < i % 6; j++) {
        for (int k = 0; k < n; k++) {
            s += a[(i * 3 + j * 7 + k) & 255] * k;
            c += 10;
        }
        if (s > 9.0f)
            break;
    }
    int j = 0;
    do {
        for (int k = 0; k <= j; k++)
            s -= a[(i + k) & 255];
        c += 100;
        j++;
    } while (s > 0.0f && j < i % 7);
    o[i] += s;
    cnt[i] = c;
}
"#;

#[test]
fn loops_inside_divergent_loops_are_vectorized_and_give_the_same_bits() {
    let out = masked_and_same_bits(NESTED_LOOPS, "nested_loops", 6, "@llvm.vector.reduce.or");
    left_apart(&ints(&out[1]), 20);
}

#[test]
fn regions_under_a_varying_guard_are_vectorized_and_give_the_same_bits() {
    let out = masked_and_same_bits(REGIONS, "regions", 9, "@llvm.vector.reduce.or");
    let k = ints(&out[1]);
    // Work-items left the inner loop at many counts; the others kept the
    // buffer's bytes.
    left_apart(&k, 10);
    assert!(k.contains(&i32::from_ne_bytes([0xa5; 4])), "{k:?}");
}

/// An if/else whose arms both store, in a loop and in a loop work-items
/// leave at different iterations: each arm runs for its own lanes.
const IF_ELSE: &str = r#"
kernel void if_else(int n, global const float *a, global float *b, global float *c,
                    global int *out) {
    int i = get_global_id(0);
    float s = 0.0f;
    for (int j = 0; j < n; j++) {
        float x = a[(i * 7 + j) % 256];
        if (x > 0.5f) {
            s += sqrt(x) * 3.0f;
            b[i] = s;
        } else {
            s -= x * x;
            c[i] = s * 2.0f;
        }
    }
    int k = 0, m = i % 37;
    while (k < m) {
        if ((k ^ i) & 1) {
            c[i] += (float)k;
            k += 2;
        } else {
            b[i] -= (float)k;
            k += 3;
        }
    }
    out[i] = k + (s > 0.0f ? 1000 : 0);
}
"#;

#[test]
fn an_if_else_runs_each_arm_for_its_lanes_and_gives_the_same_bits() {
    const N: usize = 120;
    let a: Vec<f32> = (0..256).map(|i| ((i * 37) % 101) as f32 / 100.0).collect();
    let args = [
        Arg::Int(24),
        Arg::In(bytes(&a)),
        Arg::Out(N * 4),
        Arg::Out(N * 4),
        Arg::Out(N * 4),
    ];
    let locals: [&[usize]; 4] = [&[1], &[24], &[40], &[120]];
    let runs = run_each(IF_ELSE, "if_else", &args, &[N], &locals);
    assert_all_equal(&runs, &locals);
    let k = ints(&runs[0][2]);
    left_apart(&k.iter().map(|k| k % 1000).collect::<Vec<_>>(), 10);
    // The kernel was vectorized: both arms' stores are masked.
    let ir = work_group_ir("if_else");
    assert!(
        ir.contains("@llvm.masked.store"),
        "no masked store in an arm:\n{ir}"
    );
    assert!(ir.contains("%arms"), "no choice between arms:\n{ir}");
}

#[test]
fn a_streaming_copy_stores_whole_vectors_past_the_cache() {
    let e = Env::new();
    let cache = ok(
        device_info(device(), CL_DEVICE_GLOBAL_MEM_CACHE_SIZE),
        "cache size",
    )
    .u64() as usize;
    // Larger than the cache, so the stores stream.
    let n = (2 * cache / 4).next_multiple_of(1 << 16);
    let src = "kernel void stream_copy(global const float *a, global float *b) {\n\
               size_t i = get_global_id(0); b[i] = a[i] * 2.0f; }";
    let (_p, k) = e.kernel(src, "stream_copy");
    let a: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    let (ma, mb) = (e.buffer_from(&a), e.buffer(n * 4));
    ok(set_mem(k.get(), 0, &ma), "a");
    ok(set_mem(k.get(), 1, &mb), "b");
    e.run(&k, &[n], Some(&[256]));
    let b = e.read::<f32>(&mb, 0, n);
    assert!((0..n).all(|i| b[i] == a[i] * 2.0), "wrong copy");
    let ir = work_group_ir("stream_copy");
    let vector_stream = ir.lines().any(|l| {
        l.contains(&format!("store <{} x float>", 4 * float_lanes())) && l.contains("!nontemporal")
    });
    assert!(vector_stream, "no streaming store of whole vectors:\n{ir}");
}

/// Which stores bypass the cache: those to a buffer of at least half the
/// cache, where the kernel's buffers together exceed it (a transpose of a
/// matrix the size of the cache streams its output; an output that fits
/// beside a large input, or a kernel whose buffers all fit, stays cached).
#[test]
fn stores_stream_past_the_cache_where_the_buffers_exceed_it() {
    let e = Env::new();
    let cache = ok(
        device_info(device(), CL_DEVICE_GLOBAL_MEM_CACHE_SIZE),
        "cache size",
    )
    .u64() as usize;
    // (kernel, bytes read, bytes written, streams)
    let cases = [
        ("stream_half", cache / 2 + (1 << 16), cache / 2, true),
        ("stream_small_out", 2 * cache, cache / 4, false),
        ("stream_fits", cache / 2, cache / 2, false),
    ];
    for (name, in_bytes, out_bytes, streams) in cases {
        let src = format!(
            "kernel void {name}(global const float *a, global float *b, uint n) {{\n\
             size_t i = get_global_id(0); b[i] = a[i % n] * 2.0f; }}"
        );
        let (_p, k) = e.kernel(&src, name);
        let (n_in, n_out) = (in_bytes / 4, out_bytes / 4);
        let a: Vec<f32> = (0..n_in).map(|i| (i % 1000) as f32).collect();
        let (ma, mb) = (e.buffer_from(&a), e.buffer(out_bytes));
        ok(set_mem(k.get(), 0, &ma), "a");
        ok(set_mem(k.get(), 1, &mb), "b");
        ok(set_arg(k.get(), 2, &(n_in as u32)), "n");
        e.run(&k, &[n_out], Some(&[256]));
        let b = e.read::<f32>(&mb, 0, n_out);
        assert!(
            (0..n_out).all(|i| b[i] == a[i % n_in] * 2.0),
            "{name}: wrong copy"
        );
        let ir = work_group_ir(name);
        assert_eq!(ir.contains("!nontemporal"), streams, "{name}:\n{ir}");
    }
}

/// A kernel compiled for buffers that fit the cache, then launched on ones
/// past it: the launches run the work-group function it has while the one
/// whose stores stream is compiled on a thread of its own, and take that
/// one once it is done; every launch computes the same.
#[test]
fn a_launch_past_the_cache_runs_the_compiled_form_while_the_streaming_one_compiles() {
    let e = Env::new();
    let cache = ok(
        device_info(device(), CL_DEVICE_GLOBAL_MEM_CACHE_SIZE),
        "cache size",
    )
    .u64() as usize;
    let src = "kernel void stream_later(global const float *a, global float *b) {\n\
               size_t i = get_global_id(0); b[i] = a[i] + 1.0f; }";
    let (_p, k) = e.kernel(src, "stream_later");
    let run = |n: usize| {
        let a: Vec<f32> = (0..n).map(|i| (i % 977) as f32).collect();
        let (ma, mb) = (e.buffer_from(&a), e.buffer(n * 4));
        ok(set_mem(k.get(), 0, &ma), "a");
        ok(set_mem(k.get(), 1, &mb), "b");
        e.run(&k, &[n], Some(&[256]));
        let b = e.read::<f32>(&mb, 0, n);
        assert!((0..n).all(|i| b[i] == a[i] + 1.0), "wrong sums over {n}");
    };
    run(1 << 12);
    assert!(!work_group_ir("stream_later").contains("!nontemporal"));
    let past = (2 * cache / 4).next_multiple_of(1 << 16);
    let mut streams = false;
    for _ in 0..300 {
        run(past);
        streams = work_group_ir("stream_later").contains("!nontemporal");
        if streams {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(streams, "the streaming form was never compiled");
    run(past);
}

/// Set in the child process of the test below.
const EXIT_CHILD: &str = "FERROCL_TEST_EXIT_WHILE_COMPILING";

/// A process that ends right after a launch whose streaming form is still
/// compiling on a thread of its own ends cleanly: its exit waits for the
/// compilation, which LLVM's state, torn down at exit, is still under.
#[test]
fn a_process_ends_cleanly_while_a_streaming_form_compiles() {
    let test = "a_process_ends_cleanly_while_a_streaming_form_compiles";
    if std::env::var_os(EXIT_CHILD).is_none() {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([test, "--exact", "--test-threads=1"])
            .env(EXIT_CHILD, "1")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{:?}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    }
    let e = Env::new();
    let cache = ok(
        device_info(device(), CL_DEVICE_GLOBAL_MEM_CACHE_SIZE),
        "cache size",
    )
    .u64() as usize;
    let src = "kernel void stream_exit(global const float *a, global float *b) {\n\
               size_t i = get_global_id(0); b[i] = a[i] * 3.0f; }";
    let (_p, k) = e.kernel(src, "stream_exit");
    for n in [1 << 12, (2 * cache / 4).next_multiple_of(1 << 16)] {
        let a: Vec<f32> = (0..n).map(|i| (i % 513) as f32).collect();
        let (ma, mb) = (e.buffer_from(&a), e.buffer(n * 4));
        ok(set_mem(k.get(), 0, &ma), "a");
        ok(set_mem(k.get(), 1, &mb), "b");
        e.run(&k, &[n], Some(&[256]));
        let b = e.read::<f32>(&mb, 0, n);
        assert!(
            (0..n).all(|i| b[i] == a[i] * 3.0),
            "wrong products over {n}"
        );
    }
}

const PACKETS: &str = r#"
kernel void packets(int n, global const float8 *a, global const uchar4 *px,
                    global const float3 *p3, global const int *perm, global float8 *out,
                    global uchar4 *opx, global float4 *o4, global float2 *scat) {
    int i = get_global_id(0);
    float8 x = a[i];
    float8 acc = x * 0.5f + a[perm[i]];
    for (int k = 0; k < n; k++) {
        acc = acc * 0.99f + x.s76543210 * (float)k;
        acc.s3 += (float)(i & 3);
        if (n > 4)
            acc = fmin(acc, (float8)(100.0f));
    }
    out[i] = (i & 1) ? acc : acc.s01234567 * 2.0f;
    float4 f = convert_float4(px[i]) * (float4)(1.5f, 0.75f, 2.0f, 1.25f) - 20.0f;
    opx[i] = convert_uchar4_sat(f);
    float3 q = p3[i];
    o4[i] = (float4)(q.zyx, dot(q, q)) +
            select((float4)(0.0f), (float4)(1.0f), isgreater(f, (float4)(100.0f)));
    scat[perm[i]] = (float2)(acc.s0, q.y);
}
"#;

#[test]
fn vector_types_give_the_same_bits_vectorized_and_scalar() {
    const N: usize = 96;
    let a: Vec<f32> = (0..N * 8)
        .map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0)
        .collect();
    let px: Vec<u8> = (0..N * 4).map(|i| (i * 61 % 256) as u8).collect();
    let p3: Vec<f32> = (0..N * 4).map(|i| (i % 23) as f32 * 0.375 - 3.0).collect();
    let perm: Vec<i32> = (0..N).map(|i| ((i * 29 + 7) % N) as i32).collect();
    let args = [
        Arg::Int(9),
        Arg::In(bytes(&a)),
        Arg::In(bytes(&px)),
        Arg::In(bytes(&p3)),
        Arg::In(bytes(&perm)),
        Arg::Out(N * 32),
        Arg::Out(N * 4),
        Arg::Out(N * 16),
        Arg::Out(N * 8),
    ];
    // Eight float8 work-items at once (four registers); 12 leaves four
    // to the scalar kernel.
    let locals: [&[usize]; 4] = [&[1], &[8], &[12], &[96]];
    let runs = run_each(PACKETS, "packets", &args, &[N], &locals);
    assert_all_equal(&runs, &locals);
    // The pixels are the saturated products, the float3s reversed.
    // Rounded toward zero and saturated, as `as` does.
    let sat = |v: f32| v as u8;
    let scale = [1.5f32, 0.75, 2.0, 1.25];
    for (i, &p) in runs[0][1].iter().enumerate() {
        assert_eq!(p, sat(px[i] as f32 * scale[i % 4] - 20.0), "pixel byte {i}");
    }
    let o4 = floats(&runs[0][2]);
    assert!((0..N).all(|i| o4[4 * i] >= p3[4 * i + 2] && o4[4 * i + 1] >= p3[4 * i + 1]));
    let ir = work_group_ir("packets");
    assert!(
        ir.contains(&format!("load <{} x float>", 4 * float_lanes())),
        "no contiguous float8 load:\n{ir}"
    );
    assert!(
        ir.contains(&format!("phi <{} x float>", 64 * float_lanes() / 16)),
        "no float8 accumulator of 8 lanes:\n{ir}"
    );
    assert!(
        ir.contains(&format!("load <{} x i8>", 32 * float_lanes() / 16)),
        "no contiguous uchar4 load:\n{ir}"
    );
    assert!(
        ir.contains(&format!("masked.gather.v{}f32", 64 * float_lanes() / 16)),
        "a[perm[i]] is not a gather:\n{ir}"
    );
    assert!(
        ir.contains(&format!("masked.scatter.v{}f32", 16 * float_lanes() / 16)),
        "scat[perm[i]] is not a scatter:\n{ir}"
    );
}

const ESCAPE2: &str = r#"
kernel void escape2(int max_iter, global const float2 *c, global int *out, global float2 *zs) {
    int i = get_global_id(0);
    float2 z = (float2)(0.0f), cc = c[i];
    int n = 0;
    while (dot(z, z) <= 4.0f && n < max_iter) {
        z = (float2)(z.x * z.x - z.y * z.y, 2.0f * z.x * z.y) + cc;
        n++;
    }
    out[i] = n;
    zs[i] = z;
}
"#;

#[test]
fn a_vector_carried_by_a_loop_work_items_leave_apart_gives_the_same_bits() {
    const N: usize = 96;
    let c: Vec<f32> = (0..N)
        .flat_map(|i| [-2.1 + (i % 12) as f32 * 0.22, -1.2 + (i / 12) as f32 * 0.3])
        .collect();
    let args = [
        Arg::Int(60),
        Arg::In(bytes(&c)),
        Arg::Out(N * 4),
        Arg::Out(N * 8),
    ];
    // float2: 32 work-items at once; 48 leaves 16 to the scalar kernel.
    let locals: [&[usize]; 3] = [&[1], &[32], &[48]];
    let runs = run_each(ESCAPE2, "escape2", &args, &[N], &locals);
    assert_all_equal(&runs, &locals);
    let n = ints(&runs[0][0]);
    left_apart(&n, 5);
    let ir = work_group_ir("escape2");
    assert!(
        ir.contains(&format!("phi <{} x float>", 4 * float_lanes())),
        "z is not 32 lanes of float2:\n{ir}"
    );
    assert!(
        ir.contains("@llvm.vector.reduce.or"),
        "no test of any lane left:\n{ir}"
    );
}

const CLAMPED: &str = r#"
kernel void clamped(int w, global const float *in, global float *out, global float *rot) {
    int x = get_global_id(0);
    float acc = 0.0f;
    for (int d = -3; d <= 3; d++)
        acc = acc * 0.5f + in[clamp(x + d, 0, w - 1)];
    out[x] = acc;
    rot[(x + 5) % w] = acc;
}
"#;

#[test]
fn computed_indices_that_turn_out_consecutive_give_the_same_bits() {
    const W: usize = 200;
    let input: Vec<f32> = (0..W).map(|i| (i * 37 % 101) as f32 - 50.0).collect();
    let args = [
        Arg::Int(W as i32),
        Arg::In(bytes(&input)),
        Arg::Out(W * 4),
        Arg::Out(W * 4),
    ];
    // Runs of 64 and 32 work-items, some across an edge of the clamp or
    // of the wrap (a gather or scatter there), most inside (one load or
    // store), and a scalar rest.
    let locals: [&[usize]; 4] = [&[1], &[8], &[40], &[200]];
    let runs = run_each(CLAMPED, "clamped", &args, &[W], &locals);
    assert_all_equal(&runs, &locals);
    let out = floats(&runs[0][0]);
    for x in 0..W {
        let want = (-3i32..=3).fold(0.0f32, |acc, d| {
            acc * 0.5 + input[(x as i32 + d).clamp(0, W as i32 - 1) as usize]
        });
        assert_eq!(out[x], want, "out[{x}]");
    }
    // rot[x + 5] = out[x]
    assert_eq!(runs[0][1][5 * 4..], runs[0][0][..(W - 5) * 4]);
    let ir = work_group_ir("clamped");
    assert!(
        ir.contains("@llvm.vector.reduce.and"),
        "no test of consecutive lanes:\n{ir}"
    );
    assert!(
        ir.contains("masked.gather") && ir.contains("masked.scatter"),
        "{ir}"
    );
}

/// Four sums per work-item in a private array: indexed by the counter of
/// a loop of four iterations in `private_unrolled`, by a value known only
/// at run time in `private_indexed`.
const PRIVATE: &str = r#"
kernel void private_unrolled(int n, global const float *in, global float *out) {
    int x = get_global_id(0), w = get_global_size(0);
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k = 0; k < n; k++) {
        float v = in[k * w + x];
        #pragma unroll
        for (int r = 0; r < 4; r++)
            acc[r] = acc[r] * 0.5f + v * (float)(r + 1);
    }
    #pragma unroll
    for (int r = 0; r < 4; r++)
        out[4 * x + r] = acc[r];
}

kernel void private_indexed(int n, global const float *in, global float *out) {
    int x = get_global_id(0), w = get_global_size(0);
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k = 0; k < n; k++) {
        float v = in[k * w + x];
        acc[(x + k) % 4] = acc[(x + k) % 4] * 0.5f + v;
    }
    for (int r = 0; r < 4; r++)
        out[4 * x + r] = acc[r];
}

kernel void private_window(int n, global const float *in, global float *out) {
    int x = get_global_id(0), w = get_global_size(0);
    float win[16];
    for (int k = 0; k < n; k++)
        win[k] = in[k * w + x];
    float s = 0.0f;
    for (int k = 0; k < n; k++)
        s += win[(k + x) % n] * win[k];
    for (int r = 0; r < 4; r++)
        out[4 * x + r] = s + win[r];
}
"#;

#[test]
fn private_arrays_give_the_same_bits_and_unrolled_ones_vectorize() {
    const W: usize = 96;
    const N: usize = 9;
    let input: Vec<f32> = (0..W * N)
        .map(|i| (i * 29 % 67) as f32 * 0.125 - 4.0)
        .collect();
    for name in ["private_unrolled", "private_indexed", "private_window"] {
        let args = [Arg::Int(N as i32), Arg::In(bytes(&input)), Arg::Out(W * 16)];
        let locals: [&[usize]; 3] = [&[1], &[32], &[96]];
        let runs = run_each(PRIVATE, name, &args, &[W], &locals);
        assert_all_equal(&runs, &locals);
        let out = floats(&runs[0][0]);
        for x in 0..W {
            let mut acc = [0.0f32; 4];
            for k in 0..N {
                let v = input[k * W + x];
                if name == "private_unrolled" {
                    for (r, a) in acc.iter_mut().enumerate() {
                        *a = *a * 0.5 + v * (r + 1) as f32;
                    }
                } else {
                    let r = (x + k) % 4;
                    acc[r] = acc[r] * 0.5 + v;
                }
            }
            if name == "private_window" {
                let win: Vec<f32> = (0..N).map(|k| input[k * W + x]).collect();
                let s = (0..N).fold(0.0f32, |s, k| win[(k + x) % N].mul_add(win[k], s));
                let want: Vec<f32> = (0..4).map(|r| s + win[r]).collect();
                assert_eq!(out[4 * x..4 * x + 4], want[..], "{name} out[{x}]");
                continue;
            }
            assert_eq!(out[4 * x..4 * x + 4], acc, "{name} out[{x}]");
        }
    }
    // Arrays indexed at run time are kept per lane: read and written
    // with gathers and scatters where the index differs between lanes,
    // whole vectors where it does not.
    for name in ["private_indexed", "private_window"] {
        let ir = work_group_ir(name);
        assert!(
            ir.contains("@llvm.masked.gather") && ir.contains("@llvm.masked.scatter"),
            "{name} not vectorized:\n{ir}"
        );
    }
    let window = work_group_ir("private_window");
    assert!(window.contains("store <"), "{window}");
    // The unrolled array is four values, vectorized across work-items.
    let ir = work_group_ir("private_unrolled");
    // (As wide as four accumulators a work-item leave registers for.)
    assert!(
        ir.lines()
            .any(|l| l.contains("= phi <") && l.contains(" x float>")),
        "not vectorized:\n{ir}"
    );
}

const IMAGE_BLUR: &str = r#"
constant sampler_t image_blur_sampler =
    CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;

kernel void image_blur(read_only image2d_t img, global float4 *out, int taps) {
    int x = get_global_id(0), y = get_global_id(1);
    float4 acc = 0.0f;
    for (int t = -taps; t <= taps; t++)
        acc += read_imagef(img, image_blur_sampler, (float2)(x + t + 0.5f, y + 0.25f));
    out[y * get_global_size(0) + x] = acc;
}
"#;

#[test]
fn a_loop_of_image_reads_with_a_constant_sampler_is_vector_code_with_gathers() {
    let e = Env::new();
    let (w, h) = (48usize, 4usize);
    let texels: Vec<u8> = (0..w * h * 4).map(|i| (i * 29 % 251) as u8).collect();
    let img = ok(
        e.try_image(
            CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
            &image_format(CL_RGBA, CL_UNORM_INT8),
            &image_desc(CL_MEM_OBJECT_IMAGE2D, w, h, 0, 0),
            texels.as_ptr() as *mut _,
        ),
        "image",
    );
    let (_p, k) = e.kernel(IMAGE_BLUR, "image_blur");
    ok(set_arg(k.get(), 0, &img.get()), "image");
    ok(set_arg(k.get(), 2, &3i32), "taps");
    let locals: [&[usize]; 3] = [&[1, 1], &[16, 1], &[24, 2]];
    let runs: Vec<Vec<f32>> = locals
        .iter()
        .map(|local| {
            let out = e.buffer(w * h * 16);
            ok(set_mem(k.get(), 1, &out), "out");
            e.run(&k, &[w, h], Some(local));
            e.read::<f32>(&out, 0, w * h * 4)
        })
        .collect();
    for (r, local) in runs.iter().zip(&locals).skip(1) {
        assert!(
            r == &runs[0],
            "local size {local:?} differs from one work-item's"
        );
    }
    // Seven bilinear taps of 0..1 channels, away from the edges: the sum of
    // the texels' weights.
    assert!(runs[0].iter().all(|&v| (0.0..=7.0).contains(&v)));
    let ir = work_group_ir("image_blur");
    // The format is known, so the texel is read by a gather of the
    // vector form's lanes, and no branch on the format is left.
    assert!(
        ir.contains("llvm.masked.gather.v16i32") || ir.contains("llvm.masked.gather.v8i32"),
        "no gather"
    );
    assert!(!ir.contains("switch i32"), "a branch on the format is left");
}

const BARRIER_REGIONS: &str = r#"
kernel void local_scan(global const int *in, global int *out) {
    local int buf[2][128];
    int lid = get_local_id(0), n = get_local_size(0);
    int src = 0;
    buf[0][lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int offset = 1; offset < n; offset <<= 1) {
        int v = buf[src][lid];
        if (lid >= offset)
            v += buf[src][lid - offset];
        buf[1 - src][lid] = v;
        src = 1 - src;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    /* Reversed within the group: lanes read apart. */
    out[get_global_id(0)] = buf[src][n - 1 - lid] * 3 + lid;
}

/* The group's values summed in a tree, a barrier a level (in a function:
   its barriers are the kernel's); one work-item stores the sum. */
void tree_to_partial(local int *scratch, int value, global int *partial) {
    int lid = get_local_id(0);
    scratch[lid] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}

kernel void tree_sums(global const int *in, global int *partial) {
    local int scratch[128];
    tree_to_partial(scratch, in[get_global_id(0)], partial);
}

kernel void grid_sums(int n, global const int *in, global int *partial) {
    local int scratch[128];
    int sum = 0;
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        sum += in[i];
    tree_to_partial(scratch, sum, partial);
}

kernel void tiled_sums(int n, global const float *x, global float *out) {
    local float tile[128];
    int lid = get_local_id(0), ls = get_local_size(0), gid = get_global_id(0);
    float acc = 0.0f;
    for (int base = 0; base < n; base += ls) {
        tile[lid] = x[base + lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < ls; j++)
            acc += tile[j] * (float)(gid % 7 + 1);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[gid] = acc;
}
"#;

#[test]
fn barrier_regions_give_the_same_bits_vectorized_and_scalar() {
    const N: usize = 480;
    let ins: Vec<i32> = (0..N as i32).map(|i| (i * 37) % 101 - 50).collect();
    let xs: Vec<f32> = (0..N).map(|i| 0.25 + (i % 13) as f32 * 0.125).collect();
    // One work-item (scalar), a vector's worth and one with a remainder.
    let locals: [&[usize]; 3] = [&[1], &[16], &[40]];
    let scans = run_each(
        BARRIER_REGIONS,
        "local_scan",
        &[Arg::In(bytes(&ins)), Arg::Out(N * 4)],
        &[N],
        &locals,
    );
    // Each group's inclusive prefix sums, read back reversed.
    for (run, local) in scans.iter().zip(&locals) {
        let ls = local[0];
        let got = ints(&run[0]);
        for (g, group) in ins.chunks(ls).enumerate() {
            let mut sums = Vec::new();
            let mut s = 0;
            for &v in group {
                s += v;
                sums.push(s);
            }
            for lid in 0..ls {
                let want = sums[ls - 1 - lid] * 3 + lid as i32;
                assert_eq!(
                    got[g * ls + lid],
                    want,
                    "local size {ls}, item {}",
                    g * ls + lid
                );
            }
        }
    }
    let sums = run_each(
        BARRIER_REGIONS,
        "tiled_sums",
        &[Arg::Int(N as i32), Arg::In(bytes(&xs)), Arg::Out(N * 4)],
        &[N],
        &locals,
    );
    assert_all_equal(&sums, &locals);
    let total: f32 = xs.iter().sum();
    let got = floats(&sums[0][0]);
    assert!(
        (got[1] - 2.0 * total).abs() <= 1e-3 * total,
        "{} vs {}",
        got[1],
        2.0 * total
    );
    let trees = run_each(
        BARRIER_REGIONS,
        "tree_sums",
        &[Arg::In(bytes(&ins)), Arg::Out(N * 4)],
        &[N],
        &[&[16], &[32]],
    );
    for (run, ls) in trees.iter().zip([16, 32]) {
        let got = ints(&run[0]);
        for (g, group) in ins.chunks(ls).enumerate() {
            assert_eq!(
                got[g],
                group.iter().sum::<i32>(),
                "local size {ls}, group {g}"
            );
        }
    }
    // A grid of 2 groups strides over all N elements, some work-items
    // going round once more than others.
    let grids = run_each(
        BARRIER_REGIONS,
        "grid_sums",
        &[Arg::Int(N as i32 - 5), Arg::In(bytes(&ins)), Arg::Out(8)],
        &[64],
        &[&[32]],
    );
    let got = ints(&grids[0][0]);
    for g in 0..2 {
        let want: i32 = (0..N - 5)
            .filter(|i| i % 64 / 32 == g)
            .map(|i| ins[i])
            .sum();
        assert_eq!(got[g], want, "group {g}");
    }
    // Its loop reads one vector of consecutive elements a time.
    let ir = work_group_ir("grid_sums");
    assert!(!ir.contains("masked.gather"), "{ir}");
    // Each ran region by region as vector code.
    for k in ["local_scan", "tiled_sums", "tree_sums", "grid_sums"] {
        let ir = work_group_ir(k);
        assert!(
            ir.contains(".regions.v"),
            "{k} has no vector regions:\n{ir}"
        );
    }
}

const LOCAL_ID_COMPARES: &str = r#"
kernel void local_id_compares(global const long *values, int count, global uint *out) {
    local uint seen[64];
    size_t lid = get_local_id(0);
    int ilid = get_local_id(0);
    seen[lid] = 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < count; k++) {
        long v = values[k];
        ulong uv = (ulong)v;
        int iv = (int)v;
        uint b = (lid < uv) | (lid <= uv) << 1 | (lid > uv) << 2 | (lid >= uv) << 3
               | (lid == uv) << 4 | (lid != uv) << 5 | (ilid < iv) << 6 | (ilid <= iv) << 7
               | (iv < ilid) << 8 | (iv >= ilid) << 9 | ((long)lid < v) << 10
               | (uv > lid) << 11 | ((long)lid >= v) << 12 | ((uint)ilid < (uint)iv) << 13;
        out[get_global_id(0) * count + k] = b + seen[lid];
    }
}
"#;

/// What `local_id_compares` stores for local id `lid` and value `v`.
fn local_id_compare_bits(lid: u64, v: i64) -> u32 {
    let uv = v as u64;
    let (il, iv) = (lid as i32, v as i32);
    let bits = [
        lid < uv,
        lid <= uv,
        lid > uv,
        lid >= uv,
        lid == uv,
        lid != uv,
        il < iv,
        il <= iv,
        iv < il,
        iv >= il,
        (lid as i64) < v,
        uv > lid,
        (lid as i64) >= v,
        (il as u32) < (iv as u32),
    ];
    bits.iter()
        .enumerate()
        .map(|(k, &b)| (b as u32) << k)
        .sum::<u32>()
        + 1
}

#[test]
fn local_ids_compared_with_uniform_values_give_the_host_results() {
    // Lane numbers against the clamped difference: values below, inside
    // and past a run of lanes, and the extremes of each type.
    let values: Vec<i64> = vec![
        -5,
        -1,
        0,
        1,
        3,
        7,
        8,
        9,
        15,
        16,
        17,
        31,
        39,
        40,
        41,
        63,
        1000,
        i64::MAX,
        i64::MIN,
        1 << 32,
        (1 << 32) + 3,
        0x8000_0000,
        0x7fff_ffff,
    ];
    const N: usize = 80;
    let count = values.len();
    let locals: [&[usize]; 3] = [&[1], &[16], &[40]];
    let runs = run_each(
        LOCAL_ID_COMPARES,
        "local_id_compares",
        &[
            Arg::In(bytes(&values)),
            Arg::Int(count as i32),
            Arg::Out(N * count * 4),
        ],
        &[N],
        &locals,
    );
    for (run, local) in runs.iter().zip(&locals) {
        let got: Vec<u32> = ints(&run[0]).into_iter().map(|b| b as u32).collect();
        for gid in 0..N {
            let lid = (gid % local[0]) as u64;
            for (k, &v) in values.iter().enumerate() {
                assert_eq!(
                    got[gid * count + k],
                    local_id_compare_bits(lid, v),
                    "local size {}, local id {lid}, value {v}",
                    local[0]
                );
            }
        }
    }
    // The 16-wide run is vector code comparing lane numbers.
    let ir = work_group_ir("local_id_compares");
    assert!(ir.contains("lanes_from"), "{ir}");
}

const HISTOGRAM: &str = r#"
kernel void histogram_16(global const uchar *data, uint n, global uint *bins,
                         global uint *olds) {
    local uint counts[16];
    size_t lid = get_local_id(0), lsize = get_local_size(0);
    for (size_t b = lid; b < 16; b += lsize)
        counts[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint seen = 0;
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0))
        seen += atomic_inc(&counts[data[i] & 15]) < 1000000u;
    olds[get_global_id(0)] = seen;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t b = lid; b < 16; b += lsize)
        if (counts[b] != 0)
            atomic_add(&bins[b], counts[b]);
}
"#;

#[test]
fn atomics_and_guards_in_loops_give_the_host_histogram() {
    // Lanes that name the same bin in one step, a guard in a loop lanes
    // leave apart, and each atomic's old value used.
    const N: usize = 1000;
    let data: Vec<u8> = (0..N).map(|i| ((i * i * 7 + i / 3) % 251) as u8).collect();
    let mut want = [0u32; 16];
    for &d in &data {
        want[(d & 15) as usize] += 1;
    }
    const ITEMS: usize = 192;
    let locals: [&[usize]; 3] = [&[1], &[16], &[64]];
    let runs = run_each(
        HISTOGRAM,
        "histogram_16",
        &[
            Arg::In(&data),
            Arg::Int(N as i32),
            Arg::Out(16 * 4),
            Arg::Out(ITEMS * 4),
        ],
        &[ITEMS],
        &locals,
    );
    for (run, local) in runs.iter().zip(&locals) {
        // The output buffer starts as 0xa5 bytes: the sums land on it.
        let start = u32::from_ne_bytes([0xa5; 4]);
        let got: Vec<u32> = ints(&run[0]).into_iter().map(|v| v as u32).collect();
        let want: Vec<u32> = want.iter().map(|w| start.wrapping_add(*w)).collect();
        assert_eq!(got, want, "local size {local:?}");
        // Each work-item counted the elements of its grid-stride loop.
        let seen = ints(&run[1]);
        for (gid, &s) in seen.iter().enumerate() {
            let mine = (gid..N).step_by(ITEMS).count() as i32;
            assert_eq!(s, mine, "local size {local:?}, item {gid}");
        }
    }
    let ir = work_group_ir("histogram_16");
    assert!(
        ir.contains("atomic.lane"),
        "the regions are not vector code:\n{ir}"
    );
}

const ESCAPE_COUNTS: &str = r#"
kernel void escape_counts(int max_iter, global const float *c, global int *out) {
    int i = get_global_id(0);
    float z = 0.0f, x = c[i];
    int n = 0;
    while (n < max_iter && fabs(z) <= 2.0f) {
        z = fma(z, z, x);
        n++;
    }
    out[i] = n;
}
"#;

#[test]
fn values_only_the_loop_reads_go_on_in_lanes_that_left_and_counts_stay_right() {
    // z is read only inside the loop: lanes that left compute on without
    // a select keeping theirs; the counts must still be each lane's own.
    const N: usize = 256;
    let c: Vec<f32> = (0..N).map(|i| -2.1 + i as f32 * 0.0105).collect();
    let locals: [&[usize]; 3] = [&[1], &[16], &[128]];
    let runs = run_each(
        ESCAPE_COUNTS,
        "escape_counts",
        &[Arg::Int(60), Arg::In(bytes(&c)), Arg::Out(N * 4)],
        &[N],
        &locals,
    );
    assert_all_equal(&runs, &locals);
    let got = ints(&runs[0][0]);
    for (i, &x) in c.iter().enumerate() {
        let (mut z, mut n) = (0.0f32, 0);
        while n < 60 && z.abs() <= 2.0 {
            z = z.mul_add(z, x);
            n += 1;
        }
        assert_eq!(got[i], n, "item {i}");
    }
    left_apart(&got, 10);
    let ir = work_group_ir("escape_counts");
    assert!(ir.contains("staying"), "not a masked vector loop:\n{ir}");
}
