//! The image builtins in kernels (OpenCL C 3.0 section 6.15.15): reads with
//! a sampler and without, writes and queries, for every image type, each
//! addressing and filter mode, normalized and unnormalized coordinates,
//! integer, normalized, half, float, packed and sRGB formats and every
//! channel order, against values computed here from the API spec's
//! "Image Addressing and Filtering" and its conversion rules.

use ferrocl_tests::*;
use std::ptr::null_mut;

// ---------------------------------------------------------------------------
// Formats, as the spec's tables describe them

// The sRGB orders, named so that they may be matched on.
const SRGB: cl_channel_order = CL_sRGB;
const SRGBA: cl_channel_order = CL_sRGBA;
const SBGRA: cl_channel_order = CL_sBGRA;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Format {
    order: cl_channel_order,
    ty: cl_channel_type,
}

const fn fmt(order: cl_channel_order, ty: cl_channel_type) -> Format {
    Format { order, ty }
}

impl Format {
    fn cl(self) -> cl_image_format {
        image_format(self.order, self.ty)
    }

    /// Channels stored per texel.
    fn channels(self) -> usize {
        match self.order {
            CL_R | CL_A | CL_INTENSITY | CL_LUMINANCE | CL_DEPTH => 1,
            CL_RG | CL_RA => 2,
            CL_RGB | SRGB => 3,
            _ => 4,
        }
    }

    fn channel_bytes(self) -> usize {
        match self.ty {
            CL_SNORM_INT8 | CL_UNORM_INT8 | CL_SIGNED_INT8 | CL_UNSIGNED_INT8 => 1,
            CL_SIGNED_INT32 | CL_UNSIGNED_INT32 | CL_FLOAT => 4,
            _ => 2,
        }
    }

    fn element_size(self) -> usize {
        match self.ty {
            CL_UNORM_SHORT_565 | CL_UNORM_SHORT_555 => 2,
            CL_UNORM_INT_101010 => 4,
            _ => self.channels() * self.channel_bytes(),
        }
    }

    fn is_srgb(self) -> bool {
        matches!(self.order, SRGB | SRGBA | SBGRA)
    }

    /// Which of (r, g, b, a) each stored channel holds.
    fn stored_rgba(self) -> &'static [usize] {
        match self.order {
            CL_A => &[3],
            CL_RA => &[0, 3],
            CL_RG => &[0, 1],
            CL_RGB | SRGB => &[0, 1, 2],
            CL_BGRA | SBGRA => &[2, 1, 0, 3],
            CL_ARGB => &[3, 0, 1, 2],
            CL_ABGR => &[3, 2, 1, 0],
            CL_RGBA | SRGBA => &[0, 1, 2, 3],
            _ => &[0], // R, INTENSITY, LUMINANCE, DEPTH
        }
    }

    /// The border colour of CLK_ADDRESS_CLAMP (the spec's list).
    fn border(self) -> [f32; 4] {
        match self.order {
            CL_R | CL_RG | CL_RGB | CL_LUMINANCE | SRGB => [0.0, 0.0, 0.0, 1.0],
            _ => [0.0; 4],
        }
    }

    /// (r, g, b, a) from the stored channels: missing colours 0, missing
    /// alpha `one`, intensity and luminance spread.
    fn place<T: Copy + Default>(self, v: [T; 4], one: T) -> [T; 4] {
        let z = T::default();
        match self.order {
            CL_INTENSITY => [v[0]; 4],
            CL_LUMINANCE => [v[0], v[0], v[0], one],
            _ => {
                let mut out = [z, z, z, one];
                for (i, &c) in self.stored_rgba().iter().enumerate() {
                    out[c] = v[i];
                }
                out
            }
        }
    }

    /// The bits of each stored channel of `texel`.
    fn split(self, t: &[u8]) -> [u32; 4] {
        let word = |i: usize, n: usize| {
            let mut b = [0u8; 4];
            b[..n].copy_from_slice(&t[i * n..i * n + n]);
            u32::from_le_bytes(b)
        };
        match self.ty {
            CL_UNORM_SHORT_565 => {
                let w = word(0, 2);
                [w >> 11, (w >> 5) & 63, w & 31, 0]
            }
            CL_UNORM_SHORT_555 => {
                let w = word(0, 2);
                [(w >> 10) & 31, (w >> 5) & 31, w & 31, 0]
            }
            CL_UNORM_INT_101010 => {
                let w = word(0, 4);
                [(w >> 20) & 1023, (w >> 10) & 1023, w & 1023, 0]
            }
            _ => {
                let mut c = [0; 4];
                for (i, ci) in c.iter_mut().enumerate().take(self.channels()) {
                    *ci = word(i, self.channel_bytes());
                }
                c
            }
        }
    }

    fn join(self, c: [u32; 4]) -> Vec<u8> {
        match self.ty {
            CL_UNORM_SHORT_565 => ((c[0] << 11 | c[1] << 5 | c[2]) as u16)
                .to_le_bytes()
                .to_vec(),
            CL_UNORM_SHORT_555 => ((c[0] << 10 | c[1] << 5 | c[2]) as u16)
                .to_le_bytes()
                .to_vec(),
            CL_UNORM_INT_101010 => (c[0] << 20 | c[1] << 10 | c[2]).to_le_bytes().to_vec(),
            _ => (0..self.channels())
                .flat_map(|i| c[i].to_le_bytes()[..self.channel_bytes()].to_vec())
                .collect(),
        }
    }

    /// read_imagef's value of a texel (the conversion rules).
    fn decode_float(self, t: &[u8]) -> [f32; 4] {
        let c = self.split(t);
        let mut v = [0f32; 4];
        for i in 0..4 {
            v[i] = match self.ty {
                CL_UNORM_INT8 if self.is_srgb() && i < 3 => srgb_to_linear(c[i] as f32 / 255.0),
                CL_UNORM_INT8 => c[i] as f32 / 255.0,
                CL_UNORM_INT16 => c[i] as f32 / 65535.0,
                CL_SNORM_INT8 => (c[i] as u8 as i8 as f32 / 127.0).max(-1.0),
                CL_SNORM_INT16 => (c[i] as u16 as i16 as f32 / 32767.0).max(-1.0),
                CL_UNORM_SHORT_565 => c[i] as f32 / [31.0, 63.0, 31.0, 1.0][i],
                CL_UNORM_SHORT_555 => c[i] as f32 / [31.0, 31.0, 31.0, 1.0][i],
                CL_UNORM_INT_101010 => c[i] as f32 / 1023.0,
                CL_HALF_FLOAT => half_to_f32(c[i] as u16),
                CL_FLOAT => f32::from_bits(c[i]),
                t => panic!("not a float type: {t:#x}"),
            };
        }
        self.place(v, 1.0)
    }

    fn decode_int(self, t: &[u8]) -> [i32; 4] {
        let c = self.split(t);
        let v = c.map(|x| match self.ty {
            CL_SIGNED_INT8 => x as u8 as i8 as i32,
            CL_SIGNED_INT16 => x as u16 as i16 as i32,
            _ => x as i32,
        });
        self.place(v, 1)
    }

    fn decode_uint(self, t: &[u8]) -> [u32; 4] {
        self.place(self.split(t), 1)
    }

    /// The texel write_imagef makes of `v`.
    fn encode_float(self, v: [f32; 4]) -> Vec<u8> {
        let mut c = [0u32; 4];
        for (i, &from) in self.stored_rgba().iter().enumerate() {
            let x = v[from];
            c[i] = match self.ty {
                CL_UNORM_INT8 => normalized(x, 255.0, 0.0),
                CL_UNORM_INT16 => normalized(x, 65535.0, 0.0),
                CL_SNORM_INT8 => normalized(x, 127.0, -127.0),
                CL_SNORM_INT16 => normalized(x, 32767.0, -32767.0),
                CL_UNORM_SHORT_565 => normalized(x, [31.0, 63.0, 31.0][i], 0.0),
                CL_UNORM_SHORT_555 => normalized(x, 31.0, 0.0),
                CL_UNORM_INT_101010 => normalized(x, 1023.0, 0.0),
                CL_HALF_FLOAT => f32_to_half(x) as u32,
                CL_FLOAT => x.to_bits(),
                t => panic!("not a float type: {t:#x}"),
            };
        }
        self.join(c)
    }

    fn encode_int(self, v: [i32; 4]) -> Vec<u8> {
        let mut c = [0u32; 4];
        for (i, &from) in self.stored_rgba().iter().enumerate() {
            c[i] = match self.ty {
                CL_SIGNED_INT8 => v[from].clamp(-128, 127),
                CL_SIGNED_INT16 => v[from].clamp(-32768, 32767),
                _ => v[from],
            } as u32;
        }
        self.join(c)
    }

    fn encode_uint(self, v: [u32; 4]) -> Vec<u8> {
        let mut c = [0u32; 4];
        for (i, &from) in self.stored_rgba().iter().enumerate() {
            c[i] = match self.ty {
                CL_UNSIGNED_INT8 => v[from].min(255),
                CL_UNSIGNED_INT16 => v[from].min(65535),
                _ => v[from],
            };
        }
        self.join(c)
    }
}

