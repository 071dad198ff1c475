//! This CPU's instruction-set features under LLVM's names, read with CPUID
//! and XGETBV rather than asked of LLVM: what tells the library without a
//! compiler (which links no LLVM) whether a program binary's machine code
//! runs here (`compiler::Machine::runs_on`). With a compiler the names come
//! from LLVM itself (`codegen::host_cpu`); a test checks the two agree.

use std::arch::x86_64::{__cpuid_count, CpuidResult};

/// The x86-64 micro-architecture levels, each with the features it adds to
/// the one before (LLVM's names): what `clc --target-cpu` compiles for, and
/// how the library without a compiler names this CPU.
pub const LEVELS: &[(&str, &str)] = &[
    ("x86-64", "+cx8,+fxsr,+mmx,+sse,+sse2"),
    (
        "x86-64-v2",
        "+cx16,+sahf,+popcnt,+sse3,+sse4.1,+sse4.2,+ssse3",
    ),
    (
        "x86-64-v3",
        "+avx,+avx2,+bmi,+bmi2,+f16c,+fma,+lzcnt,+movbe,+xsave",
    ),
    (
        "x86-64-v4",
        "+avx512f,+avx512bw,+avx512cd,+avx512dq,+avx512vl",
    ),
];

/// A register of a CPUID leaf.
#[derive(Clone, Copy)]
enum Reg {
    Eax,
    Ebx,
    Ecx,
    Edx,
}

/// The register state the operating system must save for a feature's
/// instructions to be usable (XCR0's bits).
#[derive(Clone, Copy, PartialEq)]
enum State {
    /// No state beyond SSE's.
    None,
    /// The YMM registers (and the CPU's AVX bit itself).
    Avx,
    /// The YMM registers, opmasks and ZMM registers.
    Avx512,
    /// The AMX tile configuration and data.
    Amx,
    /// APX's extended general-purpose registers.
    Apx,
}

/// A feature: its name, and the CPUID bit (leaf, subleaf, register, bit)
/// that says the CPU has it.
struct Feature {
    name: &'static str,
    leaf: u32,
    subleaf: u32,
    reg: Reg,
    bit: u32,
    state: State,
}

const fn f(
    name: &'static str,
    leaf: u32,
    subleaf: u32,
    reg: Reg,
    bit: u32,
    state: State,
) -> Feature {
    Feature {
        name,
        leaf,
        subleaf,
        reg,
        bit,
        state,
    }
}

use Reg::*;
use State::None as Plain;
use State::{Amx, Apx, Avx, Avx512};

const EXT1: u32 = 0x8000_0001;
const EXT8: u32 = 0x8000_0008;

