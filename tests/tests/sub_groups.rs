//! Sub-groups (OpenCL C 3.0 `__opencl_c_subgroups` and the
//! `cl_khr_subgroup_*` extensions): what the device and each kernel report,
//! the work-item functions against the layout those queries describe (runs
//! of the kernel's sub-group width along dimension 0), and every family of
//! sub-group functions against a host reference, in uniform and divergent
//! control flow, beside work-group barriers, and in work-groups whose rows
//! end in a partial sub-group.

use ferrocl_tests::*;
use std::ptr::{null, null_mut};

const CL_DEVICE_SUB_GROUP_SIZES_INTEL: cl_device_info = 0x4108;
const CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL: cl_kernel_sub_group_info = 0x410A;

fn dinfo(name: cl_device_info) -> Info {
    ok(device_info(device(), name), "clGetDeviceInfo")
}

/// `clGetKernelSubGroupInfo` with `input` (as bytes), answering `out` size_ts.
fn sub_group_info(
    k: cl_kernel,
    name: cl_kernel_sub_group_info,
    input: &[usize],
    out: usize,
) -> Result<Vec<usize>, cl_int> {
    let mut v = vec![0usize; out];
    let mut size = 0usize;
    let rc = cl!(clGetKernelSubGroupInfo(
        k,
        device(),
        name,
        std::mem::size_of_val(input),
        if input.is_empty() {
            null()
        } else {
            input.as_ptr().cast()
        },
        out * std::mem::size_of::<usize>(),
        v.as_mut_ptr().cast(),
        &mut size
    ));
    result(rc, ()).map(|_| {
        assert_eq!(
            size,
            out * std::mem::size_of::<usize>(),
            "size of {name:#x}"
        );
        v
    })
}

/// The sub-group width of `k`: the largest sub-group of a wide work-group.
fn width_of(k: &Kern) -> usize {
    ok(
        sub_group_info(
            k.get(),
            CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
            &[1024],
            1,
        ),
        "max sub-group size",
    )[0]
}

#[test]
fn the_device_reports_sub_groups_and_their_extensions() {
    let exts = ext_names(&dinfo(CL_DEVICE_EXTENSIONS).string());
    for x in [
        "cl_khr_subgroup_extended_types",
        "cl_khr_subgroup_non_uniform_vote",
        "cl_khr_subgroup_ballot",
        "cl_khr_subgroup_non_uniform_arithmetic",
        "cl_khr_subgroup_shuffle",
        "cl_khr_subgroup_shuffle_relative",
        "cl_khr_subgroup_clustered_reduce",
        "cl_khr_subgroup_rotate",
        "cl_intel_required_subgroup_size",
    ] {
        assert!(exts.iter().any(|e| e == x), "{x} missing from {exts:?}");
    }
    // cl_khr_subgroups promises independent forward progress, which
    // sub-groups run one after the other do not make.
    assert!(!exts.iter().any(|e| e == "cl_khr_subgroups"));
    assert!(!dinfo(CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS).bool());
    let features: Vec<String> = dinfo(CL_DEVICE_OPENCL_C_FEATURES)
        .name_versions()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert!(features.iter().any(|f| f == "__opencl_c_subgroups"));
    // A work-group one work-item wide has a sub-group per work-item.
    let max_wg = dinfo(CL_DEVICE_MAX_WORK_GROUP_SIZE).usize();
    assert_eq!(dinfo(CL_DEVICE_MAX_NUM_SUB_GROUPS).u32() as usize, max_wg);
    let sizes = dinfo(CL_DEVICE_SUB_GROUP_SIZES_INTEL).usizes();
    let native = dinfo(CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT).u32() as usize;
    assert!(sizes.contains(&native), "{sizes:?} lacks {native}");
}

const IDS: &str = r#"
__kernel void k(__global uint* out) {
    size_t i = get_global_linear_id();
    out[6 * i + 0] = get_sub_group_size();
    out[6 * i + 1] = get_max_sub_group_size();
    out[6 * i + 2] = get_num_sub_groups();
    out[6 * i + 3] = get_enqueued_num_sub_groups();
    out[6 * i + 4] = get_sub_group_id();
    out[6 * i + 5] = get_sub_group_local_id();
}
"#;

