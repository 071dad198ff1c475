//! Command buffers: what a queue runs, recorded through methods that check
//! every command against the objects it names (the validating entry layer
//! for commands), so that a target runs only commands that fit.

use crate::error::Error;
use crate::executable::KernelRef;
use crate::image::ImageRef;
use crate::memory::{Allocation, BufferRef, HostPtr};
use crate::ndrange::NdRange;
use crate::query_pool::QueryPoolRef;
use crate::Result;
use std::sync::Arc;

/// Host work a command buffer runs in its place in the order: the API
/// layer's own bookkeeping (event statuses, callbacks).
pub type HostWork = Box<dyn FnOnce() -> Result<()> + Send>;

/// Told when a command starts and when it has ended (an event of the API
/// layer's): what would otherwise be two [`Notify`] commands around it.
pub trait Progress: Send + Sync {
    fn started(&self);
    fn ended(&self);
}

/// Something of the API layer's told when the queue reaches a point in
/// the order (an event, of the status its command reached). Host work
/// without a closure to allocate: the most frequent command of all.
pub trait Notify: Send + Sync {
    fn notify(&self, what: i32);
}

/// A box in linear memory: where it starts, in (bytes, rows, slices), and
/// the bytes from one row and one slice to the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rect {
    pub origin: [usize; 3],
    pub row_pitch: usize,
    pub slice_pitch: usize,
}

impl Rect {
    /// The byte offset of row `y` of slice `z` of a region.
    pub fn offset(&self, y: usize, z: usize) -> usize {
        (self.origin[2] + z) * self.slice_pitch
            + (self.origin[1] + y) * self.row_pitch
            + self.origin[0]
    }

    /// One past the last byte `region` (bytes, rows, slices) touches, or
    /// `None` if that is past the address space.
    pub fn end(&self, region: [usize; 3]) -> Option<usize> {
        let last =
            |o: usize, r: usize, pitch: usize| o.checked_add(r.checked_sub(1)?)?.checked_mul(pitch);
        last(self.origin[2], region[2], self.slice_pitch)?
            .checked_add(last(self.origin[1], region[1], self.row_pitch)?)?
            .checked_add(self.origin[0])?
            .checked_add(region[0])
    }
}

/// Which way a transfer between a device object and the host side goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Device to host: a read.
    Host,
    /// Host to device: a write.
    Device,
}

/// One recorded command.
pub enum Command {
    /// Runs every work-group of `range` of `kernel` with the packed
    /// arguments `args`.
    NdRange {
        kernel: KernelRef,
        args: Arc<Allocation>,
        range: NdRange,
        /// Told when the range starts and once every work-group has run.
        progress: Option<Arc<dyn Progress>>,
    },
    /// Between a buffer and host memory, either way.
    BufferHost {
        buffer: BufferRef,
        offset: usize,
        host: HostPtr,
        size: usize,
        to: Direction,
    },
    CopyBuffer {
        src: BufferRef,
        src_offset: usize,
        dst: BufferRef,
        dst_offset: usize,
        size: usize,
    },
    /// `pattern` repeated over `[offset, offset + size)`.
    FillBuffer {
        buffer: BufferRef,
        offset: usize,
        size: usize,
        pattern: Box<[u8]>,
    },
    /// `region` is in (bytes, rows, slices) for all the rectangle forms.
    BufferHostRect {
        buffer: BufferRef,
        buffer_rect: Rect,
        host: HostPtr,
        host_rect: Rect,
        region: [usize; 3],
        to: Direction,
    },
    CopyBufferRect {
        src: BufferRef,
        src_rect: Rect,
        dst: BufferRef,
        dst_rect: Rect,
        region: [usize; 3],
    },
    /// Image origins and regions are in elements (x, y, z or layer); host
    /// pitches in bytes.
    ImageHost {
        image: ImageRef,
        origin: [usize; 3],
        region: [usize; 3],
        host: HostPtr,
        row_pitch: usize,
        slice_pitch: usize,
        to: Direction,
    },
    CopyImage {
        src: ImageRef,
        src_origin: [usize; 3],
        dst: ImageRef,
        dst_origin: [usize; 3],
        region: [usize; 3],
    },
    /// `element` (one packed element) written over the region.
    FillImage {
        image: ImageRef,
        element: Box<[u8]>,
        origin: [usize; 3],
        region: [usize; 3],
    },
    /// The region's elements, row after row, to (`Direction::Host`: the
    /// buffer stands in for the host side) or from a buffer.
    ImageBuffer {
        image: ImageRef,
        origin: [usize; 3],
        region: [usize; 3],
        buffer: BufferRef,
        offset: usize,
        to: Direction,
    },
    BeginQuery {
        pool: QueryPoolRef,
        index: usize,
    },
    EndQuery {
        pool: QueryPoolRef,
        index: usize,
    },
    ResetQueries {
        pool: QueryPoolRef,
        first: usize,
        count: usize,
    },
    Host(HostWork),
    Notify {
        target: Arc<dyn Notify>,
        what: i32,
    },
}

