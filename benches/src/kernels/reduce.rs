//! Sum reductions, one partial sum per work-group: a tree in local memory
//! with a barrier per level over one element per work-item, and the same
//! tree after each work-item has summed a grid-stride loop.

use std::sync::OnceLock;

use opencl3::program::Program;

use super::{Benchmark, Peak, Prepared, Simple, Unit};
use crate::check;
use crate::platforms::{mem, val, Launch, Target};

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

__attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
kernel void reduce_grid_stride(int n, global const float *in, global float *partial) {
    local float scratch[REDUCE_WG];
    int lid = get_local_id(0);
    float sum = 0.0f;
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        sum += in[i];
    scratch[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = REDUCE_WG / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
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
/// Work-groups of the grid-stride form: a few per thread of any CPU here,
/// each work-item summing `N / (GRID_GROUPS * WG)` elements.
const GRID_GROUPS: usize = 64;

struct Host {
    input: Vec<f32>,
    want: Vec<f32>,
}

#[derive(Default)]
pub struct Reduce {
    grid_stride: bool,
    host: OnceLock<Host>,
}

impl Reduce {
    pub fn grid_stride() -> Self {
        Reduce {
            grid_stride: true,
            host: OnceLock::new(),
        }
    }
}

impl Benchmark for Reduce {
    fn name(&self) -> &'static str {
        if self.grid_stride {
            "reduce-grid"
        } else {
            "reduce"
        }
    }
    fn source(&self) -> &'static str {
        SOURCE
    }
    fn unit(&self) -> Unit {
        Unit::GBs
    }
    /// A reduction reads its input once, as fast as memory gives it.
    fn peak(&self) -> Peak {
        Peak::Stream
    }
    fn work(&self) -> f64 {
        (4 * N) as f64
    }

    fn prepare<'a>(
        &'a self,
        t: &Target,
        program: &Program,
    ) -> Result<Box<dyn Prepared + 'a>, String> {
        let groups = if self.grid_stride {
            GRID_GROUPS
        } else {
            GROUPS
        };
        let h = self.host.get_or_init(|| {
            // Small integers: every partial sum is exact in any order.
            let input: Vec<f32> = (0..N).map(|i| ((i * 7) % 17) as f32 - 8.0).collect();
            // Element i goes to the group whose work-item i is, modulo
            // the grid.
            let mut want = vec![0.0f32; groups];
            for (i, x) in input.iter().enumerate() {
                want[i % (groups * WG) / WG] += x;
            }
            Host { input, want }
        });
        let input = t.upload(&h.input)?;
        let partial = t.alloc::<f32>(groups)?;
        let n = N as i32;
        let launch = if self.grid_stride {
            let args = [val(n), mem(&input), mem(&partial)];
            Launch::new(
                program,
                "reduce_grid_stride",
                &args,
                &[groups * WG],
                Some(&[WG]),
            )?
        } else {
            let args = [mem(&input), mem(&partial)];
            Launch::new(program, "reduce_sum", &args, &[N], Some(&[WG]))?
        };
        Ok(Box::new(Simple {
            launch,
            inputs: vec![input],
            out: partial,
            len: groups,
            check: Box::new(move |got| check::exact(got, &h.want)),
        }))
    }
}
