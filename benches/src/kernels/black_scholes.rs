//! Black-Scholes European call and put prices: `exp`, `log`, `sqrt`, and
//! the cumulative normal by the Abramowitz-Stegun polynomial.

use std::sync::OnceLock;

use opencl3::program::Program;

use super::{Benchmark, Prepared, Simple, Unit};
use crate::check;
use crate::data::Rng;
use crate::platforms::{mem, val, Launch, Target};

const SOURCE: &str = r#"
float black_scholes_cnd(float d) {
    const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f,
                a4 = -1.821255978f, a5 = 1.330274429f;
    float k = 1.0f / (1.0f + 0.2316419f * fabs(d));
    float poly = k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5))));
    float tail = 0.39894228f * exp(-0.5f * d * d) * poly;
    return d > 0.0f ? 1.0f - tail : tail;
}

kernel void black_scholes_price(global const float *spot, global const float *strike,
                                global const float *years, float rate, float vol,
                                global float2 *out) {
    size_t i = get_global_id(0);
    float s = spot[i], x = strike[i], t = years[i];
    float sqrt_t = sqrt(t);
    float d1 = (log(s / x) + (rate + 0.5f * vol * vol) * t) / (vol * sqrt_t);
    float d2 = d1 - vol * sqrt_t;
    float disc = x * exp(-rate * t);
    float call = s * black_scholes_cnd(d1) - disc * black_scholes_cnd(d2);
    float put = disc * black_scholes_cnd(-d2) - s * black_scholes_cnd(-d1);
    out[i] = (float2)(call, put);
}
"#;

const N: usize = 1 << 20;
const RATE: f32 = 0.02;
const VOL: f32 = 0.30;

struct Host {
    spot: Vec<f32>,
    strike: Vec<f32>,
    years: Vec<f32>,
    /// Call and put, interleaved as the kernel writes them.
    want: Vec<f64>,
}

#[derive(Default)]
pub struct BlackScholes {
    host: OnceLock<Host>,
}

fn cnd(d: f64) -> f64 {
    let k = 1.0 / (1.0 + 0.2316419 * d.abs());
    let poly = k
        * (0.31938153
            + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));
    let tail = 0.3989422804014327 * (-0.5 * d * d).exp() * poly;
    if d > 0.0 {
        1.0 - tail
    } else {
        tail
    }
}

fn reference(spot: &[f32], strike: &[f32], years: &[f32]) -> Vec<f64> {
    let (r, v) = (RATE as f64, VOL as f64);
    let mut out = Vec::with_capacity(2 * spot.len());
    for ((&s, &x), &t) in spot.iter().zip(strike).zip(years) {
        let (s, x, t) = (s as f64, x as f64, t as f64);
        let d1 = ((s / x).ln() + (r + 0.5 * v * v) * t) / (v * t.sqrt());
        let d2 = d1 - v * t.sqrt();
        let disc = x * (-r * t).exp();
        out.push(s * cnd(d1) - disc * cnd(d2));
        out.push(disc * cnd(-d2) - s * cnd(-d1));
    }
    out
}

impl Benchmark for BlackScholes {
    fn name(&self) -> &'static str {
        "black-scholes"
    }
    fn source(&self) -> &'static str {
        SOURCE
    }
    fn unit(&self) -> Unit {
        Unit::MItems
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
            let mut rng = Rng::new(0xb5);
            let spot = rng.f32s(N, 10.0, 100.0);
            let strike = rng.f32s(N, 10.0, 100.0);
            let years = rng.f32s(N, 0.1, 5.0);
            let want = reference(&spot, &strike, &years);
            Host {
                spot,
                strike,
                years,
                want,
            }
        });
        let spot = t.upload(&h.spot)?;
        let strike = t.upload(&h.strike)?;
        let years = t.upload(&h.years)?;
        let out = t.alloc::<f32>(2 * N)?;
        let args = [
            mem(&spot),
            mem(&strike),
            mem(&years),
            val(RATE),
            val(VOL),
            mem(&out),
        ];
        let launch = Launch::new(program, "black_scholes_price", &args, &[N], None)?;
        Ok(Box::new(Simple {
            launch,
            inputs: vec![spot, strike, years],
            out,
            len: 2 * N,
            // Prices up to 100 in float, and differences of such terms.
            check: Box::new(move |got| check::close(got, &h.want, 2e-3, 1e-4)),
        }))
    }
}
