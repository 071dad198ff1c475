//! Buffer objects (OpenCL 3.0 API spec, section 5.2 "Buffer Objects":
//! clCreateBuffer and the Memory Flags table, clCreateSubBuffer,
//! clEnqueue{Read,Write,Copy,Fill}Buffer and the Rect forms,
//! clEnqueueMapBuffer; section 5.5: clEnqueueUnmapMemObject,
//! clGetMemObjectInfo, clRetainMemObject/clReleaseMemObject,
//! clSetMemObjectDestructorCallback).

use ferrocl_tests::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------
// helpers

fn align_bytes() -> usize {
    ok(
        device_info(device(), CL_DEVICE_MEM_BASE_ADDR_ALIGN),
        "MEM_BASE_ADDR_ALIGN",
    )
    .u32() as usize
        / 8
}

fn mem_u64(m: &Mem, name: cl_mem_info) -> u64 {
    ok(mem_info(m.get(), name), "clGetMemObjectInfo").u64()
}
fn mem_usize(m: &Mem, name: cl_mem_info) -> usize {
    ok(mem_info(m.get(), name), "clGetMemObjectInfo").usize()
}
fn mem_u32(m: &Mem, name: cl_mem_info) -> u32 {
    ok(mem_info(m.get(), name), "clGetMemObjectInfo").u32()
}
fn mem_ptr(m: &Mem, name: cl_mem_info) -> *mut c_void {
    ok(mem_info(m.get(), name), "clGetMemObjectInfo").ptr()
}

fn sub_buffer(
    parent: &Mem,
    flags: cl_mem_flags,
    origin: usize,
    size: usize,
) -> Result<Mem, cl_int> {
    let region = cl_buffer_region { origin, size };
    let mut rc = 0;
    let m = cl!(clCreateSubBuffer(
        parent.get(),
        flags,
        CL_BUFFER_CREATE_TYPE_REGION,
        (&region as *const cl_buffer_region).cast(),
        &mut rc
    ));
    result(rc, m).map(Mem)
}

fn bytes(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
        .collect()
}

fn read_bytes(e: &Env, m: &Mem, off: usize, n: usize) -> Vec<u8> {
    e.read::<u8>(m, off, n)
}

fn copy(e: &Env, src: &Mem, dst: &Mem, so: usize, d: usize, size: usize) -> cl_int {
    cl!(clEnqueueCopyBuffer(
        e.q(),
        src.get(),
        dst.get(),
        so,
        d,
        size,
        0,
        null(),
        null_mut()
    ))
}

fn fill(e: &Env, m: &Mem, pattern: &[u8], offset: usize, size: usize) -> cl_int {
    cl!(clEnqueueFillBuffer(
        e.q(),
        m.get(),
        pattern.as_ptr().cast(),
        pattern.len(),
        offset,
        size,
        0,
        null(),
        null_mut()
    ))
}

fn map(
    e: &Env,
    m: &Mem,
    flags: cl_map_flags,
    offset: usize,
    size: usize,
) -> Result<*mut c_void, cl_int> {
    let mut rc = 0;
    let p = cl!(clEnqueueMapBuffer(
        e.q(),
        m.get(),
        CL_TRUE,
        flags,
        offset,
        size,
        0,
        null(),
        null_mut(),
        &mut rc
    ));
    if rc == CL_SUCCESS {
        assert!(
            !p.is_null(),
            "clEnqueueMapBuffer succeeded but returned NULL"
        );
    }
    result(rc, p)
}

fn unmap(e: &Env, m: &Mem, p: *mut c_void) {
    check(
        cl!(clEnqueueUnmapMemObject(
            e.q(),
            m.get(),
            p,
            0,
            null(),
            null_mut()
        )),
        "clEnqueueUnmapMemObject",
    );
    e.finish();
}

/// Host model of a rectangular copy (3.0 spec, clEnqueueReadBufferRect: the
/// offset of (x, y, z) is z * slice_pitch + y * row_pitch + x; zero pitches
/// default to region[0] and region[1] * row_pitch).
#[allow(clippy::too_many_arguments)]
fn model_rect(
    src: &[u8],
    so: [usize; 3],
    srp: usize,
    ssp: usize,
    dst: &mut [u8],
    d: [usize; 3],
    drp: usize,
    dsp: usize,
    region: [usize; 3],
) {
    let srp = if srp == 0 { region[0] } else { srp };
    let ssp = if ssp == 0 { region[1] * srp } else { ssp };
    let drp = if drp == 0 { region[0] } else { drp };
    let dsp = if dsp == 0 { region[1] * drp } else { dsp };
    for z in 0..region[2] {
        for y in 0..region[1] {
            let s = (so[2] + z) * ssp + (so[1] + y) * srp + so[0];
            let t = (d[2] + z) * dsp + (d[1] + y) * drp + d[0];
            dst[t..t + region[0]].copy_from_slice(&src[s..s + region[0]]);
        }
    }
}

const DOUBLE_SRC: &str = r#"
__kernel void double_plus_one(__global uint* p) {
    size_t i = get_global_id(0);
    p[i] = p[i] * 2u + 1u;
}
"#;

// ---------------------------------------------------------------------------
// creation flags

const DEVICE_ACCESS: [cl_mem_flags; 4] =
    [0, CL_MEM_READ_WRITE, CL_MEM_WRITE_ONLY, CL_MEM_READ_ONLY];
const HOST_PTR_MODES: [cl_mem_flags; 5] = [
    0,
    CL_MEM_USE_HOST_PTR,
    CL_MEM_ALLOC_HOST_PTR,
    CL_MEM_COPY_HOST_PTR,
    CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR,
];
const HOST_ACCESS: [cl_mem_flags; 4] = [
    0,
    CL_MEM_HOST_WRITE_ONLY,
    CL_MEM_HOST_READ_ONLY,
    CL_MEM_HOST_NO_ACCESS,
];

#[test]
fn every_allowed_flag_combination_creates_a_buffer() {
    let e = Env::new();
    let mut host = vec![0u8; 256];
    for &a in &DEVICE_ACCESS {
        for &h in &HOST_PTR_MODES {
            for &x in &HOST_ACCESS {
                let flags = a | h | x;
                let needs_ptr = h & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
                let ptr = if needs_ptr {
                    host.as_mut_ptr().cast()
                } else {
                    null_mut()
                };
                let m = e
                    .try_buffer(flags, host.len(), ptr)
                    .unwrap_or_else(|c| panic!("flags {flags:#x}: {} ({c})", err_name(c)));
                assert_eq!(
                    mem_u64(&m, CL_MEM_FLAGS),
                    flags,
                    "CL_MEM_FLAGS must echo the flags given"
                );
            }
        }
    }
}

#[test]
fn mutually_exclusive_flags_are_invalid_value() {
    let e = Env::new();
    let mut host = vec![0u8; 64];
    let p: *mut c_void = host.as_mut_ptr().cast();
    let cases: [(cl_mem_flags, *mut c_void); 9] = [
        (CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY, null_mut()),
        (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY, null_mut()),
        (CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY, null_mut()),
        (
            CL_MEM_READ_WRITE | CL_MEM_WRITE_ONLY | CL_MEM_READ_ONLY,
            null_mut(),
        ),
        (CL_MEM_USE_HOST_PTR | CL_MEM_ALLOC_HOST_PTR, p),
        (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR, p),
        (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_READ_ONLY, null_mut()),
        (CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS, null_mut()),
        (CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS, null_mut()),
    ];
    for (flags, ptr) in cases {
        assert_err(
            e.try_buffer(flags, 64, ptr),
            CL_INVALID_VALUE,
            &format!("flags {flags:#x}"),
        );
    }
}

