//! The OpenCL platforms under test: one device, context and in-order queue
//! each, and the few operations every benchmark needs (build, buffers,
//! launches, reads), with errors turned into short strings for the table.

use std::ffi::c_void;
use std::ptr;

use opencl3::command_queue::CommandQueue;
use opencl3::context::Context;
use opencl3::device::{Device, CL_DEVICE_TYPE_ALL};
use opencl3::kernel::Kernel;
use opencl3::memory::{Buffer, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_WRITE};
use opencl3::platform::{get_platforms, Platform};
use opencl3::program::Program;
use opencl3::types::{cl_mem, CL_BLOCKING};

/// One platform's first device, ready to run kernels.
pub struct Target {
    /// `CL_PLATFORM_NAME` as reported.
    pub platform_name: String,
    /// The name the table and the JSON use ("ferrocl", "PoCL", ...).
    pub label: String,
    pub device_name: String,
    pub version: String,
    pub fp64: bool,
    pub fp16: bool,
    /// OpenCL 3.0 sub-groups, cl_khr_subgroups or cl_intel_subgroups.
    pub sub_groups: bool,
    /// Builds take each source as the SPIR-V Clang's back end makes of it
    /// (`clang-22 --target=spirv64`), through `clCreateProgramWithIL`.
    pub spirv: bool,
    pub device: Device,
    pub context: Context,
    pub queue: CommandQueue,
}

/// Every platform the ICD loader lists whose name contains one of `wanted`
/// (case-insensitive; all of them when `wanted` is empty). A platform that
/// cannot give a device, context or queue is reported and skipped.
pub fn discover(wanted: &[String], spirv: bool) -> Result<Vec<Target>, String> {
    let platforms = get_platforms().map_err(|e| format!("no OpenCL platform: {e}"))?;
    let mut targets = Vec::new();
    for p in platforms {
        // ferrocl once more, taking SPIR-V: a column beside its own.
        let name = p.name().unwrap_or_default();
        if spirv && label_for(&name) == "ferrocl" {
            match open(&p, name.clone(), "ferrocl-spirv".into()) {
                Ok(mut t) => {
                    t.spirv = true;
                    targets.push(t)
                }
                Err(e) => eprintln!("skipping ferrocl-spirv: {e}"),
            }
        }
        let name = p.name().unwrap_or_else(|_| "?".into());
        let label = label_for(&name);
        let matches = |w: &String| {
            let w = w.to_lowercase();
            name.to_lowercase().contains(&w) || label.to_lowercase().contains(&w)
        };
        if !wanted.is_empty() && !wanted.iter().any(matches) {
            continue;
        }
        match open(&p, name.clone(), label) {
            Ok(t) => targets.push(t),
            Err(e) => eprintln!("skipping platform {name}: {e}"),
        }
    }
    // The reference platform first: the table reads left to right.
    targets.sort_by_key(|t| t.label != "ferrocl");
    // Labels must be unique: they key the JSON and the ratio columns.
    for i in 1..targets.len() {
        let n = targets[..i]
            .iter()
            .filter(|t| t.label == targets[i].label)
            .count();
        if n > 0 {
            targets[i].label = format!("{}#{}", targets[i].label, n + 1);
        }
    }
    Ok(targets)
}

static MADE: std::sync::LazyLock<std::sync::Mutex<std::collections::HashMap<String, Vec<u8>>>> =
    std::sync::LazyLock::new(Default::default);

