//! Image commands: read, write, copy, fill, map, and copies between images
//! and buffers. Each is checked here for the spec's error codes (regions
//! and pitches by `libimg`), then recorded as `mux` commands, which address
//! an image as (x, y, z) with a 1D array's layers as rows.

use crate::enqueue_buffer::{
    action, enqueue_action, enqueue_commands, map_access, map_memory, overlaps, refused,
    same_context, Action,
};
use crate::entry::{self, ensure, status};
use crate::memory::{get_buffer, Mem};
use crate::object::{self, ClObject};
use crate::queue::Queue;
use libimg::validate;
use mux::{CommandBuffer, HostPtr};
use opencl_sys::*;
use std::ffi::c_void;
use std::sync::Arc;

/// A memory object that must be an image: a buffer is
/// `CL_INVALID_MEM_OBJECT`.
pub fn get_image(mem: cl_mem) -> Result<Arc<ClObject<Mem>>, cl_int> {
    let m = object::get::<Mem>(mem)?;
    ensure(m.image.is_some(), CL_INVALID_MEM_OBJECT)?;
    Ok(m)
}

/// A command's queue and the memory object it names.
type QueueAndMem = (Arc<ClObject<Queue>>, Arc<ClObject<Mem>>);

/// The queue and image of an image command, of one context, on a device
/// with images.
fn lookup(queue: cl_command_queue, image: cl_mem) -> Result<QueueAndMem, cl_int> {
    let q = object::get::<Queue>(queue)?;
    let m = get_image(image)?;
    same_context(&q, &m)?;
    ensure(q.device.info().images.is_some(), CL_INVALID_OPERATION)?;
    Ok((q, m))
}

fn part(m: &Mem) -> &crate::image::ImagePart {
    m.image.as_ref().expect("checked to be an image")
}

/// An origin and region given as three `size_t`s each, checked against
/// the image.
unsafe fn region_of(
    m: &Mem,
    origin: *const usize,
    region: *const usize,
) -> Result<([usize; 3], [usize; 3]), cl_int> {
    ensure(!origin.is_null() && !region.is_null(), CL_INVALID_VALUE)?;
    let o = [*origin, *origin.add(1), *origin.add(2)];
    let r = [*region, *region.add(1), *region.add(2)];
    validate::check_region(&part(m).shape, o, r)?;
    Ok((o, r))
}

/// The host pitches of a read or write as `mux` takes them: a 1D array's
/// layers are its rows, at the slice pitch.
fn mux_host_pitches(
    m: &Mem,
    region: [usize; 3],
    row: usize,
    slice: usize,
) -> Result<(usize, usize), cl_int> {
    let shape = &part(m).shape;
    let (row, slice) = validate::host_pitches(shape, region, row, slice)?;
    Ok(match shape.image_type {
        CL_MEM_OBJECT_IMAGE1D_ARRAY => (slice, 0),
        _ => (row, slice),
    })
}

