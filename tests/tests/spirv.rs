//! SPIR-V programs (`clCreateProgramWithIL`): modules made by Clang's SPIR-V
//! back end (`clang-22 --target=spirv64`) and by `spirv-as`, built and run
//! as applications do, against the same kernels from OpenCL C; the device's
//! IL queries; and every class of malformed module, refused with the
//! spec's code and a build log naming the instruction.

use ferrocl_tests::*;
use std::ptr::{null, null_mut};

const VECADD: &str = "
__kernel void vecadd(__global const float* a, __global const float* b, __global float* c, int n) {
    size_t i = get_global_id(0);
    if (i < n) c[i] = a[i] + sqrt(b[i]);
}";

#[test]
fn a_clang_module_runs_as_its_source_does() {
    let env = Env::new();
    let n = 1000;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| (i * 3) as f32).collect();
    let mut results = Vec::new();
    let il = spirv_from_cl(VECADD);
    let from_il = il_kernel(&env, &il, "vecadd");
    let from_source = env.kernel(VECADD, "vecadd");
    for (_, k) in [&from_il, &from_source] {
        let (ba, bb, bc) = (env.buffer_from(&a), env.buffer_from(&b), env.buffer(n * 4));
        ok(set_mem(k.get(), 0, &ba), "arg 0");
        ok(set_mem(k.get(), 1, &bb), "arg 1");
        ok(set_mem(k.get(), 2, &bc), "arg 2");
        ok(set_arg(k.get(), 3, &(n as i32 - 1)), "arg 3");
        env.run(k, &[1024], None);
        results.push(env.read::<f32>(&bc, 0, n));
    }
    assert_eq!(results[0][..n - 1], results[1][..n - 1]);
    assert_eq!(results[0][10], 10.0 + 30f32.sqrt());
}

