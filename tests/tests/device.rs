//! Device queries (OpenCL 3.0 API spec, section 4.2 "Querying Devices":
//! clGetDeviceIDs, clGetDeviceInfo and the Device Queries table).

use ferrocl_tests::*;
use std::collections::BTreeSet;
use std::ptr::null_mut;

fn dinfo(name: cl_device_info) -> Info {
    ok(device_info(device(), name), "clGetDeviceInfo")
}

fn dstr(name: cl_device_info) -> String {
    dinfo(name).string()
}

fn device_ids(ty: cl_device_type) -> Result<Vec<cl_device_id>, cl_int> {
    let mut n: cl_uint = 0;
    let rc = cl!(clGetDeviceIDs(platform(), ty, 0, null_mut(), &mut n));
    if rc != CL_SUCCESS {
        return Err(rc);
    }
    let mut ids = vec![null_mut(); n as usize];
    let rc = cl!(clGetDeviceIDs(
        platform(),
        ty,
        n,
        ids.as_mut_ptr(),
        null_mut()
    ));
    result(rc, ids)
}

/// Checks "OpenCL<sp><major.minor>" (+ optional "<sp>info") and returns major.minor.
fn parse_version(s: &str, prefix: &str) -> (u32, u32) {
    let rest = s
        .strip_prefix(prefix)
        .unwrap_or_else(|| panic!("{s:?} does not start with {prefix:?}"));
    let ver = rest.split(' ').next().unwrap();
    let (maj, min) = ver
        .split_once('.')
        .unwrap_or_else(|| panic!("{s:?}: no <major.minor> after {prefix:?}"));
    (
        maj.parse().unwrap_or_else(|_| panic!("{s:?}: bad major")),
        min.parse().unwrap_or_else(|_| panic!("{s:?}: bad minor")),
    )
}

#[test]
fn platform_has_exactly_one_device() {
    assert_eq!(ok(device_ids(CL_DEVICE_TYPE_ALL), "ALL").len(), 1);
}

#[test]
fn device_ids_for_cpu_and_default_return_the_device() {
    assert_eq!(ok(device_ids(CL_DEVICE_TYPE_CPU), "CPU"), vec![device()]);
    assert_eq!(
        ok(device_ids(CL_DEVICE_TYPE_DEFAULT), "DEFAULT"),
        vec![device()]
    );
}

#[test]
fn device_ids_for_gpu_is_device_not_found() {
    assert_err(
        device_ids(CL_DEVICE_TYPE_GPU),
        CL_DEVICE_NOT_FOUND,
        "clGetDeviceIDs(GPU)",
    );
}

#[test]
fn device_ids_for_accelerator_and_custom_is_device_not_found() {
    assert_err(
        device_ids(CL_DEVICE_TYPE_ACCELERATOR),
        CL_DEVICE_NOT_FOUND,
        "ACCELERATOR",
    );
    assert_err(
        device_ids(CL_DEVICE_TYPE_CUSTOM),
        CL_DEVICE_NOT_FOUND,
        "CUSTOM",
    );
}

#[test]
fn device_ids_for_gpu_with_array_is_device_not_found() {
    let mut ids = [null_mut(); 2];
    let mut n: cl_uint = 99;
    let rc = cl!(clGetDeviceIDs(
        platform(),
        CL_DEVICE_TYPE_GPU,
        2,
        ids.as_mut_ptr(),
        &mut n
    ));
    assert_code(rc, CL_DEVICE_NOT_FOUND, "clGetDeviceIDs(GPU, 2, ids, &n)");
}

#[test]
fn device_ids_invalid_type_is_invalid_device_type() {
    let mut n: cl_uint = 0;
    let rc = cl!(clGetDeviceIDs(
        platform(),
        1u64 << 40,
        0,
        null_mut(),
        &mut n
    ));
    assert_code(rc, CL_INVALID_DEVICE_TYPE, "clGetDeviceIDs(1 << 40)");
    // 0 names no device type at all (the conformance suite's invalid value).
    let rc = cl!(clGetDeviceIDs(platform(), 0, 0, null_mut(), &mut n));
    assert_code(rc, CL_INVALID_DEVICE_TYPE, "clGetDeviceIDs(0)");
}

