//! Texels from colours and back, converted as the spec's conversion rules
//! say `write_image*` and `read_image*` do: `clEnqueueFillImage` packs its
//! colour with [`pack`].

// Patterns name the header's constants as spelled there: CL_sRGB, CL_Rx.
#![allow(non_upper_case_globals)]

use crate::format::{is_packed, ChannelKind, Format};
use opencl_sys::*;

/// One texel of `format` holding `color`: 16 bytes of a float4 (normalized,
/// half, float and depth formats; depth takes the first), an int4 (signed
/// integer formats) or a uint4 (unsigned ones), as `clEnqueueFillImage`
/// takes them. Returns `format.element_size()` bytes.
pub fn pack(format: Format, color: &[u8; 16]) -> Vec<u8> {
    let words: [u32; 4] =
        std::array::from_fn(|i| u32::from_ne_bytes(color[4 * i..4 * i + 4].try_into().unwrap()));
    let mut texel = Vec::with_capacity(format.element_size());
    if is_packed(format.data_type) {
        let [r, g, b, a] = words.map(f32::from_bits);
        // Channels in their bit fields, the first in the most significant
        // bits; the bits the spec leaves undefined are written 0.
        match format.data_type {
            CL_UNORM_SHORT_565 => {
                let bits = unorm(r, 31) << 11 | unorm(g, 63) << 5 | unorm(b, 31);
                texel.extend((bits as u16).to_ne_bytes());
            }
            CL_UNORM_SHORT_555 => {
                let bits = unorm(r, 31) << 10 | unorm(g, 31) << 5 | unorm(b, 31);
                texel.extend((bits as u16).to_ne_bytes());
            }
            CL_UNORM_INT_101010 => {
                let bits = unorm(r, 1023) << 20 | unorm(g, 1023) << 10 | unorm(b, 1023);
                texel.extend(bits.to_ne_bytes());
            }
            _ => {
                let bits =
                    unorm(r, 1023) << 22 | unorm(g, 1023) << 12 | unorm(b, 1023) << 2 | unorm(a, 3);
                texel.extend(bits.to_ne_bytes());
            }
        }
    } else {
        let srgb = is_srgb(format.order);
        for &slot in channel_layout(format.order) {
            let Some(component) = slot else {
                // An ignored channel (CL_RGBx's x).
                texel.extend(std::iter::repeat_n(0, channel_size(format.data_type)));
                continue;
            };
            let word = words[component];
            let f = f32::from_bits(word);
            match format.data_type {
                CL_UNORM_INT8 if srgb && component != 3 => texel.push(srgb_encode(f)),
                CL_UNORM_INT8 => texel.push(unorm(f, 255) as u8),
                CL_UNORM_INT16 => texel.extend((unorm(f, 65535) as u16).to_ne_bytes()),
                CL_SNORM_INT8 => texel.extend((snorm(f, 127) as i8).to_ne_bytes()),
                CL_SNORM_INT16 => texel.extend((snorm(f, 32767) as i16).to_ne_bytes()),
                CL_SIGNED_INT8 => {
                    let v = (word as i32).clamp(i8::MIN.into(), i8::MAX.into());
                    texel.extend((v as i8).to_ne_bytes());
                }
                CL_SIGNED_INT16 => {
                    let v = (word as i32).clamp(i16::MIN.into(), i16::MAX.into());
                    texel.extend((v as i16).to_ne_bytes());
                }
                CL_UNSIGNED_INT8 => texel.push(word.min(u8::MAX.into()) as u8),
                CL_UNSIGNED_INT16 => texel.extend((word.min(u16::MAX.into()) as u16).to_ne_bytes()),
                CL_HALF_FLOAT => texel.extend(f32_to_f16(f).to_ne_bytes()),
                // CL_FLOAT and the 32-bit integers: the bits as given.
                _ => texel.extend(word.to_ne_bytes()),
            }
        }
    }
    texel.resize(format.element_size(), 0);
    texel
}