/// Kernels of every family, each `k(x, y, f, i)` over 256 work-items in
/// groups of 64: float inputs `x`, integer inputs `y`, float and integer
/// outputs `f` and `i`.
const HARNESS: &[(&str, &str)] = &[
    ("math", "
__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    float v = x[g];
    float ip;
    float s, c;
    s = sincos(v, &c);
    f[g] = sin(v) + pow(fabs(v), 2.5f) + fma(v, v, 1.0f) + exp(v * 0.1f) + fract(v, &ip) + ip + s * c
         + atan2(v, 2.0f) + log1p(fabs(v)) + rootn(fabs(v) + 1.0f, 3) + ldexp(v, y[g] & 7) + hypot(v, 3.0f);
    int e;
    float m = frexp(v, &e);
    i[g] = e + ilogb(v + 1000.0f) + (int)(m * 100.0f) + isnan(v) + signbit(v);
}"),
    ("vector_math", "
__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    float4 v = vload4(g / 4, x);
    float4 ip;
    float4 r = fract(v, &ip) + cos(v) + rsqrt(fabs(v) + 1.0f) + mix(v, ip, 0.25f) + clamp(v, -1.0f, 1.0f)
             + smoothstep(0.0f, 1.0f, v) + step(0.5f, v) + sign(v) + degrees(v) + fmax(v, 0.5f);
    float8 w = (float8)(v, r);
    float8 w2 = sqrt(fabs(w)) + exp2(w * 0.01f);
    f[g] = r.x + r.y * 2.0f + r.z * 3.0f + r.w * 4.0f + dot(v, r) + length(v) + distance(v, r)
         + normalize(v).y + cross(v, r).z + w2.s7 + w2.s3;
    i[g] = any(v > 0.5f) + all(v < 2.0f) * 2 + isless(v.x, v.y) * 4;
}"),
    ("integer", "
__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    int a = y[g], b = y[255 - g];
    uint u = (uint)a;
    i[g] = mul_hi(a, b) + rotate(a, b) + clz(a) + popcount(a) + add_sat(a, b) + (int)abs_diff(a, b)
         + mad24(a & 0xfff, b & 0xfff, 3) + (int)upsample((short)a, (ushort)b) + (int)(u >> (b & 31))
         + (a >> (b & 31)) + (a % (b | 1)) + (a / (b | 1)) + hadd(a, b) + rhadd(u, (uint)b) + sub_sat(a, b)
         + (int)abs(a) + min(a, b) * 3 + max(u, (uint)b) + ctz(a) + mad_sat(a, b, a) + (int)mul_hi(u, (uint)b);
    long l = (long)a * b;
    f[g] = (float)(l >> 7) + (float)(ulong)l;
}"),
    ("conversions", "
__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    float v = x[g] * 1000.0f;
    i[g] = convert_int_sat_rte(v) + convert_int_rtn(v) * 3 + convert_uchar_sat(y[g]) + convert_short_sat(v * 100.0f)
         + as_int(v) + (int)convert_uint_sat(v) + convert_char_sat_rtp(v);
    f[g] = convert_float_rtz(y[g]) + convert_float_rtp((long)y[g] * 1000003L) + (float)(double)v + as_float(y[g] & 0x3fffffff);
}"),
    ("vector_data", "
__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    if (g < 64) {
        float3 v = vload3(g, x);
        vstore3(v * 2.0f, g, f);
        int4 m = vload4(g, y);
        int4 s = shuffle(m, (uint4)(3, 2, 1, 0));
        int8 s2 = shuffle2(m, s, (uint8)(0, 4, 1, 5, 2, 6, 7, 3));
        int4 sel = select(m, s, m > s);
        vstore4(sel + s2.lo + s2.hi, g, i);
    }
}"),
    ("half_data", "
__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    __global half* h = (__global half*)i;
    vstore_half_rtz(x[g] * 3.0f, g, h);
    vstore_half(x[g], g + 256, h);
    f[g] = vload_half(g, (__global const half*)x) + vload_half(g + 256, h);
}"),
    ("atomics", "
__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    atomic_inc(&i[0]);
    atomic_add(&i[1], y[g]);
    atomic_min(&i[2], y[g]);
    atomic_max(&i[3], y[g]);
    atomic_xor(&i[4], y[g]);
    atomic_cmpxchg(&i[5], 0, 7);
    atomic_fetch_add_explicit((volatile __global atomic_int*)&i[6], 2, memory_order_relaxed, memory_scope_device);
    i[8 + g] = atomic_xchg(&i[7], (int)g) >= 0;
}"),
    ("local_memory_and_barriers", "
__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    __local float tile[64];
    __local int sum[1];
    size_t l = get_local_id(0), g = get_global_id(0);
    if (l == 0) sum[0] = 0;
    tile[l] = x[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    float acc = 0.0f;
    for (int k = 0; k < 64; k++) acc += tile[(l + k) % 64] * (float)k;
    atomic_add(sum, y[g]);
    barrier(CLK_LOCAL_MEM_FENCE);
    f[g] = acc;
    i[g] = sum[0] + (int)get_group_id(0) * 1000 + (int)get_local_size(0) + (int)get_num_groups(0) + (int)get_work_dim();
}"),
    // Optimized before it is written, the module steps each work-item's
    // index and address by the same amount round a loop with barriers
    // (`passes::barrier_inductions` splits them).
    ("steps_across_barriers", "
__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    __local float t[64];
    size_t l = get_local_id(0), g = get_global_id(0);
    float acc = 0.0f;
    int iacc = 0;
    int steps = (y[0] & 3) + 2;
    for (int s = 0; s < steps; s++) {
        t[l] = x[l + s * 48];
        barrier(CLK_LOCAL_MEM_FENCE);
        acc += t[63 - l] * (float)(s + 1);
        iacc += y[g / 2 + s * 16] & 0xffff;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    f[g] = acc;
    i[g] = iacc;
}"),
    ("work_group_functions", "
__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    i[g] = work_group_reduce_add(y[g] & 0xff) + work_group_scan_inclusive_max(y[g]) + work_group_all(y[g] > -5)
         + work_group_broadcast(y[g], 3);
    f[g] = work_group_reduce_min(x[g]) + work_group_scan_exclusive_add(x[g]);
}"),
    ("control_flow", "
int helper(int a, int b) {
    switch (a & 7) {
        case 0: return b;
        case 1: return a + b;
        case 3: return a * b;
        case 6: return a - b;
        default: return a ^ b;
    }
}
__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    int priv[16];
    for (int k = 0; k < 16; k++) priv[k] = helper(y[(g + k) & 255], k);
    int acc = 0;
    for (int k = 0; k < (y[g] & 15); k++) acc += priv[(k * 7) & 15];
    while (acc > 1000) acc /= 3;
    i[g] = acc;
    f[g] = x[g] > 0.0f ? x[g] * 2.0f : (x[g] < -0.5f ? -x[g] : 1.0f);
}"),
    ("doubles", "
__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    double d = (double)x[g] * 1.0000001;
    f[g] = (float)(sin(d) + exp(d * 0.01) + pow(fabs(d), 1.5) + sqrt(fabs(d)) + fma(d, d, 0.5));
    i[g] = (int)(d * 1e6);
}"),
    ("async_copy", "
__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    __local float t[64];
    event_t e = async_work_group_copy(t, x + get_group_id(0) * 64, 64, 0);
    wait_group_events(1, &e);
    f[get_global_id(0)] = t[63 - get_local_id(0)];
    i[get_global_id(0)] = get_global_linear_id() + get_local_linear_id();
}"),
];

fn harness_inputs() -> (Vec<f32>, Vec<i32>) {
    let x = (0..256)
        .map(|k| ((k * 37 % 101) as f32 - 50.0) / 17.0)
        .collect();
    let y = (0..256)
        .map(|k: i32| k.wrapping_mul(2654435761u32 as i32) >> 3)
        .collect();
    (x, y)
}

/// Runs `k` on the harness inputs; the float and integer outputs.
fn run_harness(env: &Env, k: &Kern) -> (Vec<f32>, Vec<i32>) {
    let (x, y) = harness_inputs();
    let (bx, by) = (env.buffer_from(&x), env.buffer_from(&y));
    let (bf, bi) = (
        env.buffer_from(&[0f32; 1024]),
        env.buffer_from(&[0i32; 1024]),
    );
    env.run_with(k, &[&bx, &by, &bf, &bi], &[256], Some(&[64]));
    (env.read(&bf, 0, 1024), env.read(&bi, 0, 1024))
}

fn close(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits()
        || (a - b).abs() <= 1e-5 * a.abs().max(b.abs()).max(1.0)
        || (a.is_nan() && b.is_nan())
}

#[test]
fn harness_kernels_from_clang_modules_compute_what_their_sources_do() {
    let env = Env::new();
    for (name, src) in HARNESS {
        let il = spirv_from_cl(src);
        let from_il = il_kernel(&env, &il, "k");
        let from_source = env.kernel_opts(src, "k", "-cl-std=CL3.0");
        let (fa, ia) = run_harness(&env, &from_il.1);
        let (fb, ib) = run_harness(&env, &from_source.1);
        // Atomic exchange order and the like differ run to run: those
        // kernels write what does not.
        if let Some(n) = (0..ia.len()).find(|&n| ia[n] != ib[n]) {
            panic!(
                "{name}: i[{n}] is {} from SPIR-V, {} from source",
                ia[n], ib[n]
            );
        }
        for (n, (a, b)) in fa.iter().zip(&fb).enumerate() {
            assert!(
                close(*a, *b),
                "{name}: f[{n}] is {a} from SPIR-V, {b} from source"
            );
        }
    }
}

#[test]
fn a_private_array_of_structs_holds_each_work_items_values() {
    let src = "
typedef struct { int a; float b; short c; } S;
S make(int g, float v) { S s = { g * 3, v * 0.5f, (short)g }; return s; }
__kernel void k(__global const float* x, __global const int* y, __global float* f, __global int* i) {
    size_t g = get_global_id(0);
    S arr[4];
    for (int k = 0; k < 4; k++) arr[k] = make((int)g + k, x[(g + k) & 255]);
    S s = arr[y[g] & 3];
    i[g] = s.a + s.c;
    f[g] = s.b;
}";
    let env = Env::new();
    let (_p, k) = il_kernel(&env, &spirv_from_cl(src), "k");
    let (f, i) = run_harness(&env, &k);
    let (x, y) = harness_inputs();
    for g in 0..256 {
        let k = (y[g] & 3) as usize;
        assert_eq!(i[g], 4 * (g + k) as i32, "i[{g}]");
        assert_eq!(f[g], x[(g + k) & 255] * 0.5, "f[{g}]");
    }
}

#[test]
fn the_device_takes_spirv_1_0_to_1_6() {
    let d = device();
    let il = ok(device_info(d, CL_DEVICE_IL_VERSION), "CL_DEVICE_IL_VERSION").string();
    assert_eq!(
        il,
        "SPIR-V_1.0 SPIR-V_1.1 SPIR-V_1.2 SPIR-V_1.3 SPIR-V_1.4 SPIR-V_1.5 SPIR-V_1.6"
    );
    let ils = ok(
        device_info(d, CL_DEVICE_ILS_WITH_VERSION),
        "CL_DEVICE_ILS_WITH_VERSION",
    )
    .name_versions();
    let minors: Vec<u32> = ils
        .iter()
        .map(|(n, v)| {
            assert_eq!(n, "SPIR-V");
            let (major, minor, _) = version_parts(*v);
            assert_eq!(major, 1);
            minor
        })
        .collect();
    assert_eq!(minors, [0, 1, 2, 3, 4, 5, 6]);
    let ext = ext_names(&ok(device_info(d, CL_DEVICE_EXTENSIONS), "CL_DEVICE_EXTENSIONS").string());
    for e in [
        "cl_khr_il_program",
        "cl_khr_spirv_no_integer_wrap_decoration",
        "cl_khr_spirv_linkonce_odr",
        "cl_khr_spirv_queries",
    ] {
        assert!(ext.iter().any(|x| x == e), "{e} is not reported");
    }
    // clCreateProgramWithILKHR is the core function.
    let f: *mut std::ffi::c_void = extension_function("clCreateProgramWithILKHR");
    assert!(!f.is_null());
}

#[test]
fn the_spirv_queries_list_what_modules_may_use() {
    let sets = spirv_strings(CL_DEVICE_SPIRV_EXTENDED_INSTRUCTION_SETS_KHR);
    assert!(sets.iter().any(|s| s == "OpenCL.std"), "{sets:?}");
    let exts = spirv_strings(CL_DEVICE_SPIRV_EXTENSIONS_KHR);
    for e in [
        "SPV_KHR_no_integer_wrap_decoration",
        "SPV_KHR_linkonce_odr",
        "SPV_KHR_expect_assume",
        "SPV_KHR_integer_dot_product",
    ] {
        assert!(exts.iter().any(|x| x == e), "{e} missing from {exts:?}");
    }
    let caps = ok(
        device_info(device(), CL_DEVICE_SPIRV_CAPABILITIES_KHR),
        "capabilities",
    )
    .0;
    let caps: Vec<u32> = caps
        .chunks_exact(4)
        .map(|c| u32::from_ne_bytes(c.try_into().unwrap()))
        .collect();
    // Addresses, Linkage, Kernel, Vector16, Float16Buffer, Int64, Int16,
    // Int8, ImageBasic, GenericPointer, Groups.
    for c in [4, 5, 6, 7, 8, 11, 22, 39, 13, 38, 18] {
        assert!(caps.contains(&c), "capability {c} missing from {caps:?}");
    }
}

/// half arithmetic, conversions (from double too) and math in a module
/// (the Float16 capability) give the bits its source does.
#[test]
fn half_kernels_run_from_spirv_as_from_source() {
    const SRC: &str = "
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
__kernel void halves(__global const half* a, __global const double* d, __global half* out) {
    size_t i = get_global_id(0);
    half x = a[i];
    out[4 * i] = x * x - (half)1.5;
    out[4 * i + 1] = (half)d[i];
    out[4 * i + 2] = convert_half_rtz(d[i]);
    out[4 * i + 3] = exp(x) + fma(x, a[i ^ 1], (half)-1.5);
}";
    let env = Env::new();
    let n = 1024;
    let a: Vec<u16> = (0..n as u16).map(|i| 0x3000 + i).collect();
    let d: Vec<f64> = (0..n).map(|i| 1.0 + i as f64 * (1.0 / 3000.0)).collect();
    let caps = ok(
        device_info(device(), CL_DEVICE_SPIRV_CAPABILITIES_KHR),
        "capabilities",
    )
    .0;
    // Float16 is capability 9.
    assert!(caps.chunks_exact(4).any(|c| c == 9u32.to_ne_bytes()));
    let mut results = Vec::new();
    let il = spirv_from_cl(SRC);
    for (_p, k) in [il_kernel(&env, &il, "halves"), env.kernel(SRC, "halves")] {
        let (ma, md) = (env.buffer_from(&a), env.buffer_from(&d));
        let out = env.buffer(n * 8);
        env.run_with(&k, &[&ma, &md, &out], &[n], None);
        results.push(env.read::<u16>(&out, 0, 4 * n));
    }
    if let Some(i) = (0..4 * n).find(|&i| results[0][i] != results[1][i]) {
        let (il, cl) = (results[0][i], results[1][i]);
        panic!("element {i}: {il:#06x} from SPIR-V, {cl:#06x} from source");
    }
    // 1 + 1/3000 is no half: rounded to nearest, and towards zero.
    assert_eq!(results[0][4 + 1], 0x3c00);
    assert_eq!(results[0][4 + 2], 0x3c00);
    assert_eq!(results[0][4 * 4 + 1], 0x3c01);
}

#[test]
fn a_program_gives_back_its_il() {
    let env = Env::new();
    let il = spirv_from_cl(VECADD);
    let p = ok(create_with_il(env.c(), &il), "clCreateProgramWithIL");
    assert_eq!(
        ok(program_info(p.get(), CL_PROGRAM_IL), "CL_PROGRAM_IL").0,
        il
    );
    // A source program has none.
    let s = create_program(env.c(), VECADD);
    assert!(ok(program_info(s.get(), CL_PROGRAM_IL), "CL_PROGRAM_IL")
        .0
        .is_empty());
}

#[test]
fn what_is_not_spirv_is_refused_at_creation() {
    let env = Env::new();
    let il = spirv_from_cl(VECADD);
    let mut rc = 0;
    cl!(clCreateProgramWithIL(env.c(), null(), 20, &mut rc));
    assert_code(rc, CL_INVALID_VALUE, "a null IL");
    assert_err(
        create_with_il(env.c(), &il[..0]),
        CL_INVALID_VALUE,
        "an empty IL",
    );
    assert_err(
        create_with_il(env.c(), &il[..il.len() - 1]),
        CL_INVALID_VALUE,
        "a length not a whole number of words",
    );
    assert_err(
        create_with_il(env.c(), &il[..16]),
        CL_INVALID_VALUE,
        "less than a header",
    );
    let mut bad = il.clone();
    bad[0] ^= 0xff;
    assert_err(
        create_with_il(env.c(), &bad),
        CL_INVALID_VALUE,
        "a wrong magic number",
    );
    let mut v2 = il.clone();
    v2[6] = 2; // version 2.x
    assert_err(create_with_il(env.c(), &v2), CL_INVALID_VALUE, "SPIR-V 2.0");
    assert_err(
        create_with_il(env.c(), b"__kernel void k() {}\n\0\0\0"),
        CL_INVALID_VALUE,
        "OpenCL C",
    );
    let mut rc = 0;
    cl!(clCreateProgramWithIL(
        null_mut(),
        il.as_ptr().cast(),
        il.len(),
        &mut rc
    ));
    assert_code(rc, CL_INVALID_CONTEXT, "no context");
    // A module written big-endian is SPIR-V too.
    let big: Vec<u8> = il
        .chunks_exact(4)
        .flat_map(|w| [w[3], w[2], w[1], w[0]])
        .collect();
    let p = il_program(&env, &big, "").unwrap_or_else(|f| panic!("{f}"));
    ok(
        create_kernel(p.get(), "vecadd"),
        "a kernel of the big-endian module",
    );
}

const MINIMAL: &str = "
               OpCapability Addresses
               OpCapability Kernel
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k \"k\"
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
      %float = OpTypeFloat 32
     %uint_1 = OpConstant %uint 1
    %float_1 = OpConstant %float 1
  %ptr_uint = OpTypePointer CrossWorkgroup %uint
       %fnty = OpTypeFunction %void %ptr_uint
          %k = OpFunction %void None %fnty
          %p = OpFunctionParameter %ptr_uint
      %entry = OpLabel
          %v = OpLoad %uint %p
          %w = OpIAdd %uint %v %uint_1
               OpStore %p %w
               OpReturn
               OpFunctionEnd
";

/// Builds `il`, which must fail: the build log.
#[track_caller]
fn build_fails(env: &Env, il: &[u8]) -> String {
    match il_program(env, il, "") {
        Ok(_) => panic!("the module built"),
        Err(f) => {
            assert_code(f.code, CL_BUILD_PROGRAM_FAILURE, "clBuildProgram");
            assert_eq!(
                ok(
                    build_info(f.program.get(), device(), CL_PROGRAM_BUILD_STATUS),
                    "status"
                )
                .i32(),
                CL_BUILD_ERROR
            );
            f.log
        }
    }
}

#[test]
fn malformed_modules_fail_the_build_naming_the_instruction() {
    let env = Env::new();
    let good = spirv_from_asm(MINIMAL, "1.0");
    il_program(&env, &good, "").unwrap_or_else(|f| panic!("{f}"));
    let words = |b: &[u8]| -> Vec<u32> {
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect()
    };
    let bytes = |w: &[u32]| -> Vec<u8> { w.iter().flat_map(|x| x.to_le_bytes()).collect() };
    // A truncated word stream: the last instruction loses its last word.
    let w = words(&good);
    let log = build_fails(&env, &bytes(&w[..w.len() - 1]));
    assert!(
        log.contains("OpFunctionEnd") || log.contains("module ends"),
        "{log}"
    );
    // Cut inside an instruction with operands.
    let store_at = w.iter().position(|&x| x & 0xffff == 62).unwrap(); // OpStore
    let log = build_fails(&env, &bytes(&w[..store_at + 2]));
    assert!(
        log.contains(&format!("word {store_at}")) && log.contains("OpStore"),
        "{log}"
    );
    // An id past the bound.
    let mut oob = w.clone();
    oob[store_at + 2] = w[3] + 7;
    let log = build_fails(&env, &bytes(&oob));
    assert!(
        log.contains("OpStore") && log.contains("outside the bound"),
        "{log}"
    );
    // A type mismatch: a float added to an integer.
    let log = build_fails(
        &env,
        &spirv_from_asm(
            &MINIMAL.replace("OpIAdd %uint %v %uint_1", "OpIAdd %uint %v %float_1"),
            "1.0",
        ),
    );
    assert!(
        log.contains("OpIAdd") && log.contains("not the expected"),
        "{log}"
    );
    // An unsupported capability.
    let log = build_fails(
        &env,
        &spirv_from_asm(
            &MINIMAL.replace(
                "OpCapability Kernel",
                "OpCapability Kernel\nOpCapability Shader",
            ),
            "1.0",
        ),
    );
    assert!(
        log.contains("OpCapability") && log.contains("Shader"),
        "{log}"
    );
    // The 32-bit addressing model of another device.
    let log = build_fails(
        &env,
        &spirv_from_asm(&MINIMAL.replace("Physical64", "Physical32"), "1.0"),
    );
    assert!(
        log.contains("OpMemoryModel") && log.contains("Physical32"),
        "{log}"
    );
    // An unknown opcode.
    let mut unknown = w.clone();
    unknown[store_at] = (unknown[store_at] & 0xffff_0000) | 0x7ff0;
    let log = build_fails(&env, &bytes(&unknown));
    assert!(
        log.contains(&format!("word {store_at}")) && log.contains("unknown opcode"),
        "{log}"
    );
    // A word count of 0.
    let mut zero = w.clone();
    zero[store_at] &= 0xffff;
    let log = build_fails(&env, &bytes(&zero));
    assert!(log.contains("word count is 0"), "{log}");
    // An undefined extension and instruction set.
    let log = build_fails(
        &env,
        &spirv_from_asm(
            &MINIMAL.replace(
                "OpMemoryModel",
                "OpExtension \"SPV_XYZ_nothing\"\nOpMemoryModel",
            ),
            "1.0",
        ),
    );
    assert!(log.contains("SPV_XYZ_nothing"), "{log}");
    let log = build_fails(
        &env,
        &spirv_from_asm(
            &MINIMAL.replace(
                "OpMemoryModel",
                "%x = OpExtInstImport \"GLSL.std.450\"\nOpMemoryModel",
            ),
            "1.0",
        ),
    );
    assert!(log.contains("GLSL.std.450"), "{log}");
}

#[test]
fn non_semantic_instructions_are_ignored() {
    let env = Env::new();
    let text = MINIMAL
        .replace(
            "OpMemoryModel",
            "OpExtension \"SPV_KHR_non_semantic_info\"\n%ns = OpExtInstImport \"NonSemantic.Anything.7\"\nOpMemoryModel",
        )
        .replace("%w = OpIAdd", "%junk = OpExtInst %void %ns 42 %v %p\n%w = OpIAdd");
    let il = spirv_from_asm(&text.replace("--target-env", ""), "1.0");
    let (_p, k) = il_kernel(&env, &il, "k");
    let b = env.buffer_from(&[41u32]);
    env.run_with(&k, &[&b], &[1], None);
    assert_eq!(env.read::<u32>(&b, 0, 1), [42]);
}

const SPEC: &str = "
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k \"k\"
               OpDecorate %a SpecId 3
               OpDecorate %b SpecId 7
               OpDecorate %flag SpecId 9
       %void = OpTypeVoid
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
          %a = OpSpecConstant %uint 5
          %b = OpSpecConstant %ulong 100
       %flag = OpSpecConstantTrue %bool
        %sum = OpSpecConstantOp %uint IAdd %a %a
     %uint_0 = OpConstant %uint 0
  %ptr_ulong = OpTypePointer CrossWorkgroup %ulong
       %fnty = OpTypeFunction %void %ptr_ulong
          %k = OpFunction %void None %fnty
          %p = OpFunctionParameter %ptr_ulong
      %entry = OpLabel
          %s = OpSelect %uint %flag %sum %uint_0
         %sl = OpUConvert %ulong %s
          %v = OpIAdd %ulong %sl %b
               OpStore %p %v
               OpReturn
               OpFunctionEnd
";

fn run_spec(env: &Env, p: &Prog) -> u64 {
    let k = ok(create_kernel(p.get(), "k"), "clCreateKernel");
    let b = env.buffer_from(&[0u64]);
    env.run_with(&k, &[&b], &[1], None);
    env.read::<u64>(&b, 0, 1)[0]
}

fn set_spec(p: &Prog, id: u32, bytes: &[u8]) -> cl_int {
    cl!(clSetProgramSpecializationConstant(
        p.get(),
        id,
        bytes.len(),
        bytes.as_ptr().cast()
    ))
}

#[test]
fn specialization_constants_take_the_values_set() {
    let env = Env::new();
    let il = spirv_from_asm(SPEC, "1.0");
    let p = ok(create_with_il(env.c(), &il), "clCreateProgramWithIL");
    check(build_program(p.get(), ""), "build with the defaults");
    assert_eq!(run_spec(&env, &p), 10 + 100);
    let p = ok(create_with_il(env.c(), &il), "clCreateProgramWithIL");
    check(set_spec(&p, 3, &21u32.to_le_bytes()), "set SpecId 3");
    check(set_spec(&p, 7, &1000u64.to_le_bytes()), "set SpecId 7");
    check(build_program(p.get(), ""), "build with values set");
    assert_eq!(run_spec(&env, &p), 42 + 1000);
    check(set_spec(&p, 9, &[0u8]), "set the bool");
    check(build_program(p.get(), ""), "rebuild");
    assert_eq!(run_spec(&env, &p), 1000);
    // Bad ids, sizes and values.
    assert_code(
        set_spec(&p, 4, &1u32.to_le_bytes()),
        CL_INVALID_SPEC_ID,
        "an id the module lacks",
    );
    assert_code(
        set_spec(&p, 3, &1u64.to_le_bytes()),
        CL_INVALID_VALUE,
        "the wrong size",
    );
    assert_code(
        cl!(clSetProgramSpecializationConstant(p.get(), 3, 4, null())),
        CL_INVALID_VALUE,
        "no value",
    );
    let s = create_program(env.c(), VECADD);
    assert_code(
        set_spec(&s, 3, &1u32.to_le_bytes()),
        CL_INVALID_PROGRAM,
        "a source program",
    );
}

/// `clCompileProgram` of one program (no headers).
fn compile(p: &Prog) -> cl_int {
    let d = device();
    cl!(clCompileProgram(
        p.get(),
        1,
        &d,
        c"".as_ptr(),
        0,
        null(),
        null_mut(),
        None,
        null_mut()
    ))
}

fn link(env: &Env, inputs: &[cl_program]) -> Result<Prog, cl_int> {
    let d = device();
    let mut rc = 0;
    let p = cl!(clLinkProgram(
        env.c(),
        1,
        &d,
        c"".as_ptr(),
        inputs.len() as cl_uint,
        inputs.as_ptr(),
        None,
        null_mut(),
        &mut rc
    ));
    result(rc, p).map(Prog)
}

#[test]
fn spirv_modules_link_with_each_other_and_with_opencl_c() {
    let env = Env::new();
    let lib = spirv_from_cl("int add3(int x) { return x + 3; }");
    let user = "int add3(int x);\n__kernel void k(__global int* p) { p[get_global_id(0)] = add3(p[get_global_id(0)]) * 2; }";
    let run = |p: &Prog| {
        let k = ok(create_kernel(p.get(), "k"), "clCreateKernel");
        let b = env.buffer_from(&[1i32, 2, 3]);
        env.run_with(&k, &[&b], &[3], None);
        env.read::<i32>(&b, 0, 3)
    };
    // SPIR-V with SPIR-V.
    let a = ok(create_with_il(env.c(), &lib), "IL a");
    let b = ok(create_with_il(env.c(), &spirv_from_cl(user)), "IL b");
    check(compile(&a), "compile a");
    check(compile(&b), "compile b");
    let linked = ok(link(&env, &[a.get(), b.get()]), "link");
    assert_eq!(run(&linked), [8, 10, 12]);
    // SPIR-V with OpenCL C.
    let c = create_program(env.c(), user);
    check(compile(&c), "compile the source");
    let linked = ok(link(&env, &[a.get(), c.get()]), "link with OpenCL C");
    assert_eq!(run(&linked), [8, 10, 12]);
    // The import alone does not link into an executable.
    let d = device();
    let mut rc = 0;
    let lone = [b.get()];
    let p = cl!(clLinkProgram(
        env.c(),
        1,
        &d,
        c"".as_ptr(),
        1,
        lone.as_ptr(),
        None,
        null_mut(),
        &mut rc
    ));
    assert_code(rc, CL_LINK_PROGRAM_FAILURE, "an undefined import");
    let p = Prog(p);
    assert!(
        build_log(p.get()).contains("add3"),
        "{}",
        build_log(p.get())
    );
}

#[test]
fn kernels_of_a_module_reflect_their_arguments_and_attributes() {
    let env = Env::new();
    let src = "typedef struct { int a; float b; } pair;
__kernel __attribute__((reqd_work_group_size(8, 2, 1)))
void k(__global const int* restrict p, __local float* l, pair s, __constant uint* c, float4 v, read_only image2d_t img, sampler_t smp) {
    l[get_local_id(0)] = p[0] + s.a + c[0] + v.x + read_imagef(img, smp, (int2)(0, 0)).x;
}";
    let (p, k) = il_kernel(&env, &spirv_from_cl(src), "k");
    let names = ok(program_info(p.get(), CL_PROGRAM_KERNEL_NAMES), "names").string();
    assert_eq!(names, "k");
    assert_eq!(
        ok(kernel_info(k.get(), CL_KERNEL_NUM_ARGS), "args").u32(),
        7
    );
    let wg = ok(
        kernel_wg_info(k.get(), device(), CL_KERNEL_COMPILE_WORK_GROUP_SIZE),
        "reqd",
    )
    .usizes();
    assert_eq!(wg, [8, 2, 1]);
    // Argument information comes only with programs from source.
    assert_err(
        kernel_arg_info(k.get(), 0, CL_KERNEL_ARG_ADDRESS_QUALIFIER),
        CL_KERNEL_ARG_INFO_NOT_AVAILABLE,
        "argument information of an IL program",
    );
    // Arguments take what their kinds take.
    ok(set_local(k.get(), 1, 64), "a __local size");
    ok(set_arg(k.get(), 2, &[7i32, 0]), "a struct by value");
    ok(set_arg(k.get(), 4, &[1f32; 4]), "a float4");
    assert_err(
        set_arg(k.get(), 4, &1f32),
        CL_INVALID_ARG_SIZE,
        "a float for a float4",
    );
    assert_err(
        set_arg(k.get(), 1, &0u64),
        CL_INVALID_ARG_VALUE,
        "a value for a __local pointer",
    );
}

#[test]
fn images_and_samplers_work_in_a_module() {
    let env = Env::new();
    let src = "
__constant sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
__kernel void k(read_only image2d_t src, write_only image2d_t dst, __global int* dims, sampler_t arg) {
    int2 c = (int2)(get_global_id(0), get_global_id(1));
    float4 v = read_imagef(src, s, c) + read_imagef(src, c) + read_imagef(src, arg, c + 100);
    write_imagef(dst, c, v);
    if (c.x == 0 && c.y == 0) {
        dims[0] = get_image_width(src); dims[1] = get_image_height(dst);
        dims[2] = get_image_channel_order(src); dims[3] = get_image_channel_data_type(src);
        int2 d = get_image_dim(src); dims[4] = d.x; dims[5] = d.y;
    }
}";
    let (_p, k) = il_kernel(&env, &spirv_from_cl(src), "k");
    let fmt = image_format(CL_RGBA, CL_FLOAT);
    let desc = image_desc(CL_MEM_OBJECT_IMAGE2D, 4, 3, 0, 0);
    let src_img = env.image(CL_MEM_READ_ONLY, &fmt, &desc);
    let dst_img = env.image(CL_MEM_WRITE_ONLY, &fmt, &desc);
    let texels: Vec<f32> = (0..4 * 3 * 4).map(|i| i as f32).collect();
    env.write_image(&src_img, [0; 3], [4, 3, 1], &texels);
    let dims = env.buffer_from(&[0i32; 6]);
    let smp = ok(
        env.try_sampler(false, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST),
        "sampler",
    );
    ok(set_mem(k.get(), 0, &src_img), "src");
    ok(set_mem(k.get(), 1, &dst_img), "dst");
    ok(set_mem(k.get(), 2, &dims), "dims");
    ok(set_arg(k.get(), 3, &smp.0), "sampler");
    env.run(&k, &[4, 3], None);
    let out: Vec<f32> = env.read_image(&dst_img, [0; 3], [4, 3, 1], 4 * 3 * 4);
    for y in 0..3 {
        for x in 0..4 {
            for ch in 0..4 {
                let at = (y * 4 + x) * 4 + ch;
                // The clamped read past the corner is the last texel.
                let last = ((2 * 4 + 3) * 4 + ch) as f32;
                assert_eq!(
                    out[at],
                    2.0 * texels[at] + last,
                    "texel ({x}, {y}) channel {ch}"
                );
            }
        }
    }
    // Clang's SPIR-V back end makes get_image_channel_data_type an
    // OpImageQueryFormat, whose result is SPIR-V's enumerant (Float, 14),
    // CL_FLOAT less CL_SNORM_INT8.
    let float = (CL_FLOAT - CL_SNORM_INT8) as i32;
    assert_eq!(
        env.read::<i32>(&dims, 0, 6),
        [4, 3, CL_RGBA as i32, float, 4, 3]
    );
}