#[allow(clippy::too_many_arguments)]
unsafe fn host_transfer(
    command_type: cl_command_type,
    queue: cl_command_queue,
    image: cl_mem,
    blocking: cl_bool,
    origin: *const usize,
    region: *const usize,
    row_pitch: usize,
    slice_pitch: usize,
    ptr: *mut c_void,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> Result<(), cl_int> {
    let (q, m) = lookup(queue, image)?;
    let (o, r) = region_of(&m, origin, region)?;
    ensure(!ptr.is_null(), CL_INVALID_VALUE)?;
    let (row, slice) = mux_host_pitches(&m, r, row_pitch, slice_pitch)?;
    let reading = command_type == CL_COMMAND_READ_IMAGE;
    let allowed = if reading {
        m.host_readable()
    } else {
        m.host_writable()
    };
    ensure(allowed, CL_INVALID_OPERATION)?;
    let mut commands = CommandBuffer::new();
    let image = part(&m).mux.clone();
    let host = HostPtr::new(ptr);
    if reading {
        commands.read_image(image, o, r, host, row, slice)
    } else {
        commands.write_image(image, o, r, host, row, slice)
    }
    .map_err(refused)?;
    enqueue_commands(
        &q,
        command_type,
        num_events,
        event_list,
        event,
        blocking != 0,
        commands,
        vec![m],
    )
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_read_image(
    queue: cl_command_queue,
    image: cl_mem,
    blocking: cl_bool,
    origin: *const usize,
    region: *const usize,
    row_pitch: usize,
    slice_pitch: usize,
    ptr: *mut c_void,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        host_transfer(
            CL_COMMAND_READ_IMAGE,
            queue,
            image,
            blocking,
            origin,
            region,
            row_pitch,
            slice_pitch,
            ptr,
            num_events,
            event_list,
            event,
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_write_image(
    queue: cl_command_queue,
    image: cl_mem,
    blocking: cl_bool,
    origin: *const usize,
    region: *const usize,
    row_pitch: usize,
    slice_pitch: usize,
    ptr: *const c_void,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        host_transfer(
            CL_COMMAND_WRITE_IMAGE,
            queue,
            image,
            blocking,
            origin,
            region,
            row_pitch,
            slice_pitch,
            ptr as *mut c_void,
            num_events,
            event_list,
            event,
        )
    })
}

/// Validates `clEnqueueCopyImage`'s arguments against `q`; the copy to do.
pub unsafe fn copy_image_action(
    q: &Arc<ClObject<Queue>>,
    src_image: cl_mem,
    dst_image: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
) -> Result<Action, cl_int> {
    let src = get_image(src_image)?;
    let dst = get_image(dst_image)?;
    same_context(q, &src)?;
    same_context(q, &dst)?;
    ensure(q.device.info().images.is_some(), CL_INVALID_OPERATION)?;
    ensure(
        part(&src).shape.format == part(&dst).shape.format,
        CL_IMAGE_FORMAT_MISMATCH,
    )?;
    let (so, r) = region_of(&src, src_origin, region)?;
    let (d_o, _) = region_of(&dst, dst_origin, region)?;
    if Arc::ptr_eq(&src, &dst) {
        let boxes_meet = (0..3).all(|i| overlaps(so[i], d_o[i], r[i], r[i]));
        ensure(!boxes_meet, CL_MEM_COPY_OVERLAP)?;
    }
    let (s, d) = (part(&src).mux.clone(), part(&dst).mux.clone());
    action(vec![src, dst], move |c| {
        c.copy_image(s.clone(), so, d.clone(), d_o, r)
    })
}

/// Validates `clEnqueueFillImage`'s arguments against `q`; the fill to do.
/// The colour is packed into a texel now.
pub unsafe fn fill_image_action(
    q: &Arc<ClObject<Queue>>,
    image: cl_mem,
    fill_color: *const c_void,
    origin: *const usize,
    region: *const usize,
) -> Result<Action, cl_int> {
    let m = get_image(image)?;
    same_context(q, &m)?;
    ensure(q.device.info().images.is_some(), CL_INVALID_OPERATION)?;
    ensure(!fill_color.is_null(), CL_INVALID_VALUE)?;
    let (o, r) = region_of(&m, origin, region)?;
    let color = &*(fill_color as *const [u8; 16]);
    let texel = libimg::fill::pack(part(&m).shape.format, color);
    let i = part(&m).mux.clone();
    action(vec![m], move |c| c.fill_image(i.clone(), &texel, o, r))
}

/// Bytes a region of `m` takes packed, as a buffer beside it holds it.
fn packed_size(m: &Mem, region: [usize; 3]) -> Option<usize> {
    region
        .iter()
        .try_fold(part(m).shape.format.element_size(), |n, &r| {
            n.checked_mul(r)
        })
}

/// Validates `clEnqueueCopyImageToBuffer`'s (`to_buffer`) or
/// `clEnqueueCopyBufferToImage`'s arguments against `q`.
#[allow(clippy::too_many_arguments)]
pub unsafe fn image_buffer_action(
    q: &Arc<ClObject<Queue>>,
    to_buffer: bool,
    image: cl_mem,
    buffer: cl_mem,
    origin: *const usize,
    region: *const usize,
    offset: usize,
) -> Result<Action, cl_int> {
    let i = get_image(image)?;
    let b = get_buffer(buffer)?;
    same_context(q, &i)?;
    same_context(q, &b)?;
    ensure(q.device.info().images.is_some(), CL_INVALID_OPERATION)?;
    let (o, r) = region_of(&i, origin, region)?;
    let bytes = packed_size(&i, r).ok_or(CL_INVALID_VALUE)?;
    let end = offset.checked_add(bytes).ok_or(CL_INVALID_VALUE)?;
    ensure(end <= b.size, CL_INVALID_VALUE)?;
    // An image over this very buffer shares its bytes.
    let same_memory = part(&i).buffer.as_ref().is_some_and(|p| Arc::ptr_eq(p, &b));
    ensure(!same_memory, CL_INVALID_MEM_OBJECT)?;
    let (im, bu) = (part(&i).mux.clone(), b.buffer.clone());
    action(vec![i, b], move |c| {
        if to_buffer {
            c.copy_image_to_buffer(im.clone(), o, r, bu.clone(), offset)
        } else {
            c.copy_buffer_to_image(bu.clone(), offset, im.clone(), o, r)
        }
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_copy_image(
    queue: cl_command_queue,
    src: cl_mem,
    dst: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = object::get::<Queue>(queue)?;
        let a = copy_image_action(&q, src, dst, src_origin, dst_origin, region)?;
        enqueue_action(&q, CL_COMMAND_COPY_IMAGE, num_events, event_list, event, a)
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_fill_image(
    queue: cl_command_queue,
    image: cl_mem,
    fill_color: *const c_void,
    origin: *const usize,
    region: *const usize,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = object::get::<Queue>(queue)?;
        let a = fill_image_action(&q, image, fill_color, origin, region)?;
        enqueue_action(&q, CL_COMMAND_FILL_IMAGE, num_events, event_list, event, a)
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_copy_image_to_buffer(
    queue: cl_command_queue,
    src_image: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const usize,
    region: *const usize,
    dst_offset: usize,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = object::get::<Queue>(queue)?;
        let a = image_buffer_action(
            &q, true, src_image, dst_buffer, src_origin, region, dst_offset,
        )?;
        enqueue_action(
            &q,
            CL_COMMAND_COPY_IMAGE_TO_BUFFER,
            num_events,
            event_list,
            event,
            a,
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_copy_buffer_to_image(
    queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_image: cl_mem,
    src_offset: usize,
    dst_origin: *const usize,
    region: *const usize,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    status(|| {
        let q = object::get::<Queue>(queue)?;
        let a = image_buffer_action(
            &q, false, dst_image, src_buffer, dst_origin, region, src_offset,
        )?;
        enqueue_action(
            &q,
            CL_COMMAND_COPY_BUFFER_TO_IMAGE,
            num_events,
            event_list,
            event,
            a,
        )
    })
}

#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn enqueue_map_image(
    queue: cl_command_queue,
    image: cl_mem,
    blocking: cl_bool,
    map_flags: cl_map_flags,
    origin: *const usize,
    region: *const usize,
    image_row_pitch: *mut usize,
    image_slice_pitch: *mut usize,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    entry::handle(errcode_ret, std::ptr::null_mut(), || {
        let (q, m) = lookup(queue, image)?;
        let (o, r) = region_of(&m, origin, region)?;
        ensure(!image_row_pitch.is_null(), CL_INVALID_VALUE)?;
        let p = part(&m);
        let sliced = matches!(
            p.shape.image_type,
            CL_MEM_OBJECT_IMAGE3D | CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY
        );
        ensure(!sliced || !image_slice_pitch.is_null(), CL_INVALID_VALUE)?;
        let writing = map_access(&m, map_flags)?;
        // The bytes from the region's first texel to its last.
        let layout = *p.mux.layout();
        let element = p.shape.format.element_size();
        let first = o[0] * element + o[1] * layout.row_pitch + o[2] * layout.slice_pitch;
        let last = (o[0] + r[0] - 1) * element
            + (o[1] + r[1] - 1) * layout.row_pitch
            + (o[2] + r[2] - 1) * layout.slice_pitch;
        let size = last + element - first;
        let map = (m.buffer.offset() + first, size, writing);
        let waits = (num_events, event_list, event);
        let ptr = map_memory(&q, &m, CL_COMMAND_MAP_IMAGE, map, blocking != 0, waits)?;
        let (row, slice) = p.pitches();
        *image_row_pitch = row;
        if !image_slice_pitch.is_null() {
            *image_slice_pitch = slice;
        }
        Ok(ptr)
    })
}
