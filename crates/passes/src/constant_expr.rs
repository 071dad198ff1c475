//! Replacing a global inside one function when some of its uses are
//! constant expressions (`getelementptr (@g, ...)`) or constant vectors
//! (`<@g, @g, ...>`, the vectorizer's splat of it): those are rebuilt as
//! instructions over the replacement.

use compiler::llvm::cstr;
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;

/// A constant whose operands may hold the global: rebuilt when they do.
unsafe fn is_composite(c: LLVMValueRef) -> bool {
    !LLVMIsAConstantExpr(c).is_null() || !LLVMIsAConstantVector(c).is_null()
}

unsafe fn contains(ce: LLVMValueRef, old: LLVMValueRef) -> bool {
    (0..LLVMGetNumOperands(ce) as u32).any(|i| {
        let op = LLVMGetOperand(ce, i);
        op == old || (is_composite(op) && contains(op, old))
    })
}

/// Rebuilds constant expression `ce` as instructions at the builder, with
/// `old` replaced by `new`.
unsafe fn rebuild(
    b: LLVMBuilderRef,
    ce: LLVMValueRef,
    old: LLVMValueRef,
    new: LLVMValueRef,
) -> Result<LLVMValueRef, String> {
    let mut ops = Vec::new();
    for i in 0..LLVMGetNumOperands(ce) as u32 {
        let op = LLVMGetOperand(ce, i);
        ops.push(if op == old {
            new
        } else if is_composite(op) && contains(op, old) {
            rebuild(b, op, old, new)?
        } else {
            op
        });
    }
    let ty = LLVMTypeOf(ce);
    let name = cstr("");
    if !LLVMIsAConstantVector(ce).is_null() {
        let i32t = LLVMInt32TypeInContext(LLVMGetTypeContext(ty));
        let mut v = LLVMGetPoison(ty);
        for (k, op) in ops.into_iter().enumerate() {
            let at = LLVMConstInt(i32t, k as u64, 0);
            v = LLVMBuildInsertElement(b, v, op, at, name.as_ptr());
        }
        return Ok(v);
    }
    Ok(match LLVMGetConstOpcode(ce) {
        LLVMOpcode::LLVMGetElementPtr => {
            let src = LLVMGetGEPSourceElementType(ce);
            let mut idx = ops[1..].to_vec();
            if LLVMIsInBounds(ce) != 0 {
                LLVMBuildInBoundsGEP2(
                    b,
                    src,
                    ops[0],
                    idx.as_mut_ptr(),
                    idx.len() as u32,
                    name.as_ptr(),
                )
            } else {
                LLVMBuildGEP2(
                    b,
                    src,
                    ops[0],
                    idx.as_mut_ptr(),
                    idx.len() as u32,
                    name.as_ptr(),
                )
            }
        }
        op @ (LLVMOpcode::LLVMAddrSpaceCast
        | LLVMOpcode::LLVMBitCast
        | LLVMOpcode::LLVMPtrToInt
        | LLVMOpcode::LLVMIntToPtr
        | LLVMOpcode::LLVMTrunc
        | LLVMOpcode::LLVMZExt
        | LLVMOpcode::LLVMSExt) => LLVMBuildCast(b, op, ops[0], ty, name.as_ptr()),
        // The distance between two fields of a `__local` struct,
        // `(char *)&s.b - (char *)&s`, folds into `sub (ptrtoint ..)`.
        op @ (LLVMOpcode::LLVMAdd
        | LLVMOpcode::LLVMSub
        | LLVMOpcode::LLVMMul
        | LLVMOpcode::LLVMXor
        | LLVMOpcode::LLVMShl) => LLVMBuildBinOp(b, op, ops[0], ops[1], name.as_ptr()),
        op => {
            return Err(format!(
                "unsupported constant expression {op:?} on a __local variable"
            ))
        }
    })
}

