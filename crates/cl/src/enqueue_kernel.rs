//! Running kernels: validate the ND-range, pick a local size if the
//! application did not, specialize (cached), pack the arguments, enqueue.

use crate::entry::{ensure, status};
use crate::kernel::{ArgValue, Kernel};
use crate::object::{self, ClObject};
use crate::printf::PrintfBuffer;
use crate::program_globals::GlobalsBlock;
use crate::queue::{enqueue_payload, Ordering, Payload, Queue};
use compiler::{arg_layout, Specialization, ARG_BLOCK_ALIGN, LOCAL_ALIGN};
use mux::NdRange;
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::Arc;

/// The largest divisor of `n` that is at most `limit`.
fn largest_divisor(n: usize, limit: usize) -> usize {
    (1..=limit.min(n).max(1))
        .rev()
        .find(|d| n % d == 0)
        .unwrap_or(1)
}

/// A local size for a NULL `local_work_size`. Along x first, and a
/// multiple of the device's vector width where the global size allows:
/// the x work-item loop is what vectorizes. Up to 256 work-items, enough to
/// make a group's own cost small, but smaller where that leaves every
/// compute unit several groups to balance the load. In a range of several
/// rows, room is left in y for the `rows` the compiler runs together.
fn choose_local_size(
    global: [usize; 3],
    max: usize,
    width: usize,
    rows: usize,
    units: usize,
) -> [usize; 3] {
    const ITEMS: usize = 256;
    let limit = max.min(ITEMS);
    let width = width.max(1);
    let total: usize = global.iter().product();
    let enough_groups = units.max(1) * 4;
    let jam = rows > 1 && global[1] % rows == 0 && limit / rows >= width;
    let x_limit = if jam { limit / rows } else { limit };
    // Divisors of the global x size up to `x_limit`, largest first.
    let divisors = || {
        (1..=x_limit.min(global[0]))
            .rev()
            .filter(move |d| global[0] % d == 0)
    };
    let vector = |d: &usize| *d % width == 0;
    let mut x = divisors()
        .find(vector)
        .or_else(|| divisors().next())
        .unwrap_or(1);
    // Fewer items per group while that still leaves whole vectors.
    while total / x < enough_groups {
        match divisors().filter(vector).find(|&d| d < x) {
            Some(smaller) => x = smaller,
            None => break,
        }
    }
    let rest = (limit / x).max(1);
    let y = if jam && rest >= rows {
        // A multiple of `rows` (`rows` itself divides the size).
        rows * largest_divisor(global[1] / rows, rest / rows)
    } else {
        largest_divisor(global[1], rest)
    };
    let z = largest_divisor(global[2], (rest / y).max(1));
    [x, y, z]
}

/// The local size of a range given none: the kernel's required size, its
/// hint where that fits the range and the device, else the runtime's
/// choice (`choose_local_size`).
fn default_local_size(
    k: &Kernel,
    device: &crate::device::Device,
    global: [usize; 3],
) -> [usize; 3] {
    let info = device.info();
    let max = k.max_work_group_size(device);
    // Whether a group of `l` divides the range and the device takes it.
    let fits = |l: &[usize; 3]| {
        (0..3).all(|d| l[d] > 0 && global[d].max(1).is_multiple_of(l[d]))
            && l.iter().product::<usize>() <= max
    };
    let largest = |sizes: &mut dyn Iterator<Item = [usize; 3]>| {
        sizes
            .filter(fits)
            .max_by_key(|l| l.iter().product::<usize>())
    };
    let hint = k.info.work_group_size_hint.filter(fits);
    // A size the program's binary holds machine code for, if one fits: no
    // compiler runs then.
    let compiled = largest(
        &mut k
            .module
            .specialized_local_sizes(&k.info.name, || device.compiler.machine())
            .into_iter(),
    );
    if let Some(r) = k.info.reqd_work_group_size.or(hint).or(compiled) {
        return r;
    }
    let chosen = choose_local_size(
        global.map(|g| g.max(1)),
        max,
        info.native_vector_width.float as usize,
        info.local_rows,
        info.compute_units as usize,
    );
    // The last launch's size is the common case: no lock then.
    let last = k
        .last_specialized
        .lock()
        .unwrap()
        .as_ref()
        .map(|(s, _)| s.local_size);
    if last == Some(chosen) {
        return chosen;
    }
    // A size the kernel is compiled for in this program already, as large
    // as the chosen one, or any for a small range: no compiler runs then.
    // Libraries that call a kernel on arrays of many sizes (dpnp's tests:
    // 2, 4, 6, 9, 24, 72 elements, each at 8 strides) would otherwise
    // compile it again for each.
    let total: usize = global.iter().map(|&g| g.max(1)).product();
    let chosen_items: usize = chosen.iter().product();
    let specialized = k.program.specialized.lock().unwrap();
    largest(
        &mut specialized
            .keys()
            .filter(|(name, spec)| {
                *name == k.info.name && spec.local_size == spec.enqueued_local_size
            })
            .map(|(_, spec)| spec.local_size)
            .filter(|l| total <= SMALL_RANGE || l.iter().product::<usize>() >= chosen_items),
    )
    .unwrap_or(chosen)
}

