//! Sub-groups: the built-in variables, the Groups instructions at Subgroup
//! scope and the non-uniform family become calls of the builtins' OpenCL C
//! sub-group functions, of the signedness the opcode names; what the
//! device does not offer, or a malformed operand, is an error naming the
//! instruction.

mod common;

/// The translated module's IR, or the error.
fn translate(text: &str) -> Result<String, spirv_ll::Error> {
    common::translate_to_text(&common::assemble(text, "spv1.3"))
}

/// `name` mangled with the parameter codes `params` (`v` for none).
fn m(name: &str, params: &str) -> String {
    format!("_Z{}{name}{params}", name.len())
}

const HEAD: &str = "
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Int64
               OpCapability Int8
               OpCapability Float64
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
               OpEntryPoint Kernel %k \"k\"
       %void = OpTypeVoid
       %bool = OpTypeBool
      %uchar = OpTypeInt 8 0
       %uint = OpTypeInt 32 0
      %ulong = OpTypeInt 64 0
      %float = OpTypeFloat 32
     %double = OpTypeFloat 64
     %v4uint = OpTypeVector %uint 4
    %v4float = OpTypeVector %float 4
    %v3ulong = OpTypeVector %ulong 3
     %v2bool = OpTypeVector %bool 2
         %wg = OpConstant %uint 2
        %sub = OpConstant %uint 3
     %uint_1 = OpConstant %uint 1
     %uint_4 = OpConstant %uint 4
     %uint_8 = OpConstant %uint 8
     %sem_wg = OpConstant %uint 0x110
   %ptr_uint = OpTypePointer CrossWorkgroup %uint
  %ptr_ulong = OpTypePointer CrossWorkgroup %ulong
  %ptr_float = OpTypePointer CrossWorkgroup %float
 %ptr_double = OpTypePointer CrossWorkgroup %double
  %ptr_uchar = OpTypePointer CrossWorkgroup %uchar
 %ptr_v4float = OpTypePointer CrossWorkgroup %v4float
       %fnty = OpTypeFunction %void %ptr_uint %ptr_ulong %ptr_float %ptr_double %ptr_uchar %ptr_v4float
          %k = OpFunction %void None %fnty
         %pu = OpFunctionParameter %ptr_uint
         %pl = OpFunctionParameter %ptr_ulong
         %pf = OpFunctionParameter %ptr_float
         %pd = OpFunctionParameter %ptr_double
         %pc = OpFunctionParameter %ptr_uchar
         %pv = OpFunctionParameter %ptr_v4float
      %entry = OpLabel
          %u = OpLoad %uint %pu
          %l = OpLoad %ulong %pl
          %f = OpLoad %float %pf
          %d = OpLoad %double %pd
          %c = OpLoad %uchar %pc
          %v = OpLoad %v4float %pv
          %p = OpINotEqual %bool %u %uint_1
";

const TAIL: &str = "
               OpReturn
               OpFunctionEnd
";

/// A kernel whose body (after `HEAD`'s loads) is `body`.
fn kernel(body: &str) -> String {
    format!("{HEAD}{body}{TAIL}")
}

#[track_caller]
fn calls(ir: &str, names: &[String]) {
    for n in names {
        assert!(ir.contains(&format!("@{n}(")), "no call of {n} in\n{ir}");
    }
}

