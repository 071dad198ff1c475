//! Small wrappers over LLVM's C API.

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use std::ffi::CString;

/// A C string for LLVM (an interior NUL, which no name needs, is dropped).
pub fn cstr(s: &str) -> CString {
    CString::new(s.replace('\0', "")).unwrap_or_default()
}

/// An empty name, for values LLVM may number.
pub const NONAME: *const std::ffi::c_char = c"".as_ptr();

pub unsafe fn int(ctx: LLVMContextRef, bits: u32) -> LLVMTypeRef {
    LLVMIntTypeInContext(ctx, bits)
}

pub unsafe fn i32c(ctx: LLVMContextRef, v: u64) -> LLVMValueRef {
    LLVMConstInt(LLVMInt32TypeInContext(ctx), v, 0)
}

pub unsafe fn i64c(ctx: LLVMContextRef, v: u64) -> LLVMValueRef {
    LLVMConstInt(LLVMInt64TypeInContext(ctx), v, 0)
}

pub unsafe fn ptr(ctx: LLVMContextRef, space: u32) -> LLVMTypeRef {
    LLVMPointerTypeInContext(ctx, space)
}

pub unsafe fn void(ctx: LLVMContextRef) -> LLVMTypeRef {
    LLVMVoidTypeInContext(ctx)
}

/// An enum attribute (`nounwind`, `convergent`...) by name.
pub unsafe fn enum_attr(ctx: LLVMContextRef, name: &str, value: u64) -> LLVMAttributeRef {
    let kind = LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len());
    LLVMCreateEnumAttribute(ctx, kind, value)
}

/// A type attribute (`byval(T)`, `sret(T)`) by name.
pub unsafe fn type_attr(ctx: LLVMContextRef, name: &str, ty: LLVMTypeRef) -> LLVMAttributeRef {
    let kind = LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len());
    LLVMCreateTypeAttribute(ctx, kind, ty)
}

pub unsafe fn string_attr(ctx: LLVMContextRef, key: &str, value: &str) -> LLVMAttributeRef {
    LLVMCreateStringAttribute(
        ctx,
        key.as_ptr().cast(),
        key.len() as u32,
        value.as_ptr().cast(),
        value.len() as u32,
    )
}

/// The declaration of intrinsic `name` for the overloaded types `tys`.
pub unsafe fn intrinsic(m: LLVMModuleRef, name: &str, tys: &[LLVMTypeRef]) -> LLVMValueRef {
    let id = LLVMLookupIntrinsicID(name.as_ptr().cast(), name.len());
    let mut tys = tys.to_vec();
    LLVMGetIntrinsicDeclaration(m, id, tys.as_mut_ptr(), tys.len())
}

/// Calls `f` (of function type `fty`) with `args`.
pub unsafe fn call(
    b: LLVMBuilderRef,
    fty: LLVMTypeRef,
    f: LLVMValueRef,
    args: &[LLVMValueRef],
) -> LLVMValueRef {
    let mut args = args.to_vec();
    LLVMBuildCall2(b, fty, f, args.as_mut_ptr(), args.len() as u32, NONAME)
}

/// Calls intrinsic `name` overloaded on `tys`.
pub unsafe fn call_intrinsic(
    m: LLVMModuleRef,
    b: LLVMBuilderRef,
    name: &str,
    tys: &[LLVMTypeRef],
    args: &[LLVMValueRef],
) -> LLVMValueRef {
    let f = intrinsic(m, name, tys);
    call(b, LLVMGlobalGetValueType(f), f, args)
}

/// A metadata node of `values` attached to function `f` as `kind`.
pub unsafe fn set_function_metadata(f: LLVMValueRef, kind: &str, values: &[LLVMMetadataRef]) {
    let ctx = LLVMGetTypeContext(LLVMTypeOf(f));
    let id = LLVMGetMDKindIDInContext(ctx, kind.as_ptr().cast(), kind.len() as u32);
    let mut v = values.to_vec();
    let node = LLVMMDNodeInContext2(ctx, v.as_mut_ptr(), v.len());
    LLVMGlobalSetMetadata(f, id, node);
}

pub unsafe fn md_string(ctx: LLVMContextRef, s: &str) -> LLVMMetadataRef {
    LLVMMDStringInContext2(ctx, s.as_ptr().cast(), s.len())
}

pub unsafe fn md_value(v: LLVMValueRef) -> LLVMMetadataRef {
    LLVMValueAsMetadata(v)
}