/// Ranges of at most this many work-items take any local size the kernel
/// is compiled for already, when it fits: their run is short, a new
/// compilation of the kernel (tenths of a second for SYCL's math) is not.
const SMALL_RANGE: usize = 1024;

/// `clGetKernelSuggestedLocalWorkSizeKHR` (`cl_khr_suggested_local_work_size`):
/// the local size a NULL `local_work_size` would get.
pub unsafe extern "C" fn get_kernel_suggested_local_work_size(
    queue: cl_command_queue,
    kernel: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    suggested_local_work_size: *mut usize,
) -> cl_int {
    status(|| {
        let q = object::get::<Queue>(queue)?;
        let k = object::get::<Kernel>(kernel)?;
        ensure(
            Arc::ptr_eq(&q.context, &k.program.context),
            CL_INVALID_CONTEXT,
        )?;
        ensure((1..=3).contains(&work_dim), CL_INVALID_WORK_DIMENSION)?;
        ensure(!global_work_size.is_null(), CL_INVALID_GLOBAL_WORK_SIZE)?;
        ensure(!suggested_local_work_size.is_null(), CL_INVALID_VALUE)?;
        let dims = work_dim as usize;
        let mut global = [1usize; 3];
        for d in 0..dims {
            global[d] = *global_work_size.add(d);
            ensure(global[d] > 0, CL_INVALID_GLOBAL_WORK_SIZE)?;
            let offset = if global_work_offset.is_null() {
                0
            } else {
                *global_work_offset.add(d)
            };
            ensure(
                global[d].checked_add(offset).is_some(),
                CL_INVALID_GLOBAL_OFFSET,
            )?;
        }
        let local = default_local_size(&k, &q.device, global);
        for (d, l) in local.iter().enumerate().take(dims) {
            *suggested_local_work_size.add(d) = *l;
        }
        Ok(())
    })
}

/// A kernel's argument values, packed for one launch.
struct Packed {
    block: Arc<mux::Allocation>,
    /// Bytes of `__local` arguments.
    local: usize,
    /// The memory objects the arguments name.
    keep: Vec<Arc<ClObject<crate::memory::Mem>>>,
    /// Bit `i`: argument `i` is a buffer of at least half the device's
    /// cache (`cache_bytes`), and the kernel's buffers together exceed it:
    /// what the kernel writes there cannot stay cached anyway, so its stores
    /// to it may bypass the cache.
    streaming: u64,
    /// The formats of the first image arguments.
    images: [Option<compiler::ImageFormat>; compiler::MAX_SPECIALIZED_IMAGES],
}

