//! Image formats: which channel orders and types go together, what a texel
//! of each holds, and which formats this device offers for each image type
//! and access.

// Patterns name the header's constants as spelled there: CL_sRGB, CL_Rx.
#![allow(non_upper_case_globals)]

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
    /// channel orders and the types each may have). Extension-only values
    /// (`CL_DEPTH_STENCIL`, `CL_UNORM_INT24`, YUV, ...) are not valid here, as
    /// the device offers none of those extensions.
    pub fn is_valid(self) -> bool {
        if type_size(self.data_type).is_none() {
            return false;
        }
        let packed = is_packed(self.data_type);
        match self.order {
            // The footnotes of the channel order table (OpenCL 2.0, table
            // 5.6; the 3.0 text keeps only the packed types' rule). The
            // "bits per element must be a power of two" sentence is not
            // applied: it would rule out CL_sRGB, which the same table allows.
            CL_R | CL_Rx | CL_A | CL_RG | CL_RGx | CL_RA => !packed,
            CL_RGBA => !packed || self.data_type == CL_UNORM_INT_101010_2,
            CL_RGB | CL_RGBx => matches!(
                self.data_type,
                CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 | CL_UNORM_INT_101010
            ),
            CL_BGRA | CL_ARGB | CL_ABGR => matches!(
                self.data_type,
                CL_UNORM_INT8 | CL_SNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8
            ),
            CL_INTENSITY | CL_LUMINANCE => matches!(
                self.data_type,
                CL_UNORM_INT8
                    | CL_UNORM_INT16
                    | CL_SNORM_INT8
                    | CL_SNORM_INT16
                    | CL_HALF_FLOAT
                    | CL_FLOAT
            ),
            CL_DEPTH => matches!(self.data_type, CL_UNORM_INT16 | CL_FLOAT),
            CL_sRGB | CL_sRGBx | CL_sRGBA | CL_sBGRA => self.data_type == CL_UNORM_INT8,
            _ => false,
        }
    }

    /// Channels in a texel (1 to 4): those the order stores, ignored ones
    /// (`CL_RGBx`'s x) included; a packed type's texel counts its colour
    /// channels (3 for `CL_RGB`, 4 for `CL_UNORM_INT_101010_2`). 0 for an
    /// order that is not one.
    pub fn channels(self) -> usize {
        match self.order {
            CL_R | CL_A | CL_INTENSITY | CL_LUMINANCE | CL_DEPTH => 1,
            CL_RG | CL_RA | CL_Rx => 2,
            CL_RGB | CL_RGx | CL_sRGB => 3,
            CL_RGBx if is_packed(self.data_type) => 3,
            CL_RGBx | CL_sRGBx | CL_RGBA | CL_BGRA | CL_ARGB | CL_ABGR | CL_sRGBA | CL_sBGRA => 4,
            _ => 0,
        }
    }

    /// Bytes per texel; 0 for a type that is not one.
    pub fn element_size(self) -> usize {
        match self.data_type {
            CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 => 2,
            CL_UNORM_INT_101010 | CL_UNORM_INT_101010_2 => 4,
            t => type_size(t).unwrap_or(0) * self.channels(),
        }
    }

    pub fn kind(self) -> ChannelKind {
        match self.data_type {
            CL_SIGNED_INT8 | CL_SIGNED_INT16 | CL_SIGNED_INT32 => ChannelKind::Signed,
            CL_UNSIGNED_INT8 | CL_UNSIGNED_INT16 | CL_UNSIGNED_INT32 => ChannelKind::Unsigned,
            _ => ChannelKind::Float,
        }
    }
}

