//! Shared helpers for the ferrocl integration tests.
//!
//! The tests are OpenCL *applications*: they load the system ICD loader
//! (`libOpenCL.so.1`, ocl-icd) through the `cl3`/`opencl3` client crates and
//! reach ferrocl only through it. Nothing here links against ferrocl.
//!
//! Three layers are available to the tests:
//! * [`cl!`]: the loader's exported C functions, called with any argument
//!   values at all (null or wrong-type handles, short sizes, bad flags...);
//! * the `cl3` wrappers (`cl3::memory::create_buffer`, ...), which return
//!   `Result<_, cl_int>`;
//! * the small RAII handles and helpers below ([`Env`], [`Mem`], [`Prog`],
//!   [`Kern`], [`Ev`]).
//!
//! Every OpenCL constant and type (`CL_*`, `cl_*`) is re-exported from here.
//!
//! The platform under test is the one named `ferrocl`. For checking the
//! tests themselves against another ICD, `FERROCL_TEST_PLATFORM` may name a
//! different platform (tests that check ferrocl's own name then fail, as they
//! should).

#![allow(clippy::missing_safety_doc)]

mod fatal_signals;

use std::ffi::{c_void, CString};
use std::ptr::{null, null_mut};
use std::sync::OnceLock;

pub use cl3;
pub use cl3::ext::*;
pub use opencl3;

/// Name of the platform under test (`CL_PLATFORM_NAME`).
pub const PLATFORM_NAME: &str = "ferrocl";

/// The loader's function table (dlopen of `libOpenCL.so.1`, or of
/// `OPENCL_DYLIB_PATH` when set). Panics with a clear message if absent.
pub fn raw() -> &'static cl3::OpenClRuntime {
    match cl3::load_library() {
        Ok(rt) => rt,
        Err(e) => panic!(
            "cannot load the OpenCL ICD loader (libOpenCL.so.1): {e}. \
             Install ocl-icd-libopencl1 and register ferrocl in OCL_ICD_VENDORS."
        ),
    }
}

/// Call an OpenCL C function through the ICD loader with exactly the given
/// arguments: `cl!(clGetPlatformInfo(p, CL_PLATFORM_NAME, 0, null_mut(), &mut n))`.
#[macro_export]
macro_rules! cl {
    ($f:ident ( $($a:expr),* $(,)? )) => {
        $crate::raw().$f($($a),*).unwrap_or_else(|| {
            panic!(concat!(stringify!($f), " is not exported by the OpenCL ICD loader"))
        })
    };
}

// ---------------------------------------------------------------------------
// Errors

/// Symbolic name of an OpenCL error code, for messages.
pub fn err_name(code: cl_int) -> &'static str {
    cl3::error_codes::error_text(code)
}

/// Unwraps a `Result<T, cl_int>`, panicking with the error's name.
#[track_caller]
pub fn ok<T>(r: Result<T, cl_int>, what: &str) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{what} failed with {} ({e})", err_name(e)),
    }
}

/// Panics unless `code` is `CL_SUCCESS`.
#[track_caller]
pub fn check(code: cl_int, what: &str) {
    assert!(
        code == CL_SUCCESS,
        "{what} failed with {} ({code})",
        err_name(code)
    );
}

/// Asserts that a raw return code is `expected`.
#[track_caller]
pub fn assert_code(code: cl_int, expected: cl_int, what: &str) {
    assert!(
        code == expected,
        "{what}: expected {} ({expected}), got {} ({code})",
        err_name(expected),
        err_name(code)
    );
}

/// Asserts that `r` failed with `expected`.
#[track_caller]
pub fn assert_err<T>(r: Result<T, cl_int>, expected: cl_int, what: &str) {
    match r {
        Ok(_) => panic!(
            "{what}: expected {} ({expected}), but it succeeded",
            err_name(expected)
        ),
        Err(e) => assert_code(e, expected, what),
    }
}

/// Asserts that `r` failed with one of `allowed` (for the few places where the
/// spec lists several codes for the same condition).
#[track_caller]
pub fn assert_err_in<T>(r: Result<T, cl_int>, allowed: &[cl_int], what: &str) {
    let names: Vec<_> = allowed.iter().map(|&c| err_name(c)).collect();
    match r {
        Ok(_) => panic!("{what}: expected one of {names:?}, but it succeeded"),
        Err(e) => assert!(
            allowed.contains(&e),
            "{what}: expected one of {names:?}, got {} ({e})",
            err_name(e)
        ),
    }
}

/// Turns a (return code, value) pair into a `Result`.
pub fn result<T>(code: cl_int, value: T) -> Result<T, cl_int> {
    if code == CL_SUCCESS {
        Ok(value)
    } else {
        Err(code)
    }
}

// ---------------------------------------------------------------------------
// Info queries

