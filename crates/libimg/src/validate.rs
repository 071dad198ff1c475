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
    /// Bytes the image spans with its pitches.
    pub fn size(&self) -> usize {
        todo!()
    }

    /// The extent regions and origins address: (width, layers, 1) for a 1D
    /// array, (width, height, layers) for a 2D array, and so on.
    pub fn addressable(&self) -> [usize; 3] {
        todo!()
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
    let _ = format;
    todo!()
}

/// `clCreateImage`'s descriptor, for a format already checked: the shape,
/// or `CL_INVALID_IMAGE_DESCRIPTOR`, `CL_INVALID_IMAGE_SIZE`,
/// `CL_INVALID_IMAGE_FORMAT_DESCRIPTOR` (a 2D image from a buffer whose
/// pitch or address is misaligned) or `CL_INVALID_HOST_PTR` as the spec
/// says. `host_ptr` says whether one was given; the pitches it has are in
/// the descriptor.
pub fn check_desc(
    desc: Option<&cl_image_desc>,
    format: Format,
    host_ptr: bool,
    parent: Parent,
    limits: &Limits,
) -> Result<Shape, cl_int> {
    let _ = (desc, format, host_ptr, parent, limits);
    todo!()
}

/// An origin and region of an image command: `CL_INVALID_VALUE` if the
/// region is empty, reaches outside the image, or is not 1 (the origin 0)
/// in a dimension the type lacks.
pub fn check_region(shape: &Shape, origin: [usize; 3], region: [usize; 3]) -> Result<(), cl_int> {
    let _ = (shape, origin, region);
    todo!()
}

/// The host memory's pitches of a read, write or map of `region`: 0 means
/// packed; others must hold a row (slice) of the region, else
/// `CL_INVALID_VALUE`. A slice pitch must be 0 for 1D and 2D images.
pub fn host_pitches(
    shape: &Shape,
    region: [usize; 3],
    row_pitch: usize,
    slice_pitch: usize,
) -> Result<(usize, usize), cl_int> {
    let _ = (shape, region, row_pitch, slice_pitch);
    todo!()
}
