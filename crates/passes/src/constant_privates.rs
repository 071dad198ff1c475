//! A private variable that is only ever set to one constant (the zero a
//! padded view reads past its ends: `*(inside ? p : &zero)`, as DPC++'s
//! `dpnp` kernels do) becomes a constant of the program. Its address may
//! then go where the variable's could not be followed (a `select` with a
//! pointer into a buffer) and still be the same for every work-item, so
//! `vecz` need not keep it per lane; SROA cannot take it, as the loads
//! through the `select` may read either.

use compiler::llvm;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode::*;

/// Makes such variables of `f` constants of module `m`; returns how many.
///
/// # Safety
/// `m` must be a live module whose context this thread owns, `f` a
/// function defined in it.
pub unsafe fn run(m: LLVMModuleRef, f: LLVMValueRef) -> usize {
    let mut made = 0;
    for a in llvm::instructions(f) {
        if LLVMIsAAllocaInst(a).is_null() {
            continue;
        }
        let count = LLVMGetOperand(a, 0);
        if LLVMIsAConstantInt(count).is_null() || LLVMConstIntGetZExtValue(count) != 1 {
            continue;
        }
        let Some((value, stores)) = set_once(a) else {
            continue;
        };
        let own = llvm::name(a);
        let own = if own.is_empty() {
            "constant".into()
        } else {
            own
        };
        let name = llvm::cstr(&format!("{}.{own}", llvm::name(f)));
        let g = LLVMAddGlobalInAddressSpace(m, LLVMGetAllocatedType(a), name.as_ptr(), 0);
        LLVMSetInitializer(g, value);
        LLVMSetGlobalConstant(g, 1);
        LLVMSetLinkage(g, llvm_sys::LLVMLinkage::LLVMPrivateLinkage);
        LLVMSetAlignment(g, LLVMGetAlignment(a));
        for s in stores {
            LLVMInstructionEraseFromParent(s);
        }
        LLVMReplaceAllUsesWith(a, g);
        LLVMInstructionEraseFromParent(a);
        made += 1;
    }
    made
}

/// The one constant alloca `a` is set to and the stores that set it, if
/// it is a number or pointer stored whole, only that constant, only
/// straight to it (or through casts of it), and its address otherwise
/// goes only to loads, through casts, `select`s and phis.
unsafe fn set_once(a: LLVMValueRef) -> Option<(LLVMValueRef, Vec<LLVMValueRef>)> {
    use llvm_sys::LLVMTypeKind::*;
    let ty = LLVMGetAllocatedType(a);
    if !matches!(
        LLVMGetTypeKind(ty),
        LLVMIntegerTypeKind | LLVMFloatTypeKind | LLVMDoubleTypeKind | LLVMHalfTypeKind
    ) {
        return None;
    }
    let (mut value, mut stores) = (None, Vec::new());
    // (address, whether it is the variable's own: a store may go there)
    let mut work = vec![(a, true)];
    let mut seen = std::collections::HashSet::new();
    while let Some((p, own)) = work.pop() {
        if !seen.insert(p) {
            continue;
        }
        let mut u = LLVMGetFirstUse(p);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            u = LLVMGetNextUse(u);
            match LLVMGetInstructionOpcode(user) {
                LLVMLoad if LLVMGetVolatile(user) == 0 && LLVMTypeOf(user) == ty => {}
                LLVMStore if own && LLVMGetOperand(user, 1) == p => {
                    let v = LLVMGetOperand(user, 0);
                    if LLVMIsAConstant(v).is_null()
                        || LLVMTypeOf(v) != ty
                        || LLVMGetVolatile(user) != 0
                        || value.is_some_and(|w| w != v)
                    {
                        return None;
                    }
                    value = Some(v);
                    stores.push(user);
                }
                LLVMAddrSpaceCast => work.push((user, own)),
                LLVMSelect | LLVMPHI => work.push((user, false)),
                LLVMCall if kernel_ir::builtin_kinds::is_lifetime_marker(user) && own => {
                    stores.push(user)
                }
                _ => return None,
            }
        }
    }
    Some((value?, stores))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    const PADDED: &str = r#"
define float @f(ptr addrspace(4) %p, i1 %inside) {
entry:
  %zero = alloca float, align 4
  store float 0.0, ptr %zero, align 4
  %z = addrspacecast ptr %zero to ptr addrspace(4)
  %at = select i1 %inside, ptr addrspace(4) %p, ptr addrspace(4) %z
  %x = load float, ptr addrspace(4) %at, align 4
  ret float %x
}
"#;

    #[test]
    fn a_variable_set_to_one_constant_becomes_a_constant() {
        let ir = Ir::parse(PADDED);
        unsafe {
            assert_eq!(run(ir.m, ir.function("f")), 1);
            compiler::llvm::verify(ir.m).unwrap();
        }
        let text = ir.text();
        assert!(
            text.contains("@f.zero = private constant float 0.000000e+00, align 4"),
            "{text}"
        );
        assert!(
            text.contains("%z = addrspacecast ptr @f.zero to ptr addrspace(4)"),
            "{text}"
        );
        assert!(
            !text.contains("alloca") && !text.contains("store"),
            "{text}"
        );
    }

    #[test]
    fn a_variable_set_to_two_values_or_written_through_a_select_stays() {
        for (from, to) in [
            (
                "store float 0.0, ptr %zero, align 4\n",
                "store float 0.0, ptr %zero, align 4\n  store float 1.0, ptr %zero, align 4\n",
            ),
            (
                "ret float %x",
                "store float 0.0, ptr addrspace(4) %at, align 4\n  ret float %x",
            ),
        ] {
            let ir = Ir::parse(&PADDED.replace(from, to));
            unsafe { assert_eq!(run(ir.m, ir.function("f")), 0, "{to}") };
            assert!(ir.text().contains("alloca"));
        }
    }
}
