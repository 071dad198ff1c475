//! Modules from the Khronos LLVM/SPIR-V Translator, the most common SPIR-V
//! producer for OpenCL (Debian's `llvm-spirv-15` after `clang-15`, at -O0
//! and -O2): a kernel whose body the translator exports by the kernel's
//! name, local memory and barriers, math builtins, each against the host.

use ferrocl_tests::*;

const SRC: &str = "
kernel void sum(global const float *a, global const float *b, global float *c) {
    int i = get_global_id(0);
    c[i] = a[i] + b[i];
}
kernel void group_sums(global const int *x, global int *out, local int *tmp) {
    size_t l = get_local_id(0), n = get_local_size(0);
    tmp[l] = x[get_global_id(0)];
    for (size_t s = n / 2; s > 0; s /= 2) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < s)
            tmp[l] += tmp[l + s];
    }
    if (l == 0)
        out[get_group_id(0)] = tmp[0];
}
kernel void waves(global const float *x, global float *y) {
    int i = get_global_id(0);
    y[i] = sin(x[i]) * exp(-x[i] * 0.25f) + sqrt(fabs(x[i]));
}";

const N: usize = 1024;
const LOCAL: usize = 64;

#[test]
fn translated_kernels_compute_what_the_host_does() {
    let env = Env::new();
    let a: Vec<f32> = (0..N).map(|i| i as f32 * 0.37 - 100.0).collect();
    let b: Vec<f32> = (0..N).map(|i| (i % 13) as f32 * 2.5).collect();
    let x: Vec<i32> = (0..N as i32).map(|i| (i * 7919) % 1009 - 500).collect();
    for opt in ["-O0", "-O2"] {
        let il = spirv_from_translator(SRC, opt, &[]);
        let prog = il_program(&env, &il, "").unwrap_or_else(|f| panic!("{opt}: {f}"));
        let kernel = |name| ok(create_kernel(prog.get(), name), name);

        let (ba, bb, bc) = (
            env.buffer_from(&a),
            env.buffer_from(&b),
            env.buffer_from(&vec![0f32; N]),
        );
        env.run_with(&kernel("sum"), &[&ba, &bb, &bc], &[N], None);
        let c: Vec<f32> = env.read(&bc, 0, N);
        for i in 0..N {
            assert_eq!(c[i], a[i] + b[i], "{opt}: sum[{i}]");
        }

        let k = kernel("group_sums");
        let (bx, bo) = (env.buffer_from(&x), env.buffer_from(&vec![0i32; N / LOCAL]));
        ok(set_local(k.get(), 2, 4 * LOCAL), "tmp");
        env.run_with(&k, &[&bx, &bo], &[N], Some(&[LOCAL]));
        let sums: Vec<i32> = env.read(&bo, 0, N / LOCAL);
        for (g, s) in sums.iter().enumerate() {
            assert_eq!(
                *s,
                x[g * LOCAL..][..LOCAL].iter().sum::<i32>(),
                "{opt}: group {g}"
            );
        }

        let (bx, by) = (env.buffer_from(&a), env.buffer_from(&vec![0f32; N]));
        env.run_with(&kernel("waves"), &[&bx, &by], &[N], None);
        let y: Vec<f32> = env.read(&by, 0, N);
        for i in 0..N {
            let v = a[i] as f64;
            let want = v.sin() * (-v * 0.25).exp() + v.abs().sqrt();
            let tol = 1e-5 * (1.0 + want.abs()) + 1e-5 * (-v * 0.25).exp();
            assert!(
                (y[i] as f64 - want).abs() <= tol,
                "{opt}: waves[{i}] = {} against {want}",
                y[i]
            );
        }
    }
}