/// Bytes returned by a `clGet*Info` query, with typed accessors that check
/// the size the implementation reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Info(pub Vec<u8>);

impl Info {
    #[track_caller]
    fn fixed<const N: usize>(&self, ty: &str) -> [u8; N] {
        assert_eq!(
            self.0.len(),
            N,
            "query returned {} bytes, expected sizeof({ty}) = {N}",
            self.0.len()
        );
        self.0[..N].try_into().unwrap()
    }
    #[track_caller]
    pub fn u32(&self) -> u32 {
        u32::from_ne_bytes(self.fixed::<4>("cl_uint"))
    }
    #[track_caller]
    pub fn i32(&self) -> i32 {
        i32::from_ne_bytes(self.fixed::<4>("cl_int"))
    }
    #[track_caller]
    pub fn u64(&self) -> u64 {
        u64::from_ne_bytes(self.fixed::<8>("cl_ulong"))
    }
    #[track_caller]
    pub fn usize(&self) -> usize {
        usize::from_ne_bytes(self.fixed::<{ std::mem::size_of::<usize>() }>("size_t"))
    }
    #[track_caller]
    pub fn bool(&self) -> bool {
        match self.u32() {
            0 => false,
            1 => true,
            v => panic!("cl_bool query returned {v}, neither CL_FALSE nor CL_TRUE"),
        }
    }
    /// A handle or `void*` value.
    #[track_caller]
    pub fn ptr(&self) -> *mut c_void {
        self.usize() as *mut c_void
    }
    #[track_caller]
    pub fn usizes(&self) -> Vec<usize> {
        let w = std::mem::size_of::<usize>();
        assert_eq!(
            self.0.len() % w,
            0,
            "size_t[] query returned {} bytes",
            self.0.len()
        );
        self.0
            .chunks_exact(w)
            .map(|c| usize::from_ne_bytes(c.try_into().unwrap()))
            .collect()
    }
    #[track_caller]
    pub fn u64s(&self) -> Vec<u64> {
        assert_eq!(
            self.0.len() % 8,
            0,
            "64-bit array query returned {} bytes",
            self.0.len()
        );
        self.0
            .chunks_exact(8)
            .map(|c| u64::from_ne_bytes(c.try_into().unwrap()))
            .collect()
    }
    #[track_caller]
    pub fn isizes(&self) -> Vec<isize> {
        self.usizes().into_iter().map(|v| v as isize).collect()
    }
    /// A `char[]` result: must be NUL-terminated, with no interior NUL.
    #[track_caller]
    pub fn string(&self) -> String {
        let b = &self.0;
        assert!(
            b.last() == Some(&0),
            "string query result is not NUL-terminated: {:?}",
            String::from_utf8_lossy(b)
        );
        let body = &b[..b.len() - 1];
        assert!(
            !body.contains(&0),
            "string query result has an interior NUL: {:?}",
            String::from_utf8_lossy(body)
        );
        String::from_utf8(body.to_vec()).expect("string query result is not UTF-8")
    }
    /// A `cl_name_version[]` result: (name, version) pairs.
    #[track_caller]
    pub fn name_versions(&self) -> Vec<(String, cl_version)> {
        const SZ: usize = 4 + CL_NAME_VERSION_MAX_NAME_SIZE;
        assert_eq!(
            self.0.len() % SZ,
            0,
            "cl_name_version[] query returned {} bytes, not a multiple of {SZ}",
            self.0.len()
        );
        self.0
            .chunks_exact(SZ)
            .map(|c| {
                let version = u32::from_ne_bytes(c[..4].try_into().unwrap());
                let name = &c[4..];
                let end = name
                    .iter()
                    .position(|&b| b == 0)
                    .expect("cl_name_version name is not NUL-terminated within 64 bytes");
                (String::from_utf8(name[..end].to_vec()).unwrap(), version)
            })
            .collect()
    }
}

/// Runs the usual two-call query protocol on a raw `clGet*Info`-style call:
/// first the size, then the value into a buffer of exactly that size.
pub fn query(mut f: impl FnMut(usize, *mut c_void, *mut usize) -> cl_int) -> Result<Info, cl_int> {
    let mut size = 0usize;
    let rc = f(0, null_mut(), &mut size);
    if rc != CL_SUCCESS {
        return Err(rc);
    }
    let mut buf = vec![0u8; size];
    let mut size2 = usize::MAX;
    let p = if size == 0 {
        null_mut()
    } else {
        buf.as_mut_ptr().cast()
    };
    let rc = f(size, p, &mut size2);
    if rc != CL_SUCCESS {
        return Err(rc);
    }
    assert_eq!(
        size2, size,
        "param_value_size_ret differs between the two calls"
    );
    Ok(Info(buf))
}