/// Commands run in the order they were recorded. A command that fails
/// stops the buffer: the rest are skipped, and the dispatch reports the
/// failure.
#[derive(Default)]
pub struct CommandBuffer {
    commands: Vec<Command>,
}

fn check(ok: bool) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidValue)
    }
}

/// `[offset, offset + size)` lies in `buffer` and is not empty.
fn in_buffer(buffer: &BufferRef, offset: usize, size: usize) -> Result<()> {
    check(
        size > 0
            && offset
                .checked_add(size)
                .is_some_and(|end| end <= buffer.size()),
    )
}

/// Where two byte ranges of one memory meet.
fn ranges_meet(a: usize, a_len: usize, b: usize, b_len: usize) -> bool {
    a < b + b_len && b < a + a_len
}

/// The absolute byte range a buffer range covers in its memory, and the
/// memory's identity.
fn span(buffer: &BufferRef, offset: usize) -> (*const (), usize) {
    (
        Arc::as_ptr(buffer.memory()) as *const (),
        buffer.offset() + offset,
    )
}

/// A rectangle's pitches hold its rows and slices, and its end is an address.
fn rect_fits(rect: &Rect, region: [usize; 3]) -> Result<usize> {
    check(region.iter().all(|&r| r > 0))?;
    check(rect.row_pitch >= region[0])?;
    check(
        rect.slice_pitch
            >= rect
                .row_pitch
                .checked_mul(region[1])
                .ok_or(Error::InvalidValue)?,
    )?;
    rect.end(region).ok_or(Error::InvalidValue)
}

/// An image region in elements lies inside the image.
fn in_image(image: &ImageRef, origin: [usize; 3], region: [usize; 3]) -> Result<()> {
    let extent = image.desc().addressable();
    check((0..3).all(|d| {
        region[d] > 0
            && origin[d]
                .checked_add(region[d])
                .is_some_and(|e| e <= extent[d])
    }))
}

/// Bytes of an image region laid out row after row without padding.
fn packed_bytes(image: &ImageRef, region: [usize; 3]) -> Result<usize> {
    region
        .iter()
        .try_fold(image.desc().element_size, |n, &r| n.checked_mul(r))
        .ok_or(Error::InvalidValue)
}

impl CommandBuffer {
    pub fn new() -> CommandBuffer {
        CommandBuffer::default()
    }

    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    pub fn len(&self) -> usize {
        self.commands.len()
    }

    /// The commands, for the target to run.
    pub fn into_commands(self) -> Vec<Command> {
        self.commands
    }

    /// Moves `other`'s commands to the end of this one.
    pub fn append(&mut self, other: CommandBuffer) {
        self.commands.extend(other.commands);
    }

    pub fn host(&mut self, work: HostWork) {
        self.commands.push(Command::Host(work));
    }

    pub fn notify(&mut self, target: Arc<dyn Notify>, what: i32) {
        self.commands.push(Command::Notify { target, what });
    }

    pub fn nd_range(
        &mut self,
        kernel: KernelRef,
        args: Arc<Allocation>,
        range: NdRange,
    ) -> Result<()> {
        self.nd_range_with_progress(kernel, args, range, None)
    }

    /// [`nd_range`](Self::nd_range), telling `progress` when it starts and ends.
    pub fn nd_range_with_progress(
        &mut self,
        kernel: KernelRef,
        args: Arc<Allocation>,
        range: NdRange,
        progress: Option<Arc<dyn Progress>>,
    ) -> Result<()> {
        check(range.is_valid())?;
        self.commands.push(Command::NdRange {
            kernel,
            args,
            range,
            progress,
        });
        Ok(())
    }

    pub fn read_buffer(
        &mut self,
        buffer: BufferRef,
        offset: usize,
        host: HostPtr,
        size: usize,
    ) -> Result<()> {
        self.buffer_host(buffer, offset, host, size, Direction::Host)
    }

    pub fn write_buffer(
        &mut self,
        buffer: BufferRef,
        offset: usize,
        host: HostPtr,
        size: usize,
    ) -> Result<()> {
        self.buffer_host(buffer, offset, host, size, Direction::Device)
    }

    fn buffer_host(
        &mut self,
        buffer: BufferRef,
        offset: usize,
        host: HostPtr,
        size: usize,
        to: Direction,
    ) -> Result<()> {
        in_buffer(&buffer, offset, size)?;
        check(host.0 != 0)?;
        self.commands.push(Command::BufferHost {
            buffer,
            offset,
            host,
            size,
            to,
        });
        Ok(())
    }

