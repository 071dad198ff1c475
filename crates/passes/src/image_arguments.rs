//! Image and sampler arguments as the builtins library reads them (seed
//! 000's image-argument substitution). Clang hands a kernel an image as an
//! opaque `ptr addrspace(1)` and a sampler as a `ptr addrspace(2)`; on this
//! target the image pointer is the address of its descriptor (`struct
//! __mux_image`) and the sampler "pointer" is the integer of its `CLK_*`
//! bits. The library asks for those through builtins this pass replaces:
//! - `__mux_image_descriptor_*(image)` by the image pointer itself;
//! - `__mux_sampler_bits(sampler)` by the pointer's integer;
//! - Clang's `__translate_sampler_initializer(bits)`, which makes a
//!   constant sampler, by the pointer of that integer, so that once
//!   inlined the bits of a constant sampler fold and the library's
//!   branches on them disappear.

use builtins::mux::{IMAGE_DESCRIPTOR_PREFIX, SAMPLER_BITS, TRANSLATE_SAMPLER_INITIALIZER};
use compiler::llvm;
use llvm_sys::core::*;
use llvm_sys::prelude::*;

/// Replaces the image and sampler builtins called in `f`; returns how many
/// calls.
///
/// # Safety
/// `f` must be a live function whose context this thread owns.
pub unsafe fn run(f: LLVMValueRef) -> usize {
    let ctx = LLVMGetTypeContext(LLVMTypeOf(f));
    let b = LLVMCreateBuilderInContext(ctx);
    let mut replaced = 0;
    for i in llvm::instructions(f) {
        let Some(callee) = llvm::called_function(i) else {
            continue;
        };
        let name = llvm::name(callee);
        let arg = || LLVMGetOperand(i, 0);
        LLVMPositionBuilderBefore(b, i);
        let with = if name.starts_with(IMAGE_DESCRIPTOR_PREFIX) {
            // The descriptor is where the image pointer points.
            LLVMBuildPointerCast(b, arg(), LLVMTypeOf(i), c"image".as_ptr())
        } else if name == SAMPLER_BITS {
            match made_from_integer(arg()) {
                Some(bits) => {
                    LLVMBuildIntCast2(b, bits, LLVMTypeOf(i), 0, c"sampler.bits".as_ptr())
                }
                None => LLVMBuildPtrToInt(b, arg(), LLVMTypeOf(i), c"sampler.bits".as_ptr()),
            }
        } else if name == TRANSLATE_SAMPLER_INITIALIZER {
            LLVMBuildIntToPtr(b, arg(), LLVMTypeOf(i), c"sampler".as_ptr())
        } else {
            continue;
        };
        LLVMReplaceAllUsesWith(i, with);
        LLVMInstructionEraseFromParent(i);
        replaced += 1;
    }
    LLVMDisposeBuilder(b);
    replaced
}

/// The integer `p` was made from by an `inttoptr` (a constant sampler),
/// which LLVM does not fold through a `ptrtoint` of another width.
unsafe fn made_from_integer(p: LLVMValueRef) -> Option<LLVMValueRef> {
    use llvm_sys::LLVMOpcode::LLVMIntToPtr;
    let opcode = if !LLVMIsAInstruction(p).is_null() {
        LLVMGetInstructionOpcode(p)
    } else if !LLVMIsAConstantExpr(p).is_null() {
        LLVMGetConstOpcode(p)
    } else {
        return None;
    };
    (opcode == LLVMIntToPtr).then(|| LLVMGetOperand(p, 0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    #[test]
    fn descriptors_are_the_image_pointer_and_samplers_their_bits() {
        let ir = Ir::parse(
            r#"
declare ptr addrspace(1) @__mux_image_descriptor_2d_ro(ptr addrspace(1))
declare ptr addrspace(1) @__mux_image_descriptor_3d_wo(ptr addrspace(1))
declare i32 @__mux_sampler_bits(ptr addrspace(2))
declare ptr addrspace(2) @__translate_sampler_initializer(i32)
declare i32 @other(ptr addrspace(2))

define i32 @f(ptr addrspace(1) %img, ptr addrspace(1) %out, ptr addrspace(2) %s) {
  %d = call ptr addrspace(1) @__mux_image_descriptor_2d_ro(ptr addrspace(1) %img)
  %wp = getelementptr i8, ptr addrspace(1) %d, i64 8
  %w = load i32, ptr addrspace(1) %wp
  %e = call ptr addrspace(1) @__mux_image_descriptor_3d_wo(ptr addrspace(1) %out)
  store i32 %w, ptr addrspace(1) %e
  %c = call ptr addrspace(2) @__translate_sampler_initializer(i32 36)
  %cb = call i32 @__mux_sampler_bits(ptr addrspace(2) %c)
  %ab = call i32 @__mux_sampler_bits(ptr addrspace(2) %s)
  %o = call i32 @other(ptr addrspace(2) %s)
  %sum = add i32 %cb, %ab
  %r = add i32 %sum, %o
  ret i32 %r
}
"#,
        );
        let n = unsafe { run(ir.function("f")) };
        assert_eq!(n, 5);
        unsafe { compiler::llvm::verify(ir.m).unwrap() };
        let text = ir.text();
        assert!(
            !text.contains("call ptr addrspace(1) @__mux_image"),
            "{text}"
        );
        assert!(!text.contains("call i32 @__mux_sampler_bits"), "{text}");
        assert!(
            !text.contains("call ptr addrspace(2) @__translate"),
            "{text}"
        );
        // The descriptor's fields are read through the image pointer.
        assert!(
            text.contains("getelementptr i8, ptr addrspace(1) %img, i64 8"),
            "{text}"
        );
        assert!(
            text.contains("store i32 %w, ptr addrspace(1) %out"),
            "{text}"
        );
        // A sampler argument's bits are its pointer's integer; a constant
        // sampler's are its initializer.
        assert!(
            text.contains("ptrtoint ptr addrspace(2) %s to i32"),
            "{text}"
        );
        assert!(text.contains("add i32 36, %sampler.bits"), "{text}");
        assert!(
            text.contains("call i32 @other(ptr addrspace(2) %s)"),
            "{text}"
        );
    }
}