/// Packs the kernel's argument values into its argument block.
fn pack(k: &Kernel, cache_bytes: u64) -> Result<Packed, cl_int> {
    let args = k.args.lock().unwrap();
    let (offsets, args_end) = arg_layout(&k.info.args);
    // Room for the hidden arguments, written once the range is known.
    let size = compiler::hidden_args_end(&k.info, args_end);
    if size == 0 {
        // No arguments: one shared, never written block serves every launch.
        static EMPTY: std::sync::OnceLock<Option<Arc<mux::Allocation>>> =
            std::sync::OnceLock::new();
        let empty = EMPTY.get_or_init(|| mux::Allocation::host(8, ARG_BLOCK_ALIGN).map(Arc::new));
        return Ok(Packed {
            block: empty.clone().ok_or(CL_OUT_OF_HOST_MEMORY)?,
            local: 0,
            keep: Vec::new(),
            streaming: 0,
            images: [None; compiler::MAX_SPECIALIZED_IMAGES],
        });
    }
    let block = mux::Allocation::host(size, ARG_BLOCK_ALIGN).ok_or(CL_OUT_OF_HOST_MEMORY)?;
    let mut local = 0usize;
    let mut keep = Vec::new();
    let mut streaming = 0u64;
    let mut buffer_bytes = 0u64;
    let mut images = [None; compiler::MAX_SPECIALIZED_IMAGES];
    let mut image_count = 0;
    for (i, (v, off)) in args.iter().zip(offsets).enumerate() {
        let word;
        let bytes: &[u8] = match v.as_ref().ok_or(CL_INVALID_KERNEL_ARGS)? {
            ArgValue::Buffer(m) => {
                // Released by the application since it was set.
                let m = match m {
                    Some(weak) => Some(weak.upgrade().ok_or(CL_INVALID_MEM_OBJECT)?),
                    None => None,
                };
                let address = m.as_ref().map_or(0, |m| m.buffer.device_address());
                if let Some(m) = m {
                    if i < 64 && m.size as u64 * 2 >= cache_bytes {
                        streaming |= 1 << i;
                    }
                    buffer_bytes += m.size as u64;
                    keep.push(m);
                }
                word = address.to_ne_bytes();
                &word
            }
            ArgValue::Local(n) => {
                let at = local;
                local += n.next_multiple_of(LOCAL_ALIGN);
                word = (at as u64).to_ne_bytes();
                &word
            }
            ArgValue::Bytes(b) => b,
            ArgValue::Pointer(p) => {
                word = (*p as u64).to_ne_bytes();
                &word
            }
            ArgValue::Image(m) => {
                let m = m.upgrade().ok_or(CL_INVALID_MEM_OBJECT)?;
                let image = m.image.as_ref().ok_or(CL_INVALID_MEM_OBJECT)?;
                word = image.mux.kernel_argument().to_ne_bytes();
                if let Some(slot) = images.get_mut(image_count) {
                    let format = image.shape.format;
                    *slot = Some(compiler::ImageFormat {
                        arg: i as u32,
                        channel_order: format.order,
                        channel_data_type: format.data_type,
                        element_size: format.element_size() as u32,
                    });
                    image_count += 1;
                }
                keep.push(m);
                &word
            }
            ArgValue::Sampler(bits) => {
                word = u64::from(*bits).to_ne_bytes();
                &word
            }
        };
        // SAFETY: the layout gives each argument room for its bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), block.as_ptr().add(off), bytes.len())
        };
    }
    if buffer_bytes <= cache_bytes {
        streaming = 0;
    }
    Ok(Packed {
        block: Arc::new(block),
        local,
        keep,
        streaming,
        images,
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_nd_range_kernel(
    queue: cl_command_queue,
    kernel: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        enqueue_range(
            CL_COMMAND_NDRANGE_KERNEL,
            queue,
            kernel,
            work_dim,
            global_work_offset,
            global_work_size,
            local_work_size,
            num_events,
            event_list,
            event,
        )
    })
}

