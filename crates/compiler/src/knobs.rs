//! Every `FERROCL_*` environment variable the library reads, read here and
//! nowhere else. Those that change the code a kernel compiles to
//! ([`vectorize`], [`loop_barriers`]) are read into the host target's
//! pipeline options, which add them to the kernel's on-disk cache key, so
//! that an entry made with one setting is never loaded under another.

use std::ffi::OsString;
use std::path::PathBuf;

fn var(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

fn is_off(name: &str) -> bool {
    var(name).is_some_and(|v| v == "0" || v.eq_ignore_ascii_case("off"))
}

/// `FERROCL_CACHE=0` (or `off`): no on-disk cache.
pub fn cache_off() -> bool {
    is_off("FERROCL_CACHE")
}

/// `FERROCL_CACHE_DIR`: where the on-disk cache lives.
pub fn cache_dir() -> Option<PathBuf> {
    var("FERROCL_CACHE_DIR").map(PathBuf::from)
}

/// `FERROCL_CACHE_MAX_MB=N`: the on-disk cache's cap, in MiB.
pub fn cache_max_mb() -> Option<u64> {
    var("FERROCL_CACHE_MAX_MB")?.to_str()?.trim().parse().ok()
}

/// `FERROCL_VECTORIZE=0`: no whole-kernel vectorization (to compare).
pub fn vectorize() -> bool {
    !is_off("FERROCL_VECTORIZE")
}

/// `FERROCL_VECTORIZE=all`: every vector form the vectorizer can make,
/// also those it expects to run slower than the scalar form (work-items
/// branching apart inside loops), to test and compare them.
pub fn vectorize_all() -> bool {
    var("FERROCL_VECTORIZE").is_some_and(|v| v == "all")
}

/// `FERROCL_VECTORIZE_EXPLAIN=1`: say what became of each kernel.
pub fn vectorize_explain() -> bool {
    var("FERROCL_VECTORIZE_EXPLAIN").is_some()
}

/// `FERROCL_LOOP_BARRIERS=0`: no implicit barriers in uniform inner loops.
pub fn loop_barriers() -> bool {
    !is_off("FERROCL_LOOP_BARRIERS")
}

/// `FERROCL_DUMP_DIR`: write each kernel's IR there as it is compiled.
pub fn dump_dir() -> Option<PathBuf> {
    var("FERROCL_DUMP_DIR").map(PathBuf::from)
}

/// `FERROCL_FORBID_COMPILER=1`: any run of Clang, the SPIR-V translator
/// or LLVM's optimizer and code generator fails, so a test can prove that
/// loading a program binary runs none.
pub fn forbid_compiler() -> bool {
    var("FERROCL_FORBID_COMPILER").is_some_and(|v| v != "0")
}

/// `FERROCL_THREADS=N`: run work-groups on N threads (the device's compute
/// units), whatever the affinity mask and the cgroup's quota allow; at most
/// [`MAX_THREADS`], as many CPUs as Linux's affinity masks name.
pub fn threads() -> Option<usize> {
    threads_from(&var("FERROCL_THREADS")?)
}

fn threads_from(value: &std::ffi::OsStr) -> Option<usize> {
    value
        .to_str()?
        .trim()
        .parse::<usize>()
        .ok()
        .filter(|&n| n > 0)
        .map(|n| n.min(MAX_THREADS))
}

/// The most threads `FERROCL_THREADS` gives: more could not be started.
pub const MAX_THREADS: usize = 1024;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_are_a_positive_count_no_larger_than_the_cpu_masks() {
        for (value, want) in [
            ("3", Some(3)),
            (" 8 ", Some(8)),
            ("0", None),
            ("-2", None),
            ("many", None),
            ("99999999", Some(MAX_THREADS)),
        ] {
            assert_eq!(
                threads_from(value.as_ref()),
                want,
                "FERROCL_THREADS={value:?}"
            );
        }
    }
}