    /// [`Error::CopyOverlap`] if the two ranges share bytes of one memory.
    pub fn copy_buffer(
        &mut self,
        src: BufferRef,
        src_offset: usize,
        dst: BufferRef,
        dst_offset: usize,
        size: usize,
    ) -> Result<()> {
        in_buffer(&src, src_offset, size)?;
        in_buffer(&dst, dst_offset, size)?;
        let (sm, s) = span(&src, src_offset);
        let (dm, d) = span(&dst, dst_offset);
        if sm == dm && ranges_meet(s, size, d, size) {
            return Err(Error::CopyOverlap);
        }
        self.commands.push(Command::CopyBuffer {
            src,
            src_offset,
            dst,
            dst_offset,
            size,
        });
        Ok(())
    }

    /// `pattern` is 1 to 128 bytes, a power of two, and divides both
    /// `offset` and `size`.
    pub fn fill_buffer(
        &mut self,
        buffer: BufferRef,
        offset: usize,
        size: usize,
        pattern: &[u8],
    ) -> Result<()> {
        let n = pattern.len();
        check(
            n.is_power_of_two() && n <= 128 && offset.is_multiple_of(n) && size.is_multiple_of(n),
        )?;
        in_buffer(&buffer, offset, size)?;
        self.commands.push(Command::FillBuffer {
            buffer,
            offset,
            size,
            pattern: pattern.into(),
        });
        Ok(())
    }

    pub fn read_buffer_rect(
        &mut self,
        buffer: BufferRef,
        buffer_rect: Rect,
        host: HostPtr,
        host_rect: Rect,
        region: [usize; 3],
    ) -> Result<()> {
        self.buffer_host_rect(
            buffer,
            buffer_rect,
            host,
            host_rect,
            region,
            Direction::Host,
        )
    }

    pub fn write_buffer_rect(
        &mut self,
        buffer: BufferRef,
        buffer_rect: Rect,
        host: HostPtr,
        host_rect: Rect,
        region: [usize; 3],
    ) -> Result<()> {
        self.buffer_host_rect(
            buffer,
            buffer_rect,
            host,
            host_rect,
            region,
            Direction::Device,
        )
    }

    fn buffer_host_rect(
        &mut self,
        buffer: BufferRef,
        buffer_rect: Rect,
        host: HostPtr,
        host_rect: Rect,
        region: [usize; 3],
        to: Direction,
    ) -> Result<()> {
        check(rect_fits(&buffer_rect, region)? <= buffer.size() && host.0 != 0)?;
        rect_fits(&host_rect, region)?;
        self.commands.push(Command::BufferHostRect {
            buffer,
            buffer_rect,
            host,
            host_rect,
            region,
            to,
        });
        Ok(())
    }

    /// Within one memory the boxes must not meet ([`Error::CopyOverlap`]).
    pub fn copy_buffer_rect(
        &mut self,
        src: BufferRef,
        src_rect: Rect,
        dst: BufferRef,
        dst_rect: Rect,
        region: [usize; 3],
    ) -> Result<()> {
        let s_end = rect_fits(&src_rect, region)?;
        let d_end = rect_fits(&dst_rect, region)?;
        check(s_end <= src.size() && d_end <= dst.size())?;
        let (sm, s) = span(&src, src_rect.offset(0, 0));
        let (dm, d) = span(&dst, dst_rect.offset(0, 0));
        let s_len = s_end - src_rect.offset(0, 0);
        let d_len = d_end - dst_rect.offset(0, 0);
        if sm == dm && ranges_meet(s, s_len, d, d_len) {
            // The spans meet. Within one buffer with one pitch the boxes
            // themselves may still be apart; any other case is refused.
            let same_layout = Arc::ptr_eq(&src, &dst)
                && src_rect.row_pitch == dst_rect.row_pitch
                && src_rect.slice_pitch == dst_rect.slice_pitch;
            let boxes_meet = (0..3)
                .all(|i| ranges_meet(src_rect.origin[i], region[i], dst_rect.origin[i], region[i]));
            if !same_layout || boxes_meet {
                return Err(Error::CopyOverlap);
            }
        }
        self.commands.push(Command::CopyBufferRect {
            src,
            src_rect,
            dst,
            dst_rect,
            region,
        });
        Ok(())
    }

    /// Host pitches of 0 mean "packed": a row of the region, a slice of rows.
    pub fn read_image(
        &mut self,
        image: ImageRef,
        origin: [usize; 3],
        region: [usize; 3],
        host: HostPtr,
        row_pitch: usize,
        slice_pitch: usize,
    ) -> Result<()> {
        self.image_host(
            image,
            origin,
            region,
            host,
            (row_pitch, slice_pitch),
            Direction::Host,
        )
    }

