//! Copy bandwidth: one float read and one written per work-item.

use std::sync::OnceLock;

use opencl3::program::Program;

use super::{Benchmark, Peak, Prepared, Simple, Unit};
use crate::check;
use crate::platforms::{mem, Launch, Target};

const SOURCE: &str = r#"
kernel void copy_f32(global const float *restrict src, global float *restrict dst) {
    size_t i = get_global_id(0);
    dst[i] = src[i];
}
"#;

/// 128 MiB per buffer: far beyond the caches.
const N: usize = 32 << 20;

#[derive(Default)]
pub struct Copy {
    input: OnceLock<Vec<f32>>,
}

impl Benchmark for Copy {
    fn name(&self) -> &'static str {
        "copy"
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
        (2 * 4 * N) as f64
    }

    fn prepare<'a>(
        &'a self,
        t: &Target,
        program: &Program,
    ) -> Result<Box<dyn Prepared + 'a>, String> {
        let input = self
            .input
            .get_or_init(|| (0..N).map(|i| (i % 65521) as f32).collect());
        let src = t.upload(input)?;
        let dst = t.alloc::<f32>(N)?;
        let launch = Launch::new(program, "copy_f32", &[mem(&src), mem(&dst)], &[N], None)?;
        Ok(Box::new(Simple {
            launch,
            inputs: vec![src],
            out: dst,
            len: N,
            check: Box::new(move |got| check::exact(got, input)),
        }))
    }
}
