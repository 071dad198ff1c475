//! Executing kernels (OpenCL 3.0 API spec, section 5.10 "Executing Kernels":
//! clEnqueueNDRangeKernel, clEnqueueTask) and the work-item functions of the
//! OpenCL C spec (section 6.15.1).

use ferrocl_tests::*;
use std::ptr::{null, null_mut};

/// Each work-item writes FIELDS uints at its linear index (offsets removed):
/// for d in 0..3: global_id, local_id, group_id, global_size, local_size,
/// num_groups, global_offset; then work_dim.
const FIELDS: usize = 22;
const IDS_SRC: &str = r#"
__kernel void ids(__global uint* out) {
    size_t g0 = get_global_id(0) - get_global_offset(0);
    size_t g1 = get_global_id(1) - get_global_offset(1);
    size_t g2 = get_global_id(2) - get_global_offset(2);
    size_t lin = (g2 * get_global_size(1) + g1) * get_global_size(0) + g0;
    __global uint* o = out + lin * 22;
    for (uint d = 0; d < 3; d++) {
        o[d * 7 + 0] = (uint)get_global_id(d);
        o[d * 7 + 1] = (uint)get_local_id(d);
        o[d * 7 + 2] = (uint)get_group_id(d);
        o[d * 7 + 3] = (uint)get_global_size(d);
        o[d * 7 + 4] = (uint)get_local_size(d);
        o[d * 7 + 5] = (uint)get_num_groups(d);
        o[d * 7 + 6] = (uint)get_global_offset(d);
    }
    o[21] = get_work_dim();
}
"#;

const WRITE_ONE_SRC: &str = r#"
__kernel void one(__global uint* out) { out[get_global_id(0)] = 1u; }
"#;

const NOOP3_SRC: &str = r#"
__kernel void noop(__global uint* out) { if (get_global_id(0) == 0 && get_global_id(1) == 0 && get_global_id(2) == 0) out[0] = 1u; }
"#;

fn dev_usizes(name: cl_device_info) -> Vec<usize> {
    ok(device_info(device(), name), "clGetDeviceInfo").usizes()
}

fn kernel_wg_size(k: &Kern) -> usize {
    ok(
        kernel_wg_info(k.get(), device(), CL_KERNEL_WORK_GROUP_SIZE),
        "CL_KERNEL_WORK_GROUP_SIZE",
    )
    .usize()
}

/// Runs the ids kernel over `global` (with `offset` and `local`) and checks
/// every work-item's values on the host.
#[track_caller]
fn check_ids(
    e: &Env,
    k: &Kern,
    global: &[usize],
    offset: Option<&[usize]>,
    local: Option<&[usize]>,
) {
    let dim = global.len();
    let total: usize = global.iter().product();
    let out = e.buffer_from(&vec![u32::MAX; total * FIELDS]);
    ok(set_mem(k.get(), 0, &out), "set arg");
    check(
        e.enqueue(k, offset, global, local),
        "clEnqueueNDRangeKernel",
    );
    e.finish();
    let v = e.read::<u32>(&out, 0, total * FIELDS);

    let g3 = |d: usize| if d < dim { global[d] } else { 1 };
    let o3 = |d: usize| {
        if d < dim {
            offset.map_or(0, |o| o[d])
        } else {
            0
        }
    };
    let ctx = format!("global {global:?}, offset {offset:?}, local {local:?}");

    // The local size: given, or chosen by the implementation (then it must be
    // the same for every work-item, uniform, and within the kernel's limit).
    let first = &v[..FIELDS];
    let l3: Vec<usize> = (0..3)
        .map(|d| match local {
            Some(l) if d < dim => l[d],
            _ if d < dim => first[d * 7 + 4] as usize,
            _ => 1,
        })
        .collect();
    for d in 0..3 {
        assert!(l3[d] >= 1, "{ctx}: local size {d} is {}", l3[d]);
        assert_eq!(
            g3(d) % l3[d],
            0,
            "{ctx}: chosen local size {l3:?} does not divide the global size"
        );
    }
    assert!(
        l3.iter().product::<usize>() <= kernel_wg_size(k),
        "{ctx}: local size {l3:?} above CL_KERNEL_WORK_GROUP_SIZE"
    );

    for lin in 0..total {
        let g = [lin % g3(0), (lin / g3(0)) % g3(1), lin / (g3(0) * g3(1))];
        let o = &v[lin * FIELDS..(lin + 1) * FIELDS];
        for d in 0..3 {
            let want = [
                g[d] + o3(d),  // global id
                g[d] % l3[d],  // local id
                g[d] / l3[d],  // group id
                g3(d),         // global size
                l3[d],         // local size
                g3(d) / l3[d], // number of groups
                o3(d),         // global offset
            ];
            for (f, w) in want.iter().enumerate() {
                assert_eq!(
                    o[d * 7 + f] as usize,
                    *w,
                    "{ctx}: work-item {g:?}, dim {d}, field {f}"
                );
            }
            // global = group * local + local_id + offset
            assert_eq!(
                o[d * 7] as usize,
                o[d * 7 + 2] as usize * o[d * 7 + 4] as usize
                    + o[d * 7 + 1] as usize
                    + o[d * 7 + 6] as usize,
                "{ctx}: work-item {g:?} dim {d} is not self-consistent"
            );
        }
        assert_eq!(o[21] as usize, dim, "{ctx}: get_work_dim");
    }
}