#[test]
fn device_ids_zero_entries_with_array_is_invalid_value() {
    let mut ids = [null_mut(); 1];
    let rc = cl!(clGetDeviceIDs(
        platform(),
        CL_DEVICE_TYPE_ALL,
        0,
        ids.as_mut_ptr(),
        null_mut()
    ));
    assert_code(
        rc,
        CL_INVALID_VALUE,
        "clGetDeviceIDs(num_entries 0, devices)",
    );
}

#[test]
fn device_ids_both_outputs_null_is_invalid_value() {
    let rc = cl!(clGetDeviceIDs(
        platform(),
        CL_DEVICE_TYPE_ALL,
        1,
        null_mut(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_VALUE, "clGetDeviceIDs(NULL, NULL)");
}

#[test]
fn device_type_is_cpu() {
    assert_eq!(dinfo(CL_DEVICE_TYPE).u64(), CL_DEVICE_TYPE_CPU);
}

#[test]
fn device_platform_is_the_platform() {
    assert_eq!(dinfo(CL_DEVICE_PLATFORM).ptr(), platform());
}

#[test]
fn device_version_is_opencl_3_0() {
    let v = dstr(CL_DEVICE_VERSION);
    assert_eq!(
        parse_version(&v, "OpenCL "),
        (3, 0),
        "CL_DEVICE_VERSION {v:?}"
    );
}

#[test]
fn device_latest_conformance_version_is_a_cts_release_tag() {
    // vYYYY-MM-DD-XX, with a real month and day.
    let v = dstr(CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED);
    let parts: Vec<&str> = v.strip_prefix('v').unwrap_or("").split('-').collect();
    let number = |s: &str, len: usize| {
        (s.len() == len && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.parse::<u32>().unwrap())
    };
    let fields = match parts.as_slice() {
        [y, m, d, x] => (number(y, 4), number(m, 2), number(d, 2), number(x, 2)),
        _ => (None, None, None, None),
    };
    let (Some(year), Some(month), Some(day), Some(_)) = fields else {
        panic!("CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED {v:?} is not vYYYY-MM-DD-XX");
    };
    assert!(year >= 2020, "{v:?}: no CTS release of that year");
    assert!(
        (1..=12).contains(&month) && (1..=31).contains(&day),
        "{v:?}: no such date"
    );
}

#[test]
fn device_numeric_version_is_3_0() {
    let (maj, min, _) = version_parts(dinfo(CL_DEVICE_NUMERIC_VERSION).u32());
    assert_eq!((maj, min), (3, 0));
}

#[test]
fn device_profile_is_full_profile() {
    assert_eq!(dstr(CL_DEVICE_PROFILE), "FULL_PROFILE");
}

#[test]
fn device_name_and_vendor_are_not_empty() {
    assert!(!dstr(CL_DEVICE_NAME).is_empty());
    assert!(!dstr(CL_DEVICE_VENDOR).is_empty());
    assert!(!dstr(CL_DRIVER_VERSION).is_empty());
}

#[test]
fn device_opencl_c_version_is_at_least_1_2_and_listed_in_all_versions() {
    let s = dstr(CL_DEVICE_OPENCL_C_VERSION);
    let (maj, min) = parse_version(&s, "OpenCL C ");
    assert!((maj, min) >= (1, 2), "CL_DEVICE_OPENCL_C_VERSION {s:?}");
    let all = dinfo(CL_DEVICE_OPENCL_C_ALL_VERSIONS).name_versions();
    assert!(
        all.iter()
            .any(|(_, v)| (version_parts(*v).0, version_parts(*v).1) == (maj, min)),
        "{s:?} not in CL_DEVICE_OPENCL_C_ALL_VERSIONS"
    );
}

#[test]
fn device_opencl_c_all_versions_include_1_0_1_1_1_2_and_3_0() {
    let all = dinfo(CL_DEVICE_OPENCL_C_ALL_VERSIONS).name_versions();
    for (name, _) in &all {
        assert_eq!(name, "OpenCL C");
    }
    let versions: BTreeSet<(u32, u32)> = all
        .iter()
        .map(|(_, v)| {
            let (a, b, _) = version_parts(*v);
            (a, b)
        })
        .collect();
    for want in [(1, 0), (1, 1), (1, 2), (3, 0)] {
        assert!(
            versions.contains(&want),
            "OpenCL C {want:?} missing from {versions:?}"
        );
    }
}

#[test]
fn device_max_compute_units_equals_available_parallelism() {
    let cpus = std::thread::available_parallelism().unwrap().get() as u32;
    assert_eq!(dinfo(CL_DEVICE_MAX_COMPUTE_UNITS).u32(), cpus);
}

#[test]
fn device_global_mem_size_is_positive_and_at_most_physical_memory() {
    let g = dinfo(CL_DEVICE_GLOBAL_MEM_SIZE).u64();
    assert!(g > 0);
    assert!(
        g <= physical_memory(),
        "global mem {g} > physical {}",
        physical_memory()
    );
}

#[test]
fn device_max_mem_alloc_size_meets_minimum_and_fits_global_mem() {
    let g = dinfo(CL_DEVICE_GLOBAL_MEM_SIZE).u64();
    let a = dinfo(CL_DEVICE_MAX_MEM_ALLOC_SIZE).u64();
    let min = std::cmp::max(std::cmp::min(1u64 << 30, g / 4), 32 << 20);
    assert!(a >= min, "CL_DEVICE_MAX_MEM_ALLOC_SIZE {a} < {min}");
    assert!(a <= g, "CL_DEVICE_MAX_MEM_ALLOC_SIZE {a} > global mem {g}");
}

#[test]
fn device_work_item_dimensions_and_sizes() {
    let dims = dinfo(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS).u32();
    assert!(dims >= 3, "CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS {dims}");
    let sizes = dinfo(CL_DEVICE_MAX_WORK_ITEM_SIZES).usizes();
    assert_eq!(sizes.len(), dims as usize);
    assert!(sizes.iter().all(|&s| s >= 1), "{sizes:?}");
}

#[test]
fn device_max_work_item_sizes_do_not_exceed_max_work_group_size() {
    // Not a spec rule (the spec only sets minimums); ferrocl's own contract:
    // any single dimension can be used up to the work-group limit and no more.
    let wg = dinfo(CL_DEVICE_MAX_WORK_GROUP_SIZE).usize();
    assert!(wg >= 1);
    for s in dinfo(CL_DEVICE_MAX_WORK_ITEM_SIZES).usizes() {
        assert!(s <= wg, "work item size {s} > max work group size {wg}");
    }
}

#[test]
fn device_extensions_match_extensions_with_version() {
    let names: Vec<String> = ext_names(&dstr(CL_DEVICE_EXTENSIONS));
    let set: BTreeSet<String> = names.iter().cloned().collect();
    assert_eq!(set.len(), names.len(), "duplicates in CL_DEVICE_EXTENSIONS");
    let wv = dinfo(CL_DEVICE_EXTENSIONS_WITH_VERSION).name_versions();
    let vset: BTreeSet<String> = wv.iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(
        vset.len(),
        wv.len(),
        "duplicates in CL_DEVICE_EXTENSIONS_WITH_VERSION"
    );
    for n in &set {
        assert!(
            vset.contains(n),
            "{n} in CL_DEVICE_EXTENSIONS but not in _WITH_VERSION"
        );
    }
    for n in &vset {
        assert!(
            set.contains(n),
            "{n} in CL_DEVICE_EXTENSIONS_WITH_VERSION but not in CL_DEVICE_EXTENSIONS"
        );
    }
}

#[test]
fn device_reports_the_opencl_1_2_extensions() {
    // The extensions every OpenCL 1.2 device reported (the OpenCL C 1.2
    // features a 3.0 device keeps).
    let exts = ext_names(&dstr(CL_DEVICE_EXTENSIONS));
    for want in [
        "cl_khr_byte_addressable_store",
        "cl_khr_global_int32_base_atomics",
        "cl_khr_global_int32_extended_atomics",
        "cl_khr_local_int32_base_atomics",
        "cl_khr_local_int32_extended_atomics",
    ] {
        assert!(
            exts.iter().any(|e| e == want),
            "{want} missing from {exts:?}"
        );
    }
}

#[test]
fn device_fp64_extension_iff_double_fp_config() {
    let has_ext = ext_names(&dstr(CL_DEVICE_EXTENSIONS))
        .iter()
        .any(|e| e == "cl_khr_fp64");
    let cfg = dinfo(CL_DEVICE_DOUBLE_FP_CONFIG).u64();
    assert_eq!(
        has_ext,
        cfg != 0,
        "cl_khr_fp64 listed: {has_ext}, CL_DEVICE_DOUBLE_FP_CONFIG {cfg:#x}"
    );
    if has_ext {
        let min = CL_FP_FMA
            | CL_FP_ROUND_TO_NEAREST
            | CL_FP_ROUND_TO_ZERO
            | CL_FP_ROUND_TO_INF
            | CL_FP_INF_NAN
            | CL_FP_DENORM;
        assert_eq!(
            cfg & min,
            min,
            "CL_DEVICE_DOUBLE_FP_CONFIG {cfg:#x} lacks the minimum {min:#x}"
        );
    }
    // Vector widths for double are non-zero exactly when doubles are offered.
    for q in [
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE,
        CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE,
    ] {
        let w = dinfo(q).u32();
        assert_eq!(w != 0, has_ext, "vector width {q:#x} is {w}");
    }
}

#[test]
fn device_mem_base_addr_align_is_at_least_1024_bits() {
    let a = dinfo(CL_DEVICE_MEM_BASE_ADDR_ALIGN).u32();
    assert!(a >= 1024, "CL_DEVICE_MEM_BASE_ADDR_ALIGN {a}");
    assert!(a.is_power_of_two(), "CL_DEVICE_MEM_BASE_ADDR_ALIGN {a}");
}

#[test]
fn device_single_fp_config_has_round_to_nearest_and_inf_nan() {
    let c = dinfo(CL_DEVICE_SINGLE_FP_CONFIG).u64();
    let need = CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN;
    assert_eq!(c & need, need, "CL_DEVICE_SINGLE_FP_CONFIG {c:#x}");
}

#[test]
fn device_queue_on_host_properties_include_profiling() {
    let p = dinfo(CL_DEVICE_QUEUE_ON_HOST_PROPERTIES).u64();
    assert_ne!(
        p & CL_QUEUE_PROFILING_ENABLE,
        0,
        "CL_DEVICE_QUEUE_ON_HOST_PROPERTIES {p:#x}"
    );
}

#[test]
fn device_memory_minimums() {
    assert!(dinfo(CL_DEVICE_LOCAL_MEM_SIZE).u64() >= 32 * 1024);
    assert!(dinfo(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE).u64() >= 64 * 1024);
    assert!(dinfo(CL_DEVICE_MAX_CONSTANT_ARGS).u32() >= 8);
    assert!(dinfo(CL_DEVICE_MAX_PARAMETER_SIZE).usize() >= 1024);
    assert!(dinfo(CL_DEVICE_PRINTF_BUFFER_SIZE).usize() >= 1024 * 1024);
    let lt = dinfo(CL_DEVICE_LOCAL_MEM_TYPE).u32();
    assert!(
        lt == CL_LOCAL || lt == CL_GLOBAL,
        "CL_DEVICE_LOCAL_MEM_TYPE {lt:#x}"
    );
}

#[test]
fn device_is_available_with_compiler_and_linker() {
    assert!(dinfo(CL_DEVICE_AVAILABLE).bool());
    assert!(dinfo(CL_DEVICE_COMPILER_AVAILABLE).bool());
    assert!(dinfo(CL_DEVICE_LINKER_AVAILABLE).bool());
}

#[test]
fn device_executes_kernels() {
    let caps = dinfo(CL_DEVICE_EXECUTION_CAPABILITIES).u64();
    assert_ne!(caps & CL_EXEC_KERNEL, 0);
}

#[test]
fn device_endianness_and_address_bits_match_host() {
    assert_eq!(
        dinfo(CL_DEVICE_ENDIAN_LITTLE).bool(),
        cfg!(target_endian = "little")
    );
    let bits = dinfo(CL_DEVICE_ADDRESS_BITS).u32();
    assert!(bits == 32 || bits == 64, "CL_DEVICE_ADDRESS_BITS {bits}");
}

#[test]
fn root_device_reference_count_is_one_and_retain_release_succeed() {
    assert_eq!(dinfo(CL_DEVICE_REFERENCE_COUNT).u32(), 1);
    check(cl!(clRetainDevice(device())), "clRetainDevice");
    check(cl!(clReleaseDevice(device())), "clReleaseDevice");
    assert_eq!(dinfo(CL_DEVICE_REFERENCE_COUNT).u32(), 1);
}

#[test]
fn root_device_has_no_parent() {
    assert!(dinfo(CL_DEVICE_PARENT_DEVICE).ptr().is_null());
}

#[test]
fn device_boolean_3_0_queries_work() {
    dinfo(CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT).bool();
    dinfo(CL_DEVICE_WORK_GROUP_COLLECTIVE_FUNCTIONS_SUPPORT).bool();
    dinfo(CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT).bool();
    dinfo(CL_DEVICE_PIPE_SUPPORT).bool();
    dinfo(CL_DEVICE_IMAGE_SUPPORT).bool();
}

#[test]
fn device_opencl_c_features_are_named_opencl_c_features() {
    for (name, _) in dinfo(CL_DEVICE_OPENCL_C_FEATURES).name_versions() {
        assert!(name.starts_with("__opencl_c_"), "feature {name:?}");
    }
}

#[test]
fn device_info_unknown_param_is_invalid_value() {
    let mut buf = [0u8; 64];
    let rc = cl!(clGetDeviceInfo(
        device(),
        0x7FFF,
        buf.len(),
        buf.as_mut_ptr().cast(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_VALUE, "clGetDeviceInfo(0x7FFF)");
}

#[test]
fn device_info_buffer_too_small_is_invalid_value() {
    let mut v = 0u32;
    let rc = cl!(clGetDeviceInfo(
        device(),
        CL_DEVICE_GLOBAL_MEM_SIZE,
        4,
        (&mut v as *mut u32).cast(),
        null_mut()
    ));
    assert_code(
        rc,
        CL_INVALID_VALUE,
        "CL_DEVICE_GLOBAL_MEM_SIZE into 4 bytes",
    );
}

#[test]
fn device_info_string_buffer_too_small_is_invalid_value() {
    let mut buf = [0u8; 3];
    let rc = cl!(clGetDeviceInfo(
        device(),
        CL_DEVICE_VERSION,
        3,
        buf.as_mut_ptr().cast(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_VALUE, "CL_DEVICE_VERSION into 3 bytes");
}

#[test]
fn device_and_driver_uuids_are_stable_rfc_4122_ids() {
    let exts = ext_names(&dinfo(CL_DEVICE_EXTENSIONS).string());
    assert!(exts.iter().any(|e| e == "cl_khr_device_uuid"), "{exts:?}");
    for (name, what) in [
        (CL_DEVICE_UUID_KHR, "device"),
        (CL_DRIVER_UUID_KHR, "driver"),
    ] {
        let a = dinfo(name).0;
        assert_eq!(a.len(), 16, "{what} UUID size");
        assert_eq!(dinfo(name).0, a, "{what} UUID changes between queries");
        assert!(a.iter().any(|&b| b != 0), "{what} UUID is all zeros");
        assert_eq!(a[6] >> 4, 5, "{what} UUID is name-based");
        assert_eq!(a[8] >> 6, 0b10, "{what} UUID has the RFC 4122 variant");
    }
    assert_ne!(dinfo(CL_DEVICE_UUID_KHR).0, dinfo(CL_DRIVER_UUID_KHR).0);
    assert!(!dinfo(CL_DEVICE_LUID_VALID_KHR).bool());
    assert_eq!(dinfo(CL_DEVICE_LUID_KHR).0.len(), 8);
    assert_eq!(dinfo(CL_DEVICE_NODE_MASK_KHR).0.len(), 4);
}