/// The colour a texel of `format` holds, as 16 bytes of a float4, int4 or
/// uint4: what `read_image*` without a sampler returns (missing channels
/// as the spec's table of channel orders fills them).
pub fn unpack(format: Format, texel: &[u8]) -> [u8; 16] {
    // A short texel reads as zeros past its end rather than panicking.
    let mut bytes = [0u8; 16];
    let n = texel.len().min(16);
    bytes[..n].copy_from_slice(&texel[..n]);
    let u16_at = |i: usize| u16::from_ne_bytes([bytes[i], bytes[i + 1]]);
    let u32_at = |i: usize| u32::from_ne_bytes(bytes[i..i + 4].try_into().unwrap());

    let one = match format.kind() {
        ChannelKind::Float => 1.0f32.to_bits(),
        ChannelKind::Signed | ChannelKind::Unsigned => 1,
    };
    let mut color = [0, 0, 0, one];
    if is_packed(format.data_type) {
        let (bits, fields): (u32, &[(u32, u32)]) = match format.data_type {
            CL_UNORM_SHORT_565 => (u16_at(0).into(), &[(11, 31), (5, 63), (0, 31)]),
            CL_UNORM_SHORT_555 => (u16_at(0).into(), &[(10, 31), (5, 31), (0, 31)]),
            CL_UNORM_INT_101010 => (u32_at(0), &[(20, 1023), (10, 1023), (0, 1023)]),
            _ => (u32_at(0), &[(22, 1023), (12, 1023), (2, 1023), (0, 3)]),
        };
        for (component, &(shift, max)) in fields.iter().enumerate() {
            color[component] = ((bits >> shift & max) as f32 / max as f32).to_bits();
        }
    } else {
        let srgb = is_srgb(format.order);
        let size = channel_size(format.data_type);
        for (i, &slot) in channel_layout(format.order).iter().enumerate() {
            let Some(component) = slot else { continue };
            let at = i * size;
            color[component] = match format.data_type {
                CL_UNORM_INT8 if srgb && component != 3 => srgb_decode(bytes[at]).to_bits(),
                CL_UNORM_INT8 => (bytes[at] as f32 / 255.0).to_bits(),
                CL_UNORM_INT16 => (u16_at(at) as f32 / 65535.0).to_bits(),
                CL_SNORM_INT8 => (bytes[at] as i8 as f32 / 127.0).max(-1.0).to_bits(),
                CL_SNORM_INT16 => (u16_at(at) as i16 as f32 / 32767.0).max(-1.0).to_bits(),
                CL_SIGNED_INT8 => bytes[at] as i8 as i32 as u32,
                CL_SIGNED_INT16 => u16_at(at) as i16 as i32 as u32,
                CL_UNSIGNED_INT8 => bytes[at].into(),
                CL_UNSIGNED_INT16 => u16_at(at).into(),
                CL_HALF_FLOAT => f16_to_f32(u16_at(at)).to_bits(),
                _ => u32_at(at),
            };
        }
        match format.order {
            CL_INTENSITY => color = [color[0]; 4],
            CL_LUMINANCE => color = [color[0], color[0], color[0], one],
            _ => {}
        }
    }
    let mut out = [0u8; 16];
    for (chunk, word) in out.chunks_exact_mut(4).zip(color) {
        chunk.copy_from_slice(&word.to_ne_bytes());
    }
    out
}

/// The colour component (0 red, 1 green, 2 blue, 3 alpha) each channel of
/// a texel holds, in memory order; `None` for an ignored channel.
/// Intensity, luminance and depth take red (depth's one float is the
/// first component).
fn channel_layout(order: cl_channel_order) -> &'static [Option<usize>] {
    const R: Option<usize> = Some(0);
    const G: Option<usize> = Some(1);
    const B: Option<usize> = Some(2);
    const A: Option<usize> = Some(3);
    match order {
        CL_R | CL_INTENSITY | CL_LUMINANCE | CL_DEPTH => &[R],
        CL_A => &[A],
        CL_RG => &[R, G],
        CL_RA => &[R, A],
        CL_Rx => &[R, None],
        CL_RGB | CL_sRGB => &[R, G, B],
        CL_RGx => &[R, G, None],
        CL_RGBx | CL_sRGBx => &[R, G, B, None],
        CL_RGBA | CL_sRGBA => &[R, G, B, A],
        CL_BGRA | CL_sBGRA => &[B, G, R, A],
        CL_ARGB => &[A, R, G, B],
        CL_ABGR => &[A, B, G, R],
        _ => &[],
    }
}

