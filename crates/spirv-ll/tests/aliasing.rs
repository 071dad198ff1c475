//! SPV_INTEL_memory_access_aliasing: the scopes a load, store or copy names
//! by its memory operands, or a call by its decorations, become LLVM's
//! `!alias.scope` and `!noalias` metadata; a list that is not one is an
//! error naming the instruction.

mod common;

fn translate(text: &str) -> Result<String, spirv_ll::Error> {
    common::translate_to_text(&common::assemble(text, "spv1.4"))
}

const HEAD: &str = "
               OpCapability Addresses
               OpCapability Kernel
               OpCapability Linkage
               OpCapability MemoryAccessAliasingINTEL
               OpExtension \"SPV_INTEL_memory_access_aliasing\"
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k \"k\"
               OpDecorate %f LinkageAttributes \"f\" Import
               OpDecorate %call AliasScopeINTEL %in_list
               OpDecorate %call NoAliasINTEL %out_list
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
     %uint_4 = OpConstant %uint 4
   %ptr_uint = OpTypePointer CrossWorkgroup %uint
       %fnty = OpTypeFunction %void %ptr_uint %ptr_uint
        %fty = OpTypeFunction %uint %ptr_uint
     %domain = OpAliasDomainDeclINTEL
   %in_scope = OpAliasScopeDeclINTEL %domain
  %out_scope = OpAliasScopeDeclINTEL %domain
    %in_list = OpAliasScopeListDeclINTEL %in_scope
   %out_list = OpAliasScopeListDeclINTEL %out_scope
       %both = OpAliasScopeListDeclINTEL %in_scope %out_scope
          %f = OpFunction %uint None %fty
          %q = OpFunctionParameter %ptr_uint
               OpFunctionEnd
          %k = OpFunction %void None %fnty
        %out = OpFunctionParameter %ptr_uint
         %in = OpFunctionParameter %ptr_uint
      %entry = OpLabel
";

const TAIL: &str = "
               OpReturn
               OpFunctionEnd
";

#[test]
fn memory_operands_become_scoped_noalias_metadata() {
    let ir = translate(&format!(
        "{HEAD}
          %x = OpLoad %uint %in Aligned|AliasScopeINTELMask|NoAliasINTELMask 4 %in_list %out_list
               OpStore %out %x AliasScopeINTELMask|NoAliasINTELMask %out_list %in_list
       %call = OpFunctionCall %uint %f %in
               OpCopyMemorySized %out %in %uint_4 Aligned|NoAliasINTELMask 4 %both
{TAIL}"
    ))
    .unwrap();
    let line = |what: &str| {
        ir.lines()
            .find(|l| l.contains(what))
            .unwrap_or_else(|| panic!("no {what} in\n{ir}"))
            .to_string()
    };
    let load = line("load i32");
    let store = line("store i32");
    assert!(load.contains("align 4"), "{load}");
    // The load's own scope is the store's no-alias list and the other way
    // round, so LLVM may take them apart.
    let md = |l: &str, kind: &str| -> String {
        let at = l
            .find(&format!("!{kind} !"))
            .unwrap_or_else(|| panic!("no !{kind} in {l}"));
        l[at + kind.len() + 2..]
            .split(|c: char| c == ',' || c.is_whitespace())
            .next()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        md(&load, "alias.scope"),
        md(&store, "noalias"),
        "{load}\n{store}"
    );
    assert_eq!(
        md(&load, "noalias"),
        md(&store, "alias.scope"),
        "{load}\n{store}"
    );
    assert_ne!(md(&load, "alias.scope"), md(&load, "noalias"));
    // The decorations of a call's result go on the call.
    let call = line("call i32 @f");
    assert_eq!(md(&call, "alias.scope"), md(&load, "alias.scope"), "{call}");
    assert_eq!(md(&call, "noalias"), md(&load, "noalias"), "{call}");
    let copy = line("llvm.memcpy");
    assert!(copy.contains("!noalias"), "{copy}");
    // The domain and its two scopes are three nodes, each naming itself.
    let own: Vec<_> = ir
        .lines()
        .filter(|l| l.starts_with('!'))
        .filter(|l| {
            let (name, body) = l.split_once(" = ").unwrap();
            body.starts_with(&format!("distinct !{{{name}"))
        })
        .collect();
    assert_eq!(own.len(), 3, "{ir}");
}

#[test]
fn a_list_that_is_not_one_is_an_error() {
    let e = translate(&format!(
        "{HEAD}
          %x = OpLoad %uint %in NoAliasINTELMask %in_scope
               OpStore %out %x
{TAIL}"
    ))
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("OpLoad") && e.contains("is not an alias scope list"),
        "{e}"
    );
}

#[test]
fn a_scope_of_something_other_than_a_domain_is_an_error() {
    let text = HEAD.replace(
        "%out_scope = OpAliasScopeDeclINTEL %domain",
        "%out_scope = OpAliasScopeDeclINTEL %in_scope",
    );
    let e = translate(&format!("{text}{TAIL}")).unwrap_err().to_string();
    assert!(
        e.contains("OpAliasScopeDeclINTEL") && e.contains("is not an alias domain"),
        "{e}"
    );
}
