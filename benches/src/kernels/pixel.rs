//! Per-pixel colour math: `uchar4` pixels widened to `float4`, scaled and
//! biased per channel, and narrowed back with `convert_uchar4_sat`.

use std::sync::OnceLock;

use opencl3::program::Program;

use super::{Benchmark, Prepared, Simple, Unit};
use crate::check;
use crate::data::Rng;
use crate::platforms::{mem, val, Launch, Target};

const SOURCE: &str = r#"
kernel void pixel_scale_bias(global const uchar4 *in, global uchar4 *out, float4 scale,
                             float4 bias) {
    size_t i = get_global_id(0);
    out[i] = convert_uchar4_sat(convert_float4(in[i]) * scale + bias);
}
"#;

/// Pixels: 64 MiB in, 64 MiB out.
const N: usize = 16 << 20;
// Exact in float for every byte value, so fused or not the result is the
// same; both saturation ends are reached.
const SCALE: [f32; 4] = [1.5, 0.75, 2.0, 1.25];
const BIAS: [f32; 4] = [-20.0, 10.5, 3.25, -0.5];

struct Host {
    input: Vec<u8>,
    want: Vec<u8>,
}

#[derive(Default)]
pub struct Pixel {
    host: OnceLock<Host>,
}

impl Benchmark for Pixel {
    fn name(&self) -> &'static str {
        "pixel-uchar4"
    }
    fn source(&self) -> &'static str {
        SOURCE
    }
    fn unit(&self) -> Unit {
        Unit::GBs
    }
    fn work(&self) -> f64 {
        (2 * 4 * N) as f64
    }

    fn prepare<'a>(
        &'a self,
        t: &Target,
        program: &Program,
    ) -> Result<Box<dyn Prepared + 'a>, String> {
        let h = self.host.get_or_init(|| {
            let mut rng = Rng::new(0x91c);
            let input: Vec<u8> = (0..4 * N).map(|_| rng.u32() as u8).collect();
            // Round toward zero and saturate, as convert_uchar4_sat does;
            // Rust's float-to-int `as` does exactly that.
            let want = input
                .iter()
                .enumerate()
                .map(|(i, &v)| (v as f32 * SCALE[i % 4] + BIAS[i % 4]) as u8)
                .collect();
            Host { input, want }
        });
        let input = t.upload(&h.input)?;
        let out = t.alloc::<u8>(4 * N)?;
        let args = [mem(&input), mem(&out), val(SCALE), val(BIAS)];
        let launch = Launch::new(program, "pixel_scale_bias", &args, &[N], None)?;
        Ok(Box::new(Simple {
            launch,
            inputs: vec![input],
            out,
            len: 4 * N,
            check: Box::new(move |got| check::exact(got, &h.want)),
        }))
    }
}
