//! cl_khr_expect_assume: __builtin_expect and __builtin_assume in kernels
//! (Clang's own), the extension reported and its macro defined.

use ferrocl_tests::*;

#[test]
fn expect_and_assume_compile_and_keep_the_kernel_right() {
    let ext = device_info(device(), CL_DEVICE_EXTENSIONS_WITH_VERSION)
        .unwrap()
        .name_versions();
    let v = ext
        .iter()
        .find(|(n, _)| n == "cl_khr_expect_assume")
        .map(|(_, v)| version_parts(*v));
    assert_eq!(v, Some((1, 0, 0)));
    let e = Env::new();
    let src = r#"
    #ifndef cl_khr_expect_assume
    #error cl_khr_expect_assume is not defined
    #endif
    __kernel void k(__global const int* x, __global int* out, int n) {
        size_t i = get_global_id(0);
        __builtin_assume(n > 0);
        int v = x[i];
        int r;
        if (__builtin_expect(v > 100, 0))
            r = v - 100;
        else
            r = v * 2;
        // assume holds for every value here (0 <= i < n); the loop needs it.
        __builtin_assume(i < (size_t)n);
        for (int j = 0; j < n; j++)
            r += (int)__builtin_expect((long)(j & 1), 1L);
        out[i] = r;
    }"#;
    let (_p, k) = e.kernel(src, "k");
    let n = 256usize;
    let x: Vec<i32> = (0..n as i32).map(|i| i * 3 - 50).collect();
    let mx = e.buffer_from(&x);
    let out = e.buffer(n * 4);
    ok(set_mem(k.get(), 0, &mx), "arg 0");
    ok(set_mem(k.get(), 1, &out), "arg 1");
    ok(set_arg(k.get(), 2, &(n as i32)), "arg 2");
    e.run(&k, &[n], None);
    let got = e.read::<i32>(&out, 0, n);
    let want: Vec<i32> = x
        .iter()
        .map(|&v| (if v > 100 { v - 100 } else { v * 2 }) + n as i32 / 2)
        .collect();
    assert_eq!(got, want);
}
