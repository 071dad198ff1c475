//! Images and samplers in kernels: their OpenCL C type names (for kernel
//! arguments and builtin names) and the image instructions.

use crate::binary::Inst;
use crate::error::Result;
use crate::translator::Tr;
use crate::types::ImageInfo;
use rspirv::spirv::{AccessQualifier, Dim};

/// `image2d_t` (or, for a builtin's name, `ocl_image2d_ro`).
pub(crate) fn type_name(i: &ImageInfo, mangled: bool) -> String {
    let base = match (i.dim, i.arrayed != 0, i.depth == 1) {
        (Dim::Dim1D, false, _) => "image1d",
        (Dim::Dim1D, true, _) => "image1d_array",
        (Dim::DimBuffer, _, _) => "image1d_buffer",
        (Dim::Dim2D, false, false) => "image2d",
        (Dim::Dim2D, true, false) => "image2d_array",
        (Dim::Dim2D, false, true) => "image2d_depth",
        (Dim::Dim2D, true, true) => "image2d_array_depth",
        _ => "image3d",
    };
    if mangled {
        let access = match i.access {
            AccessQualifier::ReadOnly => "ro",
            AccessQualifier::WriteOnly => "wo",
            AccessQualifier::ReadWrite => "rw",
        };
        format!("ocl_{base}_{access}")
    } else {
        format!("{base}_t")
    }
}

impl Tr<'_> {
    pub fn image(&mut self, inst: &Inst) -> Result<()> {
        Err(inst.err("image instructions are not supported"))
    }
}