/// Bytes of one channel of `data_type`, or of the whole texel for a packed
/// type; `None` if it is not a channel type.
fn type_size(data_type: cl_channel_type) -> Option<usize> {
    Some(match data_type {
        CL_SNORM_INT8 | CL_UNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8 => 1,
        CL_SNORM_INT16 | CL_UNORM_INT16 | CL_SIGNED_INT16 | CL_UNSIGNED_INT16 | CL_HALF_FLOAT => 2,
        CL_SIGNED_INT32 | CL_UNSIGNED_INT32 | CL_FLOAT => 4,
        CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 => 2,
        CL_UNORM_INT_101010 | CL_UNORM_INT_101010_2 => 4,
        _ => return None,
    })
}

/// Whether all of a texel's channels share one 16- or 32-bit word.
pub(crate) fn is_packed(data_type: cl_channel_type) -> bool {
    matches!(
        data_type,
        CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 | CL_UNORM_INT_101010 | CL_UNORM_INT_101010_2
    )
}

/// The types offered with every order that takes a type per channel.
const PER_CHANNEL_TYPES: [cl_channel_type; 12] = [
    CL_SNORM_INT8,
    CL_SNORM_INT16,
    CL_UNORM_INT8,
    CL_UNORM_INT16,
    CL_SIGNED_INT8,
    CL_SIGNED_INT16,
    CL_SIGNED_INT32,
    CL_UNSIGNED_INT8,
    CL_UNSIGNED_INT16,
    CL_UNSIGNED_INT32,
    CL_HALF_FLOAT,
    CL_FLOAT,
];

/// The offered formats as (orders, types) groups; CL_DEPTH and the sRGB
/// orders are added by [`supported`] where they apply.
const OFFERED: [(&[cl_channel_order], &[cl_channel_type]); 4] = [
    (&[CL_R, CL_A, CL_RG, CL_RA, CL_RGBA], &PER_CHANNEL_TYPES),
    (
        &[CL_RGB],
        &[CL_UNORM_SHORT_565, CL_UNORM_SHORT_555, CL_UNORM_INT_101010],
    ),
    (
        &[CL_BGRA, CL_ARGB, CL_ABGR],
        &[
            CL_UNORM_INT8,
            CL_SNORM_INT8,
            CL_SIGNED_INT8,
            CL_UNSIGNED_INT8,
        ],
    ),
    (
        &[CL_INTENSITY, CL_LUMINANCE],
        &[
            CL_UNORM_INT8,
            CL_UNORM_INT16,
            CL_SNORM_INT8,
            CL_SNORM_INT16,
            CL_HALF_FLOAT,
            CL_FLOAT,
        ],
    ),
];

/// The formats this device offers for images of `image_type` used with
/// `flags` (their kernel access: read, write, read-write or
/// `CL_MEM_KERNEL_READ_AND_WRITE`), as `clGetSupportedImageFormats` lists
/// them.
pub fn supported(flags: cl_mem_flags, image_type: cl_mem_object_type) -> Vec<Format> {
    if !matches!(
        image_type,
        CL_MEM_OBJECT_IMAGE1D
            | CL_MEM_OBJECT_IMAGE1D_BUFFER
            | CL_MEM_OBJECT_IMAGE1D_ARRAY
            | CL_MEM_OBJECT_IMAGE2D
            | CL_MEM_OBJECT_IMAGE2D_ARRAY
            | CL_MEM_OBJECT_IMAGE3D
    ) {
        return Vec::new();
    }
    let mut formats = Vec::new();
    for (orders, types) in OFFERED {
        for &order in orders {
            formats.extend(types.iter().map(|&data_type| Format { order, data_type }));
        }
    }
    // image2d_depth_t and image2d_array_depth_t are the only depth images.
    if matches!(
        image_type,
        CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY
    ) {
        for data_type in [CL_UNORM_INT16, CL_FLOAT] {
            formats.push(Format {
                order: CL_DEPTH,
                data_type,
            });
        }
    }
    // Without cl_khr_srgb_image_writes kernels only read sRGB images.
    let writes = CL_MEM_WRITE_ONLY | CL_MEM_READ_WRITE | CL_MEM_KERNEL_READ_AND_WRITE;
    if flags & CL_MEM_READ_ONLY != 0 && flags & writes == 0 {
        for order in [CL_sRGB, CL_sRGBA, CL_sBGRA] {
            formats.push(Format {
                order,
                data_type: CL_UNORM_INT8,
            });
        }
    }
    formats
}

