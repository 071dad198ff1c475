//! `cl_khr_command_buffer` (provisional 0.9): commands recorded once into a
//! command buffer, then enqueued as often as wanted. Each enqueue is one
//! command of its queue, with one event, and runs in a mux command buffer
//! of its own (seed 001: nothing else joins it). Recorded commands run in
//! the order recorded, which satisfies any sync-point wait list; a kernel's
//! arguments are those it had when it was recorded.

use crate::context::Context;
use crate::enqueue_buffer::{
    copy_buffer_action, copy_buffer_rect_action, fill_buffer_action, Action,
};
use crate::enqueue_kernel::prepare_range;
use crate::entry::{self, ensure, status};
use crate::info::{answer, Info};
use crate::object::{self, ClObject, Kind};
use crate::queue::{enqueue_payload, Ordering, Payload, Queue};
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::{Arc, Mutex};

/// `cl_ndrange_kernel_command_properties_khr` (cl_ext.h 2023 and later).
type NdRangeCommandProperties = cl_properties;

/// The extension's name and version, as the device reports them.
pub const EXTENSION: (&str, (u32, u32, u32)) = ("cl_khr_command_buffer", (0, 9, 1));

/// What a command buffer can do beyond the base: be pending more than once.
pub const CAPABILITIES: cl_device_command_buffer_capabilities_khr =
    CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR;

/// Queue properties a command buffer's queue may have.
pub const SUPPORTED_QUEUE_PROPERTIES: cl_command_queue_properties = CL_QUEUE_PROFILING_ENABLE;

enum Recorded {
    Action(Action),
    Range {
        kernel: mux::KernelRef,
        args: Arc<mux::Allocation>,
        range: mux::NdRange,
        keep: Arc<Vec<Arc<ClObject<crate::memory::Mem>>>>,
    },
    /// Nothing to run: recorded commands run in order anyway.
    Barrier,
}

struct Recording {
    finalized: bool,
    commands: Vec<Recorded>,
}

pub struct CommandBuffer {
    pub context: Arc<ClObject<Context>>,
    pub queue: Arc<ClObject<Queue>>,
    properties: Vec<cl_command_buffer_properties_khr>,
    simultaneous: bool,
    recording: Mutex<Recording>,
    /// Enqueues not yet finished.
    pending: Arc<AtomicUsize>,
}

impl Kind for CommandBuffer {
    const INVALID: cl_int = CL_INVALID_COMMAND_BUFFER_KHR;
}

/// Decrements the pending count when an enqueue's commands are dropped:
/// after they ran, or when a failure made the queue skip them.
struct PendingGuard(Arc<AtomicUsize>);

impl Drop for PendingGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, AtomicOrdering::AcqRel);
    }
}

pub unsafe extern "C" fn create_command_buffer(
    num_queues: cl_uint,
    queues: *const cl_command_queue,
    properties: *const cl_command_buffer_properties_khr,
    errcode_ret: *mut cl_int,
) -> cl_command_buffer_khr {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        // One queue: the multi-device extension is not offered.
        ensure(num_queues == 1 && !queues.is_null(), CL_INVALID_VALUE)?;
        let q = object::get::<Queue>(*queues)?;
        ensure(
            q.properties & !SUPPORTED_QUEUE_PROPERTIES == 0,
            CL_INCOMPATIBLE_COMMAND_QUEUE_KHR,
        )?;
        let mut flags = 0;
        let mut array = Vec::new();
        if !properties.is_null() {
            let mut p = properties;
            while *p != 0 {
                let (name, value) = (*p, *p.add(1));
                match name {
                    CL_COMMAND_BUFFER_FLAGS_KHR => {
                        ensure(
                            value & !CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR == 0,
                            CL_INVALID_VALUE,
                        )?;
                        flags = value;
                    }
                    _ => return Err(CL_INVALID_VALUE),
                }
                array.extend([name, value]);
                p = p.add(2);
            }
            array.push(0);
        }
        let cb = object::create(CommandBuffer {
            context: q.context.clone(),
            queue: q,
            properties: array,
            simultaneous: flags & CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR != 0,
            recording: Mutex::new(Recording {
                finalized: false,
                commands: Vec::new(),
            }),
            pending: Arc::default(),
        });
        Ok(object::handle(&cb))
    })
}

