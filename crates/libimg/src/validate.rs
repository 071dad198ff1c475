//! The spec's checks of an image's format, descriptor and regions, with
//! its error codes: the API layer validates with these before it creates
//! or copies anything.

use crate::format::Format;
use opencl_sys::*;

/// The device's image limits, in texels unless said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// `CL_DEVICE_IMAGE2D_MAX_WIDTH`, `_HEIGHT`.
    pub image2d_max: [usize; 2],
    /// `CL_DEVICE_IMAGE3D_MAX_WIDTH`, `_HEIGHT`, `_DEPTH`.
    pub image3d_max: [usize; 3],
    /// `CL_DEVICE_IMAGE_MAX_BUFFER_SIZE`.
    pub max_buffer_size: usize,
    /// `CL_DEVICE_IMAGE_MAX_ARRAY_SIZE`.
    pub max_array_size: usize,
    /// `CL_DEVICE_IMAGE_PITCH_ALIGNMENT`.
    pub pitch_alignment: usize,
    /// `CL_DEVICE_IMAGE_BASE_ADDRESS_ALIGNMENT`.
    pub base_address_alignment: usize,
    /// `CL_DEVICE_MAX_MEM_ALLOC_SIZE`, bytes.
    pub max_mem_alloc: u64,
}

/// An image as validated: its type, format, extent (1 where the type has
/// no such dimension) and the pitches of the bytes it is made from (the
/// host pointer's or buffer's when given, else packed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub image_type: cl_mem_object_type,
    pub format: Format,
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub array_size: usize,
    /// Bytes from one row to the next.
    pub row_pitch: usize,
    /// Bytes from one slice (3D) or layer (arrays) to the next; for a 1D or
    /// 2D image, the size of the image.
    pub slice_pitch: usize,
}

impl Shape {
    /// Bytes the image spans with its pitches: what a host pointer given at
    /// its creation must hold (the spec's table of `host_ptr` sizes).
    pub fn size(&self) -> usize {
        match self.image_type {
            CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER => self.row_pitch,
            CL_MEM_OBJECT_IMAGE2D => self.row_pitch.saturating_mul(self.height),
            CL_MEM_OBJECT_IMAGE3D => self.slice_pitch.saturating_mul(self.depth),
            CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY => {
                self.slice_pitch.saturating_mul(self.array_size)
            }
            _ => 0,
        }
    }

    /// The extent regions and origins address: (width, layers, 1) for a 1D
    /// array, (width, height, layers) for a 2D array, and so on.
    pub fn addressable(&self) -> [usize; 3] {
        match self.image_type {
            CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER => [self.width, 1, 1],
            CL_MEM_OBJECT_IMAGE1D_ARRAY => [self.width, self.array_size, 1],
            CL_MEM_OBJECT_IMAGE2D => [self.width, self.height, 1],
            CL_MEM_OBJECT_IMAGE2D_ARRAY => [self.width, self.height, self.array_size],
            CL_MEM_OBJECT_IMAGE3D => [self.width, self.height, self.depth],
            _ => [0, 0, 0],
        }
    }
}

/// What `cl_image_desc::mem_object` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parent {
    None,
    /// A buffer of `size` bytes at `address` (1D image buffers, and 2D
    /// images from a buffer, `cl_khr_image2d_from_buffer`).
    Buffer {
        size: usize,
        address: usize,
    },
}

/// `clCreateImage`'s format: `CL_INVALID_IMAGE_FORMAT_DESCRIPTOR` if it is
/// missing or not a valid combination.
pub fn check_format(format: Option<&cl_image_format>) -> Result<Format, cl_int> {
    let format = Format::from_cl(format.ok_or(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)?);
    if format.is_valid() {
        Ok(format)
    } else {
        Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    }
}

