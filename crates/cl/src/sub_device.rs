//! Sub-devices (`clCreateSubDevices`): a device's compute units split
//! equally, by counts, or by what they share (a NUMA node, a cache). Each
//! sub-device is a device of its own in `mux`, with its own threads on its
//! units; programs, memory and kernels are shared with its parent.

use crate::device::Device;
use crate::entry::{ensure, status};
use crate::object::{self, ClObject};
use mux::AffinityDomain;
use opencl_sys::*;
use std::sync::Arc;

/// How a device splits, read from the application's properties.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Partition {
    Equally(usize),
    ByCounts(Vec<usize>),
    ByAffinity(cl_device_affinity_domain),
}

/// The domains in the order `NEXT_PARTITIONABLE` tries them, with their
/// bits.
const DOMAINS: [(AffinityDomain, cl_device_affinity_domain); 5] = [
    (AffinityDomain::Numa, CL_DEVICE_AFFINITY_DOMAIN_NUMA),
    (AffinityDomain::L4Cache, CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE),
    (AffinityDomain::L3Cache, CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE),
    (AffinityDomain::L2Cache, CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE),
    (AffinityDomain::L1Cache, CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE),
];

/// `CL_DEVICE_PARTITION_PROPERTIES`: every way a device of `info` splits.
pub fn partition_properties(info: &mux::DeviceInfo) -> Vec<cl_device_partition_property> {
    let mut v = vec![CL_DEVICE_PARTITION_EQUALLY, CL_DEVICE_PARTITION_BY_COUNTS];
    if !info.affinity_domains.is_empty() {
        v.push(CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN);
    }
    v
}

/// `CL_DEVICE_PARTITION_AFFINITY_DOMAIN`: the domains `info` knows, and
/// "the next one that splits".
pub fn affinity_domains(info: &mux::DeviceInfo) -> cl_device_affinity_domain {
    let bits = info
        .affinity_domains
        .iter()
        .filter_map(|(d, _)| DOMAINS.iter().find(|(x, _)| x == d).map(|(_, b)| *b))
        .fold(0, |a, b| a | b);
    if bits == 0 {
        0
    } else {
        bits | CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE
    }
}

/// Reads the properties: the partition and the list (what
/// `CL_DEVICE_PARTITION_TYPE` answers), up to and including its
/// terminating 0.
///
/// # Safety
/// `props` must be a 0-terminated list, as the spec requires.
unsafe fn read(
    props: *const cl_device_partition_property,
) -> Result<(Partition, Vec<cl_device_partition_property>), cl_int> {
    let at = |i: usize| *props.add(i);
    let kind = at(0);
    let partition = match kind {
        CL_DEVICE_PARTITION_EQUALLY => {
            let n = at(1);
            ensure(n > 0, CL_INVALID_VALUE)?;
            // One partition per call: the list ends here.
            ensure(at(2) == 0, CL_INVALID_VALUE)?;
            Partition::Equally(n as usize)
        }
        CL_DEVICE_PARTITION_BY_COUNTS => {
            let mut counts = Vec::new();
            let mut i = 1;
            while at(i) != CL_DEVICE_PARTITION_BY_COUNTS_LIST_END {
                ensure(at(i) > 0, CL_INVALID_DEVICE_PARTITION_COUNT)?;
                counts.push(at(i) as usize);
                i += 1;
            }
            // The list's end is 0, as its terminator is: SYCL's OpenCL
            // adapter (and Intel's runtime with it) takes that one 0 for
            // both, so nothing after it is read.
            Partition::ByCounts(counts)
        }
        CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN => {
            ensure(at(2) == 0, CL_INVALID_VALUE)?;
            Partition::ByAffinity(at(1) as cl_device_affinity_domain)
        }
        _ => return Err(CL_INVALID_VALUE),
    };
    let given = match &partition {
        Partition::Equally(n) => vec![kind, *n as _, 0],
        Partition::ByCounts(counts) => std::iter::once(kind)
            .chain(counts.iter().map(|&c| c as _))
            .chain([CL_DEVICE_PARTITION_BY_COUNTS_LIST_END, 0])
            .collect(),
        Partition::ByAffinity(d) => vec![kind, *d as _, 0],
    };
    Ok((partition, given))
}

/// The compute units of each sub-device `partition` makes of a device of
/// `info`.
fn split(info: &mux::DeviceInfo, partition: &Partition) -> Result<Vec<Vec<u32>>, cl_int> {
    let units = info.compute_units as usize;
    match partition {
        Partition::Equally(n) => {
            // More units than the device has is a bad count, not a failure.
            ensure(*n <= units, CL_INVALID_DEVICE_PARTITION_COUNT)?;
            let count = units / n;
            Ok((0..count)
                .map(|i| (i * n..(i + 1) * n).map(|u| u as u32).collect())
                .collect())
        }
        Partition::ByCounts(counts) => {
            ensure(!counts.is_empty(), CL_INVALID_VALUE)?;
            ensure(
                counts.len() <= units
                    && counts
                        .iter()
                        .try_fold(0usize, |sum, &c| sum.checked_add(c))
                        .is_some_and(|sum| sum <= units),
                CL_INVALID_DEVICE_PARTITION_COUNT,
            )?;
            let mut next = 0;
            Ok(counts
                .iter()
                .map(|&c| {
                    let group = (next..next + c).map(|u| u as u32).collect();
                    next += c;
                    group
                })
                .collect())
        }
        Partition::ByAffinity(domain) => {
            ensure(
                domain.count_ones() == 1 && affinity_domains(info) & domain != 0,
                CL_INVALID_VALUE,
            )?;
            let groups = |d: AffinityDomain| {
                info.affinity_domains
                    .iter()
                    .find(|(x, _)| *x == d)
                    .map(|(_, g)| g.clone())
                    .unwrap_or_default()
            };
            let chosen = if *domain == CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE {
                DOMAINS
                    .iter()
                    .map(|(d, _)| groups(*d))
                    .find(|g| g.len() > 1)
            } else {
                DOMAINS
                    .iter()
                    .find(|(_, b)| b == domain)
                    .map(|(d, _)| groups(*d))
            };
            // One group is the whole device: it does not split that way.
            chosen
                .filter(|g| g.len() > 1)
                .ok_or(CL_DEVICE_PARTITION_FAILED)
        }
    }
}