#[test]
fn undefined_flag_bits_are_invalid_value() {
    let e = Env::new();
    assert_err(
        e.try_buffer(1u64 << 40, 64, null_mut()),
        CL_INVALID_VALUE,
        "flags 1 << 40",
    );
}

#[test]
fn host_ptr_without_use_or_copy_is_invalid_host_ptr() {
    let e = Env::new();
    let mut host = vec![0u8; 64];
    for flags in [CL_MEM_READ_WRITE, CL_MEM_ALLOC_HOST_PTR] {
        assert_err(
            e.try_buffer(flags, 64, host.as_mut_ptr().cast()),
            CL_INVALID_HOST_PTR,
            &format!("flags {flags:#x} with host_ptr"),
        );
    }
}

#[test]
fn use_or_copy_without_host_ptr_is_invalid_host_ptr() {
    let e = Env::new();
    for flags in [CL_MEM_USE_HOST_PTR, CL_MEM_COPY_HOST_PTR] {
        assert_err(
            e.try_buffer(flags, 64, null_mut()),
            CL_INVALID_HOST_PTR,
            &format!("flags {flags:#x}, NULL"),
        );
    }
}

#[test]
fn zero_size_is_invalid_buffer_size() {
    let e = Env::new();
    assert_err(
        e.try_buffer(CL_MEM_READ_WRITE, 0, null_mut()),
        CL_INVALID_BUFFER_SIZE,
        "size 0",
    );
}

#[test]
fn size_above_max_mem_alloc_size_is_invalid_buffer_size() {
    let e = Env::new();
    let max = ok(
        device_info(device(), CL_DEVICE_MAX_MEM_ALLOC_SIZE),
        "MAX_MEM_ALLOC_SIZE",
    )
    .u64();
    assert_err(
        e.try_buffer(CL_MEM_READ_WRITE, max as usize + 1, null_mut()),
        CL_INVALID_BUFFER_SIZE,
        "size CL_DEVICE_MAX_MEM_ALLOC_SIZE + 1",
    );
}

#[test]
fn create_buffer_returns_null_on_error() {
    let e = Env::new();
    let mut rc = 0;
    let m = cl!(clCreateBuffer(
        e.c(),
        CL_MEM_READ_WRITE,
        0,
        null_mut(),
        &mut rc
    ));
    assert!(m.is_null());
    assert_code(rc, CL_INVALID_BUFFER_SIZE, "size 0");
}

// ---------------------------------------------------------------------------
// host pointers

#[test]
fn use_host_ptr_reports_the_given_pointer() {
    let e = Env::new();
    let mut host = vec![0u32; 64];
    let m = ok(
        e.try_buffer(CL_MEM_USE_HOST_PTR, 256, host.as_mut_ptr().cast()),
        "create",
    );
    assert_eq!(mem_ptr(&m, CL_MEM_HOST_PTR), host.as_mut_ptr().cast());
}

#[test]
fn host_ptr_is_null_without_use_host_ptr() {
    let e = Env::new();
    let host = vec![0u32; 64];
    let a = e.buffer(256);
    let b = e.buffer_from(&host);
    let c = ok(
        e.try_buffer(CL_MEM_ALLOC_HOST_PTR, 256, null_mut()),
        "ALLOC_HOST_PTR",
    );
    for m in [&a, &b, &c] {
        assert!(mem_ptr(m, CL_MEM_HOST_PTR).is_null());
    }
}

#[test]
fn use_host_ptr_initial_contents_come_from_host_memory() {
    let e = Env::new();
    let mut host: Vec<u32> = (0..64).map(|i| i * 3).collect();
    let expect = host.clone();
    let m = ok(
        e.try_buffer(CL_MEM_USE_HOST_PTR, 256, host.as_mut_ptr().cast()),
        "create",
    );
    let mut back = vec![0u32; 64];
    check(
        cl!(clEnqueueReadBuffer(
            e.q(),
            m.get(),
            CL_TRUE,
            0,
            256,
            back.as_mut_ptr().cast(),
            0,
            null(),
            null_mut()
        )),
        "read",
    );
    assert_eq!(back, expect);
}

#[test]
fn use_host_ptr_map_returns_address_inside_host_memory() {
    let e = Env::new();
    let mut host = vec![0u8; 4096];
    let base = host.as_mut_ptr() as usize;
    let m = ok(
        e.try_buffer(CL_MEM_USE_HOST_PTR, 4096, host.as_mut_ptr().cast()),
        "create",
    );
    for (flags, off) in [
        (CL_MAP_READ, 0usize),
        (CL_MAP_WRITE, 128),
        (CL_MAP_READ | CL_MAP_WRITE, 1000),
    ] {
        let p = ok(map(&e, &m, flags, off, 512), "map");
        // "The pointer value returned by clEnqueueMapBuffer will be derived
        // from the host_ptr specified when the buffer object is created."
        assert_eq!(
            p as usize,
            base + off,
            "map of offset {off} (flags {flags:#x})"
        );
        unmap(&e, &m, p);
    }
}

#[test]
fn use_host_ptr_kernel_write_is_in_host_memory_after_map() {
    let e = Env::new();
    let (_p, k) = e.kernel(DOUBLE_SRC, "double_plus_one");
    let n = 1024usize;
    let mut host: Vec<u32> = (0..n as u32).collect();
    let m = ok(
        e.try_buffer(CL_MEM_USE_HOST_PTR, n * 4, host.as_mut_ptr().cast()),
        "create",
    );
    ok(set_mem(k.get(), 0, &m), "set arg");
    e.run(&k, &[n], None);
    let p = ok(map(&e, &m, CL_MAP_READ, 0, n * 4), "map");
    // After the map completes the host memory holds the latest bits.
    let expect: Vec<u32> = (0..n as u32).map(|i| i * 2 + 1).collect();
    assert_eq!(host, expect);
    unmap(&e, &m, p);
}

#[test]
fn use_host_ptr_is_zero_copy_kernel_write_visible_after_finish() {
    // Beyond the spec (which lets implementations cache host_ptr contents):
    // ferrocl runs kernels directly on the application's memory, so the
    // result is there as soon as the command has finished, without a map.
    let e = Env::new();
    let (_p, k) = e.kernel(DOUBLE_SRC, "double_plus_one");
    let n = 4096usize;
    let mut host: Vec<u32> = (0..n as u32).collect();
    let m = ok(
        e.try_buffer(CL_MEM_USE_HOST_PTR, n * 4, host.as_mut_ptr().cast()),
        "create",
    );
    ok(set_mem(k.get(), 0, &m), "set arg");
    e.run(&k, &[n], None);
    let expect: Vec<u32> = (0..n as u32).map(|i| i * 2 + 1).collect();
    assert_eq!(host, expect);
    drop(m);
}