pub fn platform_info(p: cl_platform_id, name: cl_platform_info) -> Result<Info, cl_int> {
    query(|s, v, r| cl!(clGetPlatformInfo(p, name, s, v, r)))
}
pub fn device_info(d: cl_device_id, name: cl_device_info) -> Result<Info, cl_int> {
    query(|s, v, r| cl!(clGetDeviceInfo(d, name, s, v, r)))
}
pub fn context_info(c: cl_context, name: cl_context_info) -> Result<Info, cl_int> {
    query(|s, v, r| cl!(clGetContextInfo(c, name, s, v, r)))
}
pub fn queue_info(q: cl_command_queue, name: cl_command_queue_info) -> Result<Info, cl_int> {
    query(|s, v, r| cl!(clGetCommandQueueInfo(q, name, s, v, r)))
}
pub fn mem_info(m: cl_mem, name: cl_mem_info) -> Result<Info, cl_int> {
    query(|s, v, r| cl!(clGetMemObjectInfo(m, name, s, v, r)))
}
pub fn program_info(p: cl_program, name: cl_program_info) -> Result<Info, cl_int> {
    query(|s, v, r| cl!(clGetProgramInfo(p, name, s, v, r)))
}
pub fn build_info(
    p: cl_program,
    d: cl_device_id,
    name: cl_program_build_info,
) -> Result<Info, cl_int> {
    query(|s, v, r| cl!(clGetProgramBuildInfo(p, d, name, s, v, r)))
}
pub fn kernel_info(k: cl_kernel, name: cl_kernel_info) -> Result<Info, cl_int> {
    query(|s, v, r| cl!(clGetKernelInfo(k, name, s, v, r)))
}
pub fn kernel_arg_info(k: cl_kernel, i: cl_uint, name: cl_kernel_arg_info) -> Result<Info, cl_int> {
    query(|s, v, r| cl!(clGetKernelArgInfo(k, i, name, s, v, r)))
}
pub fn kernel_wg_info(
    k: cl_kernel,
    d: cl_device_id,
    name: cl_kernel_work_group_info,
) -> Result<Info, cl_int> {
    query(|s, v, r| cl!(clGetKernelWorkGroupInfo(k, d, name, s, v, r)))
}
pub fn event_info(e: cl_event, name: cl_event_info) -> Result<Info, cl_int> {
    query(|s, v, r| cl!(clGetEventInfo(e, name, s, v, r)))
}
pub fn profiling_info(e: cl_event, name: cl_profiling_info) -> Result<Info, cl_int> {
    query(|s, v, r| cl!(clGetEventProfilingInfo(e, name, s, v, r)))
}

/// `CL_MAKE_VERSION` decoded: (major, minor, patch).
pub fn version_parts(v: cl_version) -> (u32, u32, u32) {
    (v >> 22, (v >> 12) & 0x3ff, v & 0xfff)
}

/// Splits a space-separated extension string into names.
pub fn ext_names(s: &str) -> Vec<String> {
    s.split(' ')
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .collect()
}

// ---------------------------------------------------------------------------
// Platform and device

fn platform_name(p: cl_platform_id) -> String {
    platform_info(p, CL_PLATFORM_NAME)
        .map(|i| i.string())
        .unwrap_or_else(|e| format!("<CL_PLATFORM_NAME failed: {}>", err_name(e)))
}

/// All platform IDs the loader reports.
pub fn all_platforms() -> Vec<cl_platform_id> {
    let mut n: cl_uint = 0;
    let rc = cl!(clGetPlatformIDs(0, null_mut(), &mut n));
    if rc == CL_PLATFORM_NOT_FOUND_KHR {
        return Vec::new();
    }
    check(rc, "clGetPlatformIDs(count)");
    let mut ids = vec![null_mut(); n as usize];
    check(
        cl!(clGetPlatformIDs(n, ids.as_mut_ptr(), null_mut())),
        "clGetPlatformIDs",
    );
    ids
}

/// The ferrocl platform. Panics, listing what the loader does offer, if it is
/// not there.
pub fn platform() -> cl_platform_id {
    struct Id(cl_platform_id);
    unsafe impl Send for Id {}
    unsafe impl Sync for Id {}
    static P: OnceLock<Id> = OnceLock::new();
    P.get_or_init(|| {
        fatal_signals::install();
        let want = std::env::var("FERROCL_TEST_PLATFORM").unwrap_or_else(|_| PLATFORM_NAME.into());
        let ids = all_platforms();
        let names: Vec<String> = ids.iter().map(|&p| platform_name(p)).collect();
        match ids.iter().zip(&names).find(|(_, n)| **n == want) {
            Some((&p, _)) => Id(p),
            None => panic!(
                "no OpenCL platform named {want:?} is visible through the ICD loader \
                 (platforms found: {names:?}). Build libferrocl.so and point \
                 OCL_ICD_VENDORS / OCL_ICD_FILENAMES at it (the Makefile's test target does)."
            ),
        }
    })
    .0
}

