//! What the host does for each transfer command: copies between memories
//! that are all the process's own. The validating layer has checked every
//! range against its object before a command gets here.

use mux::{BufferRef, Command, Direction, ImageRef, Rect};

fn buffer_ptr(b: &BufferRef, offset: usize) -> *mut u8 {
    (b.device_address() as usize + offset) as *mut u8
}

fn image_base(i: &ImageRef) -> *mut u8 {
    (i.memory().device_address() as usize + i.offset()) as *mut u8
}

/// An image region in elements as a byte rectangle of the image's memory.
fn image_rect(i: &ImageRef, origin: [usize; 3], region: [usize; 3]) -> (Rect, [usize; 3]) {
    let es = i.desc().element_size;
    let l = i.layout();
    (
        Rect {
            origin: [origin[0] * es, origin[1], origin[2]],
            row_pitch: l.row_pitch,
            slice_pitch: l.slice_pitch,
        },
        [region[0] * es, region[1], region[2]],
    )
}

/// Rows packed one after another from `offset` (a buffer beside an image).
fn packed_rect(offset: usize, region: [usize; 3]) -> Rect {
    Rect {
        origin: [offset, 0, 0],
        row_pitch: region[0],
        slice_pitch: region[0] * region[1],
    }
}

fn host_rect(row_pitch: usize, slice_pitch: usize) -> Rect {
    Rect {
        origin: [0; 3],
        row_pitch,
        slice_pitch,
    }
}

/// `(source, destination)` of a transfer between a device side and a
/// host side going `to` one of them.
fn toward<T>(to: Direction, device: T, host: T) -> (T, T) {
    match to {
        Direction::Host => (device, host),
        Direction::Device => (host, device),
    }
}

/// Copies `region` (bytes, rows, slices) row by row. `ptr::copy`: the
/// validating layer only lets boxes of one memory share bytes when they
/// are the same rows read and written in order.
unsafe fn copy_rect(src: *const u8, s: Rect, dst: *mut u8, d: Rect, region: [usize; 3]) {
    for z in 0..region[2] {
        for y in 0..region[1] {
            std::ptr::copy(src.add(s.offset(y, z)), dst.add(d.offset(y, z)), region[0]);
        }
    }
}

/// `pattern` repeated over `len` bytes at `dst`.
unsafe fn fill(dst: *mut u8, len: usize, pattern: &[u8]) {
    let out = std::slice::from_raw_parts_mut(dst, len);
    if let [byte] = pattern {
        out.fill(*byte);
    } else {
        for chunk in out.chunks_exact_mut(pattern.len()) {
            chunk.copy_from_slice(pattern);
        }
    }
}

/// Runs one transfer or query command (the queue runs the others itself).
///
/// # Safety
/// The command's host pointers must be valid for what it touches.
pub unsafe fn run(command: Command) -> mux::Result<()> {
    match command {
        Command::BufferHost {
            buffer,
            offset,
            host,
            size,
            to,
        } => {
            let (src, dst) = toward(to, buffer_ptr(&buffer, offset), host.get());
            std::ptr::copy_nonoverlapping(src, dst, size)
        }
        Command::CopyBuffer {
            src,
            src_offset,
            dst,
            dst_offset,
            size,
        } => std::ptr::copy(
            buffer_ptr(&src, src_offset),
            buffer_ptr(&dst, dst_offset),
            size,
        ),
        Command::FillBuffer {
            buffer,
            offset,
            size,
            pattern,
        } => fill(buffer_ptr(&buffer, offset), size, &pattern),
        Command::BufferHostRect {
            buffer,
            buffer_rect,
            host,
            host_rect,
            region,
            to,
        } => {
            let (src, dst) = toward(
                to,
                (buffer_ptr(&buffer, 0), buffer_rect),
                (host.get(), host_rect),
            );
            copy_rect(src.0, src.1, dst.0, dst.1, region)
        }
        Command::CopyBufferRect {
            src,
            src_rect,
            dst,
            dst_rect,
            region,
        } => copy_rect(
            buffer_ptr(&src, 0),
            src_rect,
            buffer_ptr(&dst, 0),
            dst_rect,
            region,
        ),
        Command::ImageHost {
            image,
            origin,
            region,
            host,
            row_pitch,
            slice_pitch,
            to,
        } => {
            let (r, bytes) = image_rect(&image, origin, region);
            let (src, dst) = toward(
                to,
                (image_base(&image), r),
                (host.get(), host_rect(row_pitch, slice_pitch)),
            );
            copy_rect(src.0, src.1, dst.0, dst.1, bytes)
        }
        Command::CopyImage {
            src,
            src_origin,
            dst,
            dst_origin,
            region,
        } => {
            let (s, bytes) = image_rect(&src, src_origin, region);
            let (d, _) = image_rect(&dst, dst_origin, region);
            copy_rect(image_base(&src), s, image_base(&dst), d, bytes)
        }
        Command::FillImage {
            image,
            element,
            origin,
            region,
        } => {
            let (r, bytes) = image_rect(&image, origin, region);
            for z in 0..bytes[2] {
                for y in 0..bytes[1] {
                    fill(image_base(&image).add(r.offset(y, z)), bytes[0], &element);
                }
            }
        }
        Command::ImageBuffer {
            image,
            origin,
            region,
            buffer,
            offset,
            to,
        } => {
            let (r, bytes) = image_rect(&image, origin, region);
            let packed = (buffer_ptr(&buffer, 0), packed_rect(offset, bytes));
            let (src, dst) = toward(to, (image_base(&image), r), packed);
            copy_rect(src.0, src.1, dst.0, dst.1, bytes)
        }
        Command::BeginQuery { pool, index } => pool.stamp(index, true),
        Command::EndQuery { pool, index } => pool.stamp(index, false),
        Command::ResetQueries { pool, first, count } => pool.reset(first, count),
        Command::NdRange { .. } | Command::Host(_) | Command::Notify { .. } => {
            return Err(mux::Error::Unsupported)
        }
    }
    Ok(())
}