/// Every feature LLVM's host detection reports, by its CPUID bit.
const FEATURES: &[Feature] = &[
    // Leaf 1.
    f("cx8", 1, 0, Edx, 8, Plain),
    f("cmov", 1, 0, Edx, 15, Plain),
    f("mmx", 1, 0, Edx, 23, Plain),
    f("fxsr", 1, 0, Edx, 24, Plain),
    f("sse", 1, 0, Edx, 25, Plain),
    f("sse2", 1, 0, Edx, 26, Plain),
    f("sse3", 1, 0, Ecx, 0, Plain),
    f("pclmul", 1, 0, Ecx, 1, Plain),
    f("ssse3", 1, 0, Ecx, 9, Plain),
    f("fma", 1, 0, Ecx, 12, Avx),
    f("cx16", 1, 0, Ecx, 13, Plain),
    f("sse4.1", 1, 0, Ecx, 19, Plain),
    f("sse4.2", 1, 0, Ecx, 20, Plain),
    // CRC32 is an SSE4.2 instruction.
    f("crc32", 1, 0, Ecx, 20, Plain),
    f("movbe", 1, 0, Ecx, 22, Plain),
    f("popcnt", 1, 0, Ecx, 23, Plain),
    f("aes", 1, 0, Ecx, 25, Plain),
    f("xsave", 1, 0, Ecx, 26, Avx),
    f("avx", 1, 0, Ecx, 28, Avx),
    f("f16c", 1, 0, Ecx, 29, Avx),
    f("rdrnd", 1, 0, Ecx, 30, Plain),
    // Leaf 7, subleaf 0.
    f("fsgsbase", 7, 0, Ebx, 0, Plain),
    f("sgx", 7, 0, Ebx, 2, Plain),
    f("bmi", 7, 0, Ebx, 3, Plain),
    f("avx2", 7, 0, Ebx, 5, Avx),
    f("bmi2", 7, 0, Ebx, 8, Plain),
    f("invpcid", 7, 0, Ebx, 10, Plain),
    f("rtm", 7, 0, Ebx, 11, Plain),
    f("avx512f", 7, 0, Ebx, 16, Avx512),
    f("avx512dq", 7, 0, Ebx, 17, Avx512),
    f("rdseed", 7, 0, Ebx, 18, Plain),
    f("adx", 7, 0, Ebx, 19, Plain),
    f("avx512ifma", 7, 0, Ebx, 21, Avx512),
    f("clflushopt", 7, 0, Ebx, 23, Plain),
    f("clwb", 7, 0, Ebx, 24, Plain),
    f("avx512cd", 7, 0, Ebx, 28, Avx512),
    f("sha", 7, 0, Ebx, 29, Plain),
    f("avx512bw", 7, 0, Ebx, 30, Avx512),
    f("avx512vl", 7, 0, Ebx, 31, Avx512),
    f("avx512vbmi", 7, 0, Ecx, 1, Avx512),
    // OSPKE: protection keys enabled by the system.
    f("pku", 7, 0, Ecx, 4, Plain),
    f("waitpkg", 7, 0, Ecx, 5, Plain),
    f("avx512vbmi2", 7, 0, Ecx, 6, Avx512),
    f("shstk", 7, 0, Ecx, 7, Plain),
    f("gfni", 7, 0, Ecx, 8, Plain),
    f("vaes", 7, 0, Ecx, 9, Avx),
    f("vpclmulqdq", 7, 0, Ecx, 10, Avx),
    f("avx512vnni", 7, 0, Ecx, 11, Avx512),
    f("avx512bitalg", 7, 0, Ecx, 12, Avx512),
    f("avx512vpopcntdq", 7, 0, Ecx, 14, Avx512),
    f("rdpid", 7, 0, Ecx, 22, Plain),
    f("kl", 7, 0, Ecx, 23, Plain),
    f("cldemote", 7, 0, Ecx, 25, Plain),
    f("movdiri", 7, 0, Ecx, 27, Plain),
    f("movdir64b", 7, 0, Ecx, 28, Plain),
    f("enqcmd", 7, 0, Ecx, 29, Plain),
    f("uintr", 7, 0, Edx, 5, Plain),
    f("avx512vp2intersect", 7, 0, Edx, 8, Avx512),
    f("serialize", 7, 0, Edx, 14, Plain),
    f("tsxldtrk", 7, 0, Edx, 16, Plain),
    f("pconfig", 7, 0, Edx, 18, Plain),
    f("amx-bf16", 7, 0, Edx, 22, Amx),
    f("avx512fp16", 7, 0, Edx, 23, Avx512),
    f("amx-tile", 7, 0, Edx, 24, Amx),
    f("amx-int8", 7, 0, Edx, 25, Amx),
    // Leaf 7, subleaf 1.
    f("sha512", 7, 1, Eax, 0, Plain),
    f("sm3", 7, 1, Eax, 1, Plain),
    f("sm4", 7, 1, Eax, 2, Plain),
    f("raoint", 7, 1, Eax, 3, Plain),
    f("avxvnni", 7, 1, Eax, 4, Avx),
    f("avx512bf16", 7, 1, Eax, 5, Avx512),
    f("cmpccxadd", 7, 1, Eax, 7, Plain),
    f("amx-fp16", 7, 1, Eax, 21, Amx),
    f("hreset", 7, 1, Eax, 22, Plain),
    f("avxifma", 7, 1, Eax, 23, Avx),
    f("movrs", 7, 1, Eax, 31, Plain),
    f("avxvnniint8", 7, 1, Edx, 4, Avx),
    f("avxneconvert", 7, 1, Edx, 5, Avx),
    f("amx-complex", 7, 1, Edx, 8, Amx),
    f("avxvnniint16", 7, 1, Edx, 10, Avx),
    f("prefetchi", 7, 1, Edx, 14, Plain),
    f("usermsr", 7, 1, Edx, 15, Plain),
    // APX: one CPUID bit, eight of LLVM's features.
    f("egpr", 7, 1, Edx, 21, Apx),
    f("push2pop2", 7, 1, Edx, 21, Apx),
    f("ppx", 7, 1, Edx, 21, Apx),
    f("ndd", 7, 1, Edx, 21, Apx),
    f("ccmp", 7, 1, Edx, 21, Apx),
    f("nf", 7, 1, Edx, 21, Apx),
    f("cf", 7, 1, Edx, 21, Apx),
    f("zu", 7, 1, Edx, 21, Apx),
    // Leaf 0xd, subleaf 1: the XSAVE variants (LLVM asks for YMM state too).
    f("xsaveopt", 0xd, 1, Eax, 0, Avx),
    f("xsavec", 0xd, 1, Eax, 1, Avx),
    f("xsaves", 0xd, 1, Eax, 3, Avx),
    // Leaf 0x14: processor trace.
    f("ptwrite", 0x14, 0, Ebx, 4, Plain),
    // Leaf 0x19: key locker.
    f("widekl", 0x19, 0, Ebx, 2, Plain),
    // Leaf 0x1e, subleaf 1: more AMX.
    f("amx-fp8", 0x1e, 1, Eax, 4, Amx),
    f("amx-tf32", 0x1e, 1, Eax, 6, Amx),
    f("amx-avx512", 0x1e, 1, Eax, 7, Amx),
    f("amx-movrs", 0x1e, 1, Eax, 8, Amx),
    // The extended leaves.
    f("sahf", EXT1, 0, Ecx, 0, Plain),
    f("lzcnt", EXT1, 0, Ecx, 5, Plain),
    f("sse4a", EXT1, 0, Ecx, 6, Plain),
    f("prfchw", EXT1, 0, Ecx, 8, Plain),
    f("xop", EXT1, 0, Ecx, 11, Avx),
    f("lwp", EXT1, 0, Ecx, 15, Plain),
    f("fma4", EXT1, 0, Ecx, 16, Avx),
    f("tbm", EXT1, 0, Ecx, 21, Plain),
    f("mwaitx", EXT1, 0, Ecx, 29, Plain),
    f("64bit", EXT1, 0, Edx, 29, Plain),
    f("clzero", EXT8, 0, Ebx, 0, Plain),
    f("rdpru", EXT8, 0, Ebx, 4, Plain),
    f("wbnoinvd", EXT8, 0, Ebx, 9, Plain),
];

