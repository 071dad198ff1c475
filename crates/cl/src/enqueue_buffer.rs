//! Buffer commands: read, write, copy, fill, their rectangular forms, and
//! map/unmap. Mapping is free: the buffer's memory is the host's.

use crate::entry::{self, ensure, status};
use crate::memory::Mem;
use crate::object::{self, ClObject};
use crate::queue::{enqueue, Queue};
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::Arc;

/// A raw pointer moved into a command; the application keeps it valid
/// until the command completes, as the spec requires.
#[derive(Clone, Copy)]
struct Ptr(usize);

impl Ptr {
    fn get(self) -> *mut u8 {
        self.0 as *mut u8
    }
}

fn same_context(q: &ClObject<Queue>, m: &ClObject<Mem>) -> Result<(), cl_int> {
    ensure(Arc::ptr_eq(&q.context, &m.context), CL_INVALID_CONTEXT)
}

fn in_bounds(m: &Mem, offset: usize, size: usize) -> Result<(), cl_int> {
    let end = offset.checked_add(size).ok_or(CL_INVALID_VALUE)?;
    ensure(end <= m.size, CL_INVALID_VALUE)
}

fn lookup(
    queue: cl_command_queue,
    buffer: cl_mem,
) -> Result<(Arc<ClObject<Queue>>, Arc<ClObject<Mem>>), cl_int> {
    let q = object::get::<Queue>(queue)?;
    let m = object::get::<Mem>(buffer)?;
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
        let dst = Ptr(ptr as usize);
        let work = Box::new(move || {
            std::ptr::copy_nonoverlapping(m.ptr().add(offset), dst.get(), size);
            Ok(())
        });
        enqueue(
            &q,
            CL_COMMAND_READ_BUFFER,
            num_events,
            event_list,
            event,
            blocking != 0,
            work,
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
        let src = Ptr(ptr as usize);
        let work = Box::new(move || {
            std::ptr::copy_nonoverlapping(src.get(), m.ptr().add(offset), size);
            Ok(())
        });
        enqueue(
            &q,
            CL_COMMAND_WRITE_BUFFER,
            num_events,
            event_list,
            event,
            blocking != 0,
            work,
        )
    })
}

/// Whether two byte ranges of the same memory overlap.
fn overlaps(a: usize, b: usize, size_a: usize, size_b: usize) -> bool {
    a < b + size_b && b < a + size_a
}

/// A command's work that can run more than once (a user command buffer
/// replays its commands on every enqueue).
pub type Action = Arc<dyn Fn() -> Result<(), cl_int> + Send + Sync>;

