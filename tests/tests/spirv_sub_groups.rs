//! Sub-groups in SPIR-V programs: kernels made by Clang's SPIR-V back end
//! from OpenCL C that calls the sub-group functions (reduce, scan,
//! broadcast, ballot, shuffle, clustered and non-uniform operations), run
//! as their sources do and as a host reference says; modules by `spirv-as`
//! for what OpenCL C does not say (the mask built-ins, vectors and bools
//! in the non-uniform operations, rotations); the IL queries; the
//! refusal, naming the instruction, of non-uniform operations on
//! work-groups; and the other types (char, short, half, double, long,
//! vectors of three and of halves) bit for bit as from source.

use ferrocl_tests::*;
use std::ptr::null_mut;

/// `clGetKernelSubGroupInfo` answering one `size_t`.
fn sub_group_info(k: &Kern, name: cl_kernel_sub_group_info, input: &[usize]) -> usize {
    let mut v = 0usize;
    check(
        cl!(clGetKernelSubGroupInfo(
            k.get(),
            device(),
            name,
            std::mem::size_of_val(input),
            input.as_ptr().cast(),
            std::mem::size_of::<usize>(),
            (&mut v as *mut usize).cast(),
            null_mut()
        )),
        "clGetKernelSubGroupInfo",
    );
    v
}

/// The sub-groups of a one-dimensional work-group of `local` work-items
/// whose sub-group width is `width`: runs of `width` along x, the last
/// one shorter where `width` does not divide `local`.
fn sub_groups(local: usize, width: usize) -> Vec<std::ops::Range<usize>> {
    (0..local)
        .step_by(width)
        .map(|s| s..(s + width).min(local))
        .collect()
}

/// Sixteen integer and four float results per work-item, from sub-group
/// functions of every family (a lane a shuffle names that the sub-group
/// lacks gives 0); a work-group size whose last sub-group is short.
const KERNEL: &str = "
__kernel void sg(__global const int* x, __global const float* f, __global int* out, __global float* fout) {
    size_t g = get_global_id(0);
    int v = x[g];
    uint u = (uint)v;
    float w = f[g];
    uint lid = get_sub_group_local_id(), size = get_sub_group_size();
    __global int* o = out + 16 * g;
    o[0] = sub_group_reduce_add(v);
    o[1] = sub_group_scan_inclusive_min(v);
    o[2] = (int)sub_group_scan_exclusive_max(u);
    o[3] = sub_group_broadcast(v, 1);
    o[4] = sub_group_all(v > -1000) + 2 * sub_group_any(v > 1000);
    uint4 b = sub_group_ballot(v & 1);
    o[5] = (int)b.x;
    o[6] = (int)sub_group_ballot_bit_count(b);
    o[7] = (int)sub_group_ballot_exclusive_scan(b);
    int other = sub_group_shuffle(v, lid ^ 1);
    o[8] = (lid ^ 1) < size ? other : 0;
    int xor2 = sub_group_shuffle_xor(v, 2);
    o[9] = (lid ^ 2) < size ? xor2 : 0;
    int down = sub_group_shuffle_down(v, 1);
    o[10] = lid + 1 < size ? down : 0;
    o[11] = sub_group_non_uniform_reduce_xor(v);
    o[12] = sub_group_clustered_reduce_add(v, 4);
    o[13] = (int)sub_group_non_uniform_scan_inclusive_min(u);
    o[14] = (int)(get_sub_group_id() * 1000 + lid * 10 + size) + (int)get_num_sub_groups() * 100000;
    if (v & 1)
        o[15] = sub_group_non_uniform_reduce_add(v);
    else
        o[15] = sub_group_non_uniform_reduce_max(v);
    fout[4 * g] = sub_group_scan_exclusive_add(w);
    fout[4 * g + 1] = sub_group_reduce_max(w);
    fout[4 * g + 2] = sub_group_broadcast_first(w);
    float up = sub_group_shuffle_up(w, 1);
    fout[4 * g + 3] = lid > 0 ? up : 0.0f;
}";