/// The (single) device of the platform under test.
pub fn device() -> cl_device_id {
    let devs = ok(
        cl3::device::get_device_ids(platform(), CL_DEVICE_TYPE_ALL),
        "clGetDeviceIDs(CL_DEVICE_TYPE_ALL)",
    );
    assert!(!devs.is_empty(), "the platform has no device");
    devs[0]
}

// ---------------------------------------------------------------------------
// RAII handles

macro_rules! handle {
    ($(#[$m:meta])* $name:ident, $ty:ty, $release:ident) => {
        $(#[$m])*
        #[derive(Debug)]
        pub struct $name(pub $ty);
        impl $name {
            pub fn get(&self) -> $ty {
                self.0
            }
            /// Gives up ownership without releasing.
            pub fn into_raw(self) -> $ty {
                let h = self.0;
                std::mem::forget(self);
                h
            }
        }
        impl Drop for $name {
            fn drop(&mut self) {
                if self.0.is_null() {
                    return;
                }
                let rc = cl!($release(self.0));
                if rc != CL_SUCCESS && !std::thread::panicking() {
                    panic!(concat!(stringify!($release), " failed: {} ({})"), err_name(rc), rc);
                }
            }
        }
        unsafe impl Send for $name {}
        unsafe impl Sync for $name {}
    };
}

handle!(
    /// An owned `cl_context`.
    Ctx, cl_context, clReleaseContext
);
handle!(
    /// An owned `cl_command_queue`.
    Queue, cl_command_queue, clReleaseCommandQueue
);
handle!(
    /// An owned `cl_mem`.
    Mem, cl_mem, clReleaseMemObject
);
handle!(
    /// An owned `cl_program`.
    Prog, cl_program, clReleaseProgram
);
handle!(
    /// An owned `cl_kernel`.
    Kern, cl_kernel, clReleaseKernel
);
handle!(
    /// An owned `cl_event`.
    Ev, cl_event, clReleaseEvent
);
handle!(
    /// An owned `cl_sampler`.
    Sampler, cl_sampler, clReleaseSampler
);

/// An image format.
pub fn image_format(order: cl_channel_order, data_type: cl_channel_type) -> cl_image_format {
    cl_image_format {
        image_channel_order: order,
        image_channel_data_type: data_type,
    }
}

/// An image descriptor of `image_type` and extent (0 where unused), with
/// no pitches and no buffer.
pub fn image_desc(
    image_type: cl_mem_object_type,
    width: usize,
    height: usize,
    depth: usize,
    array_size: usize,
) -> cl_image_desc {
    // SAFETY: all-zero is a valid descriptor (no buffer).
    let mut d: cl_image_desc = unsafe { std::mem::zeroed() };
    d.image_type = image_type;
    d.image_width = width;
    d.image_height = height;
    d.image_depth = depth;
    d.image_array_size = array_size;
    d
}

impl Ev {
    /// `clWaitForEvents` on this one event.
    #[track_caller]
    pub fn wait(&self) {
        check(cl!(clWaitForEvents(1, &self.0)), "clWaitForEvents");
    }
    pub fn status(&self) -> cl_int {
        ok(
            event_info(self.0, CL_EVENT_COMMAND_EXECUTION_STATUS),
            "CL_EVENT_COMMAND_EXECUTION_STATUS",
        )
        .i32()
    }
}

/// Wraps a possibly-null event returned by a cl3 enqueue.
pub fn ev(e: cl_event) -> Ev {
    assert!(!e.is_null(), "enqueue returned a NULL event");
    Ev(e)
}

/// The device's extensions (`CL_DEVICE_EXTENSIONS`), by name.
pub fn device_extensions() -> Vec<String> {
    ext_names(&ok(device_info(device(), CL_DEVICE_EXTENSIONS), "extensions").string())
}

/// The platform's extension function `name`, as the function pointer type
/// `T` its header gives it; panics if the platform does not offer it.
pub fn extension_function<T>(name: &str) -> T {
    assert_eq!(
        std::mem::size_of::<T>(),
        std::mem::size_of::<*mut c_void>(),
        "{name}: T must be a function pointer"
    );
    let n = CString::new(name).unwrap();
    let p = cl!(clGetExtensionFunctionAddressForPlatform(
        platform(),
        n.as_ptr()
    ));
    assert!(!p.is_null(), "{name} is not offered");
    // SAFETY: the extension's function, of the type its header gives it.
    unsafe { std::mem::transmute_copy::<*mut c_void, T>(&p) }
}

/// Creates a context on `device()` with the given properties (null for none).
pub fn create_context(props: *const cl_context_properties) -> Result<Ctx, cl_int> {
    let d = device();
    let mut rc = 0;
    let c = cl!(clCreateContext(props, 1, &d, None, null_mut(), &mut rc));
    result(rc, c).map(Ctx)
}

/// Creates an in-order host queue with `clCreateCommandQueueWithProperties`.
pub fn create_queue(ctx: cl_context, props: *const cl_queue_properties) -> Result<Queue, cl_int> {
    let mut rc = 0;
    let q = cl!(clCreateCommandQueueWithProperties(
        ctx,
        device(),
        props,
        &mut rc
    ));
    result(rc, q).map(Queue)
}

/// A failed build: the `clBuildProgram` code and the device's build log.
#[derive(Debug)]
pub struct BuildFailure {
    pub code: cl_int,
    pub log: String,
    pub program: Prog,
}

impl std::fmt::Display for BuildFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "clBuildProgram failed with {} ({}); build log:\n{}",
            err_name(self.code),
            self.code,
            self.log
        )
    }
}

