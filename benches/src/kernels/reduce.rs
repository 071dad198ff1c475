//! Sum reduction: a tree in local memory with a barrier per level, one
//! partial sum per work-group.

use std::sync::OnceLock;

use opencl3::program::Program;

use super::{Benchmark, Prepared, Simple, Unit};
use crate::check;
use crate::platforms::{mem, Launch, Target};

const SOURCE: &str = r#"
#define REDUCE_WG 256
__attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
kernel void reduce_sum(global const float *in, global float *partial) {
    local float scratch[REDUCE_WG];
    size_t lid = get_local_id(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t stride = REDUCE_WG / 2; stride > 0; stride >>= 1) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
"#;

const WG: usize = 256;
/// 16 MiB of input.
const N: usize = 4 << 20;
const GROUPS: usize = N / WG;

struct Host {
    input: Vec<f32>,
    want: Vec<f32>,
}

#[derive(Default)]
pub struct Reduce {
    host: OnceLock<Host>,
}

impl Benchmark for Reduce {
    fn name(&self) -> &'static str {
        "reduce"
    }
    fn source(&self) -> &'static str {
        SOURCE
    }
    fn unit(&self) -> Unit {
        Unit::GBs
    }
    fn work(&self) -> f64 {
        (4 * N) as f64
    }

    fn prepare<'a>(
        &'a self,
        t: &Target,
        program: &Program,
    ) -> Result<Box<dyn Prepared + 'a>, String> {
        let h = self.host.get_or_init(|| {
            // Small integers: every partial sum is exact in any order.
            let input: Vec<f32> = (0..N).map(|i| ((i * 7) % 17) as f32 - 8.0).collect();
            let want = input.chunks(WG).map(|c| c.iter().sum()).collect();
            Host { input, want }
        });
        let input = t.upload(&h.input)?;
        let partial = t.alloc::<f32>(GROUPS)?;
        let args = [mem(&input), mem(&partial)];
        let launch = Launch::new(program, "reduce_sum", &args, &[N], Some(&[WG]))?;
        Ok(Box::new(Simple {
            launch,
            inputs: vec![input],
            out: partial,
            len: GROUPS,
            check: Box::new(move |got| check::exact(got, &h.want)),
        }))
    }
}
