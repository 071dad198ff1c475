//! Matrix transpose through a padded 16x16 local tile, so both the global
//! reads and the global writes go along rows.

use std::sync::OnceLock;

use opencl3::program::Program;

use super::{Benchmark, Prepared, Simple, Unit};
use crate::check;
use crate::platforms::{mem, val, Launch, Target};

const SOURCE: &str = r#"
#define TRANSPOSE_TILE 16
__attribute__((reqd_work_group_size(TRANSPOSE_TILE, TRANSPOSE_TILE, 1)))
kernel void transpose_tiled(int w, int h, global const float *in, global float *out) {
    /* One column of padding: the column reads hit different banks. */
    local float tile[TRANSPOSE_TILE][TRANSPOSE_TILE + 1];
    int tx = get_local_id(0), ty = get_local_id(1);
    int x0 = get_group_id(0) * TRANSPOSE_TILE, y0 = get_group_id(1) * TRANSPOSE_TILE;
    tile[ty][tx] = in[(y0 + ty) * w + x0 + tx];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[(x0 + ty) * h + y0 + tx] = tile[tx][ty];
}
"#;

const W: usize = 4096;
const H: usize = 2048;

struct Host {
    input: Vec<f32>,
    want: Vec<f32>,
}

#[derive(Default)]
pub struct Transpose {
    host: OnceLock<Host>,
}

impl Benchmark for Transpose {
    fn name(&self) -> &'static str {
        "transpose"
    }
    fn source(&self) -> &'static str {
        SOURCE
    }
    fn unit(&self) -> Unit {
        Unit::GBs
    }
    fn work(&self) -> f64 {
        (2 * 4 * W * H) as f64
    }

    fn prepare<'a>(
        &'a self,
        t: &Target,
        program: &Program,
    ) -> Result<Box<dyn Prepared + 'a>, String> {
        let h = self.host.get_or_init(|| {
            let input: Vec<f32> = (0..W * H).map(|i| i as f32).collect();
            let mut want = vec![0.0; W * H];
            for y in 0..H {
                for x in 0..W {
                    want[x * H + y] = input[y * W + x];
                }
            }
            Host { input, want }
        });
        let input = t.upload(&h.input)?;
        let out = t.alloc::<f32>(W * H)?;
        let args = [val(W as i32), val(H as i32), mem(&input), mem(&out)];
        let launch = Launch::new(program, "transpose_tiled", &args, &[W, H], Some(&[16, 16]))?;
        Ok(Box::new(Simple {
            launch,
            inputs: vec![input],
            out,
            len: W * H,
            check: Box::new(move |got| check::exact(got, &h.want)),
        }))
    }
}
