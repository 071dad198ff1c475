//! Platform queries (OpenCL 3.0 API spec, section 4.1 "Querying Platform
//! Info": clGetPlatformIDs, clGetPlatformInfo).

use ferrocl_tests::*;
use std::collections::BTreeSet;
use std::ptr::null_mut;

fn pstr(name: cl_platform_info) -> String {
    ok(platform_info(platform(), name), "clGetPlatformInfo").string()
}

#[test]
fn platform_name_is_ferrocl() {
    assert_eq!(pstr(CL_PLATFORM_NAME), "ferrocl");
}

#[test]
fn platform_is_listed_once_by_the_loader() {
    let n = all_platforms()
        .into_iter()
        .filter(|&p| p == platform())
        .count();
    assert_eq!(n, 1);
}

#[test]
fn platform_ids_count_query_without_array() {
    let mut n: cl_uint = 0;
    check(
        cl!(clGetPlatformIDs(0, null_mut(), &mut n)),
        "clGetPlatformIDs",
    );
    assert!(n >= 1);
}

#[test]
fn platform_ids_with_zero_entries_and_array_is_invalid_value() {
    let mut ids = [null_mut(); 4];
    let rc = cl!(clGetPlatformIDs(0, ids.as_mut_ptr(), null_mut()));
    assert_code(rc, CL_INVALID_VALUE, "clGetPlatformIDs(0, ids, NULL)");
}

#[test]
fn platform_ids_with_both_outputs_null_is_invalid_value() {
    let rc = cl!(clGetPlatformIDs(1, null_mut(), null_mut()));
    assert_code(rc, CL_INVALID_VALUE, "clGetPlatformIDs(1, NULL, NULL)");
}

#[test]
fn platform_version_starts_with_opencl_3_0() {
    // Format: "OpenCL<space><major.minor><space><platform-specific information>".
    let v = pstr(CL_PLATFORM_VERSION);
    let rest = v
        .strip_prefix("OpenCL 3.0")
        .unwrap_or_else(|| panic!("CL_PLATFORM_VERSION {v:?} does not start with \"OpenCL 3.0\""));
    assert!(
        rest.is_empty() || rest.starts_with(' '),
        "CL_PLATFORM_VERSION {v:?}: version number must be followed by a space"
    );
}

#[test]
fn platform_profile_is_full_profile() {
    assert_eq!(pstr(CL_PLATFORM_PROFILE), "FULL_PROFILE");
}

#[test]
fn platform_vendor_is_not_empty() {
    assert!(!pstr(CL_PLATFORM_VENDOR).is_empty());
}

#[test]
fn platform_icd_suffix_is_ferro() {
    assert_eq!(pstr(CL_PLATFORM_ICD_SUFFIX_KHR), "FERRO");
}

#[test]
fn platform_numeric_version_is_3_0() {
    let v = ok(
        platform_info(platform(), CL_PLATFORM_NUMERIC_VERSION),
        "numeric version",
    )
    .u32();
    let (major, minor, _patch) = version_parts(v);
    assert_eq!(
        (major, minor),
        (3, 0),
        "CL_PLATFORM_NUMERIC_VERSION = {v:#x}"
    );
}

#[test]
fn platform_extensions_include_cl_khr_icd() {
    let exts = ext_names(&pstr(CL_PLATFORM_EXTENSIONS));
    assert!(
        exts.iter().any(|e| e == "cl_khr_icd"),
        "extensions: {exts:?}"
    );
}

#[test]
fn platform_extensions_have_no_duplicates() {
    let exts = ext_names(&pstr(CL_PLATFORM_EXTENSIONS));
    let set: BTreeSet<_> = exts.iter().collect();
    assert_eq!(set.len(), exts.len(), "duplicate names in {exts:?}");
}

#[test]
fn platform_extensions_with_version_match_extension_string() {
    let names: BTreeSet<String> = ext_names(&pstr(CL_PLATFORM_EXTENSIONS))
        .into_iter()
        .collect();
    let with_version = ok(
        platform_info(platform(), CL_PLATFORM_EXTENSIONS_WITH_VERSION),
        "CL_PLATFORM_EXTENSIONS_WITH_VERSION",
    )
    .name_versions();
    let versioned: BTreeSet<String> = with_version.iter().map(|(n, _)| n.clone()).collect();
    assert_eq!(
        versioned.len(),
        with_version.len(),
        "duplicates in {with_version:?}"
    );
    assert_eq!(names, versioned);
}

