//! `cl_intel_unified_shared_memory`: host, device and shared allocations,
//! their queries, commands with events and wait lists, pointers as kernel
//! arguments and inside data, blocking free, and every bad input.

use ferrocl_tests::*;
use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::time::Duration;

type HostAllocFn =
    unsafe extern "C" fn(cl_context, *const cl_ulong, usize, cl_uint, *mut cl_int) -> *mut c_void;
type DeviceAllocFn = unsafe extern "C" fn(
    cl_context,
    cl_device_id,
    *const cl_ulong,
    usize,
    cl_uint,
    *mut cl_int,
) -> *mut c_void;
type FreeFn = unsafe extern "C" fn(cl_context, *mut c_void) -> cl_int;
type InfoFn = unsafe extern "C" fn(
    cl_context,
    *const c_void,
    cl_uint,
    usize,
    *mut c_void,
    *mut usize,
) -> cl_int;
type ArgFn = unsafe extern "C" fn(cl_kernel, cl_uint, *const c_void) -> cl_int;
type FillFn = unsafe extern "C" fn(
    cl_command_queue,
    *mut c_void,
    *const c_void,
    usize,
    usize,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;
type MemsetFn = unsafe extern "C" fn(
    cl_command_queue,
    *mut c_void,
    cl_int,
    usize,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;
type MemcpyFn = unsafe extern "C" fn(
    cl_command_queue,
    cl_bool,
    *mut c_void,
    *const c_void,
    usize,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;
/// `clEnqueueMigrateMemINTEL` and `clEnqueueMemAdviseINTEL` (flags or advice).
type RangeFn = unsafe extern "C" fn(
    cl_command_queue,
    *const c_void,
    usize,
    cl_ulong,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;
type AdviseFn = unsafe extern "C" fn(
    cl_command_queue,
    *const c_void,
    usize,
    cl_uint,
    cl_uint,
    *const cl_event,
    *mut cl_event,
) -> cl_int;

const CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL: cl_uint = 0x4190;
const CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL: cl_uint = 0x4194;
const ACCESS: u64 = 1;
const ATOMIC_ACCESS: u64 = 2;
const CONCURRENT_ACCESS: u64 = 4;
const CONCURRENT_ATOMIC_ACCESS: u64 = 8;
const CL_MEM_ALLOC_FLAGS_INTEL: cl_ulong = 0x4195;
const CL_MEM_ALLOC_WRITE_COMBINED_INTEL: cl_ulong = 1;
const CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL: cl_ulong = 2;
const CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL: cl_ulong = 4;
const CL_MEM_ALLOC_TYPE_INTEL: cl_uint = 0x419A;
const CL_MEM_ALLOC_BASE_PTR_INTEL: cl_uint = 0x419B;
const CL_MEM_ALLOC_SIZE_INTEL: cl_uint = 0x419C;
const CL_MEM_ALLOC_DEVICE_INTEL: cl_uint = 0x419D;
const CL_MEM_TYPE_UNKNOWN_INTEL: u32 = 0x4196;
const CL_MEM_TYPE_HOST_INTEL: u32 = 0x4197;
const CL_MEM_TYPE_DEVICE_INTEL: u32 = 0x4198;
const CL_MEM_TYPE_SHARED_INTEL: u32 = 0x4199;
const CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL: cl_uint = 0x4201;
const CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL: cl_uint = 0x4203;
const CL_COMMAND_MEMFILL_INTEL: u32 = 0x4204;
const CL_COMMAND_MEMCPY_INTEL: u32 = 0x4205;
const CL_COMMAND_MIGRATEMEM_INTEL: u32 = 0x4206;
const CL_COMMAND_MEMADVISE_INTEL: u32 = 0x4207;

struct Usm {
    host: HostAllocFn,
    device: DeviceAllocFn,
    shared: DeviceAllocFn,
    free: FreeFn,
    blocking_free: FreeFn,
    info: InfoFn,
    arg: ArgFn,
    fill: FillFn,
    memset: MemsetFn,
    memcpy: MemcpyFn,
    migrate: RangeFn,
    advise: AdviseFn,
}

fn usm() -> Usm {
    Usm {
        host: extension_function("clHostMemAllocINTEL"),
        device: extension_function("clDeviceMemAllocINTEL"),
        shared: extension_function("clSharedMemAllocINTEL"),
        free: extension_function("clMemFreeINTEL"),
        blocking_free: extension_function("clMemBlockingFreeINTEL"),
        info: extension_function("clGetMemAllocInfoINTEL"),
        arg: extension_function("clSetKernelArgMemPointerINTEL"),
        fill: extension_function("clEnqueueMemFillINTEL"),
        memset: extension_function("clEnqueueMemsetINTEL"),
        memcpy: extension_function("clEnqueueMemcpyINTEL"),
        migrate: extension_function("clEnqueueMigrateMemINTEL"),
        advise: extension_function("clEnqueueMemAdviseINTEL"),
    }
}

/// The three kinds, allocated the same way.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Host,
    Device,
    Shared,
}

impl Usm {
    fn alloc(
        &self,
        e: &Env,
        kind: Kind,
        props: *const cl_ulong,
        size: usize,
        align: cl_uint,
    ) -> Result<*mut u8, cl_int> {
        let mut rc = 0;
        let p = unsafe {
            match kind {
                Kind::Host => (self.host)(e.c(), props, size, align, &mut rc),
                Kind::Device => (self.device)(e.c(), e.device, props, size, align, &mut rc),
                Kind::Shared => (self.shared)(e.c(), e.device, props, size, align, &mut rc),
            }
        };
        result(rc, p as *mut u8)
    }

    #[track_caller]
    fn new(&self, e: &Env, kind: Kind, size: usize) -> *mut u8 {
        ok(self.alloc(e, kind, null(), size, 0), "USM allocation")
    }

    fn query(&self, e: &Env, p: *const c_void, name: cl_uint) -> Info {
        ok(
            query(|size, value, ret| unsafe { (self.info)(e.c(), p, name, size, value, ret) }),
            "clGetMemAllocInfoINTEL",
        )
    }

    #[track_caller]
    fn free(&self, e: &Env, p: *mut u8) {
        check(unsafe { (self.free)(e.c(), p.cast()) }, "clMemFreeINTEL");
    }
}

fn user_event(e: &Env) -> Ev {
    let mut rc = 0;
    let u = cl!(clCreateUserEvent(e.c(), &mut rc));
    check(rc, "clCreateUserEvent");
    Ev(u)
}

fn command_type(ev: &Ev) -> cl_command_type {
    ok(
        event_info(ev.get(), CL_EVENT_COMMAND_TYPE),
        "CL_EVENT_COMMAND_TYPE",
    )
    .u32()
}

#[test]
fn the_device_reports_the_extension_and_its_capabilities() {
    let ext = ok(
        device_info(device(), CL_DEVICE_EXTENSIONS),
        "CL_DEVICE_EXTENSIONS",
    )
    .string();
    assert!(ext_names(&ext)
        .iter()
        .any(|n| n == "cl_intel_unified_shared_memory"));
    for name in
        CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL..=CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL
    {
        let caps = ok(device_info(device(), name), "USM capabilities").u64();
        assert_eq!(
            caps,
            ACCESS | ATOMIC_ACCESS | CONCURRENT_ACCESS | CONCURRENT_ATOMIC_ACCESS,
            "query {name:#x}"
        );
    }
}

#[test]
fn allocations_report_their_kind_base_size_and_device() {
    let e = Env::new();
    let u = usm();
    for (kind, want, device) in [
        (Kind::Host, CL_MEM_TYPE_HOST_INTEL, null_mut()),
        (Kind::Device, CL_MEM_TYPE_DEVICE_INTEL, e.device),
        (Kind::Shared, CL_MEM_TYPE_SHARED_INTEL, e.device),
    ] {
        let p = u.new(&e, kind, 1000);
        assert_eq!(p as usize % 128, 0, "{kind:?}: the default alignment");
        let middle = p.wrapping_add(999) as *const c_void;
        assert_eq!(u.query(&e, middle, CL_MEM_ALLOC_TYPE_INTEL).u32(), want);
        assert_eq!(
            u.query(&e, middle, CL_MEM_ALLOC_BASE_PTR_INTEL).ptr(),
            p.cast()
        );
        assert_eq!(u.query(&e, middle, CL_MEM_ALLOC_SIZE_INTEL).usize(), 1000);
        assert_eq!(
            u.query(&e, middle, CL_MEM_ALLOC_DEVICE_INTEL).ptr(),
            device as *mut c_void
        );
        // The host reaches every kind here.
        unsafe { std::ptr::write_bytes(p, 1, 1000) };
        u.free(&e, p);
        assert_eq!(
            u.query(&e, middle, CL_MEM_ALLOC_TYPE_INTEL).u32(),
            CL_MEM_TYPE_UNKNOWN_INTEL,
            "{kind:?} after the free"
        );
        assert!(u
            .query(&e, middle, CL_MEM_ALLOC_BASE_PTR_INTEL)
            .ptr()
            .is_null());
    }
    // A shared allocation need not name a device; then it reports none.
    let mut rc = 0;
    let p = unsafe { (u.shared)(e.c(), null_mut(), null(), 64, 4096, &mut rc) };
    check(rc, "clSharedMemAllocINTEL without a device");
    assert_eq!(p as usize % 4096, 0);
    assert!(u.query(&e, p, CL_MEM_ALLOC_DEVICE_INTEL).ptr().is_null());
    u.free(&e, p.cast());
    // Flags given as a property, and reported back.
    let props = [
        CL_MEM_ALLOC_FLAGS_INTEL,
        CL_MEM_ALLOC_WRITE_COMBINED_INTEL,
        0,
    ];
    let p = ok(u.alloc(&e, Kind::Host, props.as_ptr(), 64, 0), "with flags");
    assert_eq!(
        u.query(&e, p.cast(), CL_MEM_ALLOC_FLAGS_INTEL as cl_uint)
            .u64(),
        CL_MEM_ALLOC_WRITE_COMBINED_INTEL
    );
    u.free(&e, p);
    // Memory nobody allocated is unknown.
    let own = [0u8; 4];
    assert_eq!(
        u.query(&e, own.as_ptr().cast(), CL_MEM_ALLOC_TYPE_INTEL)
            .u32(),
        CL_MEM_TYPE_UNKNOWN_INTEL
    );
}

#[test]
fn allocation_and_free_refuse_bad_input() {
    let e = Env::new();
    let u = usm();
    let max = ok(
        device_info(device(), CL_DEVICE_MAX_MEM_ALLOC_SIZE),
        "CL_DEVICE_MAX_MEM_ALLOC_SIZE",
    )
    .u64() as usize;
    let unknown = [0x4242u64, 0, 0];
    let twice = [CL_MEM_ALLOC_FLAGS_INTEL, 0, CL_MEM_ALLOC_FLAGS_INTEL, 0, 0];
    let bad_flags = [CL_MEM_ALLOC_FLAGS_INTEL, 1 << 20, 0];
    let both_places = [
        CL_MEM_ALLOC_FLAGS_INTEL,
        CL_MEM_ALLOC_INITIAL_PLACEMENT_DEVICE_INTEL | CL_MEM_ALLOC_INITIAL_PLACEMENT_HOST_INTEL,
        0,
    ];
    for kind in [Kind::Host, Kind::Device, Kind::Shared] {
        for (props, size, align, want) in [
            (null(), 0, 0, CL_INVALID_BUFFER_SIZE),
            (null(), max + 1, 0, CL_INVALID_BUFFER_SIZE),
            (null(), 64, 3, CL_INVALID_VALUE),
            (unknown.as_ptr(), 64, 0, CL_INVALID_PROPERTY),
            (twice.as_ptr(), 64, 0, CL_INVALID_PROPERTY),
            (bad_flags.as_ptr(), 64, 0, CL_INVALID_PROPERTY),
            (both_places.as_ptr(), 64, 0, CL_INVALID_PROPERTY),
        ] {
            assert_err(
                u.alloc(&e, kind, props, size, align),
                want,
                &format!("{kind:?}"),
            );
        }
    }
    let mut rc = 0;
    let p = unsafe { (u.device)(e.c(), null_mut(), null(), 64, 0, &mut rc) };
    assert!(p.is_null());
    assert_code(
        rc,
        CL_INVALID_DEVICE,
        "a device allocation without a device",
    );
    let p = unsafe { (u.host)(null_mut(), null(), 64, 0, &mut rc) };
    assert!(p.is_null());
    assert_code(rc, CL_INVALID_CONTEXT, "no context");
    // A released context is no context.
    let ctx = ok(create_context(null()), "clCreateContext").into_raw();
    let live = unsafe { (u.host)(ctx, null(), 64, 0, &mut rc) };
    check(rc, "an allocation in a live context");
    check(unsafe { (u.free)(ctx, live) }, "its free");
    check(cl!(clReleaseContext(ctx)), "clReleaseContext");
    let p = unsafe { (u.host)(ctx, null(), 64, 0, &mut rc) };
    assert!(p.is_null());
    assert_code(rc, CL_INVALID_CONTEXT, "a released context");
    // Free: NULL is nothing; twice, the middle, or memory nobody allocated
    // are errors that change nothing.
    let p = u.new(&e, Kind::Shared, 64);
    check(unsafe { (u.free)(e.c(), null_mut()) }, "free of NULL");
    assert_code(
        unsafe { (u.free)(e.c(), p.wrapping_add(8).cast()) },
        CL_INVALID_VALUE,
        "free of the middle",
    );
    assert_eq!(u.query(&e, p.cast(), CL_MEM_ALLOC_SIZE_INTEL).usize(), 64);
    assert_code(
        unsafe { (u.free)(null_mut(), p.cast()) },
        CL_INVALID_CONTEXT,
        "no context",
    );
    u.free(&e, p);
    assert_code(
        unsafe { (u.free)(e.c(), p.cast()) },
        CL_INVALID_VALUE,
        "free twice",
    );
    // An SVM allocation is not USM's to free.
    let s = cl!(clSVMAlloc(e.c(), CL_MEM_READ_WRITE, 64, 0));
    assert_code(
        unsafe { (u.free)(e.c(), s) },
        CL_INVALID_VALUE,
        "free of SVM memory",
    );
    cl!(clSVMFree(e.c(), s));
}

#[test]
fn fill_memset_and_memcpy_follow_their_wait_lists() {
    let e = Env::new();
    let u = usm();
    let n = 4096;
    let dev = u.new(&e, Kind::Device, n);
    let host = u.new(&e, Kind::Host, n);
    let gate = user_event(&e);
    let pattern = 0x0102_0304u32;
    let mut fill = null_mut();
    check(
        unsafe {
            (u.fill)(
                e.q(),
                dev.cast(),
                (&pattern as *const u32).cast(),
                4,
                n,
                1,
                &gate.get(),
                &mut fill,
            )
        },
        "clEnqueueMemFillINTEL",
    );
    let fill = Ev(fill);
    let mut set = null_mut();
    check(
        unsafe {
            (u.memset)(
                e.q(),
                dev.wrapping_add(100).cast(),
                0x1ab,
                50,
                1,
                &fill.get(),
                &mut set,
            )
        },
        "clEnqueueMemsetINTEL",
    );
    let set = Ev(set);
    check(cl!(clFlush(e.q())), "clFlush");
    std::thread::sleep(Duration::from_millis(10));
    assert!(
        fill.status() > CL_COMPLETE,
        "the fill waits for its wait list"
    );
    check(
        cl!(clSetUserEventStatus(gate.get(), CL_COMPLETE)),
        "open the gate",
    );
    let mut copy = null_mut();
    check(
        unsafe {
            (u.memcpy)(
                e.q(),
                CL_TRUE,
                host.cast(),
                dev.cast(),
                n,
                1,
                &set.get(),
                &mut copy,
            )
        },
        "clEnqueueMemcpyINTEL",
    );
    let copy = Ev(copy);
    let bytes = unsafe { std::slice::from_raw_parts(host, n) };
    let p = pattern.to_ne_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let want = if (100..150).contains(&i) {
            0xab
        } else {
            p[i % 4]
        };
        assert_eq!(b, want, "byte {i}");
    }
    assert_eq!(command_type(&fill), CL_COMMAND_MEMFILL_INTEL);
    assert_eq!(command_type(&set), CL_COMMAND_MEMFILL_INTEL);
    assert_eq!(command_type(&copy), CL_COMMAND_MEMCPY_INTEL);
    // Into the application's own memory, and out of it.
    let mut own = vec![0u8; 16];
    check(
        unsafe {
            (u.memcpy)(
                e.q(),
                CL_TRUE,
                own.as_mut_ptr().cast(),
                host.wrapping_add(100).cast(),
                16,
                0,
                null(),
                null_mut(),
            )
        },
        "to host memory",
    );
    assert!(own.iter().all(|&b| b == 0xab));
    // Bad input.
    let q = e.q();
    unsafe {
        assert_code(
            (u.memcpy)(
                q,
                CL_TRUE,
                host.cast(),
                host.wrapping_add(8).cast(),
                16,
                0,
                null(),
                null_mut(),
            ),
            CL_MEM_COPY_OVERLAP,
            "an overlapping copy",
        );
        assert_code(
            (u.memcpy)(
                q,
                CL_TRUE,
                null_mut(),
                host.cast(),
                16,
                0,
                null(),
                null_mut(),
            ),
            CL_INVALID_VALUE,
            "a copy to NULL",
        );
        assert_code(
            (u.memcpy)(
                q,
                CL_TRUE,
                own.as_mut_ptr().cast(),
                host.wrapping_add(n - 8).cast(),
                16,
                0,
                null(),
                null_mut(),
            ),
            CL_INVALID_VALUE,
            "a copy past the allocation",
        );
        assert_code(
            (u.fill)(
                q,
                dev.cast(),
                (&pattern as *const u32).cast(),
                3,
                12,
                0,
                null(),
                null_mut(),
            ),
            CL_INVALID_VALUE,
            "a pattern of 3 bytes",
        );
        assert_code(
            (u.fill)(q, dev.cast(), null(), 4, 16, 0, null(), null_mut()),
            CL_INVALID_VALUE,
            "no pattern",
        );
        assert_code(
            (u.memset)(q, null_mut(), 0, 16, 0, null(), null_mut()),
            CL_INVALID_VALUE,
            "a memset of NULL",
        );
        assert_code(
            (u.fill)(
                null_mut(),
                dev.cast(),
                (&pattern as *const u32).cast(),
                4,
                16,
                0,
                null(),
                null_mut(),
            ),
            CL_INVALID_COMMAND_QUEUE,
            "no queue",
        );
        assert_code(
            (u.memcpy)(
                q,
                CL_TRUE,
                own.as_mut_ptr().cast(),
                host.cast(),
                16,
                1,
                null(),
                null_mut(),
            ),
            CL_INVALID_EVENT_WAIT_LIST,
            "a wait list without events",
        );
    }
    u.free(&e, dev);
    u.free(&e, host);
}

#[test]
fn migration_and_advice_are_commands_that_check_their_ranges() {
    let e = Env::new();
    let u = usm();
    let p = u.new(&e, Kind::Shared, 1024);
    let mut ev = null_mut();
    check(
        unsafe {
            (u.migrate)(
                e.q(),
                p.wrapping_add(24).cast(),
                1000,
                CL_MIGRATE_MEM_OBJECT_HOST,
                0,
                null(),
                &mut ev,
            )
        },
        "clEnqueueMigrateMemINTEL",
    );
    let migrate = Ev(ev);
    check(
        unsafe { (u.advise)(e.q(), p.cast(), 1024, 0, 0, null(), &mut ev) },
        "clEnqueueMemAdviseINTEL",
    );
    let advise = Ev(ev);
    advise.wait();
    assert_eq!(command_type(&migrate), CL_COMMAND_MIGRATEMEM_INTEL);
    assert_eq!(command_type(&advise), CL_COMMAND_MEMADVISE_INTEL);
    unsafe {
        assert_code(
            (u.migrate)(
                e.q(),
                p.wrapping_add(24).cast(),
                1001,
                0,
                0,
                null(),
                null_mut(),
            ),
            CL_INVALID_VALUE,
            "a migration past the end",
        );
        assert_code(
            (u.migrate)(e.q(), p.cast(), 16, 1 << 9, 0, null(), null_mut()),
            CL_INVALID_VALUE,
            "an unknown migration flag",
        );
        assert_code(
            (u.migrate)(e.q(), null(), 16, 0, 0, null(), null_mut()),
            CL_INVALID_VALUE,
            "a migration of NULL",
        );
        assert_code(
            (u.advise)(e.q(), p.cast(), 16, 77, 0, null(), null_mut()),
            CL_INVALID_VALUE,
            "an advice the extension does not define",
        );
    }
    u.free(&e, p);
}

const GATHER: &str = r#"
// A table of pointers to device allocations, in a shared allocation.
struct row { __global int* p; };
__kernel void gather(__global const struct row* table, __global int* out, int n) {
    size_t i = get_global_id(0);
    out[i] = table[i % n].p[i / n];
}
"#;

#[test]
fn kernels_follow_pointers_to_usm_allocations_and_a_blocking_free_waits() {
    let e = Env::new();
    let u = usm();
    let (_p, k) = e.kernel(GATHER, "gather");
    let tables = 4;
    let per = 256;
    let rows: Vec<*mut u8> = (0..tables)
        .map(|_| u.new(&e, Kind::Device, per * 4))
        .collect();
    for (t, &r) in rows.iter().enumerate() {
        let values: Vec<i32> = (0..per as i32).map(|j| j * 10 + t as i32).collect();
        check(
            unsafe {
                (u.memcpy)(
                    e.q(),
                    CL_TRUE,
                    r.cast(),
                    values.as_ptr().cast(),
                    per * 4,
                    0,
                    null(),
                    null_mut(),
                )
            },
            "fill a row",
        );
    }
    let table = u.new(&e, Kind::Shared, tables * 8);
    unsafe { std::ptr::copy_nonoverlapping(rows.as_ptr(), table as *mut *mut u8, tables) };
    // The output starts 16 bytes into a host allocation.
    let out = u.new(&e, Kind::Host, (tables * per + 4) * 4);
    unsafe {
        check(
            (u.arg)(k.get(), 0, table.cast()),
            "clSetKernelArgMemPointerINTEL(table)",
        );
        check(
            (u.arg)(k.get(), 1, out.wrapping_add(16).cast()),
            "clSetKernelArgMemPointerINTEL(out)",
        );
        assert_code(
            (u.arg)(k.get(), 2, out.cast()),
            CL_INVALID_ARG_INDEX,
            "a pointer for an int",
        );
        assert_code(
            (u.arg)(k.get(), 3, out.cast()),
            CL_INVALID_ARG_INDEX,
            "no such argument",
        );
    }
    set_arg(k.get(), 2, &(tables as i32)).unwrap();
    let on = CL_TRUE;
    check(
        cl!(clSetKernelExecInfo(
            k.get(),
            CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL,
            std::mem::size_of_val(&on),
            (&on as *const cl_bool).cast()
        )),
        "INDIRECT_DEVICE_ACCESS",
    );
    check(
        cl!(clSetKernelExecInfo(
            k.get(),
            CL_KERNEL_EXEC_INFO_USM_PTRS_INTEL,
            rows.len() * 8,
            rows.as_ptr().cast()
        )),
        "USM_PTRS",
    );
    assert_code(
        cl!(clSetKernelExecInfo(
            k.get(),
            CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL,
            1,
            (&on as *const cl_bool).cast()
        )),
        CL_INVALID_VALUE,
        "a cl_bool of one byte",
    );
    // The kernel waits for a gate another thread opens later; the blocking
    // free of a row returns only once the kernel has run.
    let gate = user_event(&e);
    let n = tables * per;
    check(
        cl!(clEnqueueNDRangeKernel(
            e.q(),
            k.get(),
            1,
            null(),
            &n,
            null(),
            1,
            &gate.get(),
            null_mut()
        )),
        "clEnqueueNDRangeKernel",
    );
    check(cl!(clFlush(e.q())), "clFlush");
    let g = gate.get() as usize;
    let opener = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        check(
            cl!(clSetUserEventStatus(g as cl_event, CL_COMPLETE)),
            "open the gate",
        );
    });
    check(
        unsafe { (u.blocking_free)(e.c(), rows[0].cast()) },
        "clMemBlockingFreeINTEL",
    );
    let got = unsafe { std::slice::from_raw_parts(out.wrapping_add(16) as *const i32, n) };
    for (i, &v) in got.iter().enumerate() {
        assert_eq!(
            v,
            (i / tables) as i32 * 10 + (i % tables) as i32,
            "element {i}"
        );
    }
    opener.join().unwrap();
    for &r in &rows[1..] {
        u.free(&e, r);
    }
    u.free(&e, table);
    u.free(&e, out);
}