const GLOBAL: usize = 232;
const LOCAL: usize = 58;

fn inputs() -> (Vec<i32>, Vec<f32>) {
    let x = (0..GLOBAL as i32)
        .map(|k| (k.wrapping_mul(2654435761u32 as i32) >> 20) - (k % 7) * 300)
        .collect();
    let f = (0..GLOBAL)
        .map(|k| ((k * 37 % 101) as f32 - 50.0) / 7.0)
        .collect();
    (x, f)
}

/// What `KERNEL` computes, sub-group by sub-group.
fn reference(width: usize) -> (Vec<i32>, Vec<f32>) {
    let (x, f) = inputs();
    let mut out = vec![0i32; 16 * GLOBAL];
    let mut fout = vec![0f32; 4 * GLOBAL];
    let groups = sub_groups(LOCAL, width);
    for wg in 0..GLOBAL / LOCAL {
        for (sid, r) in groups.iter().enumerate() {
            let base = wg * LOCAL;
            let lanes: Vec<usize> = r.clone().map(|l| base + l).collect();
            let size = lanes.len();
            let xs: Vec<i32> = lanes.iter().map(|&g| x[g]).collect();
            let fs: Vec<f32> = lanes.iter().map(|&g| f[g]).collect();
            let ballot = xs
                .iter()
                .enumerate()
                .filter(|(_, v)| *v & 1 != 0)
                .fold(0u64, |b, (i, _)| b | 1 << i);
            for (lid, &g) in lanes.iter().enumerate() {
                let o = &mut out[16 * g..16 * g + 16];
                let v = xs[lid];
                o[0] = xs.iter().fold(0i32, |a, &b| a.wrapping_add(b));
                o[1] = *xs[..=lid].iter().min().unwrap();
                o[2] = xs[..lid].iter().map(|&v| v as u32).max().unwrap_or(0) as i32;
                o[3] = xs[1.min(size - 1)];
                o[4] =
                    xs.iter().all(|&v| v > -1000) as i32 + 2 * xs.iter().any(|&v| v > 1000) as i32;
                o[5] = ballot as u32 as i32;
                o[6] = ballot.count_ones() as i32;
                o[7] = (ballot & ((1u64 << lid) - 1)).count_ones() as i32;
                o[8] = if lid ^ 1 < size { xs[lid ^ 1] } else { 0 };
                o[9] = if lid ^ 2 < size { xs[lid ^ 2] } else { 0 };
                o[10] = if lid + 1 < size { xs[lid + 1] } else { 0 };
                o[11] = xs.iter().fold(0, |a, &b| a ^ b);
                let c = lid / 4 * 4;
                o[12] = xs[c..(c + 4).min(size)]
                    .iter()
                    .fold(0i32, |a, &b| a.wrapping_add(b));
                o[13] = xs[..=lid].iter().map(|&v| v as u32).min().unwrap() as i32;
                let num = groups.len() as i32;
                o[14] = sid as i32 * 1000 + lid as i32 * 10 + size as i32 + num * 100000;
                // Lanes with odd values add theirs, the others take their max.
                let same: Vec<i32> = xs.iter().copied().filter(|&w| (w & 1) == (v & 1)).collect();
                o[15] = if v & 1 != 0 {
                    same.iter().fold(0i32, |a, &b| a.wrapping_add(b))
                } else {
                    *same.iter().max().unwrap()
                };
                let fo = &mut fout[4 * g..4 * g + 4];
                fo[0] = fs[..lid].iter().fold(0.0f32, |a, &b| a + b);
                fo[1] = fs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                fo[2] = fs[0];
                fo[3] = if lid > 0 { fs[lid - 1] } else { 0.0 };
            }
        }
    }
    (out, fout)
}