/// Replaces every use of `old` by instructions of function `f` with `new`,
/// rebuilding constant expressions on the way. Uses outside `f` stay.
///
/// # Safety
/// All values must be live; `new` must dominate every use in `f`.
pub unsafe fn replace_in_function(
    f: LLVMValueRef,
    old: LLVMValueRef,
    new: LLVMValueRef,
) -> Result<(), String> {
    // Instructions of `f` that use `old`, directly or through constants.
    let mut users = Vec::new();
    let mut stack = vec![old];
    while let Some(v) = stack.pop() {
        let mut u = LLVMGetFirstUse(v);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            if !LLVMIsAInstruction(user).is_null() {
                if LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)) == f
                    && !users.contains(&user)
                {
                    users.push(user);
                }
            } else if is_composite(user) {
                stack.push(user);
            }
            u = LLVMGetNextUse(u);
        }
    }
    let ctx = LLVMGetTypeContext(LLVMTypeOf(f));
    let b = LLVMCreateBuilderInContext(ctx);
    let mut result = Ok(());
    'users: for inst in users {
        for i in 0..LLVMGetNumOperands(inst) as u32 {
            let op = LLVMGetOperand(inst, i);
            if op == old {
                LLVMSetOperand(inst, i, new);
            } else if is_composite(op) && contains(op, old) {
                // A PHI's operand must be computed in its incoming block.
                if !LLVMIsAPHINode(inst).is_null() {
                    let bb = LLVMGetIncomingBlock(inst, i);
                    LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(bb));
                } else {
                    LLVMPositionBuilderBefore(b, inst);
                }
                match rebuild(b, op, old, new) {
                    Ok(v) => LLVMSetOperand(inst, i, v),
                    Err(e) => {
                        result = Err(e);
                        break 'users;
                    }
                }
            }
        }
    }
    LLVMDisposeBuilder(b);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernel_ir::test_support::Ir;

    #[test]
    fn constant_vectors_of_the_global_become_instructions() {
        let ir = Ir::parse(
            r#"
@g = internal addrspace(3) global [4 x float] undef
define <2 x float> @f(ptr addrspace(3) %new, <2 x i64> %i) {
  %p = getelementptr [4 x float], <2 x ptr addrspace(3)> <ptr addrspace(3) @g, ptr addrspace(3) @g>, i64 0, <2 x i64> %i
  %v = call <2 x float> @llvm.masked.gather.v2f32.v2p3(<2 x ptr addrspace(3)> align 4 %p, <2 x i1> splat (i1 true), <2 x float> poison)
  ret <2 x float> %v
}
declare <2 x float> @llvm.masked.gather.v2f32.v2p3(<2 x ptr addrspace(3)>, <2 x i1>, <2 x float>)
"#,
        );
        unsafe {
            let f = ir.function("f");
            let g = LLVMGetNamedGlobal(ir.m, c"g".as_ptr());
            replace_in_function(f, g, LLVMGetParam(f, 0)).unwrap();
            compiler::llvm::verify(ir.m).unwrap();
        }
        let text = ir.text();
        let body = &text[text.find("define").unwrap()..];
        assert!(!body.contains("@g"), "{text}");
        assert!(
            body.contains("insertelement <2 x ptr addrspace(3)>"),
            "{text}"
        );
    }

    #[test]
    fn constant_gep_uses_become_instructions() {
        let ir = Ir::parse(
            r#"
@g = internal addrspace(3) global [4 x i32] undef
define void @f(ptr addrspace(3) %new) {
  store i32 1, ptr addrspace(3) getelementptr inbounds ([4 x i32], ptr addrspace(3) @g, i64 0, i64 2)
  store i32 2, ptr addrspace(3) @g
  ret void
}
"#,
        );
        unsafe {
            let f = ir.function("f");
            let g = LLVMGetNamedGlobal(ir.m, c"g".as_ptr());
            replace_in_function(f, g, LLVMGetParam(f, 0)).unwrap();
            compiler::llvm::verify(ir.m).unwrap();
        }
        let text = ir.text();
        assert!(!text.contains("@g,") && !text.contains("@g\n"), "{text}");
        assert!(
            text.contains("getelementptr inbounds [4 x i32], ptr addrspace(3) %new, i64 0, i64 2"),
            "{text}"
        );
    }

    #[test]
    fn the_distance_between_two_fields_becomes_instructions() {
        let ir = Ir::parse(
            r#"
@s = internal addrspace(3) global { i8, i32 } undef
define i32 @f(ptr addrspace(3) %new) {
  ret i32 trunc (i64 sub (i64 ptrtoint (ptr addrspace(3) getelementptr inbounds (i8, ptr addrspace(3) @s, i64 4) to i64), i64 ptrtoint (ptr addrspace(3) @s to i64)) to i32)
}
"#,
        );
        unsafe {
            let f = ir.function("f");
            let g = LLVMGetNamedGlobal(ir.m, c"s".as_ptr());
            replace_in_function(f, g, LLVMGetParam(f, 0)).unwrap();
            compiler::llvm::verify(ir.m).unwrap();
        }
        let text = ir.text();
        let body = &text[text.find("define").unwrap()..];
        assert!(!body.contains("@s"), "{text}");
        assert!(body.contains("sub i64"), "{text}");
        assert!(
            text.contains("ptrtoint ptr addrspace(3) %new to i64"),
            "{text}"
        );
    }
}
