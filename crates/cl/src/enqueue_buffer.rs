//! Buffer commands: read, write, copy, fill, their rectangular forms, and
//! map/unmap. Each is checked here for the spec's error codes, then
//! recorded as `mux` commands (which check again against the device's
//! objects) between the updates of its event.

use crate::entry::{self, ensure, status};
use crate::memory::{get_buffer, Mapping, Mem};
use crate::object::{self, ClObject};
use crate::queue::{enqueue, enqueue_payload, Ordering, Payload, Queue};
use mux::{CommandBuffer, HostPtr};
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::Arc;

/// The spec's code for a command `mux` refused to record.
pub(crate) fn refused(e: mux::Error) -> cl_int {
    match e {
        mux::Error::CopyOverlap => CL_MEM_COPY_OVERLAP,
        mux::Error::OutOfMemory => CL_OUT_OF_HOST_MEMORY,
        _ => CL_INVALID_VALUE,
    }
}

/// Enqueues device `commands`; `keep` lives until they have run.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn enqueue_commands(
    q: &Arc<ClObject<Queue>>,
    command_type: cl_command_type,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
    blocking: bool,
    commands: CommandBuffer,
    keep: Vec<Arc<ClObject<Mem>>>,
) -> Result<(), cl_int> {
    enqueue_payload(
        q,
        command_type,
        num_events,
        event_list,
        event,
        blocking,
        Ordering::Normal,
        Payload::Device { commands, keep },
    )
}

pub(crate) fn same_context(q: &ClObject<Queue>, m: &ClObject<Mem>) -> Result<(), cl_int> {
    ensure(Arc::ptr_eq(&q.context, &m.context), CL_INVALID_CONTEXT)
}

fn in_bounds(m: &Mem, offset: usize, size: usize) -> Result<(), cl_int> {
    let end = offset.checked_add(size).ok_or(CL_INVALID_VALUE)?;
    ensure(end <= m.size, CL_INVALID_VALUE)
}