fn run_kernel(env: &Env, k: &Kern) -> (Vec<i32>, Vec<f32>) {
    let (x, f) = inputs();
    let (bx, bf) = (env.buffer_from(&x), env.buffer_from(&f));
    let out = env.buffer_from(&vec![-1i32; 16 * GLOBAL]);
    let fout = env.buffer_from(&vec![-1f32; 4 * GLOBAL]);
    env.run_with(k, &[&bx, &bf, &out, &fout], &[GLOBAL], Some(&[LOCAL]));
    (
        env.read(&out, 0, 16 * GLOBAL),
        env.read(&fout, 0, 4 * GLOBAL),
    )
}

#[test]
fn a_clang_module_of_sub_group_functions_computes_what_its_source_and_the_host_do() {
    let env = Env::new();
    let il = spirv_from_cl(KERNEL);
    let from_il = il_kernel(&env, &il, "sg");
    let from_source = env.kernel_opts(KERNEL, "sg", "-cl-std=CL3.0");
    let width = sub_group_info(
        &from_il.1,
        CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
        &[LOCAL],
    );
    // The last sub-group of each work-group is short.
    assert!(
        width >= 4 && LOCAL % width != 0,
        "a sub-group width of {width}"
    );
    assert_eq!(
        width,
        sub_group_info(
            &from_source.1,
            CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
            &[LOCAL]
        )
    );
    let (want, fwant) = reference(width);
    for (what, (_p, k)) in [("SPIR-V", &from_il), ("source", &from_source)] {
        let (out, fout) = run_kernel(&env, k);
        for g in 0..GLOBAL {
            for i in 0..16 {
                assert_eq!(
                    out[16 * g + i],
                    want[16 * g + i],
                    "{what}: work-item {g}, result {i} (sub-group width {width})"
                );
            }
            for i in 0..4 {
                // Each lane adds in lane order, as the reference does.
                assert_eq!(
                    fout[4 * g + i].to_bits(),
                    fwant[4 * g + i].to_bits(),
                    "{what}: work-item {g}, float result {i}: {} for {}",
                    fout[4 * g + i],
                    fwant[4 * g + i]
                );
            }
        }
    }
}

/// What OpenCL C does not say: the masks' built-ins, vectors shuffled,
/// reduced and broadcast as their components are, bools voted and
/// combined, ballots, rotations, and the Groups instructions at Subgroup
/// scope. Each work-item writes the values `ASM_RESULTS` names.
const ASM_HEAD: &str = "
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpCapability Groups
               OpCapability GroupNonUniform
               OpCapability GroupNonUniformVote
               OpCapability GroupNonUniformArithmetic
               OpCapability GroupNonUniformBallot
               OpCapability GroupNonUniformShuffle
               OpCapability GroupNonUniformShuffleRelative
               OpCapability GroupNonUniformClustered
               OpCapability GroupNonUniformRotateKHR
               OpExtension \"SPV_KHR_subgroup_rotate\"
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k \"k\" %gid %lid %eq %lt %ge
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %lid BuiltIn SubgroupLocalInvocationId
               OpDecorate %eq BuiltIn SubgroupEqMask
               OpDecorate %lt BuiltIn SubgroupLtMask
               OpDecorate %ge BuiltIn SubgroupGeMask
       %void = OpTypeVoid
       %bool = OpTypeBool
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
     %v2uint = OpTypeVector %uint 2
     %v4uint = OpTypeVector %uint 4
    %v3ulong = OpTypeVector %ulong 3
     %v2bool = OpTypeVector %bool 2
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
     %uint_2 = OpConstant %uint 2
        %sub = OpConstant %uint 3
     %uint_4 = OpConstant %uint 4
       %one2 = OpConstantComposite %v2uint %uint_1 %uint_1
      %zero2 = OpConstantComposite %v2uint %uint_0 %uint_0
    %in_uint = OpTypePointer Input %uint
  %in_v4uint = OpTypePointer Input %v4uint
 %in_v3ulong = OpTypePointer Input %v3ulong
   %ptr_uint = OpTypePointer CrossWorkgroup %uint
 %ptr_v2uint = OpTypePointer CrossWorkgroup %v2uint
        %gid = OpVariable %in_v3ulong Input
        %lid = OpVariable %in_uint Input
         %eq = OpVariable %in_v4uint Input
         %lt = OpVariable %in_v4uint Input
         %ge = OpVariable %in_v4uint Input
       %fnty = OpTypeFunction %void %ptr_v2uint %ptr_uint
