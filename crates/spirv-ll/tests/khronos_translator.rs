//! The shapes the Khronos LLVM/SPIR-V Translator (Debian's llvm-spirv, the
//! one inside DPC++) gives a module: built-ins as imported
//! UniformConstant variables (older versions), decoration groups, and a
//! kernel's body exported by the kernel's own name beside the entry point
//! that wraps it.

mod common;

fn translate(text: &str) -> Result<String, spirv_ll::Error> {
    common::translate_to_text(&common::assemble(text, "spv1.0"))
}

#[test]
fn a_uniform_constant_built_in_is_read_as_the_work_item_function() {
    let ir = translate(
        "
               OpCapability Addresses
               OpCapability Linkage
               OpCapability Kernel
               OpCapability Int64
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k \"k\"
               OpDecorate %group FuncParamAttr NoWrite
      %group = OpDecorationGroup
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %gid Constant
               OpDecorate %gid LinkageAttributes \"__spirv_BuiltInGlobalInvocationId\" Import
               OpGroupDecorate %group %in
      %ulong = OpTypeInt 64 0
    %v3ulong = OpTypeVector %ulong 3
     %ptr_gid = OpTypePointer UniformConstant %v3ulong
       %void = OpTypeVoid
  %ptr_ulong = OpTypePointer CrossWorkgroup %ulong
       %fnty = OpTypeFunction %void %ptr_ulong %ptr_ulong
        %gid = OpVariable %ptr_gid UniformConstant
          %k = OpFunction %void None %fnty
         %in = OpFunctionParameter %ptr_ulong
        %out = OpFunctionParameter %ptr_ulong
      %entry = OpLabel
         %g3 = OpLoad %v3ulong %gid Aligned 32
          %g = OpCompositeExtract %ulong %g3 0
         %pi = OpInBoundsPtrAccessChain %ptr_ulong %in %g
          %v = OpLoad %ulong %pi
         %po = OpInBoundsPtrAccessChain %ptr_ulong %out %g
               OpStore %po %v
               OpReturn
               OpFunctionEnd
",
    )
    .unwrap();
    assert!(ir.contains("call i64 @_Z13get_global_idj(i32 0)"), "{ir}");
    assert!(!ir.contains("__spirv_BuiltInGlobalInvocationId"), "{ir}");
    // The decoration group's NoWrite reaches the parameter.
    assert!(ir.contains("ptr addrspace(1) readonly"), "{ir}");
}

#[test]
fn an_entry_point_keeps_its_name_beside_an_exported_body_of_that_name() {
    let ir = translate(
        "
               OpCapability Addresses
               OpCapability Linkage
               OpCapability Kernel
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %wrapper \"sum\"
               OpDecorate %body LinkageAttributes \"sum\" Export
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
   %ptr_uint = OpTypePointer CrossWorkgroup %uint
       %fnty = OpTypeFunction %void %ptr_uint
       %body = OpFunction %void DontInline %fnty
          %p = OpFunctionParameter %ptr_uint
          %b = OpLabel
               OpStore %p %p_zero
               OpReturn
               OpFunctionEnd
    %wrapper = OpFunction %void None %fnty
          %q = OpFunctionParameter %ptr_uint
          %w = OpLabel
          %r = OpFunctionCall %void %body %q
               OpReturn
               OpFunctionEnd
"
        .replace(
            "%fnty = OpTypeFunction %void %ptr_uint",
            "%fnty = OpTypeFunction %void %ptr_uint\n     %p_zero = OpConstant %uint 0",
        )
        .as_str(),
    )
    .unwrap();
    assert!(ir.contains("define spir_kernel void @sum("), "{ir}");
    assert!(ir.contains("@sum.spirv.body("), "{ir}");
}
