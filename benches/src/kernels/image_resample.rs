//! Image resampling: a 2D RGBA8 image scaled to another size through
//! `read_imagef` with a constant bilinear sampler (normalized coordinates,
//! clamped to the edge), each output pixel narrowed back to `uchar4`.

use std::sync::OnceLock;

use opencl3::memory::{ClMem, Image, CL_MEM_COPY_HOST_PTR, CL_MEM_READ_ONLY};
use opencl3::memory::{CL_MEM_OBJECT_IMAGE2D, CL_RGBA, CL_UNORM_INT8};
use opencl3::program::Program;
use opencl3::types::{cl_image_desc, cl_image_format};

use super::{Benchmark, Prepared, Simple, Unit};
use crate::check;
use crate::data::Rng;
use crate::platforms::{val, ArgRef, Launch, Target};

const SOURCE: &str = r#"
constant sampler_t image_resample_sampler =
    CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR;

kernel void image_resample(read_only image2d_t src, global uchar4 *out, float2 scale) {
    int x = get_global_id(0), y = get_global_id(1);
    float2 at = ((float2)(x, y) + 0.5f) * scale;
    float4 p = read_imagef(src, image_resample_sampler, at);
    out[y * get_global_size(0) + x] = convert_uchar4_sat_rte(p * 255.0f);
}
"#;

/// The source image, and the output: 3/4 of it each way.
const SRC: (usize, usize) = (4096, 4096);
const DST: (usize, usize) = (3072, 3072);

struct Host {
    input: Vec<u8>,
    want: Vec<f64>,
}

/// The launch, and the image it reads, which must live as long.
struct Resample<'a> {
    simple: Simple<'a, u8, u8>,
    _image: Image,
}

impl Prepared for Resample<'_> {
    fn enqueue(&mut self, t: &Target) -> Result<(), String> {
        self.simple.enqueue(t)
    }

    fn check(&mut self, t: &Target) -> Result<(), String> {
        self.simple.check(t)
    }
}

/// The spec's bilinear filter at normalized (u, v), clamped to the edge.
fn bilinear(input: &[u8], u: f32, v: f32) -> [f32; 4] {
    let (w, h) = SRC;
    let (x, y) = (u * w as f32 - 0.5, v * h as f32 - 0.5);
    let (i0, j0) = (x.floor(), y.floor());
    let (a, b) = (x - i0, y - j0);
    let texel = |i: f32, j: f32, c: usize| {
        let i = (i as i64).clamp(0, w as i64 - 1) as usize;
        let j = (j as i64).clamp(0, h as i64 - 1) as usize;
        input[(j * w + i) * 4 + c] as f32 / 255.0
    };
    std::array::from_fn(|c| {
        (1.0 - a) * (1.0 - b) * texel(i0, j0, c)
            + a * (1.0 - b) * texel(i0 + 1.0, j0, c)
            + (1.0 - a) * b * texel(i0, j0 + 1.0, c)
            + a * b * texel(i0 + 1.0, j0 + 1.0, c)
    })
}

#[derive(Default)]
pub struct ImageResample {
    host: OnceLock<Host>,
}

impl ImageResample {
    fn scale() -> [f32; 2] {
        [1.0 / DST.0 as f32, 1.0 / DST.1 as f32]
    }
}

impl Benchmark for ImageResample {
    fn name(&self) -> &'static str {
        "image-resample"
    }
    fn source(&self) -> &'static str {
        SOURCE
    }
    fn unit(&self) -> Unit {
        Unit::MItems
    }
    fn work(&self) -> f64 {
        (DST.0 * DST.1) as f64
    }

    fn prepare<'a>(
        &'a self,
        t: &Target,
        program: &Program,
    ) -> Result<Box<dyn Prepared + 'a>, String> {
        let h = self.host.get_or_init(|| {
            let mut rng = Rng::new(0x1ae);
            let input: Vec<u8> = (0..4 * SRC.0 * SRC.1).map(|_| rng.u32() as u8).collect();
            let [sx, sy] = Self::scale();
            let mut want = Vec::with_capacity(4 * DST.0 * DST.1);
            for y in 0..DST.1 {
                for x in 0..DST.0 {
                    let p = bilinear(&input, (x as f32 + 0.5) * sx, (y as f32 + 0.5) * sy);
                    want.extend(p.map(|c| f64::from(c * 255.0)));
                }
            }
            Host { input, want }
        });
        let format = cl_image_format {
            image_channel_order: CL_RGBA,
            image_channel_data_type: CL_UNORM_INT8,
        };
        // SAFETY: all-zero is a valid descriptor (no buffer).
        let mut desc: cl_image_desc = unsafe { std::mem::zeroed() };
        desc.image_type = CL_MEM_OBJECT_IMAGE2D;
        desc.image_width = SRC.0;
        desc.image_height = SRC.1;
        // SAFETY: with CL_MEM_COPY_HOST_PTR the implementation copies the
        // texels during the call and keeps no pointer.
        let image = unsafe {
            Image::create(
                &t.context,
                CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                &format,
                &desc,
                h.input.as_ptr() as *mut _,
            )
        }
        .map_err(|e| format!("image: {e}"))?;
        let out = t.alloc::<u8>(4 * DST.0 * DST.1)?;
        let args = [
            ArgRef::Mem(image.get()),
            crate::platforms::mem(&out),
            val(Self::scale()),
        ];
        let launch = Launch::new(program, "image_resample", &args, &[DST.0, DST.1], None)?;
        let simple = Simple {
            launch,
            inputs: Vec::new(),
            out,
            len: 4 * DST.0 * DST.1,
            // Platforms filter with their own precision (the spec allows
            // some) and round to the nearest of 256 steps: one step.
            check: Box::new(move |got| check::close(got, &h.want, 1.0, 0.0)),
        };
        Ok(Box::new(Resample {
            simple,
            _image: image,
        }))
    }
}