";

const ASM_BODY: &str = "
          %k = OpFunction %void None %fnty
         %in = OpFunctionParameter %ptr_v2uint
        %out = OpFunctionParameter %ptr_uint
      %entry = OpLabel
       %gid3 = OpLoad %v3ulong %gid
          %g = OpCompositeExtract %ulong %gid3 0
         %ip = OpInBoundsPtrAccessChain %ptr_v2uint %in %g
          %v = OpLoad %v2uint %ip
         %v0 = OpCompositeExtract %uint %v 0
          %l = OpLoad %uint %lid
        %eqm = OpLoad %v4uint %eq
        %ltm = OpLoad %v4uint %lt
        %gem = OpLoad %v4uint %ge
       %base = OpIMul %ulong %g %count
         %r0 = OpGroupNonUniformShuffleXor %v2uint %sub %v %uint_1
         %r1 = OpGroupNonUniformIAdd %v2uint %sub Reduce %v
         %r2 = OpGroupNonUniformBroadcast %v2uint %sub %v %uint_2
         %r3 = OpGroupNonUniformUMax %v2uint %sub ClusteredReduce %v %uint_4
        %odd = OpBitwiseAnd %v2uint %v %one2
         %pb = OpINotEqual %v2bool %odd %zero2
         %r4 = OpGroupNonUniformLogicalOr %v2bool %sub InclusiveScan %pb
        %r4u = OpSelect %v2uint %r4 %one2 %zero2
         %r5 = OpGroupNonUniformRotateKHR %uint %sub %v0 %uint_1
         %r6 = OpGroupNonUniformRotateKHR %uint %sub %v0 %uint_1 %uint_4
         %r7 = OpGroupNonUniformAllEqual %bool %sub %pb
        %r7u = OpSelect %uint %r7 %uint_1 %uint_0
         %r8 = OpGroupSMax %uint %sub InclusiveScan %v0
         %r9 = OpGroupBroadcast %v2uint %sub %v %uint_0
         %p0 = OpCompositeExtract %bool %pb 0
        %r10 = OpGroupAny %bool %sub %p0
       %r10u = OpSelect %uint %r10 %uint_1 %uint_0
         %bb = OpGroupNonUniformBallot %v4uint %sub %p0
        %r11 = OpGroupNonUniformBallotFindLSB %uint %sub %bb
        %r12 = OpGroupNonUniformBallotFindMSB %uint %sub %bb
        %r13 = OpGroupNonUniformInverseBallot %bool %sub %bb
       %r13u = OpSelect %uint %r13 %uint_1 %uint_0
        %lx1 = OpBitwiseXor %uint %l %uint_1
        %r14 = OpGroupNonUniformBallotBitExtract %bool %sub %bb %lx1
       %r14u = OpSelect %uint %r14 %uint_1 %uint_0
        %r15 = OpGroupNonUniformBroadcastFirst %uint %sub %v0
        %r16 = OpGroupNonUniformElect %bool %sub
       %r16u = OpSelect %uint %r16 %uint_1 %uint_0
        %r17 = OpGroupNonUniformBallotBitCount %uint %sub InclusiveScan %bb
";

/// The values each work-item writes: an id, or a vector's component.
const ASM_RESULTS: &[&str] = &[
    "r0.0", "r0.1", "r1.0", "r1.1", "r2.0", "r2.1", "r3.0", "r3.1", "r4u.0", "r4u.1", "r5", "r6",
    "r7u", "r8", "r9.0", "r9.1", "r10u", "eqm.0", "ltm.0", "gem.0", "gem.2", "l", "r11", "r12",
    "r13u", "r14u", "r15", "r16u", "r17",
];