fn ids_kernel(e: &Env) -> (Prog, Kern) {
    e.kernel(IDS_SRC, "ids")
}

// ---------------------------------------------------------------------------
// work-item functions

#[test]
fn ids_1d_with_explicit_local_size() {
    let e = Env::new();
    let (_p, k) = ids_kernel(&e);
    check_ids(&e, &k, &[64], None, Some(&[16]));
    check_ids(&e, &k, &[60], None, Some(&[1]));
    check_ids(&e, &k, &[60], None, Some(&[60]));
}

#[test]
fn ids_1d_with_offset() {
    let e = Env::new();
    let (_p, k) = ids_kernel(&e);
    check_ids(&e, &k, &[48], Some(&[5]), Some(&[8]));
    check_ids(&e, &k, &[48], Some(&[1000]), None);
}

#[test]
fn ids_1d_with_null_local_size() {
    let e = Env::new();
    let (_p, k) = ids_kernel(&e);
    for g in [1usize, 37, 64, 100, 4096] {
        check_ids(&e, &k, &[g], None, None);
    }
}

#[test]
fn ids_2d_with_explicit_local_size() {
    let e = Env::new();
    let (_p, k) = ids_kernel(&e);
    check_ids(&e, &k, &[12, 10], None, Some(&[4, 5]));
    check_ids(&e, &k, &[8, 6], None, Some(&[1, 6]));
}

#[test]
fn ids_2d_with_offset() {
    let e = Env::new();
    let (_p, k) = ids_kernel(&e);
    check_ids(&e, &k, &[12, 10], Some(&[3, 7]), Some(&[6, 2]));
    check_ids(&e, &k, &[12, 10], Some(&[3, 7]), None);
}

#[test]
fn ids_2d_with_null_local_size() {
    let e = Env::new();
    let (_p, k) = ids_kernel(&e);
    check_ids(&e, &k, &[12, 10], None, None);
    check_ids(&e, &k, &[7, 13], None, None);
    check_ids(&e, &k, &[64, 64], None, None);
}

#[test]
fn ids_3d_with_explicit_local_size() {
    let e = Env::new();
    let (_p, k) = ids_kernel(&e);
    check_ids(&e, &k, &[6, 4, 10], None, Some(&[3, 2, 5]));
    check_ids(&e, &k, &[4, 4, 4], None, Some(&[4, 4, 4]));
}

#[test]
fn ids_3d_with_offset() {
    let e = Env::new();
    let (_p, k) = ids_kernel(&e);
    check_ids(&e, &k, &[6, 4, 10], Some(&[1, 2, 3]), Some(&[2, 4, 5]));
    check_ids(&e, &k, &[6, 4, 10], Some(&[9, 8, 7]), None);
}

#[test]
fn ids_3d_with_null_local_size() {
    let e = Env::new();
    let (_p, k) = ids_kernel(&e);
    check_ids(&e, &k, &[6, 4, 10], None, None);
    check_ids(&e, &k, &[5, 7, 3], None, None);
    check_ids(&e, &k, &[16, 16, 16], None, None);
}

// ---------------------------------------------------------------------------
// invalid ranges

