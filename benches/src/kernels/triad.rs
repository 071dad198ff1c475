//! Triad bandwidth, `a[i] = b[i] + s * c[i]`, as in STREAM; and the same
//! triad with a `printf` no work-item reaches (a NaN check), which should
//! run as fast as the triad itself.

use std::sync::OnceLock;

use opencl3::program::Program;

use super::{Benchmark, Peak, Prepared, Simple, Unit};
use crate::check;
use crate::platforms::{mem, val, Launch, Target};

const SOURCE: &str = r#"
kernel void triad_f32(global float *restrict a, global const float *restrict b,
                      global const float *restrict c, float s) {
    size_t i = get_global_id(0);
    a[i] = b[i] + s * c[i];
}

kernel void triad_printf_f32(global float *restrict a, global const float *restrict b,
                             global const float *restrict c, float s) {
    size_t i = get_global_id(0);
    float v = b[i] + s * c[i];
    a[i] = v;
    if (isnan(v))
        printf("triad_printf: NaN at %u from %f and %f\n", (uint)i, b[i], c[i]);
}
"#;

/// 128 MiB per buffer, three buffers.
pub const N: usize = 32 << 20;
const S: f32 = 3.0;

struct Host {
    b: Vec<f32>,
    c: Vec<f32>,
    want: Vec<f32>,
}

#[derive(Default)]
pub struct Triad {
    /// The variant with the unreached printf.
    printf: bool,
    host: OnceLock<Host>,
}

impl Triad {
    pub fn with_unreached_printf() -> Self {
        Self {
            printf: true,
            ..Self::default()
        }
    }
}

impl Benchmark for Triad {
    fn name(&self) -> &'static str {
        if self.printf {
            "triad_printf"
        } else {
            "triad"
        }
    }
    fn source(&self) -> &'static str {
        SOURCE
    }
    fn unit(&self) -> Unit {
        Unit::GBs
    }
    fn peak(&self) -> Peak {
        Peak::Stream
    }
    fn work(&self) -> f64 {
        (3 * 4 * N) as f64
    }

    fn prepare<'a>(
        &'a self,
        t: &Target,
        program: &Program,
    ) -> Result<Box<dyn Prepared + 'a>, String> {
        let h = self.host.get_or_init(|| {
            // Small integers: the sum is exact whether or not the device
            // fuses the multiply and the add.
            let b: Vec<f32> = (0..N).map(|i| (i % 1024) as f32).collect();
            let c: Vec<f32> = (0..N).map(|i| (i % 37) as f32).collect();
            let want = b.iter().zip(&c).map(|(b, c)| b + S * c).collect();
            Host { b, c, want }
        });
        let a = t.alloc::<f32>(N)?;
        let b = t.upload(&h.b)?;
        let c = t.upload(&h.c)?;
        let args = [mem(&a), mem(&b), mem(&c), val(S)];
        let kernel = if self.printf {
            "triad_printf_f32"
        } else {
            "triad_f32"
        };
        let launch = Launch::new(program, kernel, &args, &[N], None)?;
        Ok(Box::new(Simple {
            launch,
            inputs: vec![b, c],
            out: a,
            len: N,
            check: Box::new(move |got| check::exact(got, &h.want)),
        }))
    }
}