pub unsafe extern "C" fn retain_command_buffer(cb: cl_command_buffer_khr) -> cl_int {
    object::retain::<CommandBuffer>(cb)
}

pub unsafe extern "C" fn release_command_buffer(cb: cl_command_buffer_khr) -> cl_int {
    object::release::<CommandBuffer>(cb)
}

pub unsafe extern "C" fn finalize_command_buffer(cb: cl_command_buffer_khr) -> cl_int {
    status(|| {
        let cb = object::get::<CommandBuffer>(cb)?;
        let mut r = cb.recording.lock().unwrap();
        ensure(!r.finalized, CL_INVALID_OPERATION)?;
        r.finalized = true;
        Ok(())
    })
}

/// The checks every recording entry point shares; records what `make`
/// returns and hands out its sync point.
unsafe fn record(
    cb: cl_command_buffer_khr,
    queue: cl_command_queue,
    num_sync_points: cl_uint,
    sync_points: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
    make: impl FnOnce(&Arc<ClObject<Queue>>) -> Result<Recorded, cl_int>,
) -> Result<(), cl_int> {
    let cb = object::get::<CommandBuffer>(cb)?;
    // The queue is the command buffer's own: NULL says so.
    ensure(queue.is_null(), CL_INVALID_COMMAND_QUEUE)?;
    // Mutable commands are another extension.
    ensure(mutable_handle.is_null(), CL_INVALID_VALUE)?;
    let mut r = cb.recording.lock().unwrap();
    ensure(!r.finalized, CL_INVALID_OPERATION)?;
    ensure(
        (num_sync_points == 0) == sync_points.is_null(),
        CL_INVALID_SYNC_POINT_WAIT_LIST_KHR,
    )?;
    let recorded = r.commands.len() as cl_sync_point_khr;
    for i in 0..num_sync_points as usize {
        // Sync points name commands recorded before: 1..=recorded.
        let s = *sync_points.add(i);
        ensure(s >= 1 && s <= recorded, CL_INVALID_SYNC_POINT_WAIT_LIST_KHR)?;
    }
    let command = make(&cb.queue)?;
    r.commands.push(command);
    if !sync_point.is_null() {
        *sync_point = r.commands.len() as cl_sync_point_khr;
    }
    Ok(())
}

