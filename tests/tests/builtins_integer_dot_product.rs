//! cl_khr_integer_dot_product 2.0: dot and dot_acc_sat on char4/uchar4 in
//! every signedness pair, and their 4x8-bit packed forms, against a host
//! reference on extremes and random inputs with accumulators near the
//! saturation points; the device's capabilities and feature macros.

use ferrocl_tests::*;

fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// Component k of a packed uint, signed or not.
fn lane(v: u32, k: usize, signed: bool) -> i64 {
    let b = (v >> (8 * k)) as u8;
    if signed {
        b as i8 as i64
    } else {
        b as i64
    }
}

fn dot(a: u32, b: u32, sa: bool, sb: bool) -> i64 {
    (0..4).map(|k| lane(a, k, sa) * lane(b, k, sb)).sum()
}

/// The signedness pairs: (name in the packed functions, a signed, b signed,
/// OpenCL types of a and b, result type).
const PAIRS: [(&str, bool, bool, &str, &str, &str); 4] = [
    ("uu", false, false, "uchar4", "uchar4", "uint"),
    ("ss", true, true, "char4", "char4", "int"),
    ("us", false, true, "uchar4", "char4", "int"),
    ("su", true, false, "char4", "uchar4", "int"),
];

#[test]
fn dot_products_against_the_host() {
    let e = Env::new();
    // Per work-item: a, b packed, acc; out: 4 results per pair (dot, acc_sat,
    // packed dot, packed acc_sat).
    let mut body = String::new();
    for (p, (name, _, _, ta, tb, r)) in PAIRS.iter().enumerate() {
        body += &format!(
            "  {{ {ta} va = as_{ta}(a[i]); {tb} vb = as_{tb}(b[i]); {r} acc = as_{r}(c[i]);\n\
             out[(i * 4 + {p}) * 4 + 0] = as_uint(dot(va, vb));\n\
             out[(i * 4 + {p}) * 4 + 1] = as_uint(dot_acc_sat(va, vb, acc));\n\
             out[(i * 4 + {p}) * 4 + 2] = as_uint(dot_4x8packed_{name}_{r}(a[i], b[i]));\n\
             out[(i * 4 + {p}) * 4 + 3] = as_uint(dot_acc_sat_4x8packed_{name}_{r}(a[i], b[i], acc)); }}\n"
        );
    }
    let src = format!(
        "__kernel void k(__global const uint* a, __global const uint* b,\n\
         __global const uint* c, __global uint* out) {{\n\
         size_t i = get_global_id(0);\n{body}}}\n"
    );
    // The builtins are declared under the 3.0 feature macros.
    let (_p, k) = e.kernel_opts(&src, "k", "-cl-std=CL3.0");
    let extremes = [
        0u32,
        0x8080_8080,
        0x7f7f_7f7f,
        0xffff_ffff,
        0x0180_7fff,
        0x80ff_017f,
    ];
    let accs = [
        0u32,
        1,
        i32::MAX as u32,
        (i32::MAX - 100_000) as u32,
        i32::MIN as u32,
        (i32::MIN + 100_000) as u32,
        u32::MAX,
        u32::MAX - 100_000,
        -5i32 as u32,
    ];
    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
    for &x in &extremes {
        for &y in &extremes {
            for &z in &accs {
                a.push(x);
                b.push(y);
                c.push(z);
            }
        }
    }
    let mut s = 0x1234_5678u64;
    while a.len() < 4096 {
        a.push(next(&mut s) as u32);
        b.push(next(&mut s) as u32);
        c.push(accs[(next(&mut s) % accs.len() as u64) as usize] ^ (next(&mut s) as u32 & 0xff));
    }
    let n = a.len();
    let out = e.buffer(n * 16 * 4);
    let bufs = [e.buffer_from(&a), e.buffer_from(&b), e.buffer_from(&c), out];
    e.run_with(&k, &bufs, &[n], None);
    let got = e.read::<u32>(&bufs[3], 0, n * 16);
    let mut fails = Vec::new();
    for i in 0..n {
        for (p, (name, sa, sb, _, _, r)) in PAIRS.iter().enumerate() {
            let d = dot(a[i], b[i], *sa, *sb);
            let (acc, lo, hi) = if *r == "uint" {
                (c[i] as i64, 0, u32::MAX as i64)
            } else {
                (c[i] as i32 as i64, i32::MIN as i64, i32::MAX as i64)
            };
            let sat = (d + acc).clamp(lo, hi);
            let want = [d as u32, sat as u32, d as u32, sat as u32];
            for (f, &w) in want.iter().enumerate() {
                let g = got[(i * 4 + p) * 4 + f];
                if g != w && fails.len() < 20 {
                    fails.push(format!(
                        "{} {name} of {:#010x}, {:#010x}, acc {:#010x}: got {g:#x}, want {w:#x}",
                        [
                            "dot",
                            "dot_acc_sat",
                            "dot_4x8packed",
                            "dot_acc_sat_4x8packed"
                        ][f],
                        a[i],
                        b[i],
                        c[i]
                    ));
                }
            }
        }
    }
    assert!(fails.is_empty(), "mismatches:\n{}", fails.join("\n"));
}

#[test]
fn capabilities_feature_macros_and_acceleration_are_reported() {
    let d = device();
    let ext = device_info(d, CL_DEVICE_EXTENSIONS_WITH_VERSION)
        .unwrap()
        .name_versions();
    let v = ext
        .iter()
        .find(|(n, _)| n == "cl_khr_integer_dot_product")
        .map(|(_, v)| version_parts(*v));
    assert_eq!(v, Some((2, 0, 0)));
    // CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR: both input forms.
    let caps = device_info(d, 0x1073).unwrap().u64();
    assert_eq!(caps, 0b11, "INPUT_4x8BIT_PACKED | INPUT_4x8BIT");
    // ACCELERATION_PROPERTIES_8BIT_KHR and _4x8BIT_PACKED_KHR: six cl_bools,
    // none accelerated.
    for q in [0x1074, 0x1075] {
        let props = device_info(d, q).unwrap();
        assert_eq!(props.0, vec![0u8; 24], "query {q:#x}");
    }
    let features: Vec<String> = device_info(d, CL_DEVICE_OPENCL_C_FEATURES)
        .unwrap()
        .name_versions()
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    let e = Env::new();
    let src = "__kernel void k(__global int* out) {\n\
               out[0] = 0;\n\
               #ifdef cl_khr_integer_dot_product\n out[0] |= 1;\n#endif\n\
               #ifdef __opencl_c_integer_dot_product_input_4x8bit\n out[0] |= 2;\n#endif\n\
               #ifdef __opencl_c_integer_dot_product_input_4x8bit_packed\n out[0] |= 4;\n#endif\n}\n";
    let (_p, k) = e.kernel_opts(src, "k", "-cl-std=CL3.0");
    let out = e.buffer_from(&[0i32]);
    e.run_with(&k, &[&out], &[1], None);
    assert_eq!(e.read::<i32>(&out, 0, 1), vec![7]);
    for f in [
        "__opencl_c_integer_dot_product_input_4x8bit",
        "__opencl_c_integer_dot_product_input_4x8bit_packed",
    ] {
        assert!(features.iter().any(|n| n == f), "{f} not in {features:?}");
    }
}
