//! `cl_intel_bfloat16_conversions` and SPV_INTEL_bfloat16_conversion:
//! floats to the bits of bfloat16 values and back, scalars and vectors,
//! from OpenCL C and from SPIR-V, against the `half` crate's bfloat16.

use ferrocl_tests::*;
use half::bf16;

const KERNEL: &str = "
kernel void k(global const float *in, global const ushort *bits,
              global ushort *to1, global ushort *to3, global ushort *to16,
              global float *from1, global float *from16) {
    size_t g = get_global_id(0);
    to1[g] = intel_convert_bfloat16_as_ushort(in[g]);
    from1[g] = intel_convert_as_bfloat16_float(bits[g]);
    if (g % 3 == 0)
        vstore3(intel_convert_bfloat163_as_ushort3(vload3(g / 3, in)), g / 3, to3);
    if (g % 16 == 0) {
        vstore16(intel_convert_bfloat1616_as_ushort16(vload16(g / 16, in)), g / 16, to16);
        vstore16(intel_convert_as_bfloat1616_float16(vload16(g / 16, bits)), g / 16, from16);
    }
}";

/// Ties (to even, either way), the largest float (which rounds to an
/// infinity), infinities, NaNs whose payload is only in the dropped half,
/// denormals, then random bits.
fn inputs() -> Vec<f32> {
    let special: [u32; 16] = [
        0x0000_0000,
        0x8000_0000,
        0x3f80_0000,
        0x3f80_8000,
        0x3f81_8000,
        0x3f80_8001,
        0x7f7f_ffff,
        0x7f80_0000,
        0xff80_0000,
        0x7f80_0001,
        0xffc0_0000,
        0x0000_0001,
        0x0000_8000,
        0x0001_8000,
        0xc2f7_7fff,
        0x4049_0fdb,
    ];
    let mut v: Vec<f32> = special.iter().map(|&b| f32::from_bits(b)).collect();
    v.extend((0..1024u32 - 16).map(|k| f32::from_bits(k.wrapping_mul(2654435761) ^ (k << 7))));
    v
}

/// Every bfloat16 bit pattern is a float; the first 1024 of a spread.
fn bit_inputs() -> Vec<u16> {
    (0..1024u32)
        .map(|k| (k.wrapping_mul(40503) >> 3) as u16)
        .collect()
}

fn same_float(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits()
}

#[test]
fn opencl_c_conversions_round_to_nearest_even_and_widen_exactly() {
    let env = Env::new();
    let (_p, k) = env.kernel(KERNEL, "k");
    let (x, bits) = (inputs(), bit_inputs());
    let n = x.len();
    let input = env.buffer_from(&x);
    let bits_in = env.buffer_from(&bits);
    let outs: Vec<Mem> = (0..3)
        .map(|_| env.buffer_from(&vec![0xdeadu16; n]))
        .collect();
    let from1 = env.buffer_from(&vec![0f32; n]);
    let from16 = env.buffer_from(&vec![0f32; n]);
    let args: Vec<&Mem> = [&input, &bits_in]
        .into_iter()
        .chain(outs.iter())
        .chain([&from1, &from16])
        .collect();
    env.run_with(&k, &args, &[n], None);
    let want: Vec<u16> = x.iter().map(|&f| bf16::from_f32(f).to_bits()).collect();
    for (out, what) in outs.iter().zip(["scalar", "vector of 3", "vector of 16"]) {
        let got: Vec<u16> = env.read(out, 0, n);
        // The vector of 3 covers whole triples only.
        let covered = if what == "vector of 3" { n / 3 * 3 } else { n };
        for i in 0..covered {
            assert_eq!(
                got[i],
                want[i],
                "{what}: element {i}, {:#010x}",
                x[i].to_bits()
            );
        }
    }
    for from in [&from1, &from16] {
        let got: Vec<f32> = env.read(from, 0, n);
        for (i, &b) in bits.iter().enumerate() {
            let want = bf16::from_bits(b).to_f32();
            assert!(
                same_float(got[i], want),
                "bits {b:#06x}: {} for {want}",
                got[i]
            );
        }
    }
}

/// Declared here: clang-15 has no declarations of its own; llvm-spirv-15
/// makes the calls SPV_INTEL_bfloat16_conversion's instructions.
const TRANSLATED: &str = "
ushort __attribute__((overloadable)) intel_convert_bfloat16_as_ushort(float);
float __attribute__((overloadable)) intel_convert_as_bfloat16_float(ushort);
ushort2 __attribute__((overloadable)) intel_convert_bfloat162_as_ushort2(float2);
kernel void k(global const float *in, global ushort *to, global float *back,
              global const float2 *in2, global ushort2 *to2) {
    size_t g = get_global_id(0);
    ushort b = intel_convert_bfloat16_as_ushort(in[g]);
    to[g] = b;
    back[g] = intel_convert_as_bfloat16_float(b);
    to2[g] = intel_convert_bfloat162_as_ushort2(in2[g]);
}";

const EXTENSION: &str = "--spirv-ext=+SPV_INTEL_bfloat16_conversion";

#[test]
fn spirv_conversions_round_as_opencl_c_does() {
    let env = Env::new();
    let il = spirv_from_translator(TRANSLATED, "-O0", &[EXTENSION]);
    let words = || {
        il.chunks_exact(4)
            .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
    };
    // OpConvertFToBF16INTEL and OpConvertBF16ToFINTEL are in it.
    for op in [6116, 6117] {
        assert!(words().any(|w| w & 0xffff == op), "no opcode {op}");
    }
    let (_p, k) = il_kernel(&env, &il, "k");
    let x = inputs();
    let n = x.len();
    let input = env.buffer_from(&x);
    let to = env.buffer_from(&vec![0u16; n]);
    let back = env.buffer_from(&vec![0f32; n]);
    let to2 = env.buffer_from(&vec![0u16; n]);
    env.run_with(&k, &[&input, &to, &back, &input, &to2], &[n / 2], None);
    let (got, got2): (Vec<u16>, Vec<u16>) = (env.read(&to, 0, n / 2), env.read(&to2, 0, n));
    let got_back: Vec<f32> = env.read(&back, 0, n / 2);
    for i in 0..n / 2 {
        let want = bf16::from_f32(x[i]);
        assert_eq!(
            got[i],
            want.to_bits(),
            "element {i}, {:#010x}",
            x[i].to_bits()
        );
        assert!(
            same_float(got_back[i], want.to_f32()),
            "element {i}: back {}",
            got_back[i]
        );
    }
    for i in 0..n {
        assert_eq!(got2[i], bf16::from_f32(x[i]).to_bits(), "pair element {i}");
    }
}

#[test]
fn the_extensions_are_reported() {
    let exts = device_extensions();
    assert!(
        exts.iter().any(|e| e == "cl_intel_bfloat16_conversions"),
        "{exts:?}"
    );
    let spirv = spirv_strings(CL_DEVICE_SPIRV_EXTENSIONS_KHR);
    assert!(
        spirv.iter().any(|e| e == "SPV_INTEL_bfloat16_conversion"),
        "{spirv:?}"
    );
    let caps: Vec<u32> = ok(
        device_info(device(), CL_DEVICE_SPIRV_CAPABILITIES_KHR),
        "capabilities",
    )
    .0
    .chunks_exact(4)
    .map(|c| u32::from_ne_bytes(c.try_into().unwrap()))
    .collect();
    // BFloat16ConversionINTEL.
    assert!(caps.contains(&6115), "{caps:?}");
}