/// convert_<type>_sat_rte(x * scale), with the signed types kept to
/// [-scale, scale], as the Khronos CTS's reference does.
fn normalized(x: f32, scale: f32, lo: f32) -> u32 {
    if x.is_nan() {
        return 0;
    }
    ((x * scale).clamp(lo, scale).round_ties_even() as i32) as u32
}

fn srgb_to_linear(c: f32) -> f32 {
    let c = c as f64;
    (if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }) as f32
}

fn half_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f32;
    sign * match e {
        0 => m * 2f32.powi(-24),
        31 if m == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        _ => (1.0 + m / 1024.0) * 2f32.powi(e - 15),
    }
}

/// The half nearest `x`, ties to even: the candidates either side of |x|
/// are found among all finite halves.
fn f32_to_half(x: f32) -> u16 {
    if x.is_nan() {
        return 0x7e00;
    }
    let sign = if x.is_sign_negative() { 0x8000u16 } else { 0 };
    let a = x.abs() as f64;
    // Halves are ordered as their bits; 65536 stands beyond the largest.
    let value = |h: u16| {
        if h == 0x7c00 {
            65536.0
        } else {
            half_to_f32(h) as f64
        }
    };
    let below = (0..=0x7bffu16).rev().find(|&h| value(h) <= a).unwrap();
    if a == value(below) || below == 0x7bff && a >= 65536.0 {
        return sign | if a >= 65536.0 { 0x7c00 } else { below };
    }
    let above = below + 1;
    let (dl, du) = (a - value(below), value(above) - a);
    sign | if du < dl || (du == dl && below & 1 == 1) {
        above
    } else {
        below
    }
}

// ---------------------------------------------------------------------------
// Images: their kinds, their texels on the host, and the reference sampler

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    D1,
    D1Buffer,
    D1Array,
    D2,
    D2Array,
    D3,
}

const KINDS: [Kind; 6] = [
    Kind::D1,
    Kind::D1Buffer,
    Kind::D1Array,
    Kind::D2,
    Kind::D2Array,
    Kind::D3,
];

impl Kind {
    fn cl_type(self) -> &'static str {
        match self {
            Kind::D1 => "image1d_t",
            Kind::D1Buffer => "image1d_buffer_t",
            Kind::D1Array => "image1d_array_t",
            Kind::D2 => "image2d_t",
            Kind::D2Array => "image2d_array_t",
            Kind::D3 => "image3d_t",
        }
    }

    fn mem_type(self) -> cl_mem_object_type {
        match self {
            Kind::D1 => CL_MEM_OBJECT_IMAGE1D,
            Kind::D1Buffer => CL_MEM_OBJECT_IMAGE1D_BUFFER,
            Kind::D1Array => CL_MEM_OBJECT_IMAGE1D_ARRAY,
            Kind::D2 => CL_MEM_OBJECT_IMAGE2D,
            Kind::D2Array => CL_MEM_OBJECT_IMAGE2D_ARRAY,
            Kind::D3 => CL_MEM_OBJECT_IMAGE3D,
        }
    }

    /// Axes sampled (an array's layer is not one).
    fn dims(self) -> usize {
        match self {
            Kind::D1 | Kind::D1Buffer | Kind::D1Array => 1,
            Kind::D2 | Kind::D2Array => 2,
            Kind::D3 => 3,
        }
    }

    fn is_array(self) -> bool {
        matches!(self, Kind::D1Array | Kind::D2Array)
    }

    /// The coordinate an OpenCL C expression `c` of type float4 or int4
    /// gives this kind: its x, y and z in order, a layer last.
    fn coord(self, c: &str) -> String {
        match self {
            Kind::D1 | Kind::D1Buffer => format!("{c}.x"),
            Kind::D1Array | Kind::D2 => format!("{c}.xy"),
            Kind::D2Array | Kind::D3 => c.to_string(),
        }
    }
}

/// An image's texels on the host, packed: x, then y, then z or the layer.
#[derive(Clone)]
struct HostImage {
    kind: Kind,
    format: Format,
    /// Width, height and depth or layers (1 where the kind has none).
    size: [usize; 3],
    bytes: Vec<u8>,
}

#[derive(Clone, Copy, Debug)]
struct Modes {
    normalized: bool,
    addressing: cl_addressing_mode,
    filter: cl_filter_mode,
}

/// Where one axis of a coordinate falls: a texel index, or None for the
/// border.
fn nearest_axis(i: i64, n: i64, s: Modes) -> Option<i64> {
    match s.addressing {
        CL_ADDRESS_REPEAT if i > n - 1 => Some(i - n),
        CL_ADDRESS_REPEAT => Some(i),
        CL_ADDRESS_MIRRORED_REPEAT | CL_ADDRESS_CLAMP_TO_EDGE => Some(i.clamp(0, n - 1)),
        _ => (0..n).contains(&i).then_some(i),
    }
}

fn linear_axis(u: f32, n: i64, s: Modes) -> (Option<i64>, Option<i64>, f32) {
    let t = u - 0.5;
    let f = t.floor();
    let (mut i0, mut i1) = (f as i64, f as i64 + 1);
    let a = t - f;
    match s.addressing {
        CL_ADDRESS_REPEAT => {
            if i0 < 0 {
                i0 += n;
            }
            if i1 > n - 1 {
                i1 -= n;
            }
            (Some(i0), Some(i1), a)
        }
        CL_ADDRESS_MIRRORED_REPEAT => (Some(i0.max(0)), Some(i1.min(n - 1)), a),
        CL_ADDRESS_CLAMP_TO_EDGE => (Some(i0.clamp(0, n - 1)), Some(i1.clamp(0, n - 1)), a),
        _ => (
            (0..n).contains(&i0).then_some(i0),
            (0..n).contains(&i1).then_some(i1),
            a,
        ),
    }
}

impl HostImage {
    fn new(kind: Kind, format: Format, size: [usize; 3], seed: u64) -> HostImage {
        let n = size.iter().product::<usize>() * format.element_size();
        HostImage {
            kind,
            format,
            size,
            bytes: random_bytes(n, seed),
        }
    }

    fn texel_bytes(&self, at: [usize; 3]) -> &[u8] {
        let [w, h, _] = self.size;
        let es = self.format.element_size();
        let i = ((at[2] * h + at[1]) * w + at[0]) * es;
        &self.bytes[i..i + es]
    }

    /// The texel at (x, y, z or layer), or the border where an axis is None.
    fn texel(&self, at: [Option<i64>; 3]) -> [f32; 4] {
        match at {
            [Some(x), Some(y), Some(z)] => self
                .format
                .decode_float(self.texel_bytes([x as usize, y as usize, z as usize])),
            _ => self.format.border(),
        }
    }

    fn layer(&self, w: f32) -> i64 {
        (w.round_ties_even() as i64).clamp(0, self.size[2] as i64 - 1)
    }

