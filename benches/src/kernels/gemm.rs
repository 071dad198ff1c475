//! Matrix multiply, C = A B with square row-major matrices: a naive kernel
//! (one dot product per work-item, straight from global memory), the same
//! with 16x16 tiles staged in local memory, and a naive one in double.

use std::sync::OnceLock;

use opencl3::program::Program;

use super::{Benchmark, Peak, Prepared, Simple, Unit};
use crate::check;
use crate::data::Rng;
use crate::platforms::{mem, val, Launch, Target};

const SGEMM_NAIVE: &str = r#"
kernel void gemm_sgemm_naive(int n, global const float *a, global const float *b,
                             global float *c) {
    int col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (int k = 0; k < n; k++)
        acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
}
"#;

const SGEMM_TILED: &str = r#"
#define GEMM_TILE 16
__attribute__((reqd_work_group_size(GEMM_TILE, GEMM_TILE, 1)))
kernel void gemm_sgemm_tiled(int n, global const float *a, global const float *b,
                             global float *c) {
    local float ta[GEMM_TILE][GEMM_TILE];
    local float tb[GEMM_TILE][GEMM_TILE];
    int tx = get_local_id(0), ty = get_local_id(1);
    int col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (int t = 0; t < n; t += GEMM_TILE) {
        ta[ty][tx] = a[row * n + t + tx];
        tb[ty][tx] = b[(t + ty) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < GEMM_TILE; k++)
            acc += ta[ty][k] * tb[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = acc;
}
"#;

// Guarded so that the harness's whole source builds without cl_khr_fp64.
const DGEMM_NAIVE: &str = r#"
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
kernel void gemm_dgemm_naive(int n, global const double *a, global const double *b,
                             global double *c) {
    int col = get_global_id(0), row = get_global_id(1);
    double acc = 0.0;
    for (int k = 0; k < n; k++)
        acc += a[row * n + k] * b[k * n + col];
    c[row * n + col] = acc;
}
#endif
"#;

#[derive(Clone, Copy, PartialEq)]
enum Variant {
    SgemmNaive,
    SgemmTiled,
    DgemmNaive,
}

struct Host {
    a: Vec<f64>,
    b: Vec<f64>,
    want: Vec<f64>,
}

pub struct Gemm {
    variant: Variant,
    n: usize,
    host: OnceLock<Host>,
}

impl Gemm {
    fn new(variant: Variant, n: usize) -> Self {
        Self {
            variant,
            n,
            host: OnceLock::new(),
        }
    }
    pub fn sgemm_naive() -> Self {
        Self::new(Variant::SgemmNaive, 256)
    }
    pub fn sgemm_tiled() -> Self {
        Self::new(Variant::SgemmTiled, 384)
    }
    pub fn dgemm_naive() -> Self {
        Self::new(Variant::DgemmNaive, 384)
    }

    fn host(&self) -> &Host {
        self.host.get_or_init(|| {
            let n = self.n;
            let mut rng = Rng::new(0x6e33 + n as u64);
            // Values exact in float, so both precisions multiply the same
            // matrices.
            let a: Vec<f64> = (0..n * n).map(|_| rng.f32(-1.0, 1.0) as f64).collect();
            let b: Vec<f64> = (0..n * n).map(|_| rng.f32(-1.0, 1.0) as f64).collect();
            Host {
                want: reference(n, &a, &b),
                a,
                b,
            }
        })
    }
}

/// C = A B in double, i-k-j order so the inner loop streams rows.
fn reference(n: usize, a: &[f64], b: &[f64]) -> Vec<f64> {
    let mut c = vec![0.0; n * n];
    for i in 0..n {
        let row = &mut c[i * n..(i + 1) * n];
        for k in 0..n {
            let aik = a[i * n + k];
            for (cij, bkj) in row.iter_mut().zip(&b[k * n..(k + 1) * n]) {
                *cij += aik * bkj;
            }
        }
    }
    c
}

impl Benchmark for Gemm {
    fn name(&self) -> &'static str {
        match self.variant {
            Variant::SgemmNaive => "sgemm-naive",
            Variant::SgemmTiled => "sgemm-tiled",
            Variant::DgemmNaive => "dgemm-naive",
        }
    }
    fn source(&self) -> &'static str {
        match self.variant {
            Variant::SgemmNaive => SGEMM_NAIVE,
            Variant::SgemmTiled => SGEMM_TILED,
            Variant::DgemmNaive => DGEMM_NAIVE,
        }
    }
    fn unit(&self) -> Unit {
        Unit::GFlops
    }
    fn peak(&self) -> Peak {
        match self.variant {
            Variant::DgemmNaive => Peak::Fma64,
            _ => Peak::Fma32,
        }
    }
    fn needs_fp64(&self) -> bool {
        self.variant == Variant::DgemmNaive
    }
    fn work(&self) -> f64 {
        2.0 * (self.n as f64).powi(3)
    }

    fn prepare<'a>(
        &'a self,
        t: &Target,
        program: &Program,
    ) -> Result<Box<dyn Prepared + 'a>, String> {
        let h = self.host();
        let n = self.n;
        let global = [n, n];
        match self.variant {
            Variant::DgemmNaive => {
                let a = t.upload(&h.a)?;
                let b = t.upload(&h.b)?;
                let c = t.alloc::<f64>(n * n)?;
                let args = [val(n as i32), mem(&a), mem(&b), mem(&c)];
                let launch = Launch::new(program, "gemm_dgemm_naive", &args, &global, None)?;
                Ok(Box::new(Simple {
                    launch,
                    inputs: vec![a, b],
                    out: c,
                    len: n * n,
                    check: Box::new(move |got| check::close(got, &h.want, 1e-10, 1e-10)),
                }))
            }
            _ => {
                let to_f32 = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
                let a = t.upload(&to_f32(&h.a))?;
                let b = t.upload(&to_f32(&h.b))?;
                let c = t.alloc::<f32>(n * n)?;
                let args = [val(n as i32), mem(&a), mem(&b), mem(&c)];
                let (name, local) = if self.variant == Variant::SgemmTiled {
                    ("gemm_sgemm_tiled", Some(&[16usize, 16][..]))
                } else {
                    ("gemm_sgemm_naive", None)
                };
                let launch = Launch::new(program, name, &args, &global, local)?;
                Ok(Box::new(Simple {
                    launch,
                    inputs: vec![a, b],
                    out: c,
                    len: n * n,
                    check: Box::new(move |got| check::close(got, &h.want, 1e-3, 1e-4)),
                }))
            }
        }
    }
}