/// The module: `ASM_HEAD`, `ASM_BODY`, then a store of each result.
fn asm_module() -> String {
    let n = ASM_RESULTS.len();
    let mut text = ASM_HEAD.to_string();
    text += &format!("%count = OpConstant %ulong {n}\n");
    for k in 0..n {
        text += &format!("%ulong_{k} = OpConstant %ulong {k}\n");
    }
    text += ASM_BODY;
    for (k, r) in ASM_RESULTS.iter().enumerate() {
        let id = match r.split_once('.') {
            Some((v, c)) => {
                text += &format!("%part{k} = OpCompositeExtract %uint %{v} {c}\n");
                format!("part{k}")
            }
            None => r.to_string(),
        };
        text += &format!(
            "%offset{k} = OpIAdd %ulong %base %ulong_{k}\n\
             %dst{k} = OpInBoundsPtrAccessChain %ptr_uint %out %offset{k}\n\
             OpStore %dst{k} %{id}\n"
        );
    }
    text + "OpReturn\nOpFunctionEnd\n"
}

const ASM_GLOBAL: usize = 256;
const ASM_LOCAL: usize = 64;

/// Two words per work-item; every fourth work-item's first word odd, so
/// that every sub-group's ballot has a lane.
fn asm_inputs() -> Vec<[u32; 2]> {
    (0..ASM_GLOBAL as u32)
        .map(|g| {
            let a = g.wrapping_mul(2654435761) >> 7;
            let b = g.wrapping_mul(40503) ^ 0x5555;
            [if g % 4 == 3 { a | 1 } else { a }, b]
        })
        .collect()
}

fn asm_reference(width: usize) -> Vec<u32> {
    let input = asm_inputs();
    let n = ASM_RESULTS.len();
    let mut out = vec![0u32; n * ASM_GLOBAL];
    for start in (0..ASM_GLOBAL).step_by(width) {
        let v = &input[start..start + width];
        let odd = |l: usize, c: usize| v[l][c] & 1 != 0;
        let ballot: u64 = (0..width).filter(|&l| odd(l, 0)).fold(0, |b, l| b | 1 << l);
        for lid in 0..width {
            let c4 = lid / 4 * 4;
            let comp = |c: usize| -> [u32; 4] {
                [
                    v[lid ^ 1][c],
                    v.iter().fold(0u32, |a, w| a.wrapping_add(w[c])),
                    v[2][c],
                    v[c4..c4 + 4].iter().map(|w| w[c]).max().unwrap(),
                ]
            };
            let (x, y) = (comp(0), comp(1));
            let scan_or = |c: usize| (0..=lid).any(|l| odd(l, c)) as u32;
            let all_equal = (0..2).all(|c| (0..width).all(|l| odd(l, c) == odd(0, c)));
            let ge = ((1u64 << width) - 1) & !((1u64 << lid) - 1);
            let r = [
                x[0],
                y[0],
                x[1],
                y[1],
                x[2],
                y[2],
                x[3],
                y[3],
                scan_or(0),
                scan_or(1),
                v[(lid + 1) % width][0],
                v[c4 + (lid + 1) % 4][0],
                all_equal as u32,
                (0..=lid).map(|l| v[l][0] as i32).max().unwrap() as u32,
                v[0][0],
                v[0][1],
                (0..width).any(|l| odd(l, 0)) as u32,
                1 << lid,
                (1u32 << lid) - 1,
                ge as u32,
                0,
                lid as u32,
                ballot.trailing_zeros(),
                63 - ballot.leading_zeros(),
                odd(lid, 0) as u32,
                odd(lid ^ 1, 0) as u32,
                v[0][0],
                (lid == 0) as u32,
                (ballot & ((2u64 << lid) - 1)).count_ones(),
            ];
            let g = start + lid;
            out[n * g..n * g + n].copy_from_slice(&r);
        }
    }
    out
}