#[test]
fn copy_host_ptr_copies_at_creation() {
    let e = Env::new();
    let mut host: Vec<u32> = (0..64).collect();
    let m = e.buffer_from(&host);
    for v in host.iter_mut() {
        *v = 0xdead;
    }
    assert_eq!(e.read::<u32>(&m, 0, 64), (0..64).collect::<Vec<u32>>());
}

#[test]
fn alloc_host_ptr_with_copy_host_ptr_is_initialized() {
    let e = Env::new();
    let host: Vec<u32> = (100..164).collect();
    let m = ok(
        e.try_buffer(
            CL_MEM_ALLOC_HOST_PTR | CL_MEM_COPY_HOST_PTR,
            256,
            host.as_ptr() as *mut c_void,
        ),
        "create",
    );
    assert_eq!(e.read::<u32>(&m, 0, 64), host);
}

// ---------------------------------------------------------------------------
// sub-buffers

#[test]
fn sub_buffer_misaligned_origin_is_misaligned_sub_buffer_offset() {
    let e = Env::new();
    let a = align_bytes();
    let parent = e.buffer(a * 8);
    assert_err(
        sub_buffer(&parent, 0, a / 2, a),
        CL_MISALIGNED_SUB_BUFFER_OFFSET,
        "origin align/2",
    );
    assert_err(
        sub_buffer(&parent, 0, 4, a),
        CL_MISALIGNED_SUB_BUFFER_OFFSET,
        "origin 4",
    );
}

#[test]
fn sub_buffer_out_of_range_is_invalid_value() {
    let e = Env::new();
    let a = align_bytes();
    let parent = e.buffer(a * 4);
    assert_err(
        sub_buffer(&parent, 0, a * 2, a * 2 + 1),
        CL_INVALID_VALUE,
        "region past the end",
    );
    assert_err(
        sub_buffer(&parent, 0, a * 4, 1),
        CL_INVALID_VALUE,
        "origin at the end",
    );
    assert_err(
        sub_buffer(&parent, 0, a * 8, 16),
        CL_INVALID_VALUE,
        "origin beyond the end",
    );
}

#[test]
fn sub_buffer_zero_size_is_invalid_buffer_size() {
    let e = Env::new();
    let parent = e.buffer(align_bytes() * 4);
    assert_err(
        sub_buffer(&parent, 0, 0, 0),
        CL_INVALID_BUFFER_SIZE,
        "size 0",
    );
}

#[test]
fn sub_buffer_of_sub_buffer_is_invalid_mem_object() {
    let e = Env::new();
    let a = align_bytes();
    let parent = e.buffer(a * 4);
    let sub = ok(sub_buffer(&parent, 0, a, a * 2), "sub-buffer");
    assert_err(
        sub_buffer(&sub, 0, 0, a),
        CL_INVALID_MEM_OBJECT,
        "sub-buffer of a sub-buffer",
    );
}

#[test]
fn sub_buffer_invalid_create_type_or_info_is_invalid_value() {
    let e = Env::new();
    let parent = e.buffer(4096);
    let region = cl_buffer_region {
        origin: 0,
        size: 64,
    };
    let mut rc = 0;
    let m = cl!(clCreateSubBuffer(
        parent.get(),
        0,
        0x7777,
        (&region as *const cl_buffer_region).cast(),
        &mut rc
    ));
    assert!(m.is_null());
    assert_code(rc, CL_INVALID_VALUE, "buffer_create_type 0x7777");
    let m = cl!(clCreateSubBuffer(
        parent.get(),
        0,
        CL_BUFFER_CREATE_TYPE_REGION,
        null(),
        &mut rc
    ));
    assert!(m.is_null());
    assert_code(rc, CL_INVALID_VALUE, "buffer_create_info NULL");
}

#[test]
fn sub_buffer_host_ptr_flags_are_invalid_value() {
    let e = Env::new();
    let parent = e.buffer(4096);
    for f in [
        CL_MEM_USE_HOST_PTR,
        CL_MEM_ALLOC_HOST_PTR,
        CL_MEM_COPY_HOST_PTR,
    ] {
        assert_err(
            sub_buffer(&parent, f, 0, 64),
            CL_INVALID_VALUE,
            &format!("sub-buffer flags {f:#x}"),
        );
    }
}

#[test]
fn sub_buffer_access_wider_than_parent_is_invalid_value() {
    let e = Env::new();
    let wo = ok(
        e.try_buffer(CL_MEM_WRITE_ONLY, 4096, null_mut()),
        "WO parent",
    );
    let ro = ok(
        e.try_buffer(CL_MEM_READ_ONLY, 4096, null_mut()),
        "RO parent",
    );
    let hwo = ok(
        e.try_buffer(CL_MEM_HOST_WRITE_ONLY, 4096, null_mut()),
        "HWO parent",
    );
    let hna = ok(
        e.try_buffer(CL_MEM_HOST_NO_ACCESS, 4096, null_mut()),
        "HNA parent",
    );
    assert_err(
        sub_buffer(&wo, CL_MEM_READ_WRITE, 0, 64),
        CL_INVALID_VALUE,
        "WO parent, RW sub",
    );
    assert_err(
        sub_buffer(&wo, CL_MEM_READ_ONLY, 0, 64),
        CL_INVALID_VALUE,
        "WO parent, RO sub",
    );
    assert_err(
        sub_buffer(&ro, CL_MEM_READ_WRITE, 0, 64),
        CL_INVALID_VALUE,
        "RO parent, RW sub",
    );
    assert_err(
        sub_buffer(&ro, CL_MEM_WRITE_ONLY, 0, 64),
        CL_INVALID_VALUE,
        "RO parent, WO sub",
    );
    assert_err(
        sub_buffer(&hwo, CL_MEM_HOST_READ_ONLY, 0, 64),
        CL_INVALID_VALUE,
        "HWO parent, HRO sub",
    );
    assert_err(
        sub_buffer(&hna, CL_MEM_HOST_WRITE_ONLY, 0, 64),
        CL_INVALID_VALUE,
        "HNA parent, HWO sub",
    );
}

#[test]
fn sub_buffer_aliases_parent_memory() {
    let e = Env::new();
    let a = align_bytes();
    let parent = e.buffer_from(&vec![0u8; a * 4]);
    let sub = ok(sub_buffer(&parent, 0, a, a * 2), "sub-buffer");
    let data = bytes(a * 2, 7);
    e.write(&sub, 0, &data);
    assert_eq!(
        read_bytes(&e, &parent, a, a * 2),
        data,
        "write via sub-buffer, read parent"
    );
    assert_eq!(
        read_bytes(&e, &parent, 0, a),
        vec![0u8; a],
        "bytes before the sub-buffer untouched"
    );
    assert_eq!(
        read_bytes(&e, &parent, a * 3, a),
        vec![0u8; a],
        "bytes after the sub-buffer untouched"
    );
    let data2 = bytes(16, 99);
    e.write(&parent, a + 8, &data2);
    assert_eq!(
        read_bytes(&e, &sub, 8, 16),
        data2,
        "write parent, read via sub-buffer"
    );
}