pub unsafe extern "C" fn create_sub_devices(
    device: cl_device_id,
    properties: *const cl_device_partition_property,
    num_devices: cl_uint,
    out_devices: *mut cl_device_id,
    num_devices_ret: *mut cl_uint,
) -> cl_int {
    status(|| {
        let parent = object::get::<Device>(device)?;
        ensure(!properties.is_null(), CL_INVALID_VALUE)?;
        let (partition, given) = read(properties)?;
        let groups = split(parent.info(), &partition)?;
        // One sub-device of every unit is the device itself: no partition.
        ensure(
            !(groups.len() == 1 && groups[0].len() == parent.info().compute_units as usize),
            CL_DEVICE_PARTITION_FAILED,
        )?;
        ensure(
            out_devices.is_null() || num_devices as usize >= groups.len(),
            CL_INVALID_VALUE,
        )?;
        if !out_devices.is_null() {
            // Every sub-device is made before any handle is given out.
            let made: Vec<Arc<ClObject<Device>>> = groups
                .iter()
                .map(|units| {
                    let mux = parent
                        .mux
                        .create_sub_device(units)
                        .map_err(|_| CL_OUT_OF_RESOURCES)?;
                    Ok(object::create(parent.sub_device(
                        mux,
                        given.clone(),
                        &parent,
                    )))
                })
                .collect::<Result<_, cl_int>>()?;
            for (i, d) in made.iter().enumerate() {
                *out_devices.add(i) = object::handle(d);
            }
        }
        if !num_devices_ret.is_null() {
            *num_devices_ret = groups.len() as cl_uint;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_list_ended_by_the_terminator_alone_is_read_to_its_end() {
        // Exactly the four values SYCL's adapter passes: nothing after.
        let props: Box<[cl_device_partition_property]> =
            vec![CL_DEVICE_PARTITION_BY_COUNTS, 1, 1, 0].into_boxed_slice();
        // SAFETY: a 0-terminated list.
        let (p, given) = unsafe { read(props.as_ptr()) }.unwrap();
        assert!(matches!(p, Partition::ByCounts(ref c) if c == &[1, 1]));
        assert_eq!(
            given,
            [
                CL_DEVICE_PARTITION_BY_COUNTS,
                1,
                1,
                CL_DEVICE_PARTITION_BY_COUNTS_LIST_END,
                0
            ]
        );
    }

    fn info(units: u32, domains: Vec<(AffinityDomain, Vec<Vec<u32>>)>) -> mux::DeviceInfo {
        let mut i = mux::Device::info(&host::HostDevice::new()).clone();
        i.compute_units = units;
        i.affinity_domains = domains;
        i
    }

    #[test]
    fn equal_parts_leave_the_rest_out() {
        let i = info(7, vec![]);
        let g = split(&i, &Partition::Equally(3)).unwrap();
        assert_eq!(g, vec![vec![0, 1, 2], vec![3, 4, 5]]);
        assert_eq!(
            split(&i, &Partition::Equally(8)),
            Err(CL_INVALID_DEVICE_PARTITION_COUNT)
        );
    }

    #[test]
    fn counts_are_consecutive_and_bounded() {
        let i = info(4, vec![]);
        let g = split(&i, &Partition::ByCounts(vec![1, 3])).unwrap();
        assert_eq!(g, vec![vec![0], vec![1, 2, 3]]);
        assert_eq!(
            split(&i, &Partition::ByCounts(vec![2, 3])),
            Err(CL_INVALID_DEVICE_PARTITION_COUNT)
        );
        // Counts whose sum wraps around are still too many.
        assert_eq!(
            split(&i, &Partition::ByCounts(vec![usize::MAX, 2])),
            Err(CL_INVALID_DEVICE_PARTITION_COUNT)
        );
    }

    #[test]
    fn next_partitionable_takes_the_first_domain_that_splits() {
        let i = info(
            4,
            vec![
                (AffinityDomain::Numa, vec![vec![0, 1, 2, 3]]),
                (AffinityDomain::L2Cache, vec![vec![0, 1], vec![2, 3]]),
            ],
        );
        let next = Partition::ByAffinity(CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE);
        assert_eq!(split(&i, &next).unwrap(), vec![vec![0, 1], vec![2, 3]]);
        let numa = Partition::ByAffinity(CL_DEVICE_AFFINITY_DOMAIN_NUMA);
        assert_eq!(split(&i, &numa), Err(CL_DEVICE_PARTITION_FAILED));
        let l3 = Partition::ByAffinity(CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE);
        assert_eq!(split(&i, &l3), Err(CL_INVALID_VALUE));
        assert_eq!(
            affinity_domains(&i),
            CL_DEVICE_AFFINITY_DOMAIN_NUMA
                | CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE
                | CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE
        );
    }
}