/// `clEnqueueNDRangeKernel`, recorded as `command` (`clEnqueueTask` is a
/// one-item range whose event says CL_COMMAND_TASK).
#[allow(clippy::too_many_arguments)]
unsafe fn enqueue_range(
    command: cl_command_type,
    queue: cl_command_queue,
    kernel: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> Result<(), cl_int> {
    let q = object::get::<Queue>(queue)?;
    let payload = prepare_range(
        &q,
        kernel,
        work_dim,
        global_work_offset,
        global_work_size,
        local_work_size,
    )?
    .into_payload()?;
    enqueue_payload(
        &q,
        command,
        num_events,
        event_list,
        event,
        false,
        Ordering::Normal,
        payload,
    )
}

/// An ND-range ready to run: the kernel's arguments as they were when it
/// was prepared, its work-group functions, and the memory it names.
pub struct PreparedRange {
    /// The range's parts (`NdRange::parts`: one for a uniform range, more
    /// where its last work-groups are smaller), each with the work-group
    /// function for its size; none for an empty range.
    pub parts: Vec<(mux::KernelRef, NdRange)>,
    /// A printing kernel's buffer, formatted once the range has run.
    pub printf: Option<Arc<PrintfBuffer>>,
    pub args: Arc<mux::Allocation>,
    pub range: NdRange,
    pub buffers: Vec<Arc<ClObject<crate::memory::Mem>>>,
    /// The program's variables, for a kernel that reaches them.
    pub globals: Option<Arc<GlobalsBlock>>,
}

impl PreparedRange {
    pub fn into_payload(self) -> Result<Payload, cl_int> {
        Ok(if self.parts.is_empty() {
            Payload::Host(Box::new(|| Ok(())))
        } else {
            ensure(
                self.parts.iter().all(|(_, r)| r.is_valid()),
                CL_INVALID_WORK_GROUP_SIZE,
            )?;
            Payload::NdRange {
                parts: self.parts,
                args: self.args,
                // What the arguments name lives until it has run.
                keep: self.buffers,
                globals: self.globals,
                printf: self.printf,
            }
        })
    }

    /// What must live until the range has run.
    pub fn keep(&self) -> Vec<Arc<dyn Send + Sync>> {
        let mut keep: Vec<Arc<dyn Send + Sync>> = Vec::new();
        keep.extend(
            self.buffers
                .iter()
                .map(|b| b.clone() as Arc<dyn Send + Sync>),
        );
        keep.extend(
            self.globals
                .iter()
                .map(|g| g.clone() as Arc<dyn Send + Sync>),
        );
        keep
    }

    /// Records the range's parts into `commands`.
    pub fn record(&self, commands: &mut mux::CommandBuffer) -> Result<(), mux::Error> {
        for (kernel, range) in &self.parts {
            commands.nd_range(kernel.clone(), self.args.clone(), *range)?;
        }
        Ok(())
    }
}

/// Validates an ND-range of `kernel` for `q` (spec 5.10 errors), picks
/// the local size if none is given, packs the arguments and specializes.
pub unsafe fn prepare_range(
    q: &Arc<ClObject<Queue>>,
    kernel: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
) -> Result<PreparedRange, cl_int> {
    let k = object::get::<Kernel>(kernel)?;
    ensure(
        Arc::ptr_eq(&q.context, &k.program.context),
        CL_INVALID_CONTEXT,
    )?;
    ensure((1..=3).contains(&work_dim), CL_INVALID_WORK_DIMENSION)?;
    let device = &q.device;
    let info = device.info();
    let packed = pack(&k, info.global_mem_cache.size)?;
    let dynamic_local = packed.local;
    let dims = work_dim as usize;
    // OpenCL 2.1 and later: a NULL global size is an empty range.
    let mut global = if global_work_size.is_null() {
        [0usize; 3]
    } else {
        [1usize; 3]
    };
    let mut offset = [0usize; 3];
    for d in 0..dims {
        if !global_work_size.is_null() {
            global[d] = *global_work_size.add(d);
        }
        if !global_work_offset.is_null() {
            offset[d] = *global_work_offset.add(d);
        }
        ensure(
            global[d].checked_add(offset[d]).is_some(),
            CL_INVALID_GLOBAL_OFFSET,
        )?;
    }
    let max = k.max_work_group_size(device);
    let local = if local_work_size.is_null() {
        default_local_size(&k, device, global)
    } else {
        let mut l = [1usize; 3];
        for d in 0..dims {
            l[d] = *local_work_size.add(d);
            ensure(l[d] > 0, CL_INVALID_WORK_GROUP_SIZE)?;
            ensure(
                l[d] <= info.max_work_item_sizes[d],
                CL_INVALID_WORK_ITEM_SIZE,
            )?;
        }
        l
    };
    if let Some(r) = k.info.reqd_work_group_size {
        ensure(r == local, CL_INVALID_WORK_GROUP_SIZE)?;
    }
    ensure(
        local.iter().product::<usize>() <= max,
        CL_INVALID_WORK_GROUP_SIZE,
    )?;
    // Work-groups may be non-uniform (the last of a dimension smaller) unless
    // the program asks for uniform ones, as OpenCL C 1.x programs and
    // `-cl-uniform-work-group-size` do.
    ensure(
        !k.info.uniform_work_group_size || (0..3).all(|d| global[d] % local[d] == 0),
        CL_INVALID_WORK_GROUP_SIZE,
    )?;
    ensure(
        (k.info.static_local_memory + dynamic_local) as u64 <= info.local_mem_size,
        CL_OUT_OF_RESOURCES,
    )?;
    let range = NdRange::new(work_dim, global, offset, local, dynamic_local);
    let empty = global.iter().any(|&g| g == 0);
    let mut parts = Vec::new();
    if !empty {
        for part in range.parts() {
            let spec = Specialization {
                local_size: part.group_size(),
                enqueued_local_size: local,
                streaming: packed.streaming,
                images: packed.images,
            };
            parts.push((specialize(&k, device, spec)?, part));
        }
    }
    let printf = if k.info.uses_printf() && !empty {
        let groups = range.num_groups().iter().product();
        let calls: Arc<[compiler::PrintfCall]> = k.info.printf_calls.clone().into();
        let buffer = PrintfBuffer::new(&*device.mux, info.printf_buffer_size, groups, calls)?;
        let at = compiler::printf_arg_offset(&k.info.args);
        let arg = buffer.hidden_arg();
        // SAFETY: `pack` made the block with room for the hidden argument,
        // and nothing else holds it yet.
        unsafe {
            std::ptr::copy_nonoverlapping(arg.as_ptr(), packed.block.as_ptr().add(at), arg.len())
        };
        Some(Arc::new(buffer))
    } else {
        None
    };
    let globals = if k.info.uses_program_globals {
        let block = k.program.globals_block(device)?;
        let at = compiler::globals_arg_offset(&k.info);
        let arg = block.hidden_arg();
        // SAFETY: `pack` made the block with room for the hidden argument,
        // and nothing else holds it yet.
        unsafe {
            std::ptr::copy_nonoverlapping(arg.as_ptr(), packed.block.as_ptr().add(at), arg.len())
        };
        Some(block)
    } else {
        None
    };
    Ok(PreparedRange {
        parts,
        globals,
        printf,
        args: packed.block,
        range,
        buffers: packed.keep,
    })
}

/// The work-group function for `spec`, compiled once per program.
fn specialize(
    k: &Kernel,
    device: &crate::device::Device,
    spec: Specialization,
) -> Result<Arc<dyn mux::Kernel>, cl_int> {
    if let Some((s, c)) = &*k.last_specialized.lock().unwrap() {
        if *s == spec {
            return Ok(c.clone());
        }
    }
    let key = (k.info.name.clone(), spec);
    if let Some(c) = k.program.specialized.lock().unwrap().get(&key) {
        *k.last_specialized.lock().unwrap() = Some((spec, c.clone()));
        return Ok(c.clone());
    }
    if let Some(c) = stand_in(k, device, spec) {
        return Ok(c);
    }
    let compiled = device
        .compiler
        .specialize(&k.module, &k.info, spec)
        .map_err(|e| {
            // The application's context callback hears why.
            k.program.context.report(&format!(
                "kernel {} could not be compiled for local size {:?}: {e}",
                k.info.name, spec.local_size
            ));
            CL_OUT_OF_RESOURCES
        })?;
    k.program
        .specialized
        .lock()
        .unwrap()
        .insert(key, compiled.clone());
    *k.last_specialized.lock().unwrap() = Some((spec, compiled.clone()));
    Ok(compiled)
}

/// Where the kernel is compiled already for `spec` but for which stores
/// stream (the same launch on buffers past the cache, or back under it),
/// that work-group function, which computes the same: launches run it
/// while `spec`'s own is compiled on a thread of its own, and take that
/// one once it is done. A launch of dpnp's `sin` on 10^7 elements after
/// one on 10^6 would otherwise wait about 80 ms for a compile whose only
/// difference is a hint to its stores.
fn stand_in(
    k: &Kernel,
    device: &crate::device::Device,
    spec: Specialization,
) -> Option<mux::KernelRef> {
    let mut compiling = k.compiling.lock().unwrap();
    let finished = match &*compiling {
        Some((s, slot)) if *s == spec => {
            let mut slot = slot.lock().unwrap();
            match slot.take() {
                Some(Ok(done)) => Some(done),
                // Failed: the stand-in stays.
                failed => {
                    *slot = failed;
                    None
                }
            }
        }
        _ => None,
    };
    if let Some(done) = finished {
        let key = (k.info.name.clone(), spec);
        k.program
            .specialized
            .lock()
            .unwrap()
            .insert(key, done.clone());
        *k.last_specialized.lock().unwrap() = Some((spec, done.clone()));
        *compiling = None;
        return Some(done);
    }
    let sibling = k
        .program
        .specialized
        .lock()
        .unwrap()
        .iter()
        .find(|((name, s), _)| {
            *name == k.info.name && s.streaming != spec.streaming && {
                let mut same = *s;
                same.streaming = spec.streaming;
                same == spec
            }
        })
        .map(|(_, c)| c.clone())?;
    if compiling.as_ref().is_none_or(|(s, _)| *s != spec) {
        let slot = Arc::new(std::sync::Mutex::new(None));
        let (target, module, info) = (device.compiler.clone(), k.module.clone(), k.info.clone());
        let done = slot.clone();
        let started = std::thread::Builder::new()
            .name("ferrocl-compile".into())
            .spawn(move || {
                let compiled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    target.specialize(&module, &info, spec)
                }))
                .map_err(|_| "the compiler panicked".to_string())
                .and_then(|r| r.map_err(|e| e.to_string()));
                *done.lock().unwrap() = Some(compiled);
            });
        let Ok(thread) = started else {
            return None;
        };
        compiles_finish_before_exit(thread);
        *compiling = Some((spec, slot));
    }
    Some(sibling)
}

