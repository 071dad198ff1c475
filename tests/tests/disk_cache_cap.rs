//! The on-disk cache stays under `FERROCL_CACHE_MAX_MB`: programs built past
//! the cap push out the least recently used, and what is evicted is built
//! again. One test per process: the library reads the environment once.

use ferrocl_tests::*;
use std::path::Path;

/// The entries' count and bytes.
fn entries(dir: &Path) -> (usize, u64) {
    let (mut count, mut bytes) = (0, 0);
    for sub in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        for f in std::fs::read_dir(sub.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            count += 1;
            bytes += f.metadata().map(|m| m.len()).unwrap_or(0);
        }
    }
    (count, bytes)
}

#[test]
fn the_cache_keeps_under_its_cap() {
    let dir = std::env::temp_dir().join(format!("ferrocl-cache-cap-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::env::set_var("FERROCL_CACHE_DIR", &dir);
    std::env::set_var("FERROCL_CACHE_MAX_MB", "1");
    let e = Env::new();
    let mut most = 0;
    for i in 0..60 {
        // Distinct programs, each with some code of its own.
        let src = format!(
            "__kernel void k(__global float* o) {{ size_t i = get_global_id(0);
    o[i] = sin((float)i * {i}.5f) + exp(o[i]) * {i}; }}"
        );
        let (_p, k) = e.kernel(&src, "k");
        let out = e.buffer_from(&[0f32; 16]);
        ok(set_mem(k.get(), 0, &out), "arg");
        e.run(&k, &[16], Some(&[16]));
        most = most.max(entries(&dir).1);
    }
    assert!(most <= 1 << 20, "{most} bytes in a cache capped at 1 MiB");
    // Each program left three entries (files read, program, kernel): the
    // first ones made room for the last.
    let (count, bytes) = entries(&dir);
    assert!(count < 3 * 60, "{count} entries: none evicted");
    assert!(bytes > 1 << 19, "{bytes} bytes: more evicted than needed");
    let _ = std::fs::remove_dir_all(&dir);
}
