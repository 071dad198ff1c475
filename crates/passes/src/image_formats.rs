//! An image argument's format, known at the launch, as constants: the
//! loads of its descriptor's channel order, channel type and element size
//! become the values the specialization names. The image functions branch
//! on those (`image_texel.h`); with constants the branches fold, and a
//! work-item loop reading an image is straight-line code that vectorizes.

use compiler::llvm;
use compiler::ImageFormat;
use libimg::KernelImage;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use std::mem::offset_of;

/// Replaces the format loads of `k`'s image arguments named in `formats`;
/// returns how many. `k` must have had `image_arguments` run on it, so
/// that its descriptor loads are from the argument itself.
///
/// # Safety
/// `k` must be a live function whose context this thread owns.
pub unsafe fn run(k: LLVMValueRef, formats: &[Option<ImageFormat>]) -> usize {
    let ctx = LLVMGetTypeContext(LLVMTypeOf(k));
    let i32t = LLVMInt32TypeInContext(ctx);
    let mut replaced = 0;
    for f in formats.iter().flatten() {
        if f.arg >= LLVMCountParams(k) {
            continue;
        }
        let fields = [
            (offset_of!(KernelImage, channel_order), f.channel_order),
            (
                offset_of!(KernelImage, channel_data_type),
                f.channel_data_type,
            ),
            (offset_of!(KernelImage, element_size), f.element_size),
        ];
        let image = LLVMGetParam(k, f.arg);
        for gep in llvm::users(image) {
            let Some(offset) = byte_offset(gep) else {
                continue;
            };
            let Some(&(_, value)) = fields.iter().find(|(o, _)| *o as u64 == offset) else {
                continue;
            };
            for load in llvm::users(gep) {
                if LLVMIsALoadInst(load).is_null() || LLVMTypeOf(load) != i32t {
                    continue;
                }
                LLVMReplaceAllUsesWith(load, LLVMConstInt(i32t, value as u64, 0));
                LLVMInstructionEraseFromParent(load);
                replaced += 1;
            }
        }
    }
    replaced
}

/// The constant byte offset of `getelementptr i8, ptr %p, i64 C`.
unsafe fn byte_offset(gep: LLVMValueRef) -> Option<u64> {
    if LLVMIsAGetElementPtrInst(gep).is_null() || LLVMGetNumOperands(gep) != 2 {
        return None;
    }
    let ty = LLVMGetGEPSourceElementType(gep);
    if LLVMGetTypeKind(ty) != llvm_sys::LLVMTypeKind::LLVMIntegerTypeKind
        || LLVMGetIntTypeWidth(ty) != 8
    {
        return None;
    }
    let index = LLVMGetOperand(gep, 1);
    (!LLVMIsAConstantInt(index).is_null()).then(|| LLVMConstIntGetZExtValue(index))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    #[test]
    fn format_loads_of_a_known_image_become_constants() {
        let ir = Ir::parse(
            r#"
define i32 @k(ptr addrspace(1) %known, ptr addrspace(1) %other) {
  %op = getelementptr inbounds nuw i8, ptr addrspace(1) %known, i64 40
  %order = load i32, ptr addrspace(1) %op
  %tp = getelementptr inbounds nuw i8, ptr addrspace(1) %known, i64 44
  %type = load i32, ptr addrspace(1) %tp
  %ep = getelementptr i8, ptr addrspace(1) %known, i64 48
  %size = load i32, ptr addrspace(1) %ep
  %wp = getelementptr i8, ptr addrspace(1) %known, i64 8
  %width = load i32, ptr addrspace(1) %wp
  %xp = getelementptr i8, ptr addrspace(1) %other, i64 40
  %xorder = load i32, ptr addrspace(1) %xp
  %a = add i32 %order, %type
  %b = add i32 %a, %size
  %c = add i32 %b, %width
  %d = add i32 %c, %xorder
  ret i32 %d
}
"#,
        );
        let f = ImageFormat {
            arg: 0,
            channel_order: 0x10b5,
            channel_data_type: 0x10d2,
            element_size: 4,
        };
        let n = unsafe { run(ir.function("k"), &[Some(f), None]) };
        assert_eq!(n, 3);
        unsafe { compiler::llvm::verify(ir.m).unwrap() };
        let text = ir.text();
        // The known image's format folds; its width and the other
        // image's format stay loads.
        assert!(text.contains("add i32 4277, 4306"), "{text}");
        assert!(text.contains("%b = add i32 %a, 4"), "{text}");
        assert!(text.contains("%width = load i32"), "{text}");
        assert!(text.contains("%xorder = load i32"), "{text}");
    }
}
