//! Table lookups in local memory at data-dependent indices, as a block
//! cipher's rounds make them: each work-group copies four 256-entry tables
//! to local memory, then each work-item runs rounds over a 16-byte block,
//! each output word four lookups by the bytes of the state.

use std::sync::OnceLock;

use opencl3::program::Program;

use super::{Benchmark, Prepared, Simple, Unit};
use crate::check;
use crate::data::Rng;
use crate::platforms::{mem, val, Launch, Target};

const SOURCE: &str = r#"
kernel void table_lookup_rounds(global const uint4 *in, global const uint *tables,
                                global uint4 *out, uint rounds) {
    local uint t[4 * 256];
    for (size_t k = get_local_id(0); k < 4 * 256; k += get_local_size(0))
        t[k] = tables[k];
    barrier(CLK_LOCAL_MEM_FENCE);
    uint4 s = in[get_global_id(0)];
    for (uint r = 0; r < rounds; r++) {
        uint4 n;
        n.x = t[s.x & 255] ^ t[256 + ((s.y >> 8) & 255)] ^ t[512 + ((s.z >> 16) & 255)] ^ t[768 + (s.w >> 24)];
        n.y = t[s.y & 255] ^ t[256 + ((s.z >> 8) & 255)] ^ t[512 + ((s.w >> 16) & 255)] ^ t[768 + (s.x >> 24)];
        n.z = t[s.z & 255] ^ t[256 + ((s.w >> 8) & 255)] ^ t[512 + ((s.x >> 16) & 255)] ^ t[768 + (s.y >> 24)];
        n.w = t[s.w & 255] ^ t[256 + ((s.x >> 8) & 255)] ^ t[512 + ((s.y >> 16) & 255)] ^ t[768 + (s.z >> 24)];
        s = n ^ (uint4)(r, r * 3u, r * 5u, r * 7u);
    }
    out[get_global_id(0)] = s;
}
"#;

/// Blocks of 16 bytes.
const N: usize = 256 << 10;
const ROUNDS: u32 = 10;

struct Host {
    input: Vec<u32>,
    tables: Vec<u32>,
    want: Vec<u32>,
}

#[derive(Default)]
pub struct TableLookup {
    host: OnceLock<Host>,
}

fn rounds(t: &[u32], mut s: [u32; 4]) -> [u32; 4] {
    for r in 0..ROUNDS {
        let word = |a: u32, b: u32, c: u32, d: u32| {
            t[(a & 255) as usize]
                ^ t[256 + ((b >> 8) & 255) as usize]
                ^ t[512 + ((c >> 16) & 255) as usize]
                ^ t[768 + (d >> 24) as usize]
        };
        let n = [
            word(s[0], s[1], s[2], s[3]),
            word(s[1], s[2], s[3], s[0]),
            word(s[2], s[3], s[0], s[1]),
            word(s[3], s[0], s[1], s[2]),
        ];
        s = [
            n[0] ^ r,
            n[1] ^ r.wrapping_mul(3),
            n[2] ^ r.wrapping_mul(5),
            n[3] ^ r.wrapping_mul(7),
        ];
    }
    s
}

impl Benchmark for TableLookup {
    fn name(&self) -> &'static str {
        "table-lookup"
    }
    fn source(&self) -> &'static str {
        SOURCE
    }
    fn unit(&self) -> Unit {
        Unit::GBs
    }
    fn work(&self) -> f64 {
        (N * 16) as f64
    }

    fn prepare<'a>(
        &'a self,
        t: &Target,
        program: &Program,
    ) -> Result<Box<dyn Prepared + 'a>, String> {
        let h = self.host.get_or_init(|| {
            let mut rng = Rng::new(0x5b0c);
            let tables: Vec<u32> = (0..4 * 256).map(|_| rng.u32()).collect();
            let input: Vec<u32> = (0..4 * N).map(|_| rng.u32()).collect();
            let want = input
                .chunks(4)
                .flat_map(|b| rounds(&tables, [b[0], b[1], b[2], b[3]]))
                .collect();
            Host {
                input,
                tables,
                want,
            }
        });
        let input = t.upload(&h.input)?;
        let tables = t.upload(&h.tables)?;
        let out = t.alloc::<u32>(4 * N)?;
        let args = [mem(&input), mem(&tables), mem(&out), val(ROUNDS)];
        let launch = Launch::new(program, "table_lookup_rounds", &args, &[N], Some(&[128]))?;
        Ok(Box::new(Simple {
            launch,
            inputs: vec![input, tables],
            out,
            len: 4 * N,
            check: Box::new(move |got| check::exact(got, &h.want)),
        }))
    }
}
