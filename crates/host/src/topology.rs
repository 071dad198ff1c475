//! Which CPUs the device runs on and what they share: how many workers
//! the process may use (its affinity mask, its cgroup's CPU quota, or
//! `FERROCL_THREADS`), and the CPUs grouped by NUMA node and by cache, which
//! partitioning into sub-devices follows.

use mux::AffinityDomain;
use std::collections::BTreeMap;
use std::fs;

/// The CPUs this process may run on (its affinity mask), in order.
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: the set is plain data that sched_getaffinity fills.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return (0..online_cpus()).collect();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}

fn online_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The CPU time the process's cgroup may use, in CPUs (1.5 for a quota of
/// 150 ms per 100 ms), if it is limited: cgroup v2's `cpu.max`, else v1's
/// `cpu.cfs_quota_us` over `cpu.cfs_period_us`.
pub fn cgroup_cpu_limit() -> Option<f64> {
    let cgroups = fs::read_to_string("/proc/self/cgroup").ok()?;
    for line in cgroups.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        if controllers.is_empty() {
            // v2: the limit may sit on this cgroup or any ancestor.
            let mut dir = format!("/sys/fs/cgroup{}", path.trim_end_matches('/'));
            loop {
                if let Some(limit) = fs::read_to_string(format!("{dir}/cpu.max"))
                    .ok()
                    .and_then(|s| parse_cpu_max(&s))
                {
                    return Some(limit);
                }
                match dir.rfind('/') {
                    Some(i) if dir.len() > "/sys/fs/cgroup".len() => dir.truncate(i),
                    _ => break,
                }
            }
        } else if controllers.split(',').any(|c| c == "cpu") {
            for base in ["/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu"] {
                let dir = format!("{base}{}", path.trim_end_matches('/'));
                let read = |f: &str| {
                    fs::read_to_string(format!("{dir}/{f}"))
                        .ok()
                        .and_then(|s| s.trim().parse::<i64>().ok())
                };
                if let (Some(quota), Some(period)) =
                    (read("cpu.cfs_quota_us"), read("cpu.cfs_period_us"))
                {
                    return (quota > 0 && period > 0).then(|| quota as f64 / period as f64);
                }
            }
        }
    }
    None
}

/// `cpu.max` is `"<quota> <period>"` or `"max <period>"` (no limit).
fn parse_cpu_max(s: &str) -> Option<f64> {
    let mut it = s.split_whitespace();
    let quota = it.next()?.parse::<f64>().ok()?;
    let period = it.next()?.parse::<f64>().ok()?;
    (quota > 0.0 && period > 0.0).then(|| quota / period)
}

/// How many threads run work-groups: `threads` if set (`FERROCL_THREADS`),
/// else the allowed CPUs, cut to the cgroup's quota rounded up (a container
/// given 1.5 CPUs gets 2).
pub fn compute_units(allowed: usize, quota: Option<f64>, threads: Option<usize>) -> usize {
    if let Some(n) = threads.filter(|&n| n > 0) {
        return n;
    }
    let by_quota = quota.map_or(usize::MAX, |q| (q.ceil() as usize).max(1));
    allowed.max(1).min(by_quota)
}

/// Groups of compute units sharing a NUMA node or a cache, for each domain
/// this machine describes that splits the units (all units on one node is
/// no partition): `cpus[i]` is the CPU compute unit `i` runs on. Each group
/// lists compute-unit indices in order; groups are in the order of their
/// first unit.
pub fn domains(cpus: &[usize]) -> Vec<(AffinityDomain, Vec<Vec<u32>>)> {
    let mut all = described_domains(cpus);
    all.retain(|(_, groups)| groups.len() > 1);
    all
}

fn described_domains(cpus: &[usize]) -> Vec<(AffinityDomain, Vec<Vec<u32>>)> {
    let mut out = Vec::new();
    let node_of = numa_nodes();
    if !node_of.is_empty() {
        out.push((
            AffinityDomain::Numa,
            group_by(cpus, |c| node_of.get(&c).map(|n| n.to_string())),
        ));
    }
    for (level, domain) in [
        (4, AffinityDomain::L4Cache),
        (3, AffinityDomain::L3Cache),
        (2, AffinityDomain::L2Cache),
        (1, AffinityDomain::L1Cache),
    ] {
        if cpus.iter().all(|&c| shared_cache(c, level).is_some()) {
            out.push((domain, group_by(cpus, |c| shared_cache(c, level))));
        }
    }
    out
}

