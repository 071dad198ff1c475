//! `float8` vector math: sin, cos, exp, log, sqrt and rsqrt on eight lanes
//! per work-item, so the figure is the speed of the math builtins' vector
//! forms.

use std::sync::OnceLock;

use opencl3::program::Program;

use super::{Benchmark, Prepared, Simple, Unit};
use crate::check;
use crate::data::Rng;
use crate::platforms::{mem, Launch, Target};

const SOURCE: &str = r#"
kernel void float8_math(global const float8 *in, global float8 *out) {
    size_t i = get_global_id(0);
    float8 x = in[i];
    float8 a = fabs(x);
    out[i] = sin(x) * cos(x) + exp(-a) + log(a + 1.0f) + sqrt(a) * rsqrt(a + 1.0f);
}
"#;

/// Work-items, eight floats each.
const N: usize = 256 << 10;

struct Host {
    input: Vec<f32>,
    want: Vec<f64>,
}

#[derive(Default)]
pub struct Float8Math {
    host: OnceLock<Host>,
}

fn reference(x: f64) -> f64 {
    let a = x.abs();
    x.sin() * x.cos() + (-a).exp() + (a + 1.0).ln() + a.sqrt() / (a + 1.0).sqrt()
}

impl Benchmark for Float8Math {
    fn name(&self) -> &'static str {
        "float8-math"
    }
    fn source(&self) -> &'static str {
        SOURCE
    }
    fn unit(&self) -> Unit {
        Unit::MItems
    }
    fn work(&self) -> f64 {
        // Items are lanes: eight per work-item.
        (N * 8) as f64
    }

    fn prepare<'a>(
        &'a self,
        t: &Target,
        program: &Program,
    ) -> Result<Box<dyn Prepared + 'a>, String> {
        let h = self.host.get_or_init(|| {
            let input = Rng::new(0xf8a).f32s(8 * N, -4.0, 4.0);
            let want = input.iter().map(|&x| reference(x as f64)).collect();
            Host { input, want }
        });
        let input = t.upload(&h.input)?;
        let out = t.alloc::<f32>(8 * N)?;
        let args = [mem(&input), mem(&out)];
        let launch = Launch::new(program, "float8_math", &args, &[N], None)?;
        Ok(Box::new(Simple {
            launch,
            inputs: vec![input],
            out,
            len: 8 * N,
            check: Box::new(move |got| check::close(got, &h.want, 1e-5, 1e-5)),
        }))
    }
}