#[test]
fn work_item_functions_describe_runs_along_x_as_the_queries_say() {
    let e = Env::new();
    let (_p, k) = e.kernel_opts(IDS, "k", "-cl-std=CL3.0");
    // A vector of floats, and at least a cache line of them.
    let w = width_of(&k);
    let native = dinfo(CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT).u32() as usize;
    assert_eq!(w, native.max(16));
    for (global, local) in [
        ([4 * w, 1, 1], [2 * w, 1, 1]),
        ([60, 2, 1], [20, 2, 1]),
        ([10, 6, 4], [5, 3, 2]),
        ([3, 14, 1], [1, 7, 1]),
        // A range whose last group in x is smaller than the others.
        ([w + 3, 2, 1], [w + 1, 2, 1]),
    ] {
        let max = ok(
            sub_group_info(k.get(), CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, &local, 1),
            "max size",
        )[0];
        let count = ok(
            sub_group_info(k.get(), CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, &local, 1),
            "count",
        )[0];
        let n: usize = global.iter().product();
        let out = e.buffer_from(&vec![0u32; 6 * n]);
        ok(set_mem(k.get(), 0, &out), "arg");
        check(
            e.enqueue(&k, None, &global, Some(&local)),
            "clEnqueueNDRangeKernel",
        );
        e.finish();
        let got = e.read::<u32>(&out, 0, 6 * n);
        for z in 0..global[2] {
            for y in 0..global[1] {
                for x in 0..global[0] {
                    let i = (z * global[1] + y) * global[0] + x;
                    let g = &got[6 * i..6 * i + 6];
                    // This work-item's group's size in x (the last may be smaller).
                    let lx = local[0].min(global[0] - x / local[0] * local[0]);
                    let (lid, ly, lz) = (x % local[0], y % local[1], z % local[2]);
                    let row = lz * local[1] + ly;
                    let start = lid / w * w;
                    let want = [
                        w.min(lx - start),
                        max,
                        lx.div_ceil(w) * local[1] * local[2],
                        count,
                        row * lx.div_ceil(w) + lid / w,
                        lid % w,
                    ];
                    let want: Vec<u32> = want.iter().map(|&v| v as u32).collect();
                    assert_eq!(g, &want[..], "{global:?}/{local:?} item ({x},{y},{z})");
                }
            }
        }
        assert_eq!(max, w.min(local[0]));
    }
}

#[test]
fn local_size_for_a_sub_group_count_gives_that_many() {
    let e = Env::new();
    let (_p, k) = e.kernel_opts(IDS, "k", "-cl-std=CL3.0");
    let w = width_of(&k);
    let max = ok(
        kernel_wg_info(k.get(), device(), CL_KERNEL_WORK_GROUP_SIZE),
        "wg size",
    )
    .usize();
    for count in [1, 2, 3, 7] {
        for dims in 1..=3 {
            let l = ok(
                sub_group_info(
                    k.get(),
                    CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
                    &[count],
                    dims,
                ),
                "local size for count",
            );
            let n = ok(
                sub_group_info(k.get(), CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, &l, 1),
                "count",
            )[0];
            assert_eq!(n, count, "{l:?} for {count} sub-groups of {w}");
        }
    }
    // More sub-groups than any work-group has: zeros.
    let l = ok(
        sub_group_info(
            k.get(),
            CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT,
            &[max + 1],
            3,
        ),
        "too many",
    );
    assert_eq!(l, [0, 0, 0]);
    let most = ok(
        sub_group_info(k.get(), CL_KERNEL_MAX_NUM_SUB_GROUPS, &[], 1),
        "max num",
    )[0];
    assert_eq!(most, max);
    let compiled = ok(
        sub_group_info(k.get(), CL_KERNEL_COMPILE_NUM_SUB_GROUPS, &[], 1),
        "compile num",
    );
    assert_eq!(compiled, [0]);
}

