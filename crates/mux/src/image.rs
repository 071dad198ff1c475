//! Images: memory laid out in rows, slices and array layers of
//! fixed-size elements. The API layer turns OpenCL's channel orders and
//! types into an element size, and fill colours into packed elements; the
//! target decides the layout, unless the image is made over memory that
//! has one (a host pointer or a buffer), and what a kernel's image
//! argument holds.

use crate::memory::MemoryRef;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    D1,
    /// A 1D image over a buffer's memory.
    D1Buffer,
    D1Array,
    D2,
    D2Array,
    D3,
}

/// What an image is: its kind, element size and extent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageDesc {
    pub kind: ImageKind,
    /// Bytes per element (pixel), 1 to 16.
    pub element_size: usize,
    /// Width, height, depth in elements; 1 where the kind has no such
    /// dimension.
    pub extent: [usize; 3],
    /// Array layers; 1 for non-array kinds.
    pub layers: usize,
    /// The API's channel order and channel type codes, which the target
    /// hands to kernels as they are.
    pub format: [u32; 2],
    /// The row and slice pitches the image must have, in bytes (made over
    /// memory laid out already); 0 lets the target choose.
    pub pitches: [usize; 2],
}

impl ImageDesc {
    /// The extent in (x, y, z) with layers as the last dimension that the
    /// kind uses: how regions and origins address it.
    pub fn addressable(&self) -> [usize; 3] {
        let [w, h, d] = self.extent;
        match self.kind {
            ImageKind::D1 | ImageKind::D1Buffer => [w, 1, 1],
            ImageKind::D1Array => [w, self.layers, 1],
            ImageKind::D2 => [w, h, 1],
            ImageKind::D2Array => [w, h, self.layers],
            ImageKind::D3 => [w, h, d],
        }
    }
}

/// Where an image's elements lie in its memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageLayout {
    /// Bytes from one row (y) to the next.
    pub row_pitch: usize,
    /// Bytes from one slice or layer (z) to the next.
    pub slice_pitch: usize,
    /// Bytes of memory the image needs, and their alignment.
    pub size: usize,
    pub align: usize,
}

pub trait Image: Send + Sync {
    fn desc(&self) -> &ImageDesc;
    fn layout(&self) -> &ImageLayout;
    fn memory(&self) -> &MemoryRef;
    /// Where the image starts in its memory.
    fn offset(&self) -> usize;
    /// What a kernel's argument of this image holds (on the host, the
    /// address of the image's descriptor).
    fn kernel_argument(&self) -> u64;
}

pub type ImageRef = Arc<dyn Image>;