/// Creates a program from one source string (`clCreateProgramWithSource`).
pub fn create_program(ctx: cl_context, src: &str) -> Prog {
    Prog(ok(
        cl3::program::create_program_with_source(ctx, &[src]),
        "clCreateProgramWithSource",
    ))
}

/// Builds `prog` for `device()`; returns the raw code.
pub fn build_program(prog: cl_program, options: &str) -> cl_int {
    let opts = CString::new(options).expect("options contain NUL");
    let d = device();
    cl!(clBuildProgram(prog, 1, &d, opts.as_ptr(), None, null_mut()))
}

/// The build log of `prog` for `device()`.
pub fn build_log(prog: cl_program) -> String {
    ok(
        build_info(prog, device(), CL_PROGRAM_BUILD_LOG),
        "CL_PROGRAM_BUILD_LOG",
    )
    .string()
}

/// Creates and builds a program from source; on failure returns the code and
/// the build log.
pub fn build(ctx: cl_context, src: &str, options: &str) -> Result<Prog, BuildFailure> {
    let prog = create_program(ctx, src);
    let code = build_program(prog.get(), options);
    if code == CL_SUCCESS {
        Ok(prog)
    } else {
        let log = build_info(prog.get(), device(), CL_PROGRAM_BUILD_LOG)
            .map(|i| i.string())
            .unwrap_or_else(|e| format!("<no build log: {}>", err_name(e)));
        Err(BuildFailure {
            code,
            log,
            program: prog,
        })
    }
}

/// Creates a kernel by name.
pub fn create_kernel(prog: cl_program, name: &str) -> Result<Kern, cl_int> {
    let n = CString::new(name).unwrap();
    let mut rc = 0;
    let k = cl!(clCreateKernel(prog, n.as_ptr(), &mut rc));
    result(rc, k).map(Kern)
}

/// Sets a by-value kernel argument of type `T`.
pub fn set_arg<T>(k: cl_kernel, index: cl_uint, value: &T) -> Result<(), cl_int> {
    let rc = cl!(clSetKernelArg(
        k,
        index,
        std::mem::size_of::<T>(),
        (value as *const T).cast()
    ));
    result(rc, ())
}

/// Sets a buffer kernel argument.
pub fn set_mem(k: cl_kernel, index: cl_uint, m: &Mem) -> Result<(), cl_int> {
    set_arg(k, index, &m.0)
}

/// Sets a `__local` pointer kernel argument of `bytes` bytes.
pub fn set_local(k: cl_kernel, index: cl_uint, bytes: usize) -> Result<(), cl_int> {
    result(cl!(clSetKernelArg(k, index, bytes, null())), ())
}

/// A context and an in-order queue on the device under test.
pub struct Env {
    pub platform: cl_platform_id,
    pub device: cl_device_id,
    pub ctx: Ctx,
    pub queue: Queue,
}

// OpenCL handles may be used from any thread (API spec, appendix A.2).
unsafe impl Send for Env {}
unsafe impl Sync for Env {}

impl Default for Env {
    fn default() -> Self {
        Self::new()
    }
}

impl Env {
    pub fn new() -> Env {
        let ctx = ok(create_context(null()), "clCreateContext");
        let queue = ok(
            create_queue(ctx.get(), null()),
            "clCreateCommandQueueWithProperties",
        );
        Env {
            platform: platform(),
            device: device(),
            ctx,
            queue,
        }
    }

    pub fn c(&self) -> cl_context {
        self.ctx.0
    }
    pub fn q(&self) -> cl_command_queue {
        self.queue.0
    }

    /// Builds `src` with `options`, panicking with the build log on failure.
    #[track_caller]
    pub fn program(&self, src: &str, options: &str) -> Prog {
        match build(self.c(), src, options) {
            Ok(p) => p,
            Err(f) => panic!("{f}"),
        }
    }