    /// read_imagef(image, sampler, float coordinate c).
    fn sample(&self, s: Modes, c: [f32; 4]) -> [f32; 4] {
        let dims = self.kind.dims();
        let mut u = [0f32; 3];
        for (k, uk) in u.iter_mut().enumerate().take(dims) {
            let n = self.size[k] as f32;
            *uk = match s.addressing {
                CL_ADDRESS_REPEAT => (c[k] - c[k].floor()) * n,
                CL_ADDRESS_MIRRORED_REPEAT => {
                    (c[k] - 2.0 * (0.5 * c[k]).round_ties_even()).abs() * n
                }
                _ if s.normalized => c[k] * n,
                _ => c[k],
            };
        }
        let layer = self.kind.is_array().then(|| self.layer(c[dims]));
        let n = |k: usize| self.size[k] as i64;
        if s.filter == CL_FILTER_NEAREST {
            let mut at = [Some(0i64); 3];
            for k in 0..dims {
                at[k] = nearest_axis(u[k].floor() as i64, n(k), s);
            }
            if let Some(l) = layer {
                at[2] = Some(l);
            }
            return self.texel(at);
        }
        let mut axes = [(Some(0i64), Some(0i64), 0f32); 3];
        for k in 0..dims {
            axes[k] = linear_axis(u[k], n(k), s);
        }
        if let Some(l) = layer {
            axes[2] = (Some(l), Some(l), 0.0);
        }
        let mut sum = [0f64; 4];
        for corner in 0..8usize {
            let mut weight = 1f64;
            let mut at = [None; 3];
            for (k, &(i0, i1, a)) in axes.iter().enumerate() {
                let second = corner >> k & 1 == 1;
                at[k] = if second { i1 } else { i0 };
                weight *= if second { a as f64 } else { 1.0 - a as f64 };
            }
            if weight != 0.0 {
                let t = self.texel(at);
                for i in 0..4 {
                    sum[i] += weight * t[i] as f64;
                }
            }
        }
        sum.map(|x| x as f32)
    }
}

fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// An image on the device, with the buffer a 1D buffer image is made over.
struct DeviceImage {
    mem: Mem,
    _buffer: Option<Mem>,
}

fn create_image(e: &Env, flags: cl_mem_flags, img: &HostImage) -> DeviceImage {
    let [w, h, d] = img.size;
    let (h, d, layers) = match img.kind {
        Kind::D1 | Kind::D1Buffer => (0, 0, 0),
        Kind::D1Array => (0, 0, d),
        Kind::D2 => (h, 0, 0),
        Kind::D2Array => (h, 0, d),
        Kind::D3 => (h, d, 0),
    };
    let mut desc = image_desc(img.kind.mem_type(), w, h, d, layers);
    let host = img.bytes.as_ptr() as *mut _;
    if img.kind == Kind::D1Buffer {
        let buffer = e.buffer_from(&img.bytes);
        desc.buffer = buffer.get();
        let mem = ok(
            e.try_image(flags, &img.format.cl(), &desc, null_mut()),
            "clCreateImage(1D buffer)",
        );
        return DeviceImage {
            mem,
            _buffer: Some(buffer),
        };
    }
    let mem = ok(
        e.try_image(flags | CL_MEM_COPY_HOST_PTR, &img.format.cl(), &desc, host),
        "clCreateImage",
    );
    DeviceImage { mem, _buffer: None }
}

/// The image's bytes, packed, as the device holds them.
fn image_bytes(e: &Env, m: &Mem, img: &HostImage) -> Vec<u8> {
    let [w, h, d] = img.size;
    // A 1D array's layers are the region's second extent.
    let region = if img.kind == Kind::D1Array {
        [w, d, 1]
    } else {
        [w, h, d]
    };
    e.read_image::<u8>(m, [0, 0, 0], region, img.bytes.len())
}

fn sampler(e: &Env, s: Modes) -> Sampler {
    ok(
        e.try_sampler(s.normalized, s.addressing, s.filter),
        "clCreateSampler",
    )
}

fn set_sampler(k: &Kern, index: cl_uint, s: &Sampler) {
    ok(set_arg(k.get(), index, &s.get()), "set sampler arg");
}

fn set_image(k: &Kern, index: cl_uint, m: &Mem) {
    ok(set_mem(k.get(), index, m), "set image arg");
}

fn floats(v: &[[f32; 4]]) -> Vec<f32> {
    v.iter().flatten().copied().collect()
}

/// Equal, or within `tolerance` of the texels' magnitude `scale` (a blend
/// of up to 8 texels in float rounds a few times).
#[track_caller]
fn assert_close(
    got: &[f32],
    want: &[[f32; 4]],
    tolerance: f32,
    scale: f32,
    what: &dyn Fn(usize) -> String,
) {
    for (i, w) in want.iter().enumerate() {
        for ch in 0..4 {
            let (g, w) = (got[i * 4 + ch], w[ch]);
            let same = g.to_bits() == w.to_bits() || (g - w).abs() <= tolerance * scale;
            assert!(same, "{}: channel {ch}: got {g:e}, want {w:e}", what(i));
        }
    }
}

const ADDRESSING: [cl_addressing_mode; 5] = [
    CL_ADDRESS_NONE,
    CL_ADDRESS_CLAMP_TO_EDGE,
    CL_ADDRESS_CLAMP,
    CL_ADDRESS_REPEAT,
    CL_ADDRESS_MIRRORED_REPEAT,
];

/// The samplers the spec defines results for: REPEAT and MIRRORED_REPEAT
/// only with normalized coordinates.
fn samplers() -> Vec<Modes> {
    let mut v = Vec::new();
    for normalized in [false, true] {
        for addressing in ADDRESSING {
            if !normalized && matches!(addressing, CL_ADDRESS_REPEAT | CL_ADDRESS_MIRRORED_REPEAT) {
                continue;
            }
            for filter in [CL_FILTER_NEAREST, CL_FILTER_LINEAR] {
                v.push(Modes {
                    normalized,
                    addressing,
                    filter,
                });
            }
        }
    }
    v
}

/// Coordinates across and beyond `img` (unnormalized), away from texel
/// edges by a little so that rounding cannot pick another texel; for
/// CLK_ADDRESS_NONE, whose results outside the image are undefined, only
/// those whose texels (both of a linear filter's) are inside.
fn coordinates(img: &HostImage, s: Modes, count: usize, seed: u64) -> Vec<[f32; 4]> {
    let dims = img.kind.dims();
    let r = random_bytes(count * 8, seed);
    let mut v = Vec::new();
    for i in 0..count {
        let mut c = [0f32; 4];
        for k in 0..dims {
            let n = img.size[k] as f32;
            let q = u16::from_le_bytes([r[i * 8 + 2 * k], r[i * 8 + 2 * k + 1]]) as f32 / 65536.0;
            let (lo, hi) = if s.addressing == CL_ADDRESS_NONE {
                (0.5, n - 0.5)
            } else {
                (-2.0 * n, 3.0 * n)
            };
            // Off the grid of texel edges and centres by 1/16 of a texel.
            let u = ((lo + q * (hi - lo)) * 8.0).round() / 8.0 + 1.0 / 16.0;
            let u = if s.addressing == CL_ADDRESS_NONE {
                u.clamp(lo, hi)
            } else {
                u
            };
            c[k] = if s.normalized { u / n } else { u };
        }
        if img.kind.is_array() {
            // Layers from below the first to beyond the last, with ties
            // that round to even.
            c[dims] = (r[i * 8 + 7] % (2 * img.size[2] as u8 + 6)) as f32 * 0.5 - 1.5;
        }
        v.push(c);
    }
    v
}

/// A kernel reading `img` with a sampler argument at float4 coordinates.
fn sampled_read_source(kind: Kind, read: &str, result: &str) -> String {
    format!(
        "kernel void k(read_only {t} im, sampler_t s, global const float4 *c, global {result} *o) {{\n\
           size_t i = get_global_id(0);\n  o[i] = {read}(im, s, {coord});\n}}\n",
        t = kind.cl_type(),
        coord = kind.coord("c[i]")
    )
}