#[test]
fn platform_extensions_cover_every_device_extension() {
    // "Each extension that is supported by all devices associated with this
    // platform must be reported here."
    let platform_exts: BTreeSet<String> = ext_names(&pstr(CL_PLATFORM_EXTENSIONS))
        .into_iter()
        .collect();
    let device_exts = ok(
        device_info(device(), CL_DEVICE_EXTENSIONS),
        "CL_DEVICE_EXTENSIONS",
    )
    .string();
    for e in ext_names(&device_exts) {
        assert!(
            platform_exts.contains(&e),
            "device extension {e} missing from platform extensions"
        );
    }
}

#[test]
fn platform_host_timer_resolution_query_works() {
    let r = ok(
        platform_info(platform(), CL_PLATFORM_HOST_TIMER_RESOLUTION),
        "host timer resolution",
    );
    r.u64();
}

#[test]
fn platform_string_size_includes_terminating_nul() {
    let mut size = 0usize;
    check(
        cl!(clGetPlatformInfo(
            platform(),
            CL_PLATFORM_NAME,
            0,
            null_mut(),
            &mut size
        )),
        "clGetPlatformInfo(size)",
    );
    assert_eq!(size, "ferrocl".len() + 1);
}

#[test]
fn platform_info_unknown_param_is_invalid_value() {
    let mut buf = [0u8; 256];
    let mut size = 0usize;
    let rc = cl!(clGetPlatformInfo(
        platform(),
        0x0FFF,
        buf.len(),
        buf.as_mut_ptr().cast(),
        &mut size
    ));
    assert_code(rc, CL_INVALID_VALUE, "clGetPlatformInfo(0x0FFF)");
}

#[test]
fn platform_info_unknown_param_size_query_is_invalid_value() {
    let mut size = 0usize;
    let rc = cl!(clGetPlatformInfo(
        platform(),
        0x0FFF,
        0,
        null_mut(),
        &mut size
    ));
    assert_code(rc, CL_INVALID_VALUE, "clGetPlatformInfo(0x0FFF, size only)");
}

#[test]
fn platform_info_buffer_too_small_is_invalid_value() {
    let mut size = 0usize;
    check(
        cl!(clGetPlatformInfo(
            platform(),
            CL_PLATFORM_VERSION,
            0,
            null_mut(),
            &mut size
        )),
        "size query",
    );
    let mut buf = vec![0u8; size];
    let rc = cl!(clGetPlatformInfo(
        platform(),
        CL_PLATFORM_VERSION,
        size - 1,
        buf.as_mut_ptr().cast(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_VALUE, "clGetPlatformInfo with size - 1");
}

#[test]
fn platform_numeric_version_buffer_too_small_is_invalid_value() {
    let mut v = [0u8; 2];
    let rc = cl!(clGetPlatformInfo(
        platform(),
        CL_PLATFORM_NUMERIC_VERSION,
        2,
        v.as_mut_ptr().cast(),
        null_mut()
    ));
    assert_code(
        rc,
        CL_INVALID_VALUE,
        "CL_PLATFORM_NUMERIC_VERSION into 2 bytes",
    );
}

#[test]
fn platform_info_null_value_with_zero_size_returns_size_only() {
    // param_value NULL is ignored, so a zero size is fine.
    let mut size = 0usize;
    check(
        cl!(clGetPlatformInfo(
            platform(),
            CL_PLATFORM_EXTENSIONS,
            0,
            null_mut(),
            &mut size
        )),
        "size query",
    );
    assert!(size >= "cl_khr_icd".len() + 1);
}

#[test]
fn opencl3_client_sees_the_platform() {
    // The high-level client crate finds the same platform and name.
    let platforms = opencl3::platform::get_platforms().expect("opencl3 get_platforms");
    let ours: Vec<_> = platforms.iter().filter(|p| p.id() == platform()).collect();
    assert_eq!(ours.len(), 1);
    assert_eq!(ours[0].name().unwrap(), pstr(CL_PLATFORM_NAME));
}
