//! 5x5 convolution of a float image, the filter in `__constant` memory and
//! the edges clamped.

use std::sync::OnceLock;

use opencl3::program::Program;

use super::{Benchmark, Peak, Prepared, Simple, Unit};
use crate::check;
use crate::data::Rng;
use crate::platforms::{mem, val, Launch, Target};

const SOURCE: &str = r#"
kernel void conv_5x5(int w, int h, global const float *in, constant float *filter,
                     global float *out) {
    int x = get_global_id(0), y = get_global_id(1);
    float acc = 0.0f;
    for (int dy = -2; dy <= 2; dy++) {
        int sy = clamp(y + dy, 0, h - 1);
        for (int dx = -2; dx <= 2; dx++) {
            int sx = clamp(x + dx, 0, w - 1);
            acc += filter[(dy + 2) * 5 + dx + 2] * in[sy * w + sx];
        }
    }
    out[y * w + x] = acc;
}
"#;

const W: usize = 2048;
const H: usize = 1536;

struct Host {
    image: Vec<f32>,
    filter: Vec<f32>,
    want: Vec<f64>,
}

#[derive(Default)]
pub struct Conv {
    host: OnceLock<Host>,
}

fn reference(image: &[f32], filter: &[f32]) -> Vec<f64> {
    let mut out = vec![0.0; W * H];
    for y in 0..H {
        for x in 0..W {
            let mut acc = 0.0f64;
            for dy in 0..5 {
                let sy = (y + dy).saturating_sub(2).min(H - 1);
                for dx in 0..5 {
                    let sx = (x + dx).saturating_sub(2).min(W - 1);
                    acc += filter[dy * 5 + dx] as f64 * image[sy * W + sx] as f64;
                }
            }
            out[y * W + x] = acc;
        }
    }
    out
}

impl Benchmark for Conv {
    fn name(&self) -> &'static str {
        "conv5x5"
    }
    fn source(&self) -> &'static str {
        SOURCE
    }
    fn unit(&self) -> Unit {
        Unit::GFlops
    }
    fn peak(&self) -> Peak {
        Peak::Fma32
    }
    fn work(&self) -> f64 {
        (2 * 25 * W * H) as f64
    }

    fn prepare<'a>(
        &'a self,
        t: &Target,
        program: &Program,
    ) -> Result<Box<dyn Prepared + 'a>, String> {
        let h = self.host.get_or_init(|| {
            let mut rng = Rng::new(0xc0417);
            let image = rng.f32s(W * H, 0.0, 1.0);
            let filter = rng.f32s(25, -0.2, 0.2);
            let want = reference(&image, &filter);
            Host {
                image,
                filter,
                want,
            }
        });
        let image = t.upload(&h.image)?;
        let filter = t.upload(&h.filter)?;
        let out = t.alloc::<f32>(W * H)?;
        let args = [
            val(W as i32),
            val(H as i32),
            mem(&image),
            mem(&filter),
            mem(&out),
        ];
        let launch = Launch::new(program, "conv_5x5", &args, &[W, H], None)?;
        Ok(Box::new(Simple {
            launch,
            inputs: vec![image, filter],
            out,
            len: W * H,
            check: Box::new(move |got| check::close(got, &h.want, 1e-5, 1e-5)),
        }))
    }
}
