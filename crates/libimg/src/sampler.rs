//! Samplers as kernels see them: one integer of the `CLK_*` bits that
//! OpenCL C's `sampler_t` initializers are written with, so that a sampler
//! argument and a sampler constant in a kernel are the same thing.

use opencl_sys::*;

/// `CLK_NORMALIZED_COORDS_TRUE`.
pub const NORMALIZED_COORDS: u32 = 0x1;
/// `CLK_FILTER_NEAREST`.
pub const FILTER_NEAREST: u32 = 0x10;
/// `CLK_FILTER_LINEAR`.
pub const FILTER_LINEAR: u32 = 0x20;

/// The `CLK_ADDRESS_*` bits of an addressing mode, or `None` for a value
/// that is not one.
pub fn addressing_bits(mode: cl_addressing_mode) -> Option<u32> {
    Some(match mode {
        CL_ADDRESS_NONE => 0,
        CL_ADDRESS_CLAMP_TO_EDGE => 2,
        CL_ADDRESS_CLAMP => 4,
        CL_ADDRESS_REPEAT => 6,
        CL_ADDRESS_MIRRORED_REPEAT => 8,
        _ => return None,
    })
}

/// The sampler's bits, or `None` if the addressing or filter mode is not
/// one the spec defines.
pub fn bits(
    normalized: bool,
    addressing: cl_addressing_mode,
    filter: cl_filter_mode,
) -> Option<u32> {
    let filter = match filter {
        CL_FILTER_NEAREST => FILTER_NEAREST,
        CL_FILTER_LINEAR => FILTER_LINEAR,
        _ => return None,
    };
    let normalized = if normalized { NORMALIZED_COORDS } else { 0 };
    Some(normalized | addressing_bits(addressing)? | filter)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_are_the_clk_values() {
        assert_eq!(bits(true, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR), Some(0x27));
        assert_eq!(bits(false, CL_ADDRESS_NONE, CL_FILTER_NEAREST), Some(0x10));
        assert_eq!(
            bits(false, CL_ADDRESS_MIRRORED_REPEAT, CL_FILTER_NEAREST),
            Some(0x18)
        );
        assert_eq!(bits(false, 0x1234, CL_FILTER_NEAREST), None);
        assert_eq!(bits(false, CL_ADDRESS_CLAMP, 0x99), None);
    }
}
