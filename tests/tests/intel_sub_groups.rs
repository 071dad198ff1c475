//! Intel's sub-groups (`cl_intel_subgroups`, its char, short and long
//! types, `cl_intel_subgroup_local_block_io`, and SPV_INTEL_subgroups in
//! SPIR-V as DPC++ writes it): shuffles of scalars and vectors, shuffles
//! down and up with the second value past the sub-group's ends, block reads
//! and writes of buffers, local memory and images (from SPIR-V too), each
//! against a host reference; the extensions and SPIR-V capabilities
//! reported.

use ferrocl_tests::*;

const WIDTH: usize = 8;
const GLOBAL: usize = 64;
const LOCAL: usize = 32;

const KERNEL: &str = "
__attribute__((intel_reqd_sub_group_size(8)))
kernel void k(global const uint *in, global uint *out, global float *fout,
              global uint *blocks, local uint *scratch) {
    uint g = get_global_id(0), lid = get_sub_group_local_id();
    uint start = g - lid, local_start = get_local_id(0) - lid;
    uint v = in[g];
    global uint *o = out + 8 * g;
    o[0] = intel_sub_group_shuffle(v, (lid + 3) % 8);
    o[1] = intel_sub_group_shuffle_xor(v, 5u);
    o[2] = intel_sub_group_shuffle_down(v, v + 1000, 3u);
    o[3] = intel_sub_group_shuffle_up(v + 1000, v, 2u);
    uint2 b = intel_sub_group_block_read2(in + start);
    o[4] = b.x;
    o[5] = b.y;
    o[6] = intel_sub_group_block_read_us((global const ushort *)in + start);
    intel_sub_group_block_write2(scratch + 2 * local_start, (uint2)(v, 3 * v));
    barrier(CLK_LOCAL_MEM_FENCE);
    o[7] = intel_sub_group_block_read(scratch + 2 * local_start + 8);
    float4 f = (float4)((float)v, (float)v * 0.5f, -(float)v, (float)lid);
    vstore4(intel_sub_group_shuffle(f, 7 - lid), g, fout);
    intel_sub_group_block_write4(blocks + 4 * start, (uint4)(v, v + 1, v + 2, v + 3));
    ulong l = intel_sub_group_shuffle_down((ulong)v << 33, (ulong)lid, 1u);
    intel_sub_group_block_write_ul((global ulong *)(blocks + 4 * GLOBAL) + start, l);
}";

/// The input: twice the work-items, as the last sub-group's block read of
/// two rows reads past its own.
fn input() -> Vec<u32> {
    (0..2 * GLOBAL as u32)
        .map(|k| k.wrapping_mul(2654435761) >> 8)
        .collect()
}

/// What `KERNEL` computes: `out`, `fout`, `blocks`.
fn reference() -> (Vec<u32>, Vec<f32>, Vec<u32>) {
    let x = input();
    let mut out = vec![0u32; 8 * GLOBAL];
    let mut fout = vec![0f32; 4 * GLOBAL];
    let mut blocks = vec![0u32; 4 * GLOBAL + 2 * GLOBAL];
    for g in 0..GLOBAL {
        let (lid, start) = (g % WIDTH, g - g % WIDTH);
        let lane = |l: usize| x[start + l];
        let o = &mut out[8 * g..8 * g + 8];
        o[0] = lane((lid + 3) % 8);
        o[1] = lane(lid ^ 5);
        o[2] = if lid + 3 < 8 {
            lane(lid + 3)
        } else {
            lane(lid + 3 - 8) + 1000
        };
        o[3] = if lid >= 2 {
            lane(lid - 2)
        } else {
            lane(lid + 8 - 2) + 1000
        };
        o[4] = x[start + lid];
        o[5] = x[start + 8 + lid];
        let halves: Vec<u16> = x
            .iter()
            .flat_map(|v| [*v as u16, (*v >> 16) as u16])
            .collect();
        o[6] = halves[start + lid] as u32;
        o[7] = 3 * lane(lid);
        let from = 7 - lid;
        let v = lane(from) as f32;
        fout[4 * g..4 * g + 4].copy_from_slice(&[v, v * 0.5, -v, from as f32]);
        for k in 0..4 {
            blocks[4 * start + k * 8 + lid] = x[g] + k as u32;
        }
        let l = if lid + 1 < 8 {
            (lane(lid + 1) as u64) << 33
        } else {
            0
        };
        blocks[4 * GLOBAL + 2 * g] = l as u32;
        blocks[4 * GLOBAL + 2 * g + 1] = (l >> 32) as u32;
    }
    (out, fout, blocks)
}