    /// Builds `src` (no options) and creates kernel `name`.
    #[track_caller]
    pub fn kernel(&self, src: &str, name: &str) -> (Prog, Kern) {
        self.kernel_opts(src, name, "")
    }

    #[track_caller]
    pub fn kernel_opts(&self, src: &str, name: &str, options: &str) -> (Prog, Kern) {
        let p = self.program(src, options);
        let k = ok(create_kernel(p.get(), name), "clCreateKernel");
        (p, k)
    }

    /// `clCreateBuffer` returning the raw result.
    pub fn try_buffer(
        &self,
        flags: cl_mem_flags,
        size: usize,
        host: *mut c_void,
    ) -> Result<Mem, cl_int> {
        let mut rc = 0;
        let m = cl!(clCreateBuffer(self.c(), flags, size, host, &mut rc));
        result(rc, m).map(Mem)
    }

    /// `clCreateImage` returning the raw result.
    pub fn try_image(
        &self,
        flags: cl_mem_flags,
        format: &cl_image_format,
        desc: &cl_image_desc,
        host: *mut c_void,
    ) -> Result<Mem, cl_int> {
        let mut rc = 0;
        let m = cl!(clCreateImage(self.c(), flags, format, desc, host, &mut rc));
        result(rc, m).map(Mem)
    }

    /// An image without host memory.
    #[track_caller]
    pub fn image(
        &self,
        flags: cl_mem_flags,
        format: &cl_image_format,
        desc: &cl_image_desc,
    ) -> Mem {
        ok(
            self.try_image(flags, format, desc, null_mut()),
            "clCreateImage",
        )
    }

    /// `clCreateSampler` returning the raw result.
    pub fn try_sampler(
        &self,
        normalized: bool,
        addressing: cl_addressing_mode,
        filter: cl_filter_mode,
    ) -> Result<Sampler, cl_int> {
        let mut rc = 0;
        let s = cl!(clCreateSampler(
            self.c(),
            normalized as cl_bool,
            addressing,
            filter,
            &mut rc
        ));
        result(rc, s).map(Sampler)
    }

    /// Blocking write of `data` into `region` of an image at `origin`,
    /// packed.
    #[track_caller]
    pub fn write_image<T: Copy>(
        &self,
        m: &Mem,
        origin: [usize; 3],
        region: [usize; 3],
        data: &[T],
    ) {
        check(
            cl!(clEnqueueWriteImage(
                self.q(),
                m.0,
                CL_TRUE,
                origin.as_ptr(),
                region.as_ptr(),
                0,
                0,
                data.as_ptr().cast(),
                0,
                null(),
                null_mut()
            )),
            "clEnqueueWriteImage",
        );
    }

    /// Blocking read of `region` of an image at `origin`, packed, as
    /// `count` elements.
    #[track_caller]
    pub fn read_image<T: Copy + Default>(
        &self,
        m: &Mem,
        origin: [usize; 3],
        region: [usize; 3],
        count: usize,
    ) -> Vec<T> {
        let mut v = vec![T::default(); count];
        check(
            cl!(clEnqueueReadImage(
                self.q(),
                m.0,
                CL_TRUE,
                origin.as_ptr(),
                region.as_ptr(),
                0,
                0,
                v.as_mut_ptr().cast(),
                0,
                null(),
                null_mut()
            )),
            "clEnqueueReadImage",
        );
        v
    }

    /// A `CL_MEM_READ_WRITE` buffer of `size` bytes.
    #[track_caller]
    pub fn buffer(&self, size: usize) -> Mem {
        ok(
            self.try_buffer(CL_MEM_READ_WRITE, size, null_mut()),
            "clCreateBuffer",
        )
    }

    /// A `CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR` buffer holding `data`.
    #[track_caller]
    pub fn buffer_from<T: Copy>(&self, data: &[T]) -> Mem {
        ok(
            self.try_buffer(
                CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                std::mem::size_of_val(data),
                data.as_ptr() as *mut c_void,
            ),
            "clCreateBuffer(COPY_HOST_PTR)",
        )
    }

    /// Blocking write of `data` at byte `offset`.
    #[track_caller]
    pub fn write<T: Copy>(&self, m: &Mem, offset: usize, data: &[T]) {
        check(
            cl!(clEnqueueWriteBuffer(
                self.q(),
                m.0,
                CL_TRUE,
                offset,
                std::mem::size_of_val(data),
                data.as_ptr().cast(),
                0,
                null(),
                null_mut()
            )),
            "clEnqueueWriteBuffer",
        );
    }

