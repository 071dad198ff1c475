//! 256-bin byte histogram: each work-group counts into local bins with
//! local atomics, then adds its bins to the global ones with global atomics.

use std::sync::OnceLock;

use opencl3::memory::Buffer;
use opencl3::program::Program;

use super::{Benchmark, Prepared, Unit};
use crate::check;
use crate::data::Rng;
use crate::platforms::{mem, val, Launch, Target};

const SOURCE: &str = r#"
#define HISTOGRAM_BINS 256
kernel void histogram_256(global const uchar *data, uint n, global uint *bins) {
    local uint counts[HISTOGRAM_BINS];
    size_t lid = get_local_id(0), lsize = get_local_size(0);
    for (size_t b = lid; b < HISTOGRAM_BINS; b += lsize)
        counts[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&counts[data[i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t b = lid; b < HISTOGRAM_BINS; b += lsize)
        if (counts[b] != 0)
            atomic_add(&bins[b], counts[b]);
}
"#;

/// 8 MiB of bytes.
const N: usize = 8 << 20;
const WG: usize = 256;
/// Enough groups to keep every core busy; each item then loops over 128
/// bytes, strided so a work-group's loads stay together.
const ITEMS: usize = 256 * WG;

struct Host {
    data: Vec<u8>,
    want: Vec<u32>,
}

#[derive(Default)]
pub struct Histogram {
    host: OnceLock<Host>,
}

struct Run<'a> {
    host: &'a Host,
    launch: Launch,
    _data: Buffer<u8>,
    bins: Buffer<u32>,
}

impl Prepared for Run<'_> {
    fn enqueue(&mut self, t: &Target) -> Result<(), String> {
        // The kernel adds to the bins: they start at zero every run.
        t.zero(&mut self.bins, 256)?;
        self.launch.enqueue(t)
    }

    fn check(&mut self, t: &Target) -> Result<(), String> {
        check::exact(&t.read(&self.bins, 256)?, &self.host.want)
    }
}

impl Benchmark for Histogram {
    fn name(&self) -> &'static str {
        "histogram"
    }
    fn source(&self) -> &'static str {
        SOURCE
    }
    fn unit(&self) -> Unit {
        Unit::GBs
    }
    fn work(&self) -> f64 {
        N as f64
    }

    fn prepare<'a>(
        &'a self,
        t: &Target,
        program: &Program,
    ) -> Result<Box<dyn Prepared + 'a>, String> {
        let host = self.host.get_or_init(|| {
            let mut rng = Rng::new(0x4157);
            // Skewed, like image data: low values far more common.
            let data: Vec<u8> = (0..N)
                .map(|_| {
                    let r = rng.u32();
                    ((r & 0xff) * ((r >> 8) & 0xff) >> 8) as u8
                })
                .collect();
            let mut want = vec![0u32; 256];
            for &b in &data {
                want[b as usize] += 1;
            }
            Host { data, want }
        });
        let data = t.upload(&host.data)?;
        let bins = t.alloc::<u32>(256)?;
        let args = [mem(&data), val(N as u32), mem(&bins)];
        let launch = Launch::new(program, "histogram_256", &args, &[ITEMS], Some(&[WG]))?;
        Ok(Box::new(Run {
            host,
            launch,
            _data: data,
            bins,
        }))
    }
}
