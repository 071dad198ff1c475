//! The on-disk cache of built programs and kernels, in the directory
//! `FERROCL_CACHE_DIR` names. One test per process: the library reads the
//! environment once.

use ferrocl_tests::*;
use std::path::Path;

fn entries(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for sub in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        for f in std::fs::read_dir(sub.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            out.push(f.path());
        }
    }
    out
}

fn run_once(src: &str) -> Vec<i32> {
    let e = Env::new();
    let (_p, k) = e.kernel(src, "k");
    let out = e.buffer_from(&[0i32; 64]);
    ok(set_mem(k.get(), 0, &out), "arg");
    e.run(&k, &[64], Some(&[16]));
    e.read::<i32>(&out, 0, 64)
}

#[test]
fn programs_and_kernels_are_kept_and_damaged_entries_are_rebuilt() {
    let dir = std::env::temp_dir().join(format!("ferrocl-disk-cache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // Before the first OpenCL call: the library reads it once.
    std::env::set_var("FERROCL_CACHE_DIR", &dir);
    let src =
        "__kernel void k(__global int* o) { o[get_global_id(0)] = (int)get_global_id(0) * 5; }";
    let want: Vec<i32> = (0..64).map(|i| i * 5).collect();
    assert_eq!(run_once(src), want);
    let kept = entries(&dir);
    // The program (the files its build read, then the program) and its
    // kernel specialized for 16 work-items.
    assert_eq!(kept.len(), 3, "{kept:?}");
    // Built again (another context): same entries, same results.
    assert_eq!(run_once(src), want);
    assert_eq!(entries(&dir).len(), 3);
    // Damage every entry: the next build notices and builds afresh.
    for f in &kept {
        let mut data = std::fs::read(f).unwrap();
        let mid = data.len() / 2;
        data[mid] ^= 0xff;
        std::fs::write(f, data).unwrap();
    }
    assert_eq!(run_once(src), want);
    assert_eq!(entries(&dir).len(), 3);
    let _ = std::fs::remove_dir_all(&dir);
}
