//! cl_khr_extended_bit_ops: bitfield_insert, bitfield_extract_signed,
//! bitfield_extract_unsigned and bit_reverse for every integer type and
//! width, on every field (offset, count) that fits the type, against a host
//! reference; and the extension reported with its macro.

use ferrocl_tests::*;

const WIDTHS: [usize; 6] = [1, 2, 3, 4, 8, 16];

/// (type, its signed form, its unsigned form, bits)
const TYPES: [(&str, &str, &str, u32); 8] = [
    ("char", "char", "uchar", 8),
    ("uchar", "char", "uchar", 8),
    ("short", "short", "ushort", 16),
    ("ushort", "short", "ushort", 16),
    ("int", "int", "uint", 32),
    ("uint", "int", "uint", 32),
    ("long", "long", "ulong", 64),
    ("ulong", "long", "ulong", 64),
];

fn next(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

fn ones(bits: u32) -> u64 {
    if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// The four results for one lane, as the type's bits: insert, extract
/// signed, extract unsigned, reverse.
fn reference(bits: u32, base: u64, insert: u64, offset: u32, count: u32) -> [u64; 4] {
    let field = ones(count);
    let placed = if count == 0 { 0 } else { field << offset };
    let ins = (base & !placed) | ((insert << offset) & placed);
    let u = if count == 0 {
        0
    } else {
        (base >> offset) & field
    };
    let s = if count == 0 || count == 64 || u >> (count - 1) == 0 {
        u
    } else {
        u | !field // sign-extended
    };
    let rev = base.reverse_bits() >> (64 - bits);
    [ins, s, u, rev].map(|v| v & ones(bits))
}

fn to_bytes(v: &[u64], bytes: usize) -> Vec<u8> {
    v.iter()
        .flat_map(|x| x.to_le_bytes()[..bytes].to_vec())
        .collect()
}

fn from_bytes(b: &[u8], bytes: usize) -> Vec<u64> {
    b.chunks(bytes)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..bytes].copy_from_slice(c);
            u64::from_le_bytes(w)
        })
        .collect()
}

fn check_type(e: &Env, (t, s, u, bits): (&str, &str, &str, u32)) -> Vec<String> {
    let bytes = bits as usize / 8;
    // Every field that fits: offset + count <= bits, count 0 included.
    let fields: Vec<(u32, u32)> = (0..bits)
        .flat_map(|o| (0..=bits - o).map(move |c| (o, c)))
        .collect();
    let items = fields.len();
    let mut src = String::new();
    for n in WIDTHS {
        let w = if n == 1 { String::new() } else { n.to_string() };
        let (ld, st) = if n == 1 {
            ("X[i]".to_string(), "Y[i] = V;".to_string())
        } else {
            (format!("vload{n}(i, X)"), format!("vstore{n}(V, i, Y);"))
        };
        let store = |y: &str, v: &str| st.replace('Y', y).replace('V', v);
        src += &format!(
            "__kernel void k{n}(__global const {t}* a, __global const {t}* b,\n\
             __global const uint* off, __global const uint* cnt, __global {t}* ins,\n\
             __global {s}* es, __global {u}* eu, __global {t}* rev) {{\n\
             size_t i = get_global_id(0);\n\
             {t}{w} x = {}, y = {};\n\
             uint o = off[i], c = cnt[i];\n\
             {}\n{}\n{}\n{}\n}}\n",
            ld.replace('X', "a"),
            ld.replace('X', "b"),
            store("ins", "bitfield_insert(x, y, o, c)"),
            store("es", "bitfield_extract_signed(x, o, c)"),
            store("eu", "bitfield_extract_unsigned(x, o, c)"),
            store("rev", "bit_reverse(x)"),
        );
    }
    let prog = e.program(&src, "");
    let mut seed = 0x9e37_79b9_7f4a_7c15 ^ bits as u64;
    let mut fails = Vec::new();
    for n in WIDTHS {
        let lanes = items * n;
        let a: Vec<u64> = (0..lanes).map(|_| next(&mut seed) & ones(bits)).collect();
        let b: Vec<u64> = (0..lanes).map(|_| next(&mut seed) & ones(bits)).collect();
        let off: Vec<u32> = fields.iter().map(|f| f.0).collect();
        let cnt: Vec<u32> = fields.iter().map(|f| f.1).collect();
        let k = ok(
            create_kernel(prog.get(), &format!("k{n}")),
            "clCreateKernel",
        );
        let outs: Vec<Mem> = (0..4).map(|_| e.buffer(lanes * bytes)).collect();
        let bufs = [
            e.buffer_from(&to_bytes(&a, bytes)),
            e.buffer_from(&to_bytes(&b, bytes)),
            e.buffer_from(&off),
            e.buffer_from(&cnt),
        ];
        e.run_with(
            &k,
            &bufs.iter().chain(&outs).collect::<Vec<_>>(),
            &[items],
            None,
        );
        let got: Vec<Vec<u64>> = outs
            .iter()
            .map(|m| from_bytes(&e.read::<u8>(m, 0, lanes * bytes), bytes))
            .collect();
        let names = [
            "bitfield_insert",
            "bitfield_extract_signed",
            "bitfield_extract_unsigned",
            "bit_reverse",
        ];
        for l in 0..lanes {
            let (o, c) = fields[l / n];
            let want = reference(bits, a[l], b[l], o, c);
            for f in 0..4 {
                if got[f][l] != want[f] && fails.len() < 20 {
                    fails.push(format!(
                        "{}({t}{}) of {:#x}, {:#x}, offset {o}, count {c}: got {:#x}, want {:#x}",
                        names[f],
                        if n == 1 { String::new() } else { n.to_string() },
                        a[l],
                        b[l],
                        got[f][l],
                        want[f]
                    ));
                }
            }
        }
    }
    fails
}

#[test]
fn every_type_width_and_field() {
    let e = Env::new();
    let fails: Vec<String> = TYPES.iter().flat_map(|&t| check_type(&e, t)).collect();
    assert!(fails.is_empty(), "mismatches:\n{}", fails.join("\n"));
}

#[test]
fn the_extension_is_reported_and_its_macro_defined() {
    let ext = device_info(device(), CL_DEVICE_EXTENSIONS)
        .unwrap()
        .string();
    assert!(
        ext_names(&ext)
            .iter()
            .any(|e| e == "cl_khr_extended_bit_ops"),
        "{ext}"
    );
    let with_version = device_info(device(), CL_DEVICE_EXTENSIONS_WITH_VERSION)
        .unwrap()
        .name_versions();
    let v = with_version
        .iter()
        .find(|(n, _)| n == "cl_khr_extended_bit_ops")
        .map(|(_, v)| version_parts(*v));
    assert_eq!(v, Some((1, 0, 0)));
    let e = Env::new();
    let src = "__kernel void k(__global int* out) {\n\
               #ifdef cl_khr_extended_bit_ops\n out[0] = 1;\n#else\n out[0] = 2;\n#endif\n}\n";
    let (_p, k) = e.kernel(src, "k");
    let out = e.buffer_from(&[0i32]);
    e.run_with(&k, &[&out], &[1], None);
    assert_eq!(e.read::<i32>(&out, 0, 1), vec![1]);
}
