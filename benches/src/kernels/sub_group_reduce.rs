//! A sum reduction written against sub-groups, as SYCL and modern OpenCL
//! reductions are: each work-item sums a grid-stride loop, then
//! `sub_group_reduce_add` combines a sub-group's sums and its first
//! work-item writes the result. Needs sub-groups (`__opencl_c_subgroups`,
//! `cl_khr_subgroups` or `cl_intel_subgroups`); the size of a sub-group is
//! the platform's.

use std::sync::OnceLock;

use opencl3::program::Program;

use super::{Benchmark, Peak, Prepared, Simple, Unit};
use crate::platforms::{mem, val, Launch, Target};

// Guarded so that the harness's whole source builds without sub-groups.
// Intel's CPU runtime names its sub-groups cl_intel_subgroups in OpenCL C
// 1.2, which has the same function.
const SOURCE: &str = r#"
#if defined(__opencl_c_subgroups) || defined(cl_khr_subgroups) || defined(cl_intel_subgroups)
#ifdef cl_khr_subgroups
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
kernel void sub_group_reduce(int n, global const float *in, global float *partial) {
    float sum = 0.0f;
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        sum += in[i];
    sum = sub_group_reduce_add(sum);
    partial[get_global_id(0)] = get_sub_group_local_id() == 0 ? sum : 0.0f;
}
#endif
"#;

const WG: usize = 256;
/// 16 MiB of input.
const N: usize = 4 << 20;
/// A few work-groups per thread of any CPU here.
const GROUPS: usize = 64;
const ITEMS: usize = GROUPS * WG;

struct Host {
    input: Vec<f32>,
    /// Each work-item's grid-stride sum.
    sums: Vec<f64>,
}

#[derive(Default)]
pub struct SubGroupReduce {
    host: OnceLock<Host>,
}

impl Benchmark for SubGroupReduce {
    fn name(&self) -> &'static str {
        "sub-group-reduce"
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
    fn needs_sub_groups(&self) -> bool {
        true
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
            let mut sums = vec![0.0f64; ITEMS];
            for (i, x) in input.iter().enumerate() {
                sums[i % ITEMS] += *x as f64;
            }
            Host { input, sums }
        });
        let input = t.upload(&h.input)?;
        let partial = t.alloc::<f32>(ITEMS)?;
        let args = [val(N as i32), mem(&input), mem(&partial)];
        let launch = Launch::new(program, "sub_group_reduce", &args, &[ITEMS], Some(&[WG]))?;
        Ok(Box::new(Simple {
            launch,
            inputs: vec![input],
            out: partial,
            len: ITEMS,
            check: Box::new(move |got: &[f32]| check(got, &h.sums)),
        }))
    }
}

/// Each run of work-items that starts at a non-zero partial (a
/// sub-group's first) and runs up to the next holds that partial's sum;
/// all together hold the whole sum. (A sub-group whose sum is 0 merges
/// with the one before it, which the check allows.)
fn check(got: &[f32], sums: &[f64]) -> Result<(), String> {
    let total: f64 = sums.iter().sum();
    let got_total: f64 = got.iter().map(|&x| x as f64).sum();
    if got_total != total {
        return Err(format!("total {got_total}, want {total}"));
    }
    for group in 0..GROUPS {
        let items = group * WG..(group + 1) * WG;
        let group_sum: f64 = sums[items.clone()].iter().sum();
        let got_sum: f64 = got[items].iter().map(|&x| x as f64).sum();
        if got_sum != group_sum {
            return Err(format!("work-group {group}: {got_sum}, want {group_sum}"));
        }
    }
    Ok(())
}
