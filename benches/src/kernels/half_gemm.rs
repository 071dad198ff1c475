//! Matrix multiply in half precision (cl_khr_fp16), C = A B with square
//! row-major half matrices and a half accumulator: every multiply and add
//! a half operation, rounded to half as the language asks.

use std::sync::OnceLock;

use opencl3::program::Program;

use super::{Benchmark, Peak, Prepared, Simple, Unit};
use crate::check;
use crate::data::Rng;
use crate::platforms::{mem, val, Launch, Target};

// Guarded so that the harness's whole source builds without cl_khr_fp16.
const SOURCE: &str = r#"
#ifdef cl_khr_fp16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
kernel void half_gemm(int n, global const half *a, global const half *b,
                      global half *c) {
    int col = get_global_id(0), row = get_global_id(1);
    half acc = 0.0h;
    for (int k = 0; k < n; k++)
        acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
}
#endif
"#;

const N: usize = 256;

struct Host {
    /// The inputs as half bits.
    a: Vec<u16>,
    b: Vec<u16>,
    /// C = A B of the same values, exactly (in double).
    want: Vec<f64>,
}

#[derive(Default)]
pub struct HalfGemm {
    host: OnceLock<Host>,
}

/// A half's bits for `x`, which the inputs keep exact: a multiple of 2^-8
/// in [-1, 1).
fn half_bits(x: f64) -> u16 {
    if x == 0.0 {
        return 0;
    }
    let sign = if x < 0.0 { 0x8000 } else { 0 };
    let a = x.abs();
    let e = a.log2().floor() as i32;
    let mantissa = ((a / 2f64.powi(e) - 1.0) * 1024.0) as u16;
    sign | (((e + 15) as u16) << 10) | mantissa
}

impl Benchmark for HalfGemm {
    fn name(&self) -> &'static str {
        "half-gemm"
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
    fn needs_fp16(&self) -> bool {
        true
    }
    fn work(&self) -> f64 {
        2.0 * (N as f64).powi(3)
    }

    fn prepare<'a>(
        &'a self,
        t: &Target,
        program: &Program,
    ) -> Result<Box<dyn Prepared + 'a>, String> {
        let h = self.host.get_or_init(|| {
            let mut rng = Rng::new(0x4a1f);
            let mut values = || -> Vec<f64> {
                (0..N * N)
                    .map(|_| (rng.f32(-256.0, 256.0).floor() / 256.0) as f64)
                    .collect()
            };
            let (a, b) = (values(), values());
            let mut want = vec![0.0; N * N];
            for i in 0..N {
                for k in 0..N {
                    let aik = a[i * N + k];
                    for j in 0..N {
                        want[i * N + j] += aik * b[k * N + j];
                    }
                }
            }
            Host {
                a: a.iter().map(|&x| half_bits(x)).collect(),
                b: b.iter().map(|&x| half_bits(x)).collect(),
                want,
            }
        });
        let a = t.upload(&h.a)?;
        let b = t.upload(&h.b)?;
        let c = t.alloc::<u16>(N * N)?;
        let args = [val(N as i32), mem(&a), mem(&b), mem(&c)];
        let launch = Launch::new(program, "half_gemm", &args, &[N, N], None)?;
        Ok(Box::new(Simple {
            launch,
            inputs: vec![a, b],
            out: c,
            len: N * N,
            // 256 half roundings of sums near 10 (an ulp of 2^-7): a few
            // hundredths off the exact product, however they are fused.
            check: Box::new(move |got: &[u16]| {
                let values: Vec<f64> = got.iter().map(|&g| half_value(g)).collect();
                check::close(&values, &h.want, 0.25, 0.0)
            }),
        }))
    }
}

fn half_value(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    sign * match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}
