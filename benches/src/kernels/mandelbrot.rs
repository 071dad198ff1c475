//! Escape-time Mandelbrot: neighbouring work-items loop for very different
//! counts, so vectorized code runs masked lanes.

use std::sync::OnceLock;

use opencl3::program::Program;

use super::{Benchmark, Prepared, Simple, Unit};
use crate::check;
use crate::platforms::{mem, val, Launch, Target};

const SOURCE: &str = r#"
kernel void mandelbrot_escape(int max_iter, float x0, float y0, float step,
                              global uint *out) {
    int px = get_global_id(0), py = get_global_id(1);
    float cr = x0 + px * step, ci = y0 + py * step;
    float zr = 0.0f, zi = 0.0f;
    int i = 0;
    while (i < max_iter && zr * zr + zi * zi <= 4.0f) {
        float t = zr * zr - zi * zi + cr;
        zi = 2.0f * zr * zi + ci;
        zr = t;
        i++;
    }
    out[py * get_global_size(0) + px] = i;
}
"#;

const W: usize = 768;
const H: usize = 768;
const MAX_ITER: i32 = 256;
const X0: f32 = -2.0;
const Y0: f32 = -1.5;
const STEP: f32 = 3.0 / W as f32;

#[derive(Default)]
pub struct Mandelbrot {
    want: OnceLock<Vec<u32>>,
}

fn reference() -> Vec<u32> {
    let mut out = Vec::with_capacity(W * H);
    for py in 0..H {
        for px in 0..W {
            let (cr, ci) = (X0 + px as f32 * STEP, Y0 + py as f32 * STEP);
            let (mut zr, mut zi, mut i) = (0.0f32, 0.0f32, 0);
            while i < MAX_ITER && zr * zr + zi * zi <= 4.0 {
                let t = zr * zr - zi * zi + cr;
                zi = 2.0 * zr * zi + ci;
                zr = t;
                i += 1;
            }
            out.push(i as u32);
        }
    }
    out
}

impl Benchmark for Mandelbrot {
    fn name(&self) -> &'static str {
        "mandelbrot"
    }
    fn source(&self) -> &'static str {
        SOURCE
    }
    fn unit(&self) -> Unit {
        Unit::MItems
    }
    fn work(&self) -> f64 {
        (W * H) as f64
    }

    fn prepare<'a>(
        &'a self,
        t: &Target,
        program: &Program,
    ) -> Result<Box<dyn Prepared + 'a>, String> {
        let want = self.want.get_or_init(reference);
        let out = t.alloc::<u32>(W * H)?;
        let args = [val(MAX_ITER), val(X0), val(Y0), val(STEP), mem(&out)];
        let launch = Launch::new(program, "mandelbrot_escape", &args, &[W, H], None)?;
        Ok(Box::new(Simple::<u32, u32> {
            launch,
            inputs: vec![],
            out,
            len: W * H,
            // A device may fuse multiplies and adds: points on the set's
            // edge may then escape an iteration earlier or later.
            check: Box::new(move |got| check::mostly_equal(got, want, 0.01)),
        }))
    }
}
