//! `float8` arithmetic: four independent multiply-add chains per work-item,
//! so the figure is compute throughput rather than memory.

use std::sync::OnceLock;

use opencl3::program::Program;

use super::{Benchmark, Peak, Prepared, Simple, Unit};
use crate::check;
use crate::data::Rng;
use crate::platforms::{mem, val, Launch, Target};

const SOURCE: &str = r#"
kernel void float8_chains(global const float8 *in, global float8 *out, int iters) {
    size_t i = get_global_id(0);
    float8 x = in[i];
    float8 a = x, b = x * 0.5f, c = x + 1.0f, d = x - 1.0f;
    const float8 m = (float8)(0.999f), k = (float8)(0.001f);
    for (int j = 0; j < iters; j++) {
        a = a * m + k;
        b = b * m - k;
        c = c * m + x * k;
        d = d * m + k;
    }
    out[i] = a + b + c + d;
}
"#;

/// Work-items, eight floats each.
const N: usize = 256 << 10;
const ITERS: i32 = 64;

struct Host {
    input: Vec<f32>,
    want: Vec<f64>,
}

#[derive(Default)]
pub struct Float8 {
    host: OnceLock<Host>,
}

fn chains(x: f64) -> f64 {
    let (m, k) = (0.999f32 as f64, 0.001f32 as f64);
    let (mut a, mut b, mut c, mut d) = (x, x * 0.5, x + 1.0, x - 1.0);
    // x * k is loop-invariant in the kernel; computed in float there.
    let xk = (x as f32 * 0.001f32) as f64;
    for _ in 0..ITERS {
        a = a * m + k;
        b = b * m - k;
        c = c * m + xk;
        d = d * m + k;
    }
    a + b + c + d
}

impl Benchmark for Float8 {
    fn name(&self) -> &'static str {
        "float8"
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
        // Four chains of one multiply-add (two flops) on eight lanes.
        (N * 8) as f64 * ITERS as f64 * 4.0 * 2.0
    }

    fn prepare<'a>(
        &'a self,
        t: &Target,
        program: &Program,
    ) -> Result<Box<dyn Prepared + 'a>, String> {
        let h = self.host.get_or_init(|| {
            let input = Rng::new(0xf8).f32s(8 * N, -2.0, 2.0);
            let want = input.iter().map(|&x| chains(x as f64)).collect();
            Host { input, want }
        });
        let input = t.upload(&h.input)?;
        let out = t.alloc::<f32>(8 * N)?;
        let args = [mem(&input), mem(&out), val(ITERS)];
        let launch = Launch::new(program, "float8_chains", &args, &[N], None)?;
        Ok(Box::new(Simple {
            launch,
            inputs: vec![input],
            out,
            len: 8 * N,
            check: Box::new(move |got| check::close(got, &h.want, 1e-4, 1e-4)),
        }))
    }
}