#[test]
fn bad_sub_group_queries_get_the_spec_codes() {
    let e = Env::new();
    let (_p, k) = e.kernel_opts(IDS, "k", "-cl-std=CL3.0");
    let mut v = [0usize; 3];
    let call = |k: cl_kernel, name, input: *const usize, input_size| {
        cl!(clGetKernelSubGroupInfo(
            k,
            device(),
            name,
            input_size,
            input.cast(),
            std::mem::size_of_val(&v),
            v.as_ptr() as *mut _,
            null_mut()
        ))
    };
    let local = [64usize, 1, 1];
    let p = local.as_ptr();
    // No input, input of no whole size_t, of four dimensions.
    for (input, size) in [(null(), 8), (p, 0), (p, 5), (p, 32)] {
        assert_code(
            call(
                k.get(),
                CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                input,
                size,
            ),
            CL_INVALID_VALUE,
            &format!("input of {size} bytes"),
        );
    }
    assert_code(
        call(k.get(), CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, p, 16),
        CL_INVALID_VALUE,
        "a count of two size_t",
    );
    assert_code(
        call(k.get(), 0x1234, p, 8),
        CL_INVALID_VALUE,
        "unknown name",
    );
    assert_code(
        call(null_mut(), CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, p, 8),
        CL_INVALID_KERNEL,
        "no kernel",
    );
    // An answer too small for its value.
    assert_code(
        cl!(clGetKernelSubGroupInfo(
            k.get(),
            device(),
            CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
            8,
            p.cast(),
            4,
            v.as_mut_ptr().cast(),
            null_mut()
        )),
        CL_INVALID_VALUE,
        "answer of 4 bytes",
    );
    // The extension's name for the same entry point.
    let f: clGetKernelSubGroupInfoKHR_fn = extension_function("clGetKernelSubGroupInfoKHR");
    let mut n = 0usize;
    let rc = unsafe {
        f.unwrap()(
            k.get(),
            device(),
            CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
            8,
            p.cast(),
            8,
            (&mut n as *mut usize).cast(),
            null_mut(),
        )
    };
    assert_code(rc, CL_SUCCESS, "clGetKernelSubGroupInfoKHR");
    assert_eq!(n, 64usize.div_ceil(width_of(&k)));
}

#[test]
fn a_required_sub_group_size_is_the_kernels_width() {
    let e = Env::new();
    let src = format!(
        "__attribute__((intel_reqd_sub_group_size(4))) {}",
        IDS.trim_start()
    );
    let (_p, k) = e.kernel_opts(&src, "k", "-cl-std=CL3.0");
    assert_eq!(width_of(&k), 4);
    let reqd = ok(
        sub_group_info(k.get(), CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, &[], 1),
        "compile sub-group size",
    );
    assert_eq!(reqd, [4]);
    let attrs = ok(kernel_info(k.get(), CL_KERNEL_ATTRIBUTES), "attributes").string();
    assert!(attrs.contains("intel_reqd_sub_group_size(4)"), "{attrs}");
    let out = e.buffer_from(&vec![0u32; 6 * 24]);
    e.run_with(&k, &[&out], &[24], Some(&[12]));
    let got = e.read::<u32>(&out, 0, 6 * 24);
    for i in 0..24 {
        let lid = i % 12;
        assert_eq!(
            &got[6 * i..6 * i + 6],
            &[4, 4, 3, 3, (lid / 4) as u32, (lid % 4) as u32]
        );
    }
    // A size the device has not.
    let bad = "__attribute__((intel_reqd_sub_group_size(3))) __kernel void k(__global int* p) { p[0] = 1; }";
    let f = build(e.c(), bad, "")
        .err()
        .expect("a sub-group size of 3 builds");
    assert_eq!(f.code, CL_BUILD_PROGRAM_FAILURE);
    assert!(f.log.contains("intel_reqd_sub_group_size(3)"), "{}", f.log);
}

/// The work-items of one sub-group of a 1-D range, by global id.
fn sub_groups(n: usize, local: usize, w: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    for g in (0..n).step_by(local) {
        let lx = local.min(n - g);
        for s in (0..lx).step_by(w) {
            out.push((g + s..g + lx.min(s + w)).collect());
        }
    }
    out
}

/// Runs kernel `k(in, out)` of `src` over `n` ints at local size `local`;
/// returns the sub-group width and `out`.
fn run_ints(src: &str, input: &[i32], local: usize) -> (usize, Vec<i32>) {
    let e = Env::new();
    let (_p, k) = e.kernel(src, "k");
    let w = width_of(&k);
    let inb = e.buffer_from(input);
    let out = e.buffer_from(&vec![0i32; input.len()]);
    e.run_with(&k, &[&inb, &out], &[input.len()], Some(&[local]));
    (w, e.read::<i32>(&out, 0, input.len()))
}

fn input(n: usize) -> Vec<i32> {
    (0..n as i32).map(|i| (i * 37 + 11) % 101 - 50).collect()
}