#[test]
fn intel_shuffles_and_block_reads_and_writes_compute_what_the_host_does() {
    let env = Env::new();
    let (_p, k) = env.kernel_opts(KERNEL, "k", &format!("-DGLOBAL={GLOBAL}"));
    let bin = env.buffer_from(&input());
    let out = env.buffer_from(&vec![0u32; 8 * GLOBAL]);
    let fout = env.buffer_from(&vec![0f32; 4 * GLOBAL]);
    let blocks = env.buffer_from(&vec![0u32; 6 * GLOBAL]);
    ok(set_local(k.get(), 4, 4 * 2 * LOCAL), "scratch");
    env.run_with(&k, &[&bin, &out, &fout, &blocks], &[GLOBAL], Some(&[LOCAL]));
    let (want, fwant, bwant) = reference();
    let got: Vec<u32> = env.read(&out, 0, 8 * GLOBAL);
    for g in 0..GLOBAL {
        for i in 0..8 {
            assert_eq!(got[8 * g + i], want[8 * g + i], "work-item {g}, result {i}");
        }
    }
    assert_eq!(
        env.read::<f32>(&fout, 0, 4 * GLOBAL),
        fwant,
        "float4 shuffle"
    );
    assert_eq!(
        env.read::<u32>(&blocks, 0, 6 * GLOBAL),
        bwant,
        "block writes"
    );
}

/// A 2D image of unsigned 8-bit channels in `order`, `width` x `height`,
/// holding `bytes`.
fn image_of_bytes(
    env: &Env,
    flags: cl_mem_flags,
    order: cl_channel_order,
    (width, height): (usize, usize),
    bytes: &[u8],
) -> Mem {
    let fmt = image_format(order, CL_UNSIGNED_INT8);
    let desc = image_desc(CL_MEM_OBJECT_IMAGE2D, width, height, 1, 0);
    let mut rc = 0;
    let im = cl!(clCreateImage(
        env.c(),
        flags | CL_MEM_COPY_HOST_PTR,
        &fmt,
        &desc,
        bytes.as_ptr() as *mut _,
        &mut rc
    ));
    check(rc, "clCreateImage");
    Mem(im)
}

/// A 16 x 3 RGBA8 image whose texel (x, y) holds bytes 4 * (16 * y + x)
/// + c, and those bytes.
fn counting_image(env: &Env) -> (Mem, Vec<u8>) {
    let bytes: Vec<u8> = (0..16 * 3 * 4).map(|b| b as u8).collect();
    let im = image_of_bytes(env, CL_MEM_READ_ONLY, CL_RGBA, (16, 3), &bytes);
    (im, bytes)
}

/// Runs `k(image, out)` over one sub-group of 16 and checks that lane g
/// read rows 1 and 2 of the counting image from texel g - 2, clamped.
fn check_image_block_read(env: &Env, k: &Kern) {
    let (im, bytes) = counting_image(env);
    let out = env.buffer_from(&vec![0u32; 2 * 16]);
    ok(set_mem(k.get(), 0, &im), "image");
    ok(set_mem(k.get(), 1, &out), "out");
    env.run(k, &[16], Some(&[16]));
    let got: Vec<u32> = env.read(&out, 0, 32);
    let texel = |x: i64, y: usize| {
        let x = x.clamp(0, 15) as usize;
        u32::from_le_bytes(bytes[4 * (16 * y + x)..][..4].try_into().unwrap())
    };
    for g in 0..16i64 {
        assert_eq!(got[2 * g as usize], texel(g - 2, 1), "lane {g}, row 1");
        assert_eq!(got[2 * g as usize + 1], texel(g - 2, 2), "lane {g}, row 2");
    }
}

#[test]
fn an_image_block_read_takes_bytes_as_they_are_and_clamps_at_the_edges() {
    let env = Env::new();
    let src = "
__attribute__((intel_reqd_sub_group_size(16)))
kernel void k(read_only image2d_t im, global uint *out) {
    uint g = get_global_id(0), lid = get_sub_group_local_id();
    // Columns 4 bytes a lane from byte 4 * (g - lid) - 8; rows 1 and 2.
    int2 at = (int2)(4 * (int)(g - lid) - 8, 1);
    uint2 v = intel_sub_group_block_read2(im, at);
    out[2 * g] = v.x;
    out[2 * g + 1] = v.y;
}";
    let (_p, k) = env.kernel(src, "k");
    check_image_block_read(&env, &k);
}