#[test]
fn a_module_of_non_uniform_instructions_computes_what_the_host_does() {
    let env = Env::new();
    let il = spirv_from_asm(&asm_module(), "1.3");
    let (_p, k) = il_kernel(&env, &il, "k");
    let width = sub_group_info(&k, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, &[ASM_LOCAL]);
    assert!(
        width >= 4 && width <= 32 && ASM_LOCAL % width == 0,
        "a sub-group width of {width}"
    );
    let n = ASM_RESULTS.len();
    let input = env.buffer_from(&asm_inputs());
    let out = env.buffer_from(&vec![u32::MAX; n * ASM_GLOBAL]);
    env.run_with(&k, &[&input, &out], &[ASM_GLOBAL], Some(&[ASM_LOCAL]));
    let got: Vec<u32> = env.read(&out, 0, n * ASM_GLOBAL);
    let want = asm_reference(width);
    for g in 0..ASM_GLOBAL {
        for (i, what) in ASM_RESULTS.iter().enumerate() {
            assert_eq!(
                got[n * g + i],
                want[n * g + i],
                "work-item {g}: %{what} (sub-group width {width})"
            );
        }
    }
}

/// The Khronos CTS's `spirv15_non_uniform_broadcast`: a broadcast from a
/// lane given by a value, one sub-group per work-group.
#[test]
fn a_non_uniform_broadcast_takes_a_lane_computed_at_run_time() {
    let text = "
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpCapability GroupNonUniformBallot
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k \"k\" %gid %wgid
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %wgid BuiltIn WorkgroupId
       %uint = OpTypeInt 32 0
        %sub = OpConstant %uint 3
      %ulong = OpTypeInt 64 0
    %v3ulong = OpTypeVector %ulong 3
       %void = OpTypeVoid
 %in_v3ulong = OpTypePointer Input %v3ulong
   %ptr_uint = OpTypePointer CrossWorkgroup %uint
       %fnty = OpTypeFunction %void %ptr_uint
        %gid = OpVariable %in_v3ulong Input
       %wgid = OpVariable %in_v3ulong Input
          %k = OpFunction %void None %fnty
        %dst = OpFunctionParameter %ptr_uint
      %entry = OpLabel
         %g3 = OpLoad %v3ulong %gid
          %g = OpCompositeExtract %ulong %g3 0
         %id = OpUConvert %uint %g
         %w3 = OpLoad %v3ulong %wgid
          %w = OpCompositeExtract %ulong %w3 0
      %index = OpUConvert %uint %w
      %value = OpGroupNonUniformBroadcast %uint %sub %id %index
          %p = OpInBoundsPtrAccessChain %ptr_uint %dst %g
               OpStore %p %value
               OpReturn
               OpFunctionEnd
";
    let env = Env::new();
    let (_p, k) = il_kernel(&env, &spirv_from_asm(text, "1.5"), "k");
    let local = sub_group_info(&k, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, &[1]);
    assert!(local >= 1, "{local}");
    let groups = local.min(4);
    let global = groups * local;
    let dst = env.buffer_from(&vec![0u32; global]);
    env.run_with(&k, &[&dst], &[global], Some(&[local]));
    let got: Vec<u32> = env.read(&dst, 0, global);
    for (i, v) in got.iter().enumerate() {
        let g = i / local;
        assert_eq!(*v as usize, g * local + g, "work-item {i}");
    }
}

#[test]
fn non_uniform_instructions_on_work_groups_fail_the_build_naming_the_instruction() {
    let env = Env::new();
    let text = asm_module().replace(
        "%r1 = OpGroupNonUniformIAdd %v2uint %sub Reduce %v",
        "%wg = OpCopyObject %uint %uint_2\n%r1 = OpGroupNonUniformIAdd %v2uint %uint_2 Reduce %v",
    );
    let f = match il_program(&env, &spirv_from_asm(&text, "1.3"), "") {
        Ok(_) => panic!("a work-group's non-uniform addition built"),
        Err(f) => f,
    };
    assert_code(f.code, CL_BUILD_PROGRAM_FAILURE, "clBuildProgram");
    assert!(
        f.log.contains("OpGroupNonUniformIAdd") && f.log.contains("Workgroup"),
        "{}",
        f.log
    );
}