#[test]
fn reductions_scans_and_broadcasts_of_whole_and_partial_sub_groups() {
    let src = r#"
    __kernel void k(__global const int* in, __global int* out) {
        size_t i = get_global_id(0);
        int x = in[i];
        int r = 0;
        r += sub_group_reduce_add(x) * 3;
        r += sub_group_reduce_min(x) * 5;
        r += sub_group_reduce_max(x) * 7;
        r += sub_group_scan_inclusive_add(x) * 11;
        int em = sub_group_scan_exclusive_max(x);
        r += (em == INT_MIN ? 0 : em) * 13;
        r += sub_group_broadcast(x, 1) * 17;
        r += sub_group_all(x > -40) * 19 + sub_group_any(x > 45) * 23;
        out[i] = r;
    }"#;
    // 60 = several whole sub-groups and a partial one per group.
    let n = 300;
    let data = input(n);
    for local in [60, 100, 1] {
        let (w, got) = run_ints(src, &data, local);
        for sg in sub_groups(n, local, w) {
            let v: Vec<i32> = sg.iter().map(|&i| data[i]).collect();
            let sum: i32 = v.iter().sum();
            let (mn, mx) = (*v.iter().min().unwrap(), *v.iter().max().unwrap());
            let all = v.iter().all(|&x| x > -40) as i32;
            let any = v.iter().any(|&x| x > 45) as i32;
            let from = *v.get(1).unwrap_or(&v[0]);
            for (lane, &i) in sg.iter().enumerate() {
                let inc: i32 = v[..=lane].iter().sum();
                let exc = v[..lane].iter().copied().max().unwrap_or(0);
                let want = sum * 3
                    + mn * 5
                    + mx * 7
                    + inc * 11
                    + exc * 13
                    + if sg.len() > 1 { from * 17 } else { 0 }
                    + all * 19
                    + any * 23;
                if sg.len() > 1 {
                    assert_eq!(got[i], want, "local {local}, item {i}, lane {lane}");
                }
            }
        }
    }
}

#[test]
fn float_sums_are_sequential_in_lane_order() {
    let src = r#"
    __kernel void k(__global const float* in, __global float* out) {
        size_t i = get_global_id(0);
        out[2 * i] = sub_group_reduce_add(in[i]);
        out[2 * i + 1] = sub_group_scan_inclusive_add(in[i]);
    }"#;
    let e = Env::new();
    let (_p, k) = e.kernel(src, "k");
    let w = width_of(&k);
    let n = 256;
    // Values whose sum depends on the order it is taken in.
    let data: Vec<f32> = (0..n)
        .map(|i| {
            if i % 3 == 0 {
                1e8
            } else {
                1.0 + i as f32 * 0.37
            }
        })
        .collect();
    let inb = e.buffer_from(&data);
    let out = e.buffer_from(&vec![0f32; 2 * n]);
    e.run_with(&k, &[&inb, &out], &[n], Some(&[64]));
    let got = e.read::<f32>(&out, 0, 2 * n);
    for sg in sub_groups(n, 64, w) {
        let mut acc = 0f32;
        let mut partial = Vec::new();
        for &i in &sg {
            acc += data[i];
            partial.push(acc);
        }
        for (lane, &i) in sg.iter().enumerate() {
            assert_eq!(got[2 * i].to_bits(), acc.to_bits(), "sum at {i}");
            assert_eq!(
                got[2 * i + 1].to_bits(),
                partial[lane].to_bits(),
                "scan at {i}"
            );
        }
    }
}

#[test]
fn non_uniform_functions_see_the_active_work_items_only() {
    let src = r#"
    __kernel void k(__global const int* in, __global int* out) {
        size_t i = get_global_id(0);
        int x = in[i];
        int r = -1;
        if (x % 3 != 0) {
            uint4 b = sub_group_ballot(x > 0);
            r = sub_group_non_uniform_reduce_add(x) * 3
              + sub_group_non_uniform_scan_exclusive_add(x) * 5
              + sub_group_elect() * 7
              + sub_group_non_uniform_all(x != 0) * 11
              + sub_group_broadcast_first(x) * 13
              + (int)sub_group_ballot_bit_count(b) * 17
              + sub_group_non_uniform_all_equal(x % 3) * 19;
        }
        out[i] = r;
    }"#;
    let n = 320;
    let data = input(n);
    for local in [40, 64] {
        let (w, got) = run_ints(src, &data, local);
        for sg in sub_groups(n, local, w) {
            let active: Vec<usize> = sg.iter().copied().filter(|&i| data[i] % 3 != 0).collect();
            let v: Vec<i32> = active.iter().map(|&i| data[i]).collect();
            for &i in &sg {
                let Some(pos) = active.iter().position(|&a| a == i) else {
                    assert_eq!(got[i], -1, "inactive {i}");
                    continue;
                };
                let sum: i32 = v.iter().sum();
                let exc: i32 = v[..pos].iter().sum();
                let positive = v.iter().filter(|&&x| x > 0).count() as i32;
                let same = v.iter().all(|&x| x % 3 == v[0] % 3) as i32;
                let want = sum * 3
                    + exc * 5
                    + (pos == 0) as i32 * 7
                    + 11
                    + v[0] * 13
                    + positive * 17
                    + same * 19;
                assert_eq!(got[i], want, "local {local} item {i}");
            }
        }
    }
}

