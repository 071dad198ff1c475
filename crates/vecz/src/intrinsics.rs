//! The LLVM intrinsics that work lane by lane, which a vector form calls
//! on vectors.

use llvm_sys::core::*;
use llvm_sys::prelude::*;

/// Intrinsics that work lane by lane, with the argument positions that
/// stay scalar (and must be uniform).
pub(crate) const LANEWISE: &[(&str, &[u32])] = &[
    ("llvm.fmuladd", &[]),
    ("llvm.fma", &[]),
    ("llvm.fabs", &[]),
    ("llvm.sqrt", &[]),
    ("llvm.minnum", &[]),
    ("llvm.maxnum", &[]),
    ("llvm.minimum", &[]),
    ("llvm.maximum", &[]),
    ("llvm.minimumnum", &[]),
    ("llvm.maximumnum", &[]),
    ("llvm.copysign", &[]),
    ("llvm.floor", &[]),
    ("llvm.ceil", &[]),
    ("llvm.trunc", &[]),
    ("llvm.rint", &[]),
    ("llvm.nearbyint", &[]),
    ("llvm.round", &[]),
    ("llvm.roundeven", &[]),
    ("llvm.canonicalize", &[]),
    ("llvm.smin", &[]),
    ("llvm.smax", &[]),
    ("llvm.umin", &[]),
    ("llvm.umax", &[]),
    ("llvm.ctpop", &[]),
    ("llvm.bswap", &[]),
    ("llvm.bitreverse", &[]),
    ("llvm.fshl", &[]),
    ("llvm.fshr", &[]),
    ("llvm.sadd.sat", &[]),
    ("llvm.uadd.sat", &[]),
    ("llvm.ssub.sat", &[]),
    ("llvm.usub.sat", &[]),
    ("llvm.abs", &[1]),
    ("llvm.ctlz", &[1]),
    ("llvm.cttz", &[1]),
    ("llvm.is.fpclass", &[1]),
];

/// The base name of an intrinsic call's callee (`llvm.fmuladd`).
pub(crate) unsafe fn intrinsic_name(f: LLVMValueRef) -> Option<String> {
    let id = LLVMGetIntrinsicID(f);
    if id == 0 {
        return None;
    }
    let mut len = 0;
    let p = LLVMIntrinsicGetName(id, &mut len);
    Some(String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len)).into_owned())
}

pub(crate) fn lanewise(name: &str) -> Option<&'static [u32]> {
    LANEWISE.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// Whether `call` is `llvm.assume`: a hint about each work-item that the
/// vector form may drop (the scalar form keeps it).
pub(crate) unsafe fn is_assume(call: LLVMValueRef) -> bool {
    let f = LLVMGetCalledValue(call);
    !f.is_null() && LLVMIsAFunction(f) == f && intrinsic_name(f).is_some_and(|n| n == "llvm.assume")
}
