//! What a kernel's image argument points to: the image's address, shape
//! and format. The builtins library declares the same struct
//! (`struct __mux_image` in `crates/builtins/src/cl/image.h`); the two must
//! stay field for field alike.

use opencl_sys::*;

/// [`KernelImage::image_type`] of each image type.
pub const IMAGE1D: u32 = CL_MEM_OBJECT_IMAGE1D;
pub const IMAGE1D_BUFFER: u32 = CL_MEM_OBJECT_IMAGE1D_BUFFER;
pub const IMAGE1D_ARRAY: u32 = CL_MEM_OBJECT_IMAGE1D_ARRAY;
pub const IMAGE2D: u32 = CL_MEM_OBJECT_IMAGE2D;
pub const IMAGE2D_ARRAY: u32 = CL_MEM_OBJECT_IMAGE2D_ARRAY;
pub const IMAGE3D: u32 = CL_MEM_OBJECT_IMAGE3D;

/// The descriptor of one image, as kernels read it.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KernelImage {
    /// Address of texel (0, 0, 0).
    pub data: u64,
    /// Width in texels.
    pub width: i32,
    /// Height in texels; 1 for 1D images and 1D arrays.
    pub height: i32,
    /// Depth in texels; 1 unless 3D.
    pub depth: i32,
    /// Layers; 1 unless an array.
    pub array_size: i32,
    /// Bytes from one row to the next.
    pub row_pitch: u64,
    /// Bytes from one slice (3D) or layer (1D and 2D arrays) to the next.
    pub slice_pitch: u64,
    /// `cl_channel_order`.
    pub channel_order: u32,
    /// `cl_channel_type`.
    pub channel_data_type: u32,
    /// Bytes per texel.
    pub element_size: u32,
    /// `cl_mem_object_type`.
    pub image_type: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// The offsets `image.h` declares.
    #[test]
    fn layout_is_the_kernels() {
        assert_eq!(offset_of!(KernelImage, data), 0);
        assert_eq!(offset_of!(KernelImage, width), 8);
        assert_eq!(offset_of!(KernelImage, array_size), 20);
        assert_eq!(offset_of!(KernelImage, row_pitch), 24);
        assert_eq!(offset_of!(KernelImage, slice_pitch), 32);
        assert_eq!(offset_of!(KernelImage, channel_order), 40);
        assert_eq!(offset_of!(KernelImage, image_type), 52);
        assert_eq!(size_of::<KernelImage>(), 56);
    }
}
