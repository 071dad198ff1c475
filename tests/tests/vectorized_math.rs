//! A loop over work-items calling math functions is vectorized: the
//! optimized kernel (written to FERROCL_DUMP_DIR) calls the vector variant
//! of sin and computes exp and log in vector registers, with no scalar call
//! per lane. Alone in its file: the dump directory is set for this process.

use ferrocl_tests::*;

const SRC: &str = "__kernel void k(__global const float* a, __global float* s,\n\
                   __global float* e, __global float* l) {\n\
                   size_t i = get_global_id(0);\n\
                   s[i] = sin(a[i]); e[i] = exp(a[i]); l[i] = log(a[i]);\n}\n";

#[test]
fn a_loop_calling_sin_exp_and_log_is_vectorized() {
    let dir = std::env::temp_dir().join(format!("ferrocl-vectorized-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Set before the library compiles anything; no other test runs here.
    std::env::set_var("FERROCL_DUMP_DIR", &dir);
    std::env::set_var("FERROCL_CACHE", "0");
    let e = Env::new();
    let (_p, k) = e.kernel(SRC, "k");
    const N: usize = 4096;
    let a: Vec<f32> = (0..N).map(|i| i as f32 * 0.01 + 0.5).collect();
    let bufs = [
        e.buffer_from(&a),
        e.buffer(N * 4),
        e.buffer(N * 4),
        e.buffer(N * 4),
    ];
    for (i, m) in bufs.iter().enumerate() {
        ok(set_mem(k.get(), i as cl_uint, m), "set arg");
    }
    e.run(&k, &[N], None);
    let s = e.read::<f32>(&bufs[1], 0, N);
    assert!((s[100] - a[100].sin()).abs() < 1e-6);
    let ir: String = std::fs::read_dir(&dir)
        .unwrap()
        .map(|f| f.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("__ferrocl_wg.k."))
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!ir.is_empty(), "no IR dumped");
    // The loop calls sin's vector variant (<4 x float> at least) ...
    let vector_sin = ir.lines().any(|l| {
        l.contains("call <") && l.contains(" x float> @_ZGV_LLVM_N") && l.contains("v__Z3sinf(")
    });
    assert!(vector_sin, "no vector call of sin:\n{ir}");
    // ... exp and log became vector code: fused multiply-adds on vectors ...
    assert!(ir.contains("@llvm.fma.v"), "no vector arithmetic:\n{ir}");
    // ... and nothing is called one lane at a time.
    for scalar in [
        "@_Z3sinf(",
        "@_Z3expf(",
        "@_Z3logf(",
        "@sinf(",
        "@expf(",
        "@logf(",
    ] {
        let called = ir.lines().any(|l| l.contains("call") && l.contains(scalar));
        assert!(!called, "a scalar call of {scalar}:\n{ir}");
    }
}
