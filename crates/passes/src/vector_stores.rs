//! Stores of a vector assembled lane by lane from scalars, as
//! `out[i] = (float2)(call, put)` compiles, become one store per lane. The
//! loop vectorizer, which widens the work-item loop across work-items,
//! gives up on a loop holding a vector-typed store; with scalar stores it
//! vectorizes the loop, and the lanes' stores become wide interleaved ones.
//! Where the loop is not vectorized, the SLP vectorizer merges the stores
//! again.

use compiler::llvm;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::{LLVMABISizeOfType, LLVMGetModuleDataLayout, LLVMSizeOfTypeInBits};
use llvm_sys::LLVMTypeKind;

/// Splits the stores of `f` whose value is a chain of `insertelement`s
/// with constant indices that sets every lane.
///
/// # Safety
/// `f` must be a live function definition.
pub unsafe fn run(f: LLVMValueRef) {
    let ctx = LLVMGetTypeContext(LLVMTypeOf(f));
    let access_group = LLVMGetMDKindIDInContext(ctx, c"llvm.access.group".as_ptr(), 17);
    let builder = LLVMCreateBuilderInContext(ctx);
    let i64t = LLVMInt64TypeInContext(ctx);
    for store in llvm::instructions(f) {
        if LLVMIsAStoreInst(store).is_null() || LLVMGetVolatile(store) != 0 {
            continue;
        }
        let value = LLVMGetOperand(store, 0);
        let Some(lanes) = lanes(value) else {
            continue;
        };
        let ptr = LLVMGetOperand(store, 1);
        let elem = LLVMGetElementType(LLVMTypeOf(value));
        let layout = LLVMGetModuleDataLayout(LLVMGetGlobalParent(f));
        let size = LLVMABISizeOfType(layout, elem) as u32;
        // Lanes that are not whole bytes (i1) are packed in memory.
        if LLVMSizeOfTypeInBits(layout, elem) != 8 * size as u64 {
            continue;
        }
        let align = LLVMGetAlignment(store);
        let group = LLVMGetMetadata(store, access_group);
        LLVMPositionBuilderBefore(builder, store);
        for (l, &lane) in lanes.iter().enumerate() {
            let p = if l == 0 {
                ptr
            } else {
                let mut index = [LLVMConstInt(i64t, l as u64, 0)];
                LLVMBuildInBoundsGEP2(builder, elem, ptr, index.as_mut_ptr(), 1, c"".as_ptr())
            };
            let s = LLVMBuildStore(builder, lane, p);
            // The largest power of two dividing both: what the lane's
            // address is known to be aligned to.
            let offset = l as u32 * size;
            let lane_align = if offset == 0 {
                align
            } else {
                align.min(1 << offset.trailing_zeros())
            };
            LLVMSetAlignment(s, lane_align.max(1));
            // The work-item loop is parallel for the accesses of its group.
            if !group.is_null() {
                LLVMSetMetadata(s, access_group, group);
            }
        }
        LLVMInstructionEraseFromParent(store);
    }
    LLVMDisposeBuilder(builder);
}

/// The scalar of each lane of `v`, if `v` is built by `insertelement`s at
/// constant indices that set every lane (the last one written wins).
unsafe fn lanes(v: LLVMValueRef) -> Option<Vec<LLVMValueRef>> {
    let ty = LLVMTypeOf(v);
    if LLVMGetTypeKind(ty) != LLVMTypeKind::LLVMVectorTypeKind {
        return None;
    }
    let n = LLVMGetVectorSize(ty) as usize;
    let mut lanes: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); n];
    let mut missing = n;
    let mut cur = v;
    while missing > 0 {
        if LLVMIsAInsertElementInst(cur).is_null() {
            return None;
        }
        let index = LLVMGetOperand(cur, 2);
        if LLVMIsAConstantInt(index).is_null() {
            return None;
        }
        let i = LLVMConstIntGetZExtValue(index) as usize;
        if i >= n {
            return None;
        }
        if lanes[i].is_null() {
            lanes[i] = LLVMGetOperand(cur, 1);
            missing -= 1;
        }
        cur = LLVMGetOperand(cur, 0);
    }
    Some(lanes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    #[test]
    fn a_vector_built_from_scalars_is_stored_lane_by_lane() {
        let ir = Ir::parse(
            r#"
define void @wg(ptr addrspace(1) %p, float %a, float %b, <2 x float> %w) {
  %v0 = insertelement <2 x float> poison, float %a, i32 0
  %v1 = insertelement <2 x float> %v0, float %b, i32 1
  store <2 x float> %v1, ptr addrspace(1) %p, align 8, !llvm.access.group !0
  %q = getelementptr <2 x float>, ptr addrspace(1) %p, i64 1
  store <2 x float> %w, ptr addrspace(1) %q, align 8
  %b0 = insertelement <2 x i1> poison, i1 true, i32 0
  %b1 = insertelement <2 x i1> %b0, i1 false, i32 1
  store <2 x i1> %b1, ptr addrspace(1) %p
  ret void
}
!0 = distinct !{}
"#,
        );
        unsafe { run(ir.function("wg")) };
        let text = ir.text();
        assert!(
            text.contains("store float %a, ptr addrspace(1) %p, align 8, !llvm.access.group !0"),
            "{text}"
        );
        assert!(
            text.contains("store float %b, ptr addrspace(1) %"),
            "{text}"
        );
        assert!(text.contains(", align 4, !llvm.access.group !0"), "{text}");
        // Bits are packed: stored whole.
        assert!(text.contains("store <2 x i1> %b1"), "{text}");
        // A vector from elsewhere is stored whole.
        assert!(text.contains("store <2 x float> %w"), "{text}");
        assert!(!text.contains("store <2 x float> %v1"), "{text}");
    }
}
