//! Inclusive prefix sum within each work-group: a Hillis-Steele scan
//! ping-ponging between two local arrays, a barrier per step.

use std::sync::OnceLock;

use opencl3::program::Program;

use super::{Benchmark, Prepared, Simple, Unit};
use crate::check;
use crate::data::Rng;
use crate::platforms::{mem, Launch, Target};

const SOURCE: &str = r#"
#define SCAN_WG 256
__attribute__((reqd_work_group_size(SCAN_WG, 1, 1)))
kernel void scan_group(global const uint *in, global uint *out) {
    local uint buf[2][SCAN_WG];
    size_t lid = get_local_id(0);
    int src = 0;
    buf[0][lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t offset = 1; offset < SCAN_WG; offset <<= 1) {
        uint v = buf[src][lid];
        if (lid >= offset)
            v += buf[src][lid - offset];
        buf[1 - src][lid] = v;
        src = 1 - src;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = buf[src][lid];
}
"#;

const WG: usize = 256;
const N: usize = 4 << 20;

struct Host {
    input: Vec<u32>,
    want: Vec<u32>,
}

#[derive(Default)]
pub struct Scan {
    host: OnceLock<Host>,
}

impl Benchmark for Scan {
    fn name(&self) -> &'static str {
        "scan"
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
            let mut rng = Rng::new(0x5ca);
            let input: Vec<u32> = (0..N).map(|_| rng.u32() >> 12).collect();
            let mut want = Vec::with_capacity(N);
            for group in input.chunks(WG) {
                let mut sum = 0u32;
                want.extend(group.iter().map(|v| {
                    sum = sum.wrapping_add(*v);
                    sum
                }));
            }
            Host { input, want }
        });
        let input = t.upload(&h.input)?;
        let out = t.alloc::<u32>(N)?;
        let launch = Launch::new(
            program,
            "scan_group",
            &[mem(&input), mem(&out)],
            &[N],
            Some(&[WG]),
        )?;
        Ok(Box::new(Simple {
            launch,
            inputs: vec![input],
            out,
            len: N,
            check: Box::new(move |got| check::exact(got, &h.want)),
        }))
    }
}