#[test]
fn work_dim_zero_or_above_max_is_invalid_work_dimension() {
    let e = Env::new();
    let (_p, k) = e.kernel(WRITE_ONE_SRC, "one");
    let out = e.buffer(4 * 64);
    ok(set_mem(k.get(), 0, &out), "arg");
    let max = ok(
        device_info(device(), CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS),
        "MAX_WORK_ITEM_DIMENSIONS",
    )
    .u32();
    let g = [1usize; 8];
    for dim in [0, max + 1] {
        let rc = cl!(clEnqueueNDRangeKernel(
            e.q(),
            k.get(),
            dim,
            null(),
            g.as_ptr(),
            null(),
            0,
            null(),
            null_mut()
        ));
        assert_code(rc, CL_INVALID_WORK_DIMENSION, &format!("work_dim {dim}"));
    }
    if max == 3 {
        let rc = cl!(clEnqueueNDRangeKernel(
            e.q(),
            k.get(),
            4,
            null(),
            g.as_ptr(),
            null(),
            0,
            null(),
            null_mut()
        ));
        assert_code(rc, CL_INVALID_WORK_DIMENSION, "work_dim 4");
    }
}

#[test]
fn zero_global_size_succeeds_and_runs_nothing() {
    // OpenCL 2.1+ device: "If ... the value in any passed dimension is zero
    // then the kernel command will trivially succeed after its event
    // dependencies are satisfied and subsequently update its completion event."
    let e = Env::new();
    let (_p, k) = e.kernel(NOOP3_SRC, "noop");
    let out = e.buffer_from(&[0u32; 4]);
    ok(set_mem(k.get(), 0, &out), "arg");
    for global in [vec![0usize], vec![4, 0], vec![0, 4, 4]] {
        let mut evt = null_mut();
        let rc = cl!(clEnqueueNDRangeKernel(
            e.q(),
            k.get(),
            global.len() as cl_uint,
            null(),
            global.as_ptr(),
            null(),
            0,
            null(),
            &mut evt
        ));
        check(rc, &format!("global {global:?}"));
        let evt = ev(evt);
        evt.wait();
        assert_eq!(evt.status(), CL_COMPLETE);
    }
    assert_eq!(
        e.read::<u32>(&out, 0, 4),
        vec![0; 4],
        "a zero-sized range must not run the kernel"
    );
}

#[test]
fn null_global_size_succeeds_and_runs_nothing() {
    let e = Env::new();
    let (_p, k) = e.kernel(NOOP3_SRC, "noop");
    let out = e.buffer_from(&[0u32; 4]);
    ok(set_mem(k.get(), 0, &out), "arg");
    let rc = cl!(clEnqueueNDRangeKernel(
        e.q(),
        k.get(),
        1,
        null(),
        null(),
        null(),
        0,
        null(),
        null_mut()
    ));
    check(rc, "global_work_size NULL");
    e.finish();
    assert_eq!(e.read::<u32>(&out, 0, 4), vec![0; 4]);
}

#[test]
fn local_size_not_dividing_global_is_invalid_work_group_size() {
    // Programs built without -cl-std=CL2.0 or newer need uniform work-groups.
    let e = Env::new();
    let (_p, k) = e.kernel(WRITE_ONE_SRC, "one");
    let out = e.buffer(4 * 64);
    ok(set_mem(k.get(), 0, &out), "arg");
    assert_code(
        e.enqueue(&k, None, &[10], Some(&[4])),
        CL_INVALID_WORK_GROUP_SIZE,
        "10 / 4",
    );
    let (_p2, k2) = e.kernel(NOOP3_SRC, "noop");
    ok(set_mem(k2.get(), 0, &out), "arg");
    assert_code(
        e.enqueue(&k2, None, &[4, 9], Some(&[2, 2])),
        CL_INVALID_WORK_GROUP_SIZE,
        "(4,9) / (2,2)",
    );
}

#[test]
fn uniform_work_group_size_option_requires_divisible_global() {
    let e = Env::new();
    let (_p, k) = e.kernel_opts(
        WRITE_ONE_SRC,
        "one",
        "-cl-std=CL3.0 -cl-uniform-work-group-size",
    );
    let out = e.buffer(4 * 64);
    ok(set_mem(k.get(), 0, &out), "arg");
    assert_code(
        e.enqueue(&k, None, &[10], Some(&[4])),
        CL_INVALID_WORK_GROUP_SIZE,
        "-cl-uniform-work-group-size, 10 / 4",
    );
}