/// Whether `format` is in [`supported`]`(flags, image_type)`.
pub fn is_supported(format: Format, flags: cl_mem_flags, image_type: cl_mem_object_type) -> bool {
    supported(flags, image_type).contains(&format)
}

#[cfg(test)]
mod tests {
    use super::*;

    const IMAGE_TYPES: [cl_mem_object_type; 6] = [
        CL_MEM_OBJECT_IMAGE1D,
        CL_MEM_OBJECT_IMAGE1D_BUFFER,
        CL_MEM_OBJECT_IMAGE1D_ARRAY,
        CL_MEM_OBJECT_IMAGE2D,
        CL_MEM_OBJECT_IMAGE2D_ARRAY,
        CL_MEM_OBJECT_IMAGE3D,
    ];
    const ACCESS: [cl_mem_flags; 4] = [
        CL_MEM_READ_ONLY,
        CL_MEM_WRITE_ONLY,
        CL_MEM_READ_WRITE,
        CL_MEM_KERNEL_READ_AND_WRITE,
    ];

    fn f(order: cl_channel_order, data_type: cl_channel_type) -> Format {
        Format { order, data_type }
    }

    #[test]
    fn every_supported_format_is_valid_and_listed_once() {
        for flags in ACCESS {
            for image_type in IMAGE_TYPES {
                let formats = supported(flags, image_type);
                for (i, format) in formats.iter().enumerate() {
                    assert!(format.is_valid(), "{format:?}");
                    assert!(format.element_size() > 0, "{format:?}");
                    assert!(!formats[..i].contains(format), "{format:?} twice");
                }
            }
        }
    }

    #[test]
    fn format_counts_follow_the_table() {
        // 5 orders x 12 types, 3 packed RGB, 3 x 4 swizzled, 2 x 6 single-channel.
        let common = 60 + 3 + 12 + 12;
        let depth = 2;
        let srgb = 3;
        assert_eq!(
            supported(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D).len(),
            common + depth + srgb
        );
        assert_eq!(
            supported(CL_MEM_WRITE_ONLY, CL_MEM_OBJECT_IMAGE2D_ARRAY).len(),
            common + depth
        );
        assert_eq!(
            supported(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE1D_BUFFER).len(),
            common + srgb
        );
        assert_eq!(
            supported(CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE3D).len(),
            common
        );
        assert_eq!(
            supported(CL_MEM_KERNEL_READ_AND_WRITE, CL_MEM_OBJECT_IMAGE1D).len(),
            common
        );
    }

    #[test]
    fn srgb_is_read_only_whatever_other_flags_come_with_it() {
        let srgba = f(CL_sRGBA, CL_UNORM_INT8);
        let host_flags = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR | CL_MEM_HOST_NO_ACCESS;
        assert!(is_supported(srgba, host_flags, CL_MEM_OBJECT_IMAGE2D));
        assert!(is_supported(
            f(CL_sRGB, CL_UNORM_INT8),
            CL_MEM_READ_ONLY,
            CL_MEM_OBJECT_IMAGE3D
        ));
        assert!(!is_supported(
            srgba,
            CL_MEM_WRITE_ONLY,
            CL_MEM_OBJECT_IMAGE2D
        ));
        assert!(!is_supported(
            srgba,
            CL_MEM_READ_WRITE,
            CL_MEM_OBJECT_IMAGE2D
        ));
        assert!(!is_supported(
            srgba,
            CL_MEM_KERNEL_READ_AND_WRITE,
            CL_MEM_OBJECT_IMAGE2D
        ));
        // No access bits means CL_MEM_READ_WRITE.
        assert!(!is_supported(srgba, 0, CL_MEM_OBJECT_IMAGE2D));
        assert!(!is_supported(
            srgba,
            CL_MEM_READ_ONLY | CL_MEM_KERNEL_READ_AND_WRITE,
            CL_MEM_OBJECT_IMAGE2D
        ));
    }

