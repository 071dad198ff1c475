//! Every malformed module is an error naming the instruction at fault (its
//! word offset and opcode) and the reason: never a panic, never a module.

mod common;

const MINIMAL: &str = "
               OpCapability Addresses
               OpCapability Kernel
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k \"k\"
       %void = OpTypeVoid
       %uint = OpTypeInt 32 0
      %float = OpTypeFloat 32
     %uint_1 = OpConstant %uint 1
    %float_1 = OpConstant %float 1
   %ptr_uint = OpTypePointer CrossWorkgroup %uint
       %fnty = OpTypeFunction %void %ptr_uint
          %k = OpFunction %void None %fnty
          %p = OpFunctionParameter %ptr_uint
      %entry = OpLabel
          %v = OpLoad %uint %p
          %w = OpIAdd %uint %v %uint_1
               OpStore %p %w
               OpReturn
               OpFunctionEnd
";

fn translate(bytes: &[u8]) -> Result<(), spirv_ll::Error> {
    common::translate_to_text(bytes).map(drop)
}

fn assemble(text: &str) -> Vec<u8> {
    common::assemble(text, "spv1.0")
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Where the first instruction of opcode `op` starts.
fn find(w: &[u32], op: u32) -> usize {
    let mut at = 5;
    while w[at] & 0xffff != op {
        at += (w[at] >> 16) as usize;
    }
    at
}

#[test]
fn the_minimal_module_translates() {
    translate(&assemble(MINIMAL)).unwrap();
}

#[test]
fn a_truncated_instruction_is_named() {
    let w = words(&assemble(MINIMAL));
    let store = find(&w, 62);
    let e = translate(&bytes(&w[..store + 2])).unwrap_err();
    assert_eq!((e.word, e.opcode.as_str()), (store, "OpStore"), "{e}");
    assert!(e.reason.contains("module ends"), "{e}");
}

#[test]
fn an_id_past_the_bound_is_named() {
    let mut w = words(&assemble(MINIMAL));
    let store = find(&w, 62);
    w[store + 2] = w[3] + 3;
    let e = translate(&bytes(&w)).unwrap_err();
    assert_eq!((e.word, e.opcode.as_str()), (store, "OpStore"), "{e}");
    assert!(e.reason.contains("outside the bound"), "{e}");
}

#[test]
fn a_type_mismatch_is_named() {
    let w = assemble(&MINIMAL.replace("OpIAdd %uint %v %uint_1", "OpIAdd %uint %v %float_1"));
    let add = find(&words(&w), 128);
    let e = translate(&w).unwrap_err();
    assert_eq!((e.word, e.opcode.as_str()), (add, "OpIAdd"), "{e}");
    assert!(e.reason.contains("not the expected"), "{e}");
}

#[test]
fn an_id_defined_twice_is_named() {
    let mut w = words(&assemble(MINIMAL));
    let add = find(&w, 128);
    // The add's result id becomes the load's.
    let load = find(&w, 61);
    w[add + 2] = w[load + 2];
    let e = translate(&bytes(&w)).unwrap_err();
    assert_eq!((e.word, e.opcode.as_str()), (add, "OpIAdd"), "{e}");
    assert!(e.reason.contains("defined twice"), "{e}");
}

#[test]
fn a_capability_the_device_lacks_is_named() {
    let e = translate(&assemble(&MINIMAL.replace(
        "OpCapability Kernel",
        "OpCapability Kernel\nOpCapability Pipes",
    )))
    .unwrap_err();
    assert_eq!(e.opcode, "OpCapability");
    assert!(e.reason.contains("Pipes"), "{e}");
}

#[test]
fn a_block_without_a_terminator_is_named() {
    let e = translate(&assemble(&MINIMAL.replace("               OpReturn\n", ""))).unwrap_err();
    assert_eq!(e.opcode, "OpFunctionEnd");
    assert!(e.reason.contains("no terminator"), "{e}");
}

#[test]
fn a_value_used_before_it_is_defined_is_named() {
    let e = translate(&assemble(
        &MINIMAL.replace("%v = OpLoad %uint %p", "%v = OpIAdd %uint %w %uint_1"),
    ))
    .unwrap_err();
    assert_eq!(e.opcode, "OpIAdd");
    assert!(
        e.reason.contains("not a value defined before this use"),
        "{e}"
    );
}

#[test]
fn a_module_without_kernels_capability_or_memory_model_is_refused() {
    let e = translate(&assemble(&MINIMAL.replace("OpCapability Kernel\n", ""))).unwrap_err();
    assert!(e.reason.contains("Kernel"), "{e}");
    let e = translate(&assemble(
        &MINIMAL.replace("OpMemoryModel Physical64 OpenCL\n", ""),
    ))
    .unwrap_err();
    assert!(e.reason.contains("OpMemoryModel"), "{e}");
}