#[test]
fn non_uniform_work_groups_follow_device_support() {
    let e = Env::new();
    let supported = ok(
        device_info(device(), CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT),
        "NON_UNIFORM_WORK_GROUP_SUPPORT",
    )
    .bool();
    let src = r#"
__kernel void nu(__global uint* out) {
    size_t g = get_global_id(0);
    out[2 * g] = (uint)get_local_size(0);
    out[2 * g + 1] = (uint)get_enqueued_local_size(0);
}
"#;
    let (_p, k) = e.kernel_opts(src, "nu", "-cl-std=CL3.0");
    let out = e.buffer_from(&[0u32; 20]);
    ok(set_mem(k.get(), 0, &out), "arg");
    let rc = e.enqueue(&k, None, &[10], Some(&[4]));
    if !supported {
        assert_code(
            rc,
            CL_INVALID_WORK_GROUP_SIZE,
            "10 / 4 on a device without non-uniform work-groups",
        );
        return;
    }
    check(rc, "10 / 4 with non-uniform work-groups");
    e.finish();
    let v = e.read::<u32>(&out, 0, 20);
    for g in 0..10 {
        let want_local = if g < 8 { 4 } else { 2 };
        assert_eq!(v[2 * g], want_local, "get_local_size of work-item {g}");
        assert_eq!(v[2 * g + 1], 4, "get_enqueued_local_size of work-item {g}");
    }
}

#[test]
fn local_size_zero_is_invalid_work_group_size() {
    let e = Env::new();
    let (_p, k) = e.kernel(WRITE_ONE_SRC, "one");
    let out = e.buffer(4 * 64);
    ok(set_mem(k.get(), 0, &out), "arg");
    assert_code(
        e.enqueue(&k, None, &[8], Some(&[0])),
        CL_INVALID_WORK_GROUP_SIZE,
        "local size 0",
    );
}

#[test]
fn local_size_above_kernel_work_group_size_is_invalid_work_group_size() {
    let e = Env::new();
    let (_p, k) = e.kernel(NOOP3_SRC, "noop");
    let out = e.buffer(64);
    ok(set_mem(k.get(), 0, &out), "arg");
    let kwg = kernel_wg_size(&k);
    let mwis = dev_usizes(CL_DEVICE_MAX_WORK_ITEM_SIZES);
    // Every dimension within CL_DEVICE_MAX_WORK_ITEM_SIZES, the product above
    // CL_KERNEL_WORK_GROUP_SIZE.
    let l = [mwis[0].min(kwg), mwis[1].min(2), mwis[2].min(2)];
    if l.iter().product::<usize>() <= kwg {
        eprintln!(
            "skipped: max work-item sizes {mwis:?} cannot exceed kernel work-group size {kwg}"
        );
        return;
    }
    assert_code(
        e.enqueue(&k, None, &l, Some(&l)),
        CL_INVALID_WORK_GROUP_SIZE,
        &format!("local {l:?}, kernel limit {kwg}"),
    );
}

#[test]
fn local_size_above_max_work_item_size_is_rejected() {
    let e = Env::new();
    let (_p, k) = e.kernel(NOOP3_SRC, "noop");
    let out = e.buffer(64);
    ok(set_mem(k.get(), 0, &out), "arg");
    let kwg = kernel_wg_size(&k);
    let mwis = dev_usizes(CL_DEVICE_MAX_WORK_ITEM_SIZES);
    for d in 0..3 {
        let mut l = [1usize; 3];
        l[d] = mwis[d] + 1;
        let rc = e.enqueue(&k, None, &l, Some(&l));
        if mwis[d] + 1 <= kwg {
            // Only the per-dimension limit is exceeded.
            assert_code(
                rc,
                CL_INVALID_WORK_ITEM_SIZE,
                &format!("local {l:?}, max sizes {mwis:?}"),
            );
        } else {
            // Both limits are exceeded; the spec lists both errors.
            assert!(
                rc == CL_INVALID_WORK_ITEM_SIZE || rc == CL_INVALID_WORK_GROUP_SIZE,
                "local {l:?}: got {} ({rc})",
                err_name(rc)
            );
        }
    }
}