    #[test]
    fn depth_is_for_2d_and_2d_arrays_only() {
        for flags in ACCESS {
            for image_type in IMAGE_TYPES {
                let two_d = matches!(
                    image_type,
                    CL_MEM_OBJECT_IMAGE2D | CL_MEM_OBJECT_IMAGE2D_ARRAY
                );
                assert_eq!(
                    is_supported(f(CL_DEPTH, CL_FLOAT), flags, image_type),
                    two_d
                );
                assert_eq!(
                    is_supported(f(CL_DEPTH, CL_UNORM_INT16), flags, image_type),
                    two_d
                );
            }
        }
    }

    #[test]
    fn other_object_types_list_nothing() {
        for image_type in [CL_MEM_OBJECT_BUFFER, CL_MEM_OBJECT_PIPE, 0, 0x10F7 + 100] {
            assert!(supported(CL_MEM_READ_WRITE, image_type).is_empty());
        }
    }

    #[test]
    fn element_size_and_channels_of_every_offered_format() {
        let bytes = |t| match t {
            CL_SNORM_INT8 | CL_UNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8 => 1,
            CL_SNORM_INT16 | CL_UNORM_INT16 | CL_SIGNED_INT16 | CL_UNSIGNED_INT16
            | CL_HALF_FLOAT => 2,
            CL_SIGNED_INT32 | CL_UNSIGNED_INT32 | CL_FLOAT => 4,
            _ => unreachable!(),
        };
        for t in PER_CHANNEL_TYPES {
            for (order, n) in [(CL_R, 1), (CL_A, 1), (CL_RG, 2), (CL_RA, 2), (CL_RGBA, 4)] {
                assert_eq!(f(order, t).channels(), n);
                assert_eq!(
                    f(order, t).element_size(),
                    n * bytes(t),
                    "{order:#x} {t:#x}"
                );
            }
        }
        for t in [
            CL_UNORM_INT8,
            CL_SNORM_INT8,
            CL_SIGNED_INT8,
            CL_UNSIGNED_INT8,
        ] {
            for order in [CL_BGRA, CL_ARGB, CL_ABGR] {
                assert_eq!((f(order, t).channels(), f(order, t).element_size()), (4, 4));
            }
        }
        for (t, size) in [
            (CL_UNORM_INT8, 1),
            (CL_UNORM_INT16, 2),
            (CL_SNORM_INT8, 1),
            (CL_SNORM_INT16, 2),
            (CL_HALF_FLOAT, 2),
            (CL_FLOAT, 4),
        ] {
            for order in [CL_INTENSITY, CL_LUMINANCE] {
                assert_eq!(
                    (f(order, t).channels(), f(order, t).element_size()),
                    (1, size)
                );
            }
        }
        assert_eq!(
            (
                f(CL_RGB, CL_UNORM_SHORT_565).channels(),
                f(CL_RGB, CL_UNORM_SHORT_565).element_size()
            ),
            (3, 2)
        );
        assert_eq!(
            (
                f(CL_RGB, CL_UNORM_SHORT_555).channels(),
                f(CL_RGB, CL_UNORM_SHORT_555).element_size()
            ),
            (3, 2)
        );
        assert_eq!(
            (
                f(CL_RGB, CL_UNORM_INT_101010).channels(),
                f(CL_RGB, CL_UNORM_INT_101010).element_size()
            ),
            (3, 4)
        );
        assert_eq!(
            (
                f(CL_DEPTH, CL_UNORM_INT16).channels(),
                f(CL_DEPTH, CL_UNORM_INT16).element_size()
            ),
            (1, 2)
        );
        assert_eq!(
            (
                f(CL_DEPTH, CL_FLOAT).channels(),
                f(CL_DEPTH, CL_FLOAT).element_size()
            ),
            (1, 4)
        );
        assert_eq!(
            (
                f(CL_sRGB, CL_UNORM_INT8).channels(),
                f(CL_sRGB, CL_UNORM_INT8).element_size()
            ),
            (3, 3)
        );
        assert_eq!(
            (
                f(CL_sRGBA, CL_UNORM_INT8).channels(),
                f(CL_sRGBA, CL_UNORM_INT8).element_size()
            ),
            (4, 4)
        );
        assert_eq!(
            (
                f(CL_sBGRA, CL_UNORM_INT8).channels(),
                f(CL_sBGRA, CL_UNORM_INT8).element_size()
            ),
            (4, 4)
        );
        // Valid but not offered.
        assert_eq!(f(CL_RGBA, CL_UNORM_INT_101010_2).element_size(), 4);
        assert_eq!(f(CL_RGBx, CL_UNORM_SHORT_565).element_size(), 2);
        assert_eq!(f(CL_Rx, CL_FLOAT).element_size(), 8);
    }

