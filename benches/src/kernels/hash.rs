//! Integer hashing: rounds of `rotate`, `mul_hi` and `popcount` on `uint`.

use std::sync::OnceLock;

use opencl3::program::Program;

use super::{Benchmark, Prepared, Simple, Unit};
use crate::check;
use crate::platforms::{mem, val, Launch, Target};

const SOURCE: &str = r#"
kernel void hash_rounds(global const uint *in, global uint *out, uint rounds) {
    size_t i = get_global_id(0);
    uint x = in[i];
    for (uint r = 0; r < rounds; r++) {
        x ^= rotate(x, 13u);
        x = x * 0x9e3779b1u + mul_hi(x, 0x85ebca77u);
        x += popcount(x);
    }
    out[i] = x;
}
"#;

const N: usize = 256 << 10;
const ROUNDS: u32 = 32;

struct Host {
    input: Vec<u32>,
    want: Vec<u32>,
}

#[derive(Default)]
pub struct Hash {
    host: OnceLock<Host>,
}

fn hash(mut x: u32) -> u32 {
    for _ in 0..ROUNDS {
        x ^= x.rotate_left(13);
        let hi = ((x as u64 * 0x85eb_ca77) >> 32) as u32;
        x = x.wrapping_mul(0x9e37_79b1).wrapping_add(hi);
        x = x.wrapping_add(x.count_ones());
    }
    x
}

impl Benchmark for Hash {
    fn name(&self) -> &'static str {
        "hash-u32"
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
            let input: Vec<u32> = (0..N as u32).collect();
            let want = input.iter().map(|&x| hash(x)).collect();
            Host { input, want }
        });
        let input = t.upload(&h.input)?;
        let out = t.alloc::<u32>(N)?;
        let args = [mem(&input), mem(&out), val(ROUNDS)];
        let launch = Launch::new(program, "hash_rounds", &args, &[N], None)?;
        Ok(Box::new(Simple {
            launch,
            inputs: vec![input],
            out,
            len: N,
            check: Box::new(move |got| check::exact(got, &h.want)),
        }))
    }
}