/// AVX10's features: the CPUID bit (leaf 7, subleaf 1, EDX bit 19), then
/// the version leaf 0x24 gives.
const AVX10: &[(&str, u32)] = &[("avx10.1", 1), ("avx10.2", 2)];

/// What CPUID says, read once.
struct Cpuid {
    max_leaf: u32,
    max_extended: u32,
    /// Leaf 7's highest subleaf.
    max_leaf7: u32,
    /// Leaf 0x1e's highest subleaf.
    max_leaf1e: u32,
    xcr0: u64,
}

impl Cpuid {
    fn read() -> Cpuid {
        // Leaves 0 and 0x80000000 give the highest leaves; no higher ones
        // are read.
        let max_leaf = __cpuid_count(0, 0).eax;
        let max_extended = __cpuid_count(0x8000_0000, 0).eax;
        let mut c = Cpuid {
            max_leaf,
            max_extended,
            max_leaf7: 0,
            max_leaf1e: 0,
            xcr0: 0,
        };
        c.max_leaf7 = c.leaf(7, 0).map_or(0, |r| r.eax);
        c.max_leaf1e = c.leaf(0x1e, 0).map_or(0, |r| r.eax);
        // OSXSAVE: the system enabled XGETBV, which says what state it saves.
        if c.leaf(1, 0).is_some_and(|r| r.ecx & (1 << 27) != 0) {
            // SAFETY: OSXSAVE is set, so XGETBV of XCR0 is allowed.
            c.xcr0 = unsafe { xcr0() };
        }
        c
    }

    /// Leaf `leaf`, subleaf `subleaf`, if the CPU has it.
    fn leaf(&self, leaf: u32, subleaf: u32) -> Option<CpuidResult> {
        let present = if leaf >= 0x8000_0000 {
            leaf <= self.max_extended
        } else {
            leaf <= self.max_leaf
                && match leaf {
                    7 => subleaf <= self.max_leaf7,
                    0x1e => subleaf <= self.max_leaf1e,
                    _ => true,
                }
        };
        present.then(|| __cpuid_count(leaf, subleaf))
    }

    fn bit(&self, leaf: u32, subleaf: u32, reg: Reg, bit: u32) -> bool {
        self.leaf(leaf, subleaf).is_some_and(|r| {
            let v = match reg {
                Eax => r.eax,
                Ebx => r.ebx,
                Ecx => r.ecx,
                Edx => r.edx,
            };
            v & (1 << bit) != 0
        })
    }

    /// Whether the system saves `state` across context switches.
    fn saves(&self, state: State) -> bool {
        let all = |bits: u64| self.xcr0 & bits == bits;
        // SSE and YMM state, and CPUID's AVX bit.
        let avx = all(0b110) && self.bit(1, 0, Ecx, 28);
        match state {
            State::None => true,
            Avx => avx,
            // Opmask, upper ZMM halves, upper 16 ZMM registers.
            Avx512 => avx && all(0b1110_0000),
            // XTILECFG and XTILEDATA.
            Amx => all((1 << 17) | (1 << 18)),
            Apx => all(1 << 19),
        }
    }
}