/// What `free_in_callback` frees, and where it says it has.
struct FreeInCallback {
    free: FreeFn,
    context: cl_context,
    ptr: *mut c_void,
    done: std::sync::mpsc::Sender<cl_int>,
}

unsafe extern "C" fn free_in_callback(_e: cl_event, _status: cl_int, data: *mut c_void) {
    let f = Box::from_raw(data as *mut FreeInCallback);
    let rc = (f.free)(f.context, f.ptr);
    let _ = f.done.send(rc);
}

/// SYCL frees its temporary allocations blocking, from a callback of the
/// command that used them, while other queues of the context may wait on
/// that command: the free finishes them, which must not wait for the
/// command the callback is called from.
#[test]
fn a_blocking_free_from_a_callback_ends_while_another_queue_waits_on_its_command() {
    let e = Env::new();
    let u = usm();
    let mut rc = 0;
    // SAFETY: the extension's functions, with live handles and pointers.
    unsafe {
        let p = (u.host)(e.c(), null(), 4096, 0, &mut rc);
        check(rc, "clHostMemAllocINTEL");
        let (_prog, k) = e.kernel(
            "kernel void k(global int *x) { x[get_global_id(0)] = 7; }",
            "k",
        );
        check((u.arg)(k.get(), 0, p), "clSetKernelArgMemPointerINTEL");
        let mut set = null_mut();
        let global = 1024usize;
        check(
            cl!(clEnqueueNDRangeKernel(
                e.q(),
                k.get(),
                1,
                null(),
                &global,
                null(),
                0,
                null(),
                &mut set
            )),
            "clEnqueueNDRangeKernel",
        );
        let (tx, rx) = std::sync::mpsc::channel();
        let data = Box::into_raw(Box::new(FreeInCallback {
            free: u.blocking_free,
            context: e.c(),
            ptr: p,
            done: tx,
        }));
        // A second queue whose command waits on the memset.
        let other = ok(
            create_queue(e.c(), null()),
            "clCreateCommandQueueWithProperties",
        );
        let mut after = null_mut();
        check(
            cl!(clEnqueueMarkerWithWaitList(
                other.get(),
                1,
                &set,
                &mut after
            )),
            "marker",
        );
        check(
            cl!(clSetEventCallback(
                set,
                CL_COMPLETE,
                Some(free_in_callback),
                data.cast()
            )),
            "clSetEventCallback",
        );
        check(cl!(clFlush(other.get())), "clFlush");
        check(cl!(clFlush(e.q())), "clFlush");
        assert_eq!(
            rx.recv_timeout(Duration::from_secs(20)),
            Ok(CL_SUCCESS),
            "the blocking free in the callback did not end"
        );
        check(cl!(clWaitForEvents(1, &after)), "the marker");
        check(cl!(clReleaseEvent(after)), "release");
        check(cl!(clReleaseEvent(set)), "release");
    }
}
