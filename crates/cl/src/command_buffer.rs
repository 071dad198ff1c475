//! `cl_khr_command_buffer` (provisional 0.9.8) and its mutable dispatch
//! layer: commands recorded once into a command buffer, then enqueued as
//! often as wanted, also while earlier enqueues still run. Each enqueue is
//! one command of its queue, with one event, and runs in a mux command
//! buffer of its own (seed 001: nothing else joins it), made from the
//! recorded commands as they are at that moment, so that later updates
//! touch only later enqueues. Recorded commands run in the order recorded,
//! which satisfies any sync-point wait list; a kernel's arguments are those
//! it had when it was recorded, or those an update gave it
//! (`mutable_command.rs`).

use crate::context::Context;
use crate::enqueue_buffer::{
    copy_buffer_action, copy_buffer_rect_action, fill_buffer_action, Action,
};
use crate::enqueue_image::{copy_image_action, fill_image_action, image_buffer_action};
use crate::entry::{self, ensure, status};
use crate::info::{answer, Info};
use crate::mutable_command::MutableCommand;
use crate::object::{self, ClObject, Kind};
use crate::queue::{enqueue_payload, Ordering, Payload, Queue};
use crate::shared_memory;
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

/// The extensions' names and versions, as the device reports them.
pub const EXTENSIONS: [(&str, (u32, u32, u32)); 2] = [
    ("cl_khr_command_buffer", (0, 9, 8)),
    ("cl_khr_command_buffer_mutable_dispatch", (0, 9, 5)),
];

/// What a command buffer can do beyond the base: run several enqueues of
/// one command buffer at once, each with the commands as they were when
/// it was enqueued.
pub const CAPABILITIES: cl_device_command_buffer_capabilities_khr =
    CL_COMMAND_BUFFER_CAPABILITY_SIMULTANEOUS_USE_KHR;

/// Queue properties a command buffer's queue may have. Out of order, the
/// recorded commands still run in the order recorded.
pub const SUPPORTED_QUEUE_PROPERTIES: cl_command_queue_properties =
    CL_QUEUE_PROFILING_ENABLE | CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;

/// Flags a command buffer may be created with.
const FLAGS: cl_command_buffer_flags_khr =
    CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR | CL_COMMAND_BUFFER_MUTABLE_KHR;

/// `CL_COMMAND_BUFFER_MUTABLE_DISPATCH_ASSERTS_KHR` as cl_ext.h defines it
/// (opencl-sys 0.6 has another value).
const MUTABLE_DISPATCH_ASSERTS: cl_command_buffer_properties_khr = 0x12B7;

enum Recorded {
    Action(Action),
    /// An ND-range, registered as a mutable command while the command
    /// buffer lives (whether or not the application asked for its handle).
    Range(Arc<ClObject<MutableCommand>>),
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
    mutable: bool,
    recording: Mutex<Recording>,
}

impl Kind for CommandBuffer {
    const INVALID: cl_int = CL_INVALID_COMMAND_BUFFER_KHR;
}

impl Drop for CommandBuffer {
    fn drop(&mut self) {
        // Its mutable commands go with it.
        let r = self.recording.get_mut().unwrap();
        for c in &r.commands {
            if let Recorded::Range(m) = c {
                object::unregister(m);
            }
        }
    }
}