/// Compilations running on threads of their own. The process's exit waits
/// for them: LLVM's global state is torn down by the destructors that run
/// after the handlers `atexit` registers later than LLVM was loaded.
static COMPILES: std::sync::Mutex<Vec<std::thread::JoinHandle<()>>> =
    std::sync::Mutex::new(Vec::new());

fn compiles_finish_before_exit(thread: std::thread::JoinHandle<()>) {
    static REGISTERED: std::sync::Once = std::sync::Once::new();
    extern "C" fn join_compiles() {
        let threads = std::mem::take(&mut *COMPILES.lock().unwrap_or_else(|e| e.into_inner()));
        for t in threads {
            let _ = t.join();
        }
    }
    // SAFETY: `join_compiles` is a plain function that takes only the lock
    // above, which no thread holds while it exits.
    REGISTERED.call_once(|| unsafe {
        libc::atexit(join_compiles);
    });
    let mut threads = COMPILES.lock().unwrap_or_else(|e| e.into_inner());
    threads.retain(|t| !t.is_finished());
    threads.push(thread);
}

pub unsafe extern "C" fn enqueue_task(
    queue: cl_command_queue,
    kernel: cl_kernel,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    let one = [1usize];
    status(|| {
        enqueue_range(
            CL_COMMAND_TASK,
            queue,
            kernel,
            1,
            std::ptr::null(),
            one.as_ptr(),
            one.as_ptr(),
            num_events,
            event_list,
            event,
        )
    })
}

