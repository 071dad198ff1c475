//! Image formats: which channel orders and types go together, what a texel
//! of each holds, and which formats this device offers for each image type
//! and access.

use opencl_sys::*;

/// A channel order and a channel type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Format {
    pub order: cl_channel_order,
    pub data_type: cl_channel_type,
}

/// What a texel's channels hold, which decides how a fill colour, a
/// `write_image*` value or a `read_image*` result is given: float4, int4 or
/// uint4.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelKind {
    /// Normalized, half and float types.
    Float,
    Signed,
    Unsigned,
}

impl Format {
    pub fn from_cl(f: &cl_image_format) -> Format {
        Format {
            order: f.image_channel_order,
            data_type: f.image_channel_data_type,
        }
    }

    pub fn to_cl(self) -> cl_image_format {
        cl_image_format {
            image_channel_order: self.order,
            image_channel_data_type: self.data_type,
        }
    }

    /// Whether the order and the type go together (the spec's table of
    /// channel orders and the types each may have).
    pub fn is_valid(self) -> bool {
        todo!()
    }

    /// Channels in a texel (1 to 4).
    pub fn channels(self) -> usize {
        todo!()
    }

    /// Bytes per texel.
    pub fn element_size(self) -> usize {
        todo!()
    }

    pub fn kind(self) -> ChannelKind {
        todo!()
    }
}

/// The formats this device offers for images of `image_type` used with
/// `flags` (their kernel access: read, write, read-write or
/// `CL_MEM_KERNEL_READ_AND_WRITE`), as `clGetSupportedImageFormats` lists
/// them.
pub fn supported(flags: cl_mem_flags, image_type: cl_mem_object_type) -> Vec<Format> {
    let _ = (flags, image_type);
    todo!()
}

/// Whether `format` is in [`supported`]`(flags, image_type)`.
pub fn is_supported(format: Format, flags: cl_mem_flags, image_type: cl_mem_object_type) -> bool {
    supported(flags, image_type).contains(&format)
}