#[test]
fn a_loop_of_varying_trip_count_runs_its_collectives_with_the_lanes_still_in_it() {
    let src = r#"
    __kernel void k(__global const int* in, __global int* out) {
        size_t i = get_global_id(0);
        uint lane = get_sub_group_local_id();
        int acc = 0;
        for (uint t = 0; t < lane % 5; t++)
            acc += sub_group_non_uniform_reduce_add((int)t + 1);
        out[i] = acc + sub_group_reduce_max(acc) * 1000;
    }"#;
    let n = 128;
    let (w, got) = run_ints(src, &vec![0; n], 64);
    for sg in sub_groups(n, 64, w) {
        let trips: Vec<u32> = (0..sg.len() as u32).map(|l| l % 5).collect();
        let accs: Vec<i32> = trips
            .iter()
            .map(|&my| {
                (0..my)
                    .map(|t| trips.iter().filter(|&&o| o > t).count() as i32 * (t as i32 + 1))
                    .sum()
            })
            .collect();
        let mx = *accs.iter().max().unwrap();
        for (lane, &i) in sg.iter().enumerate() {
            assert_eq!(got[i], accs[lane] + mx * 1000, "item {i}");
        }
    }
}

#[test]
fn shuffles_rotations_and_clustered_reductions() {
    let src = r#"
    __kernel void k(__global const int* in, __global int* out) {
        size_t i = get_global_id(0);
        int x = in[i];
        uint lane = get_sub_group_local_id();
        uint n = get_sub_group_size();
        int r = sub_group_shuffle(x, (lane + 3) % n)
              + sub_group_shuffle_xor(x, 1) * 3
              + sub_group_shuffle_up(x, lane > 0 ? 1 : 0) * 5
              + sub_group_shuffle_down(x, lane + 1 < n ? 1 : 0) * 7
              + sub_group_rotate(x, -2) * 11
              + sub_group_clustered_rotate(x, 1, 4) * 13
              + sub_group_clustered_reduce_add(x, 4) * 17
              + sub_group_clustered_reduce_max(x, 2) * 19;
        out[i] = r;
    }"#;
    let n = 256;
    let data = input(n);
    let (w, got) = run_ints(src, &data, 64);
    assert!(w >= 4 && 64 % w == 0);
    for sg in sub_groups(n, 64, w) {
        let v: Vec<i32> = sg.iter().map(|&i| data[i]).collect();
        let len = v.len();
        for (lane, &i) in sg.iter().enumerate() {
            let c4 = lane / 4 * 4;
            let c2 = lane / 2 * 2;
            let want = v[(lane + 3) % len]
                + v[lane ^ 1] * 3
                + v[lane.saturating_sub(1)] * 5
                + v[if lane + 1 < len { lane + 1 } else { lane }] * 7
                + v[(lane + len - 2) % len] * 11
                + v[c4 + (lane + 1) % 4] * 13
                + v[c4..c4 + 4].iter().sum::<i32>() * 17
                + v[c2].max(v[c2 + 1]) * 19;
            assert_eq!(got[i], want, "item {i}");
        }
    }
}

