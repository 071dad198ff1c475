//! A large scratch area per work-item walked at data-dependent addresses,
//! as memory-hard key derivation does (scrypt's ROMix): each work-item
//! fills 16 KiB of its own with a chain of mixes, then reads it back as
//! many times at places its running value picks.

use std::sync::OnceLock;

use opencl3::program::Program;

use super::{Benchmark, Prepared, Simple, Unit};
use crate::check;
use crate::platforms::{mem, Launch, Target};

const SOURCE: &str = r#"
#define SCRATCH_WORDS 4096
uint scratch_walk_mix(uint x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    return x ^ (x >> 16);
}
kernel void scratch_walk(global const uint *seeds, global uint *scratch, global uint *out) {
    size_t i = get_global_id(0);
    global uint *v = scratch + i * SCRATCH_WORDS;
    uint x = seeds[i];
    for (uint k = 0; k < SCRATCH_WORDS; k++) {
        v[k] = x;
        x = scratch_walk_mix(x + k);
    }
    for (uint k = 0; k < SCRATCH_WORDS; k++)
        x = scratch_walk_mix(x ^ v[x & (SCRATCH_WORDS - 1)]);
    out[i] = x;
}
"#;

const WORDS: usize = 4096;
/// Work-items, each with 16 KiB of scratch (64 MiB in all).
const N: usize = 4096;

struct Host {
    seeds: Vec<u32>,
    want: Vec<u32>,
}

#[derive(Default)]
pub struct ScratchWalk {
    host: OnceLock<Host>,
}

fn mix(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

fn walk(seed: u32) -> u32 {
    let mut v = vec![0u32; WORDS];
    let mut x = seed;
    for (k, slot) in v.iter_mut().enumerate() {
        *slot = x;
        x = mix(x.wrapping_add(k as u32));
    }
    for _ in 0..WORDS {
        x = mix(x ^ v[x as usize & (WORDS - 1)]);
    }
    x
}

impl Benchmark for ScratchWalk {
    fn name(&self) -> &'static str {
        "scratch-walk"
    }
    fn source(&self) -> &'static str {
        SOURCE
    }
    fn unit(&self) -> Unit {
        Unit::MItems
    }
    /// Words written and read back.
    fn work(&self) -> f64 {
        (2 * N * WORDS) as f64
    }

    fn prepare<'a>(
        &'a self,
        t: &Target,
        program: &Program,
    ) -> Result<Box<dyn Prepared + 'a>, String> {
        let h = self.host.get_or_init(|| {
            let seeds: Vec<u32> = (0..N as u32).map(|i| mix(i ^ 0x51ed)).collect();
            let want = seeds.iter().map(|&s| walk(s)).collect();
            Host { seeds, want }
        });
        let seeds = t.upload(&h.seeds)?;
        let scratch = t.alloc::<u32>(N * WORDS)?;
        let out = t.alloc::<u32>(N)?;
        let args = [mem(&seeds), mem(&scratch), mem(&out)];
        let launch = Launch::new(program, "scratch_walk", &args, &[N], None)?;
        Ok(Box::new(Simple {
            launch,
            inputs: vec![seeds, scratch],
            out,
            len: N,
            check: Box::new(move |got| check::exact(got, &h.want)),
        }))
    }
}