fn is_srgb(order: cl_channel_order) -> bool {
    matches!(order, CL_sRGB | CL_sRGBx | CL_sRGBA | CL_sBGRA)
}

/// Bytes of one channel of a per-channel type.
fn channel_size(data_type: cl_channel_type) -> usize {
    match data_type {
        CL_SNORM_INT8 | CL_UNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8 => 1,
        CL_SNORM_INT16 | CL_UNORM_INT16 | CL_SIGNED_INT16 | CL_UNSIGNED_INT16 | CL_HALF_FLOAT => 2,
        _ => 4,
    }
}

/// `convert_uint_sat_rte(f * max)` for an unsigned normalized channel of
/// `max` (255, 1023, 65535, ...): the product in single precision as the
/// spec writes it, NaN to 0.
fn unorm(f: f32, max: u32) -> u32 {
    let scaled = f * max as f32;
    if scaled.is_nan() || scaled <= 0.0 {
        0
    } else if scaled >= max as f32 {
        max
    } else {
        scaled.round_ties_even() as u32
    }
}

/// A signed normalized channel of `max` (127, 32767): `f` clamped to
/// [-1, 1], so -1.0 and anything below is `-max` (the spec reads `-max - 1`
/// as -1.0 too), scaled and rounded to nearest even; NaN to 0.
fn snorm(f: f32, max: i32) -> i32 {
    if f.is_nan() {
        return 0;
    }
    (f.clamp(-1.0, 1.0) * max as f32).round_ties_even() as i32
}

/// The spec's linear to sRGB rule for `write_imagef`, in double precision
/// as its reference is: the curve, then `floor(c * 255 + 0.5)`.
fn srgb_encode(f: f32) -> u8 {
    let c = f as f64;
    let c = if c.is_nan() || c < 0.0 {
        0.0
    } else if c > 1.0 {
        1.0
    } else if c < 0.0031308 {
        12.92 * c
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    };
    (c * 255.0 + 0.5).floor() as u8
}

/// The spec's sRGB to linear rule for `read_imagef`, in double precision,
/// rounded once to float.
fn srgb_decode(v: u8) -> f32 {
    let c = v as f64 / 255.0;
    let linear = if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    };
    linear as f32
}

/// A float to half, rounded to nearest even, keeping half denormals; an
/// infinity or a value that rounds past 65504 is an infinity, a NaN a
/// quiet NaN.
fn f32_to_f16(f: f32) -> u16 {
    let bits = f.to_bits();
    let sign = (bits >> 16 & 0x8000) as u16;
    let abs = bits & 0x7fff_ffff;
    if abs > 0x7f80_0000 {
        return sign | 0x7e00 | (abs >> 13 & 0x3ff) as u16;
    }
    if abs >= 0x4780_0000 {
        // 65536 and above, infinity included.
        return sign | 0x7c00;
    }
    let (mantissa, shift) = if abs >= 0x3880_0000 {
        // Normal: the exponent rebiased from 127 to 15 sits above the
        // mantissa, so a carry out of the mantissa raises the exponent (to
        // infinity from 65520 up).
        (abs - ((127 - 15) << 23), 13)
    } else if abs > 0x3300_0000 {
        // Denormal: the significand with its leading one, in units of
        // 2^-24 once shifted right by 126 - exponent (14 to 24).
        (abs & 0x7f_ffff | 0x80_0000, 126 - (abs >> 23))
    } else {
        // At most 2^-25, half of the least denormal: a tie goes to even 0.
        return sign;
    };
    let kept = mantissa >> shift;
    let rest = mantissa & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    let rounded = kept + u32::from(rest > half || (rest == half && kept & 1 == 1));
    sign | rounded as u16
}

