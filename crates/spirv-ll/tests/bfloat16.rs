//! SPV_INTEL_bfloat16_conversion: `OpConvertFToBF16INTEL` and
//! `OpConvertBF16ToFINTEL`, scalar and vector, become calls of the
//! builtins' `cl_intel_bfloat16_conversions` functions; an operand of
//! another shape is an error naming the instruction. The modules are built
//! with rspirv, as Debian's `spirv-as` predates the extension.

mod common;

use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{
    AddressingModel, Capability, ExecutionModel, FunctionControl, MemoryModel, StorageClass,
};

/// A kernel `k(float2 *in, ushort2 *out)` storing `out[0]` from `in[0]`
/// through `convert`, given the builder, the float2 and ushort2 types and
/// the loaded value; it returns the value to store.
fn module(convert: impl Fn(&mut Builder, u32, u32, u32) -> u32) -> Vec<u8> {
    let mut b = Builder::new();
    b.set_version(1, 0);
    for c in [
        Capability::Addresses,
        Capability::Kernel,
        Capability::Int16,
        Capability::BFloat16ConversionINTEL,
    ] {
        b.capability(c);
    }
    b.extension("SPV_INTEL_bfloat16_conversion");
    b.memory_model(AddressingModel::Physical64, MemoryModel::OpenCL);
    let void = b.type_void();
    let float = b.type_float(32, None);
    let ushort = b.type_int(16, 0);
    let float2 = b.type_vector(float, 2);
    let ushort2 = b.type_vector(ushort, 2);
    let pin = b.type_pointer(None, StorageClass::CrossWorkgroup, float2);
    let pout = b.type_pointer(None, StorageClass::CrossWorkgroup, ushort2);
    let fnty = b.type_function(void, [pin, pout]);
    let k = b
        .begin_function(void, None, FunctionControl::NONE, fnty)
        .unwrap();
    let input = b.function_parameter(pin).unwrap();
    let output = b.function_parameter(pout).unwrap();
    b.begin_block(None).unwrap();
    let x = b.load(float2, None, input, None, []).unwrap();
    let v = convert(&mut b, float2, ushort2, x);
    b.store(output, v, None, []).unwrap();
    b.ret().unwrap();
    b.end_function().unwrap();
    b.entry_point(ExecutionModel::Kernel, k, "k", []);
    let words = rspirv::binary::Assemble::assemble(&b.module());
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

#[test]
fn conversions_call_the_builtins_of_their_width() {
    let il = module(|b, float2, ushort2, x| {
        let bits = b.convert_f_to_bf16intel(ushort2, None, x).unwrap();
        let back = b.convert_bf16_to_fintel(float2, None, bits).unwrap();
        b.convert_f_to_bf16intel(ushort2, None, back).unwrap()
    });
    let ir = common::translate_to_text(&il).unwrap();
    // Eight-byte vectors go as the x86-64 C ABI passes them.
    for f in [
        "call i32 @_Z34intel_convert_bfloat162_as_ushort2Dv2_f(",
        "call double @_Z33intel_convert_as_bfloat162_float2Dv2_t(",
    ] {
        assert!(ir.contains(f), "{f} not in\n{ir}");
    }
}

#[test]
fn an_operand_of_another_shape_is_an_error_naming_the_instruction() {
    let il = module(|b, _float2, ushort2, x| {
        // A float2 to one bfloat16: the result's lanes are not the operand's.
        let ushort = match &b.module_ref().types_global_values.iter().find(|i| {
            i.class.opcode == rspirv::spirv::Op::TypeInt
                && i.operands.first() == Some(&Operand::LiteralBit32(16))
        }) {
            Some(i) => i.result_id.unwrap(),
            None => unreachable!("the module has a 16-bit integer"),
        };
        let one = b.convert_f_to_bf16intel(ushort, None, x).unwrap();
        b.composite_construct(ushort2, None, [one, one]).unwrap()
    });
    let e = common::translate_to_text(&il).unwrap_err().to_string();
    assert!(e.contains("OpConvertFToBF16INTEL"), "{e}");
}