#[test]
fn a_block_of_an_image_narrower_than_an_element_reads_zero_and_writes_nothing() {
    let env = Env::new();
    let src = "
__attribute__((intel_reqd_sub_group_size(8)))
kernel void k(read_only image2d_t in, write_only image2d_t out, global uint *r) {
    r[get_global_id(0)] = intel_sub_group_block_read(in, (int2)(0, 0));
    intel_sub_group_block_write(out, (int2)(0, 0), 0xdeadbeefu);
}";
    let (_p, k) = env.kernel(src, "k");
    // One byte a row: less than the uint each lane reads.
    let bytes = [7u8, 9];
    let image = |flags| image_of_bytes(&env, flags, CL_R, (1, 2), &bytes);
    let (input, output) = (image(CL_MEM_READ_ONLY), image(CL_MEM_WRITE_ONLY));
    let r = env.buffer_from(&[1u32; 8]);
    ok(set_mem(k.get(), 0, &input), "in");
    ok(set_mem(k.get(), 1, &output), "out");
    ok(set_mem(k.get(), 2, &r), "r");
    env.run(&k, &[8], Some(&[8]));
    assert_eq!(env.read::<u32>(&r, 0, 8), [0u32; 8]);
    let mut back = [0u8; 2];
    let (origin, region) = ([0usize; 3], [1usize, 2, 1]);
    check(
        cl!(clEnqueueReadImage(
            env.q(),
            output.get(),
            CL_TRUE,
            origin.as_ptr(),
            region.as_ptr(),
            0,
            0,
            back.as_mut_ptr().cast(),
            0,
            std::ptr::null(),
            std::ptr::null_mut()
        )),
        "clEnqueueReadImage",
    );
    assert_eq!(back, bytes, "the write was dropped");
}

#[test]
fn a_spirv_image_block_read_does_what_the_opencl_c_one_does() {
    let env = Env::new();
    let il = spirv_from_asm(
        "
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpCapability ImageBasic
               OpCapability SubgroupImageBlockIOINTEL
               OpExtension \"SPV_INTEL_subgroups\"
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k \"k\" %gid
               OpExecutionMode %k SubgroupSize 16
               OpDecorate %gid BuiltIn GlobalInvocationId
      %ulong = OpTypeInt 64 0
       %uint = OpTypeInt 32 0
       %void = OpTypeVoid
    %v3ulong = OpTypeVector %ulong 3
     %v2uint = OpTypeVector %uint 2
     %uint_1 = OpConstant %uint 1
     %minus8 = OpConstant %uint 0xfffffff8
      %image = OpTypeImage %void 2D 0 0 0 0 Unknown ReadOnly
   %ptr_in3 = OpTypePointer Input %v3ulong
   %ptr_uint = OpTypePointer CrossWorkgroup %uint
       %fnty = OpTypeFunction %void %image %ptr_uint
        %gid = OpVariable %ptr_in3 Input
          %k = OpFunction %void None %fnty
         %im = OpFunctionParameter %image
        %out = OpFunctionParameter %ptr_uint
      %entry = OpLabel
         %g3 = OpLoad %v3ulong %gid
          %g = OpCompositeExtract %ulong %g3 0
      %coord = OpCompositeConstruct %v2uint %minus8 %uint_1
          %v = OpSubgroupImageBlockReadINTEL %v2uint %im %coord
         %v0 = OpCompositeExtract %uint %v 0
         %v1 = OpCompositeExtract %uint %v 1
        %g2 = OpShiftLeftLogical %ulong %g %uint_1
        %p0 = OpInBoundsPtrAccessChain %ptr_uint %out %g2
              OpStore %p0 %v0
        %p1 = OpInBoundsPtrAccessChain %ptr_uint %p0 %uint_1
              OpStore %p1 %v1
              OpReturn
              OpFunctionEnd
",
        "1.4",
    );
    let (_p, k) = il_kernel(&env, &il, "k");
    check_image_block_read(&env, &k);
}