#[test]
fn the_spirv_queries_list_the_sub_group_capabilities() {
    let caps = ok(
        device_info(device(), CL_DEVICE_SPIRV_CAPABILITIES_KHR),
        "CL_DEVICE_SPIRV_CAPABILITIES_KHR",
    )
    .0;
    let caps: Vec<u32> = caps
        .chunks_exact(4)
        .map(|c| u32::from_ne_bytes(c.try_into().unwrap()))
        .collect();
    // Groups, SubgroupDispatch (which OpenCL 3.0 requires of a device with
    // sub-groups and SPIR-V 1.1), GroupNonUniform, Vote, Arithmetic,
    // Ballot, Shuffle, ShuffleRelative, Clustered, RotateKHR.
    for c in [18, 58, 61, 62, 63, 64, 65, 66, 67, 6026] {
        assert!(caps.contains(&c), "capability {c} missing from {caps:?}");
    }
    let names = spirv_strings(CL_DEVICE_SPIRV_EXTENSIONS_KHR);
    assert!(
        names.iter().any(|n| n == "SPV_KHR_subgroup_rotate"),
        "{names:?}"
    );
}

/// `CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL` (cl_intel_required_subgroup_size).
const CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL: cl_kernel_sub_group_info = 0x410A;

/// SubgroupDispatch: Clang makes `intel_reqd_sub_group_size` the execution
/// mode SubgroupSize, the width the kernel then runs with; the mode
/// SubgroupsPerWorkgroup is `CL_KERNEL_COMPILE_NUM_SUB_GROUPS`.
#[test]
fn sub_group_execution_modes_set_the_width_and_the_count_reported() {
    let env = Env::new();
    let src = "
__kernel __attribute__((intel_reqd_sub_group_size(4))) void k(__global uint* out) {
    size_t g = get_global_id(0);
    out[g] = get_sub_group_size() * 1000 + sub_group_reduce_add(1u) * 100 + get_sub_group_local_id();
}";
    let (_p, k) = il_kernel(&env, &spirv_from_cl(src), "k");
    assert_eq!(
        sub_group_info(&k, CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, &[]),
        4
    );
    assert_eq!(
        sub_group_info(&k, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, &[16]),
        4
    );
    assert_eq!(sub_group_info(&k, CL_KERNEL_COMPILE_NUM_SUB_GROUPS, &[]), 0);
    let out = env.buffer_from(&[0u32; 32]);
    env.run_with(&k, &[&out], &[32], Some(&[16]));
    let got: Vec<u32> = env.read(&out, 0, 32);
    let want: Vec<u32> = (0..32).map(|g| 4400 + g % 4).collect();
    assert_eq!(got, want);

    let text = "
               OpCapability Addresses
               OpCapability Kernel
               OpCapability SubgroupDispatch
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k \"k\"
               OpExecutionMode %k SubgroupsPerWorkgroup 2
       %void = OpTypeVoid
       %fnty = OpTypeFunction %void
          %k = OpFunction %void None %fnty
      %entry = OpLabel
               OpReturn
               OpFunctionEnd
";
    let (_p, k) = il_kernel(&env, &spirv_from_asm(text, "1.1"), "k");
    assert_eq!(sub_group_info(&k, CL_KERNEL_COMPILE_NUM_SUB_GROUPS, &[]), 2);
}