/// The queue and buffer of a buffer command.
fn lookup(
    queue: cl_command_queue,
    buffer: cl_mem,
) -> Result<(Arc<ClObject<Queue>>, Arc<ClObject<Mem>>), cl_int> {
    let q = object::get::<Queue>(queue)?;
    let m = get_buffer(buffer)?;
    same_context(&q, &m)?;
    Ok((q, m))
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_read_buffer(
    queue: cl_command_queue,
    buffer: cl_mem,
    blocking: cl_bool,
    offset: usize,
    size: usize,
    ptr: *mut c_void,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let (q, m) = lookup(queue, buffer)?;
        ensure(!ptr.is_null(), CL_INVALID_VALUE)?;
        in_bounds(&m, offset, size)?;
        ensure(m.host_readable(), CL_INVALID_OPERATION)?;
        let mut commands = CommandBuffer::new();
        commands
            .read_buffer(m.buffer.clone(), offset, HostPtr::new(ptr), size)
            .map_err(refused)?;
        enqueue_commands(
            &q,
            CL_COMMAND_READ_BUFFER,
            num_events,
            event_list,
            event,
            blocking != 0,
            commands,
            vec![m],
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_write_buffer(
    queue: cl_command_queue,
    buffer: cl_mem,
    blocking: cl_bool,
    offset: usize,
    size: usize,
    ptr: *const c_void,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let (q, m) = lookup(queue, buffer)?;
        ensure(!ptr.is_null(), CL_INVALID_VALUE)?;
        in_bounds(&m, offset, size)?;
        ensure(m.host_writable(), CL_INVALID_OPERATION)?;
        let mut commands = CommandBuffer::new();
        commands
            .write_buffer(m.buffer.clone(), offset, HostPtr::new(ptr), size)
            .map_err(refused)?;
        enqueue_commands(
            &q,
            CL_COMMAND_WRITE_BUFFER,
            num_events,
            event_list,
            event,
            blocking != 0,
            commands,
            vec![m],
        )
    })
}

/// Whether two byte ranges of the same memory overlap.
pub(crate) fn overlaps(a: usize, b: usize, size_a: usize, size_b: usize) -> bool {
    a < b + size_b && b < a + size_a
}

/// Records a command's device commands; recorded again on each enqueue
/// of a user command buffer. What it names lives until they have run.
pub type Action = Arc<dyn Fn(&mut CommandBuffer) -> mux::Result<()> + Send + Sync>;

/// An action that records `record`, then holds `keep` until that has run.
/// Recorded once at once, so that whatever `mux` refuses is refused now.
pub(crate) fn action(
    keep: Vec<Arc<ClObject<Mem>>>,
    record: impl Fn(&mut CommandBuffer) -> mux::Result<()> + Send + Sync + 'static,
) -> Result<Action, cl_int> {
    record(&mut CommandBuffer::new()).map_err(refused)?;
    Ok(Arc::new(move |commands: &mut CommandBuffer| {
        record(commands)?;
        let keep = keep.clone();
        commands.host(Box::new(move || {
            drop(keep);
            Ok(())
        }));
        Ok(())
    }))
}

/// Enqueues what `action` records.
pub(crate) unsafe fn enqueue_action(
    q: &Arc<ClObject<Queue>>,
    command_type: cl_command_type,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
    action: Action,
) -> Result<(), cl_int> {
    let mut commands = CommandBuffer::new();
    action(&mut commands).map_err(refused)?;
    enqueue_commands(
        q,
        command_type,
        num_events,
        event_list,
        event,
        false,
        commands,
        Vec::new(),
    )
}

/// Validates `clEnqueueCopyBuffer`'s arguments against `q`; the copy to do.
pub unsafe fn copy_buffer_action(
    q: &Arc<ClObject<Queue>>,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
) -> Result<Action, cl_int> {
    let src = get_buffer(src_buffer)?;
    let dst = get_buffer(dst_buffer)?;
    same_context(q, &src)?;
    same_context(q, &dst)?;
    ensure(size > 0, CL_INVALID_VALUE)?;
    in_bounds(&src, src_offset, size)?;
    in_bounds(&dst, dst_offset, size)?;
    // Overlap (within one memory, sub-buffers included) `mux` refuses.
    let (s, d) = (src.buffer.clone(), dst.buffer.clone());
    action(vec![src, dst], move |c| {
        c.copy_buffer(s.clone(), src_offset, d.clone(), dst_offset, size)
    })
}

/// Validates `clEnqueueFillBuffer`'s arguments against `q`; the fill to do.
/// The pattern is copied now: the application may reuse it at once.
pub unsafe fn fill_buffer_action(
    q: &Arc<ClObject<Queue>>,
    buffer: cl_mem,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    size: usize,
) -> Result<Action, cl_int> {
    let m = get_buffer(buffer)?;
    same_context(q, &m)?;
    ensure(!pattern.is_null(), CL_INVALID_VALUE)?;
    ensure(
        pattern_size.is_power_of_two() && pattern_size <= 128,
        CL_INVALID_VALUE,
    )?;
    ensure(
        offset % pattern_size == 0 && size % pattern_size == 0,
        CL_INVALID_VALUE,
    )?;
    in_bounds(&m, offset, size)?;
    let bytes = std::slice::from_raw_parts(pattern as *const u8, pattern_size).to_vec();
    let b = m.buffer.clone();
    action(vec![m], move |c| {
        c.fill_buffer(b.clone(), offset, size, &bytes)
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_copy_buffer(
    queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = object::get::<Queue>(queue)?;
        let action = copy_buffer_action(&q, src_buffer, dst_buffer, src_offset, dst_offset, size)?;
        enqueue_action(
            &q,
            CL_COMMAND_COPY_BUFFER,
            num_events,
            event_list,
            event,
            action,
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_fill_buffer(
    queue: cl_command_queue,
    buffer: cl_mem,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    size: usize,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = object::get::<Queue>(queue)?;
        let action = fill_buffer_action(&q, buffer, pattern, pattern_size, offset, size)?;
        enqueue_action(
            &q,
            CL_COMMAND_FILL_BUFFER,
            num_events,
            event_list,
            event,
            action,
        )
    })
}

/// A rectangle in a linear memory: origin in (bytes, rows, slices), pitches.
#[derive(Clone, Copy)]
struct Rect {
    origin: [usize; 3],
    row_pitch: usize,
    slice_pitch: usize,
    /// One past the last byte the region touches.
    end: usize,
}

impl Rect {
    /// Applies the spec's pitch defaults and checks them against `region`.
    /// Sizes that overflow an address are `CL_INVALID_VALUE`: no buffer or
    /// host allocation can hold them.
    unsafe fn new(
        origin: *const usize,
        region: [usize; 3],
        row_pitch: usize,
        slice_pitch: usize,
    ) -> Result<Rect, cl_int> {
        ensure(!origin.is_null(), CL_INVALID_VALUE)?;
        let origin = [*origin, *origin.add(1), *origin.add(2)];
        let row = if row_pitch == 0 { region[0] } else { row_pitch };
        ensure(row >= region[0], CL_INVALID_VALUE)?;
        let rows_bytes = region[1].checked_mul(row).ok_or(CL_INVALID_VALUE)?;
        let slice = if slice_pitch == 0 {
            rows_bytes
        } else {
            slice_pitch
        };
        ensure(slice >= rows_bytes && slice % row == 0, CL_INVALID_VALUE)?;
        // (origin + region - 1) in z and y, in bytes, plus the last row.
        let last = |o: usize, r: usize, pitch: usize| o.checked_add(r - 1)?.checked_mul(pitch);
        let end = last(origin[2], region[2], slice)
            .zip(last(origin[1], region[1], row))
            .and_then(|(z, y)| {
                z.checked_add(y)?
                    .checked_add(origin[0])?
                    .checked_add(region[0])
            })
            .ok_or(CL_INVALID_VALUE)?;
        Ok(Rect {
            origin,
            row_pitch: row,
            slice_pitch: slice,
            end,
        })
    }

    fn to_mux(self) -> mux::Rect {
        mux::Rect {
            origin: self.origin,
            row_pitch: self.row_pitch,
            slice_pitch: self.slice_pitch,
        }
    }
}

pub(crate) unsafe fn read_region(region: *const usize) -> Result<[usize; 3], cl_int> {
    ensure(!region.is_null(), CL_INVALID_VALUE)?;
    let r = [*region, *region.add(1), *region.add(2)];
    ensure(r.iter().all(|&x| x > 0), CL_INVALID_VALUE)?;
    Ok(r)
}

#[allow(clippy::too_many_arguments)]
unsafe fn rect_transfer(
    queue: cl_command_queue,
    buffer: cl_mem,
    blocking: cl_bool,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
    ptr: *mut c_void,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
    read: bool,
) -> Result<(), cl_int> {
    let (q, m) = lookup(queue, buffer)?;
    let region = read_region(region)?;
    let b = Rect::new(buffer_origin, region, buffer_row_pitch, buffer_slice_pitch)?;
    let h = Rect::new(host_origin, region, host_row_pitch, host_slice_pitch)?;
    ensure(!ptr.is_null(), CL_INVALID_VALUE)?;
    ensure(b.end <= m.size, CL_INVALID_VALUE)?;
    ensure(
        if read {
            m.host_readable()
        } else {
            m.host_writable()
        },
        CL_INVALID_OPERATION,
    )?;
    let (buffer, host) = (m.buffer.clone(), HostPtr::new(ptr));
    let mut commands = CommandBuffer::new();
    let kind = if read {
        commands.read_buffer_rect(buffer, b.to_mux(), host, h.to_mux(), region)
    } else {
        commands.write_buffer_rect(buffer, b.to_mux(), host, h.to_mux(), region)
    }
    .map_err(refused)
    .map(|()| {
        if read {
            CL_COMMAND_READ_BUFFER_RECT
        } else {
            CL_COMMAND_WRITE_BUFFER_RECT
        }
    })?;
    enqueue_commands(
        &q,
        kind,
        num_events,
        event_list,
        event,
        blocking != 0,
        commands,
        vec![m],
    )
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_read_buffer_rect(
    queue: cl_command_queue,
    buffer: cl_mem,
    blocking: cl_bool,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
    ptr: *mut c_void,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        rect_transfer(
            queue,
            buffer,
            blocking,
            buffer_origin,
            host_origin,
            region,
            buffer_row_pitch,
            buffer_slice_pitch,
            host_row_pitch,
            host_slice_pitch,
            ptr,
            num_events,
            event_list,
            event,
            true,
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_write_buffer_rect(
    queue: cl_command_queue,
    buffer: cl_mem,
    blocking: cl_bool,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
    ptr: *const c_void,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        rect_transfer(
            queue,
            buffer,
            blocking,
            buffer_origin,
            host_origin,
            region,
            buffer_row_pitch,
            buffer_slice_pitch,
            host_row_pitch,
            host_slice_pitch,
            ptr as *mut c_void,
            num_events,
            event_list,
            event,
            false,
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_copy_buffer_rect(
    queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    src_row_pitch: usize,
    src_slice_pitch: usize,
    dst_row_pitch: usize,
    dst_slice_pitch: usize,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = object::get::<Queue>(queue)?;
        let action = copy_buffer_rect_action(
            &q,
            src_buffer,
            dst_buffer,
            src_origin,
            dst_origin,
            region,
            [
                src_row_pitch,
                src_slice_pitch,
                dst_row_pitch,
                dst_slice_pitch,
            ],
        )?;
        enqueue_action(
            &q,
            CL_COMMAND_COPY_BUFFER_RECT,
            num_events,
            event_list,
            event,
            action,
        )
    })
}

/// Validates `clEnqueueCopyBufferRect`'s arguments against `q` (`pitches`:
/// source row and slice, then destination row and slice); the copy to do.
pub unsafe fn copy_buffer_rect_action(
    q: &Arc<ClObject<Queue>>,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    pitches: [usize; 4],
) -> Result<Action, cl_int> {
    let src = get_buffer(src_buffer)?;
    let dst = get_buffer(dst_buffer)?;
    same_context(q, &src)?;
    same_context(q, &dst)?;
    let region = read_region(region)?;
    let s = Rect::new(src_origin, region, pitches[0], pitches[1])?;
    let d = Rect::new(dst_origin, region, pitches[2], pitches[3])?;
    ensure(s.end <= src.size && d.end <= dst.size, CL_INVALID_VALUE)?;
    if Arc::ptr_eq(&src, &dst) {
        ensure(
            s.row_pitch == d.row_pitch && s.slice_pitch == d.slice_pitch,
            CL_INVALID_VALUE,
        )?;
        let boxes_meet = (0..3).all(|i| overlaps(s.origin[i], d.origin[i], region[i], region[i]));
        ensure(!boxes_meet, CL_MEM_COPY_OVERLAP)?;
    }
    let (sb, db) = (src.buffer.clone(), dst.buffer.clone());
    action(vec![src, dst], move |c| {
        c.copy_buffer_rect(sb.clone(), s.to_mux(), db.clone(), d.to_mux(), region)
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_map_buffer(
    queue: cl_command_queue,
    buffer: cl_mem,
    blocking: cl_bool,
    map_flags: cl_map_flags,
    offset: usize,
    size: usize,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        let (q, m) = lookup(queue, buffer)?;
        ensure(size > 0, CL_INVALID_VALUE)?;
        in_bounds(&m, offset, size)?;
        let writing = map_access(&m, map_flags)?;
        let at = m.buffer.offset() + offset;
        let map = (at, size, writing);
        let waits = (num_events, event_list, event);
        map_memory(&q, &m, CL_COMMAND_MAP_BUFFER, map, blocking != 0, waits)
    })
}

/// Checks a map's flags against the spec and `m`'s host access; whether
/// the map is for writing.
pub(crate) fn map_access(m: &Mem, map_flags: cl_map_flags) -> Result<bool, cl_int> {
    const KNOWN: cl_map_flags = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    ensure(map_flags & !KNOWN == 0, CL_INVALID_VALUE)?;
    let invalidate = map_flags & CL_MAP_WRITE_INVALIDATE_REGION != 0;
    ensure(
        !(invalidate && map_flags & (CL_MAP_READ | CL_MAP_WRITE) != 0),
        CL_INVALID_VALUE,
    )?;
    ensure(
        map_flags & CL_MAP_READ == 0 || m.host_readable(),
        CL_INVALID_OPERATION,
    )?;
    let writing = map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0;
    ensure(!writing || m.host_writable(), CL_INVALID_OPERATION)?;
    Ok(writing)
}

/// Maps bytes `[at, at + size)` of `m`'s memory for the host (`writing`
/// or not) as command `command_type`: the pointer is the application's
/// now; the command marks when the bytes behind it are the object's.
/// Regions mapped for writing must not overlap other mappings.
pub(crate) unsafe fn map_memory(
    q: &Arc<ClObject<Queue>>,
    m: &Arc<ClObject<Mem>>,
    command_type: cl_command_type,
    (at, size, writing): (usize, usize, bool),
    blocking: bool,
    (num_events, event_list, event): (cl_uint, *const cl_event, *mut cl_event),
) -> Result<*mut c_void, cl_int> {
    let memory = m.buffer.memory().clone();
    let p = memory.map(at, size).map_err(|_| CL_MAP_FAILURE)? as usize;
    let mapping = Mapping {
        ptr: p,
        size,
        writing,
        at,
    };
    {
        let mut maps = m.maps.lock().unwrap();
        let clash = maps
            .iter()
            .any(|o| (o.writing || writing) && overlaps(o.ptr, p, o.size, size));
        if clash {
            let _ = memory.unmap(at, size);
            return Err(CL_INVALID_OPERATION);
        }
        maps.push(mapping);
    }
    let done = enqueue(
        q,
        command_type,
        num_events,
        event_list,
        event,
        blocking,
        Box::new(|| Ok(())),
    );
    if let Err(e) = done {
        let _ = memory.unmap(at, size);
        let mut maps = m.maps.lock().unwrap();
        if let Some(i) = maps.iter().position(|o| *o == mapping) {
            maps.remove(i);
        }
        return Err(e);
    }
    Ok(p as *mut c_void)
}

pub unsafe extern "C" fn enqueue_unmap_mem_object(
    queue: cl_command_queue,
    mem: cl_mem,
    mapped_ptr: *mut c_void,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = object::get::<Queue>(queue)?;
        let m = object::get::<Mem>(mem)?;
        same_context(&q, &m)?;
        let mapping = {
            let mut maps = m.maps.lock().unwrap();
            let i = maps
                .iter()
                .position(|o| o.ptr == mapped_ptr as usize)
                .ok_or(CL_INVALID_VALUE)?;
            maps.remove(i)
        };
        // In order: what the host wrote becomes the device's here.
        let memory = m.buffer.memory().clone();
        enqueue(
            &q,
            CL_COMMAND_UNMAP_MEM_OBJECT,
            num_events,
            event_list,
            event,
            false,
            Box::new(move || {
                memory
                    .unmap(mapping.at, mapping.size)
                    .map_err(|_| CL_OUT_OF_RESOURCES)
            }),
        )
    })
}

pub unsafe extern "C" fn enqueue_migrate_mem_objects(
    queue: cl_command_queue,
    num_mem_objects: cl_uint,
    mem_objects: *const cl_mem,
    flags: cl_mem_migration_flags,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = object::get::<Queue>(queue)?;
        ensure(
            num_mem_objects > 0 && !mem_objects.is_null(),
            CL_INVALID_VALUE,
        )?;
        let mems = object::get_list::<Mem>(num_mem_objects, mem_objects, CL_INVALID_VALUE)?;
        for m in &mems {
            same_context(&q, m)?;
        }
        const KNOWN: cl_mem_migration_flags =
            CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED;
        ensure(flags & !KNOWN == 0, CL_INVALID_VALUE)?;
        // One memory for host and device: there is nothing to move.
        enqueue(
            &q,
            CL_COMMAND_MIGRATE_MEM_OBJECTS,
            num_events,
            event_list,
            event,
            false,
            Box::new(move || {
                drop(mems);
                Ok(())
            }),
        )
    })
}