#[test]
fn reqd_work_group_size_mismatch_is_invalid_work_group_size() {
    let e = Env::new();
    let src = r#"
__kernel __attribute__((reqd_work_group_size(4,1,1)))
void reqd(__global uint* out) { out[get_global_id(0)] = (uint)get_local_size(0); }
"#;
    let (_p, k) = e.kernel(src, "reqd");
    let out = e.buffer_from(&[0u32; 16]);
    ok(set_mem(k.get(), 0, &out), "arg");
    assert_code(
        e.enqueue(&k, None, &[16], Some(&[8])),
        CL_INVALID_WORK_GROUP_SIZE,
        "local 8 vs reqd 4",
    );
    assert_code(
        e.enqueue(&k, None, &[16], Some(&[2])),
        CL_INVALID_WORK_GROUP_SIZE,
        "local 2 vs reqd 4",
    );
    e.run(&k, &[16], Some(&[4]));
    assert_eq!(e.read::<u32>(&out, 0, 16), vec![4; 16]);
}

#[test]
fn reqd_work_group_size_is_used_when_local_size_is_null() {
    // OpenCL C: reqd_work_group_size "is the work-group size that must be
    // used as the local_work_size argument".
    let e = Env::new();
    let src = r#"
__kernel __attribute__((reqd_work_group_size(4,1,1)))
void reqd(__global uint* out) { out[get_global_id(0)] = (uint)get_local_size(0); }
"#;
    let (_p, k) = e.kernel(src, "reqd");
    let out = e.buffer_from(&[0u32; 16]);
    ok(set_mem(k.get(), 0, &out), "arg");
    e.run(&k, &[16], None);
    assert_eq!(e.read::<u32>(&out, 0, 16), vec![4; 16]);
}

#[test]
fn global_offset_overflow_is_invalid_global_offset() {
    let e = Env::new();
    let (_p, k) = e.kernel(WRITE_ONE_SRC, "one");
    let out = e.buffer(64);
    ok(set_mem(k.get(), 0, &out), "arg");
    assert_code(
        e.enqueue(&k, Some(&[usize::MAX - 1]), &[4], None),
        CL_INVALID_GLOBAL_OFFSET,
        "offset + global > SIZE_MAX",
    );
}

// ---------------------------------------------------------------------------
// tasks, local memory, barriers, large ranges

#[test]
fn enqueue_task_runs_one_work_item() {
    let e = Env::new();
    let src = r#"
__kernel void task(__global uint* out) {
    out[0] += 1;
    out[1] = (uint)get_global_size(0);
    out[2] = (uint)get_local_size(0);
    out[3] = get_work_dim();
    out[4] = (uint)get_global_id(0);
    out[5] = (uint)get_num_groups(0);
}
"#;
    let (_p, k) = e.kernel(src, "task");
    let out = e.buffer_from(&[0u32, 9, 9, 9, 9, 9]);
    ok(set_mem(k.get(), 0, &out), "arg");
    check(
        cl!(clEnqueueTask(e.q(), k.get(), 0, null(), null_mut())),
        "clEnqueueTask",
    );
    e.finish();
    assert_eq!(e.read::<u32>(&out, 0, 6), vec![1, 1, 1, 1, 0, 1]);
}

#[test]
fn local_variable_slots_per_work_item() {
    let e = Env::new();
    let src = r#"
__kernel void lv(__global uint* out) {
    __local uint slots[64];
    size_t l = get_local_id(0);
    slots[l] = (uint)get_global_id(0) * 3u + 1u;
    out[get_global_id(0)] = slots[l];
}
"#;
    let (_p, k) = e.kernel(src, "lv");
    let n = 1024;
    let out = e.buffer(n * 4);
    ok(set_mem(k.get(), 0, &out), "arg");
    e.run(&k, &[n], Some(&[64]));
    assert_eq!(
        e.read::<u32>(&out, 0, n),
        (0..n as u32).map(|g| g * 3 + 1).collect::<Vec<_>>()
    );
}

#[test]
fn local_arg_slots_per_work_item() {
    let e = Env::new();
    let src = r#"
__kernel void la(__global uint* out, __local uint* slots) {
    size_t l = get_local_id(0);
    slots[l] = (uint)get_global_id(0) ^ 0x5a5au;
    out[get_global_id(0)] = slots[l];
}
"#;
    let (_p, k) = e.kernel(src, "la");
    let n = 2048;
    let out = e.buffer(n * 4);
    ok(set_mem(k.get(), 0, &out), "arg 0");
    ok(set_local(k.get(), 1, 32 * 4), "arg 1 (__local)");
    e.run(&k, &[n], Some(&[32]));
    assert_eq!(
        e.read::<u32>(&out, 0, n),
        (0..n as u32).map(|g| g ^ 0x5a5a).collect::<Vec<_>>()
    );
}