pub unsafe extern "C" fn command_barrier_with_wait_list(
    cb: cl_command_buffer_khr,
    queue: cl_command_queue,
    num_sync_points: cl_uint,
    sync_points: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    status(|| {
        record(
            cb,
            queue,
            num_sync_points,
            sync_points,
            sync_point,
            mutable_handle,
            |_| Ok(Recorded::Barrier),
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn command_copy_buffer(
    cb: cl_command_buffer_khr,
    queue: cl_command_queue,
    src: cl_mem,
    dst: cl_mem,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
    num_sync_points: cl_uint,
    sync_points: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    status(|| {
        record(
            cb,
            queue,
            num_sync_points,
            sync_points,
            sync_point,
            mutable_handle,
            |q| copy_buffer_action(q, src, dst, src_offset, dst_offset, size).map(Recorded::Action),
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn command_copy_buffer_rect(
    cb: cl_command_buffer_khr,
    queue: cl_command_queue,
    src: cl_mem,
    dst: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    src_row_pitch: usize,
    src_slice_pitch: usize,
    dst_row_pitch: usize,
    dst_slice_pitch: usize,
    num_sync_points: cl_uint,
    sync_points: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    status(|| {
        record(
            cb,
            queue,
            num_sync_points,
            sync_points,
            sync_point,
            mutable_handle,
            |q| {
                let pitches = [
                    src_row_pitch,
                    src_slice_pitch,
                    dst_row_pitch,
                    dst_slice_pitch,
                ];
                copy_buffer_rect_action(q, src, dst, src_origin, dst_origin, region, pitches)
                    .map(Recorded::Action)
            },
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn command_fill_buffer(
    cb: cl_command_buffer_khr,
    queue: cl_command_queue,
    buffer: cl_mem,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    size: usize,
    num_sync_points: cl_uint,
    sync_points: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    status(|| {
        record(
            cb,
            queue,
            num_sync_points,
            sync_points,
            sync_point,
            mutable_handle,
            |q| {
                fill_buffer_action(q, buffer, pattern, pattern_size, offset, size)
                    .map(Recorded::Action)
            },
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn command_nd_range_kernel(
    cb: cl_command_buffer_khr,
    queue: cl_command_queue,
    properties: *const NdRangeCommandProperties,
    kernel: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
    num_sync_points: cl_uint,
    sync_points: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    status(|| {
        // No properties are defined without the mutable-dispatch extension.
        ensure(properties.is_null() || *properties == 0, CL_INVALID_VALUE)?;
        record(
            cb,
            queue,
            num_sync_points,
            sync_points,
            sync_point,
            mutable_handle,
            |q| {
                let p = prepare_range(
                    q,
                    kernel,
                    work_dim,
                    global_work_offset,
                    global_work_size,
                    local_work_size,
                )?;
                Ok(match p.kernel {
                    None => Recorded::Barrier,
                    Some(kernel) => Recorded::Range {
                        kernel,
                        args: p.args,
                        range: p.range,
                        keep: Arc::new(p.buffers),
                    },
                })
            },
        )
    })
}

/// The image commands: the device has no images, so no handle is one.
macro_rules! image_command {
    ($name:ident, $($arg:ident: $ty:ty),*) => {
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $name(
            cb: cl_command_buffer_khr,
            queue: cl_command_queue,
            $($arg: $ty,)*
            _num_sync_points: cl_uint,
            _sync_points: *const cl_sync_point_khr,
            _sync_point: *mut cl_sync_point_khr,
            _mutable_handle: *mut cl_mutable_command_khr,
        ) -> cl_int {
            status(|| {
                object::get::<CommandBuffer>(cb)?;
                ensure(queue.is_null(), CL_INVALID_COMMAND_QUEUE)?;
                Err(CL_INVALID_OPERATION)
            })
        }
    };
}

image_command!(command_copy_image, _src: cl_mem, _dst: cl_mem, _so: *const usize, _do: *const usize, _region: *const usize);
image_command!(command_copy_buffer_to_image, _src: cl_mem, _dst: cl_mem, _so: usize, _do: *const usize, _region: *const usize);
image_command!(command_copy_image_to_buffer, _src: cl_mem, _dst: cl_mem, _so: *const usize, _region: *const usize, _do: usize);
image_command!(command_fill_image, _image: cl_mem, _color: *const c_void, _origin: *const usize, _region: *const usize);

pub unsafe extern "C" fn enqueue_command_buffer(
    num_queues: cl_uint,
    queues: *mut cl_command_queue,
    cb: cl_command_buffer_khr,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let cb = object::get::<CommandBuffer>(cb)?;
        ensure((num_queues == 0) == queues.is_null(), CL_INVALID_VALUE)?;
        ensure(num_queues <= 1, CL_INVALID_VALUE)?;
        let queue = if num_queues == 0 {
            cb.queue.clone()
        } else {
            let q = object::get::<Queue>(*queues)?;
            // Another queue may stand in for the recorded one if it is alike.
            ensure(
                Arc::ptr_eq(&q.context, &cb.context)
                    && Arc::ptr_eq(&q.device, &cb.queue.device)
                    && q.properties == cb.queue.properties,
                CL_INCOMPATIBLE_COMMAND_QUEUE_KHR,
            )?;
            q
        };
        let r = cb.recording.lock().unwrap();
        ensure(r.finalized, CL_INVALID_OPERATION)?;
        ensure(
            cb.simultaneous || cb.pending.load(AtomicOrdering::Acquire) == 0,
            CL_INVALID_OPERATION,
        )?;
        let mut commands = mux::CommandBuffer::new();
        // Checked when recorded: replaying them cannot fail.
        let replay = |e: mux::Error| match e {
            mux::Error::OutOfMemory => CL_OUT_OF_HOST_MEMORY,
            _ => CL_OUT_OF_RESOURCES,
        };
        for c in &r.commands {
            match c {
                Recorded::Action(a) => a(&mut commands).map_err(replay)?,
                Recorded::Range {
                    kernel,
                    args,
                    range,
                    keep,
                } => {
                    commands
                        .nd_range(kernel.clone(), args.clone(), *range)
                        .map_err(replay)?;
                    let keep = keep.clone();
                    commands.host(Box::new(move || {
                        drop(keep);
                        Ok(())
                    }));
                }
                Recorded::Barrier => {}
            }
        }
        drop(r);
        cb.pending.fetch_add(1, AtomicOrdering::AcqRel);
        let guard = PendingGuard(cb.pending.clone());
        commands.host(Box::new(move || {
            drop(guard);
            Ok(())
        }));
        enqueue_payload(
            &queue,
            CL_COMMAND_COMMAND_BUFFER_KHR,
            num_events,
            event_list,
            event,
            false,
            Ordering::Normal,
            Payload::Sealed(commands),
        )
    })
}

pub unsafe extern "C" fn get_command_buffer_info(
    cb: cl_command_buffer_khr,
    param_name: cl_command_buffer_info_khr,
    size: usize,
    value: *mut c_void,
    size_ret: *mut usize,
) -> cl_int {
    let result = object::get::<CommandBuffer>(cb).and_then(|cb| {
        Ok(match param_name {
            CL_COMMAND_BUFFER_QUEUES_KHR => {
                Info::slice::<cl_command_queue>(&[object::handle(&cb.queue)])
            }
            CL_COMMAND_BUFFER_NUM_QUEUES_KHR => Info::value::<cl_uint>(1),
            CL_COMMAND_BUFFER_REFERENCE_COUNT_KHR => Info::value::<cl_uint>(cb.ref_count()),
            CL_COMMAND_BUFFER_STATE_KHR => {
                let state = if !cb.recording.lock().unwrap().finalized {
                    CL_COMMAND_BUFFER_STATE_RECORDING_KHR
                } else if cb.pending.load(AtomicOrdering::Acquire) > 0 {
                    2 // CL_COMMAND_BUFFER_STATE_PENDING_KHR
                } else {
                    CL_COMMAND_BUFFER_STATE_EXECUTABLE_KHR
                };
                Info::value::<cl_command_buffer_state_khr>(state)
            }
            CL_COMMAND_BUFFER_PROPERTIES_ARRAY_KHR => Info::slice(&cb.properties),
            CL_COMMAND_BUFFER_CONTEXT_KHR => Info::value::<cl_context>(object::handle(&cb.context)),
            _ => return Err(CL_INVALID_VALUE),
        })
    });
    answer(result, size, value, size_ret)
}

/// The extension's entry points by name, for `clGetExtensionFunctionAddress`.
pub fn function(name: &str) -> Option<*mut c_void> {
    Some(match name {
        "clCreateCommandBufferKHR" => create_command_buffer as *mut c_void,
        "clFinalizeCommandBufferKHR" => finalize_command_buffer as *mut c_void,
        "clRetainCommandBufferKHR" => retain_command_buffer as *mut c_void,
        "clReleaseCommandBufferKHR" => release_command_buffer as *mut c_void,
        "clEnqueueCommandBufferKHR" => enqueue_command_buffer as *mut c_void,
        "clCommandBarrierWithWaitListKHR" => command_barrier_with_wait_list as *mut c_void,
        "clCommandCopyBufferKHR" => command_copy_buffer as *mut c_void,
        "clCommandCopyBufferRectKHR" => command_copy_buffer_rect as *mut c_void,
        "clCommandFillBufferKHR" => command_fill_buffer as *mut c_void,
        "clCommandNDRangeKernelKHR" => command_nd_range_kernel as *mut c_void,
        "clCommandCopyImageKHR" => command_copy_image as *mut c_void,
        "clCommandCopyBufferToImageKHR" => command_copy_buffer_to_image as *mut c_void,
        "clCommandCopyImageToBufferKHR" => command_copy_image_to_buffer as *mut c_void,
        "clCommandFillImageKHR" => command_fill_image as *mut c_void,
        "clGetCommandBufferInfoKHR" => get_command_buffer_info as *mut c_void,
        _ => return None,
    })
}
