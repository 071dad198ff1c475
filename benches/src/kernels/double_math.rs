//! Double-precision math, one value per work-item: sin, exp, log and sqrt
//! in double, so the figure is the speed of the double math builtins in a
//! vectorized work-item loop.

use std::sync::OnceLock;

use opencl3::program::Program;

use super::{Benchmark, Prepared, Simple, Unit};
use crate::check;
use crate::data::Rng;
use crate::platforms::{mem, Launch, Target};

// Guarded so that the harness's whole source builds without cl_khr_fp64.
const SOURCE: &str = r#"
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void double_math(global const double *in, global double *out) {
    size_t i = get_global_id(0);
    double x = in[i];
    double a = fabs(x);
    out[i] = sin(x) + exp(-a) + log(a + 1.0) + sqrt(a);
}
#endif
"#;

const N: usize = 1 << 20;

struct Host {
    input: Vec<f64>,
    want: Vec<f64>,
}

#[derive(Default)]
pub struct DoubleMath {
    host: OnceLock<Host>,
}

fn reference(x: f64) -> f64 {
    let a = x.abs();
    x.sin() + (-a).exp() + (a + 1.0).ln() + a.sqrt()
}

impl Benchmark for DoubleMath {
    fn name(&self) -> &'static str {
        "double-math"
    }
    fn source(&self) -> &'static str {
        SOURCE
    }
    fn unit(&self) -> Unit {
        Unit::MItems
    }
    fn needs_fp64(&self) -> bool {
        true
    }
    fn work(&self) -> f64 {
        N as f64
    }

    fn prepare<'a>(
        &'a self,
        t: &Target,
        program: &Program,
    ) -> Result<Box<dyn Prepared + 'a>, String> {
        let h = self.host.get_or_init(|| {
            let input: Vec<f64> = Rng::new(0xd0b1e)
                .f32s(N, -8.0, 8.0)
                .into_iter()
                .map(f64::from)
                .collect();
            let want = input.iter().map(|&x| reference(x)).collect();
            Host { input, want }
        });
        let input = t.upload(&h.input)?;
        let out = t.alloc::<f64>(N)?;
        let args = [mem(&input), mem(&out)];
        let launch = Launch::new(program, "double_math", &args, &[N], None)?;
        Ok(Box::new(Simple {
            launch,
            inputs: vec![input],
            out,
            len: N,
            check: Box::new(move |got| check::close(got, &h.want, 1e-13, 1e-13)),
        }))
    }
}