#[test]
fn large_1d_range_is_correct() {
    let e = Env::new();
    let src = r#"
__kernel void big(__global uint* out) {
    uint i = (uint)get_global_id(0);
    out[i] = i * 2654435761u + 12345u;
}
"#;
    let (_p, k) = e.kernel(src, "big");
    let n = 1usize << 22;
    let out = e.buffer(n * 4);
    ok(set_mem(k.get(), 0, &out), "arg");
    e.run(&k, &[n], None);
    let got = e.read::<u32>(&out, 0, n);
    for (i, v) in got.iter().enumerate() {
        assert_eq!(
            *v,
            (i as u32).wrapping_mul(2654435761).wrapping_add(12345),
            "item {i}"
        );
    }
}

#[test]
fn many_small_work_groups_are_correct() {
    let e = Env::new();
    let src = r#"
__kernel void groups(__global uint* out) {
    out[get_global_id(0)] = (uint)(get_group_id(0) * 1000u + get_local_id(0));
}
"#;
    let (_p, k) = e.kernel(src, "groups");
    let (n, l) = (1usize << 18, 8usize);
    let out = e.buffer(n * 4);
    ok(set_mem(k.get(), 0, &out), "arg");
    e.run(&k, &[n], Some(&[l]));
    let got = e.read::<u32>(&out, 0, n);
    for (g, v) in got.iter().enumerate() {
        assert_eq!(*v as usize, (g / l) * 1000 + g % l, "item {g}");
    }
}

#[test]
fn large_2d_range_is_correct() {
    let e = Env::new();
    let src = r#"
__kernel void big2(__global uint* out) {
    size_t x = get_global_id(0), y = get_global_id(1);
    out[y * get_global_size(0) + x] = (uint)(x * 7u + y * 131u);
}
"#;
    let (_p, k) = e.kernel(src, "big2");
    let (w, h) = (1024usize, 768usize);
    let out = e.buffer(w * h * 4);
    ok(set_mem(k.get(), 0, &out), "arg");
    e.run(&k, &[w, h], None);
    let got = e.read::<u32>(&out, 0, w * h);
    for y in 0..h {
        for x in 0..w {
            assert_eq!(got[y * w + x] as usize, x * 7 + y * 131, "({x}, {y})");
        }
    }
}

#[test]
fn a_null_local_size_follows_the_work_group_size_hint_where_it_fits() {
    let e = Env::new();
    let src = r#"
    __kernel __attribute__((work_group_size_hint(8, 2, 1)))
    void k(__global uint* out) {
        size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);
        out[i] = (uint)(get_local_size(0) * 100 + get_local_size(1));
    }"#;
    let (_p, k) = e.kernel(src, "k");
    for (global, want) in [([64usize, 4usize], Some(802u32)), ([63, 3], None)] {
        let n = global[0] * global[1];
        let out = e.buffer_from(&vec![0u32; n]);
        ok(set_mem(k.get(), 0, &out), "arg");
        e.run(&k, &global, None);
        let got = e.read::<u32>(&out, 0, n);
        match want {
            Some(w) => assert_eq!(got, vec![w; n], "{global:?}"),
            // The hint does not divide the range: some size that does.
            None => {
                let (lx, ly) = ((got[0] / 100) as usize, (got[0] % 100) as usize);
                assert!(
                    global[0] % lx == 0 && global[1] % ly == 0,
                    "{global:?}: {lx}x{ly}"
                );
            }
        }
    }
}

/// Buffers larger than the device's cache are written around the cache
/// (when the kernel only writes them): the results must be whole all the
/// same, also when the same kernel later runs on small buffers.
#[test]
fn kernels_writing_buffers_larger_than_the_cache_give_every_result() {
    const SRC: &str = r#"
__kernel void k(__global float* out, __global const float* in, __global int* both, float s) {
    size_t i = get_global_id(0);
    out[i] = in[i] * s + 1.0f;
    both[i] = both[i] + (int)i;
}
"#;
    let cache = device_info(device(), CL_DEVICE_GLOBAL_MEM_CACHE_SIZE)
        .expect("cache size")
        .u64() as usize;
    for n in [(cache + (4 << 20)) / 4, 4096] {
        let e = Env::new();
        let input: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
        let inb = e.buffer_from(&input);
        let out = e.buffer(n * 4);
        let both = e.buffer_from(&vec![7i32; n]);
        let (_p, k) = e.kernel(SRC, "k");
        ok(set_mem(k.get(), 0, &out), "out");
        ok(set_mem(k.get(), 1, &inb), "in");
        ok(set_mem(k.get(), 2, &both), "both");
        ok(set_arg(k.get(), 3, &2.0f32), "s");
        e.run(&k, &[n], None);
        let got = e.read::<f32>(&out, 0, n);
        assert!(
            got.iter()
                .enumerate()
                .all(|(i, &v)| v == input[i] * 2.0 + 1.0),
            "{n} items"
        );
        let b = e.read::<i32>(&both, 0, n);
        assert!(
            b.iter().enumerate().all(|(i, &v)| v == 7 + i as i32),
            "{n} items"
        );
    }
}

