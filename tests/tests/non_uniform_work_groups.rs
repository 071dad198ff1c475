//! Non-uniform work-groups (OpenCL 3.0 API spec 5.10, OpenCL C 6.15.1): a
//! local size that does not divide the global size makes the last
//! work-group of that dimension smaller, for programs of OpenCL C 2.0 or
//! later built without -cl-uniform-work-group-size.

use ferrocl_tests::*;

const STD: &str = "-cl-std=CL3.0";

/// Each work-item writes, for d in 0..3: global id, local id, group id,
/// local size, enqueued local size, number of groups; then its local
/// linear id and global linear id.
const FIELDS: usize = 20;
const IDS_SRC: &str = r#"
__kernel void ids(__global uint* out) {
    size_t g0 = get_global_id(0) - get_global_offset(0);
    size_t g1 = get_global_id(1) - get_global_offset(1);
    size_t g2 = get_global_id(2) - get_global_offset(2);
    size_t lin = (g2 * get_global_size(1) + g1) * get_global_size(0) + g0;
    __global uint* o = out + lin * 20;
    for (uint d = 0; d < 3; d++) {
        o[d * 6 + 0] = (uint)get_global_id(d);
        o[d * 6 + 1] = (uint)get_local_id(d);
        o[d * 6 + 2] = (uint)get_group_id(d);
        o[d * 6 + 3] = (uint)get_local_size(d);
        o[d * 6 + 4] = (uint)get_enqueued_local_size(d);
        o[d * 6 + 5] = (uint)get_num_groups(d);
    }
    o[18] = (uint)get_local_linear_id();
    o[19] = (uint)get_global_linear_id();
}
"#;

/// Runs the ids kernel and checks every work-item against the spec's
/// definitions.
#[track_caller]
fn check_ids(e: &Env, k: &Kern, global: &[usize], offset: &[usize], local: &[usize]) {
    let dim = global.len();
    let g3 = |d: usize| if d < dim { global[d] } else { 1 };
    let l3 = |d: usize| if d < dim { local[d] } else { 1 };
    let o3 = |d: usize| if d < dim { offset[d] } else { 0 };
    let total: usize = global.iter().product();
    let out = e.buffer_from(&vec![u32::MAX; total * FIELDS]);
    ok(set_mem(k.get(), 0, &out), "set arg");
    check(
        e.enqueue(k, Some(offset), global, Some(local)),
        "clEnqueueNDRangeKernel",
    );
    e.finish();
    let v = e.read::<u32>(&out, 0, total * FIELDS);
    let ctx = format!("global {global:?}, offset {offset:?}, local {local:?}");
    for lin in 0..total {
        let g = [lin % g3(0), (lin / g3(0)) % g3(1), lin / (g3(0) * g3(1))];
        let o = &v[lin * FIELDS..(lin + 1) * FIELDS];
        let mut size = [0; 3];
        let mut lid = [0; 3];
        for d in 0..3 {
            let group = g[d] / l3(d);
            let groups = g3(d).div_ceil(l3(d));
            // The last group holds what is left.
            size[d] = if group == groups - 1 {
                g3(d) - group * l3(d)
            } else {
                l3(d)
            };
            lid[d] = g[d] % l3(d);
            let want = [g[d] + o3(d), lid[d], group, size[d], l3(d), groups];
            for (f, w) in want.iter().enumerate() {
                assert_eq!(
                    o[d * 6 + f] as usize,
                    *w,
                    "{ctx}: work-item {g:?}, dim {d}, field {f}"
                );
            }
        }
        let local_linear = (lid[2] * size[1] + lid[1]) * size[0] + lid[0];
        assert_eq!(o[18] as usize, local_linear, "{ctx}: {g:?} local linear id");
        assert_eq!(o[19] as usize, lin, "{ctx}: {g:?} global linear id");
    }
}

#[test]
fn the_last_work_group_of_each_dimension_holds_the_rest() {
    let e = Env::new();
    let (_p, k) = e.kernel_opts(IDS_SRC, "ids", STD);
    check_ids(&e, &k, &[10], &[0], &[4]);
    check_ids(&e, &k, &[1000], &[3], &[64]);
    check_ids(&e, &k, &[10, 7], &[0, 0], &[4, 3]);
    check_ids(&e, &k, &[16, 7], &[1, 2], &[4, 3]);
    check_ids(&e, &k, &[5, 6, 7], &[1, 2, 3], &[2, 4, 3]);
    check_ids(&e, &k, &[9, 9, 9], &[0, 0, 0], &[4, 4, 4]);
    // Smaller than one work-group: one group, of the global size.
    check_ids(&e, &k, &[5], &[0], &[8]);
    check_ids(&e, &k, &[3, 2], &[0, 0], &[16, 4]);
}

#[test]
fn opencl_c_2_0_programs_take_non_uniform_ranges_too() {
    let e = Env::new();
    let (_p, k) = e.kernel_opts(IDS_SRC, "ids", "-cl-std=CL2.0");
    check_ids(&e, &k, &[13, 5], &[0, 0], &[4, 2]);
}