/// Compute units grouped by `key` of their CPU (a unit whose CPU has no key
/// is a group of its own).
fn group_by(cpus: &[usize], key: impl Fn(usize) -> Option<String>) -> Vec<Vec<u32>> {
    let mut groups: Vec<(Option<String>, Vec<u32>)> = Vec::new();
    for (unit, &cpu) in cpus.iter().enumerate() {
        let k = key(cpu);
        match groups.iter_mut().find(|(g, _)| k.is_some() && *g == k) {
            Some((_, units)) => units.push(unit as u32),
            None => groups.push((k, vec![unit as u32])),
        }
    }
    groups.into_iter().map(|(_, units)| units).collect()
}

/// CPU → NUMA node, from `/sys/devices/system/node/node*/cpulist`.
fn numa_nodes() -> BTreeMap<usize, usize> {
    let mut map = BTreeMap::new();
    let Ok(dir) = fs::read_dir("/sys/devices/system/node") else {
        return map;
    };
    for entry in dir.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(node) = name
            .strip_prefix("node")
            .and_then(|n| n.parse::<usize>().ok())
        else {
            continue;
        };
        if let Ok(list) = fs::read_to_string(entry.path().join("cpulist")) {
            for cpu in parse_cpu_list(&list) {
                map.insert(cpu, node);
            }
        }
    }
    map
}

/// The CPUs sharing `cpu`'s data or unified cache of `level`, as sysfs
/// lists them (the same text for every CPU of the cache).
fn shared_cache(cpu: usize, level: u32) -> Option<String> {
    for i in 0..8 {
        let dir = format!("/sys/devices/system/cpu/cpu{cpu}/cache/index{i}");
        let read = |f: &str| {
            fs::read_to_string(format!("{dir}/{f}"))
                .ok()
                .map(|s| s.trim().to_string())
        };
        let kind = read("type")?;
        if kind != "Instruction" && read("level").and_then(|l| l.parse().ok()) == Some(level) {
            return read("shared_cpu_list");
        }
    }
    None
}

/// `"0-3,8,10-11"` → `[0, 1, 2, 3, 8, 10, 11]`.
pub fn parse_cpu_list(s: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for part in s.trim().split(',').filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<usize>(), b.parse::<usize>()) {
                    out.extend(a..=b);
                }
            }
            None => out.extend(part.parse::<usize>().ok()),
        }
    }
    out
}

/// Binds the calling thread to `cpus` (a sub-device's workers stay on its
/// cores). Failure leaves the thread where the OS puts it.
pub fn pin_current_thread(cpus: &[usize]) {
    // SAFETY: the set is plain data, filled before the call reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus.iter().filter(|&&c| c < libc::CPU_SETSIZE as usize) {
            libc::CPU_SET(c, &mut set);
        }
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quota_rounds_up_and_the_override_wins() {
        assert_eq!(compute_units(64, Some(1.5), None), 2);
        assert_eq!(compute_units(64, Some(0.2), None), 1);
        assert_eq!(compute_units(4, Some(16.0), None), 4);
        assert_eq!(compute_units(8, None, None), 8);
        assert_eq!(compute_units(8, Some(1.5), Some(3)), 3);
        assert_eq!(compute_units(2, None, Some(0)), 2);
    }

    #[test]
    fn cgroup_limits_parse() {
        assert_eq!(parse_cpu_max("150000 100000\n"), Some(1.5));
        assert_eq!(parse_cpu_max("max 100000\n"), None);
        assert_eq!(parse_cpu_list("0-3,8,10-11\n"), vec![0, 1, 2, 3, 8, 10, 11]);
        assert_eq!(parse_cpu_list("5"), vec![5]);
    }

    #[test]
    fn units_group_by_what_their_cpus_share() {
        // Units 0 and 2 on one key, 1 alone, 3 without one.
        let keys = [Some("a"), Some("b"), Some("a"), None];
        let groups = group_by(&[10, 11, 12, 13], |c| keys[c - 10].map(String::from));
        assert_eq!(groups, vec![vec![0, 2], vec![1], vec![3]]);
    }

    #[test]
    fn this_machine_has_its_allowed_cpus_and_an_l1_per_cpu() {
        let cpus = allowed_cpus();
        assert!(!cpus.is_empty());
        let domains = described_domains(&cpus);
        // Each CPU has an L1 of its own (sysfs describes it on x86 Linux).
        let l1 = domains.iter().find(|(d, _)| *d == AffinityDomain::L1Cache);
        assert_eq!(l1.map(|(_, g)| g.len()), Some(cpus.len()), "{domains:?}");
        assert!(super::domains(&cpus).iter().all(|(_, g)| g.len() > 1));
        // Every domain covers every unit exactly once.
        for (_, groups) in &domains {
            let mut all: Vec<u32> = groups.iter().flatten().copied().collect();
            all.sort();
            assert_eq!(all, (0..cpus.len() as u32).collect::<Vec<_>>());
        }
    }
}
