//! The types a lane may hold: numbers and pointers one per lane, fixed
//! vectors of numbers lane after lane.

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMTypeKind;

pub(crate) unsafe fn is_lane_type(ty: LLVMTypeRef) -> bool {
    use LLVMTypeKind::*;
    matches!(
        LLVMGetTypeKind(ty),
        LLVMIntegerTypeKind
            | LLVMFloatTypeKind
            | LLVMDoubleTypeKind
            | LLVMHalfTypeKind
            | LLVMPointerTypeKind
    )
}

pub(crate) unsafe fn is_vector(ty: LLVMTypeRef) -> bool {
    LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMVectorTypeKind
}

/// A fixed vector of numbers (`float8`, `uchar4`): varying, it is held as
/// one vector of all the lanes' elements, lane after lane.
pub(crate) unsafe fn is_packet_type(ty: LLVMTypeRef) -> bool {
    use LLVMTypeKind::*;
    is_vector(ty)
        && matches!(
            LLVMGetTypeKind(LLVMGetElementType(ty)),
            LLVMIntegerTypeKind | LLVMFloatTypeKind | LLVMDoubleTypeKind | LLVMHalfTypeKind
        )
}

/// The elements of `ty` per work-item: 1 for a scalar.
pub(crate) unsafe fn elements(ty: LLVMTypeRef) -> u32 {
    if is_vector(ty) {
        LLVMGetVectorSize(ty)
    } else {
        1
    }
}

pub(crate) unsafe fn type_name(ty: LLVMTypeRef) -> String {
    let p = LLVMPrintTypeToString(ty);
    let s = std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned();
    LLVMDisposeMessage(p);
    s
}