#[test]
fn ballot_bit_operations_and_masks() {
    let src = r#"
    __kernel void k(__global const int* in, __global int* out) {
        size_t i = get_global_id(0);
        int x = in[i];
        uint4 b = sub_group_ballot(x & 1);
        out[8 * i + 0] = b.x;
        out[8 * i + 1] = sub_group_inverse_ballot(b);
        out[8 * i + 2] = sub_group_ballot_bit_extract(b, 2);
        out[8 * i + 3] = sub_group_ballot_inclusive_scan(b);
        out[8 * i + 4] = sub_group_ballot_exclusive_scan(b);
        out[8 * i + 5] = sub_group_ballot_find_lsb(b) + 100 * sub_group_ballot_find_msb(b);
        out[8 * i + 6] = get_sub_group_lt_mask().x;
        out[8 * i + 7] = get_sub_group_ge_mask().x;
    }"#;
    let e = Env::new();
    let (_p, k) = e.kernel(src, "k");
    let w = width_of(&k);
    assert!(w <= 32);
    let n = 128;
    let data: Vec<i32> = (0..n as i32).map(|i| (i * 7 / 3) ^ (i >> 2)).collect();
    let inb = e.buffer_from(&data);
    let out = e.buffer_from(&vec![0i32; 8 * n]);
    e.run_with(&k, &[&inb, &out], &[n], Some(&[64]));
    let got = e.read::<i32>(&out, 0, 8 * n);
    for sg in sub_groups(n, 64, w) {
        let bits: u32 = sg
            .iter()
            .enumerate()
            .map(|(l, &i)| ((data[i] & 1) as u32) << l)
            .sum();
        for (lane, &i) in sg.iter().enumerate() {
            let below = (1u64 << lane) as u32 - 1;
            let want = [
                bits as i32,
                ((bits >> lane) & 1) as i32,
                ((bits >> 2) & 1) as i32,
                (bits & (below << 1 | 1)).count_ones() as i32,
                (bits & below).count_ones() as i32,
                (bits.trailing_zeros() + 100 * (31 - bits.leading_zeros())) as i32,
                below as i32,
                (((1u64 << w) - 1) as u32 & !below) as i32,
            ];
            if bits != 0 {
                assert_eq!(&got[8 * i..8 * i + 8], &want[..], "item {i}");
            }
        }
    }
}

