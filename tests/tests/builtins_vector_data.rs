//! The vector data functions (OpenCL C 3.0 section 6.15.7): vloadn/vstoren
//! for every type, width and address space, and the half conversions of
//! vload_half/vstore_half (every rounding mode) and their aligned forms,
//! against conversions computed on the host.

use ferrocl_tests::*;

const WIDTHS: [usize; 5] = [2, 3, 4, 8, 16];

/// (type, element bytes)
const TYPES: [(&str, usize); 9] = [
    ("char", 1),
    ("uchar", 1),
    ("short", 2),
    ("ushort", 2),
    ("int", 4),
    ("uint", 4),
    ("long", 8),
    ("ulong", 8),
    ("float", 4),
];

/// Over 16 bytes (a 3-vector takes 4 elements' room): the library and user
/// programs currently disagree on how such vectors are passed to functions.
fn is_wide(n: usize, bytes: usize) -> bool {
    (if n == 3 { 4 } else { n }) * bytes > 16
}

/// Elements per buffer in the vloadn/vstoren test.
const E: usize = 96;

/// For each width, one work-item loads every vector from `src + 1` (so only
/// element alignment holds) in each address space and stores it with
/// vstoren to `out` (global, local then copied, private then copied).
fn check_load_store(t: &str, bytes: usize, wide: bool) {
    let e = Env::new();
    let mut s = format!(
        "__kernel void k(__global const {t}* g, __constant {t}* c, __global {t}* out) {{\n\
         __local {t} l[{E}];\n  {t} p[{E}];\n  {t} q[{E}];\n\
         for (int i = 0; i < {E}; i++) {{ l[i] = g[i]; p[i] = g[i]; q[i] = 0; }}\n"
    );
    let mut regions = Vec::new();
    for &n in &WIDTHS {
        if is_wide(n, bytes) != wide {
            continue;
        }
        let count = (E - 1) / n;
        // Five outputs per width: from global, constant, local, private,
        // and a private round trip through vstoren.
        let base = regions.len() * 5 * E;
        regions.push(n);
        s += &format!(
            "  for (size_t i = 0; i < {count}; i++) {{\n\
             vstore{n}(vload{n}(i, g + 1), i, out + {b0} + 1);\n\
             vstore{n}(vload{n}(i, c + 1), i, out + {b1} + 1);\n\
             vstore{n}(vload{n}(i, l + 1), i, l + 1);\n\
             vstore{n}(vload{n}(i, p + 1), i, out + {b3} + 1);\n\
             vstore{n}(vload{n}(i, p + 1), i, q + 1);\n  }}\n\
             for (int i = 0; i < {E}; i++) {{ out[{b2} + i] = l[i]; l[i] = g[i];\n\
             out[{b4} + i] = q[i]; }}\n",
            b0 = base,
            b1 = base + E,
            b2 = base + 2 * E,
            b3 = base + 3 * E,
            b4 = base + 4 * E,
        );
        s += &format!("  for (int i = 0; i < {E}; i++) q[i] = 0;\n");
    }
    s += "}\n";
    let (_p, k) = e.kernel(&s, "k");
    let input: Vec<u8> = (0..E * bytes).map(|i| (i * 37 + 11) as u8).collect();
    let g = e.buffer_from(&input);
    let c = e.buffer_from(&input);
    let total = regions.len() * 5 * E * bytes;
    let out = e.buffer_from(&vec![0u8; total.max(1)]);
    for (i, m) in [&g, &c, &out].iter().enumerate() {
        ok(set_mem(k.get(), i as cl_uint, m), "set arg");
    }
    e.run(&k, &[1], None);
    let got = e.read::<u8>(&out, 0, total.max(1));
    for (r, &n) in regions.iter().enumerate() {
        let covered = 1 + (E - 1) / n * n; // elements written (from 1 on)
        for (w, space) in ["global", "constant", "local", "private", "private store"]
            .iter()
            .enumerate()
        {
            let region = &got[(r * 5 + w) * E * bytes..(r * 5 + w + 1) * E * bytes];
            for el in 1..covered {
                let want = &input[el * bytes..(el + 1) * bytes];
                let have = &region[el * bytes..(el + 1) * bytes];
                assert_eq!(have, want, "vload{n}/vstore{n} {t} {space}: element {el}");
            }
            // The local buffer starts as the input; the others as zeros, so
            // nothing beyond the last vector may have been written.
            if w != 2 {
                for el in covered..E {
                    let have = &region[el * bytes..(el + 1) * bytes];
                    assert!(
                        have.iter().all(|&b| b == 0),
                        "vstore{n} {t} {space} wrote past its vectors (element {el})"
                    );
                }
            }
        }
    }
}

#[test]
fn vload_vstore_every_type_and_address_space() {
    for (t, bytes) in TYPES {
        check_load_store(t, bytes, false);
    }
}

