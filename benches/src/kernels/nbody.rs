//! All-pairs n-body accelerations: bodies staged through local memory a
//! tile at a time, `rsqrt` for the inverse distance.

use std::sync::OnceLock;

use opencl3::program::Program;

use super::{Benchmark, Peak, Prepared, Simple, Unit};
use crate::check;
use crate::data::Rng;
use crate::platforms::{mem, val, Launch, Target};

const SOURCE: &str = r#"
#define NBODY_TILE 128
__attribute__((reqd_work_group_size(NBODY_TILE, 1, 1)))
kernel void nbody_accel(int n, float eps2, global const float4 *pos, global float4 *acc) {
    local float4 tile[NBODY_TILE];
    int lid = get_local_id(0);
    float4 p = pos[get_global_id(0)];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int base = 0; base < n; base += NBODY_TILE) {
        tile[lid] = pos[base + lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < NBODY_TILE; j++) {
            float4 q = tile[j];
            float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
            float inv = rsqrt(dx * dx + dy * dy + dz * dz + eps2);
            float s = q.w * inv * inv * inv;
            ax += dx * s;
            ay += dy * s;
            az += dz * s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    acc[get_global_id(0)] = (float4)(ax, ay, az, 0.0f);
}
"#;

const N: usize = 4096;
const TILE: usize = 128;
const EPS2: f32 = 0.01;
/// The customary count per interaction (rsqrt counted as one).
const FLOPS_PER_PAIR: f64 = 20.0;

struct Host {
    pos: Vec<f32>,
    want: Vec<f64>,
    /// Mean magnitude of the accelerations: the scale of the tolerance.
    scale: f64,
}

#[derive(Default)]
pub struct NBody {
    host: OnceLock<Host>,
}

fn reference(pos: &[f32]) -> Vec<f64> {
    let mut acc = vec![0.0; 4 * N];
    for i in 0..N {
        let p = &pos[4 * i..4 * i + 4];
        let mut a = [0.0f64; 3];
        for q in pos.chunks(4) {
            let d: Vec<f64> = (0..3).map(|k| q[k] as f64 - p[k] as f64).collect();
            let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + EPS2 as f64;
            let s = q[3] as f64 / (r2 * r2.sqrt());
            for k in 0..3 {
                a[k] += d[k] * s;
            }
        }
        acc[4 * i..4 * i + 3].copy_from_slice(&a);
    }
    acc
}

impl Benchmark for NBody {
    fn name(&self) -> &'static str {
        "nbody"
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
        (N * N) as f64 * FLOPS_PER_PAIR
    }

    fn prepare<'a>(
        &'a self,
        t: &Target,
        program: &Program,
    ) -> Result<Box<dyn Prepared + 'a>, String> {
        let h = self.host.get_or_init(|| {
            let mut rng = Rng::new(0xb0d1e5);
            let mut pos = Vec::with_capacity(4 * N);
            for _ in 0..N {
                pos.extend(rng.f32s(3, -1.0, 1.0));
                pos.push(rng.f32(0.5, 1.0));
            }
            let want = reference(&pos);
            let scale = want.iter().map(|a| a.abs()).sum::<f64>() / (3 * N) as f64;
            Host { pos, want, scale }
        });
        let pos = t.upload(&h.pos)?;
        let acc = t.alloc::<f32>(4 * N)?;
        let args = [val(N as i32), val(EPS2), mem(&pos), mem(&acc)];
        let launch = Launch::new(program, "nbody_accel", &args, &[N], Some(&[TILE]))?;
        Ok(Box::new(Simple {
            launch,
            inputs: vec![pos],
            out: acc,
            len: 4 * N,
            // Thousands of float terms, and rsqrt may be a few ulp off.
            check: Box::new(move |got| check::close(got, &h.want, 1e-3 * h.scale, 1e-3)),
        }))
    }
}