    /// Blocking read of `count` elements at byte `offset`.
    #[track_caller]
    pub fn read<T: Copy + Default>(&self, m: &Mem, offset: usize, count: usize) -> Vec<T> {
        let mut v = vec![T::default(); count];
        check(
            cl!(clEnqueueReadBuffer(
                self.q(),
                m.0,
                CL_TRUE,
                offset,
                std::mem::size_of_val(&v[..]),
                v.as_mut_ptr().cast(),
                0,
                null(),
                null_mut()
            )),
            "clEnqueueReadBuffer",
        );
        v
    }

    /// Enqueues an NDRange without waiting; returns the raw code.
    pub fn enqueue(
        &self,
        k: &Kern,
        offset: Option<&[usize]>,
        global: &[usize],
        local: Option<&[usize]>,
    ) -> cl_int {
        if let Some(o) = offset {
            assert_eq!(o.len(), global.len());
        }
        if let Some(l) = local {
            assert_eq!(l.len(), global.len());
        }
        cl!(clEnqueueNDRangeKernel(
            self.q(),
            k.0,
            global.len() as cl_uint,
            offset.map_or(null(), |o| o.as_ptr()),
            global.as_ptr(),
            local.map_or(null(), |l| l.as_ptr()),
            0,
            null(),
            null_mut()
        ))
    }

    /// Sets `bufs` as the kernel's arguments 0, 1, .. and runs it.
    #[track_caller]
    pub fn run_with<M: std::borrow::Borrow<Mem>>(
        &self,
        k: &Kern,
        bufs: &[M],
        global: &[usize],
        local: Option<&[usize]>,
    ) {
        for (i, m) in bufs.iter().enumerate() {
            ok(set_mem(k.get(), i as cl_uint, m.borrow()), "set arg");
        }
        self.run(k, global, local);
    }

    /// Runs an NDRange to completion (enqueue + clFinish).
    #[track_caller]
    pub fn run(&self, k: &Kern, global: &[usize], local: Option<&[usize]>) {
        check(
            self.enqueue(k, None, global, local),
            "clEnqueueNDRangeKernel",
        );
        self.finish();
    }

    #[track_caller]
    pub fn finish(&self) {
        check(cl!(clFinish(self.q())), "clFinish");
    }
}

/// Total physical memory of this machine in bytes (from /proc/meminfo).
pub fn physical_memory() -> u64 {
    let s = std::fs::read_to_string("/proc/meminfo").expect("read /proc/meminfo");
    let line = s
        .lines()
        .find(|l| l.starts_with("MemTotal:"))
        .expect("MemTotal in /proc/meminfo");
    let kb: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .expect("MemTotal value");
    kb * 1024
}

/// The directories [`temp_dir`] made, removed when the process exits.
static TEMP_DIRS: std::sync::Mutex<Vec<std::path::PathBuf>> = std::sync::Mutex::new(Vec::new());