    #[test]
    fn validity_is_the_specs_table() {
        for valid in [
            f(CL_RGBx, CL_UNORM_SHORT_565),
            f(CL_Rx, CL_FLOAT),
            f(CL_RGx, CL_UNSIGNED_INT8),
            f(CL_RGBA, CL_UNORM_INT_101010_2),
            f(CL_sRGBx, CL_UNORM_INT8),
        ] {
            assert!(valid.is_valid(), "{valid:?}");
            for flags in ACCESS {
                for image_type in IMAGE_TYPES {
                    assert!(
                        !is_supported(valid, flags, image_type),
                        "{valid:?} is not offered"
                    );
                }
            }
        }
        for invalid in [
            f(CL_INTENSITY, CL_UNORM_SHORT_555),
            f(CL_INTENSITY, CL_SIGNED_INT8),
            f(CL_LUMINANCE, CL_UNSIGNED_INT32),
            f(CL_RGB, CL_UNORM_INT8),
            f(CL_RGB, CL_UNORM_INT_101010_2),
            f(CL_BGRA, CL_UNORM_INT16),
            f(CL_ABGR, CL_FLOAT),
            f(CL_DEPTH, CL_UNORM_INT8),
            f(CL_sRGBA, CL_UNORM_INT16),
            f(CL_RGBA, CL_UNORM_SHORT_565),
            f(CL_R, CL_UNORM_INT_101010),
            f(CL_RG, CL_UNORM_INT_101010_2),
            f(0x1234, CL_FLOAT),
            f(CL_RGBA, 0x1234),
            f(CL_RGBA, 0),
        ] {
            assert!(!invalid.is_valid(), "{invalid:?}");
        }
    }

    #[test]
    fn kind_follows_the_type() {
        assert_eq!(f(CL_RGBA, CL_SIGNED_INT16).kind(), ChannelKind::Signed);
        assert_eq!(f(CL_R, CL_UNSIGNED_INT32).kind(), ChannelKind::Unsigned);
        for t in [
            CL_UNORM_INT8,
            CL_SNORM_INT16,
            CL_HALF_FLOAT,
            CL_FLOAT,
            CL_UNORM_SHORT_565,
        ] {
            assert_eq!(f(CL_RGBA, t).kind(), ChannelKind::Float);
        }
    }

    #[test]
    fn cl_format_round_trips() {
        let format = f(CL_BGRA, CL_UNORM_INT8);
        let cl = format.to_cl();
        assert_eq!(
            (cl.image_channel_order, cl.image_channel_data_type),
            (CL_BGRA, CL_UNORM_INT8)
        );
        assert_eq!(Format::from_cl(&cl), format);
    }
}