#[test]
fn built_in_variables_read_the_sub_group_functions() {
    let text = "
               OpCapability Addresses
               OpCapability Kernel
               OpCapability GroupNonUniform
               OpCapability GroupNonUniformBallot
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k \"k\" %size %max %num %enq %id %lid %eq %ge %gt %le %lt
               OpDecorate %size BuiltIn SubgroupSize
               OpDecorate %max BuiltIn SubgroupMaxSize
               OpDecorate %num BuiltIn NumSubgroups
               OpDecorate %enq BuiltIn NumEnqueuedSubgroups
               OpDecorate %id BuiltIn SubgroupId
               OpDecorate %lid BuiltIn SubgroupLocalInvocationId
               OpDecorate %eq BuiltIn SubgroupEqMask
               OpDecorate %ge BuiltIn SubgroupGeMask
               OpDecorate %gt BuiltIn SubgroupGtMask
               OpDecorate %le BuiltIn SubgroupLeMask
               OpDecorate %lt BuiltIn SubgroupLtMask
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
     %v4uint = OpTypeVector %uint 4
     %uint_1 = OpConstant %uint 1
    %in_uint = OpTypePointer Input %uint
  %in_v4uint = OpTypePointer Input %v4uint
   %ptr_uint = OpTypePointer CrossWorkgroup %uint
       %size = OpVariable %in_uint Input
        %max = OpVariable %in_uint Input
        %num = OpVariable %in_uint Input
        %enq = OpVariable %in_uint Input
         %id = OpVariable %in_uint Input
        %lid = OpVariable %in_uint Input
         %eq = OpVariable %in_v4uint Input
         %ge = OpVariable %in_v4uint Input
         %gt = OpVariable %in_v4uint Input
         %le = OpVariable %in_v4uint Input
         %lt = OpVariable %in_v4uint Input
       %fnty = OpTypeFunction %void %ptr_uint
          %k = OpFunction %void None %fnty
          %p = OpFunctionParameter %ptr_uint
      %entry = OpLabel
         %s0 = OpLoad %uint %size
         %s1 = OpLoad %uint %max
         %s2 = OpLoad %uint %num
         %s3 = OpLoad %uint %enq
         %s4 = OpLoad %uint %id
         %s5 = OpLoad %uint %lid
         %m0 = OpLoad %v4uint %eq
         %m1 = OpLoad %v4uint %ge
         %m2 = OpLoad %v4uint %le
         %m3 = OpLoad %v4uint %lt
         %x0 = OpCompositeExtract %uint %m0 0
         %x1 = OpCompositeExtract %uint %m1 1
         %x2 = OpCompositeExtract %uint %m2 0
         %x3 = OpCompositeExtract %uint %m3 0
        %gt1 = OpAccessChain %in_uint %gt %uint_1
         %x4 = OpLoad %uint %gt1
         %a0 = OpIAdd %uint %s0 %s1
         %a1 = OpIAdd %uint %a0 %s2
         %a2 = OpIAdd %uint %a1 %s3
         %a3 = OpIAdd %uint %a2 %s4
         %a4 = OpIAdd %uint %a3 %s5
         %a5 = OpIAdd %uint %a4 %x0
         %a6 = OpIAdd %uint %a5 %x1
         %a7 = OpIAdd %uint %a6 %x2
         %a8 = OpIAdd %uint %a7 %x3
         %a9 = OpIAdd %uint %a8 %x4
               OpStore %p %a9
               OpReturn
               OpFunctionEnd
";
    let ir = translate(text).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<String> = [
        "get_sub_group_size",
        "get_max_sub_group_size",
        "get_num_sub_groups",
        "get_enqueued_num_sub_groups",
        "get_sub_group_id",
        "get_sub_group_local_id",
        "get_sub_group_eq_mask",
        "get_sub_group_ge_mask",
        "get_sub_group_gt_mask",
        "get_sub_group_le_mask",
        "get_sub_group_lt_mask",
    ]
    .iter()
    .map(|n| m(n, "v"))
    .collect();
    calls(&ir, &names);
    // A mask is four 32-bit words.
    assert!(
        ir.contains(&format!("<4 x i32> @{}()", m("get_sub_group_eq_mask", "v"))),
        "{ir}"
    );
    // A mask's type is four 32-bit integers.
    let e = translate(&text.replace(
        "%v4uint = OpTypeVector %uint 4",
        "%v4uint = OpTypeVector %uint 3",
    ))
    .unwrap_err();
    assert_eq!(e.opcode, "OpVariable", "{e}");
    assert!(e.reason.contains("SubgroupEqMask"), "{e}");
}