/// Runs kernel `k(image, sampler, coords, out)` and returns out as floats.
fn run_sampled(e: &Env, k: &Kern, m: &Mem, s: Option<&Sampler>, coords: &[[f32; 4]]) -> Vec<f32> {
    let c = e.buffer_from(&floats(coords));
    let out = e.buffer(coords.len() * 16);
    set_image(k, 0, m);
    let mut next = 1;
    if let Some(s) = s {
        set_sampler(k, 1, s);
        next = 2;
    }
    ok(set_mem(k.get(), next, &c), "set arg");
    ok(set_mem(k.get(), next + 1, &out), "set arg");
    e.run(k, &[coords.len()], None);
    e.read::<f32>(&out, 0, coords.len() * 4)
}

// ---------------------------------------------------------------------------
// Sampled reads

#[test]
fn read_imagef_2d_under_every_sampler() {
    let e = Env::new();
    let img = HostImage::new(Kind::D2, fmt(CL_RGBA, CL_UNORM_INT8), [7, 5, 1], 1);
    let dev = create_image(&e, CL_MEM_READ_ONLY, &img);
    let (_p, k) = e.kernel(&sampled_read_source(Kind::D2, "read_imagef", "float4"), "k");
    for (n, s) in samplers().into_iter().enumerate() {
        let coords = coordinates(&img, s, 256, 10 + n as u64);
        let got = run_sampled(&e, &k, &dev.mem, Some(&sampler(&e, s)), &coords);
        let want: Vec<_> = coords.iter().map(|&c| img.sample(s, c)).collect();
        assert_close(&got, &want, 1e-6, 1.0, &|i| {
            format!("{s:?} at {:?}", coords[i])
        });
    }
}

#[test]
fn every_image_type_is_sampled() {
    let e = Env::new();
    let f = fmt(CL_RG, CL_FLOAT);
    for (kind, size) in [
        (Kind::D1, [13, 1, 1]),
        (Kind::D1Array, [9, 1, 4]),
        (Kind::D2Array, [6, 5, 3]),
        (Kind::D3, [5, 4, 6]),
    ] {
        let mut img = HostImage::new(kind, f, size, 2);
        // Floats of moderate size instead of random bits.
        let texels: Vec<f32> = img.bytes.chunks(4).map(|b| b[0] as f32 - 128.0).collect();
        img.bytes = texels.iter().flat_map(|x| x.to_le_bytes()).collect();
        let dev = create_image(&e, CL_MEM_READ_ONLY, &img);
        let (_p, k) = e.kernel(&sampled_read_source(kind, "read_imagef", "float4"), "k");
        for (n, s) in samplers().into_iter().enumerate() {
            let coords = coordinates(&img, s, 200, 20 + n as u64);
            let got = run_sampled(&e, &k, &dev.mem, Some(&sampler(&e, s)), &coords);
            let want: Vec<_> = coords.iter().map(|&c| img.sample(s, c)).collect();
            assert_close(&got, &want, 1e-6, 128.0, &|i| {
                format!("{kind:?} {s:?} at {:?}", coords[i])
            });
        }
    }
}

#[test]
fn a_constant_sampler_reads_as_the_same_sampler_argument_does() {
    let e = Env::new();
    let img = HostImage::new(Kind::D2, fmt(CL_RGBA, CL_UNORM_INT16), [6, 7, 1], 3);
    let dev = create_image(&e, CL_MEM_READ_ONLY, &img);
    let src = "constant sampler_t program_scope = CLK_NORMALIZED_COORDS_FALSE | \
               CLK_ADDRESS_CLAMP | CLK_FILTER_LINEAR;\n\
               kernel void in_kernel(read_only image2d_t im, global const float4 *c, global float4 *o) {\n\
                 const sampler_t s = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_MIRRORED_REPEAT | CLK_FILTER_LINEAR;\n\
                 size_t i = get_global_id(0);\n  o[i] = read_imagef(im, s, c[i].xy);\n}\n\
               kernel void at_program_scope(read_only image2d_t im, global const float4 *c, global float4 *o) {\n\
                 size_t i = get_global_id(0);\n  o[i] = read_imagef(im, program_scope, c[i].xy);\n}\n\
               kernel void argument(read_only image2d_t im, sampler_t s, global const float4 *c, global float4 *o) {\n\
                 size_t i = get_global_id(0);\n  o[i] = read_imagef(im, s, c[i].xy);\n}\n";
    let p = e.program(src, "");
    for (name, s) in [
        (
            "in_kernel",
            Modes {
                normalized: true,
                addressing: CL_ADDRESS_MIRRORED_REPEAT,
                filter: CL_FILTER_LINEAR,
            },
        ),
        (
            "at_program_scope",
            Modes {
                normalized: false,
                addressing: CL_ADDRESS_CLAMP,
                filter: CL_FILTER_LINEAR,
            },
        ),
    ] {
        let coords = coordinates(&img, s, 300, 30);
        let want: Vec<_> = coords.iter().map(|&c| img.sample(s, c)).collect();
        let k = ok(create_kernel(p.get(), name), "clCreateKernel");
        let constant = run_sampled(&e, &k, &dev.mem, None, &coords);
        assert_close(&constant, &want, 1e-6, 1.0, &|i| {
            format!("{name} at {:?}", coords[i])
        });
        let k = ok(create_kernel(p.get(), "argument"), "clCreateKernel");
        let argument = run_sampled(&e, &k, &dev.mem, Some(&sampler(&e, s)), &coords);
        assert_eq!(
            constant.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            argument.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            "{name}: a sampler argument of the same modes reads the same"
        );
    }
}

#[test]
fn integer_formats_read_the_nearest_texel_and_an_integer_border() {
    let e = Env::new();
    for (f, read, result) in [
        (fmt(CL_RGBA, CL_SIGNED_INT8), "read_imagei", "int4"),
        (fmt(CL_RG, CL_SIGNED_INT16), "read_imagei", "int4"),
        (fmt(CL_R, CL_SIGNED_INT32), "read_imagei", "int4"),
        (fmt(CL_RGBA, CL_UNSIGNED_INT8), "read_imageui", "uint4"),
        (fmt(CL_RA, CL_UNSIGNED_INT16), "read_imageui", "uint4"),
        (fmt(CL_A, CL_UNSIGNED_INT32), "read_imageui", "uint4"),
    ] {
        let img = HostImage::new(Kind::D2, f, [5, 6, 1], 4);
        let dev = create_image(&e, CL_MEM_READ_ONLY, &img);
        let (_p, k) = e.kernel(&sampled_read_source(Kind::D2, read, result), "k");
        for s in samplers()
            .into_iter()
            .filter(|s| s.filter == CL_FILTER_NEAREST)
        {
            let coords = coordinates(&img, s, 200, 40);
            let got = run_sampled(&e, &k, &dev.mem, Some(&sampler(&e, s)), &coords);
            for (i, &c) in coords.iter().enumerate() {
                // The reference's texel choice, then the integer value.
                let at = nearest_texel(&img, s, c);
                let want: Vec<u32> = match at {
                    Some(at) if read == "read_imagei" => f
                        .decode_int(img.texel_bytes(at))
                        .iter()
                        .map(|&x| x as u32)
                        .collect(),
                    Some(at) => f.decode_uint(img.texel_bytes(at)).to_vec(),
                    None => f.border().iter().map(|&x| x as u32).collect(),
                };
                let have: Vec<u32> = got[i * 4..i * 4 + 4].iter().map(|x| x.to_bits()).collect();
                assert_eq!(have, want, "{f:?} {s:?} at {c:?}");
            }
        }
    }
}

/// The texel a nearest filter takes for `c` in a 2D image, or None for the
/// border.
fn nearest_texel(img: &HostImage, s: Modes, c: [f32; 4]) -> Option<[usize; 3]> {
    let mut at = [0usize; 3];
    for k in 0..2 {
        let n = img.size[k] as f32;
        let u = match s.addressing {
            CL_ADDRESS_REPEAT => (c[k] - c[k].floor()) * n,
            CL_ADDRESS_MIRRORED_REPEAT => (c[k] - 2.0 * (0.5 * c[k]).round_ties_even()).abs() * n,
            _ if s.normalized => c[k] * n,
            _ => c[k],
        };
        at[k] = nearest_axis(u.floor() as i64, n as i64, s)? as usize;
    }
    Some(at)
}

