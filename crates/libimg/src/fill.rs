//! Texels from colours and back, converted as the spec's conversion rules
//! say `write_image*` and `read_image*` do: `clEnqueueFillImage` packs its
//! colour with [`pack`].

use crate::format::Format;

/// One texel of `format` holding `color`: 16 bytes of a float4 (normalized,
/// half, float and depth formats; depth takes the first), an int4 (signed
/// integer formats) or a uint4 (unsigned ones), as `clEnqueueFillImage`
/// takes them. Returns `format.element_size()` bytes.
pub fn pack(format: Format, color: &[u8; 16]) -> Vec<u8> {
    let _ = (format, color);
    todo!()
}

/// The colour a texel of `format` holds, as 16 bytes of a float4, int4 or
/// uint4: what `read_image*` without a sampler returns (missing channels
/// as the spec's table of channel orders fills them).
pub fn unpack(format: Format, texel: &[u8]) -> [u8; 16] {
    let _ = (format, texel);
    todo!()
}