#[test]
fn kernel_on_sub_buffer_writes_the_parent_region() {
    let e = Env::new();
    let (_p, k) = e.kernel(DOUBLE_SRC, "double_plus_one");
    let a = align_bytes();
    let words = a; // parent holds `a` uints = 4 * a bytes
    let init: Vec<u32> = (0..words as u32).collect();
    let parent = e.buffer_from(&init);
    let sub = ok(sub_buffer(&parent, 0, a, a), "sub-buffer"); // uints a/4 .. a/2
    ok(set_mem(k.get(), 0, &sub), "set arg");
    e.run(&k, &[a / 4], None);
    let got = e.read::<u32>(&parent, 0, words);
    for (i, &v) in got.iter().enumerate() {
        let inside = i >= a / 4 && i < a / 2;
        let want = if inside { init[i] * 2 + 1 } else { init[i] };
        assert_eq!(v, want, "uint {i}");
    }
}

#[test]
fn sub_buffer_info() {
    let e = Env::new();
    let a = align_bytes();
    let parent = ok(
        e.try_buffer(CL_MEM_READ_ONLY, a * 4, null_mut()),
        "RO parent",
    );
    let sub = ok(sub_buffer(&parent, 0, a * 2, a), "sub-buffer");
    assert_eq!(mem_usize(&sub, CL_MEM_SIZE), a);
    assert_eq!(mem_usize(&sub, CL_MEM_OFFSET), a * 2);
    assert_eq!(mem_ptr(&sub, CL_MEM_ASSOCIATED_MEMOBJECT), parent.get());
    assert_eq!(mem_ptr(&sub, CL_MEM_CONTEXT), e.c());
    assert_eq!(mem_u32(&sub, CL_MEM_TYPE), CL_MEM_OBJECT_BUFFER);
    // Access qualifiers not given are inherited from the parent.
    assert_ne!(
        mem_u64(&sub, CL_MEM_FLAGS) & CL_MEM_READ_ONLY,
        0,
        "inherited CL_MEM_READ_ONLY"
    );
}

#[test]
fn sub_buffer_of_use_host_ptr_buffer_reports_host_ptr_plus_origin() {
    let e = Env::new();
    let a = align_bytes();
    let mut host = vec![0u8; a * 4];
    let parent = ok(
        e.try_buffer(CL_MEM_USE_HOST_PTR, a * 4, host.as_mut_ptr().cast()),
        "create",
    );
    let sub = ok(sub_buffer(&parent, 0, a, a), "sub-buffer");
    assert_eq!(
        mem_ptr(&sub, CL_MEM_HOST_PTR) as usize,
        host.as_ptr() as usize + a
    );
}

#[test]
fn sub_buffer_keeps_working_after_parent_handle_is_released() {
    // The sub-buffer references the parent's data store; releasing the
    // application's parent reference must not invalidate it.
    let e = Env::new();
    let a = align_bytes();
    let parent = e.buffer_from(&bytes(a * 2, 3));
    let sub = ok(sub_buffer(&parent, 0, a, a), "sub-buffer");
    drop(parent);
    assert_eq!(read_bytes(&e, &sub, 0, a), bytes(a * 2, 3)[a..].to_vec());
}

// ---------------------------------------------------------------------------
// read / write

#[test]
fn write_then_read_with_offsets() {
    let e = Env::new();
    let m = e.buffer_from(&vec![0u8; 1000]);
    let data = bytes(300, 1);
    e.write(&m, 123, &data);
    let all = read_bytes(&e, &m, 0, 1000);
    assert_eq!(&all[123..423], &data[..]);
    assert!(all[..123].iter().all(|&b| b == 0) && all[423..].iter().all(|&b| b == 0));
    assert_eq!(read_bytes(&e, &m, 200, 50), data[77..127].to_vec());
}

#[test]
fn non_blocking_write_and_read_with_events() {
    let e = Env::new();
    let m = e.buffer(4096);
    let data = bytes(4096, 5);
    let mut back = vec![0u8; 4096];
    let mut we = null_mut();
    check(
        cl!(clEnqueueWriteBuffer(
            e.q(),
            m.get(),
            CL_FALSE,
            0,
            4096,
            data.as_ptr().cast(),
            0,
            null(),
            &mut we
        )),
        "non-blocking write",
    );
    let we = ev(we);
    let mut re = null_mut();
    check(
        cl!(clEnqueueReadBuffer(
            e.q(),
            m.get(),
            CL_FALSE,
            0,
            4096,
            back.as_mut_ptr().cast(),
            1,
            &we.0,
            &mut re
        )),
        "non-blocking read",
    );
    let re = ev(re);
    re.wait();
    assert_eq!(re.status(), CL_COMPLETE);
    assert_eq!(we.status(), CL_COMPLETE);
    assert_eq!(back, data);
    assert_eq!(
        ok(event_info(we.get(), CL_EVENT_COMMAND_TYPE), "type").u32(),
        CL_COMMAND_WRITE_BUFFER
    );
    assert_eq!(
        ok(event_info(re.get(), CL_EVENT_COMMAND_TYPE), "type").u32(),
        CL_COMMAND_READ_BUFFER
    );
}