/// A kernel in the shape DPC++ writes: an Intel shuffle down, a block
/// read, loads and stores naming alias scopes, a fast-math multiply.
const MODULE: &str = "
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpCapability SubgroupShuffleINTEL
               OpCapability SubgroupBufferBlockIOINTEL
               OpCapability MemoryAccessAliasingINTEL
               OpCapability FPFastMathModeINTEL
               OpExtension \"SPV_INTEL_subgroups\"
               OpExtension \"SPV_INTEL_memory_access_aliasing\"
               OpExtension \"SPV_INTEL_fp_fast_math_mode\"
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k \"k\" %gid %lid
               OpExecutionMode %k SubgroupSize 8
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %lid BuiltIn SubgroupLocalInvocationId
               OpDecorate %scaled FPFastMathMode AllowContractFastINTEL|AllowReassocINTEL
      %ulong = OpTypeInt 64 0
       %uint = OpTypeInt 32 0
      %float = OpTypeFloat 32
       %void = OpTypeVoid
    %v3ulong = OpTypeVector %ulong 3
     %v2uint = OpTypeVector %uint 2
     %uint_1 = OpConstant %uint 1
      %three = OpConstant %float 3
   %ptr_in3 = OpTypePointer Input %v3ulong
    %ptr_in = OpTypePointer Input %uint
   %ptr_uint = OpTypePointer CrossWorkgroup %uint
  %ptr_float = OpTypePointer CrossWorkgroup %float
       %fnty = OpTypeFunction %void %ptr_uint %ptr_float %ptr_uint
        %gid = OpVariable %ptr_in3 Input
        %lid = OpVariable %ptr_in Input
     %domain = OpAliasDomainDeclINTEL
      %scope = OpAliasScopeDeclINTEL %domain
       %list = OpAliasScopeListDeclINTEL %scope
          %k = OpFunction %void None %fnty
         %in = OpFunctionParameter %ptr_uint
       %fout = OpFunctionParameter %ptr_float
        %out = OpFunctionParameter %ptr_uint
      %entry = OpLabel
         %g3 = OpLoad %v3ulong %gid
          %g = OpCompositeExtract %ulong %g3 0
          %l = OpLoad %uint %lid
         %l8 = OpUConvert %ulong %l
      %start = OpISub %ulong %g %l8
        %pin = OpInBoundsPtrAccessChain %ptr_uint %in %g
          %v = OpLoad %uint %pin Aligned|NoAliasINTELMask 4 %list
       %next = OpIAdd %uint %v %uint_1
       %down = OpSubgroupShuffleDownINTEL %uint %v %next %uint_1
      %pbase = OpInBoundsPtrAccessChain %ptr_uint %in %start
      %block = OpSubgroupBlockReadINTEL %v2uint %pbase
         %b1 = OpCompositeExtract %uint %block 1
        %sum = OpIAdd %uint %down %b1
       %pout = OpInBoundsPtrAccessChain %ptr_uint %out %g
               OpStore %pout %sum Aligned|NoAliasINTELMask 4 %list
         %vf = OpConvertUToF %float %v
     %scaled = OpFMul %float %vf %three
      %pfout = OpInBoundsPtrAccessChain %ptr_float %fout %g
               OpStore %pfout %scaled Aligned 4
               OpReturn
               OpFunctionEnd
";

#[test]
fn a_dpcpp_shaped_module_of_intel_extensions_runs() {
    let env = Env::new();
    let il = spirv_from_asm(MODULE, "1.4");
    let (_p, k) = il_kernel(&env, &il, "k");
    let x: Vec<u32> = (0..2 * GLOBAL as u32).map(|k| k * 7 + 1).collect();
    let bin = env.buffer_from(&x);
    let fout = env.buffer_from(&vec![0f32; GLOBAL]);
    let out = env.buffer_from(&vec![0u32; GLOBAL]);
    env.run_with(&k, &[&bin, &fout, &out], &[GLOBAL], Some(&[LOCAL]));
    let got: Vec<u32> = env.read(&out, 0, GLOBAL);
    let fgot: Vec<f32> = env.read(&fout, 0, GLOBAL);
    for g in 0..GLOBAL {
        let (lid, start) = (g % WIDTH, g - g % WIDTH);
        let down = if lid + 1 < WIDTH {
            x[g + 1]
        } else {
            x[start] + 1
        };
        let block = x[start + WIDTH + lid];
        assert_eq!(got[g], down + block, "work-item {g}");
        assert_eq!(fgot[g], x[g] as f32 * 3.0, "work-item {g}");
    }
}

#[test]
fn the_intel_extensions_and_capabilities_are_reported() {
    let ext = device_info(device(), CL_DEVICE_EXTENSIONS)
        .unwrap()
        .string();
    let names = ext_names(&ext);
    for want in [
        "cl_intel_subgroups",
        "cl_intel_subgroups_char",
        "cl_intel_subgroups_short",
        "cl_intel_subgroups_long",
        "cl_intel_subgroup_local_block_io",
        "cl_intel_spirv_subgroups",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} not in {ext}");
    }
    let spirv = spirv_strings(CL_DEVICE_SPIRV_EXTENSIONS_KHR);
    for want in [
        "SPV_INTEL_subgroups",
        "SPV_INTEL_memory_access_aliasing",
        "SPV_INTEL_fp_fast_math_mode",
    ] {
        assert!(spirv.iter().any(|s| s == want), "{want} not in {spirv:?}");
    }
}