#[test]
fn the_suggested_local_size_is_the_one_a_null_local_size_gets() {
    type Suggest = unsafe extern "C" fn(
        cl_command_queue,
        cl_kernel,
        cl_uint,
        *const usize,
        *const usize,
        *mut usize,
    ) -> cl_int;
    let name = std::ffi::CString::new("clGetKernelSuggestedLocalWorkSizeKHR").unwrap();
    let f = cl!(clGetExtensionFunctionAddressForPlatform(
        platform(),
        name.as_ptr()
    ));
    assert!(!f.is_null());
    // SAFETY: the extension's function, of the type its header gives it.
    let suggest: Suggest = unsafe { std::mem::transmute(f) };
    let e = Env::new();
    let src = "__kernel void k(__global uint* out) { \
               if (get_global_id(0) + get_global_id(1) + get_global_id(2) == 0) { \
               out[0] = get_local_size(0); out[1] = get_local_size(1); \
               out[2] = get_local_size(2); } }";
    let (_p, k) = e.kernel(src, "k");
    for global in [[1024usize, 1, 1], [256, 256, 1], [6, 10, 14], [7, 1, 1]] {
        let mut local = [0usize; 3];
        check(
            unsafe {
                suggest(
                    e.q(),
                    k.get(),
                    3,
                    null(),
                    global.as_ptr(),
                    local.as_mut_ptr(),
                )
            },
            "clGetKernelSuggestedLocalWorkSizeKHR",
        );
        assert!(
            (0..3).all(|d| local[d] > 0 && global[d] % local[d] == 0),
            "{global:?} -> {local:?}"
        );
        let out = e.buffer(3 * 4);
        ok(set_mem(k.get(), 0, &out), "arg");
        e.run(&k, &global, None);
        let got = e.read::<u32>(&out, 0, 3);
        assert_eq!(got, local.map(|l| l as u32).to_vec(), "global {global:?}");
    }
    let mut local = [0usize; 3];
    let rc = unsafe {
        suggest(
            e.q(),
            k.get(),
            4,
            null(),
            [1usize; 4].as_ptr(),
            local.as_mut_ptr(),
        )
    };
    assert_code(rc, CL_INVALID_WORK_DIMENSION, "work_dim 4");
    let rc = unsafe { suggest(e.q(), k.get(), 1, null(), null(), local.as_mut_ptr()) };
    assert_code(rc, CL_INVALID_GLOBAL_WORK_SIZE, "NULL global size");
}

/// The local size each work-item sees for a range given none.
fn local_size_chosen(e: &Env, k: &Kern, global: usize) -> u32 {
    let out = e.buffer(4);
    ok(set_mem(k.get(), 0, &out), "arg");
    e.run(k, &[global], None);
    e.read::<u32>(&out, 0, 1)[0]
}

/// A small range given no local size takes one the kernel is already
/// compiled for, where it divides the range, rather than compiling the
/// kernel again for a size of its own; a large range gets the size that
/// suits it.
#[test]
fn a_small_range_takes_a_local_size_compiled_already() {
    let e = Env::new();
    let src = "__kernel void k(__global uint* out) { \
               if (get_global_id(0) == 0) out[0] = get_local_size(0); }";
    let (_p, k) = e.kernel(src, "k");
    let first = local_size_chosen(&e, &k, 3);
    assert_eq!(first, 3, "a range of 3 alone");
    // 48 would get a size of its own (a multiple of the vector width);
    // 3 divides it, and 48 work-items run in no time either way.
    assert_eq!(local_size_chosen(&e, &k, 48), 3);
    let large = local_size_chosen(&e, &k, 1 << 16);
    assert!(large > 3 && (1 << 16) % large == 0, "{large}");
}