#[test]
fn groups_instructions_at_subgroup_scope_are_the_sub_group_functions() {
    let ir = translate(&kernel(
        "
         %r0 = OpGroupIAdd %uint %sub Reduce %u
         %r1 = OpGroupSMin %uint %sub InclusiveScan %u
         %r2 = OpGroupUMin %uint %sub InclusiveScan %u
         %r3 = OpGroupSMax %ulong %sub ExclusiveScan %l
         %r4 = OpGroupUMax %ulong %sub Reduce %l
         %r5 = OpGroupFAdd %float %sub ExclusiveScan %f
         %r6 = OpGroupFMin %double %sub Reduce %d
         %r7 = OpGroupAll %bool %sub %p
         %r8 = OpGroupAny %bool %sub %p
         %r9 = OpGroupBroadcast %v4float %sub %v %uint_1
        %r10 = OpGroupBroadcast %uchar %sub %c %uint_4
               OpControlBarrier %sub %sub %sem_wg
               OpControlBarrier %wg %wg %sem_wg
               OpStore %pv %r9
",
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    calls(
        &ir,
        &[
            m("sub_group_reduce_add", "i"),
            // SPIR-V names the signedness by the opcode.
            m("sub_group_scan_inclusive_min", "i"),
            m("sub_group_scan_inclusive_min", "j"),
            m("sub_group_scan_exclusive_max", "l"),
            m("sub_group_reduce_max", "m"),
            m("sub_group_scan_exclusive_add", "f"),
            m("sub_group_reduce_min", "d"),
            m("sub_group_all", "i"),
            m("sub_group_any", "i"),
            m("sub_group_broadcast", "Dv4_fj"),
            m("sub_group_broadcast", "hj"),
            m("sub_group_barrier", "j"),
            m("barrier", "j"),
        ],
    );
}

#[test]
fn non_uniform_instructions_are_the_sub_group_functions() {
    let ir = translate(&kernel(
        "
          %e = OpGroupNonUniformElect %bool %sub
         %a0 = OpGroupNonUniformAll %bool %sub %p
         %a1 = OpGroupNonUniformAny %bool %sub %p
         %a2 = OpGroupNonUniformAllEqual %bool %sub %f
         %a3 = OpGroupNonUniformAllEqual %bool %sub %v
         %b0 = OpGroupNonUniformBroadcast %uint %sub %u %uint_1
         %b1 = OpGroupNonUniformBroadcast %v4float %sub %v %uint_1
         %b2 = OpGroupNonUniformBroadcastFirst %ulong %sub %l
         %b3 = OpGroupNonUniformBroadcastFirst %v4float %sub %v
         %bb = OpGroupNonUniformBallot %v4uint %sub %p
         %i0 = OpGroupNonUniformInverseBallot %bool %sub %bb
         %i1 = OpGroupNonUniformBallotBitExtract %bool %sub %bb %uint_4
         %i2 = OpGroupNonUniformBallotBitCount %uint %sub Reduce %bb
         %i3 = OpGroupNonUniformBallotBitCount %uint %sub InclusiveScan %bb
         %i4 = OpGroupNonUniformBallotBitCount %uint %sub ExclusiveScan %bb
         %i5 = OpGroupNonUniformBallotFindLSB %uint %sub %bb
         %i6 = OpGroupNonUniformBallotFindMSB %uint %sub %bb
         %s0 = OpGroupNonUniformShuffle %uint %sub %u %uint_1
         %s1 = OpGroupNonUniformShuffleXor %double %sub %d %uint_1
         %s2 = OpGroupNonUniformShuffleUp %uchar %sub %c %uint_1
         %s3 = OpGroupNonUniformShuffleDown %v4float %sub %v %uint_1
         %t0 = OpGroupNonUniformRotateKHR %uint %sub %u %uint_1
         %t1 = OpGroupNonUniformRotateKHR %float %sub %f %uint_1 %uint_4
         %n0 = OpGroupNonUniformIAdd %uint %sub Reduce %u
         %n1 = OpGroupNonUniformFAdd %float %sub InclusiveScan %f
         %n2 = OpGroupNonUniformIMul %ulong %sub ExclusiveScan %l
         %n3 = OpGroupNonUniformFMul %double %sub Reduce %d
         %n4 = OpGroupNonUniformSMin %uint %sub Reduce %u
         %n5 = OpGroupNonUniformUMin %uint %sub Reduce %u
         %n6 = OpGroupNonUniformFMin %float %sub Reduce %f
         %n7 = OpGroupNonUniformSMax %uchar %sub InclusiveScan %c
         %n8 = OpGroupNonUniformUMax %uchar %sub InclusiveScan %c
         %n9 = OpGroupNonUniformFMax %v4float %sub Reduce %v
        %n10 = OpGroupNonUniformBitwiseAnd %uint %sub Reduce %u
        %n11 = OpGroupNonUniformBitwiseOr %ulong %sub InclusiveScan %l
        %n12 = OpGroupNonUniformBitwiseXor %uchar %sub ExclusiveScan %c
        %n13 = OpGroupNonUniformLogicalAnd %bool %sub Reduce %p
        %n14 = OpGroupNonUniformLogicalOr %bool %sub InclusiveScan %p
        %n15 = OpGroupNonUniformLogicalXor %bool %sub ExclusiveScan %p
         %c0 = OpGroupNonUniformIAdd %uint %sub ClusteredReduce %u %uint_4
         %c1 = OpGroupNonUniformUMin %ulong %sub ClusteredReduce %l %uint_8
         %c2 = OpGroupNonUniformSMax %uint %sub ClusteredReduce %u %uint_1
         %c3 = OpGroupNonUniformFMul %float %sub ClusteredReduce %f %uint_4
         %c4 = OpGroupNonUniformLogicalOr %bool %sub ClusteredReduce %p %uint_4
               OpStore %pv %s3
",
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    calls(
        &ir,
        &[
            m("sub_group_elect", "v"),
            m("sub_group_non_uniform_all", "i"),
            m("sub_group_non_uniform_any", "i"),
            m("sub_group_non_uniform_all_equal", "f"),
            m("sub_group_non_uniform_broadcast", "jj"),
            // The broadcasts take vectors.
            m("sub_group_non_uniform_broadcast", "Dv4_fj"),
            m("sub_group_broadcast_first", "m"),
            // The others take them component by component.
            m("sub_group_broadcast_first", "f"),
            m("sub_group_ballot", "i"),
            m("sub_group_inverse_ballot", "Dv4_j"),
            m("sub_group_ballot_bit_extract", "Dv4_jj"),
            m("sub_group_ballot_bit_count", "Dv4_j"),
            m("sub_group_ballot_inclusive_scan", "Dv4_j"),
            m("sub_group_ballot_exclusive_scan", "Dv4_j"),
            m("sub_group_ballot_find_lsb", "Dv4_j"),
            m("sub_group_ballot_find_msb", "Dv4_j"),
            m("sub_group_shuffle", "jj"),
            m("sub_group_shuffle_xor", "dj"),
            m("sub_group_shuffle_up", "hj"),
            m("sub_group_shuffle_down", "fj"),
            m("sub_group_rotate", "ji"),
            m("sub_group_clustered_rotate", "fij"),
            m("sub_group_non_uniform_reduce_add", "i"),
            m("sub_group_non_uniform_scan_inclusive_add", "f"),
            m("sub_group_non_uniform_scan_exclusive_mul", "l"),
            m("sub_group_non_uniform_reduce_mul", "d"),
            m("sub_group_non_uniform_reduce_min", "i"),
            m("sub_group_non_uniform_reduce_min", "j"),
            m("sub_group_non_uniform_reduce_min", "f"),
            m("sub_group_non_uniform_scan_inclusive_max", "c"),
            m("sub_group_non_uniform_scan_inclusive_max", "h"),
            m("sub_group_non_uniform_reduce_max", "f"),
            m("sub_group_non_uniform_reduce_and", "j"),
            m("sub_group_non_uniform_scan_inclusive_or", "m"),
            m("sub_group_non_uniform_scan_exclusive_xor", "h"),
            m("sub_group_non_uniform_reduce_logical_and", "i"),
            m("sub_group_non_uniform_scan_inclusive_logical_or", "i"),
            m("sub_group_non_uniform_scan_exclusive_logical_xor", "i"),
            m("sub_group_clustered_reduce_add", "ij"),
            m("sub_group_clustered_reduce_min", "mj"),
            m("sub_group_clustered_reduce_max", "ij"),
            m("sub_group_clustered_reduce_mul", "fj"),
            m("sub_group_clustered_reduce_logical_or", "ij"),
        ],
    );
    // The vector's four components are shuffled one by one.
    let down = format!("@{}(", m("sub_group_shuffle_down", "fj"));
    assert_eq!(ir.matches(&down).count(), 4 + 1, "{ir}");
}

/// The error translating `HEAD` with `body`, which must fail.
#[track_caller]
fn refused(body: &str) -> spirv_ll::Error {
    match translate(&kernel(body)) {
        Ok(ir) => panic!("translated:\n{ir}"),
        Err(e) => e,
    }
}

#[test]
fn what_the_device_does_not_offer_is_refused_naming_the_instruction() {
    // Non-uniform operations on work-groups.
    let e = refused("%r = OpGroupNonUniformIAdd %uint %wg Reduce %u");
    assert_eq!(e.opcode, "OpGroupNonUniformIAdd", "{e}");
    assert!(e.reason.contains("Workgroup"), "{e}");
    let e = refused("%r = OpGroupNonUniformElect %bool %uint_1");
    assert_eq!(e.opcode, "OpGroupNonUniformElect", "{e}");
    assert!(e.reason.contains("not Subgroup"), "{e}");
    // Quads: no capability, and no instruction.
    let e = refused("%r = OpGroupNonUniformQuadSwap %uint %sub %u %uint_1");
    assert_eq!(e.opcode, "OpGroupNonUniformQuadSwap", "{e}");
    let e = translate(&kernel("").replace(
        "OpCapability Groups",
        "OpCapability Groups\nOpCapability GroupNonUniformQuad",
    ))
    .unwrap_err();
    assert!(e.reason.contains("GroupNonUniformQuad"), "{e}");
    // Async copies are the work-group's.
    let e = refused("OpGroupWaitEvents %sub %uint_1 %pu");
    assert_eq!(e.opcode, "OpGroupWaitEvents", "{e}");
    // A barrier of the device.
    let e = refused("OpControlBarrier %uint_1 %uint_1 %sem_wg");
    assert_eq!(e.opcode, "OpControlBarrier", "{e}");
}

#[test]
fn malformed_operands_are_refused_naming_the_instruction() {
    for (body, opcode, why) in [
        (
            "%r = OpGroupNonUniformIAdd %uint %sub ClusteredReduce %u %sub",
            "OpGroupNonUniformIAdd",
            "power of two",
        ),
        (
            "%r = OpGroupNonUniformIAdd %uint %sub ClusteredReduce %u %u",
            "OpGroupNonUniformIAdd",
            "not an integer constant",
        ),
        (
            "%r = OpGroupNonUniformIAdd %uint %sub Reduce %u %uint_4",
            "OpGroupNonUniformIAdd",
            "cluster size",
        ),
        (
            "%r = OpGroupIAdd %uint %sub ClusteredReduce %u",
            "OpGroupIAdd",
            "ClusteredReduce",
        ),
        (
            "%r = OpGroupNonUniformIAdd %float %sub Reduce %f",
            "OpGroupNonUniformIAdd",
            "integers",
        ),
        (
            "%r = OpGroupNonUniformFMin %uint %sub Reduce %u",
            "OpGroupNonUniformFMin",
            "floating-point",
        ),
        (
            "%r = OpGroupNonUniformLogicalAnd %uint %sub Reduce %u",
            "OpGroupNonUniformLogicalAnd",
            "bools",
        ),
        (
            "%r = OpGroupNonUniformIAdd %uint %sub Reduce %l",
            "OpGroupNonUniformIAdd",
            "not the expected",
        ),
        (
            "%r = OpGroupNonUniformBallot %v4uint %sub %u",
            "OpGroupNonUniformBallot",
            "not a bool",
        ),
        (
            "%r = OpGroupNonUniformBallot %v4float %sub %p",
            "OpGroupNonUniformBallot",
            "four 32-bit",
        ),
        (
            "%r = OpGroupNonUniformBallotFindLSB %uint %sub %v",
            "OpGroupNonUniformBallotFindLSB",
            "ballot",
        ),
        (
            "%r = OpGroupNonUniformShuffle %uint %sub %u %f",
            "OpGroupNonUniformShuffle",
            "scalar integer",
        ),
        (
            "%r = OpGroupNonUniformShuffle %ptr_uint %sub %pu %uint_1",
            "OpGroupNonUniformShuffle",
            "",
        ),
        (
            "%r = OpGroupNonUniformElect %uint %sub",
            "OpGroupNonUniformElect",
            "not a bool",
        ),
        (
            "%r = OpGroupNonUniformBallotBitCount %uint %sub ClusteredReduce %u",
            "OpGroupNonUniformBallotBitCount",
            "group operation",
        ),
        (
            "%r = OpGroupBroadcast %uint %sub %u %v4uint_c",
            "OpGroupBroadcast",
            "scalar integer",
        ),
        (
            "%r = OpGroupNonUniformIAdd %uint %u Reduce %u",
            "OpGroupNonUniformIAdd",
            "scope",
        ),
    ] {
        let text = kernel(body).replace(
            "%sem_wg = OpConstant %uint 0x110",
            "%sem_wg = OpConstant %uint 0x110\n%v4uint_c = OpConstantComposite %v4uint %uint_1 %uint_1 %uint_1 %uint_1",
        );
        let e = match translate(&text) {
            Ok(_) => panic!("{body}: translated"),
            Err(e) => e,
        };
        assert_eq!(e.opcode, opcode, "{body}: {e}");
        assert!(e.reason.contains(why), "{body}: {e}");
        assert!(e.word > 0, "{body}: {e}");
    }
}

#[test]
fn sub_group_execution_modes_are_the_kernels_attributes() {
    let modes = |m: &str| {
        kernel("").replace(
            "OpEntryPoint Kernel %k \"k\"",
            &format!("OpEntryPoint Kernel %k \"k\"\n{m}"),
        )
    };
    let ir = translate(&modes(
        "OpExecutionMode %k SubgroupSize 8\nOpExecutionMode %k SubgroupsPerWorkgroup 3",
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(ir.contains("!intel_reqd_sub_group_size !"), "{ir}");
    assert!(ir.contains("!required_num_sub_groups !"), "{ir}");
    assert!(ir.contains("!{i32 8}") && ir.contains("!{i32 3}"), "{ir}");
    let ir = translate(&modes(
        "OpExecutionModeId %k SubgroupsPerWorkgroupId %uint_4",
    ))
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(ir.contains("!required_num_sub_groups !"), "{ir}");
    assert!(ir.contains("!{i32 4}"), "{ir}");
    let e = translate(&modes("OpExecutionMode %k SubgroupSize 0")).unwrap_err();
    assert_eq!(e.opcode, "OpExecutionMode", "{e}");
    assert!(e.reason.contains("SubgroupSize"), "{e}");
    let e = translate(&modes("OpExecutionModeId %k SubgroupsPerWorkgroupId %u")).unwrap_err();
    assert_eq!(e.opcode, "OpExecutionModeId", "{e}");
    // The queries of a function for device-side enqueue.
    let e = refused("%n = OpGetKernelMaxNumSubgroups %uint %k %pu %uint_4 %uint_4");
    assert_eq!(e.opcode, "OpGetKernelMaxNumSubgroups", "{e}");
    let e =
        refused("%n = OpGetKernelLocalSizeForSubgroupCount %uint %uint_1 %k %pu %uint_4 %uint_4");
    assert_eq!(e.opcode, "OpGetKernelLocalSizeForSubgroupCount", "{e}");
}

#[test]
fn the_clock_reads_at_subgroup_scope() {
    let ir = translate(&kernel("%t = OpReadClockKHR %ulong %sub\nOpStore %pl %t"))
        .unwrap_or_else(|e| panic!("{e}"));
    calls(&ir, &[m("clock_read_sub_group", "v")]);
}