/// A half to float, exactly.
fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = (h >> 10 & 0x1f) as u32;
    let mantissa = (h & 0x3ff) as u32;
    match exponent {
        0 => sign * mantissa as f32 * f32::from_bits(0x3380_0000), // 2^-24
        31 => f32::from_bits(u32::from(h & 0x8000) << 16 | 0x7f80_0000 | mantissa << 13),
        _ => f32::from_bits(u32::from(h & 0x8000) << 16 | (exponent + 112) << 23 | mantissa << 13),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::supported;

    fn f(order: cl_channel_order, data_type: cl_channel_type) -> Format {
        Format { order, data_type }
    }

    fn floats(c: [f32; 4]) -> [u8; 16] {
        let mut out = [0u8; 16];
        for (chunk, v) in out.chunks_exact_mut(4).zip(c) {
            chunk.copy_from_slice(&v.to_ne_bytes());
        }
        out
    }

    fn ints(c: [i32; 4]) -> [u8; 16] {
        floats(c.map(|v| f32::from_bits(v as u32)))
    }

    fn uints(c: [u32; 4]) -> [u8; 16] {
        floats(c.map(f32::from_bits))
    }

    fn as_floats(b: [u8; 16]) -> [f32; 4] {
        std::array::from_fn(|i| f32::from_ne_bytes(b[4 * i..4 * i + 4].try_into().unwrap()))
    }

    fn as_ints(b: [u8; 16]) -> [i32; 4] {
        as_floats(b).map(|v| v.to_bits() as i32)
    }

    fn one(format: Format, v: f32) -> Vec<u8> {
        pack(format, &floats([v, 0.0, 0.0, 0.0]))
    }

    fn half(v: f32) -> u16 {
        u16::from_ne_bytes(one(f(CL_R, CL_HALF_FLOAT), v).try_into().unwrap())
    }

    #[test]
    fn unorm_rounds_to_nearest_even_and_saturates() {
        let u8f = f(CL_R, CL_UNORM_INT8);
        // 0.5 * 255 = 127.5: the even neighbour is 128.
        assert_eq!(one(u8f, 0.5), [128]);
        assert_eq!(one(u8f, 1.0), [255]);
        assert_eq!(one(u8f, 0.0), [0]);
        assert_eq!(one(u8f, -0.25), [0]);
        assert_eq!(one(u8f, 7.0), [255]);
        assert_eq!(one(u8f, f32::NAN), [0]);
        assert_eq!(one(u8f, f32::INFINITY), [255]);
        assert_eq!(one(u8f, 1.0 / 255.0), [1]);
        let u16f = f(CL_R, CL_UNORM_INT16);
        // 32767.5 rounds to the even 32768.
        assert_eq!(one(u16f, 0.5), 32768u16.to_ne_bytes());
        assert_eq!(one(u16f, 1.0), 65535u16.to_ne_bytes());
    }

    /// The float nearest `target / max` whose single-precision product with
    /// `max` is exactly `target`.
    fn scaled_exactly(target: f32, max: f32) -> f32 {
        let guess = (target / max).to_bits();
        (guess - 4..guess + 4)
            .map(f32::from_bits)
            .find(|f| f * max == target)
            .expect("an exact product near the guess")
    }

    #[test]
    fn halfway_products_round_to_the_even_neighbour() {
        let u8f = f(CL_R, CL_UNORM_INT8);
        assert_eq!(one(u8f, scaled_exactly(2.5, 255.0)), [2]);
        assert_eq!(one(u8f, scaled_exactly(3.5, 255.0)), [4]);
        let s8 = f(CL_R, CL_SNORM_INT8);
        assert_eq!(one(s8, scaled_exactly(0.5, 127.0)), [0]);
        assert_eq!(one(s8, scaled_exactly(-2.5, 127.0)), [(-2i8) as u8]);
        let rgb565 = f(CL_RGB, CL_UNORM_SHORT_565);
        let red = scaled_exactly(4.5, 31.0);
        assert_eq!(
            pack(rgb565, &floats([red, 0.0, 0.0, 0.0])),
            (4u16 << 11).to_ne_bytes()
        );
    }

    #[test]
    fn snorm_clamps_to_minus_one_and_scales_by_127() {
        let s8 = f(CL_R, CL_SNORM_INT8);
        assert_eq!(one(s8, -1.0), [0x81]);
        assert_eq!(one(s8, -3.0), [0x81]);
        assert_eq!(one(s8, 1.0), [0x7f]);
        assert_eq!(one(s8, 0.5), [64]); // 63.5 to even
        assert_eq!(one(s8, -0.5), [(-64i8) as u8]);
        assert_eq!(one(s8, f32::NAN), [0]);
        let s16 = f(CL_R, CL_SNORM_INT16);
        assert_eq!(one(s16, -1.0), (-32767i16).to_ne_bytes());
        assert_eq!(one(s16, 2.0), 32767i16.to_ne_bytes());
    }

    #[test]
    fn half_rounds_to_nearest_even_with_denormals_infinities_and_nans() {
        assert_eq!(half(1.0), 0x3c00);
        assert_eq!(half(-2.0), 0xc000);
        assert_eq!(half(65504.0), 0x7bff);
        assert_eq!(half(65519.0), 0x7bff);
        assert_eq!(half(65520.0), 0x7c00);
        assert_eq!(half(1e10), 0x7c00);
        assert_eq!(half(f32::INFINITY), 0x7c00);
        assert_eq!(half(f32::NEG_INFINITY), 0xfc00);
        let nan = half(f32::NAN);
        assert_eq!(nan & 0x7c00, 0x7c00);
        assert_ne!(nan & 0x3ff, 0);
        // Ties between 1 and the next half go to the even mantissa.
        assert_eq!(half(1.0 + 2f32.powi(-11)), 0x3c00);
        assert_eq!(half(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
        assert_eq!(half(2f32.powi(-14)), 0x0400);
        assert_eq!(half(2f32.powi(-24)), 0x0001);
        assert_eq!(half(-2f32.powi(-24)), 0x8001);
        assert_eq!(half(2f32.powi(-25)), 0x0000);
        assert_eq!(half(1.5 * 2f32.powi(-25)), 0x0001);
        assert_eq!(half(3.0 * 2f32.powi(-25)), 0x0002); // 1.5 units: to even 2
        assert_eq!(half(2f32.powi(-14) - 2f32.powi(-25)), 0x0400);
        assert_eq!(half(1e-30), 0x0000);
        assert_eq!(half(-0.0), 0x8000);
        assert_eq!(half(0.333_333_34), 0x3555);
    }

    #[test]
    fn every_half_reads_back_as_itself() {
        for h in 0..=u16::MAX {
            let v = f16_to_f32(h);
            if v.is_nan() {
                assert_eq!(h & 0x7c00, 0x7c00);
                continue;
            }
            assert_eq!(half(v), h, "{h:#06x} read as {v}");
        }
    }

    #[test]
    fn packed_formats_put_red_in_the_high_bits() {
        let word16 = |format, c| u16::from_ne_bytes(pack(format, &floats(c)).try_into().unwrap());
        let word32 = |format, c| u32::from_ne_bytes(pack(format, &floats(c)).try_into().unwrap());
        let rgb565 = f(CL_RGB, CL_UNORM_SHORT_565);
        assert_eq!(word16(rgb565, [1.0, 0.0, 0.0, 0.0]), 0xf800);
        assert_eq!(word16(rgb565, [0.0, 1.0, 0.0, 0.0]), 0x07e0);
        assert_eq!(word16(rgb565, [0.0, 0.0, 1.0, 0.0]), 0x001f);
        assert_eq!(
            word16(rgb565, [0.5, 0.5, 2.0, 1.0]),
            16 << 11 | 32 << 5 | 31
        );
        let rgb555 = f(CL_RGB, CL_UNORM_SHORT_555);
        assert_eq!(word16(rgb555, [1.0, 0.0, 0.0, 1.0]), 0x7c00);
        assert_eq!(word16(rgb555, [1.0, 1.0, 1.0, 1.0]), 0x7fff);
        let rgb10 = f(CL_RGB, CL_UNORM_INT_101010);
        assert_eq!(word32(rgb10, [1.0, 0.0, 0.0, 0.0]), 0x3ff0_0000);
        assert_eq!(word32(rgb10, [0.0, 1.0, 1.0, 0.0]), 0x000f_ffff);
        let rgba1010102 = f(CL_RGBA, CL_UNORM_INT_101010_2);
        assert_eq!(word32(rgba1010102, [1.0, 0.0, 0.0, 1.0]), 0xffc0_0003);
        let unpacked = as_floats(unpack(rgb565, &0xf81fu16.to_ne_bytes()));
        assert_eq!(unpacked, [1.0, 0.0, 1.0, 1.0]);
        let unpacked = as_floats(unpack(rgb10, &(512u32 << 20 | 1023).to_ne_bytes()));
        assert_eq!(unpacked, [512.0 / 1023.0, 0.0, 1.0, 1.0]);
    }

    #[test]
    fn channel_order_decides_where_each_component_lands() {
        let c = floats([1.0, 0.5, 0.0, 0.25]);
        assert_eq!(pack(f(CL_RGBA, CL_UNORM_INT8), &c), [255, 128, 0, 64]);
        assert_eq!(pack(f(CL_BGRA, CL_UNORM_INT8), &c), [0, 128, 255, 64]);
        assert_eq!(pack(f(CL_ARGB, CL_UNORM_INT8), &c), [64, 255, 128, 0]);
        assert_eq!(pack(f(CL_ABGR, CL_UNORM_INT8), &c), [64, 0, 128, 255]);
        assert_eq!(pack(f(CL_A, CL_UNORM_INT8), &c), [64]);
        assert_eq!(pack(f(CL_RA, CL_UNORM_INT8), &c), [255, 64]);
        assert_eq!(pack(f(CL_RG, CL_UNORM_INT8), &c), [255, 128]);
        assert_eq!(pack(f(CL_INTENSITY, CL_UNORM_INT8), &c), [255]);
        assert_eq!(pack(f(CL_LUMINANCE, CL_UNORM_INT8), &c), [255]);
        assert_eq!(pack(f(CL_DEPTH, CL_FLOAT), &c), 1.0f32.to_ne_bytes());
        assert_eq!(
            pack(f(CL_DEPTH, CL_UNORM_INT16), &c),
            65535u16.to_ne_bytes()
        );
        let s = ints([1, 2, 3, 4]);
        assert_eq!(pack(f(CL_BGRA, CL_SIGNED_INT8), &s), [3, 2, 1, 4]);
        assert_eq!(pack(f(CL_ABGR, CL_UNSIGNED_INT8), &s), [4, 3, 2, 1]);
        // An ignored channel is written 0.
        assert_eq!(pack(f(CL_RGBx, CL_UNORM_INT8), &c), [255, 128, 0, 0]);
    }

    #[test]
    fn integers_saturate() {
        let r = |format, v: i32| pack(format, &ints([v, 0, 0, 0]));
        assert_eq!(r(f(CL_R, CL_SIGNED_INT8), 300), [127]);
        assert_eq!(r(f(CL_R, CL_SIGNED_INT8), -300), [(-128i8) as u8]);
        assert_eq!(r(f(CL_R, CL_SIGNED_INT8), -5), [(-5i8) as u8]);
        assert_eq!(r(f(CL_R, CL_SIGNED_INT16), 70000), i16::MAX.to_ne_bytes());
        assert_eq!(
            r(f(CL_R, CL_SIGNED_INT16), i32::MIN),
            i16::MIN.to_ne_bytes()
        );
        assert_eq!(
            r(f(CL_R, CL_SIGNED_INT32), i32::MIN),
            i32::MIN.to_ne_bytes()
        );
        let u = |format, v: u32| pack(format, &uints([v, 0, 0, 0]));
        assert_eq!(u(f(CL_R, CL_UNSIGNED_INT8), 300), [255]);
        assert_eq!(u(f(CL_R, CL_UNSIGNED_INT8), 0x8000_0000), [255]);
        assert_eq!(
            u(f(CL_R, CL_UNSIGNED_INT16), u32::MAX),
            u16::MAX.to_ne_bytes()
        );
        assert_eq!(
            u(f(CL_R, CL_UNSIGNED_INT32), u32::MAX),
            u32::MAX.to_ne_bytes()
        );
        assert_eq!(u(f(CL_R, CL_UNSIGNED_INT16), 1234), 1234u16.to_ne_bytes());
    }

    #[test]
    fn srgb_is_encoded_from_linear_and_alpha_stays_linear() {
        let srgba = f(CL_sRGBA, CL_UNORM_INT8);
        // 0.5 linear is 0.7354 in sRGB: 187.5 of 255, which rounds up.
        assert_eq!(
            pack(srgba, &floats([0.5, 1.0, 0.0, 0.5])),
            [188, 255, 0, 128]
        );
        // The linear segment near 0: 12.92 * 0.001 * 255 = 3.29.
        assert_eq!(
            pack(srgba, &floats([0.001, -1.0, 2.0, 1.0])),
            [3, 0, 255, 255]
        );
        assert_eq!(
            pack(f(CL_sBGRA, CL_UNORM_INT8), &floats([0.5, 0.0, 1.0, 0.0])),
            [255, 0, 188, 0]
        );
        assert_eq!(
            pack(
                f(CL_sRGB, CL_UNORM_INT8),
                &floats([f32::NAN, 0.5, 1.0, 0.0])
            ),
            [0, 188, 255]
        );
        let linear = as_floats(unpack(srgba, &[188, 255, 0, 128]));
        assert!((linear[0] - 0.5029).abs() < 1e-4, "{linear:?}");
        assert_eq!(&linear[1..], &[1.0, 0.0, 128.0 / 255.0]);
        // Every sRGB byte survives a read and a write.
        for v in 0..=255u8 {
            let texel = [v, v, v, v];
            assert_eq!(pack(srgba, &unpack(srgba, &texel)), texel);
        }
    }

    #[test]
    fn normalized_reads_follow_the_spec() {
        let s8 = f(CL_R, CL_SNORM_INT8);
        assert_eq!(as_floats(unpack(s8, &[0x80]))[0], -1.0);
        assert_eq!(as_floats(unpack(s8, &[0x81]))[0], -1.0);
        assert_eq!(as_floats(unpack(s8, &[0x7f]))[0], 1.0);
        assert_eq!(as_floats(unpack(s8, &[0]))[0], 0.0);
        let s16 = f(CL_R, CL_SNORM_INT16);
        assert_eq!(as_floats(unpack(s16, &i16::MIN.to_ne_bytes()))[0], -1.0);
        assert_eq!(as_floats(unpack(s16, &i16::MAX.to_ne_bytes()))[0], 1.0);
        assert_eq!(as_floats(unpack(f(CL_R, CL_UNORM_INT8), &[255]))[0], 1.0);
        assert_eq!(as_floats(unpack(f(CL_R, CL_UNORM_INT8), &[51]))[0], 0.2);
        assert_eq!(
            as_floats(unpack(f(CL_R, CL_UNORM_INT16), &[255, 255]))[0],
            1.0
        );
    }

    #[test]
    fn missing_channels_are_filled_as_the_table_says() {
        let u8f = |order, texel: &[u8]| as_floats(unpack(f(order, CL_UNORM_INT8), texel));
        assert_eq!(u8f(CL_R, &[255]), [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(u8f(CL_A, &[255]), [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(u8f(CL_A, &[0]), [0.0, 0.0, 0.0, 0.0]);
        assert_eq!(u8f(CL_RG, &[0, 255]), [0.0, 1.0, 0.0, 1.0]);
        assert_eq!(u8f(CL_RA, &[255, 0]), [1.0, 0.0, 0.0, 0.0]);
        assert_eq!(u8f(CL_INTENSITY, &[51]), [0.2; 4]);
        assert_eq!(u8f(CL_LUMINANCE, &[51]), [0.2, 0.2, 0.2, 1.0]);
        assert_eq!(u8f(CL_BGRA, &[0, 51, 255, 0]), [1.0, 0.2, 0.0, 0.0]);
        assert_eq!(u8f(CL_ARGB, &[0, 51, 255, 0]), [0.2, 1.0, 0.0, 0.0]);
        assert_eq!(u8f(CL_ABGR, &[0, 51, 255, 0]), [0.0, 1.0, 0.2, 0.0]);
        let depth = as_floats(unpack(f(CL_DEPTH, CL_FLOAT), &0.75f32.to_ne_bytes()));
        assert_eq!(depth, [0.75, 0.0, 0.0, 1.0]);
        // Integer formats fill alpha with the integer 1.
        assert_eq!(
            as_ints(unpack(f(CL_R, CL_SIGNED_INT8), &[0xfe])),
            [-2, 0, 0, 1]
        );
        assert_eq!(
            as_ints(unpack(f(CL_RA, CL_UNSIGNED_INT16), &[1, 0, 2, 0])),
            [1, 0, 0, 2]
        );
        assert_eq!(
            as_ints(unpack(f(CL_R, CL_SIGNED_INT16), &(-300i16).to_ne_bytes())),
            [-300, 0, 0, 1]
        );
        assert_eq!(
            as_ints(unpack(f(CL_RG, CL_UNSIGNED_INT8), &[200, 7])),
            [200, 7, 0, 1]
        );
        let half_texel = [0x00, 0x3c, 0x00, 0xc0];
        assert_eq!(
            as_floats(unpack(f(CL_RG, CL_HALF_FLOAT), &half_texel)),
            [1.0, -2.0, 0.0, 1.0]
        );
    }

    #[test]
    fn a_short_texel_reads_as_zeros_without_panicking() {
        assert_eq!(
            as_floats(unpack(f(CL_RGBA, CL_FLOAT), &[])),
            [0.0, 0.0, 0.0, 0.0]
        );
        assert_eq!(
            as_floats(unpack(f(CL_RGB, CL_UNORM_INT_101010), &[0xff])),
            [0.0, 0.0, 255.0 / 1023.0, 1.0]
        );
    }

    /// Bytes every bit of which a format keeps: the undefined high bits of
    /// 555 and 101010 clear, SNORM's second -1.0 (-max - 1) avoided, and
    /// half NaNs (written back quiet) avoided.
    fn keepable(format: Format, seed: u8) -> Vec<u8> {
        let mut texel: Vec<u8> = (0..format.element_size())
            .map(|i| seed.wrapping_mul(37).wrapping_add(i as u8 * 101))
            .collect();
        match format.data_type {
            CL_UNORM_SHORT_555 => texel[1] &= 0x7f,
            CL_UNORM_INT_101010 => texel[3] &= 0x3f,
            CL_SNORM_INT8 => texel
                .iter_mut()
                .filter(|b| **b == 0x80)
                .for_each(|b| *b = 0x81),
            CL_SNORM_INT16 => {
                for pair in texel.chunks_exact_mut(2) {
                    if pair == 0x8000u16.to_ne_bytes() {
                        pair.copy_from_slice(&0x8001u16.to_ne_bytes());
                    }
                }
            }
            CL_HALF_FLOAT => texel.chunks_exact_mut(2).for_each(|pair| pair[1] &= 0xbf),
            _ => {}
        }
        texel
    }

    #[test]
    fn every_supported_format_round_trips_a_texel() {
        let mut formats = supported(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D);
        formats.push(f(CL_RGBA, CL_UNORM_INT_101010_2));
        formats.push(f(CL_RGBx, CL_UNORM_SHORT_565));
        for format in formats {
            for seed in 0..=255 {
                let texel = keepable(format, seed);
                let color = unpack(format, &texel);
                assert_eq!(pack(format, &color), texel, "{format:?} {color:?}");
            }
        }
    }

    #[test]
    fn every_packed_texel_has_the_element_size() {
        for format in supported(CL_MEM_READ_ONLY, CL_MEM_OBJECT_IMAGE2D) {
            let c = floats([0.3, -0.7, 1.5, 0.9]);
            assert_eq!(pack(format, &c).len(), format.element_size(), "{format:?}");
        }
        assert!(pack(f(0x1234, CL_FLOAT), &[0; 16]).is_empty());
    }
}
