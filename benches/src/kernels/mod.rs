//! The benchmarks: one module each, holding its OpenCL C source, the host
//! reference and the check. Kernel and helper names carry the module's name
//! so that all sources together form one program (the build-time figures).

use opencl3::memory::Buffer;
use opencl3::program::Program;

use crate::platforms::{Launch, Target};

mod black_scholes;
mod conv;
mod copy;
mod double_math;
mod float8;
mod float8_math;
mod gemm;
mod half_gemm;
mod hash;
mod histogram;
mod image_resample;
pub mod latency;
mod mandelbrot;
mod nbody;
mod pixel;
mod reduce;
mod scan;
mod scratch_walk;
mod sub_group_reduce;
mod table_lookup;
mod transpose;
mod triad;

/// What a figure measures, and so how it is scaled and compared.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Unit {
    GBs,
    GFlops,
    MItems,
    Ms,
    Us,
}

impl Unit {
    pub fn label(self) -> &'static str {
        match self {
            Unit::GBs => "GB/s",
            Unit::GFlops => "GFLOP/s",
            Unit::MItems => "Mitem/s",
            Unit::Ms => "ms",
            Unit::Us => "us",
        }
    }

    /// Throughputs are better high, times low: ratios are always speed-ups.
    pub fn higher_is_better(self) -> bool {
        matches!(self, Unit::GBs | Unit::GFlops | Unit::MItems)
    }

    /// Work units (bytes, FLOPs, items) per displayed unit.
    pub fn scale(self) -> f64 {
        match self {
            Unit::GBs | Unit::GFlops => 1e9,
            Unit::MItems => 1e6,
            Unit::Ms | Unit::Us => 1.0,
        }
    }
}

/// The machine figure a result is shown as a percentage of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Peak {
    None,
    /// Single-precision FMA peak, all cores.
    Fma32,
    /// Double-precision FMA peak (half the lanes of single).
    Fma64,
    /// STREAM-style triad bandwidth, all cores.
    Stream,
}

pub trait Benchmark: Sync {
    fn name(&self) -> &'static str;
    fn source(&self) -> &'static str;
    fn unit(&self) -> Unit;
    fn peak(&self) -> Peak {
        Peak::None
    }
    fn needs_fp64(&self) -> bool {
        false
    }
    fn needs_fp16(&self) -> bool {
        false
    }
    /// Whether it calls sub-group functions.
    fn needs_sub_groups(&self) -> bool {
        false
    }
    /// Bytes, floating-point operations or items of one run.
    fn work(&self) -> f64;
    /// Puts the inputs on `t` and binds the kernel; the host reference is
    /// computed once, on the first call, and shared by every platform.
    fn prepare<'a>(
        &'a self,
        t: &Target,
        program: &Program,
    ) -> Result<Box<dyn Prepared + 'a>, String>;
}

/// A benchmark ready to run on one platform.
pub trait Prepared {
    /// Queues one run; the caller waits and times.
    fn enqueue(&mut self, t: &Target) -> Result<(), String>;
    /// Reads the output back and compares it with the host reference.
    fn check(&mut self, t: &Target) -> Result<(), String>;
}

/// The common shape: one launch, inputs kept alive, one output checked.
pub struct Simple<'a, I, O> {
    pub launch: Launch,
    /// Held so that the input buffers live as long as the launch.
    #[allow(dead_code)]
    pub inputs: Vec<Buffer<I>>,
    pub out: Buffer<O>,
    pub len: usize,
    pub check: Box<dyn Fn(&[O]) -> Result<(), String> + 'a>,
}

impl<I, O: Copy + Default> Prepared for Simple<'_, I, O> {
    fn enqueue(&mut self, t: &Target) -> Result<(), String> {
        self.launch.enqueue(t)
    }

    fn check(&mut self, t: &Target) -> Result<(), String> {
        let got = t.read(&self.out, self.len)?;
        (self.check)(&got)
    }
}

/// Floats per array of the OpenCL triad: the host triad uses the same.
pub const TRIAD_LEN: usize = triad::N;

/// Every benchmark, in table order.
pub fn all() -> Vec<Box<dyn Benchmark>> {
    vec![
        Box::new(copy::Copy::default()),
        Box::new(triad::Triad::default()),
        Box::new(triad::Triad::with_unreached_printf()),
        Box::new(reduce::Reduce::default()),
        Box::new(reduce::Reduce::grid_stride()),
        Box::new(sub_group_reduce::SubGroupReduce::default()),
        Box::new(gemm::Gemm::sgemm_naive()),
        Box::new(gemm::Gemm::sgemm_tiled()),
        Box::new(gemm::Gemm::dgemm_naive()),
        Box::new(half_gemm::HalfGemm::default()),
        Box::new(conv::Conv::default()),
        Box::new(mandelbrot::Mandelbrot::default()),
        Box::new(nbody::NBody::default()),
        Box::new(black_scholes::BlackScholes::default()),
        Box::new(histogram::Histogram::default()),
        Box::new(table_lookup::TableLookup::default()),
        Box::new(scratch_walk::ScratchWalk::default()),
        Box::new(scan::Scan::default()),
        Box::new(transpose::Transpose::default()),
        Box::new(pixel::Pixel::default()),
        Box::new(image_resample::ImageResample::default()),
        Box::new(hash::Hash::default()),
        Box::new(float8::Float8::default()),
        Box::new(float8_math::Float8Math::default()),
        Box::new(double_math::DoubleMath::default()),
    ]
}

/// The sources of the harness, each once (the GEMM variants share one).
pub fn sources() -> Vec<&'static str> {
    let mut seen = Vec::new();
    for b in all() {
        if !seen.contains(&b.source()) {
            seen.push(b.source());
        }
    }
    seen.push(latency::SOURCE);
    seen
}

/// Every kernel of the harness as one program.
pub fn whole_source() -> String {
    let mut s = String::new();
    let parts = sources();
    for (k, p) in parts.iter().enumerate() {
        s.push_str(p);
        if k + 1 < parts.len() {
            s.push('\n');
        }
    }
    s
}