#[test]
fn vload_vstore_every_type_and_address_space_wide() {
    for (t, bytes) in TYPES {
        if bytes > 1 {
            check_load_store(t, bytes, true);
        }
    }
}

// ---------------------------------------------------------------------------
// half

fn half_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = ((h >> 10) & 0x1f) as i32;
    let m = (h & 0x3ff) as f64;
    sign * match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

#[derive(Clone, Copy, Debug)]
enum Mode {
    Rte,
    Rtz,
    Rtp,
    Rtn,
}

/// The half nearest `x` in `mode`, found by bracketing |x| between
/// neighbouring halves (independently of how the device computes it).
fn f64_to_half(x: f64, mode: Mode) -> u16 {
    if x.is_nan() {
        return 0x7e00;
    }
    let sign: u16 = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    // Largest finite half magnitude <= a (bits are monotonic in value).
    let (mut lo, mut hi) = (0u16, 0x7bffu16);
    if a >= half_to_f64(0x7bff) {
        lo = 0x7bff;
    } else {
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if half_to_f64(mid) <= a {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
    }
    let down = lo;
    let exact = half_to_f64(down) == a;
    let up = down + 1; // 0x7c00 (infinity) above the largest finite
    let away = match mode {
        Mode::Rtz => false,
        Mode::Rtp => sign == 0,
        Mode::Rtn => sign != 0,
        Mode::Rte => {
            // Beyond the largest half the next step would be 65536.
            let up_v = if up == 0x7c00 {
                65536.0
            } else {
                half_to_f64(up)
            };
            let (dl, du) = (a - half_to_f64(down), up_v - a);
            du < dl || (du == dl && down & 1 == 1)
        }
    };
    if a.is_infinite() {
        // Infinity stays infinity in every mode.
        return sign | 0x7c00;
    }
    sign | if exact || !away { down } else { up }
}

fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

/// Every half as a float, every midpoint between neighbouring halves (the
/// ties), values just either side of them, overflow and underflow, specials
/// and random floats.
fn float_inputs() -> Vec<f32> {
    let mut v = Vec::new();
    for h in (0u16..0x7c00).step_by(7) {
        let x = half_to_f64(h);
        let y = half_to_f64(h + 1);
        let mid = ((x + y) / 2.0) as f32;
        for f in [
            x as f32,
            mid,
            f32::from_bits(mid.to_bits() + 1),
            f32::from_bits(mid.to_bits() - 1),
        ] {
            v.push(f);
            v.push(-f);
        }
    }
    v.extend([
        65504.0f32,
        65519.0,
        65520.0,
        65536.0,
        1e10,
        f32::MAX,
        f32::INFINITY,
        f32::NAN,
        1e-8,
        2.9802322e-8, // 2^-25: half the smallest subnormal half
        2.9802326e-8,
        1e-30,
        1e-45,
        0.0,
    ]);
    let n = v.len();
    for i in 0..n.min(14) {
        let x = v[n - 1 - i];
        v.push(-x);
    }
    let mut s = 99u64;
    while v.len() % 48 != 0 || v.len() < 20000 {
        let r = next(&mut s);
        v.push(
            f32::from_bits((r >> 32) as u32 & 0x7fff_ffff | ((r as u32 & 1) << 31)) / 1e30 * 1e30,
        );
    }
    v
}

/// vload_half{,n} and vloada_half{,n} from global and constant memory (and
/// private for one width), every half value, each lane written out
/// separately (so no wide vector is passed to a function).
#[test]
fn vload_half_converts_every_half_exactly() {
    let e = Env::new();
    let all: Vec<u16> = (0..=u16::MAX).collect();
    let n_all = all.len();
    let mut s = String::from(
        "__kernel void k(__global const half* h, __constant half* c, __global float* out) {\n\
         size_t i = get_global_id(0);\n  ushort pbits[64];\n\
         for (int j = 0; j < 64; j++) pbits[j] = ((__global const ushort*)h)[j];\n\
         __private half* p = (__private half*)pbits;\n",
    );
    // (width, aligned, pointer, elements per step)
    let mut regions = Vec::new();
    for n in [1usize, 2, 3, 4, 8, 16] {
        // There is no scalar vloada_half in OpenCL C 1.2.
        for aligned in [false, n > 1] {
            for space in ["h", "c"] {
                let step = if aligned && n == 3 { 4 } else { n };
                regions.push((n, aligned, space, step));
            }
        }
    }
    regions.push((16, false, "p", 16));
    regions.push((3, true, "p", 4));
    for (r, &(n, aligned, space, step)) in regions.iter().enumerate() {
        let count = if space == "p" {
            64 / step
        } else {
            n_all / step
        };
        let sfx = if n == 1 { String::new() } else { n.to_string() };
        let a = if aligned { "a" } else { "" };
        s += &format!("  if (i < {count}) {{ float{sfx} r = vload{a}_half{sfx}(i, {space});\n",);
        for l in 0..n {
            let v = if n == 1 {
                "r".to_string()
            } else {
                format!("r.s{l:x}")
            };
            s += &format!("    out[{} + i * {n} + {l}] = {v};\n", r * n_all);
        }
        s += "  }\n";
    }
    s += "}\n";
    let (_p, k) = e.kernel(&s, "k");
    let h = e.buffer_from(&all);
    let c = e.buffer_from(&all);
    let total = regions.len() * n_all;
    let out = e.buffer_from(&vec![0.5f32; total]);
    for (i, m) in [&h, &c, &out].iter().enumerate() {
        ok(set_mem(k.get(), i as cl_uint, m), "set arg");
    }
    e.run(&k, &[n_all], None);
    let got = e.read::<f32>(&out, 0, total);
    for (r, &(n, aligned, space, step)) in regions.iter().enumerate() {
        let count = if space == "p" {
            64 / step
        } else {
            n_all / step
        };
        for i in 0..count {
            for l in 0..n {
                let bits = all[i * step + l];
                let g = got[r * n_all + i * n + l];
                let w = half_to_f64(bits);
                let neg = bits & 0x8000 != 0;
                assert!(
                    ((w.is_nan() && g.is_nan()) || g as f64 == w) && g.is_sign_negative() == neg,
                    "vload{}_half{n} from {space}: half {bits:#06x} loaded as {g:e}, want {w:e}",
                    if aligned { "a" } else { "" }
                );
            }
        }
    }
}

/// vstore_half{,n}{,_rte,_rtz,_rtp,_rtn} and vstorea_half of every width:
/// one kernel writes each combination to its own region of `out`.
fn check_store_half(wide: bool) {
    let e = Env::new();
    let x = float_inputs();
    let k_len = x.len();
    let modes = [
        ("", Mode::Rte),
        ("_rte", Mode::Rte),
        ("_rtz", Mode::Rtz),
        ("_rtp", Mode::Rtp),
        ("_rtn", Mode::Rtn),
    ];
    let mut s = String::from(
        "__kernel void k(__global const float* x, __global half* out) {\n  size_t i = get_global_id(0);\n",
    );
    let mut regions = Vec::new();
    for &n in [1usize].iter().chain(WIDTHS.iter()) {
        if is_wide(n, 4) != wide {
            continue;
        }
        let sfx = if n == 1 { String::new() } else { n.to_string() };
        let ld = if n == 1 {
            "x[i]".to_string()
        } else {
            format!("vload{n}(i, x)")
        };
        // vstorea_half3 steps by 4 halves.
        let step = if n == 3 { 4 } else { n };
        for (m, mode) in modes {
            for aligned in [false, true] {
                if aligned && n == 1 {
                    continue;
                }
                let a = if aligned { "a" } else { "" };
                let base = regions.len() * 2 * k_len;
                regions.push((n, mode, aligned, step));
                s += &format!(
                    "  if (i < {}) vstore{a}_half{sfx}{m}({ld}, i, out + {base});\n",
                    k_len / n
                );
            }
        }
    }
    s += "}\n";
    let (_p, k) = e.kernel(&s, "k");
    let mx = e.buffer_from(&x);
    let total = regions.len() * 2 * k_len;
    let out = e.buffer_from(&vec![0xdeadu16; total.max(1)]);
    ok(set_mem(k.get(), 0, &mx), "arg");
    ok(set_mem(k.get(), 1, &out), "arg");
    e.run(&k, &[k_len], None);
    let got = e.read::<u16>(&out, 0, total.max(1));
    let mut fails = Vec::new();
    for (r, &(n, mode, aligned, step)) in regions.iter().enumerate() {
        let step = if aligned { step } else { n };
        for (i, &v) in x.iter().enumerate() {
            let (vec, lane) = (i / n, i % n);
            let g = got[r * 2 * k_len + vec * step + lane];
            let want = f64_to_half(v as f64, mode);
            let ok = if v.is_nan() {
                g & 0x7c00 == 0x7c00 && g & 0x3ff != 0
            } else {
                g == want
            };
            if !ok && fails.len() < 20 {
                fails.push(format!(
                    "vstore{}_half{n} {mode:?}: {v:e} ({:#x}) gave {g:#06x}, want {want:#06x}",
                    if aligned { "a" } else { "" },
                    v.to_bits()
                ));
            }
        }
    }
    assert!(fails.is_empty(), "mismatches:\n{}", fails.join("\n"));
}

#[test]
fn vstore_half_rounds_in_every_mode() {
    check_store_half(false);
}

#[test]
fn vstore_half_rounds_in_every_mode_wide() {
    check_store_half(true);
}