impl Recording {
    /// Every ND-range has all its arguments: the buffer can be enqueued.
    fn executable(&self) -> bool {
        self.commands.iter().all(|c| match c {
            Recorded::Range(m) => m.dispatch.lock().unwrap().prepared.is_some(),
            _ => true,
        })
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
            let mut seen = Vec::new();
            while *p != 0 {
                let (name, value) = (*p, *p.add(1));
                ensure(!seen.contains(&name), CL_INVALID_VALUE)?;
                seen.push(name);
                match name {
                    CL_COMMAND_BUFFER_FLAGS_KHR => {
                        ensure(value & !FLAGS == 0, CL_INVALID_VALUE)?;
                        flags = value;
                    }
                    // Only an assertion the application makes.
                    MUTABLE_DISPATCH_ASSERTS => {
                        ensure(
                            value & !CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR == 0,
                            CL_INVALID_VALUE,
                        )?;
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
            mutable: flags & CL_COMMAND_BUFFER_MUTABLE_KHR != 0,
            recording: Mutex::new(Recording {
                finalized: false,
                commands: Vec::new(),
            }),
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

/// Properties of a command other than an ND-range: none are defined.
unsafe fn no_properties(properties: *const cl_command_properties_khr) -> Result<(), cl_int> {
    ensure(properties.is_null() || *properties == 0, CL_INVALID_VALUE)
}

/// The checks every recording entry point shares; records what `make`
/// returns and hands out its sync point. Only ND-ranges are mutable.
#[allow(clippy::too_many_arguments)]
unsafe fn record(
    cb: cl_command_buffer_khr,
    queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    num_sync_points: cl_uint,
    sync_points: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
    make: impl FnOnce(&Arc<ClObject<Queue>>) -> Result<Recorded, cl_int>,
) -> Result<(), cl_int> {
    let cb = object::get::<CommandBuffer>(cb)?;
    // The queue is the command buffer's own: NULL says so.
    ensure(queue.is_null(), CL_INVALID_COMMAND_QUEUE)?;
    ensure(mutable_handle.is_null(), CL_INVALID_VALUE)?;
    no_properties(properties)?;
    record_into(&cb, num_sync_points, sync_points, sync_point, make)
}

/// Records what `make` returns into `cb` after the sync-point checks.
unsafe fn record_into(
    cb: &Arc<ClObject<CommandBuffer>>,
    num_sync_points: cl_uint,
    sync_points: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    make: impl FnOnce(&Arc<ClObject<Queue>>) -> Result<Recorded, cl_int>,
) -> Result<(), cl_int> {
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
    properties: *const cl_command_properties_khr,
    num_sync_points: cl_uint,
    sync_points: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    status(|| {
        record(
            cb,
            queue,
            properties,
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
    properties: *const cl_command_properties_khr,
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
            properties,
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
    properties: *const cl_command_properties_khr,
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
            properties,
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
    properties: *const cl_command_properties_khr,
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
            properties,
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
    properties: *const cl_command_properties_khr,
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
        let buffer = object::get::<CommandBuffer>(cb)?;
        ensure(queue.is_null(), CL_INVALID_COMMAND_QUEUE)?;
        // A recorded range has no printf buffer to format at its end.
        if let Ok(k) = object::get::<crate::kernel::Kernel>(kernel) {
            ensure(
                !k.info.uses_printf()
                    || CAPABILITIES & CL_COMMAND_BUFFER_CAPABILITY_KERNEL_PRINTF_KHR != 0,
                CL_INVALID_OPERATION,
            )?;
        }
        // What may be updated: every field unless the properties say.
        let mut updatable = crate::mutable_command::CAPABILITIES;
        let mut array = Vec::new();
        if !properties.is_null() {
            let mut p = properties;
            let mut seen = Vec::new();
            while *p != 0 {
                let (name, value) = (*p, *p.add(1));
                ensure(!seen.contains(&name), CL_INVALID_VALUE)?;
                seen.push(name);
                match name {
                    CL_MUTABLE_DISPATCH_UPDATABLE_FIELDS_KHR => {
                        ensure(
                            value & !crate::mutable_command::CAPABILITIES == 0,
                            CL_INVALID_VALUE,
                        )?;
                        updatable = value;
                    }
                    CL_MUTABLE_DISPATCH_ASSERTS_KHR => ensure(
                        value & !CL_MUTABLE_DISPATCH_ASSERT_NO_ADDITIONAL_WORK_GROUPS_KHR == 0,
                        CL_INVALID_VALUE,
                    )?,
                    _ => return Err(CL_INVALID_VALUE),
                }
                array.extend([name, value]);
                p = p.add(2);
            }
            array.push(0);
        }
        // Nothing of an immutable buffer's commands can change.
        if !buffer.mutable {
            updatable = 0;
        }
        let handle = object::handle(&buffer) as usize;
        let mut command = None;
        record_into(&buffer, num_sync_points, sync_points, sync_point, |q| {
            let m = MutableCommand::record(
                handle,
                q,
                array,
                updatable,
                kernel,
                work_dim,
                global_work_offset,
                global_work_size,
                local_work_size,
            )?;
            let m = object::create(m);
            command = Some(m.clone());
            Ok(Recorded::Range(m))
        })?;
        if !mutable_handle.is_null() {
            if let Some(m) = command {
                *mutable_handle = object::handle(&m) as cl_mutable_command_khr;
            }
        }
        Ok(())
    })
}

pub unsafe extern "C" fn update_mutable_commands(
    cb: cl_command_buffer_khr,
    num_configs: cl_uint,
    config_types: *const cl_command_buffer_update_type_khr,
    configs: *const *const c_void,
) -> cl_int {
    status(|| {
        let cb = object::get::<CommandBuffer>(cb)?;
        let r = cb.recording.lock().unwrap();
        ensure(r.finalized, CL_INVALID_OPERATION)?;
        ensure(cb.mutable, CL_INVALID_OPERATION)?;
        ensure(
            (num_configs == 0) == config_types.is_null(),
            CL_INVALID_VALUE,
        )?;
        ensure((num_configs == 0) == configs.is_null(), CL_INVALID_VALUE)?;
        // Every update is made first; none is kept unless all succeed.
        let mut updates = Vec::with_capacity(num_configs as usize);
        for i in 0..num_configs as usize {
            ensure(
                *config_types.add(i) == CL_STRUCTURE_TYPE_MUTABLE_DISPATCH_CONFIG_KHR,
                CL_INVALID_VALUE,
            )?;
            let config = *configs.add(i) as *const cl_mutable_dispatch_config_khr;
            ensure(!config.is_null(), CL_INVALID_VALUE)?;
            let config = &*config;
            let m = object::get::<MutableCommand>(config.command as *mut c_void)?;
            ensure(
                m.command_buffer == object::handle(&cb) as usize,
                CL_INVALID_MUTABLE_COMMAND_KHR,
            )?;
            let next = m.updated(config)?;
            updates.push((m, next));
        }
        for (m, next) in updates {
            *m.dispatch.lock().unwrap() = next;
        }
        Ok(())
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn command_svm_memcpy(
    cb: cl_command_buffer_khr,
    queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    dst: *mut c_void,
    src: *const c_void,
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
            properties,
            num_sync_points,
            sync_points,
            sync_point,
            mutable_handle,
            |q| {
                ensure(shared_memory::supported(&q.device), CL_INVALID_OPERATION)?;
                let action = shared_memory::memcpy_action(q, dst as usize, src as usize, size)?;
                Ok(Recorded::Action(action))
            },
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn command_svm_mem_fill(
    cb: cl_command_buffer_khr,
    queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    svm_ptr: *mut c_void,
    pattern: *const c_void,
    pattern_size: usize,
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
            properties,
            num_sync_points,
            sync_points,
            sync_point,
            mutable_handle,
            |q| {
                ensure(shared_memory::supported(&q.device), CL_INVALID_OPERATION)?;
                let action = shared_memory::fill_action(
                    q,
                    svm_ptr as usize,
                    pattern as *const u8,
                    pattern_size,
                    size,
                )?;
                Ok(Recorded::Action(action))
            },
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn command_copy_image(
    cb: cl_command_buffer_khr,
    queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    src: cl_mem,
    dst: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    num_sync_points: cl_uint,
    sync_points: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    status(|| {
        record(
            cb,
            queue,
            properties,
            num_sync_points,
            sync_points,
            sync_point,
            mutable_handle,
            |q| {
                copy_image_action(q, src, dst, src_origin, dst_origin, region).map(Recorded::Action)
            },
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn command_copy_buffer_to_image(
    cb: cl_command_buffer_khr,
    queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    src: cl_mem,
    dst: cl_mem,
    src_offset: usize,
    dst_origin: *const usize,
    region: *const usize,
    num_sync_points: cl_uint,
    sync_points: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    status(|| {
        record(
            cb,
            queue,
            properties,
            num_sync_points,
            sync_points,
            sync_point,
            mutable_handle,
            |q| {
                image_buffer_action(q, false, dst, src, dst_origin, region, src_offset)
                    .map(Recorded::Action)
            },
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn command_copy_image_to_buffer(
    cb: cl_command_buffer_khr,
    queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    src: cl_mem,
    dst: cl_mem,
    src_origin: *const usize,
    region: *const usize,
    dst_offset: usize,
    num_sync_points: cl_uint,
    sync_points: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    status(|| {
        record(
            cb,
            queue,
            properties,
            num_sync_points,
            sync_points,
            sync_point,
            mutable_handle,
            |q| {
                image_buffer_action(q, true, src, dst, src_origin, region, dst_offset)
                    .map(Recorded::Action)
            },
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn command_fill_image(
    cb: cl_command_buffer_khr,
    queue: cl_command_queue,
    properties: *const cl_command_properties_khr,
    image: cl_mem,
    fill_color: *const c_void,
    origin: *const usize,
    region: *const usize,
    num_sync_points: cl_uint,
    sync_points: *const cl_sync_point_khr,
    sync_point: *mut cl_sync_point_khr,
    mutable_handle: *mut cl_mutable_command_khr,
) -> cl_int {
    status(|| {
        record(
            cb,
            queue,
            properties,
            num_sync_points,
            sync_points,
            sync_point,
            mutable_handle,
            |q| fill_image_action(q, image, fill_color, origin, region).map(Recorded::Action),
        )
    })
}

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
            // Another queue may stand in for the recorded one: of the same
            // device and context, with properties command buffers support.
            let q = object::get::<Queue>(*queues)?;
            ensure(
                q.properties & !SUPPORTED_QUEUE_PROPERTIES == 0,
                CL_INCOMPATIBLE_COMMAND_QUEUE_KHR,
            )?;
            ensure(Arc::ptr_eq(&q.device, &cb.queue.device), CL_INVALID_DEVICE)?;
            ensure(Arc::ptr_eq(&q.context, &cb.context), CL_INVALID_CONTEXT)?;
            q
        };
        let r = cb.recording.lock().unwrap();
        ensure(r.finalized && r.executable(), CL_INVALID_OPERATION)?;
        let mut commands = mux::CommandBuffer::new();
        // Checked when recorded: replaying them cannot fail.
        let replay = |e: mux::Error| match e {
            mux::Error::OutOfMemory => CL_OUT_OF_HOST_MEMORY,
            _ => CL_OUT_OF_RESOURCES,
        };
        for c in &r.commands {
            match c {
                Recorded::Action(a) => a(&mut commands).map_err(replay)?,
                Recorded::Range(m) => {
                    let d = m.dispatch.lock().unwrap();
                    let Some(p) = &d.prepared else { continue };
                    p.record(&mut commands).map_err(replay)?;
                    // What its arguments name lives until it has run.
                    let keep = p.keep();
                    commands.host(Box::new(move || {
                        drop(keep);
                        Ok(())
                    }));
                }
                Recorded::Barrier => {}
            }
        }
        drop(r);
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
                let r = cb.recording.lock().unwrap();
                let state = if !r.finalized {
                    CL_COMMAND_BUFFER_STATE_RECORDING_KHR
                } else if !r.executable() {
                    CL_COMMAND_BUFFER_STATE_FINALIZED_KHR
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
        "clCommandSVMMemcpyKHR" => command_svm_memcpy as *mut c_void,
        "clCommandSVMMemFillKHR" => command_svm_mem_fill as *mut c_void,
        "clGetCommandBufferInfoKHR" => get_command_buffer_info as *mut c_void,
        "clUpdateMutableCommandsKHR" => update_mutable_commands as *mut c_void,
        "clGetMutableCommandInfoKHR" => {
            crate::mutable_command::get_mutable_command_info as *mut c_void
        }
        _ => return None,
    })
}