#[test]
fn sub_group_collectives_between_work_group_barriers() {
    // Partial sums per sub-group into local memory, a work-group barrier,
    // then a sub-group broadcast of the first sub-group's sum of sums.
    let src = r#"
    __kernel void k(__global const int* in, __global int* out) {
        __local int part[64];
        size_t i = get_global_id(0);
        int s = sub_group_reduce_add(in[i]);
        if (get_sub_group_local_id() == 0) part[get_sub_group_id()] = s;
        barrier(CLK_LOCAL_MEM_FENCE);
        int total = 0;
        if (get_sub_group_id() == 0) {
            int p = get_sub_group_local_id() < get_num_sub_groups()
                  ? part[get_sub_group_local_id()] : 0;
            total = sub_group_reduce_add(p);
            if (get_sub_group_local_id() == 0) part[0] = total;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        out[i] = part[0] * 2 + sub_group_scan_inclusive_add(1);
    }"#;
    let n = 512;
    let data = input(n);
    for local in [64, 32] {
        let (w, got) = run_ints(src, &data, local);
        if local / w > w {
            continue;
        }
        for sg in sub_groups(n, local, w) {
            let g = sg[0] / local * local;
            let total: i32 = data[g..g + local].iter().sum();
            for (lane, &i) in sg.iter().enumerate() {
                assert_eq!(
                    got[i],
                    total * 2 + lane as i32 + 1,
                    "local {local} item {i}"
                );
            }
        }
    }
}

#[test]
fn extended_types_broadcast_vectors_and_reduce_small_integers() {
    let src = r#"
    __kernel void k(__global const int* in, __global int* out) {
        size_t i = get_global_id(0);
        int x = in[i];
        double4 v = (double4)(x, x + 1, x * 2, -x);
        double4 b = sub_group_broadcast(v, 2);
        char c = sub_group_reduce_add((char)x);
        ushort m = sub_group_reduce_max((ushort)(x & 0xffff));
        out[i] = (int)(b.x + b.y * 3 + b.z * 5 + b.w * 7) + c * 11 + (int)m * 13;
    }"#;
    let n = 128;
    let data = input(n);
    let (w, got) = run_ints(src, &data, 64);
    for sg in sub_groups(n, 64, w) {
        let v: Vec<i32> = sg.iter().map(|&i| data[i]).collect();
        let x = v[2] as f64;
        let b = (x + (x + 1.0) * 3.0 + x * 2.0 * 5.0 - x * 7.0) as i32;
        let c = v.iter().fold(0i8, |a, &x| a.wrapping_add(x as i8)) as i32;
        let m = v.iter().map(|&x| (x & 0xffff) as u16).max().unwrap() as i32;
        for &i in &sg {
            assert_eq!(got[i], b + c * 11 + m * 13, "item {i}");
        }
    }
}

/// A kernel of the sub-group functions a vector form computes across its
/// lanes (and of floats, whose sums depend on their order).
const ACROSS_LANES: &str = r#"
__kernel void across(__global const float* in, __global const int* ints, __global float* out) {
    size_t i = get_global_id(0);
    float x = in[i];
    int n = ints[i];
    uint lane = get_sub_group_local_id();
    float r = sub_group_reduce_add(x) + 3.0f * sub_group_scan_inclusive_add(x)
            + 5.0f * sub_group_scan_exclusive_add(x) + 7.0f * sub_group_reduce_min(x)
            + 11.0f * sub_group_scan_inclusive_max(x) + 13.0f * sub_group_broadcast(x, 2)
            + 17.0f * sub_group_shuffle(x, (lane * 5 + 1) % get_sub_group_size())
            + 19.0f * sub_group_shuffle_xor(x, 3);
    int s = sub_group_reduce_add(n) + 3 * sub_group_scan_exclusive_min(n)
          + 5 * sub_group_scan_inclusive_add(n) + 7 * (int)sub_group_reduce_max((uint)n)
          + 11 * sub_group_all(n > -90) + 13 * sub_group_any(n > 90)
          + 17 * (int)sub_group_non_uniform_reduce_add((long)n);
    out[2 * i] = r;
    out[2 * i + 1] = (float)s;
}
"#;

/// Writes the output of `ACROSS_LANES` (in work-groups of 4 sub-groups and
/// a partial one of 4) to the file `FERROCL_TEST_OUT` names; run in a child by
/// the test below.
#[test]
#[ignore]
fn across_lanes_child() {
    let Some(path) = std::env::var_os("FERROCL_TEST_OUT") else {
        return;
    };
    let e = Env::new();
    let (_p, k) = e.kernel(ACROSS_LANES, "across");
    let w = width_of(&k);
    let (local, groups) = (4 * w + 4, 6);
    let n = local * groups;
    let data: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 1013) as f32 * 0.731 - 300.0)
        .collect();
    let ints: Vec<i32> = (0..n as i32).map(|i| (i * 37 + 11) % 199 - 99).collect();
    let (a, b) = (e.buffer_from(&data), e.buffer_from(&ints));
    let out = e.buffer_from(&vec![0f32; 2 * n]);
    e.run_with(&k, &[&a, &b, &out], &[n], Some(&[local]));
    let got = e.read::<f32>(&out, 0, 2 * n);
    let bytes: Vec<u8> = got.iter().flat_map(|f| f.to_le_bytes()).collect();
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn whole_sub_groups_run_as_vectors_and_give_the_scalar_bits() {
    let dir = temp_dir("sub-group-forms");
    let run = |vectorize: &str| -> Vec<u8> {
        let out = dir.join(format!("out-{vectorize}"));
        let dump = dir.join(format!("ir-{vectorize}"));
        std::fs::create_dir_all(&dump).unwrap();
        let exe = std::env::current_exe().unwrap();
        let status = std::process::Command::new(exe)
            .args([
                "--exact",
                "across_lanes_child",
                "--include-ignored",
                "--nocapture",
            ])
            .env("FERROCL_TEST_OUT", &out)
            .env("FERROCL_VECTORIZE", vectorize)
            .env("FERROCL_DUMP_DIR", &dump)
            .env("FERROCL_CACHE", "0")
            .output()
            .unwrap();
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
        std::fs::read(out).unwrap()
    };
    let (vector, scalar) = (run("1"), run("0"));
    assert!(!vector.is_empty());
    assert_eq!(vector, scalar, "vector and scalar forms differ");
    // The vector form ran: its reductions are LLVM's, across lanes.
    let ir_of = |sub: &str| -> String {
        std::fs::read_dir(dir.join(sub))
            .unwrap()
            .map(|f| f.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "ll"))
            .map(|p| std::fs::read_to_string(p).unwrap())
            .collect()
    };
    let ir = ir_of("ir-1");
    assert!(ir.contains("llvm.vector.reduce.fadd"), "no vector form");
    let scalar_ir = ir_of("ir-0");
    assert!(!scalar_ir.contains("llvm.vector.reduce.fadd"));
}