/// Each work-group sums its work-items' values through `__local` memory and
/// barriers; every work-item writes its group's sum.
const GROUP_SUM_SRC: &str = r#"
__kernel void group_sum(__global const int* in, __global int* out, __local int* scratch) {
    size_t lid = get_local_linear_id();
    size_t n = get_local_size(0) * get_local_size(1);
    size_t gid = get_global_id(1) * get_global_size(0) + get_global_id(0);
    scratch[lid] = in[gid];
    barrier(CLK_LOCAL_MEM_FENCE);
    int sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += scratch[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[gid] = sum;
}
"#;

#[test]
fn barriers_and_local_memory_work_in_the_smaller_groups() {
    let e = Env::new();
    let (_p, k) = e.kernel_opts(GROUP_SUM_SRC, "group_sum", STD);
    let (w, h, lx, ly) = (37usize, 11usize, 8usize, 4usize);
    let input: Vec<i32> = (0..(w * h) as i32).map(|i| i * 7 % 101).collect();
    let a = e.buffer_from(&input);
    let out = e.buffer_from(&vec![0i32; w * h]);
    ok(set_mem(k.get(), 0, &a), "arg 0");
    ok(set_mem(k.get(), 1, &out), "arg 1");
    ok(set_local(k.get(), 2, lx * ly * 4), "arg 2");
    e.run(&k, &[w, h], Some(&[lx, ly]));
    let got = e.read::<i32>(&out, 0, w * h);
    for y in 0..h {
        for x in 0..w {
            let (gx, gy) = (x / lx * lx, y / ly * ly);
            let mut want = 0;
            for yy in gy..(gy + ly).min(h) {
                for xx in gx..(gx + lx).min(w) {
                    want += input[yy * w + xx];
                }
            }
            assert_eq!(got[y * w + x], want, "item ({x}, {y})");
        }
    }
}

#[test]
fn a_vectorized_kernel_runs_its_remainder_group() {
    let e = Env::new();
    let src = r#"
__kernel void saxpy(__global const float* x, __global float* y, float a) {
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}"#;
    let (_p, k) = e.kernel_opts(src, "saxpy", STD);
    for (n, l) in [(1000usize, 64usize), (4099, 256), (17, 16), (3, 64)] {
        let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let y: Vec<f32> = (0..n).map(|i| 1.0 + i as f32 * 0.5).collect();
        let bx = e.buffer_from(&x);
        let by = e.buffer_from(&y);
        ok(set_mem(k.get(), 0, &bx), "arg 0");
        ok(set_mem(k.get(), 1, &by), "arg 1");
        ok(set_arg(k.get(), 2, &2.0f32), "arg 2");
        e.run(&k, &[n], Some(&[l]));
        let got = e.read::<f32>(&by, 0, n);
        for i in 0..n {
            assert_eq!(got[i], 2.0 * x[i] + y[i], "n {n}, local {l}, item {i}");
        }
    }
}

#[test]
fn uniform_programs_refuse_what_does_not_divide() {
    let e = Env::new();
    let src = "__kernel void k(__global int* p) { p[get_global_id(0)] = 1; }";
    for opts in [
        "",
        "-cl-std=CL1.2",
        "-cl-std=CL3.0 -cl-uniform-work-group-size",
    ] {
        let (_p, k) = e.kernel_opts(src, "k", opts);
        let out = e.buffer(4 * 16);
        ok(set_mem(k.get(), 0, &out), "arg");
        assert_code(
            e.enqueue(&k, None, &[10], Some(&[4])),
            CL_INVALID_WORK_GROUP_SIZE,
            opts,
        );
        // A dividing size still runs.
        check(e.enqueue(&k, None, &[12], Some(&[4])), opts);
        e.finish();
    }
}

#[test]
fn the_device_reports_non_uniform_work_groups() {
    assert!(ok(
        device_info(device(), CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT),
        "CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT"
    )
    .bool());
}

#[test]
fn collectives_combine_only_the_smaller_groups_items() {
    let e = Env::new();
    let src = r#"
__kernel void sums(__global const int* in, __global int* reduce, __global int* scan) {
    size_t i = get_global_id(0);
    reduce[i] = work_group_reduce_add(in[i]);
    scan[i] = work_group_scan_inclusive_add(in[i]);
}"#;
    let (_p, k) = e.kernel_opts(src, "sums", STD);
    let (n, l) = (45usize, 16usize);
    let input: Vec<i32> = (0..n as i32).map(|i| i * 3 + 1).collect();
    let a = e.buffer_from(&input);
    let r = e.buffer_from(&vec![0i32; n]);
    let s = e.buffer_from(&vec![0i32; n]);
    e.run_with(&k, &[&a, &r, &s], &[n], Some(&[l]));
    let (got_r, got_s) = (e.read::<i32>(&r, 0, n), e.read::<i32>(&s, 0, n));
    for i in 0..n {
        let start = i / l * l;
        let group = &input[start..(start + l).min(n)];
        assert_eq!(got_r[i], group.iter().sum::<i32>(), "reduce, item {i}");
        assert_eq!(
            got_s[i],
            input[start..=i].iter().sum::<i32>(),
            "scan, item {i}"
        );
    }
}
