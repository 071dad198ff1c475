//! cl_ext_float_atomics: atomic_fetch_add, _sub, _min and _max on
//! atomic_float and atomic_double, in global, local and generic memory, and
//! the device's queries and feature macros for them.

use ferrocl_tests::*;

const STD: &str = "-cl-std=CL3.0";

const SRC: &str = r#"
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void global_ops(global atomic_float* f, global atomic_double* d, global const float* x) {
    size_t i = get_global_id(0);
    atomic_fetch_add(&f[0], 1.0f);
    atomic_fetch_sub_explicit(&f[1], 0.5f, memory_order_relaxed);
    atomic_fetch_min(&f[2], x[i]);
    atomic_fetch_max_explicit(&f[3], x[i], memory_order_acq_rel, memory_scope_device);
    atomic_fetch_add(&d[0], 0.25);
    atomic_fetch_min(&d[1], (double)x[i]);
    atomic_fetch_max(&d[2], (double)x[i]);
}
void bump(atomic_float* p, float v) { atomic_fetch_add(p, v); }
kernel void local_ops(global float* out) {
    local atomic_float sum;
    local atomic_float lowest;
    if (get_local_id(0) == 0) {
        atomic_init(&sum, 0.0f);
        atomic_init(&lowest, INFINITY);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    bump(&sum, 2.0f);
    atomic_fetch_min(&lowest, (float)get_local_id(0) - 3.0f);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        out[2 * get_group_id(0)] = atomic_load(&sum);
        out[2 * get_group_id(0) + 1] = atomic_load(&lowest);
    }
}
"#;

#[test]
fn float_and_double_atomics_in_global_memory() {
    let e = Env::new();
    let p = e.program(SRC, STD);
    let k = ok(create_kernel(p.get(), "global_ops"), "global_ops");
    let n = 4096usize;
    let x: Vec<f32> = (0..n).map(|i| ((i * 37) % 1001) as f32 - 500.0).collect();
    let f = e.buffer_from(&[0.0f32, 100.0, f32::INFINITY, f32::NEG_INFINITY]);
    let d = e.buffer_from(&[0.0f64, f64::INFINITY, f64::NEG_INFINITY]);
    let bx = e.buffer_from(&x);
    e.run_with(&k, &[&f, &d, &bx], &[n], Some(&[64]));
    let lo = x.iter().cloned().fold(f32::INFINITY, f32::min);
    let hi = x.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
    // Whole and half numbers: the sums are exact in any order.
    assert_eq!(
        e.read::<f32>(&f, 0, 4),
        [n as f32, 100.0 - 0.5 * n as f32, lo, hi]
    );
    assert_eq!(
        e.read::<f64>(&d, 0, 3),
        [0.25 * n as f64, lo as f64, hi as f64]
    );
}

#[test]
fn float_atomics_in_local_memory_and_through_generic_pointers() {
    let e = Env::new();
    let p = e.program(SRC, STD);
    let k = ok(create_kernel(p.get(), "local_ops"), "local_ops");
    let out = e.buffer_from(&[0.0f32; 8]);
    e.run_with(&k, &[&out], &[4 * 48], Some(&[48]));
    assert_eq!(
        e.read::<f32>(&out, 0, 8),
        [96.0, -3.0, 96.0, -3.0, 96.0, -3.0, 96.0, -3.0]
    );
}

#[test]
fn the_device_reports_the_extension_and_its_features() {
    let d = device();
    let names = ext_names(&ok(device_info(d, CL_DEVICE_EXTENSIONS), "extensions").string());
    assert!(names.iter().any(|n| n == "cl_ext_float_atomics"));
    let features = ok(device_info(d, CL_DEVICE_OPENCL_C_FEATURES), "features").name_versions();
    for f in [
        "__opencl_c_ext_fp32_global_atomic_add",
        "__opencl_c_ext_fp32_local_atomic_min_max",
        "__opencl_c_ext_fp64_global_atomic_min_max",
        "__opencl_c_ext_fp64_local_atomic_add",
    ] {
        assert!(features.iter().any(|(n, _)| n == f), "{f}");
    }
    // Load/store, add and min/max, global (bits 0-2) and local (16-18).
    let all = 0x7 | (0x7 << 16);
    for query in [0x4231u32, 0x4232] {
        assert_eq!(
            ok(device_info(d, query), "fp atomic capabilities").u64(),
            all
        );
    }
    assert_eq!(
        ok(device_info(d, 0x4233), "half fp atomic capabilities").u64(),
        0
    );
}