#[test]
fn read_and_write_out_of_bounds_are_invalid_value() {
    let e = Env::new();
    let m = e.buffer(256);
    let mut buf = vec![0u8; 512];
    let rc = cl!(clEnqueueReadBuffer(
        e.q(),
        m.get(),
        CL_TRUE,
        200,
        100,
        buf.as_mut_ptr().cast(),
        0,
        null(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_VALUE, "read 200..300 of 256");
    let rc = cl!(clEnqueueWriteBuffer(
        e.q(),
        m.get(),
        CL_TRUE,
        0,
        257,
        buf.as_ptr().cast(),
        0,
        null(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_VALUE, "write 0..257 of 256");
    let rc = cl!(clEnqueueReadBuffer(
        e.q(),
        m.get(),
        CL_TRUE,
        0,
        16,
        null_mut(),
        0,
        null(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_VALUE, "read into NULL");
}

#[test]
fn host_access_flags_restrict_reads_and_writes() {
    let e = Env::new();
    let mut buf = vec![0u8; 64];
    let read = |m: &Mem, buf: &mut Vec<u8>| {
        cl!(clEnqueueReadBuffer(
            e.q(),
            m.get(),
            CL_TRUE,
            0,
            64,
            buf.as_mut_ptr().cast(),
            0,
            null(),
            null_mut()
        ))
    };
    let write = |m: &Mem, buf: &Vec<u8>| {
        cl!(clEnqueueWriteBuffer(
            e.q(),
            m.get(),
            CL_TRUE,
            0,
            64,
            buf.as_ptr().cast(),
            0,
            null(),
            null_mut()
        ))
    };
    let hwo = ok(e.try_buffer(CL_MEM_HOST_WRITE_ONLY, 64, null_mut()), "HWO");
    let hro = ok(e.try_buffer(CL_MEM_HOST_READ_ONLY, 64, null_mut()), "HRO");
    let hna = ok(e.try_buffer(CL_MEM_HOST_NO_ACCESS, 64, null_mut()), "HNA");
    assert_code(
        read(&hwo, &mut buf),
        CL_INVALID_OPERATION,
        "read HOST_WRITE_ONLY",
    );
    check(write(&hwo, &buf), "write HOST_WRITE_ONLY");
    assert_code(
        write(&hro, &buf),
        CL_INVALID_OPERATION,
        "write HOST_READ_ONLY",
    );
    check(read(&hro, &mut buf), "read HOST_READ_ONLY");
    assert_code(
        read(&hna, &mut buf),
        CL_INVALID_OPERATION,
        "read HOST_NO_ACCESS",
    );
    assert_code(
        write(&hna, &buf),
        CL_INVALID_OPERATION,
        "write HOST_NO_ACCESS",
    );
}

// ---------------------------------------------------------------------------
// copy

#[test]
fn copy_between_buffers_with_offsets() {
    let e = Env::new();
    let src = e.buffer_from(&bytes(512, 11));
    let dst = e.buffer_from(&vec![0u8; 512]);
    check(copy(&e, &src, &dst, 100, 300, 150), "copy");
    e.finish();
    let got = read_bytes(&e, &dst, 0, 512);
    let mut want = vec![0u8; 512];
    want[300..450].copy_from_slice(&bytes(512, 11)[100..250]);
    assert_eq!(got, want);
}

#[test]
fn copy_within_one_buffer_without_overlap() {
    let e = Env::new();
    let init = bytes(512, 21);
    let m = e.buffer_from(&init);
    // Adjacent regions do not overlap: [0, 128) -> [128, 256).
    check(copy(&e, &m, &m, 0, 128, 128), "adjacent copy");
    check(copy(&e, &m, &m, 400, 256, 100), "backward copy");
    e.finish();
    let mut want = init.clone();
    want.copy_within(0..128, 128);
    want.copy_within(400..500, 256);
    assert_eq!(read_bytes(&e, &m, 0, 512), want);
}

#[test]
fn overlapping_copy_within_one_buffer_is_mem_copy_overlap() {
    let e = Env::new();
    let m = e.buffer(512);
    assert_code(
        copy(&e, &m, &m, 0, 100, 128),
        CL_MEM_COPY_OVERLAP,
        "[0,128) -> [100,228)",
    );
    assert_code(
        copy(&e, &m, &m, 100, 0, 128),
        CL_MEM_COPY_OVERLAP,
        "[100,228) -> [0,128)",
    );
    assert_code(
        copy(&e, &m, &m, 0, 127, 128),
        CL_MEM_COPY_OVERLAP,
        "[0,128) -> [127,255)",
    );
    assert_code(
        copy(&e, &m, &m, 64, 64, 32),
        CL_MEM_COPY_OVERLAP,
        "same region",
    );
}

#[test]
fn overlapping_copy_between_sub_buffers_of_one_buffer_is_mem_copy_overlap() {
    let e = Env::new();
    let a = align_bytes();
    let parent = e.buffer(a * 4);
    let s1 = ok(sub_buffer(&parent, 0, 0, a * 2), "sub 1");
    let s2 = ok(sub_buffer(&parent, 0, a, a * 2), "sub 2");
    // s1[a, 2a) is parent[a, 2a); s2[0, a) is parent[a, 2a) too.
    assert_code(
        copy(&e, &s1, &s2, a / 2, 0, a),
        CL_MEM_COPY_OVERLAP,
        "sub-buffers overlapping in the parent",
    );
    // Non-overlapping in the parent: s1[0, a) -> s2[a, 2a) = parent[2a, 3a).
    check(
        copy(&e, &s1, &s2, 0, a, a),
        "disjoint copy between sub-buffers",
    );
    e.finish();
}

#[test]
fn copy_out_of_bounds_is_invalid_value() {
    let e = Env::new();
    let a = e.buffer(256);
    let b = e.buffer(128);
    assert_code(
        copy(&e, &a, &b, 0, 0, 129),
        CL_INVALID_VALUE,
        "dst too small",
    );
    assert_code(
        copy(&e, &a, &b, 200, 0, 64),
        CL_INVALID_VALUE,
        "src range past end",
    );
    assert_code(
        copy(&e, &b, &a, 0, 250, 8),
        CL_INVALID_VALUE,
        "dst range past end",
    );
}

// ---------------------------------------------------------------------------
// fill

#[test]
fn fill_with_every_allowed_pattern_size() {
    let e = Env::new();
    for ps in [1usize, 2, 4, 8, 16, 32, 64, 128] {
        let total = 2048;
        let m = e.buffer_from(&vec![0xEEu8; total]);
        let pattern = bytes(ps, ps as u8);
        let (off, size) = (ps * 3, ps * 5);
        check(
            fill(&e, &m, &pattern, off, size),
            &format!("fill pattern size {ps}"),
        );
        e.finish();
        let got = read_bytes(&e, &m, 0, total);
        for (i, &b) in got.iter().enumerate() {
            let want = if i >= off && i < off + size {
                pattern[(i - off) % ps]
            } else {
                0xEE
            };
            assert_eq!(b, want, "pattern size {ps}, byte {i}");
        }
    }
}

#[test]
fn fill_whole_buffer_with_float_pattern() {
    let e = Env::new();
    let m = e.buffer(4096);
    let v = 1.5f32;
    check(
        cl!(clEnqueueFillBuffer(
            e.q(),
            m.get(),
            (&v as *const f32).cast(),
            4,
            0,
            4096,
            0,
            null(),
            null_mut()
        )),
        "fill",
    );
    e.finish();
    assert!(e.read::<f32>(&m, 0, 1024).iter().all(|&x| x == 1.5));
}

#[test]
fn fill_invalid_pattern_size_is_invalid_value() {
    let e = Env::new();
    let m = e.buffer(1024);
    let p = [0u8; 256];
    for ps in [0usize, 3, 6, 12, 24, 256] {
        assert_code(
            fill(&e, &m, &p[..ps], 0, 768),
            CL_INVALID_VALUE,
            &format!("pattern size {ps}"),
        );
    }
    let rc = cl!(clEnqueueFillBuffer(
        e.q(),
        m.get(),
        null(),
        4,
        0,
        64,
        0,
        null(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_VALUE, "pattern NULL");
}

#[test]
fn fill_offset_or_size_not_multiple_of_pattern_is_invalid_value() {
    let e = Env::new();
    let m = e.buffer(1024);
    let p = [1u8; 8];
    assert_code(
        fill(&e, &m, &p, 4, 64),
        CL_INVALID_VALUE,
        "offset 4, pattern 8",
    );
    assert_code(
        fill(&e, &m, &p, 0, 60),
        CL_INVALID_VALUE,
        "size 60, pattern 8",
    );
}

#[test]
fn fill_out_of_bounds_is_invalid_value() {
    let e = Env::new();
    let m = e.buffer(1024);
    let p = [1u8; 4];
    assert_code(
        fill(&e, &m, &p, 1020, 8),
        CL_INVALID_VALUE,
        "fill past the end",
    );
}

// ---------------------------------------------------------------------------
// rectangular transfers

#[test]
fn write_buffer_rect_matches_host_model() {
    let e = Env::new();
    let buf_size = 16 * 12 * 5; // row pitch 16, slice pitch 16*12, 5 slices
    let m = e.buffer_from(&vec![0u8; buf_size]);
    let host = bytes(20 * 9 * 4, 3); // host row pitch 20, slice pitch 180
    let (bo, ho, region) = ([3usize, 2, 1], [5usize, 1, 0], [7usize, 6, 3]);
    let (brp, bsp, hrp, hsp) = (16usize, 16 * 12, 20usize, 20 * 9);
    check(
        cl!(clEnqueueWriteBufferRect(
            e.q(),
            m.get(),
            CL_TRUE,
            bo.as_ptr(),
            ho.as_ptr(),
            region.as_ptr(),
            brp,
            bsp,
            hrp,
            hsp,
            host.as_ptr().cast(),
            0,
            null(),
            null_mut()
        )),
        "clEnqueueWriteBufferRect",
    );
    let mut want = vec![0u8; buf_size];
    model_rect(&host, ho, hrp, hsp, &mut want, bo, brp, bsp, region);
    assert_eq!(read_bytes(&e, &m, 0, buf_size), want);
}

#[test]
fn read_buffer_rect_matches_host_model() {
    let e = Env::new();
    let buf_size = 32 * 10 * 4;
    let data = bytes(buf_size, 77);
    let m = e.buffer_from(&data);
    let mut host = vec![0xAAu8; 24 * 8 * 3];
    let (bo, ho, region) = ([9usize, 3, 1], [2usize, 2, 1], [13usize, 5, 2]);
    let (brp, bsp, hrp, hsp) = (32usize, 320, 24usize, 24 * 8);
    check(
        cl!(clEnqueueReadBufferRect(
            e.q(),
            m.get(),
            CL_TRUE,
            bo.as_ptr(),
            ho.as_ptr(),
            region.as_ptr(),
            brp,
            bsp,
            hrp,
            hsp,
            host.as_mut_ptr().cast(),
            0,
            null(),
            null_mut()
        )),
        "clEnqueueReadBufferRect",
    );
    let mut want = vec![0xAAu8; 24 * 8 * 3];
    model_rect(&data, bo, brp, bsp, &mut want, ho, hrp, hsp, region);
    assert_eq!(host, want);
}

#[test]
fn read_buffer_rect_with_default_pitches() {
    // Zero pitches: row pitch = region[0], slice pitch = region[1] * row pitch.
    let e = Env::new();
    let data = bytes(8 * 4 * 3, 5);
    let m = e.buffer_from(&data);
    let mut host = vec![0u8; 8 * 4 * 3];
    let (o, region) = ([0usize, 0, 0], [8usize, 4, 3]);
    check(
        cl!(clEnqueueReadBufferRect(
            e.q(),
            m.get(),
            CL_TRUE,
            o.as_ptr(),
            o.as_ptr(),
            region.as_ptr(),
            0,
            0,
            0,
            0,
            host.as_mut_ptr().cast(),
            0,
            null(),
            null_mut()
        )),
        "clEnqueueReadBufferRect (zero pitches)",
    );
    assert_eq!(host, data);
}

#[test]
fn copy_buffer_rect_matches_host_model() {
    let e = Env::new();
    let src_data = bytes(40 * 6 * 4, 9);
    let src = e.buffer_from(&src_data);
    let dst_size = 24 * 10 * 3;
    let dst = e.buffer_from(&vec![0u8; dst_size]);
    let (so, d, region) = ([4usize, 1, 1], [1usize, 3, 0], [11usize, 4, 3]);
    let (srp, ssp, drp, dsp) = (40usize, 240, 24usize, 240);
    check(
        cl!(clEnqueueCopyBufferRect(
            e.q(),
            src.get(),
            dst.get(),
            so.as_ptr(),
            d.as_ptr(),
            region.as_ptr(),
            srp,
            ssp,
            drp,
            dsp,
            0,
            null(),
            null_mut()
        )),
        "clEnqueueCopyBufferRect",
    );
    e.finish();
    let mut want = vec![0u8; dst_size];
    model_rect(&src_data, so, srp, ssp, &mut want, d, drp, dsp, region);
    assert_eq!(read_bytes(&e, &dst, 0, dst_size), want);
}

#[test]
fn copy_buffer_rect_within_one_buffer_without_overlap() {
    let e = Env::new();
    let init = bytes(16 * 16, 1);
    let m = e.buffer_from(&init);
    // Left half rows 0..8 -> right half rows 8..16 (row pitch 16).
    let (so, d, region) = ([0usize, 0, 0], [8usize, 8, 0], [8usize, 8, 1]);
    check(
        cl!(clEnqueueCopyBufferRect(
            e.q(),
            m.get(),
            m.get(),
            so.as_ptr(),
            d.as_ptr(),
            region.as_ptr(),
            16,
            256,
            16,
            256,
            0,
            null(),
            null_mut()
        )),
        "copy rect within a buffer",
    );
    e.finish();
    let mut want = init.clone();
    model_rect(&init, so, 16, 256, &mut want, d, 16, 256, region);
    assert_eq!(read_bytes(&e, &m, 0, 256), want);
}

#[test]
fn overlapping_copy_buffer_rect_is_mem_copy_overlap() {
    let e = Env::new();
    let m = e.buffer(16 * 16);
    let (so, d, region) = ([0usize, 0, 0], [4usize, 4, 0], [8usize, 8, 1]);
    let rc = cl!(clEnqueueCopyBufferRect(
        e.q(),
        m.get(),
        m.get(),
        so.as_ptr(),
        d.as_ptr(),
        region.as_ptr(),
        16,
        256,
        16,
        256,
        0,
        null(),
        null_mut()
    ));
    assert_code(
        rc,
        CL_MEM_COPY_OVERLAP,
        "overlapping rectangles in one buffer",
    );
}

#[test]
fn rect_invalid_arguments_are_invalid_value() {
    let e = Env::new();
    let m = e.buffer(16 * 16);
    let mut host = vec![0u8; 1024];
    let o = [0usize, 0, 0];
    let mut rd = |bo: [usize; 3], region: [usize; 3], brp: usize, hrp: usize| {
        cl!(clEnqueueReadBufferRect(
            e.q(),
            m.get(),
            CL_TRUE,
            bo.as_ptr(),
            o.as_ptr(),
            region.as_ptr(),
            brp,
            0,
            hrp,
            0,
            host.as_mut_ptr().cast(),
            0,
            null(),
            null_mut()
        ))
    };
    assert_code(rd(o, [0, 4, 1], 16, 16), CL_INVALID_VALUE, "region[0] = 0");
    assert_code(rd(o, [4, 0, 1], 16, 16), CL_INVALID_VALUE, "region[1] = 0");
    assert_code(rd(o, [4, 4, 0], 16, 16), CL_INVALID_VALUE, "region[2] = 0");
    assert_code(
        rd(o, [8, 4, 1], 4, 16),
        CL_INVALID_VALUE,
        "buffer_row_pitch < region[0]",
    );
    assert_code(
        rd(o, [8, 4, 1], 16, 4),
        CL_INVALID_VALUE,
        "host_row_pitch < region[0]",
    );
    assert_code(
        rd([0, 13, 0], [8, 4, 1], 16, 16),
        CL_INVALID_VALUE,
        "rows past the end",
    );
    assert_code(
        rd([12, 15, 0], [8, 1, 1], 16, 16),
        CL_INVALID_VALUE,
        "last row past the end",
    );
    // Offsets and sizes whose byte positions overflow an address.
    let huge = usize::MAX / 2;
    assert_code(
        rd([0, 0, huge], [8, 1, 1], 16, 16),
        CL_INVALID_VALUE,
        "origin z * slice pitch overflows",
    );
    assert_code(
        rd([usize::MAX, 0, 0], [8, 1, 1], 16, 16),
        CL_INVALID_VALUE,
        "origin x + region overflows",
    );
    assert_code(
        rd(o, [8, huge, 2], 16, 16),
        CL_INVALID_VALUE,
        "region rows * pitch overflows",
    );
    // The buffer is intact and usable after all that.
    let data: Vec<u8> = (0..=255).collect();
    e.write(&m, 0, &data);
    assert_eq!(e.read::<u8>(&m, 0, 256), data);
}

// ---------------------------------------------------------------------------
// map / unmap

#[test]
fn blocking_map_for_read_sees_buffer_contents() {
    let e = Env::new();
    let data = bytes(1024, 42);
    let m = e.buffer_from(&data);
    let p = ok(map(&e, &m, CL_MAP_READ, 256, 512), "map");
    let seen = unsafe { std::slice::from_raw_parts(p as *const u8, 512) }.to_vec();
    assert_eq!(seen, data[256..768].to_vec());
    unmap(&e, &m, p);
}

#[test]
fn map_for_write_then_unmap_updates_buffer() {
    let e = Env::new();
    let m = e.buffer_from(&vec![0u8; 1024]);
    let p = ok(map(&e, &m, CL_MAP_WRITE, 100, 200), "map");
    unsafe { std::slice::from_raw_parts_mut(p as *mut u8, 200) }.copy_from_slice(&bytes(200, 8));
    unmap(&e, &m, p);
    let got = read_bytes(&e, &m, 0, 1024);
    assert_eq!(&got[100..300], &bytes(200, 8)[..]);
    assert!(got[..100].iter().chain(&got[300..]).all(|&b| b == 0));
}

#[test]
fn map_write_invalidate_region_then_unmap_updates_buffer() {
    let e = Env::new();
    let m = e.buffer(256);
    let p = ok(map(&e, &m, CL_MAP_WRITE_INVALIDATE_REGION, 0, 256), "map");
    unsafe { std::slice::from_raw_parts_mut(p as *mut u8, 256) }.copy_from_slice(&bytes(256, 4));
    unmap(&e, &m, p);
    assert_eq!(read_bytes(&e, &m, 0, 256), bytes(256, 4));
}

#[test]
fn non_blocking_map_with_event() {
    let e = Env::new();
    let data = bytes(512, 13);
    let m = e.buffer_from(&data);
    let mut rc = 0;
    let mut evt = null_mut();
    let p = cl!(clEnqueueMapBuffer(
        e.q(),
        m.get(),
        CL_FALSE,
        CL_MAP_READ,
        0,
        512,
        0,
        null(),
        &mut evt,
        &mut rc
    ));
    check(rc, "non-blocking map");
    let evt = ev(evt);
    evt.wait();
    assert_eq!(
        ok(event_info(evt.get(), CL_EVENT_COMMAND_TYPE), "type").u32(),
        CL_COMMAND_MAP_BUFFER
    );
    assert_eq!(
        unsafe { std::slice::from_raw_parts(p as *const u8, 512) },
        &data[..]
    );
    let mut uev = null_mut();
    check(
        cl!(clEnqueueUnmapMemObject(
            e.q(),
            m.get(),
            p,
            0,
            null(),
            &mut uev
        )),
        "unmap",
    );
    let uev = ev(uev);
    uev.wait();
    assert_eq!(
        ok(event_info(uev.get(), CL_EVENT_COMMAND_TYPE), "type").u32(),
        CL_COMMAND_UNMAP_MEM_OBJECT
    );
}

#[test]
fn map_count_follows_map_and_unmap() {
    let e = Env::new();
    let m = e.buffer(1024);
    assert_eq!(mem_u32(&m, CL_MEM_MAP_COUNT), 0);
    let p1 = ok(map(&e, &m, CL_MAP_READ, 0, 256), "map 1");
    assert_eq!(mem_u32(&m, CL_MEM_MAP_COUNT), 1);
    let p2 = ok(map(&e, &m, CL_MAP_READ, 512, 256), "map 2");
    assert_eq!(mem_u32(&m, CL_MEM_MAP_COUNT), 2);
    unmap(&e, &m, p1);
    assert_eq!(mem_u32(&m, CL_MEM_MAP_COUNT), 1);
    unmap(&e, &m, p2);
    assert_eq!(mem_u32(&m, CL_MEM_MAP_COUNT), 0);
}

#[test]
fn map_invalid_flags_size_or_range_is_invalid_value() {
    let e = Env::new();
    let m = e.buffer(1024);
    assert_err(
        map(&e, &m, CL_MAP_READ | CL_MAP_WRITE_INVALIDATE_REGION, 0, 64),
        CL_INVALID_VALUE,
        "READ|WRITE_INVALIDATE",
    );
    assert_err(
        map(&e, &m, CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION, 0, 64),
        CL_INVALID_VALUE,
        "WRITE|WRITE_INVALIDATE",
    );
    assert_err(
        map(&e, &m, 1 << 20, 0, 64),
        CL_INVALID_VALUE,
        "undefined map flag",
    );
    assert_err(map(&e, &m, CL_MAP_READ, 0, 0), CL_INVALID_VALUE, "size 0");
    assert_err(
        map(&e, &m, CL_MAP_READ, 1000, 100),
        CL_INVALID_VALUE,
        "range past the end",
    );
}

#[test]
fn map_against_host_access_flags_is_invalid_operation() {
    let e = Env::new();
    let hwo = ok(e.try_buffer(CL_MEM_HOST_WRITE_ONLY, 64, null_mut()), "HWO");
    let hro = ok(e.try_buffer(CL_MEM_HOST_READ_ONLY, 64, null_mut()), "HRO");
    let hna = ok(e.try_buffer(CL_MEM_HOST_NO_ACCESS, 64, null_mut()), "HNA");
    assert_err(
        map(&e, &hwo, CL_MAP_READ, 0, 64),
        CL_INVALID_OPERATION,
        "MAP_READ of HOST_WRITE_ONLY",
    );
    assert_err(
        map(&e, &hro, CL_MAP_WRITE, 0, 64),
        CL_INVALID_OPERATION,
        "MAP_WRITE of HOST_READ_ONLY",
    );
    assert_err(
        map(&e, &hro, CL_MAP_WRITE_INVALIDATE_REGION, 0, 64),
        CL_INVALID_OPERATION,
        "MAP_WRITE_INVALIDATE_REGION of HOST_READ_ONLY",
    );
    assert_err(
        map(&e, &hna, CL_MAP_READ, 0, 64),
        CL_INVALID_OPERATION,
        "MAP_READ of HOST_NO_ACCESS",
    );
    assert_err(
        map(&e, &hna, CL_MAP_WRITE, 0, 64),
        CL_INVALID_OPERATION,
        "MAP_WRITE of HOST_NO_ACCESS",
    );
}

#[test]
fn overlapping_maps_for_writing_are_invalid_operation() {
    let e = Env::new();
    let m = e.buffer(1024);
    let p = ok(map(&e, &m, CL_MAP_WRITE, 0, 512), "first map");
    assert_err(
        map(&e, &m, CL_MAP_WRITE, 256, 512),
        CL_INVALID_OPERATION,
        "second overlapping write map",
    );
    unmap(&e, &m, p);
}

#[test]
fn unmap_of_pointer_not_from_map_is_invalid_value() {
    let e = Env::new();
    let m = e.buffer(1024);
    let mut other = [0u8; 16];
    let rc = cl!(clEnqueueUnmapMemObject(
        e.q(),
        m.get(),
        other.as_mut_ptr().cast(),
        0,
        null(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_VALUE, "unmap of a foreign pointer");
}

// ---------------------------------------------------------------------------
// info, reference counts, destructor callbacks

#[test]
fn mem_object_info_queries() {
    let e = Env::new();
    let flags = CL_MEM_READ_ONLY | CL_MEM_HOST_WRITE_ONLY;
    let m = ok(e.try_buffer(flags, 1000, null_mut()), "create");
    assert_eq!(mem_u32(&m, CL_MEM_TYPE), CL_MEM_OBJECT_BUFFER);
    assert_eq!(mem_u64(&m, CL_MEM_FLAGS), flags);
    assert_eq!(mem_usize(&m, CL_MEM_SIZE), 1000);
    assert_eq!(mem_usize(&m, CL_MEM_OFFSET), 0);
    assert!(mem_ptr(&m, CL_MEM_ASSOCIATED_MEMOBJECT).is_null());
    assert_eq!(mem_ptr(&m, CL_MEM_CONTEXT), e.c());
    assert_eq!(mem_u32(&m, CL_MEM_MAP_COUNT), 0);
    assert!(!ok(
        mem_info(m.get(), CL_MEM_USES_SVM_POINTER),
        "USES_SVM_POINTER"
    )
    .bool());
}

#[test]
fn mem_properties_empty_for_create_buffer() {
    let e = Env::new();
    let m = e.buffer(64);
    let mut size = 99usize;
    check(
        cl!(clGetMemObjectInfo(
            m.get(),
            CL_MEM_PROPERTIES,
            0,
            null_mut(),
            &mut size
        )),
        "CL_MEM_PROPERTIES",
    );
    assert_eq!(size, 0);
}

#[test]
fn create_buffer_with_properties_returns_given_properties() {
    let e = Env::new();
    let props: [cl_mem_properties; 1] = [0];
    let mut rc = 0;
    let m = cl!(clCreateBufferWithProperties(
        e.c(),
        props.as_ptr(),
        CL_MEM_READ_WRITE,
        128,
        null_mut(),
        &mut rc
    ));
    check(rc, "clCreateBufferWithProperties({0})");
    let m = Mem(m);
    assert_eq!(
        ok(mem_info(m.get(), CL_MEM_PROPERTIES), "CL_MEM_PROPERTIES").u64s(),
        vec![0]
    );
    assert_eq!(mem_usize(&m, CL_MEM_SIZE), 128);
}

#[test]
fn create_buffer_with_unknown_property_is_invalid_property() {
    let e = Env::new();
    let props: [cl_mem_properties; 3] = [0x7777, 1, 0];
    let mut rc = 0;
    let m = cl!(clCreateBufferWithProperties(
        e.c(),
        props.as_ptr(),
        CL_MEM_READ_WRITE,
        128,
        null_mut(),
        &mut rc
    ));
    assert!(m.is_null());
    assert_code(rc, CL_INVALID_PROPERTY, "mem property 0x7777");
}

#[test]
fn mem_reference_count_follows_retain_and_release() {
    let e = Env::new();
    let m = e.buffer(64);
    assert_eq!(mem_u32(&m, CL_MEM_REFERENCE_COUNT), 1);
    check(cl!(clRetainMemObject(m.get())), "clRetainMemObject");
    assert_eq!(mem_u32(&m, CL_MEM_REFERENCE_COUNT), 2);
    check(cl!(clReleaseMemObject(m.get())), "clReleaseMemObject");
    assert_eq!(mem_u32(&m, CL_MEM_REFERENCE_COUNT), 1);
}

#[test]
fn mem_info_unknown_param_is_invalid_value() {
    let e = Env::new();
    let m = e.buffer(64);
    let mut buf = [0u8; 64];
    let rc = cl!(clGetMemObjectInfo(
        m.get(),
        0x7777,
        64,
        buf.as_mut_ptr().cast(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_VALUE, "clGetMemObjectInfo(0x7777)");
    let rc = cl!(clGetMemObjectInfo(
        m.get(),
        CL_MEM_SIZE,
        2,
        buf.as_mut_ptr().cast(),
        null_mut()
    ));
    assert_code(rc, CL_INVALID_VALUE, "CL_MEM_SIZE into 2 bytes");
}

static MEM_DTOR_ORDER: Mutex<Vec<usize>> = Mutex::new(Vec::new());
static MEM_DTOR_CALLS: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn on_mem_destroyed(_m: cl_mem, user_data: *mut c_void) {
    MEM_DTOR_ORDER.lock().unwrap().push(user_data as usize);
    MEM_DTOR_CALLS.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn mem_destructor_callbacks_run_in_reverse_registration_order() {
    let e = Env::new();
    let m = e.buffer(64).into_raw();
    for tag in [1usize, 2, 3] {
        check(
            cl!(clSetMemObjectDestructorCallback(
                m,
                Some(on_mem_destroyed),
                tag as *mut c_void
            )),
            "clSetMemObjectDestructorCallback",
        );
    }
    assert_eq!(MEM_DTOR_CALLS.load(Ordering::SeqCst), 0);
    check(cl!(clReleaseMemObject(m)), "clReleaseMemObject");
    let t = Instant::now();
    while MEM_DTOR_CALLS.load(Ordering::SeqCst) < 3 && t.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(*MEM_DTOR_ORDER.lock().unwrap(), vec![3, 2, 1]);
}

#[test]
fn opencl3_buffer_roundtrip() {
    use opencl3::memory::{Buffer, ClMem};
    let dev = opencl3::device::Device::new(device());
    let ctx = opencl3::context::Context::from_device(&dev).unwrap();
    let q =
        opencl3::command_queue::CommandQueue::create_default_with_properties(&ctx, 0, 0).unwrap();
    let mut b = unsafe { Buffer::<f32>::create(&ctx, CL_MEM_READ_WRITE, 256, null_mut()) }.unwrap();
    let data: Vec<f32> = (0..256).map(|i| i as f32 * 0.5).collect();
    unsafe { q.enqueue_write_buffer(&mut b, CL_TRUE, 0, &data, &[]) }.unwrap();
    let mut back = vec![0f32; 256];
    unsafe { q.enqueue_read_buffer(&b, CL_TRUE, 0, &mut back, &[]) }.unwrap();
    assert_eq!(back, data);
    assert_eq!(
        ok(mem_info(b.get(), CL_MEM_SIZE), "CL_MEM_SIZE").usize(),
        1024
    );
}