/// The sub-group functions' other types (char, short, half, double, long,
/// vectors of three and of halves), from a Clang module, give the bits
/// their source does.
const TYPES: &str = "
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void k(__global half* h, __global char* c, __global short* s, __global double* d,
                __global float3* f3, __global half4* h4, __global ulong* ul, __global uchar2* u2) {
    size_t g = get_global_id(0);
    h[g] = sub_group_reduce_add(h[g]) + sub_group_non_uniform_scan_exclusive_mul(h[g])
         + sub_group_shuffle(h[g], 2) + sub_group_clustered_reduce_min(h[g], 2);
    c[g] = sub_group_reduce_max(c[g]) + sub_group_non_uniform_reduce_xor(c[g]) + sub_group_shuffle_xor(c[g], 3);
    s[g] = sub_group_scan_inclusive_min(s[g]) + sub_group_broadcast(s[g], 0) + sub_group_non_uniform_all_equal(s[g]);
    d[g] = sub_group_scan_exclusive_add(d[g]) + sub_group_shuffle_down(d[g], 1) + sub_group_broadcast_first(d[g]);
    f3[g] = sub_group_broadcast(f3[g], 1) + sub_group_non_uniform_broadcast(f3[g], 2);
    h4[g] = sub_group_broadcast(h4[g], 0) + sub_group_non_uniform_broadcast(h4[g], 3);
    ul[g] = sub_group_non_uniform_reduce_max(ul[g]) + sub_group_clustered_reduce_or(ul[g], 4) + get_sub_group_lt_mask().x;
    u2[g] = sub_group_broadcast(u2[g], 3);
    sub_group_barrier(CLK_GLOBAL_MEM_FENCE, memory_scope_sub_group);
    if (sub_group_non_uniform_any(c[g] > 0))
        ul[g] += sub_group_non_uniform_reduce_logical_and(s[g] != 0);
}";

#[test]
fn sub_group_functions_of_every_type_give_the_bits_of_their_source() {
    let env = Env::new();
    let n = 64;
    let h: Vec<u16> = (0..n as u16).map(|k| 0x3c00 + k * 37).collect();
    let c: Vec<i8> = (0..n).map(|k| (k * 53 % 251) as i8).collect();
    let s: Vec<i16> = (0..n).map(|k| (k as i16 - 20) * 311).collect();
    let d: Vec<f64> = (0..n).map(|k| (k as f64 - 31.5) / 7.0).collect();
    let f3: Vec<f32> = (0..4 * n).map(|k| k as f32 * 0.25).collect();
    let h4: Vec<u16> = (0..4 * n as u16).map(|k| 0x3800 + k).collect();
    let ul: Vec<u64> = (0..n as u64)
        .map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .collect();
    let u2: Vec<u8> = (0..2 * n).map(|k| (k * 7) as u8).collect();
    let mut results = Vec::new();
    let il = spirv_from_cl(TYPES);
    for (_p, k) in [
        il_kernel(&env, &il, "k"),
        env.kernel_opts(TYPES, "k", "-cl-std=CL3.0"),
    ] {
        let bufs = [
            env.buffer_from(&h),
            env.buffer_from(&c),
            env.buffer_from(&s),
            env.buffer_from(&d),
            env.buffer_from(&f3),
            env.buffer_from(&h4),
            env.buffer_from(&ul),
            env.buffer_from(&u2),
        ];
        env.run_with(&k, &bufs, &[n], Some(&[32]));
        let sizes = [2, 1, 2, 8, 16, 8, 8, 2];
        let bytes: Vec<Vec<u8>> = bufs
            .iter()
            .zip(sizes)
            .map(|(b, size)| env.read::<u8>(b, 0, size * n))
            .collect();
        results.push(bytes);
    }
    // A float3's fourth float is padding, of no defined value.
    for r in results.iter_mut() {
        for (k, b) in r[4].iter_mut().enumerate() {
            if k % 16 >= 12 {
                *b = 0;
            }
        }
    }
    let names = [
        "half", "char", "short", "double", "float3", "half4", "ulong", "uchar2",
    ];
    for (i, name) in names.iter().enumerate() {
        assert_eq!(
            results[0][i], results[1][i],
            "{name}: SPIR-V (left) and source (right) differ"
        );
    }
}
