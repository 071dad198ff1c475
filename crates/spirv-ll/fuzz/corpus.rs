//! The fuzz corpus: the OpenCL C in `fuzz/corpus` compiled by Clang's
//! SPIR-V back end (at -O0 and -O2) and the assembly there assembled by
//! `spirv-as`, each a module the translator takes.

use std::path::Path;
use std::process::Command;

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn load() -> Vec<(String, Vec<u32>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let out = std::env::temp_dir().join(format!("spirv-ll-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&out).expect("a temporary directory");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("fuzz/corpus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    names.sort();
    let mut modules = Vec::new();
    for path in names {
        let stem = path
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let ext = path
            .extension()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let runs: Vec<(String, Command)> = match ext.as_str() {
            "cl" => ["-O0", "-O2"]
                .iter()
                .map(|o| {
                    let spv = out.join(format!("{stem}{o}.spv"));
                    let mut c = Command::new("clang-22");
                    c.args(["--target=spirv64", "-cl-std=CL3.0", o, "-c", "-o"])
                        .arg(&spv)
                        .arg(&path);
                    (spv.to_string_lossy().into_owned(), c)
                })
                .collect(),
            "spvasm" => {
                let spv = out.join(format!("{stem}.spv"));
                let mut c = Command::new("spirv-as");
                c.args(["--target-env", "spv1.0", "-o"])
                    .arg(&spv)
                    .arg(&path);
                vec![(spv.to_string_lossy().into_owned(), c)]
            }
            _ => continue,
        };
        for (spv, mut cmd) in runs {
            let ok = cmd.output().map(|o| o.status.success()).unwrap_or(false);
            assert!(
                ok,
                "could not make {spv} (clang-22 and spirv-as are needed)"
            );
            let bytes = std::fs::read(&spv).expect("the module");
            modules.push((spv, words(&bytes)));
        }
    }
    let _ = std::fs::remove_dir_all(&out);
    modules
}
