//! FPFastMathMode (with SPV_INTEL_fp_fast_math_mode's contract and
//! reassociate bits) becomes LLVM's fast-math flags on whatever the
//! decorated instruction became: arithmetic, a comparison, a conversion.

mod common;

#[test]
fn fast_math_modes_become_flags_on_arithmetic_and_comparisons() {
    let text = "
               OpCapability Addresses
               OpCapability Kernel
               OpCapability FPFastMathModeINTEL
               OpExtension \"SPV_INTEL_fp_fast_math_mode\"
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k \"k\"
               OpDecorate %sum FPFastMathMode AllowContractFastINTEL|AllowReassocINTEL
               OpDecorate %less FPFastMathMode NSZ|AllowRecip
               OpDecorate %half FPFastMathMode NotNaN|NotInf
       %void = OpTypeVoid
       %bool = OpTypeBool
      %float = OpTypeFloat 32
        %two = OpConstant %float 2
  %ptr_float = OpTypePointer CrossWorkgroup %float
       %fnty = OpTypeFunction %void %ptr_float
          %k = OpFunction %void None %fnty
          %p = OpFunctionParameter %ptr_float
      %entry = OpLabel
          %x = OpLoad %float %p
        %sum = OpFAdd %float %x %x
       %less = OpFOrdLessThan %bool %sum %two
       %half = OpFDiv %float %sum %two
          %r = OpSelect %float %less %half %x
               OpStore %p %r
               OpReturn
               OpFunctionEnd
";
    let ir = common::translate_to_text(&common::assemble(text, "spv1.4")).unwrap();
    let has = |what: &str| assert!(ir.lines().any(|l| l.contains(what)), "no `{what}` in\n{ir}");
    has("fadd reassoc contract float");
    has("fcmp nsz arcp olt float");
    has("fdiv nnan ninf float");
}