#[test]
fn integer_coordinates_read_texels_with_a_sampler_and_without() {
    let e = Env::new();
    let f = fmt(CL_RGBA, CL_UNSIGNED_INT16);
    for kind in KINDS {
        let size = match kind.dims() {
            1 => [11, 1, if kind.is_array() { 3 } else { 1 }],
            2 => [4, 5, if kind.is_array() { 3 } else { 1 }],
            _ => [3, 4, 5],
        };
        let img = HostImage::new(kind, f, size, 5);
        let dev = create_image(&e, CL_MEM_READ_ONLY, &img);
        let t = kind.cl_type();
        let coord = kind.coord("c[i]");
        let mut src = format!(
            "kernel void plain(read_only {t} im, global const int4 *c, global uint4 *o) {{\n\
               size_t i = get_global_id(0);\n  o[i] = read_imageui(im, {coord});\n}}\n"
        );
        if kind != Kind::D1Buffer {
            src += &format!(
                "kernel void sampled(read_only {t} im, sampler_t s, global const int4 *c, global uint4 *o) {{\n\
                   size_t i = get_global_id(0);\n  o[i] = read_imageui(im, s, {coord});\n}}\n"
            );
        }
        let p = e.program(&src, "");
        // Every texel, then (with a sampler) some outside the image.
        let mut inside = Vec::new();
        for z in 0..size[2] {
            for y in 0..size[1] {
                for x in 0..size[0] {
                    let mut c = [x as i32, y as i32, z as i32, 0];
                    if kind == Kind::D1Array {
                        c = [x as i32, z as i32, 0, 0];
                    }
                    inside.push((c, Some([x, y, z])));
                }
            }
        }
        let run = |name: &str, s: Option<&Sampler>, cs: &[([i32; 4], Option<[usize; 3]>)]| {
            let k = ok(create_kernel(p.get(), name), "clCreateKernel");
            let c = e.buffer_from(&cs.iter().flat_map(|x| x.0).collect::<Vec<i32>>());
            let out = e.buffer(cs.len() * 16);
            set_image(&k, 0, &dev.mem);
            let mut a = 1;
            if let Some(s) = s {
                set_sampler(&k, 1, s);
                a = 2;
            }
            ok(set_mem(k.get(), a, &c), "set arg");
            ok(set_mem(k.get(), a + 1, &out), "set arg");
            e.run(&k, &[cs.len()], None);
            e.read::<u32>(&out, 0, cs.len() * 4)
        };
        let got = run("plain", None, &inside);
        for (i, (c, at)) in inside.iter().enumerate() {
            let want = f.decode_uint(img.texel_bytes(at.unwrap()));
            assert_eq!(
                &got[i * 4..i * 4 + 4],
                &want,
                "{kind:?} read_imageui at {c:?}"
            );
        }
        if kind == Kind::D1Buffer {
            continue;
        }
        // Beyond each edge of each axis (an array's layer stays 0).
        let [w, h, d] = size.map(|v| v as i32);
        let mut beyond = vec![[-1, 0, 0, 0], [w, 0, 0, 0]];
        if kind.dims() >= 2 {
            beyond.extend([[0, -3, 0, 0], [1, h + 2, 0, 0]]);
        }
        if kind.dims() == 3 {
            beyond.extend([[0, 1, -1, 0], [2, 0, d, 0]]);
        }
        let mut outside = inside.clone();
        outside.extend(beyond.into_iter().map(|c| (c, None)));
        for addressing in [CL_ADDRESS_CLAMP, CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_NONE] {
            let s = Modes {
                normalized: false,
                addressing,
                filter: CL_FILTER_NEAREST,
            };
            let cases: Vec<_> = if addressing == CL_ADDRESS_NONE {
                inside.clone()
            } else {
                outside.clone()
            };
            let got = run("sampled", Some(&sampler(&e, s)), &cases);
            for (i, (c, at)) in cases.iter().enumerate() {
                let want = match (at, addressing) {
                    (Some(at), _) => f.decode_uint(img.texel_bytes(*at)),
                    (None, CL_ADDRESS_CLAMP) => [0, 0, 0, 0],
                    (None, _) => {
                        let edge = |k: usize| c[k].clamp(0, size[k] as i32 - 1) as usize;
                        let at = match kind.dims() {
                            1 => [edge(0), 0, 0],
                            2 => [edge(0), edge(1), 0],
                            _ => [edge(0), edge(1), edge(2)],
                        };
                        f.decode_uint(img.texel_bytes(at))
                    }
                };
                assert_eq!(&got[i * 4..i * 4 + 4], &want, "{kind:?} {s:?} at {c:?}");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Writes

/// Read-write images are OpenCL C 2.0 and later; a program without
/// -cl-std is OpenCL C 1.2.
fn std_for(access: &str) -> &'static str {
    if access == "read_write" {
        "-cl-std=CL3.0"
    } else {
        ""
    }
}

/// A kernel writing `value(i)` to texel c[i] of an image of `kind`.
fn write_source(kind: Kind, access: &str, write: &str, ty: &str) -> String {
    format!(
        "kernel void k({access} {t} im, global const int4 *c, global const {ty} *v) {{\n\
           size_t i = get_global_id(0);\n  {write}(im, {coord}, v[i]);\n}}\n",
        t = kind.cl_type(),
        coord = kind.coord("c[i]")
    )
}

/// The coordinate of texel `at` (x, y, z or layer) as a kind reads it.
fn coordinate_of(kind: Kind, at: [usize; 3]) -> [i32; 4] {
    let [x, y, z] = at.map(|v| v as i32);
    match kind {
        Kind::D1Array => [x, z, 0, 0],
        _ => [x, y, z, 0],
    }
}

fn all_texels(size: [usize; 3]) -> Vec<[usize; 3]> {
    let mut v = Vec::new();
    for z in 0..size[2] {
        for y in 0..size[1] {
            for x in 0..size[0] {
                v.push([x, y, z]);
            }
        }
    }
    v
}

/// Writes `values` (16 bytes each) to every texel of a fresh image of
/// `kind` and `f`, with `[access qualifier, write function, value type]`,
/// and returns the image's bytes.
fn write_every_texel(
    e: &Env,
    kind: Kind,
    f: Format,
    size: [usize; 3],
    [access, write, ty]: [&str; 3],
    values: &[u8],
) -> Vec<u8> {
    let img = HostImage {
        kind,
        format: f,
        size,
        bytes: vec![0; size.iter().product::<usize>() * f.element_size()],
    };
    let flags = if access == "read_write" {
        CL_MEM_READ_WRITE
    } else {
        CL_MEM_WRITE_ONLY
    };
    let dev = create_image(e, flags, &img);
    let (_p, k) = e.kernel_opts(&write_source(kind, access, write, ty), "k", std_for(access));
    let texels = all_texels(size);
    let coords: Vec<i32> = texels
        .iter()
        .flat_map(|&t| coordinate_of(kind, t))
        .collect();
    let c = e.buffer_from(&coords);
    let v = e.buffer_from(&values[..texels.len() * 16]);
    set_image(&k, 0, &dev.mem);
    ok(set_mem(k.get(), 1, &c), "set arg");
    ok(set_mem(k.get(), 2, &v), "set arg");
    e.run(&k, &[texels.len()], None);
    image_bytes(e, &dev.mem, &img)
}

#[test]
fn writes_reach_every_texel_of_every_image_type() {
    let e = Env::new();
    let f = fmt(CL_RGBA, CL_UNSIGNED_INT32);
    for kind in KINDS {
        let size = match kind.dims() {
            1 => [37, 1, if kind.is_array() { 3 } else { 1 }],
            2 => [7, 5, if kind.is_array() { 4 } else { 1 }],
            _ => [4, 3, 5],
        };
        let n = size.iter().product::<usize>();
        let values: Vec<u32> = (0..4 * n as u32).map(|i| i * 2654435761).collect();
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        for access in ["write_only", "read_write"] {
            let got = write_every_texel(
                &e,
                kind,
                f,
                size,
                [access, "write_imageui", "uint4"],
                &bytes,
            );
            assert_eq!(got, bytes, "{kind:?} {access}: every texel holds its value");
        }
    }
}

/// Values that reach each conversion's edges: out of range, halfway
/// between steps, NaN, infinities, the half's overflow and subnormals.
fn float_values() -> Vec<f32> {
    let mut v = vec![
        -2.0,
        -1.0,
        -0.5,
        0.0,
        -0.0,
        1.0 / 510.0, // half a UNORM8 step: 0.5, to even 0
        3.0 / 510.0, // 1.5: to even 2
        0.5,
        1.0,
        1.5,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        65504.0,
        65520.0,
        1e-7,
        6e-8,
        0.1,
        1.0 / 254.0, // half an SNORM8 step
        -3.0 / 254.0,
    ];
    let r = random_bytes(4 * 64, 7);
    v.extend(r.chunks(4).map(|b| {
        let q = u32::from_le_bytes(b.try_into().unwrap());
        q as f32 / u32::MAX as f32 * 2.4 - 1.2
    }));
    v
}

#[test]
fn write_imagef_rounds_to_nearest_even_and_saturates() {
    let e = Env::new();
    let values = float_values();
    for ty in [
        CL_UNORM_INT8,
        CL_UNORM_INT16,
        CL_SNORM_INT8,
        CL_SNORM_INT16,
        CL_HALF_FLOAT,
        CL_FLOAT,
    ] {
        let f = fmt(CL_RGBA, ty);
        let n = values.len().div_ceil(4);
        let mut v: Vec<f32> = values.clone();
        v.resize(n * 4, 0.25);
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        let got = write_every_texel(
            &e,
            Kind::D1,
            f,
            [n, 1, 1],
            ["write_only", "write_imagef", "float4"],
            &bytes,
        );
        for i in 0..n {
            let rgba: [f32; 4] = v[i * 4..i * 4 + 4].try_into().unwrap();
            let es = f.element_size();
            assert_eq!(
                &got[i * es..(i + 1) * es],
                &f.encode_float(rgba)[..],
                "{f:?} write_imagef({rgba:?})"
            );
        }
    }
}

#[test]
fn read_imagef_converts_every_value_of_the_normalized_and_half_types() {
    let e = Env::new();
    for (ty, values) in [
        (CL_UNORM_INT8, 256usize),
        (CL_SNORM_INT8, 256),
        (CL_UNORM_INT16, 65536),
        (CL_SNORM_INT16, 65536),
        (CL_HALF_FLOAT, 65536),
    ] {
        let f = fmt(CL_R, ty);
        let bytes: Vec<u8> = (0..values as u32)
            .flat_map(|x| x.to_le_bytes()[..f.element_size()].to_vec())
            .collect();
        // A 2D image of 256 columns.
        let img = HostImage {
            kind: Kind::D2,
            format: f,
            size: [256, values / 256, 1],
            bytes,
        };
        let dev = create_image(&e, CL_MEM_READ_ONLY, &img);
        let src = "kernel void k(read_only image2d_t im, global float4 *o) {\n\
                   int x = get_global_id(0), y = get_global_id(1);\n\
                   o[y * 256 + x] = read_imagef(im, (int2)(x, y));\n}\n";
        let (_p, k) = e.kernel(src, "k");
        let out = e.buffer(values * 16);
        set_image(&k, 0, &dev.mem);
        ok(set_mem(k.get(), 1, &out), "set arg");
        e.run(&k, &[256, values / 256], None);
        let got = e.read::<f32>(&out, 0, values * 4);
        for (i, t) in all_texels(img.size).into_iter().enumerate() {
            let want = f.decode_float(img.texel_bytes(t));
            let have = &got[i * 4..i * 4 + 4];
            let same = have
                .iter()
                .zip(want)
                .all(|(&h, w)| h.to_bits() == w.to_bits() || (h.is_nan() && w.is_nan()));
            assert!(
                same,
                "{f:?} texel {:?}: got {have:?}, want {want:?}",
                img.texel_bytes(t)
            );
        }
    }
}

#[test]
fn integer_writes_saturate_and_reads_sign_extend() {
    let e = Env::new();
    let ints = [
        i32::MIN,
        -70000,
        -32769,
        -32768,
        -129,
        -128,
        -1,
        0,
        1,
        127,
        128,
        255,
        256,
        32767,
        32768,
        65535,
        65536,
        i32::MAX,
    ];
    for ty in [
        CL_SIGNED_INT8,
        CL_SIGNED_INT16,
        CL_SIGNED_INT32,
        CL_UNSIGNED_INT8,
        CL_UNSIGNED_INT16,
        CL_UNSIGNED_INT32,
    ] {
        let f = fmt(CL_RGBA, ty);
        let signed = matches!(ty, CL_SIGNED_INT8 | CL_SIGNED_INT16 | CL_SIGNED_INT32);
        let (write, read, t) = if signed {
            ("write_imagei", "read_imagei", "int4")
        } else {
            ("write_imageui", "read_imageui", "uint4")
        };
        let mut v: Vec<i32> = ints.to_vec();
        v.resize(20, 5);
        let n = v.len() / 4;
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        let got = write_every_texel(&e, Kind::D1, f, [n, 1, 1], ["read_write", write, t], &bytes);
        let es = f.element_size();
        for i in 0..n {
            let val: [i32; 4] = v[i * 4..i * 4 + 4].try_into().unwrap();
            let want = if signed {
                f.encode_int(val)
            } else {
                f.encode_uint(val.map(|x| x as u32))
            };
            assert_eq!(
                &got[i * es..(i + 1) * es],
                &want[..],
                "{f:?} {write}({val:?})"
            );
        }
        // And read back, sign- or zero-extended.
        let img = HostImage {
            kind: Kind::D1,
            format: f,
            size: [n, 1, 1],
            bytes: got,
        };
        let dev = create_image(&e, CL_MEM_READ_ONLY, &img);
        let src = format!(
            "kernel void k(read_only image1d_t im, global {t} *o) {{\n\
               int x = get_global_id(0);\n  o[x] = {read}(im, x);\n}}\n"
        );
        let (_p, k) = e.kernel(&src, "k");
        let out = e.buffer(n * 16);
        set_image(&k, 0, &dev.mem);
        ok(set_mem(k.get(), 1, &out), "set arg");
        e.run(&k, &[n], None);
        let read_back = e.read::<u32>(&out, 0, n * 4);
        for i in 0..n {
            let texel = img.texel_bytes([i, 0, 0]);
            let want: [u32; 4] = if signed {
                f.decode_int(texel).map(|x| x as u32)
            } else {
                f.decode_uint(texel)
            };
            assert_eq!(
                &read_back[i * 4..i * 4 + 4],
                &want,
                "{f:?} {read} of {texel:?}"
            );
        }
    }
}

#[test]
fn packed_formats_hold_their_channels_in_their_bits() {
    let e = Env::new();
    let values = float_values();
    for ty in [CL_UNORM_SHORT_565, CL_UNORM_SHORT_555, CL_UNORM_INT_101010] {
        let f = fmt(CL_RGB, ty);
        let n = values.len().div_ceil(4);
        let mut v = values.clone();
        v.resize(n * 4, 0.75);
        let bytes: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        let got = write_every_texel(
            &e,
            Kind::D2,
            f,
            [n, 1, 1],
            ["write_only", "write_imagef", "float4"],
            &bytes,
        );
        let es = f.element_size();
        for i in 0..n {
            let rgba: [f32; 4] = v[i * 4..i * 4 + 4].try_into().unwrap();
            assert_eq!(
                &got[i * es..(i + 1) * es],
                &f.encode_float(rgba)[..],
                "{f:?} write_imagef({rgba:?})"
            );
        }
        // Reads of random texels: (r, g, b, 1).
        let img = HostImage::new(Kind::D2, f, [16, 8, 1], 8);
        let dev = create_image(&e, CL_MEM_READ_ONLY, &img);
        let s = Modes {
            normalized: true,
            addressing: CL_ADDRESS_REPEAT,
            filter: CL_FILTER_LINEAR,
        };
        let (_p, k) = e.kernel(&sampled_read_source(Kind::D2, "read_imagef", "float4"), "k");
        let coords = coordinates(&img, s, 200, 9);
        let got = run_sampled(&e, &k, &dev.mem, Some(&sampler(&e, s)), &coords);
        let want: Vec<_> = coords.iter().map(|&c| img.sample(s, c)).collect();
        assert_close(&got, &want, 1e-6, 1.0, &|i| {
            format!("{f:?} at {:?}", coords[i])
        });
    }
}

// ---------------------------------------------------------------------------
// Channel orders, sRGB and depth

#[test]
fn channel_orders_fill_missing_channels_and_pick_their_border() {
    let e = Env::new();
    let orders = [
        CL_R,
        CL_A,
        CL_RG,
        CL_RA,
        CL_RGBA,
        CL_BGRA,
        CL_ARGB,
        CL_ABGR,
        CL_INTENSITY,
        CL_LUMINANCE,
    ];
    let s = Modes {
        normalized: false,
        addressing: CL_ADDRESS_CLAMP,
        filter: CL_FILTER_NEAREST,
    };
    for order in orders {
        let f = fmt(order, CL_UNORM_INT8);
        let img = HostImage::new(Kind::D2, f, [3, 2, 1], 11);
        let dev = create_image(&e, CL_MEM_READ_ONLY, &img);
        let (_p, k) = e.kernel(&sampled_read_source(Kind::D2, "read_imagef", "float4"), "k");
        let coords = vec![
            [0.5, 0.5, 0.0, 0.0],
            [2.5, 1.5, 0.0, 0.0],
            [-0.5, 0.5, 0.0, 0.0],
            [1.5, 7.0, 0.0, 0.0],
        ];
        let got = run_sampled(&e, &k, &dev.mem, Some(&sampler(&e, s)), &coords);
        let c = |x: usize, y: usize| {
            img.texel_bytes([x, y, 0])
                .iter()
                .map(|&b| b as f32 / 255.0)
                .collect::<Vec<_>>()
        };
        // The spec's table of orders, spelled out.
        let texel = |t: Vec<f32>| -> [f32; 4] {
            match order {
                CL_R => [t[0], 0.0, 0.0, 1.0],
                CL_A => [0.0, 0.0, 0.0, t[0]],
                CL_RG => [t[0], t[1], 0.0, 1.0],
                CL_RA => [t[0], 0.0, 0.0, t[1]],
                CL_RGBA => [t[0], t[1], t[2], t[3]],
                CL_BGRA => [t[2], t[1], t[0], t[3]],
                CL_ARGB => [t[1], t[2], t[3], t[0]],
                CL_ABGR => [t[3], t[2], t[1], t[0]],
                CL_INTENSITY => [t[0]; 4],
                _ => [t[0], t[0], t[0], 1.0],
            }
        };
        let border = match order {
            CL_R | CL_RG | CL_LUMINANCE => [0.0, 0.0, 0.0, 1.0],
            _ => [0.0; 4],
        };
        let want = [texel(c(0, 0)), texel(c(2, 1)), border, border];
        assert_close(&got, &want, 0.0, 1.0, &|i| {
            format!("order {order:#x} at {:?}", coords[i])
        });
        // Writes put each of (r, g, b, a) where the order stores it.
        let rgba = [0.2f32, 0.4, 0.6, 0.8];
        let bytes: Vec<u8> = rgba.iter().flat_map(|x| x.to_le_bytes()).collect();
        let written = write_every_texel(
            &e,
            Kind::D2,
            f,
            [1, 1, 1],
            ["write_only", "write_imagef", "float4"],
            &bytes,
        );
        let stored: Vec<u8> = match order {
            CL_R | CL_INTENSITY | CL_LUMINANCE => vec![51],
            CL_A => vec![204],
            CL_RG => vec![51, 102],
            CL_RA => vec![51, 204],
            CL_RGBA => vec![51, 102, 153, 204],
            CL_BGRA => vec![153, 102, 51, 204],
            CL_ARGB => vec![204, 51, 102, 153],
            _ => vec![204, 153, 102, 51],
        };
        assert_eq!(written, stored, "order {order:#x}: write_imagef({rgba:?})");
    }
}

#[test]
fn srgb_images_read_linear_values() {
    let e = Env::new();
    for order in [SRGB, SRGBA, SBGRA] {
        let f = fmt(order, CL_UNORM_INT8);
        let channels = f.channels();
        // Every value in every channel, over 256 texels.
        let bytes: Vec<u8> = (0..256usize)
            .flat_map(|i| (0..channels).map(move |c| ((i + 85 * c) % 256) as u8))
            .collect();
        let img = HostImage {
            kind: Kind::D2,
            format: f,
            size: [256, 1, 1],
            bytes,
        };
        let dev = create_image(&e, CL_MEM_READ_ONLY, &img);
        let (_p, k) = e.kernel(&sampled_read_source(Kind::D2, "read_imagef", "float4"), "k");
        for filter in [CL_FILTER_NEAREST, CL_FILTER_LINEAR] {
            let s = Modes {
                normalized: false,
                addressing: CL_ADDRESS_CLAMP_TO_EDGE,
                filter,
            };
            // Texel centres, then halfway between neighbours: a blend of
            // linear values.
            let coords: Vec<[f32; 4]> = (0..256)
                .map(|x| [x as f32 + 0.5, 0.5, 0.0, 0.0])
                .chain((0..255).map(|x| [x as f32 + 1.0, 0.5, 0.0, 0.0]))
                .collect();
            let got = run_sampled(&e, &k, &dev.mem, Some(&sampler(&e, s)), &coords);
            let want: Vec<_> = coords.iter().map(|&c| img.sample(s, c)).collect();
            assert_close(&got, &want, 2e-7, 1.0, &|i| {
                format!("order {order:#x} {s:?} at {:?}", coords[i])
            });
        }
    }
}

#[test]
fn depth_images_read_and_write_one_float() {
    let e = Env::new();
    for (ty, array) in [
        (CL_FLOAT, false),
        (CL_UNORM_INT16, false),
        (CL_FLOAT, true),
        (CL_UNORM_INT16, true),
    ] {
        let f = fmt(CL_DEPTH, ty);
        let (t, mem_type, size) = if array {
            (
                "image2d_array_depth_t",
                CL_MEM_OBJECT_IMAGE2D_ARRAY,
                [5, 4, 3],
            )
        } else {
            ("image2d_depth_t", CL_MEM_OBJECT_IMAGE2D, [5, 4, 1])
        };
        let coord = if array { "c[i]" } else { "c[i].xy" };
        let src = format!(
            "kernel void wr(write_only {t} im, global const int4 *c, global const float *v) {{\n\
               size_t i = get_global_id(0);\n  write_imagef(im, {coord}, v[i]);\n}}\n\
             kernel void rd(read_only {t} im, sampler_t s, global const float4 *c, global float *o) {{\n\
               size_t i = get_global_id(0);\n  o[i] = read_imagef(im, s, {coord});\n}}\n"
        );
        let p = e.program(&src, "");
        let texels = all_texels(size);
        let depths: Vec<f32> = (0..texels.len())
            .map(|i| (i as f32 * 0.37).fract())
            .collect();
        let desc = image_desc(
            mem_type,
            size[0],
            size[1],
            0,
            if array { size[2] } else { 0 },
        );
        let written = ok(
            e.try_image(CL_MEM_READ_WRITE, &f.cl(), &desc, null_mut()),
            "clCreateImage",
        );
        let k = ok(create_kernel(p.get(), "wr"), "clCreateKernel");
        let coords: Vec<i32> = texels
            .iter()
            .flat_map(|&[x, y, z]| [x as i32, y as i32, z as i32, 0])
            .collect();
        let c = e.buffer_from(&coords);
        let v = e.buffer_from(&depths);
        set_image(&k, 0, &written);
        ok(set_mem(k.get(), 1, &c), "set arg");
        ok(set_mem(k.get(), 2, &v), "set arg");
        e.run(&k, &[texels.len()], None);
        let img = HostImage {
            kind: if array { Kind::D2Array } else { Kind::D2 },
            format: f,
            size,
            bytes: vec![0; texels.len() * f.element_size()],
        };
        let bytes = image_bytes(&e, &written, &img);
        let stored: Vec<u8> = depths
            .iter()
            .flat_map(|&d| f.encode_float([d, 0.0, 0.0, 0.0]))
            .collect();
        assert_eq!(bytes, stored, "{f:?} array {array}: write_imagef of depths");
        let img = HostImage { bytes, ..img };
        let k = ok(create_kernel(p.get(), "rd"), "clCreateKernel");
        let s = Modes {
            normalized: true,
            addressing: CL_ADDRESS_CLAMP,
            filter: CL_FILTER_LINEAR,
        };
        let coords = coordinates(&img, s, 200, 12);
        let cs = e.buffer_from(&floats(&coords));
        let out = e.buffer(coords.len() * 4);
        let smp = sampler(&e, s);
        set_image(&k, 0, &written);
        set_sampler(&k, 1, &smp);
        ok(set_mem(k.get(), 2, &cs), "set arg");
        ok(set_mem(k.get(), 3, &out), "set arg");
        e.run(&k, &[coords.len()], None);
        let got = e.read::<f32>(&out, 0, coords.len());
        for (i, &c) in coords.iter().enumerate() {
            let want = img.sample(s, c)[0];
            assert!(
                (got[i] - want).abs() <= 1e-6,
                "{f:?} array {array} at {c:?}: got {}, want {want}",
                got[i]
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Queries, read-write images and host memory

#[test]
fn queries_answer_for_every_type_and_access() {
    let e = Env::new();
    let f = fmt(CL_RG, CL_SNORM_INT16);
    let depth = fmt(CL_DEPTH, CL_FLOAT);
    let kinds: Vec<(&str, Kind, Format)> = KINDS
        .iter()
        .map(|&k| (k.cl_type(), k, f))
        .chain([
            ("image2d_depth_t", Kind::D2, depth),
            ("image2d_array_depth_t", Kind::D2Array, depth),
        ])
        .collect();
    for (t, kind, f) in kinds {
        let size = [9, 7, 5];
        let size = match kind {
            Kind::D1 | Kind::D1Buffer => [9, 1, 1],
            Kind::D1Array => [9, 1, 5],
            Kind::D2 => [9, 7, 1],
            _ => size,
        };
        let img = HostImage::new(kind, f, size, 13);
        for (access, flags) in [
            ("read_only", CL_MEM_READ_ONLY),
            ("write_only", CL_MEM_WRITE_ONLY),
            ("read_write", CL_MEM_READ_WRITE),
        ] {
            let dev = create_image(&e, flags, &img);
            let mut body = String::from(
                "o[0] = get_image_width(im);\n o[1] = get_image_channel_data_type(im);\n\
                 o[2] = get_image_channel_order(im);\n",
            );
            let two_d = matches!(kind, Kind::D2 | Kind::D2Array | Kind::D3);
            if two_d {
                body += "o[3] = get_image_height(im);\n";
            }
            if kind == Kind::D3 {
                body += "o[4] = get_image_depth(im);\n int4 d = get_image_dim(im);\n\
                         o[5] = d.x; o[6] = d.y; o[7] = d.z; o[8] = d.w;\n";
            } else if two_d {
                body += "int2 d = get_image_dim(im);\n o[5] = d.x; o[6] = d.y;\n";
            }
            if kind.is_array() {
                body += "o[9] = (int)get_image_array_size(im);\n";
            }
            let src = format!("kernel void k({access} {t} im, global int *o) {{\n {body}}}\n");
            let (_p, k) = e.kernel_opts(&src, "k", std_for(access));
            let out = e.buffer_from(&[-1i32; 10]);
            set_image(&k, 0, &dev.mem);
            ok(set_mem(k.get(), 1, &out), "set arg");
            e.run(&k, &[1], None);
            let got = e.read::<i32>(&out, 0, 10);
            let [w, h, d] = size.map(|v| v as i32);
            let mut want = [w, f.ty as i32, f.order as i32, -1, -1, -1, -1, -1, -1, -1];
            if two_d {
                want[3] = h;
                want[5] = w;
                want[6] = h;
            }
            if kind == Kind::D3 {
                want[4] = d;
                want[7] = d;
                want[8] = 0;
            }
            if kind.is_array() {
                want[9] = d;
            }
            assert_eq!(got, want, "{access} {t}");
        }
    }
}

#[test]
fn a_read_write_image_reads_its_own_writes() {
    let e = Env::new();
    let f = fmt(CL_RGBA, CL_FLOAT);
    let img = HostImage::new(Kind::D2, f, [8, 6, 1], 14);
    let mut img = img;
    img.bytes = img
        .bytes
        .chunks(4)
        .flat_map(|b| (b[0] as f32).to_le_bytes())
        .collect();
    let dev = create_image(&e, CL_MEM_READ_WRITE, &img);
    // Each work-item doubles its texel, then reads it back after a fence.
    let src = "kernel void k(read_write image2d_t im, global float4 *o) {\n\
                 int2 c = (int2)(get_global_id(0), get_global_id(1));\n\
                 write_imagef(im, c, read_imagef(im, c) * 2.0f);\n\
                 atomic_work_item_fence(CLK_IMAGE_MEM_FENCE, memory_order_acq_rel, memory_scope_work_item);\n\
                 o[c.y * 8 + c.x] = read_imagef(im, c);\n}\n";
    let (_p, k) = e.kernel_opts(src, "k", "-cl-std=CL3.0");
    let out = e.buffer(48 * 16);
    set_image(&k, 0, &dev.mem);
    ok(set_mem(k.get(), 1, &out), "set arg");
    e.run(&k, &[8, 6], None);
    let got = e.read::<f32>(&out, 0, 48 * 4);
    let want: Vec<f32> = img
        .bytes
        .chunks(4)
        .map(|b| 2.0 * f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(got, want, "each texel read after its write is doubled");
    let stored = image_bytes(&e, &dev.mem, &img);
    let stored: Vec<f32> = stored
        .chunks(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    assert_eq!(stored, want, "the image holds the writes");
}

#[test]
fn an_image_over_byte_aligned_host_memory_is_read_and_written() {
    let e = Env::new();
    let f = fmt(CL_RGBA, CL_FLOAT);
    let (w, h) = (5usize, 3usize);
    let texels: Vec<f32> = (0..w * h * 4).map(|i| i as f32 * 0.25 - 3.0).collect();
    // One byte past an aligned allocation.
    let mut host = vec![0u8; w * h * 16 + 1];
    host[1..].copy_from_slice(
        &texels
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect::<Vec<u8>>(),
    );
    let desc = image_desc(CL_MEM_OBJECT_IMAGE2D, w, h, 0, 0);
    let m = ok(
        e.try_image(
            CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
            &f.cl(),
            &desc,
            host[1..].as_mut_ptr().cast(),
        ),
        "clCreateImage(USE_HOST_PTR, byte-aligned)",
    );
    let src = "kernel void k(read_write image2d_t im, global float4 *o) {\n\
                 int2 c = (int2)(get_global_id(0), get_global_id(1));\n\
                 float4 v = read_imagef(im, c);\n\
                 o[c.y * get_image_width(im) + c.x] = v;\n\
                 write_imagef(im, c, v + 1.0f);\n}\n";
    let (_p, k) = e.kernel_opts(src, "k", "-cl-std=CL3.0");
    let out = e.buffer(w * h * 16);
    set_image(&k, 0, &m);
    ok(set_mem(k.get(), 1, &out), "set arg");
    e.run(&k, &[w, h], None);
    assert_eq!(
        e.read::<f32>(&out, 0, w * h * 4),
        texels,
        "reads at a byte-aligned address"
    );
    let stored: Vec<f32> = e.read_image::<f32>(&m, [0, 0, 0], [w, h, 1], w * h * 4);
    let want: Vec<f32> = texels.iter().map(|x| x + 1.0).collect();
    assert_eq!(stored, want, "writes at a byte-aligned address");
}
