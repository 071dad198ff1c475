//! Small IR builders the passes share: addresses and loads at byte
//! offsets from a pointer, intrinsic calls, constants of a value's shape.

use compiler::llvm::cstr;
use llvm_sys::core::*;
use llvm_sys::prelude::*;

/// `ptr + offset` in bytes.
///
/// # Safety
/// `b` must be a positioned builder, `i8t` its context's `i8`.
pub unsafe fn byte_gep(
    b: LLVMBuilderRef,
    i8t: LLVMTypeRef,
    p: LLVMValueRef,
    offset: u64,
    name: &str,
) -> LLVMValueRef {
    let ctx = LLVMGetTypeContext(i8t);
    let mut idx = [LLVMConstInt(LLVMInt64TypeInContext(ctx), offset, 0)];
    LLVMBuildInBoundsGEP2(b, i8t, p, idx.as_mut_ptr(), 1, cstr(name).as_ptr())
}

/// Loads an `i64` at `p + offset`.
///
/// # Safety
/// As for [`byte_gep`].
pub unsafe fn load_i64(
    b: LLVMBuilderRef,
    i64t: LLVMTypeRef,
    i8t: LLVMTypeRef,
    p: LLVMValueRef,
    offset: u64,
    name: &str,
) -> LLVMValueRef {
    let at = byte_gep(b, i8t, p, offset, name);
    let l = LLVMBuildLoad2(b, i64t, at, cstr(name).as_ptr());
    LLVMSetAlignment(l, 8);
    l
}

/// A call of intrinsic `name` overloaded on `types` (`llvm.fma` on
/// `<8 x float>`: `&[that type]`).
///
/// # Safety
/// `b` must be a builder positioned in a function of `m`; `args` of the
/// types the intrinsic takes.
pub unsafe fn intrinsic_call(
    m: LLVMModuleRef,
    b: LLVMBuilderRef,
    name: &str,
    types: &[LLVMTypeRef],
    args: &mut [LLVMValueRef],
) -> LLVMValueRef {
    let id = LLVMLookupIntrinsicID(name.as_ptr() as *const _, name.len());
    let mut types = types.to_vec();
    let f = LLVMGetIntrinsicDeclaration(m, id, types.as_mut_ptr(), types.len());
    let fty = LLVMIntrinsicGetType(LLVMGetModuleContext(m), id, types.as_mut_ptr(), types.len());
    LLVMBuildCall2(
        b,
        fty,
        f,
        args.as_mut_ptr(),
        args.len() as u32,
        c"".as_ptr(),
    )
}

/// `elem`, or a vector of it as long as `shape` when that is a vector.
///
/// # Safety
/// Both must be live types of one context.
pub unsafe fn same_shape(shape: LLVMTypeRef, elem: LLVMTypeRef) -> LLVMTypeRef {
    match LLVMGetTypeKind(shape) {
        llvm_sys::LLVMTypeKind::LLVMVectorTypeKind => {
            LLVMVectorType(elem, LLVMGetVectorSize(shape))
        }
        _ => elem,
    }
}

/// The kind of `t`'s elements: its own kind for a scalar type.
///
/// # Safety
/// `t` must be a live type.
pub unsafe fn element_kind(t: LLVMTypeRef) -> llvm_sys::LLVMTypeKind {
    match LLVMGetTypeKind(t) {
        llvm_sys::LLVMTypeKind::LLVMVectorTypeKind => LLVMGetTypeKind(LLVMGetElementType(t)),
        k => k,
    }
}

/// The constant `value` of integer type `t`, or of a vector of it: each
/// lane.
///
/// # Safety
/// `t` must be a live integer type or vector of one.
pub unsafe fn splat_int(t: LLVMTypeRef, value: u64) -> LLVMValueRef {
    if LLVMGetTypeKind(t) == llvm_sys::LLVMTypeKind::LLVMVectorTypeKind {
        let e = LLVMConstInt(LLVMGetElementType(t), value, 0);
        let mut elems = vec![e; LLVMGetVectorSize(t) as usize];
        LLVMConstVector(elems.as_mut_ptr(), elems.len() as u32)
    } else {
        LLVMConstInt(t, value, 0)
    }
}
