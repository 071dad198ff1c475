//! The machine's own limits, measured on the host without OpenCL: the
//! single-precision FMA peak and a STREAM-style triad bandwidth, both on
//! all cores. Kernel figures are shown as percentages of these.

use std::hint::black_box;
use std::thread;
use std::time::Instant;

pub struct Machine {
    pub cores: usize,
    pub cpu: String,
    /// Which FMA instructions the peak was reached with.
    pub isa: &'static str,
    pub fma_gflops_f32: f64,
    pub triad_gbs: f64,
}

impl Machine {
    /// Double precision runs the same FMA units with half the lanes.
    pub fn fma_gflops_f64(&self) -> f64 {
        self.fma_gflops_f32 / 2.0
    }
}

pub fn measure(triad_len: usize) -> Machine {
    let cores = thread::available_parallelism().map_or(1, |n| n.get());
    let (isa, fma_gflops_f32) = fma_peak(cores);
    Machine {
        cores,
        cpu: cpu_name(),
        isa,
        fma_gflops_f32,
        triad_gbs: triad(cores, triad_len),
    }
}

fn cpu_name() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|n| n.trim().to_string())
        })
        .unwrap_or_default()
}

/// Independent accumulator chains per thread: enough to cover the FMA
/// latency times the number of FMA pipes on current cores.
const CHAINS: usize = 12;
/// Iterations of the chain loop per thread and try.
const ITERS: u64 = 4_000_000;

/// Best of a few tries with every core running FMA chains, with the widest
/// FMA the CPU has.
fn fma_peak(cores: usize) -> (&'static str, f64) {
    let (isa, lanes, kernel): (&str, usize, fn(u64) -> f32) = pick_fma();
    let flops = (cores as u64 * ITERS * (CHAINS * lanes * 2) as u64) as f64;
    let best = (0..3)
        .map(|_| {
            let start = Instant::now();
            thread::scope(|s| {
                for _ in 0..cores {
                    s.spawn(|| black_box(kernel(black_box(ITERS))));
                }
            });
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min);
    (isa, flops / best / 1e9)
}

#[cfg(target_arch = "x86_64")]
fn pick_fma() -> (&'static str, usize, fn(u64) -> f32) {
    if is_x86_feature_detected!("avx512f") {
        // SAFETY (of the call inside): the feature was detected.
        ("avx512f", 16, |n| unsafe { x86::fma_avx512(n) })
    } else if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
        ("avx2+fma", 8, |n| unsafe { x86::fma_avx2(n) })
    } else {
        ("scalar", 1, fma_scalar)
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn pick_fma() -> (&'static str, usize, fn(u64) -> f32) {
    ("scalar", 1, fma_scalar)
}

fn fma_scalar(n: u64) -> f32 {
    let mut acc = [1.0f32; CHAINS];
    for _ in 0..n {
        for a in acc.iter_mut() {
            *a = a.mul_add(0.999_999, 1e-7);
        }
    }
    acc.iter().sum()
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::CHAINS;
    use std::arch::x86_64::*;

    #[target_feature(enable = "avx512f")]
    pub unsafe fn fma_avx512(n: u64) -> f32 {
        let (m, k) = (_mm512_set1_ps(0.999_999), _mm512_set1_ps(1e-7));
        let mut acc = [_mm512_set1_ps(1.0); CHAINS];
        for _ in 0..n {
            for a in acc.iter_mut() {
                *a = _mm512_fmadd_ps(*a, m, k);
            }
        }
        let mut sum = _mm512_setzero_ps();
        for a in acc {
            sum = _mm512_add_ps(sum, a);
        }
        _mm512_reduce_add_ps(sum)
    }

    #[target_feature(enable = "avx2,fma")]
    pub unsafe fn fma_avx2(n: u64) -> f32 {
        let (m, k) = (_mm256_set1_ps(0.999_999), _mm256_set1_ps(1e-7));
        let mut acc = [_mm256_set1_ps(1.0); CHAINS];
        for _ in 0..n {
            for a in acc.iter_mut() {
                *a = _mm256_fmadd_ps(*a, m, k);
            }
        }
        let mut lanes = [0.0f32; 8];
        let mut sum = _mm256_setzero_ps();
        for a in acc {
            sum = _mm256_add_ps(sum, a);
        }
        _mm256_storeu_ps(lanes.as_mut_ptr(), sum);
        lanes.iter().sum()
    }
}

/// `a[i] = b[i] + s * c[i]` over `len` floats split across every core,
/// each thread touching its own part first (so its pages are local); best
/// of several runs, counting 12 bytes per element as STREAM does.
fn triad(cores: usize, len: usize) -> f64 {
    let mut a = vec![0.0f32; len];
    let mut b = vec![0.0f32; len];
    let mut c = vec![0.0f32; len];
    let chunk = len.div_ceil(cores);
    let parts = |a: &mut [f32],
                 b: &mut [f32],
                 c: &mut [f32],
                 f: &(dyn Fn(&mut [f32], &[f32], &[f32]) + Sync)| {
        thread::scope(|s| {
            for ((a, b), c) in a
                .chunks_mut(chunk)
                .zip(b.chunks_mut(chunk))
                .zip(c.chunks_mut(chunk))
            {
                s.spawn(move || f(a, b, c));
            }
        });
    };
    // First touch, in parallel.
    thread::scope(|s| {
        for ((a, b), c) in a
            .chunks_mut(chunk)
            .zip(b.chunks_mut(chunk))
            .zip(c.chunks_mut(chunk))
        {
            s.spawn(move || {
                a.fill(0.0);
                b.fill(1.0);
                c.fill(2.0);
            });
        }
    });
    let best = (0..10)
        .map(|_| {
            let start = Instant::now();
            parts(&mut a, &mut b, &mut c, &|a, b, c| {
                for ((a, b), c) in a.iter_mut().zip(b).zip(c) {
                    *a = b + 3.0 * c;
                }
            });
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min);
    black_box(&a);
    (12 * len) as f64 / best / 1e9
}
