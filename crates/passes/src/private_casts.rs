//! A private variable reached through a generic pointer (`addrspacecast`
//! of its `alloca` to the generic address space, as SPIR-V from DPC++
//! reaches every member of a struct it keeps in registers) is reached
//! through its own pointer again, where the cast's every use is an
//! address computation, a load or a store. On this target every address
//! space is the one flat memory, so the cast changes no address; without
//! it SROA makes values of the variable, and `vecz` keeps its arrays per
//! lane.

use compiler::llvm;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode::*;

/// Folds the generic casts of `f`'s allocas; returns how many.
///
/// # Safety
/// `f` must be a live function whose context this thread owns.
pub unsafe fn run(f: LLVMValueRef) -> usize {
    let b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(f)));
    let mut folded = 0;
    for i in llvm::instructions(f) {
        if LLVMGetInstructionOpcode(i) != LLVMAddrSpaceCast
            || LLVMIsAAllocaInst(LLVMGetOperand(i, 0)).is_null()
            || !only_addressed(i)
        {
            continue;
        }
        rebase(b, i, LLVMGetOperand(i, 0));
        LLVMInstructionEraseFromParent(i);
        folded += 1;
    }
    LLVMDisposeBuilder(b);
    folded
}

/// Whether every use of pointer `p`, and of the addresses computed from
/// it, is a GEP from it, or the address of a load or store.
unsafe fn only_addressed(p: LLVMValueRef) -> bool {
    llvm::users(p)
        .into_iter()
        .all(|u| match LLVMGetInstructionOpcode(u) {
            LLVMGetElementPtr => LLVMGetOperand(u, 0) == p && only_addressed(u),
            LLVMLoad => LLVMGetVolatile(u) == 0,
            LLVMStore => LLVMGetOperand(u, 1) == p && LLVMGetVolatile(u) == 0,
            _ => false,
        })
}

/// Makes the uses of `generic` (accepted by [`only_addressed`]) use
/// `private` instead: each GEP rebuilt on it, loads and stores pointed at
/// it. The GEPs left without uses are erased.
unsafe fn rebase(b: LLVMBuilderRef, generic: LLVMValueRef, private: LLVMValueRef) {
    for u in llvm::users(generic) {
        match LLVMGetInstructionOpcode(u) {
            LLVMGetElementPtr => {
                LLVMPositionBuilderBefore(b, u);
                let mut indices: Vec<LLVMValueRef> = (1..LLVMGetNumOperands(u) as u32)
                    .map(|k| LLVMGetOperand(u, k))
                    .collect();
                let ty = LLVMGetGEPSourceElementType(u);
                // The rebuilt GEP takes the name.
                let name = llvm::cstr(&llvm::name(u));
                LLVMSetValueName2(u, c"".as_ptr(), 0);
                let gep = if LLVMIsInBounds(u) != 0 {
                    LLVMBuildInBoundsGEP2(
                        b,
                        ty,
                        private,
                        indices.as_mut_ptr(),
                        indices.len() as u32,
                        name.as_ptr(),
                    )
                } else {
                    LLVMBuildGEP2(
                        b,
                        ty,
                        private,
                        indices.as_mut_ptr(),
                        indices.len() as u32,
                        name.as_ptr(),
                    )
                };
                rebase(b, u, gep);
                LLVMInstructionEraseFromParent(u);
            }
            LLVMLoad => LLVMSetOperand(u, 0, private),
            _ => LLVMSetOperand(u, 1, private),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    #[test]
    fn a_private_struct_reached_generically_is_reached_directly() {
        let ir = Ir::parse(
            r#"
%pair = type { i32, [4 x float] }
define float @f(i64 %i, ptr addrspace(1) %out) {
entry:
  %s = alloca %pair, align 4
  %g = addrspacecast ptr %s to ptr addrspace(4)
  %arr = getelementptr inbounds %pair, ptr addrspace(4) %g, i64 0, i32 1
  %at = getelementptr inbounds [4 x float], ptr addrspace(4) %arr, i64 0, i64 %i
  store float 1.0, ptr addrspace(4) %at, align 4
  %x = load float, ptr addrspace(4) %at, align 4
  %escaping = alloca float, align 4
  %h = addrspacecast ptr %escaping to ptr addrspace(4)
  store ptr addrspace(4) %h, ptr addrspace(1) %out
  ret float %x
}
"#,
        );
        unsafe {
            assert_eq!(run(ir.function("f")), 1);
            compiler::llvm::verify(ir.m).unwrap();
        }
        let text = ir.text();
        assert!(
            text.contains("%arr = getelementptr inbounds %pair, ptr %s, i64 0, i32 1"),
            "{text}"
        );
        assert!(text.contains("store float 1.000000e+00, ptr %at"), "{text}");
        assert!(text.contains("load float, ptr %at"), "{text}");
        assert!(!text.contains("%g = addrspacecast"), "{text}");
        // A cast whose pointer is stored somewhere stays.
        assert!(text.contains("%h = addrspacecast ptr %escaping"), "{text}");
    }
}