/// Validates `clEnqueueCopyBuffer`'s arguments against `q`; the copy to do.
pub unsafe fn copy_buffer_action(
    q: &Arc<ClObject<Queue>>,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
) -> Result<Action, cl_int> {
    let src = object::get::<Mem>(src_buffer)?;
    let dst = object::get::<Mem>(dst_buffer)?;
    same_context(q, &src)?;
    same_context(q, &dst)?;
    ensure(size > 0, CL_INVALID_VALUE)?;
    in_bounds(&src, src_offset, size)?;
    in_bounds(&dst, dst_offset, size)?;
    let (sr, so) = src.root();
    let (dr, d_o) = dst.root();
    ensure(
        !(sr == dr && overlaps(so + src_offset, d_o + dst_offset, size, size)),
        CL_MEM_COPY_OVERLAP,
    )?;
    Ok(Arc::new(move || {
        // SAFETY: both ranges were checked against their buffers.
        unsafe { std::ptr::copy(src.ptr().add(src_offset), dst.ptr().add(dst_offset), size) };
        Ok(())
    }))
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
    let m = object::get::<Mem>(buffer)?;
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
    Ok(Arc::new(move || {
        // SAFETY: the range was checked against the buffer.
        let dst = unsafe { std::slice::from_raw_parts_mut(m.ptr().add(offset), size) };
        for chunk in dst.chunks_exact_mut(pattern_size) {
            chunk.copy_from_slice(&bytes);
        }
        Ok(())
    }))
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
        enqueue(
            &q,
            CL_COMMAND_COPY_BUFFER,
            num_events,
            event_list,
            event,
            false,
            Box::new(move || action()),
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
        enqueue(
            &q,
            CL_COMMAND_FILL_BUFFER,
            num_events,
            event_list,
            event,
            false,
            Box::new(move || action()),
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

    /// The byte offset of row `y` of slice `z`; below `end` for rows
    /// inside the region.
    fn offset(&self, y: usize, z: usize) -> usize {
        (self.origin[2] + z) * self.slice_pitch
            + (self.origin[1] + y) * self.row_pitch
            + self.origin[0]
    }
}

unsafe fn read_region(region: *const usize) -> Result<[usize; 3], cl_int> {
    ensure(!region.is_null(), CL_INVALID_VALUE)?;
    let r = [*region, *region.add(1), *region.add(2)];
    ensure(r.iter().all(|&x| x > 0), CL_INVALID_VALUE)?;
    Ok(r)
}

/// Copies `region` between two rectangles, row by row.
unsafe fn copy_rect(src: *const u8, s: Rect, dst: *mut u8, d: Rect, region: [usize; 3]) {
    for z in 0..region[2] {
        for y in 0..region[1] {
            std::ptr::copy(src.add(s.offset(y, z)), dst.add(d.offset(y, z)), region[0]);
        }
    }
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
    let host = Ptr(ptr as usize);
    let work = Box::new(move || {
        if read {
            copy_rect(m.ptr(), b, host.get(), h, region);
        } else {
            copy_rect(host.get(), h, m.ptr(), b, region);
        }
        Ok(())
    });
    let kind = if read {
        CL_COMMAND_READ_BUFFER_RECT
    } else {
        CL_COMMAND_WRITE_BUFFER_RECT
    };
    enqueue(&q, kind, num_events, event_list, event, blocking != 0, work)
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
        enqueue(
            &q,
            CL_COMMAND_COPY_BUFFER_RECT,
            num_events,
            event_list,
            event,
            false,
            Box::new(move || action()),
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
    let src = object::get::<Mem>(src_buffer)?;
    let dst = object::get::<Mem>(dst_buffer)?;
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
    Ok(Arc::new(move || {
        // SAFETY: both rectangles were checked against their buffers.
        unsafe { copy_rect(src.ptr(), s, dst.ptr(), d, region) };
        Ok(())
    }))
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
        const KNOWN: cl_map_flags = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
        ensure(map_flags & !KNOWN == 0, CL_INVALID_VALUE)?;
        let invalidate = map_flags & CL_MAP_WRITE_INVALIDATE_REGION != 0;
        ensure(
            !(invalidate && map_flags & (CL_MAP_READ | CL_MAP_WRITE) != 0),
            CL_INVALID_VALUE,
        )?;
        ensure(size > 0, CL_INVALID_VALUE)?;
        in_bounds(&m, offset, size)?;
        ensure(
            map_flags & CL_MAP_READ == 0 || m.host_readable(),
            CL_INVALID_OPERATION,
        )?;
        ensure(
            map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) == 0 || m.host_writable(),
            CL_INVALID_OPERATION,
        )?;
        let p = m.ptr().add(offset) as usize;
        let writing = map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0;
        {
            // Regions mapped for writing must not overlap other mappings.
            let mut maps = m.maps.lock().unwrap();
            let clash = maps
                .iter()
                .any(|&(at, n, w)| (w || writing) && overlaps(at, p, n, size));
            ensure(!clash, CL_INVALID_OPERATION)?;
            maps.push((p, size, writing));
        }
        let done = enqueue(
            &q,
            CL_COMMAND_MAP_BUFFER,
            num_events,
            event_list,
            event,
            blocking != 0,
            Box::new(|| Ok(())),
        );
        if let Err(e) = done {
            let mut maps = m.maps.lock().unwrap();
            if let Some(i) = maps
                .iter()
                .position(|&(at, n, w)| (at, n, w) == (p, size, writing))
            {
                maps.remove(i);
            }
            return Err(e);
        }
        Ok(p as *mut c_void)
    })
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
        let (q, m) = lookup(queue, mem)?;
        {
            let mut maps = m.maps.lock().unwrap();
            let i = maps
                .iter()
                .position(|&(at, _, _)| at == mapped_ptr as usize)
                .ok_or(CL_INVALID_VALUE)?;
            maps.remove(i);
        }
        enqueue(
            &q,
            CL_COMMAND_UNMAP_MEM_OBJECT,
            num_events,
            event_list,
            event,
            false,
            Box::new(|| Ok(())),
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
