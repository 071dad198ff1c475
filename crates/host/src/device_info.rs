//! Reads the device's properties off this machine: cores the process may
//! use, memory, caches, clock and vector units.

use mux::{fp, make_version, Cache, DeviceInfo, NameVersion, VectorWidths};
use std::fs;

fn read_trimmed(path: &str) -> Option<String> {
    fs::read_to_string(path).ok().map(|s| s.trim().to_string())
}

/// `"32K"`, `"1024K"`, `"32M"` as in sysfs cache descriptions.
fn parse_size(s: &str) -> Option<u64> {
    let (num, mul) = match s.chars().last()? {
        'K' => (&s[..s.len() - 1], 1024),
        'M' => (&s[..s.len() - 1], 1024 * 1024),
        'G' => (&s[..s.len() - 1], 1024 * 1024 * 1024),
        _ => (s, 1),
    };
    num.parse::<u64>().ok().map(|n| n * mul)
}

/// The data or unified caches of CPU 0, as (level, size, line size).
fn caches() -> Vec<(u32, u64, u32)> {
    let mut out = Vec::new();
    for i in 0..8 {
        let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
        let Some(kind) = read_trimmed(&format!("{dir}/type")) else {
            break;
        };
        if kind == "Instruction" {
            continue;
        }
        let level = read_trimmed(&format!("{dir}/level")).and_then(|s| s.parse().ok());
        let size = read_trimmed(&format!("{dir}/size")).and_then(|s| parse_size(&s));
        let line = read_trimmed(&format!("{dir}/coherency_line_size")).and_then(|s| s.parse().ok());
        if let (Some(level), Some(size)) = (level, size) {
            out.push((level, size, line.unwrap_or(64)));
        }
    }
    out
}

fn cpuinfo_field(name: &str) -> Option<String> {
    let text = fs::read_to_string("/proc/cpuinfo").ok()?;
    text.lines()
        .find(|l| l.starts_with(name))
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
}

