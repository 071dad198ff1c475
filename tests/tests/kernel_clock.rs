//! cl_khr_kernel_clock at device, work-group and sub-group scope: the
//! capabilities and macros, and clocks that never run backwards: within a
//! work-item, across a work-group's barrier, and from one kernel to the next
//! on the device.

use ferrocl_tests::*;

const CL_DEVICE_KERNEL_CLOCK_CAPABILITIES_KHR: cl_device_info = 0x1076;
const SCOPE_DEVICE: u64 = 1 << 0;
const SCOPE_WORK_GROUP: u64 = 1 << 1;
const SCOPE_SUB_GROUP: u64 = 1 << 2;

#[test]
fn device_work_group_and_sub_group_scopes_are_reported() {
    let d = device();
    let caps = device_info(d, CL_DEVICE_KERNEL_CLOCK_CAPABILITIES_KHR)
        .unwrap()
        .u64();
    assert_eq!(caps, SCOPE_DEVICE | SCOPE_WORK_GROUP | SCOPE_SUB_GROUP);
    let ext = device_info(d, CL_DEVICE_EXTENSIONS_WITH_VERSION)
        .unwrap()
        .name_versions();
    let v = ext
        .iter()
        .find(|(n, _)| n == "cl_khr_kernel_clock")
        .map(|(_, v)| version_parts(*v));
    assert_eq!(v, Some((1, 0, 0)));
    let features: Vec<String> = device_info(d, CL_DEVICE_OPENCL_C_FEATURES)
        .unwrap()
        .name_versions()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert!(features
        .iter()
        .any(|f| f == "__opencl_c_kernel_clock_scope_device"));
    assert!(features
        .iter()
        .any(|f| f == "__opencl_c_kernel_clock_scope_work_group"));
    assert!(features
        .iter()
        .any(|f| f == "__opencl_c_kernel_clock_scope_sub_group"));
    let e = Env::new();
    let src = "__kernel void k(__global int* out) {\n\
               out[0] = 0;\n\
               #ifdef cl_khr_kernel_clock\n out[0] |= 1;\n#endif\n\
               #ifdef __opencl_c_kernel_clock_scope_device\n out[0] |= 2;\n#endif\n\
               #ifdef __opencl_c_kernel_clock_scope_work_group\n out[0] |= 4;\n#endif\n\
               #ifdef __opencl_c_kernel_clock_scope_sub_group\n out[0] |= 8;\n#endif\n}\n";
    let (_p, k) = e.kernel_opts(src, "k", "-cl-std=CL3.0");
    let out = e.buffer_from(&[0i32]);
    e.run_with(&k, &[&out], &[1], None);
    assert_eq!(e.read::<i32>(&out, 0, 1), vec![15]);
}

/// Per work-item: a device read, some work, a work-group read, a barrier,
/// then the hilo forms. The work depends on the id so that it is not folded.
const SRC: &str = r#"
__kernel void k(__global ulong* t, __global uint* sink) {
    size_t i = get_global_id(0);
    ulong t0 = clock_read_device();
    uint acc = (uint)i;
    for (int j = 0; j < 2000; j++)
        acc = acc * 1664525u + 1013904223u;
    sink[i] = acc;
    ulong t1 = clock_read_work_group();
    // The sub-group clock, read after, is no earlier (0 fails the check).
    ulong ts = clock_read_sub_group();
    t1 = ts >= t1 ? ts : 0;
    barrier(CLK_GLOBAL_MEM_FENCE);
    uint2 h2 = clock_read_hilo_work_group();
    uint2 h3 = clock_read_hilo_device();
    t[i * 4 + 0] = t0;
    t[i * 4 + 1] = t1;
    t[i * 4 + 2] = ((ulong)h2.hi << 32) | h2.lo;
    t[i * 4 + 3] = ((ulong)h3.y << 32) | h3.x;
}
"#;

#[test]
fn clocks_never_run_backwards() {
    let e = Env::new();
    let (_p, k) = e.kernel_opts(SRC, "k", "-cl-std=CL3.0");
    let (n, local) = (4096, 64);
    let t = e.buffer(n * 4 * 8);
    let sink = e.buffer(n * 4);
    let mut last_max = 0u64;
    for run in 0..3 {
        e.run_with(&k, &[&t, &sink], &[n], Some(&[local]));
        let v = e.read::<u64>(&t, 0, n * 4);
        for g in 0..n / local {
            let items = &v[g * local * 4..(g + 1) * local * 4];
            // Within a work-item: in program order, and the work takes time.
            for r in items.chunks(4) {
                assert!(
                    r[0] < r[1] && r[1] <= r[2] && r[2] <= r[3],
                    "run {run}: {r:?}"
                );
            }
            // Across the barrier: after it, no item reads less than any read
            // before it in its group.
            let before = items.chunks(4).map(|r| r[1]).max().unwrap();
            let after = items.chunks(4).map(|r| r[2]).min().unwrap();
            assert!(before <= after, "run {run}, group {g}: {before} > {after}");
        }
        // Device scope: this kernel ran after the previous one ended.
        let first = v.chunks(4).map(|r| r[0]).min().unwrap();
        assert!(first >= last_max, "run {run}: {first} < {last_max}");
        last_max = v.chunks(4).map(|r| r[3]).max().unwrap();
    }
}
