//! Work-group barriers: every work-item of a group reaches a barrier before
//! any goes past it, whatever the group's shape and wherever the barrier is
//! (straight-line code, loops, uniform conditionals, called functions).

use ferrocl_tests::*;

fn run_kernel(e: &Env, src: &str, options: &str, bufs: &[&Mem], global: &[usize], local: &[usize]) {
    let (_p, k) = e.kernel_opts(src, "k", options);
    e.run_with(&k, bufs, global, Some(local));
}

const REDUCE: &str = r#"
__kernel void k(__global const int* in, __global int* out) {
    __local int part[256];
    size_t lid = get_local_id(0);
    part[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = get_local_size(0) / 2; s > 0; s /= 2) {
        if (lid < s) part[lid] += part[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[get_group_id(0)] = part[0];
}
"#;

fn check_reduction(options: &str, wg: usize) {
    let e = Env::new();
    let groups = 64;
    let n = groups * wg;
    let input: Vec<i32> = (0..n as i32).map(|i| (i * 37) % 1001 - 500).collect();
    let inb = e.buffer_from(&input);
    let out = e.buffer_from(&vec![0i32; groups]);
    run_kernel(&e, REDUCE, options, &[&inb, &out], &[n], &[wg]);
    let want: Vec<i32> = input.chunks(wg).map(|c| c.iter().sum()).collect();
    assert_eq!(e.read::<i32>(&out, 0, groups), want);
}

#[test]
fn tree_reduction_in_local_memory() {
    check_reduction("", 256);
}

#[test]
fn tree_reduction_with_small_groups() {
    for wg in [2, 4, 16, 64] {
        check_reduction("", wg);
    }
}

#[test]
fn tree_reduction_without_optimization() {
    check_reduction("-cl-opt-disable", 128);
}

#[test]
fn barrier_kernels_may_use_the_whole_work_group_size() {
    let e = Env::new();
    let (_p, k) = e.kernel(REDUCE, "k");
    let wg = ok(
        kernel_wg_info(k.get(), device(), CL_KERNEL_WORK_GROUP_SIZE),
        "CL_KERNEL_WORK_GROUP_SIZE",
    )
    .usize();
    let max = ok(
        device_info(device(), CL_DEVICE_MAX_WORK_GROUP_SIZE),
        "CL_DEVICE_MAX_WORK_GROUP_SIZE",
    )
    .usize();
    assert_eq!(wg, max);
}

#[test]
fn private_values_survive_barriers_per_work_item() {
    // Each work-item keeps its own array and scalars across two barriers
    // while the group rotates a local array: nothing may leak between items.
    let src = r#"
    __kernel void k(__global int* out) {
        __local int ring[64];
        int lid = (int)get_local_id(0);
        int n = (int)get_local_size(0);
        int mine[4];
        for (int i = 0; i < 4; i++) mine[i] = lid * 10 + i;
        float f = (float)lid * 0.5f;
        ring[lid] = lid;
        barrier(CLK_LOCAL_MEM_FENCE);
        int left = ring[(lid + 1) % n];
        barrier(CLK_LOCAL_MEM_FENCE);
        ring[lid] = left * 2;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = mine[0] + mine[3] + (int)(f * 2.0f) + ring[(lid + n - 1) % n];
    }"#;
    let e = Env::new();
    let (n, wg) = (64 * 8, 64);
    let out = e.buffer_from(&vec![0i32; n]);
    run_kernel(&e, src, "", &[&out], &[n], &[wg]);
    let got = e.read::<i32>(&out, 0, n);
    for (g, v) in got.iter().enumerate() {
        let lid = (g % wg) as i32;
        let n = wg as i32;
        // ring[(lid-1)] after the second step = 2 * ring0[lid] = 2 * lid.
        let want = lid * 10 + (lid * 10 + 3) + lid + 2 * lid;
        assert_eq!(*v, want, "work-item {g}");
        let _ = n;
    }
}

#[test]
fn barrier_inside_a_loop_with_a_uniform_trip_count() {
    // A 1-D stencil iterated `steps` times in local memory.
    let src = r#"
    __kernel void k(__global const int* in, __global int* out, int steps) {
        __local int a[128];
        __local int b[128];
        int lid = (int)get_local_id(0);
        int n = (int)get_local_size(0);
        a[lid] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = 0; s < steps; s++) {
            int l = a[(lid + n - 1) % n], r = a[(lid + 1) % n];
            b[lid] = l + r - a[lid];
            barrier(CLK_LOCAL_MEM_FENCE);
            a[lid] = b[lid];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        out[get_global_id(0)] = a[lid];
    }"#;
    let e = Env::new();
    let (wg, groups, steps) = (128usize, 16usize, 5);
    let n = wg * groups;
    let input: Vec<i32> = (0..n as i32).map(|i| (i * 7) % 23).collect();
    let (_p, k) = e.kernel(src, "k");
    let inb = e.buffer_from(&input);
    let out = e.buffer_from(&vec![0i32; n]);
    ok(set_mem(k.get(), 0, &inb), "arg 0");
    ok(set_mem(k.get(), 1, &out), "arg 1");
    ok(set_arg(k.get(), 2, &(steps as i32)), "arg 2");
    e.run(&k, &[n], Some(&[wg]));
    let mut want = Vec::new();
    for chunk in input.chunks(wg) {
        let mut a = chunk.to_vec();
        for _ in 0..steps {
            a = (0..wg)
                .map(|i| a[(i + wg - 1) % wg] + a[(i + 1) % wg] - a[i])
                .collect();
        }
        want.extend(a);
    }
    assert_eq!(e.read::<i32>(&out, 0, n), want);
}

#[test]
fn barrier_inside_a_called_function() {
    let src = r#"
    void exchange(__local int* tmp, int* v) {
        int lid = (int)get_local_id(0);
        tmp[lid] = *v;
        barrier(CLK_LOCAL_MEM_FENCE);
        *v = tmp[get_local_size(0) - 1 - lid];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    __kernel void k(__global int* out) {
        __local int tmp[32];
        int v = (int)get_global_id(0);
        exchange(tmp, &v);
        v += 1000;
        exchange(tmp, &v);
        out[get_global_id(0)] = v;
    }"#;
    let e = Env::new();
    let (n, wg) = (32 * 10, 32);
    let out = e.buffer_from(&vec![0i32; n]);
    run_kernel(&e, src, "", &[&out], &[n], &[wg]);
    // Reversed twice: every item gets its own id back, plus 1000.
    let want: Vec<i32> = (0..n as i32).map(|i| i + 1000).collect();
    assert_eq!(e.read::<i32>(&out, 0, n), want);
}

#[test]
fn barrier_inside_a_work_group_uniform_conditional() {
    let src = r#"
    __kernel void k(__global int* out) {
        __local int tmp[16];
        int lid = (int)get_local_id(0);
        int v = lid;
        if (get_group_id(0) % 2 == 1) {
            tmp[lid] = lid * 3;
            barrier(CLK_LOCAL_MEM_FENCE);
            v = tmp[15 - lid];
        }
        out[get_global_id(0)] = v;
    }"#;
    let e = Env::new();
    let (n, wg) = (16 * 6, 16);
    let out = e.buffer_from(&vec![0i32; n]);
    run_kernel(&e, src, "", &[&out], &[n], &[wg]);
    let got = e.read::<i32>(&out, 0, n);
    for (g, v) in got.iter().enumerate() {
        let (group, lid) = (g / wg, (g % wg) as i32);
        let want = if group % 2 == 1 { (15 - lid) * 3 } else { lid };
        assert_eq!(*v, want, "work-item {g}");
    }
}

#[test]
fn barriers_in_two_and_three_dimensional_groups() {
    // Transpose each group's tile through local memory.
    let src = r#"
    __kernel void k(__global int* out) {
        __local int tile[4][5][6];
        size_t x = get_local_id(0), y = get_local_id(1), z = get_local_id(2);
        tile[z][y][x] = (int)(get_global_id(0) * 10000 + get_global_id(1) * 100 + get_global_id(2));
        barrier(CLK_LOCAL_MEM_FENCE);
        size_t sx = get_local_size(0) - 1 - x, sy = get_local_size(1) - 1 - y;
        size_t gl = (get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0)
                    + get_global_id(0);
        out[gl] = tile[z][sy][sx];
    }"#;
    let e = Env::new();
    let local = [6usize, 5, 4];
    let global = [12usize, 10, 8];
    let total: usize = global.iter().product();
    let out = e.buffer_from(&vec![-1i32; total]);
    run_kernel(&e, src, "", &[&out], &global, &local);
    let got = e.read::<i32>(&out, 0, total);
    for z in 0..global[2] {
        for y in 0..global[1] {
            for x in 0..global[0] {
                let (gx, gy) = (x / local[0] * local[0], y / local[1] * local[1]);
                let sx = gx + local[0] - 1 - (x % local[0]);
                let sy = gy + local[1] - 1 - (y % local[1]);
                let want = (sx * 10000 + sy * 100 + z) as i32;
                let at = (z * global[1] + y) * global[0] + x;
                assert_eq!(got[at], want, "item ({x},{y},{z})");
            }
        }
    }
}

#[test]
fn group_sizes_that_are_not_a_multiple_of_the_vector_width() {
    for wg in [1usize, 3, 7, 13, 33, 100] {
        let src = r#"
        __kernel void k(__global int* out) {
            __local int tmp[128];
            int lid = (int)get_local_id(0);
            int n = (int)get_local_size(0);
            tmp[lid] = lid + 1;
            barrier(CLK_LOCAL_MEM_FENCE);
            int sum = 0;
            for (int i = 0; i < n; i++) sum += tmp[i];
            out[get_global_id(0)] = sum;
        }"#;
        let e = Env::new();
        let n = wg * 5;
        let out = e.buffer_from(&vec![0i32; n]);
        run_kernel(&e, src, "", &[&out], &[n], &[wg]);
        let want = (wg * (wg + 1) / 2) as i32;
        assert_eq!(
            e.read::<i32>(&out, 0, n),
            vec![want; n],
            "work-group size {wg}"
        );
    }
}

#[test]
fn an_early_return_after_the_last_barrier() {
    let src = r#"
    __kernel void k(__global int* out) {
        __local int tmp[64];
        int lid = (int)get_local_id(0);
        tmp[lid] = lid;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid % 2) return;
        out[get_global_id(0)] = tmp[63 - lid];
    }"#;
    let e = Env::new();
    let (n, wg) = (64 * 4, 64);
    let out = e.buffer_from(&vec![-7i32; n]);
    run_kernel(&e, src, "", &[&out], &[n], &[wg]);
    let got = e.read::<i32>(&out, 0, n);
    for (g, v) in got.iter().enumerate() {
        let lid = (g % wg) as i32;
        let want = if lid % 2 == 1 { -7 } else { 63 - lid };
        assert_eq!(*v, want, "work-item {g}");
    }
}

/// Inner loops that every work-item runs alike (the compiler runs them an
/// iteration at a time across the work-group): a counted loop with an
/// accumulator, a loop left early on a uniform test, one inside a uniform
/// condition, and one whose count varies per work-item (left as it is).
const UNIFORM_LOOPS: &str = r#"
__kernel void k(__global const float* a, __global float* out, int n) {
    size_t x = get_global_id(0), y = get_global_id(1);
    size_t w = get_global_size(0);
    float acc = 0.0f;
    for (int j = 0; j < n; j++)
        acc += a[(y + j) % 7 * w + x] * (float)(j + 1);
    int steps = 0;
    for (int j = 0; j < 1000; j++) {
        if (j * j > n * 40) break;
        steps++;
    }
    if (n > 3) {
        for (int j = 0; j < n; j += 2)
            acc -= (float)j;
    }
    int mine = 0;
    for (size_t j = 0; j < x % 5; j++)
        mine += (int)j;
    out[y * w + x] = acc + (float)(steps * 1000 + mine);
}
"#;

fn uniform_loops_host(a: &[f32], w: usize, h: usize, n: i32) -> Vec<f32> {
    let mut out = vec![0f32; w * h];
    let steps = (0..1000).take_while(|j| j * j <= n * 40).count() as i32;
    for y in 0..h {
        for x in 0..w {
            let mut acc = 0f32;
            for j in 0..n {
                acc += a[(y + j as usize) % 7 * w + x] * (j + 1) as f32;
            }
            if n > 3 {
                for j in (0..n).step_by(2) {
                    acc -= j as f32;
                }
            }
            let mine: i32 = (0..(x % 5) as i32).sum();
            out[y * w + x] = acc + (steps * 1000 + mine) as f32;
        }
    }
    out
}

#[test]
fn uniform_inner_loops_give_the_same_results_at_every_group_shape() {
    let (w, h, n) = (39usize, 12usize, 23i32);
    let a: Vec<f32> = (0..w * 7).map(|i| ((i * 13) % 17) as f32 * 0.25).collect();
    let want = uniform_loops_host(&a, w, h, n);
    for (local, options) in [
        ([13, 3], ""),
        ([39, 1], ""),
        ([1, 12], ""),
        ([3, 4], "-cl-opt-disable"),
    ] {
        let e = Env::new();
        let ab = e.buffer_from(&a);
        let out = e.buffer_from(&vec![0f32; w * h]);
        let (_p, k) = e.kernel_opts(UNIFORM_LOOPS, "k", options);
        ok(set_mem(k.get(), 0, &ab), "a");
        ok(set_mem(k.get(), 1, &out), "out");
        ok(set_arg(k.get(), 2, &n), "n");
        e.run(&k, &[w, h], Some(&local));
        assert_eq!(
            e.read::<f32>(&out, 0, w * h),
            want,
            "local size {local:?} {options}"
        );
    }
}

#[test]
fn a_uniform_loop_over_float4_fields_matches_the_host() {
    // n-body's shape: every work-item walks the same float4 table.
    const SRC: &str = r#"
__kernel void k(__global const float4* t, __global float* out, int n) {
    float4 me = t[get_global_id(0)];
    float s = 0.0f;
    for (int j = 0; j < n; j++) {
        float4 q = t[j];
        s += (q.x - me.x) * q.w + q.z * me.y;
    }
    out[get_global_id(0)] = s;
}
"#;
    let n = 48usize;
    let t: Vec<f32> = (0..n * 4).map(|i| ((i * 7) % 11) as f32 - 5.0).collect();
    let mut want = vec![0f32; n];
    for (i, w) in want.iter_mut().enumerate() {
        let me = &t[i * 4..i * 4 + 4];
        for j in 0..n {
            let q = &t[j * 4..j * 4 + 4];
            *w += (q[0] - me[0]) * q[3] + q[2] * me[1];
        }
    }
    for local in [16usize, 12, 48] {
        let e = Env::new();
        let tb = e.buffer_from(&t);
        let out = e.buffer_from(&vec![0f32; n]);
        let (_p, k) = e.kernel_opts(SRC, "k", "");
        ok(set_mem(k.get(), 0, &tb), "t");
        ok(set_mem(k.get(), 1, &out), "out");
        ok(set_arg(k.get(), 2, &(n as i32)), "n");
        e.run(&k, &[n], Some(&[local]));
        assert_eq!(e.read::<f32>(&out, 0, n), want, "local size {local}");
    }
}

#[test]
fn a_barrier_loop_of_constant_trip_count_scans_as_the_host_does() {
    // A Hillis-Steele scan ping-ponging between two local arrays: a loop
    // of eight levels around a barrier, which the compiler unrolls into a
    // region per level.
    let src = r#"
    #define WG 256
    __attribute__((reqd_work_group_size(WG, 1, 1)))
    __kernel void k(__global const uint* in, __global uint* out) {
        __local uint buf[2][WG];
        size_t lid = get_local_id(0);
        int src = 0;
        buf[0][lid] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (size_t offset = 1; offset < WG; offset <<= 1) {
            uint v = buf[src][lid];
            if (lid >= offset)
                v += buf[src][lid - offset];
            buf[1 - src][lid] = v;
            src = 1 - src;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        out[get_global_id(0)] = buf[src][lid];
    }"#;
    let e = Env::new();
    let (wg, groups) = (256usize, 8usize);
    let n = wg * groups;
    let input: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761) >> 7)
        .collect();
    let inb = e.buffer_from(&input);
    let out = e.buffer_from(&vec![0u32; n]);
    run_kernel(&e, src, "", &[&inb, &out], &[n], &[wg]);
    let want: Vec<u32> = input
        .chunks(wg)
        .flat_map(|c| {
            c.iter()
                .scan(0u32, |s, &x| {
                    *s = s.wrapping_add(x);
                    Some(*s)
                })
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(e.read::<u32>(&out, 0, n), want);
}

#[test]
fn levels_of_a_tree_reduction_run_only_the_work_items_they_test_for() {
    // The levels of constant width are regions that start `if (lid < s)`:
    // the work-items from s on are not run at all. Groups narrower and
    // wider than the levels give the host's sums.
    let src = r#"
    __kernel void k(__global const int* in, __global int* out) {
        __local int part[128];
        size_t lid = get_local_id(0), n = get_local_size(0);
        for (size_t i = lid; i < 128; i += n)
            part[i] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        part[lid] = in[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (size_t s = 64; s > 0; s >>= 1) {
            if (lid < s)
                part[lid] += part[lid + s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0)
            out[get_group_id(0)] = part[0];
    }"#;
    let e = Env::new();
    for wg in [128usize, 96, 40, 16, 1] {
        let groups = 12;
        let n = wg * groups;
        let input: Vec<i32> = (0..n as i32).map(|i| (i * 53) % 997 - 400).collect();
        let inb = e.buffer_from(&input);
        let out = e.buffer_from(&vec![0i32; groups]);
        run_kernel(&e, src, "", &[&inb, &out], &[n], &[wg]);
        let want: Vec<i32> = input.chunks(wg).map(|c| c.iter().sum()).collect();
        assert_eq!(e.read::<i32>(&out, 0, groups), want, "groups of {wg}");
    }
}