#[target_feature(enable = "xsave")]
unsafe fn xcr0() -> u64 {
    std::arch::x86_64::_xgetbv(0)
}

/// Every feature LLVM's host detection names, `+name` where this CPU (and
/// its system) has it and `-name` where not, comma-separated as LLVM's
/// feature strings are.
pub fn features() -> String {
    let c = Cpuid::read();
    let avx10 = c.bit(7, 1, Edx, 19);
    let avx10_version = c.leaf(0x24, 0).map_or(0, |r| r.ebx & 0xff);
    FEATURES
        .iter()
        .map(|f| {
            (
                f.name,
                c.bit(f.leaf, f.subleaf, f.reg, f.bit) && c.saves(f.state),
            )
        })
        .chain(
            AVX10.iter().map(|&(name, version)| {
                (name, avx10 && avx10_version >= version && c.saves(Avx512))
            }),
        )
        .map(|(name, has)| format!("{}{name}", if has { '+' } else { '-' }))
        .collect::<Vec<_>>()
        .join(",")
}

/// The highest x86-64 level whose every feature `features` has.
pub fn level(features: &str) -> &'static str {
    let have: std::collections::HashSet<&str> = features.split(',').collect();
    let mut name = LEVELS[0].0;
    for (level, adds) in LEVELS {
        if !adds.split(',').all(|f| have.contains(f)) {
            break;
        }
        name = level;
    }
    name
}

/// This CPU as the library without a compiler names it: its x86-64 level,
/// and its features.
pub fn host() -> (String, String) {
    let features = features();
    (level(&features).to_string(), features)
}

/// The CPU code is generated for and binaries' machine code must run on:
/// as LLVM names it where there is a compiler (it tunes for the name), as
/// [`host`] does where there is none.
pub fn host_cpu() -> (String, String) {
    #[cfg(feature = "compiler")]
    return crate::codegen::host_cpu();
    #[cfg(not(feature = "compiler"))]
    return host();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_features_are_the_ones_the_standard_library_detects() {
        let features = features();
        let has = |name: &str| features.split(',').any(|f| f == format!("+{name}"));
        assert!(has("64bit") && has("sse2") && has("cx8"), "{features}");
        let known = [
            ("avx", std::arch::is_x86_feature_detected!("avx")),
            ("avx2", std::arch::is_x86_feature_detected!("avx2")),
            ("fma", std::arch::is_x86_feature_detected!("fma")),
            ("f16c", std::arch::is_x86_feature_detected!("f16c")),
            ("avx512f", std::arch::is_x86_feature_detected!("avx512f")),
            ("avx512bw", std::arch::is_x86_feature_detected!("avx512bw")),
            ("sse4.2", std::arch::is_x86_feature_detected!("sse4.2")),
            ("popcnt", std::arch::is_x86_feature_detected!("popcnt")),
            ("bmi", std::arch::is_x86_feature_detected!("bmi1")),
            ("lzcnt", std::arch::is_x86_feature_detected!("lzcnt")),
        ];
        for (name, detected) in known {
            assert_eq!(has(name), detected, "{name} in {features}");
        }
    }

    #[test]
    fn a_cpu_is_named_by_the_highest_level_it_reaches() {
        let all = |n: usize| {
            LEVELS[..n]
                .iter()
                .map(|l| l.1)
                .collect::<Vec<_>>()
                .join(",")
        };
        assert_eq!(level(&all(1)), "x86-64");
        assert_eq!(level(&all(3)), "x86-64-v3");
        assert_eq!(level(&all(4)), "x86-64-v4");
        // v4's features without v3's are v2.
        assert_eq!(level(&format!("{},{}", all(2), LEVELS[3].1)), "x86-64-v2");
        assert_eq!(level(""), "x86-64");
    }

    /// With a compiler, LLVM names the host's features: the two lists must
    /// name the same features, and this CPU must have the same ones.
    #[cfg(feature = "compiler")]
    #[test]
    fn the_features_are_the_ones_llvm_detects() {
        let ours = features();
        let (_, llvm) = crate::codegen::host_cpu();
        let split = |s: &str| -> std::collections::BTreeMap<String, bool> {
            s.split(',')
                .filter(|f| !f.is_empty())
                .map(|f| (f[1..].to_string(), f.starts_with('+')))
                .collect()
        };
        let (ours, llvm) = (split(&ours), split(&llvm));
        for (name, has) in &llvm {
            assert_eq!(ours.get(name), Some(has), "LLVM's {name}");
        }
        for name in ours.keys() {
            assert!(llvm.contains_key(name), "{name}, which LLVM does not name");
        }
    }
}