/// `clCreateImage`'s descriptor, for a format already checked: the shape,
/// or `CL_INVALID_IMAGE_DESCRIPTOR`, `CL_INVALID_IMAGE_SIZE`,
/// `CL_INVALID_IMAGE_FORMAT_DESCRIPTOR` (a 2D image from a buffer whose
/// pitch or address is misaligned) or `CL_INVALID_HOST_PTR` as the spec
/// says. `host_ptr` says whether one was given; the pitches it has are in
/// the descriptor.
///
/// `parent` is what the caller found `desc.buffer` to be. A non-null
/// `desc.buffer` with [`Parent::None`] is a memory object that is not a
/// buffer: refused for every type but 2D, where it is the image a view is
/// made of, whose descriptor the caller compares with this one. A host
/// pointer beside a buffer is `CL_INVALID_HOST_PTR` (the flags that would
/// allow one are refused for images from buffers).
pub fn check_desc(
    desc: Option<&cl_image_desc>,
    format: Format,
    host_ptr: bool,
    parent: Parent,
    limits: &Limits,
) -> Result<Shape, cl_int> {
    if !format.is_valid() {
        return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
    let desc = desc.ok_or(CL_INVALID_IMAGE_DESCRIPTOR)?;
    let image_type = desc.image_type;
    // Which of height, depth and layers the type has; the others are
    // ignored, whatever the descriptor holds there.
    let (has_height, has_depth, has_layers) = match image_type {
        CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_BUFFER => (false, false, false),
        CL_MEM_OBJECT_IMAGE1D_ARRAY => (false, false, true),
        CL_MEM_OBJECT_IMAGE2D => (true, false, false),
        CL_MEM_OBJECT_IMAGE2D_ARRAY => (true, false, true),
        CL_MEM_OBJECT_IMAGE3D => (true, true, false),
        _ => return Err(CL_INVALID_IMAGE_DESCRIPTOR),
    };
    if desc.num_mip_levels != 0 || desc.num_samples != 0 {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }

    let buffer = match parent {
        Parent::Buffer { size, address } => Some((size, address)),
        Parent::None => None,
    };
    let has_mem_object = buffer.is_some() || !desc.buffer.is_null();
    match image_type {
        CL_MEM_OBJECT_IMAGE1D_BUFFER if buffer.is_none() => {
            return Err(CL_INVALID_IMAGE_DESCRIPTOR)
        }
        CL_MEM_OBJECT_IMAGE1D_BUFFER | CL_MEM_OBJECT_IMAGE2D => {}
        _ if has_mem_object => return Err(CL_INVALID_IMAGE_DESCRIPTOR),
        _ => {}
    }
    if host_ptr && buffer.is_some() {
        return Err(CL_INVALID_HOST_PTR);
    }

    let width = desc.image_width;
    let height = if has_height { desc.image_height } else { 1 };
    let depth = if has_depth { desc.image_depth } else { 1 };
    let array_size = if has_layers { desc.image_array_size } else { 1 };
    // A zero size is an invalid descriptor value, as the CTS expects;
    // only sizes past the device's limits are invalid image sizes.
    if width == 0 || height == 0 || depth == 0 || array_size == 0 {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    let max = match image_type {
        CL_MEM_OBJECT_IMAGE1D_BUFFER => [limits.max_buffer_size, 1, 1],
        CL_MEM_OBJECT_IMAGE1D | CL_MEM_OBJECT_IMAGE1D_ARRAY => [limits.image2d_max[0], 1, 1],
        CL_MEM_OBJECT_IMAGE3D => limits.image3d_max,
        _ => [limits.image2d_max[0], limits.image2d_max[1], 1],
    };
    let max_layers = if has_layers { limits.max_array_size } else { 1 };
    if width > max[0] || height > max[1] || depth > max[2] || array_size > max_layers {
        return Err(CL_INVALID_IMAGE_SIZE);
    }

    // Pitches are the host pointer's, or a buffer's. The spec allows a row
    // pitch without a host pointer only for a 2D image from a buffer; the
    // CTS also gives a 1D image buffer one (kernel_image_methods, and
    // clFillImage and clCopyImage with use_pitches), so any image made
    // from a memory object may have one.
    if desc.image_row_pitch != 0 && !host_ptr && !has_mem_object {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    if desc.image_slice_pitch != 0 && !host_ptr {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    let element_size = format.element_size();
    let packed_row = width
        .checked_mul(element_size)
        .ok_or(CL_INVALID_IMAGE_SIZE)?;
    let row_pitch = match desc.image_row_pitch {
        0 => packed_row,
        given => given,
    };
    if let (CL_MEM_OBJECT_IMAGE2D, Some((_, address))) = (image_type, buffer) {
        // The spec's code for a misaligned 2D image from a buffer. The CTS
        // expects it also for a pitch that is not even a multiple of the
        // element size (pitch + 1), so alignment is checked first.
        let pitch_alignment = limits.pitch_alignment.max(1).saturating_mul(element_size);
        // A 3-byte texel (sRGB) is aligned as a 4-byte one, as the CTS
        // aligns its buffers: to the texel size rounded up to a power of 2.
        let base_alignment = limits
            .base_address_alignment
            .max(1)
            .saturating_mul(element_size.next_power_of_two());
        if row_pitch % pitch_alignment != 0 || address % base_alignment != 0 {
            return Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
        }
    }
    if row_pitch < packed_row || row_pitch % element_size != 0 {
        return Err(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    // A 1D image buffer is one row of its buffer, however long its pitch.
    let row_pitch = if image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER {
        packed_row
    } else {
        row_pitch
    };

    let packed_slice = row_pitch.checked_mul(height).ok_or(CL_INVALID_IMAGE_SIZE)?;
    let slice_pitch = match image_type {
        // Only these have slices: a slice pitch given with a 1D or 2D
        // image is ignored.
        CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D => {
            let slice_pitch = match desc.image_slice_pitch {
                0 => packed_slice,
                given => given,
            };
            if slice_pitch < packed_slice || slice_pitch % row_pitch != 0 {
                return Err(CL_INVALID_IMAGE_DESCRIPTOR);
            }
            slice_pitch
        }
        _ => packed_slice,
    };
    let size = slice_pitch
        .checked_mul(depth * array_size)
        .ok_or(CL_INVALID_IMAGE_SIZE)?;
    if size as u64 > limits.max_mem_alloc {
        return Err(CL_INVALID_IMAGE_SIZE);
    }
    if let Some((buffer_size, _)) = buffer {
        if size > buffer_size {
            return Err(CL_INVALID_IMAGE_SIZE);
        }
    }
    Ok(Shape {
        image_type,
        format,
        width,
        height,
        depth,
        array_size,
        row_pitch,
        slice_pitch,
    })
}

/// An origin and region of an image command: `CL_INVALID_VALUE` if the
/// region is empty, reaches outside the image, or is not 1 (the origin 0)
/// in a dimension the type lacks.
pub fn check_region(shape: &Shape, origin: [usize; 3], region: [usize; 3]) -> Result<(), cl_int> {
    // A dimension the type lacks has an extent of 1, which only origin 0
    // and region 1 fit.
    let extent = shape.addressable();
    for i in 0..3 {
        if region[i] == 0 || origin[i] > extent[i] || region[i] > extent[i] - origin[i] {
            return Err(CL_INVALID_VALUE);
        }
    }
    Ok(())
}

/// The host memory's pitches of a read, write or map of `region`: 0 means
/// packed; others must hold a row (slice) of the region, else
/// `CL_INVALID_VALUE`. A slice pitch must be 0 for 1D and 2D images.
/// Also `CL_INVALID_VALUE` if the region's bytes with those pitches would
/// run past the end of the address space.
pub fn host_pitches(
    shape: &Shape,
    region: [usize; 3],
    row_pitch: usize,
    slice_pitch: usize,
) -> Result<(usize, usize), cl_int> {
    let row = region[0]
        .checked_mul(shape.format.element_size())
        .ok_or(CL_INVALID_VALUE)?;
    let row_pitch = match row_pitch {
        0 => row,
        given if given < row => return Err(CL_INVALID_VALUE),
        given => given,
    };
    // Rows per slice and slices of the region: a 1D array's slices are
    // its layers, one row each.
    let (rows, slices) = match shape.image_type {
        CL_MEM_OBJECT_IMAGE2D => (region[1], 1),
        CL_MEM_OBJECT_IMAGE1D_ARRAY => (1, region[1]),
        CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D => (region[1], region[2]),
        _ => (1, 1),
    };
    let packed_slice = row_pitch.checked_mul(rows).ok_or(CL_INVALID_VALUE)?;
    let slice_pitch = match shape.image_type {
        CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY | CL_MEM_OBJECT_IMAGE3D => {
            match slice_pitch {
                0 => packed_slice,
                given if given < packed_slice => return Err(CL_INVALID_VALUE),
                given => given,
            }
        }
        _ if slice_pitch != 0 => return Err(CL_INVALID_VALUE),
        _ => packed_slice,
    };
    // The last byte: whole slices, whole rows of the last slice, one row.
    let span = slice_pitch
        .checked_mul(slices.saturating_sub(1))
        .and_then(|s| s.checked_add(row_pitch.checked_mul(rows.saturating_sub(1))?))
        .and_then(|s| s.checked_add(row))
        .filter(|&s| s <= isize::MAX as usize);
    if span.is_none() {
        return Err(CL_INVALID_VALUE);
    }
    Ok((row_pitch, slice_pitch))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr;

    const LIMITS: Limits = Limits {
        image2d_max: [1024, 512],
        image3d_max: [256, 128, 64],
        max_buffer_size: 4096,
        max_array_size: 32,
        pitch_alignment: 4,
        base_address_alignment: 2,
        max_mem_alloc: 1 << 30,
    };
    const RGBA8: Format = Format {
        order: CL_RGBA,
        data_type: CL_UNORM_INT8,
    };
    const R16: Format = Format {
        order: CL_R,
        data_type: CL_UNSIGNED_INT16,
    };

    fn desc(image_type: cl_mem_object_type, size: [usize; 4]) -> cl_image_desc {
        cl_image_desc {
            image_type,
            image_width: size[0],
            image_height: size[1],
            image_depth: size[2],
            image_array_size: size[3],
            image_row_pitch: 0,
            image_slice_pitch: 0,
            num_mip_levels: 0,
            num_samples: 0,
            buffer: ptr::null_mut(),
        }
    }

    fn pitched(mut d: cl_image_desc, row: usize, slice: usize) -> cl_image_desc {
        d.image_row_pitch = row;
        d.image_slice_pitch = slice;
        d
    }

    fn check(d: &cl_image_desc, host_ptr: bool) -> Result<Shape, cl_int> {
        check_desc(Some(d), RGBA8, host_ptr, Parent::None, &LIMITS)
    }

    fn from_buffer(d: &cl_image_desc, size: usize, address: usize) -> Result<Shape, cl_int> {
        check_desc(
            Some(d),
            RGBA8,
            false,
            Parent::Buffer { size, address },
            &LIMITS,
        )
    }

    /// A non-null `cl_mem` the caller found not to be a buffer.
    fn not_a_buffer(mut d: cl_image_desc) -> cl_image_desc {
        d.buffer = 0x1000 as cl_mem;
        d
    }

    #[test]
    fn format_must_be_given_and_valid() {
        let cl = |order, data_type| cl_image_format {
            image_channel_order: order,
            image_channel_data_type: data_type,
        };
        assert_eq!(check_format(None), Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR));
        let invalid = cl(CL_INTENSITY, CL_UNORM_SHORT_555);
        assert_eq!(
            check_format(Some(&invalid)),
            Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        );
        let unknown = cl(0x1234, CL_FLOAT);
        assert_eq!(
            check_format(Some(&unknown)),
            Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        );
        assert_eq!(check_format(Some(&cl(CL_RGBA, CL_UNORM_INT8))), Ok(RGBA8));
        // Valid though not offered: that is CL_IMAGE_FORMAT_NOT_SUPPORTED,
        // the caller's to say.
        let rgbx = cl(CL_RGBx, CL_UNORM_SHORT_565);
        assert!(check_format(Some(&rgbx)).is_ok());
    }

    #[test]
    fn descriptor_must_be_given_with_an_image_type() {
        let d = desc(CL_MEM_OBJECT_IMAGE2D, [4, 4, 1, 1]);
        assert_eq!(
            check_desc(None, RGBA8, false, Parent::None, &LIMITS),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        for image_type in [CL_MEM_OBJECT_BUFFER, CL_MEM_OBJECT_PIPE, 0, 0x10F8] {
            let d = cl_image_desc { image_type, ..d };
            assert_eq!(check(&d, false), Err(CL_INVALID_IMAGE_DESCRIPTOR));
        }
        // An unchecked invalid format is refused rather than divided by.
        let bad = Format {
            order: CL_RGB,
            data_type: CL_FLOAT,
        };
        assert_eq!(
            check_desc(Some(&d), bad, false, Parent::None, &LIMITS),
            Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        );
    }

    #[test]
    fn mip_levels_and_samples_must_be_zero() {
        let mut d = desc(CL_MEM_OBJECT_IMAGE2D, [4, 4, 1, 1]);
        d.num_mip_levels = 1;
        assert_eq!(check(&d, false), Err(CL_INVALID_IMAGE_DESCRIPTOR));
        d.num_mip_levels = 0;
        d.num_samples = 4;
        assert_eq!(check(&d, false), Err(CL_INVALID_IMAGE_DESCRIPTOR));
    }

    #[test]
    fn zero_sizes_are_invalid_where_the_type_has_them() {
        let cases = [
            (CL_MEM_OBJECT_IMAGE1D, [0, 1, 1, 1]),
            (CL_MEM_OBJECT_IMAGE1D_ARRAY, [4, 1, 1, 0]),
            (CL_MEM_OBJECT_IMAGE1D_ARRAY, [0, 1, 1, 4]),
            (CL_MEM_OBJECT_IMAGE2D, [4, 0, 1, 1]),
            (CL_MEM_OBJECT_IMAGE2D_ARRAY, [4, 4, 1, 0]),
            (CL_MEM_OBJECT_IMAGE2D_ARRAY, [4, 0, 1, 4]),
            (CL_MEM_OBJECT_IMAGE3D, [4, 4, 0, 1]),
            (CL_MEM_OBJECT_IMAGE3D, [4, 0, 4, 1]),
        ];
        for (image_type, size) in cases {
            assert_eq!(
                check(&desc(image_type, size), false),
                Err(CL_INVALID_IMAGE_DESCRIPTOR),
                "{image_type:#x} {size:?}"
            );
        }
        let d = desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, [0, 1, 1, 1]);
        assert_eq!(from_buffer(&d, 64, 0), Err(CL_INVALID_IMAGE_DESCRIPTOR));
        // Fields the type does not have are ignored, zero or not (the CTS
        // leaves a 2D image's depth and array size 0).
        let shape = check(&desc(CL_MEM_OBJECT_IMAGE2D, [4, 4, 0, 0]), false).unwrap();
        assert_eq!((shape.depth, shape.array_size), (1, 1));
        let shape = check(&desc(CL_MEM_OBJECT_IMAGE1D, [4, 0, 9, 0]), false).unwrap();
        assert_eq!((shape.height, shape.depth, shape.array_size), (1, 1, 1));
        let shape = check(&desc(CL_MEM_OBJECT_IMAGE1D_ARRAY, [4, 0, 0, 3]), false).unwrap();
        assert_eq!((shape.height, shape.array_size), (1, 3));
    }

    #[test]
    fn sizes_over_the_limits_are_invalid_image_sizes() {
        let over = [
            (CL_MEM_OBJECT_IMAGE1D, [1025, 1, 1, 1]),
            (CL_MEM_OBJECT_IMAGE1D_ARRAY, [1025, 1, 1, 1]),
            (CL_MEM_OBJECT_IMAGE1D_ARRAY, [4, 1, 1, 33]),
            (CL_MEM_OBJECT_IMAGE2D, [1025, 4, 1, 1]),
            (CL_MEM_OBJECT_IMAGE2D, [4, 513, 1, 1]),
            (CL_MEM_OBJECT_IMAGE2D_ARRAY, [4, 513, 1, 2]),
            (CL_MEM_OBJECT_IMAGE2D_ARRAY, [4, 4, 1, 33]),
            (CL_MEM_OBJECT_IMAGE3D, [257, 4, 4, 1]),
            (CL_MEM_OBJECT_IMAGE3D, [4, 129, 4, 1]),
            (CL_MEM_OBJECT_IMAGE3D, [4, 4, 65, 1]),
        ];
        for (image_type, size) in over {
            assert_eq!(
                check(&desc(image_type, size), false),
                Err(CL_INVALID_IMAGE_SIZE),
                "{image_type:#x} {size:?}"
            );
        }
        let at_limits = [
            (CL_MEM_OBJECT_IMAGE1D, [1024, 1, 1, 1]),
            (CL_MEM_OBJECT_IMAGE1D_ARRAY, [1024, 1, 1, 32]),
            (CL_MEM_OBJECT_IMAGE2D, [1024, 512, 1, 1]),
            (CL_MEM_OBJECT_IMAGE2D_ARRAY, [1024, 512, 1, 32]),
            (CL_MEM_OBJECT_IMAGE3D, [256, 128, 64, 1]),
        ];
        for (image_type, size) in at_limits {
            assert!(
                check(&desc(image_type, size), false).is_ok(),
                "{image_type:#x}"
            );
        }
    }

    #[test]
    fn an_image_over_the_largest_allocation_is_an_invalid_size() {
        let limits = Limits {
            max_mem_alloc: 4 * 16 * 16 - 1,
            ..LIMITS
        };
        let d = desc(CL_MEM_OBJECT_IMAGE2D, [16, 16, 1, 1]);
        let check =
            |d: &cl_image_desc, limits| check_desc(Some(d), RGBA8, true, Parent::None, limits);
        assert_eq!(check(&d, &limits), Err(CL_INVALID_IMAGE_SIZE));
        let fits = Limits {
            max_mem_alloc: 4 * 16 * 16,
            ..LIMITS
        };
        assert!(check(&d, &fits).is_ok());
        // The host pointer's pitches count.
        assert_eq!(
            check(&pitched(d, 128, 0), &fits),
            Err(CL_INVALID_IMAGE_SIZE)
        );
        // Sizes whose bytes overflow.
        let huge = Limits {
            image2d_max: [usize::MAX, usize::MAX],
            image3d_max: [usize::MAX; 3],
            max_array_size: usize::MAX,
            max_mem_alloc: u64::MAX,
            ..LIMITS
        };
        let wide = desc(CL_MEM_OBJECT_IMAGE1D, [usize::MAX / 2, 1, 1, 1]);
        assert_eq!(check(&wide, &huge), Err(CL_INVALID_IMAGE_SIZE));
        let tall = desc(CL_MEM_OBJECT_IMAGE2D, [1 << 20, usize::MAX / 2, 1, 1]);
        assert_eq!(check(&tall, &huge), Err(CL_INVALID_IMAGE_SIZE));
        let deep = desc(CL_MEM_OBJECT_IMAGE3D, [1 << 20, 1 << 20, usize::MAX / 2, 1]);
        assert_eq!(check(&deep, &huge), Err(CL_INVALID_IMAGE_SIZE));
        let layered = desc(
            CL_MEM_OBJECT_IMAGE2D_ARRAY,
            [1 << 20, 1 << 20, 1, usize::MAX / 2],
        );
        assert_eq!(check(&layered, &huge), Err(CL_INVALID_IMAGE_SIZE));
    }

    #[test]
    fn pitches_need_a_host_pointer() {
        let d = desc(CL_MEM_OBJECT_IMAGE2D, [4, 4, 1, 1]);
        assert_eq!(
            check(&pitched(d, 16, 0), false),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        assert_eq!(
            check(&pitched(d, 0, 64), false),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        let d3 = desc(CL_MEM_OBJECT_IMAGE3D, [4, 4, 4, 1]);
        assert_eq!(
            check(&pitched(d3, 0, 64), false),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        assert!(check(&pitched(d3, 16, 64), true).is_ok());
    }

    #[test]
    fn pitches_must_hold_a_row_and_a_slice_in_whole_elements() {
        let d = desc(CL_MEM_OBJECT_IMAGE2D, [4, 4, 1, 1]);
        assert_eq!(
            check(&pitched(d, 12, 0), true),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        assert_eq!(
            check(&pitched(d, 18, 0), true),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        assert!(check(&pitched(d, 20, 0), true).is_ok());
        let d3 = desc(CL_MEM_OBJECT_IMAGE3D, [4, 4, 2, 1]);
        assert_eq!(
            check(&pitched(d3, 20, 60), true),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        assert_eq!(
            check(&pitched(d3, 20, 90), true),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        assert_eq!(
            check(&pitched(d3, 0, 66), true),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        assert!(check(&pitched(d3, 20, 100), true).is_ok());
        let a2 = desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, [4, 4, 1, 3]);
        assert_eq!(
            check(&pitched(a2, 16, 48), true),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        let a1 = desc(CL_MEM_OBJECT_IMAGE1D_ARRAY, [4, 1, 1, 3]);
        assert_eq!(
            check(&pitched(a1, 32, 16), true),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        assert_eq!(
            check(&pitched(a1, 32, 48), true),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        assert!(check(&pitched(a1, 32, 64), true).is_ok());
        // A 16-bit format's pitch is in whole texels of 2 bytes.
        let r = desc(CL_MEM_OBJECT_IMAGE1D, [5, 1, 1, 1]);
        let check_r16 = |d: &cl_image_desc| check_desc(Some(d), R16, true, Parent::None, &LIMITS);
        assert_eq!(
            check_r16(&pitched(r, 11, 0)),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        assert_eq!(check_r16(&pitched(r, 12, 0)).unwrap().row_pitch, 12);
    }

    #[test]
    fn shapes_take_the_given_or_packed_pitches() {
        let shape = check(
            &pitched(desc(CL_MEM_OBJECT_IMAGE2D, [4, 3, 1, 1]), 20, 0),
            true,
        )
        .unwrap();
        assert_eq!(
            (shape.row_pitch, shape.slice_pitch, shape.size()),
            (20, 60, 60)
        );
        assert_eq!(shape.addressable(), [4, 3, 1]);
        // A slice pitch given with a 2D image is ignored.
        let shape = check(
            &pitched(desc(CL_MEM_OBJECT_IMAGE2D, [4, 3, 1, 1]), 0, 999),
            true,
        )
        .unwrap();
        assert_eq!((shape.row_pitch, shape.slice_pitch), (16, 48));
        let shape = check(&desc(CL_MEM_OBJECT_IMAGE3D, [4, 3, 2, 1]), false).unwrap();
        assert_eq!(
            (shape.row_pitch, shape.slice_pitch, shape.size()),
            (16, 48, 96)
        );
        assert_eq!(shape.addressable(), [4, 3, 2]);
        let shape = check(
            &pitched(desc(CL_MEM_OBJECT_IMAGE3D, [4, 3, 2, 1]), 0, 64),
            true,
        )
        .unwrap();
        assert_eq!(
            (shape.row_pitch, shape.slice_pitch, shape.size()),
            (16, 64, 128)
        );
        let shape = check(&desc(CL_MEM_OBJECT_IMAGE1D_ARRAY, [4, 1, 1, 5]), false).unwrap();
        assert_eq!(
            (shape.row_pitch, shape.slice_pitch, shape.size()),
            (16, 16, 80)
        );
        assert_eq!(shape.addressable(), [4, 5, 1]);
        let shape = check(
            &pitched(desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, [4, 3, 1, 2]), 32, 128),
            true,
        )
        .unwrap();
        assert_eq!(
            (shape.row_pitch, shape.slice_pitch, shape.size()),
            (32, 128, 256)
        );
        assert_eq!(shape.addressable(), [4, 3, 2]);
        let shape = check(
            &pitched(desc(CL_MEM_OBJECT_IMAGE1D, [4, 1, 1, 1]), 24, 0),
            true,
        )
        .unwrap();
        assert_eq!(
            (shape.row_pitch, shape.slice_pitch, shape.size()),
            (24, 24, 24)
        );
        assert_eq!(shape.addressable(), [4, 1, 1]);
    }

    #[test]
    fn only_1d_buffers_and_2d_images_are_made_from_memory_objects() {
        let buffer = Parent::Buffer {
            size: 1 << 20,
            address: 0,
        };
        for image_type in [
            CL_MEM_OBJECT_IMAGE1D,
            CL_MEM_OBJECT_IMAGE1D_ARRAY,
            CL_MEM_OBJECT_IMAGE2D_ARRAY,
            CL_MEM_OBJECT_IMAGE3D,
        ] {
            let d = desc(image_type, [4, 4, 4, 4]);
            let result = check_desc(Some(&d), RGBA8, false, buffer, &LIMITS);
            assert_eq!(result, Err(CL_INVALID_IMAGE_DESCRIPTOR), "{image_type:#x}");
            assert_eq!(
                check(&not_a_buffer(d), false),
                Err(CL_INVALID_IMAGE_DESCRIPTOR)
            );
        }
        let d = desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, [4, 1, 1, 1]);
        assert_eq!(check(&d, false), Err(CL_INVALID_IMAGE_DESCRIPTOR));
        assert_eq!(
            check(&not_a_buffer(d), false),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        assert!(from_buffer(&d, 16, 0).is_ok());
        // A 2D view of another image: its descriptor is the caller's to
        // compare, pitch included.
        let view = not_a_buffer(pitched(desc(CL_MEM_OBJECT_IMAGE2D, [4, 4, 1, 1]), 32, 0));
        assert_eq!(check(&view, false).unwrap().row_pitch, 32);
    }

    #[test]
    fn a_host_pointer_beside_a_buffer_is_invalid() {
        let d = desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, [4, 1, 1, 1]);
        let buffer = Parent::Buffer {
            size: 64,
            address: 0,
        };
        assert_eq!(
            check_desc(Some(&d), RGBA8, true, buffer, &LIMITS),
            Err(CL_INVALID_HOST_PTR)
        );
    }

    #[test]
    fn a_1d_image_buffer_fits_its_buffer_and_the_buffer_limit() {
        let d = desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, [16, 0, 0, 0]);
        assert!(from_buffer(&d, 64, 8).is_ok());
        assert_eq!(from_buffer(&d, 63, 8), Err(CL_INVALID_IMAGE_SIZE));
        let wide = desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, [4097, 1, 1, 1]);
        assert_eq!(from_buffer(&wide, 1 << 20, 0), Err(CL_INVALID_IMAGE_SIZE));
        // Its width is limited by the buffer size limit, not the 2D width.
        let d = desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, [4096, 1, 1, 1]);
        assert_eq!(
            from_buffer(&d, 1 << 20, 0).unwrap().addressable(),
            [4096, 1, 1]
        );
        // The CTS passes the buffer's pitch without a host pointer; the
        // image is one row all the same.
        let d = pitched(desc(CL_MEM_OBJECT_IMAGE1D_BUFFER, [16, 1, 1, 1]), 80, 0);
        let shape = from_buffer(&d, 80, 0).unwrap();
        assert_eq!(
            (shape.row_pitch, shape.slice_pitch, shape.size()),
            (64, 64, 64)
        );
        assert_eq!(
            from_buffer(&pitched(d, 66, 0), 80, 0),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        assert_eq!(
            from_buffer(&pitched(d, 32, 0), 80, 0),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        assert_eq!(
            from_buffer(&pitched(d, 0, 64), 80, 0),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
    }

    #[test]
    fn a_3_byte_texel_from_a_buffer_is_aligned_as_a_4_byte_one() {
        let srgb = Format {
            order: CL_sRGB,
            data_type: CL_UNORM_INT8,
        };
        let limits = Limits {
            pitch_alignment: 1,
            base_address_alignment: 1,
            ..LIMITS
        };
        let d = desc(CL_MEM_OBJECT_IMAGE2D, [5, 3, 0, 0]);
        let at = |address| {
            let parent = Parent::Buffer { size: 64, address };
            check_desc(Some(&d), srgb, false, parent, &limits)
        };
        assert_eq!(at(8).map(|s| s.row_pitch), Ok(15));
        assert_eq!(at(6), Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR));
    }

    #[test]
    fn a_2d_image_from_a_buffer_is_aligned_and_fits_it() {
        // Pitch alignment 4 texels of 4 bytes, base address 2 texels.
        let d = pitched(desc(CL_MEM_OBJECT_IMAGE2D, [5, 3, 0, 0]), 32, 0);
        let shape = from_buffer(&d, 96, 8).unwrap();
        assert_eq!(
            (shape.row_pitch, shape.slice_pitch, shape.size()),
            (32, 96, 96)
        );
        assert_eq!(from_buffer(&d, 95, 8), Err(CL_INVALID_IMAGE_SIZE));
        assert_eq!(
            from_buffer(&d, 96, 4),
            Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        );
        assert_eq!(
            from_buffer(&d, 96, 9),
            Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        );
        assert_eq!(
            from_buffer(&pitched(d, 24, 0), 96, 8),
            Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        );
        // The CTS's wrong pitch, one byte more than a right one.
        assert_eq!(
            from_buffer(&pitched(d, 33, 0), 200, 8),
            Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        );
        // Aligned but shorter than a row.
        let narrow = pitched(desc(CL_MEM_OBJECT_IMAGE2D, [20, 3, 0, 0]), 64, 0);
        assert_eq!(
            from_buffer(&narrow, 1 << 10, 0),
            Err(CL_INVALID_IMAGE_DESCRIPTOR)
        );
        // A packed pitch must be aligned too.
        let packed = desc(CL_MEM_OBJECT_IMAGE2D, [5, 3, 0, 0]);
        assert_eq!(
            from_buffer(&packed, 1 << 10, 0),
            Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        );
        let packed = desc(CL_MEM_OBJECT_IMAGE2D, [8, 3, 0, 0]);
        assert_eq!(from_buffer(&packed, 96, 0).unwrap().row_pitch, 32);
        // Alignments of 0 (no requirement) are taken as 1.
        let none = Limits {
            pitch_alignment: 0,
            base_address_alignment: 0,
            ..LIMITS
        };
        let buffer = Parent::Buffer {
            size: 96,
            address: 4,
        };
        assert!(check_desc(Some(&packed), RGBA8, false, buffer, &none).is_ok());
    }

    fn shape(image_type: cl_mem_object_type, size: [usize; 4]) -> Shape {
        check(&desc(image_type, size), false).unwrap()
    }

    #[test]
    fn regions_stay_inside_the_image() {
        let s2 = shape(CL_MEM_OBJECT_IMAGE2D, [8, 4, 1, 1]);
        assert_eq!(check_region(&s2, [0, 0, 0], [8, 4, 1]), Ok(()));
        assert_eq!(check_region(&s2, [7, 3, 0], [1, 1, 1]), Ok(()));
        assert_eq!(
            check_region(&s2, [0, 0, 0], [0, 4, 1]),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            check_region(&s2, [1, 0, 0], [8, 4, 1]),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            check_region(&s2, [0, 4, 0], [1, 1, 1]),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            check_region(&s2, [usize::MAX, 0, 0], [2, 1, 1]),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            check_region(&s2, [2, 0, 0], [usize::MAX, 1, 1]),
            Err(CL_INVALID_VALUE)
        );
        let s3 = shape(CL_MEM_OBJECT_IMAGE3D, [8, 4, 2, 1]);
        assert_eq!(check_region(&s3, [0, 0, 1], [8, 4, 1]), Ok(()));
        assert_eq!(
            check_region(&s3, [0, 0, 1], [8, 4, 2]),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            check_region(&s3, [0, 0, 0], [8, 4, 0]),
            Err(CL_INVALID_VALUE)
        );
    }

    #[test]
    fn dimensions_the_type_lacks_take_origin_0_and_region_1() {
        for image_type in [CL_MEM_OBJECT_IMAGE1D, CL_MEM_OBJECT_IMAGE1D_BUFFER] {
            let s = Shape {
                image_type,
                ..shape(CL_MEM_OBJECT_IMAGE1D, [8, 1, 1, 1])
            };
            assert_eq!(check_region(&s, [0, 0, 0], [8, 1, 1]), Ok(()));
            assert_eq!(
                check_region(&s, [0, 1, 0], [8, 1, 1]),
                Err(CL_INVALID_VALUE)
            );
            assert_eq!(
                check_region(&s, [0, 0, 0], [8, 2, 1]),
                Err(CL_INVALID_VALUE)
            );
            assert_eq!(
                check_region(&s, [0, 0, 1], [8, 1, 1]),
                Err(CL_INVALID_VALUE)
            );
            assert_eq!(
                check_region(&s, [0, 0, 0], [8, 1, 2]),
                Err(CL_INVALID_VALUE)
            );
        }
        let s2 = shape(CL_MEM_OBJECT_IMAGE2D, [8, 4, 1, 1]);
        assert_eq!(
            check_region(&s2, [0, 0, 1], [1, 1, 1]),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            check_region(&s2, [0, 0, 0], [1, 1, 2]),
            Err(CL_INVALID_VALUE)
        );
        // A 1D array's layers are its y; it has no z.
        let a1 = shape(CL_MEM_OBJECT_IMAGE1D_ARRAY, [8, 1, 1, 6]);
        assert_eq!(check_region(&a1, [0, 2, 0], [8, 4, 1]), Ok(()));
        assert_eq!(
            check_region(&a1, [0, 2, 0], [8, 5, 1]),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            check_region(&a1, [0, 0, 0], [8, 1, 2]),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            check_region(&a1, [0, 0, 1], [8, 1, 1]),
            Err(CL_INVALID_VALUE)
        );
        // A 2D array's layers are its z.
        let a2 = shape(CL_MEM_OBJECT_IMAGE2D_ARRAY, [8, 4, 1, 6]);
        assert_eq!(check_region(&a2, [0, 0, 5], [8, 4, 1]), Ok(()));
        assert_eq!(
            check_region(&a2, [0, 0, 5], [8, 4, 2]),
            Err(CL_INVALID_VALUE)
        );
    }

    #[test]
    fn host_pitches_default_to_packed_and_must_hold_the_region() {
        let s2 = shape(CL_MEM_OBJECT_IMAGE2D, [8, 4, 1, 1]);
        assert_eq!(host_pitches(&s2, [3, 2, 1], 0, 0), Ok((12, 24)));
        assert_eq!(host_pitches(&s2, [3, 2, 1], 40, 0), Ok((40, 80)));
        assert_eq!(host_pitches(&s2, [3, 2, 1], 11, 0), Err(CL_INVALID_VALUE));
        assert_eq!(host_pitches(&s2, [3, 2, 1], 12, 24), Err(CL_INVALID_VALUE));
        for image_type in [CL_MEM_OBJECT_IMAGE1D, CL_MEM_OBJECT_IMAGE1D_BUFFER] {
            let s1 = Shape {
                image_type,
                ..shape(CL_MEM_OBJECT_IMAGE1D, [8, 1, 1, 1])
            };
            assert_eq!(host_pitches(&s1, [5, 1, 1], 0, 0), Ok((20, 20)));
            assert_eq!(host_pitches(&s1, [5, 1, 1], 0, 20), Err(CL_INVALID_VALUE));
        }
        let s3 = shape(CL_MEM_OBJECT_IMAGE3D, [8, 4, 4, 1]);
        assert_eq!(host_pitches(&s3, [2, 3, 4], 0, 0), Ok((8, 24)));
        assert_eq!(host_pitches(&s3, [2, 3, 4], 16, 0), Ok((16, 48)));
        assert_eq!(host_pitches(&s3, [2, 3, 4], 16, 47), Err(CL_INVALID_VALUE));
        assert_eq!(host_pitches(&s3, [2, 3, 4], 16, 100), Ok((16, 100)));
        let a2 = shape(CL_MEM_OBJECT_IMAGE2D_ARRAY, [8, 4, 1, 4]);
        assert_eq!(host_pitches(&a2, [2, 3, 4], 0, 23), Err(CL_INVALID_VALUE));
        // A 1D array's slice is one row.
        let a1 = shape(CL_MEM_OBJECT_IMAGE1D_ARRAY, [8, 1, 1, 6]);
        assert_eq!(host_pitches(&a1, [2, 6, 1], 0, 0), Ok((8, 8)));
        assert_eq!(host_pitches(&a1, [2, 6, 1], 12, 0), Ok((12, 12)));
        assert_eq!(host_pitches(&a1, [2, 6, 1], 12, 11), Err(CL_INVALID_VALUE));
        assert_eq!(host_pitches(&a1, [2, 6, 1], 12, 30), Ok((12, 30)));
    }

    #[test]
    fn host_pitches_that_would_wrap_the_address_space_are_invalid() {
        let s3 = shape(CL_MEM_OBJECT_IMAGE3D, [8, 4, 4, 1]);
        assert_eq!(
            host_pitches(&s3, [2, 3, 4], usize::MAX / 2, 0),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            host_pitches(&s3, [2, 3, 4], 16, usize::MAX / 2),
            Err(CL_INVALID_VALUE)
        );
        let s2 = shape(CL_MEM_OBJECT_IMAGE2D, [8, 4, 1, 1]);
        assert_eq!(
            host_pitches(&s2, [2, 4, 1], isize::MAX as usize / 2, 0),
            Err(CL_INVALID_VALUE)
        );
        assert_eq!(
            host_pitches(&s2, [usize::MAX / 2, 1, 1], 0, 0),
            Err(CL_INVALID_VALUE)
        );
        // One row of a huge pitch is no wrap.
        assert!(host_pitches(&s2, [2, 1, 1], isize::MAX as usize / 2, 0).is_ok());
    }
}