/// `clEnqueueNativeKernel`: a host function run as a command of the queue
/// (`CL_EXEC_NATIVE_KERNEL`). It gets a copy of `args`, in which the memory
/// objects of `mem_list` are replaced by pointers to their memory.
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_native_kernel(
    queue: cl_command_queue,
    user_func: Option<unsafe extern "C" fn(*mut c_void)>,
    args: *mut c_void,
    cb_args: usize,
    num_mem_objects: cl_uint,
    mem_list: *const cl_mem,
    args_mem_loc: *mut *const c_void,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = object::get::<Queue>(queue)?;
        let func = user_func.ok_or(CL_INVALID_VALUE)?;
        ensure(args.is_null() == (cb_args == 0), CL_INVALID_VALUE)?;
        ensure(!args.is_null() || num_mem_objects == 0, CL_INVALID_VALUE)?;
        ensure(
            (num_mem_objects == 0) == mem_list.is_null()
                && (num_mem_objects == 0) == args_mem_loc.is_null(),
            CL_INVALID_VALUE,
        )?;
        // The copy, 16-byte aligned like any allocation the function expects.
        let mut copy = vec![0u128; cb_args.div_ceil(16)];
        if cb_args > 0 {
            std::ptr::copy_nonoverlapping(args as *const u8, copy.as_mut_ptr().cast(), cb_args);
        }
        let mut mems = Vec::with_capacity(num_mem_objects as usize);
        for i in 0..num_mem_objects as usize {
            let m = object::get::<crate::memory::Mem>(*mem_list.add(i))
                .map_err(|_| CL_INVALID_MEM_OBJECT)?;
            ensure(Arc::ptr_eq(&m.context, &q.context), CL_INVALID_CONTEXT)?;
            // Where in `args` the handle sits: the same place in the copy.
            let at = (*args_mem_loc.add(i) as usize).wrapping_sub(args as usize);
            ensure(
                at.checked_add(std::mem::size_of::<*mut c_void>())
                    .is_some_and(|end| end <= cb_args),
                CL_INVALID_VALUE,
            )?;
            mems.push((m, at));
        }
        let work = Box::new(move || {
            let base = copy.as_mut_ptr() as *mut u8;
            // The function sees each memory object's bytes in host memory.
            let mut mapped = Vec::with_capacity(mems.len());
            for (m, at) in &mems {
                let (memory, offset) = (m.buffer.memory(), m.buffer.offset());
                let p = memory
                    .map(offset, m.size)
                    .map_err(|_| CL_OUT_OF_RESOURCES)?;
                mapped.push((memory, offset, m.size));
                // SAFETY: `at` was checked to leave room for a pointer.
                unsafe { std::ptr::write_unaligned(base.add(*at) as *mut *mut u8, p) };
            }
            // SAFETY: the application's function, with its own arguments.
            unsafe { func(base.cast()) };
            for (memory, offset, size) in mapped {
                memory
                    .unmap(offset, size)
                    .map_err(|_| CL_OUT_OF_RESOURCES)?;
            }
            Ok(())
        });
        crate::queue::enqueue(
            &q,
            CL_COMMAND_NATIVE_KERNEL,
            num_events,
            event_list,
            event,
            false,
            work,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chosen_local_sizes_divide_the_global_size() {
        for g in [
            [1, 1, 1],
            [1000, 1, 1],
            [1 << 20, 1, 1],
            [7, 13, 5],
            [64, 64, 3],
            [48, 1024, 1],
        ] {
            for (max, width, rows, units) in [
                (4096, 16, 4, 2),
                (4096, 16, 1, 2),
                (64, 8, 4, 16),
                (1, 4, 4, 1),
            ] {
                let l = choose_local_size(g, max, width, rows, units);
                assert!((0..3).all(|d| g[d] % l[d] == 0), "{g:?} {l:?}");
                assert!(l.iter().product::<usize>() <= max, "{g:?} {l:?}");
            }
        }
    }

    #[test]
    fn chosen_local_sizes_suit_the_vector_width_and_the_cores() {
        // Large ranges: whole vectors, 256 items a group.
        assert_eq!(
            choose_local_size([1 << 20, 1, 1], 4096, 16, 4, 2),
            [256, 1, 1]
        );
        // A multiple of the width rather than the largest divisor.
        assert_eq!(
            choose_local_size([48 * 5, 1, 1], 4096, 16, 4, 1),
            [48, 1, 1]
        );
        // Small ranges: every core still gets several groups.
        assert_eq!(choose_local_size([1024, 1, 1], 4096, 16, 4, 8), [32, 1, 1]);
        // Narrow in x: rows are added along y.
        assert_eq!(
            choose_local_size([16, 1024, 1], 4096, 16, 4, 2),
            [16, 16, 1]
        );
        assert_eq!(choose_local_size([1 << 20, 1, 1], 1, 16, 4, 2), [1, 1, 1]);
        // Several rows: room for the rows the compiler runs together.
        assert_eq!(choose_local_size([256, 256, 1], 4096, 16, 4, 2), [64, 4, 1]);
        assert_eq!(
            choose_local_size([256, 256, 1], 4096, 16, 1, 2),
            [256, 1, 1]
        );
        // Rows that do not divide the range leave x as wide as it was.
        assert_eq!(choose_local_size([1024, 6, 1], 4096, 16, 4, 2), [256, 1, 1]);
    }
}