    pub fn write_image(
        &mut self,
        image: ImageRef,
        origin: [usize; 3],
        region: [usize; 3],
        host: HostPtr,
        row_pitch: usize,
        slice_pitch: usize,
    ) -> Result<()> {
        self.image_host(
            image,
            origin,
            region,
            host,
            (row_pitch, slice_pitch),
            Direction::Device,
        )
    }

    fn image_host(
        &mut self,
        image: ImageRef,
        origin: [usize; 3],
        region: [usize; 3],
        host: HostPtr,
        (row_pitch, slice_pitch): (usize, usize),
        to: Direction,
    ) -> Result<()> {
        let (row_pitch, slice_pitch) = host_pitches(&image, region, row_pitch, slice_pitch)?;
        in_image(&image, origin, region)?;
        check(host.0 != 0)?;
        self.commands.push(Command::ImageHost {
            image,
            origin,
            region,
            host,
            row_pitch,
            slice_pitch,
            to,
        });
        Ok(())
    }

    /// Both images have the same element size; within one image the
    /// regions must not meet ([`Error::CopyOverlap`]).
    pub fn copy_image(
        &mut self,
        src: ImageRef,
        src_origin: [usize; 3],
        dst: ImageRef,
        dst_origin: [usize; 3],
        region: [usize; 3],
    ) -> Result<()> {
        in_image(&src, src_origin, region)?;
        in_image(&dst, dst_origin, region)?;
        check(src.desc().element_size == dst.desc().element_size)?;
        if Arc::ptr_eq(&src, &dst)
            && (0..3).all(|i| ranges_meet(src_origin[i], region[i], dst_origin[i], region[i]))
        {
            return Err(Error::CopyOverlap);
        }
        self.commands.push(Command::CopyImage {
            src,
            src_origin,
            dst,
            dst_origin,
            region,
        });
        Ok(())
    }

    pub fn fill_image(
        &mut self,
        image: ImageRef,
        element: &[u8],
        origin: [usize; 3],
        region: [usize; 3],
    ) -> Result<()> {
        check(element.len() == image.desc().element_size)?;
        in_image(&image, origin, region)?;
        self.commands.push(Command::FillImage {
            image,
            element: element.into(),
            origin,
            region,
        });
        Ok(())
    }

    pub fn copy_image_to_buffer(
        &mut self,
        image: ImageRef,
        origin: [usize; 3],
        region: [usize; 3],
        buffer: BufferRef,
        offset: usize,
    ) -> Result<()> {
        self.image_buffer(image, origin, region, buffer, offset, Direction::Host)
    }

    pub fn copy_buffer_to_image(
        &mut self,
        buffer: BufferRef,
        offset: usize,
        image: ImageRef,
        origin: [usize; 3],
        region: [usize; 3],
    ) -> Result<()> {
        self.image_buffer(image, origin, region, buffer, offset, Direction::Device)
    }

    fn image_buffer(
        &mut self,
        image: ImageRef,
        origin: [usize; 3],
        region: [usize; 3],
        buffer: BufferRef,
        offset: usize,
        to: Direction,
    ) -> Result<()> {
        in_image(&image, origin, region)?;
        in_buffer(&buffer, offset, packed_bytes(&image, region)?)?;
        self.commands.push(Command::ImageBuffer {
            image,
            origin,
            region,
            buffer,
            offset,
            to,
        });
        Ok(())
    }

    pub fn begin_query(&mut self, pool: QueryPoolRef, index: usize) -> Result<()> {
        check(index < pool.count())?;
        self.commands.push(Command::BeginQuery { pool, index });
        Ok(())
    }

    pub fn end_query(&mut self, pool: QueryPoolRef, index: usize) -> Result<()> {
        check(index < pool.count())?;
        self.commands.push(Command::EndQuery { pool, index });
        Ok(())
    }

    pub fn reset_queries(&mut self, pool: QueryPoolRef, first: usize, count: usize) -> Result<()> {
        check(
            first
                .checked_add(count)
                .is_some_and(|end| end <= pool.count()),
        )?;
        self.commands
            .push(Command::ResetQueries { pool, first, count });
        Ok(())
    }
}

/// The host side's pitches, 0 meaning packed; each must hold what it spans.
fn host_pitches(
    image: &ImageRef,
    region: [usize; 3],
    row: usize,
    slice: usize,
) -> Result<(usize, usize)> {
    let row_bytes = region[0]
        .checked_mul(image.desc().element_size)
        .ok_or(Error::InvalidValue)?;
    let row = if row == 0 { row_bytes } else { row };
    let slice_bytes = row.checked_mul(region[1]).ok_or(Error::InvalidValue)?;
    let slice = if slice == 0 { slice_bytes } else { slice };
    check(row >= row_bytes && slice >= slice_bytes)?;
    Ok((row, slice))
}