/// The SPIR-V of `whole`, the concatenation of `parts`: each part's module,
/// linked by `spirv-link` (Clang's SPIR-V back end cannot take some
/// programs whole: a printf beside a `__local` array).
pub fn spirv_of_parts(whole: &str, parts: &[&str]) -> Result<Vec<u8>, String> {
    if let Ok(il) = spirv_of(whole) {
        return Ok(il);
    }
    let dir = std::env::temp_dir().join(format!("ferrocl-bench-spirv-{}", std::process::id()));
    let mut inputs = Vec::new();
    for (n, p) in parts.iter().enumerate() {
        let path = dir.join(format!("part{n}.spv"));
        std::fs::write(&path, spirv_of(p)?).map_err(|e| e.to_string())?;
        inputs.push(path);
    }
    let linked = dir.join("linked.spv");
    // Builtins Clang leaves as calls are imports no part defines.
    let out = std::process::Command::new("spirv-link")
        .arg("--allow-partial-linkage")
        .args(&inputs)
        .arg("-o")
        .arg(&linked)
        .output()
        .map_err(|e| format!("spirv-link: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "spirv-link: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let il = std::fs::read(&linked).map_err(|e| e.to_string())?;
    MADE.lock().unwrap().insert(whole.to_string(), il.clone());
    Ok(il)
}

/// `source` compiled to SPIR-V by `clang-22 --target=spirv64 -O2`, once
/// per source (outside the build times measured, when made beforehand).
pub fn spirv_of(source: &str) -> Result<Vec<u8>, String> {
    if let Some(il) = MADE.lock().unwrap().get(source) {
        return Ok(il.clone());
    }
    let dir = std::env::temp_dir().join(format!("ferrocl-bench-spirv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let (cl, spv) = (dir.join(format!("{n}.cl")), dir.join(format!("{n}.spv")));
    std::fs::write(&cl, source).map_err(|e| e.to_string())?;
    let out = std::process::Command::new("clang-22")
        .args(["--target=spirv64", "-cl-std=CL3.0", "-O2", "-c", "-o"])
        .arg(&spv)
        .arg(&cl)
        .output()
        .map_err(|e| format!("clang-22: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "clang-22 on {}: {}",
            cl.display(),
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .next()
                .unwrap_or("")
        ));
    }
    let il = std::fs::read(&spv).map_err(|e| e.to_string())?;
    MADE.lock().unwrap().insert(source.to_string(), il.clone());
    Ok(il)
}

/// Short, stable names for the platforms this project compares against.
fn label_for(platform_name: &str) -> String {
    let lower = platform_name.to_lowercase();
    if lower.contains("ferrocl") {
        "ferrocl".into()
    } else if lower.contains("portable computing language") || lower.contains("pocl") {
        "PoCL".into()
    } else if lower.contains("intel") {
        "Intel".into()
    } else {
        platform_name.chars().take(24).collect()
    }
}

fn open(p: &Platform, platform_name: String, label: String) -> Result<Target, String> {
    let ids = p
        .get_devices(CL_DEVICE_TYPE_ALL)
        .map_err(|e| e.to_string())?;
    let id = *ids.first().ok_or("no device")?;
    let device = Device::new(id);
    let context = Context::from_device(&device).map_err(|e| format!("context: {e}"))?;
    let queue = CommandQueue::create_default_with_properties(&context, 0, 0)
        .map_err(|e| format!("queue: {e}"))?;
    let extensions = device.extensions().unwrap_or_default();
    Ok(Target {
        platform_name,
        label,
        device_name: device.name().unwrap_or_default(),
        version: device.version().unwrap_or_default(),
        fp64: extensions.split_whitespace().any(|e| e == "cl_khr_fp64"),
        fp16: extensions.split_whitespace().any(|e| e == "cl_khr_fp16"),
        sub_groups: extensions
            .split_whitespace()
            .any(|e| e == "cl_khr_subgroups")
            || device.max_num_sub_groups().unwrap_or(0) > 0,
        spirv: false,
        device,
        context,
        queue,
    })
}

impl Target {
    /// Builds `source`; on failure the first error line of the build log.
    pub fn build(&self, source: &str) -> Result<Program, String> {
        let mut program = if self.spirv {
            Program::create_from_il(&self.context, &spirv_of(source)?)
        } else {
            Program::create_from_source(&self.context, source)
        }
        .map_err(|e| format!("create program: {e}"))?;
        match program.build(&[self.device.id()], "") {
            Ok(()) => Ok(program),
            Err(e) => {
                let log = program.get_build_log(self.device.id()).unwrap_or_default();
                Err(first_error(&log).unwrap_or_else(|| e.to_string()))
            }
        }
    }

    /// A program from `binary` (what `CL_PROGRAM_BINARIES` gave), built.
    pub fn build_binary(&self, binary: &[u8]) -> Result<Program, String> {
        // SAFETY: the device is the context's.
        let mut program =
            unsafe { Program::create_from_binary(&self.context, &[self.device.id()], &[binary]) }
                .map_err(|e| format!("create program with binary: {e}"))?;
        program
            .build(&[self.device.id()], "")
            .map_err(|e| format!("build from binary: {e}"))?;
        Ok(program)
    }

    /// A device buffer holding a copy of `data`.
    pub fn upload<T: Copy>(&self, data: &[T]) -> Result<Buffer<T>, String> {
        // SAFETY: with CL_MEM_COPY_HOST_PTR the implementation copies
        // `data.len()` elements during the call and keeps no pointer.
        unsafe {
            Buffer::create(
                &self.context,
                CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                data.len().max(1),
                data.as_ptr() as *mut c_void,
            )
        }
        .map_err(|e| format!("buffer: {e}"))
    }

    /// An uninitialized device buffer of `len` elements.
    pub fn alloc<T>(&self, len: usize) -> Result<Buffer<T>, String> {
        // SAFETY: no host pointer is handed over.
        unsafe { Buffer::create(&self.context, CL_MEM_READ_WRITE, len, ptr::null_mut()) }
            .map_err(|e| format!("buffer: {e}"))
    }

    /// Reads a whole buffer of `len` elements back (blocking).
    pub fn read<T: Copy + Default>(&self, buf: &Buffer<T>, len: usize) -> Result<Vec<T>, String> {
        let mut out = vec![T::default(); len];
        // SAFETY: `out` has room for exactly the bytes read; the read blocks.
        unsafe {
            self.queue
                .enqueue_read_buffer(buf, CL_BLOCKING, 0, &mut out, &[])
                .map_err(|e| format!("read: {e}"))?;
        }
        Ok(out)
    }

    /// Sets a buffer to zero (queued, not waited for).
    pub fn zero<T: Copy + Default>(&self, buf: &mut Buffer<T>, len: usize) -> Result<(), String> {
        // SAFETY: the pattern is one element; the range is the whole buffer.
        unsafe {
            self.queue
                .enqueue_fill_buffer(buf, &[T::default()], 0, len * size_of::<T>(), &[])
                .map(drop)
                .map_err(|e| format!("fill: {e}"))
        }
    }

    pub fn finish(&self) -> Result<(), String> {
        self.queue.finish().map_err(|e| format!("finish: {e}"))
    }
}

/// The line of a build log worth showing in a table cell.
fn first_error(log: &str) -> Option<String> {
    let line = log
        .lines()
        .find(|l| l.contains("error"))
        .or_else(|| log.lines().find(|l| !l.trim().is_empty()))?;
    Some(line.trim().to_string())
}

/// Plain old data that can be passed by value to a kernel.
pub trait AsBytes {
    fn bytes(&self) -> &[u8];
}

macro_rules! as_bytes {
    ($($t:ty),*) => {$(
        impl AsBytes for $t {
            fn bytes(&self) -> &[u8] {
                // SAFETY: plain numeric data without padding.
                unsafe {
                    std::slice::from_raw_parts(self as *const Self as *const u8, size_of::<Self>())
                }
            }
        }
    )*};
}
as_bytes!(i32, u32, f32, f64, [f32; 2], [f32; 4]);

/// A kernel with its arguments bound and its range fixed: `enqueue` is all
/// that is timed.
pub struct Launch {
    kernel: Kernel,
    global: Vec<usize>,
    local: Option<Vec<usize>>,
}

impl Launch {
    /// Creates `name` from `program` and binds `args` in order. Buffers may
    /// be of different element types, hence the raw `cl_mem` list.
    pub fn new(
        program: &Program,
        name: &str,
        args: &[ArgRef],
        global: &[usize],
        local: Option<&[usize]>,
    ) -> Result<Self, String> {
        let kernel = Kernel::create(program, name).map_err(|e| format!("kernel {name}: {e}"))?;
        for (i, a) in args.iter().enumerate() {
            let i = i as u32;
            // SAFETY: sizes are the arguments' own; `mem` handles are live
            // buffers owned by the caller for as long as the launch.
            let r = unsafe {
                match a {
                    ArgRef::Mem(m) => kernel.set_arg(i, m),
                    ArgRef::Bytes(b) => opencl3::kernel::set_kernel_arg(
                        kernel.get(),
                        i,
                        b.len(),
                        b.as_ptr() as *const c_void,
                    )
                    .map_err(Into::into),
                }
            };
            r.map_err(|e| format!("{name} argument {i}: {e}"))?;
        }
        Ok(Self {
            kernel,
            global: global.to_vec(),
            local: local.map(<[usize]>::to_vec),
        })
    }

    /// Queues one run (no wait).
    pub fn enqueue(&self, t: &Target) -> Result<(), String> {
        let local = self.local.as_ref().map_or(ptr::null(), |l| l.as_ptr());
        // SAFETY: the range arrays outlive the call; the arguments were
        // bound in `new`.
        unsafe {
            t.queue
                .enqueue_nd_range_kernel(
                    self.kernel.get(),
                    self.global.len() as u32,
                    ptr::null(),
                    self.global.as_ptr(),
                    local,
                    &[],
                )
                .map(drop)
                .map_err(|e| format!("enqueue: {e}"))
        }
    }
}

/// A kernel argument as `Launch::new` binds it.
pub enum ArgRef {
    Mem(cl_mem),
    Bytes(Vec<u8>),
}

/// The handle of a buffer of any element type.
pub fn mem<T>(b: &Buffer<T>) -> ArgRef {
    use opencl3::memory::ClMem;
    ArgRef::Mem(b.get())
}

/// A by-value argument.
pub fn val<T: AsBytes>(v: T) -> ArgRef {
    ArgRef::Bytes(v.bytes().to_vec())
}