fn clock_mhz() -> u32 {
    read_trimmed("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
        .and_then(|s| s.parse::<u64>().ok())
        .map(|khz| (khz / 1000) as u32)
        .or_else(|| {
            cpuinfo_field("cpu MHz")
                .and_then(|s| s.parse::<f64>().ok())
                .map(|m| m as u32)
        })
        .unwrap_or(0)
}

fn physical_memory() -> u64 {
    // SAFETY: sysinfo fills the struct it is given.
    unsafe {
        let mut info: libc::sysinfo = std::mem::zeroed();
        if libc::sysinfo(&mut info) == 0 {
            info.totalram as u64 * info.mem_unit as u64
        } else {
            1 << 30
        }
    }
}

/// Widest vector register, in bytes, that this CPU has.
pub(crate) fn vector_bytes() -> u32 {
    if std::arch::is_x86_feature_detected!("avx512f") {
        64
    } else if std::arch::is_x86_feature_detected!("avx") {
        32
    } else {
        16
    }
}

fn widths(bytes: u32) -> VectorWidths {
    VectorWidths {
        char: bytes,
        short: bytes / 2,
        int: bytes / 4,
        long: bytes / 8,
        float: bytes / 4,
        double: bytes / 8,
        // half is computed in float lanes (F16C converts).
        half: bytes / 4,
    }
}

/// Everything the device reports, read off this machine, for a device with
/// a compute unit on each of `cpus`.
pub fn probe(target_cpu: String, cpus: &[usize]) -> DeviceInfo {
    let units = cpus.len() as u32;
    let memory = physical_memory();
    let caches = caches();
    let last_level = caches
        .iter()
        .max_by_key(|c| c.0)
        .copied()
        .unwrap_or((2, 1 << 20, 64));
    let l2 = caches
        .iter()
        .find(|c| c.0 == 2)
        .map(|c| c.1)
        .unwrap_or(256 << 10);
    let mut single =
        fp::DENORM | fp::INF_NAN | fp::ROUND_TO_NEAREST | fp::CORRECTLY_ROUNDED_DIVIDE_SQRT;
    if std::arch::is_x86_feature_detected!("fma") {
        single |= fp::FMA;
    }
    let v = vector_bytes();
    let vendor = cpuinfo_field("vendor_id").unwrap_or_else(|| "unknown".into());
    // PCI vendor ids, as CL_DEVICE_VENDOR_ID reports them.
    let vendor_id = match vendor.as_str() {
        "AuthenticAMD" => 0x1022,
        "GenuineIntel" => 0x8086,
        _ => 0,
    };
    DeviceInfo {
        kind: mux::DeviceKind::Cpu,
        name: cpuinfo_field("model name").unwrap_or_else(|| "CPU".into()),
        vendor,
        vendor_id,
        compute_units: units,
        max_clock_frequency_mhz: clock_mhz(),
        max_work_group_size: 4096,
        max_work_item_sizes: [4096, 4096, 4096],
        preferred_vector_width: widths(v),
        native_vector_width: widths(v),
        #[cfg(feature = "compiler")]
        local_rows: crate::pipeline::ROWS,
        // Without a compiler, kernels run as their binaries were compiled.
        #[cfg(not(feature = "compiler"))]
        local_rows: 1,
        global_mem_size: memory,
        // The spec's floor is max(1/4 of global memory, 128 MiB).
        max_mem_alloc_size: (memory / 2).max(128 << 20),
        global_mem_cache: Cache {
            size: last_level.1,
            line_size: last_level.2,
        },
        // __local memory is ordinary memory kept hot in the core's L2.
        local_mem_size: l2.max(64 << 10),
        max_constant_buffer_size: 1 << 20,
        max_parameter_size: 4096,
        mem_base_addr_align_bits: 1024,
        single_fp_config: single,
        // What cl_khr_fp64 requires, all of which the host's doubles do.
        double_fp_config: fp::FMA
            | fp::ROUND_TO_NEAREST
            | fp::ROUND_TO_ZERO
            | fp::ROUND_TO_INF
            | fp::INF_NAN
            | fp::DENORM,
        // Through float, rounded once: denormals and infinities kept, and
        // fma correct (in double).
        half_fp_config: fp::DENORM | fp::INF_NAN | fp::ROUND_TO_NEAREST | fp::FMA,
        profiling_timer_resolution_ns: 1,
        extensions: name_versions(compiler::OPENCL_C_EXTENSIONS),
        opencl_c_features: name_versions(compiler::OPENCL_C_FEATURES),
        printf_buffer_size: 1 << 20,
        target_cpu,
        affinity_domains: crate::topology::domains(cpus),
        uuid: name_uuid(&[
            b"ferrocl host device",
            read_trimmed("/etc/machine-id")
                .unwrap_or_default()
                .as_bytes(),
            cpuinfo_field("model name").unwrap_or_default().as_bytes(),
        ]),
        driver_uuid: name_uuid(&[
            b"ferrocl driver",
            env!("CARGO_PKG_VERSION").as_bytes(),
            compiler::build_id().unwrap_or("").as_bytes(),
        ]),
        model_id: std::arch::x86_64::__cpuid(1).eax,
        // Kernels run on this CPU in this process: every address is the
        // host's, and caches are coherent. A kernel's atomics on global
        // memory are the CPU's locked instructions at system scope (the
        // builtins' atomics_c11.cl), atomic towards the host's own.
        shared_memory: mux::SharedMemory {
            buffers: true,
            fine_grain: true,
            system: true,
            host_atomics: true,
        },
        images: Some(image_limits((memory / 2).max(128 << 20))),
    }
}

/// Images are software on this target (the builtins' `image_*.cl`): their
/// only bounds are memory and the descriptor's 32-bit sizes. The 2D and 3D
/// extents are the spec's floor, as PoCL's and Intel's CPU runtimes report:
/// the Khronos CTS draws its image sizes up to a 32nd of them, so larger
/// extents make its image suites several times longer and test nothing
/// more. Texels need no alignment, as kernels read them with unaligned
/// loads.
fn image_limits(max_mem_alloc: u64) -> mux::ImageLimits {
    mux::ImageLimits {
        max_2d: [16384, 16384],
        max_3d: [2048, 2048, 2048],
        // A float4 texel a 16th of the largest allocation, at most the
        // descriptor's int width.
        max_buffer_texels: (max_mem_alloc / 16).min(i32::MAX as u64) as usize,
        max_array_size: 2048,
        max_samplers: 16,
        max_read_args: 128,
        max_write_args: 64,
        max_read_write_args: 64,
        pitch_alignment: 1,
        base_address_alignment: 1,
    }
}

/// `names` hashed into an RFC 4122 name-based UUID: the device's from the
/// machine (`/etc/machine-id`) and its CPU model, the same on every run;
/// the driver's from the library's build.
fn name_uuid(names: &[&[u8]]) -> [u8; 16] {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for n in names {
        h.update((n.len() as u64).to_le_bytes());
        h.update(n);
    }
    let digest = h.finalize();
    let mut uuid = [0u8; 16];
    uuid.copy_from_slice(&digest[..16]);
    // Version 5-style name-based, RFC 4122 variant.
    uuid[6] = (uuid[6] & 0x0f) | 0x50;
    uuid[8] = (uuid[8] & 0x3f) | 0x80;
    uuid
}

fn name_versions(list: &[(&str, (u32, u32, u32))]) -> Vec<NameVersion> {
    list.iter()
        .map(|&(name, (major, minor, patch))| NameVersion {
            name: name.into(),
            version: make_version(major, minor, patch),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_as_sysfs_writes_them() {
        assert_eq!(parse_size("32K"), Some(32 * 1024));
        assert_eq!(parse_size("1M"), Some(1 << 20));
        assert_eq!(parse_size("64"), Some(64));
        assert_eq!(parse_size("x"), None);
    }

    #[test]
    fn the_probe_reports_this_machine() {
        let cpus = crate::topology::allowed_cpus();
        let info = probe("x86-64".into(), &cpus);
        assert_eq!(info.compute_units as usize, cpus.len());
        assert!(info.global_mem_size > 0 && info.max_mem_alloc_size <= info.global_mem_size);
        assert!(info.global_mem_cache.size > 0);
        assert!(info.native_vector_width.float >= 4);
    }
}