extern "C" fn remove_temp_dirs() {
    if let Ok(dirs) = TEMP_DIRS.lock() {
        for d in dirs.iter() {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// A fresh empty directory under the system temp dir, removed when the
/// process exits.
pub fn temp_dir(tag: &str) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    static AT_EXIT: std::sync::Once = std::sync::Once::new();
    // SAFETY: registers a plain function for `exit` to call.
    AT_EXIT.call_once(|| unsafe {
        libc::atexit(remove_temp_dirs);
    });
    let d = std::env::temp_dir().join(format!(
        "ferrocl-tests-{tag}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create temp dir");
    TEMP_DIRS.lock().unwrap().push(d.clone());
    d
}

/// Runs `$setup` before `main`, while the process has one thread. A test
/// binary sets the environment it gives the library (`FERROCL_*`) there:
/// setting a variable while another thread reads the environment (the
/// library, the ICD loader, LLVM) is undefined behaviour in C's `setenv`.
#[macro_export]
macro_rules! before_main {
    ($setup:block) => {
        #[used]
        #[link_section = ".init_array"]
        static BEFORE_MAIN: extern "C" fn() = {
            extern "C" fn before_main() $setup
            before_main
        };
    };
}

static IR_DUMP_DIR: OnceLock<std::path::PathBuf> = OnceLock::new();

/// Has the library write each kernel's IR to a fresh directory
/// (`FERROCL_DUMP_DIR`), with the on-disk cache off so that every kernel is
/// compiled and dumped. Called in [`before_main!`].
pub fn dump_ir() {
    IR_DUMP_DIR.get_or_init(|| {
        let dir = temp_dir("ir");
        std::env::set_var("FERROCL_DUMP_DIR", &dir);
        std::env::set_var("FERROCL_CACHE", "0");
        dir
    });
}

/// The directory [`dump_ir`] set.
pub fn ir_dump_dir() -> &'static std::path::Path {
    IR_DUMP_DIR
        .get()
        .expect("the test binary calls dump_ir() in before_main!")
}

/// Whether the device reports `cl_khr_fp64`; says so when it does not.
pub fn has_fp64() -> bool {
    let ext = device_info(device(), CL_DEVICE_EXTENSIONS)
        .unwrap()
        .string();
    let yes = ext_names(&ext).iter().any(|e| e == "cl_khr_fp64");
    if !yes {
        eprintln!("skipped: the device does not report cl_khr_fp64");
    }
    yes
}

/// Runs a tool the tests need (installed by `scripts/deps.sh`), failing
/// with its error output if it fails.
fn run_tool(cmd: &mut std::process::Command) {
    let program = cmd.get_program().to_string_lossy().into_owned();
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{program} runs (scripts/deps.sh installs it): {e}"));
    assert!(
        out.status.success(),
        "{program}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `src` compiled to SPIR-V by Clang's SPIR-V back end.
pub fn spirv_from_cl(src: &str) -> Vec<u8> {
    let dir = temp_dir("spirv-cl");
    let (cl, spv) = (dir.join("k.cl"), dir.join("k.spv"));
    std::fs::write(&cl, src).unwrap();
    run_tool(
        std::process::Command::new("clang-22")
            .args(["--target=spirv64", "-cl-std=CL3.0", "-O2", "-c", "-o"])
            .arg(&spv)
            .arg(&cl),
    );
    std::fs::read(&spv).unwrap()
}

/// SPIR-V assembly assembled by `spirv-as` (Debian's spirv-tools) for
/// SPIR-V `version` (`"1.0"`).
pub fn spirv_from_asm(text: &str, version: &str) -> Vec<u8> {
    let dir = temp_dir("spirv-asm");
    let (asm, spv) = (dir.join("k.spvasm"), dir.join("k.spv"));
    std::fs::write(&asm, text).unwrap();
    run_tool(
        std::process::Command::new("spirv-as")
            .args(["--target-env", &format!("spv{version}"), "-o"])
            .arg(&spv)
            .arg(&asm),
    );
    std::fs::read(&spv).unwrap()
}

/// `src` compiled by clang-15 for SPIR at optimization level `opt`
/// (`"-O0"`) and translated by the Khronos LLVM/SPIR-V Translator
/// (Debian's `llvm-spirv-15`) with `llvm_spirv_args` (`--spirv-ext=...`).
pub fn spirv_from_translator(src: &str, opt: &str, llvm_spirv_args: &[&str]) -> Vec<u8> {
    let dir = temp_dir("llvm-spirv");
    let (cl, bc, spv) = (dir.join("k.cl"), dir.join("k.bc"), dir.join("k.spv"));
    std::fs::write(&cl, src).unwrap();
    run_tool(
        std::process::Command::new("clang-15")
            .args([
                "-c",
                "-target",
                "spir64",
                "-emit-llvm",
                "-cl-std=CL2.0",
                opt,
                "-o",
            ])
            .arg(&bc)
            .arg(&cl),
    );
    run_tool(
        std::process::Command::new("llvm-spirv-15")
            .args(llvm_spirv_args)
            .arg(&bc)
            .arg("-o")
            .arg(&spv),
    );
    std::fs::read(&spv).unwrap()
}

/// `clCreateProgramWithIL` returning the raw result.
pub fn create_with_il(ctx: cl_context, il: &[u8]) -> Result<Prog, cl_int> {
    let mut rc = 0;
    let p = cl!(clCreateProgramWithIL(
        ctx,
        il.as_ptr().cast(),
        il.len(),
        &mut rc
    ));
    result(rc, p).map(Prog)
}

/// An IL program, built with `options`.
pub fn il_program(env: &Env, il: &[u8], options: &str) -> Result<Prog, BuildFailure> {
    let prog = ok(create_with_il(env.c(), il), "clCreateProgramWithIL");
    let code = build_program(prog.get(), options);
    if code == CL_SUCCESS {
        Ok(prog)
    } else {
        Err(BuildFailure {
            code,
            log: build_log(prog.get()),
            program: prog,
        })
    }
}

/// Builds `il` and creates its kernel `name`, panicking with the log.
#[track_caller]
pub fn il_kernel(env: &Env, il: &[u8], name: &str) -> (Prog, Kern) {
    let p = il_program(env, il, "").unwrap_or_else(|f| panic!("{f}"));
    let k = ok(create_kernel(p.get(), name), "clCreateKernel");
    (p, k)
}

/// The strings a `cl_khr_spirv_queries` query returns (an array of C strings).
pub fn spirv_strings(name: cl_device_info) -> Vec<String> {
    let info = ok(device_info(device(), name), "SPIR-V query");
    info.0
        .chunks_exact(8)
        .map(|c| {
            let p = usize::from_ne_bytes(c.try_into().unwrap()) as *const std::ffi::c_char;
            // SAFETY: the library's strings live as long as the process.
            unsafe { std::ffi::CStr::from_ptr(p) }
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}
