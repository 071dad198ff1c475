//! Private arrays the vector form keeps one per lane: an `alloca` of
//! numbers (or arrays of them) read and written through GEPs with any
//! index, each access one element, and filled by `memset` (`float a[4] =
//! {0}`) over whole elements. The vector form lays the lanes' arrays
//! element by element (element `e` of lane `l` at `(e * width + l) *
//! size`), so an index the same for every lane reads or writes one whole
//! vector, and another is a gather or a scatter.

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::target::{LLVMABISizeOfType, LLVMGetModuleDataLayout};
use llvm_sys::{LLVMOpcode, LLVMTypeKind};

/// The bytes of all lanes' copies of a private array the vector form
/// takes: it lives on the work-group function's stack.
pub(crate) const MOST_BYTES: u64 = 64 * 1024;

/// An `alloca` the vector form keeps per lane.
pub(crate) struct PrivateArray {
    /// Bytes of one lane's array.
    pub(crate) bytes: u64,
    /// Bytes of each element read or written.
    pub(crate) element: u64,
}

/// Whether `a` (an `alloca` of module `m`) is a private array the vector
/// form keeps per lane: of numbers, one of them (no array count), used only
/// through GEPs over numbers and arrays of them, as the address of loads
/// and stores of numbers all of one size, of fills of whole elements, and
/// by lifetime markers.
pub(crate) unsafe fn private_array(m: LLVMModuleRef, a: LLVMValueRef) -> Option<PrivateArray> {
    let layout = LLVMGetModuleDataLayout(m);
    let ty = LLVMGetAllocatedType(a);
    let count = LLVMGetOperand(a, 0);
    if LLVMIsAConstantInt(count).is_null() || LLVMConstIntGetZExtValue(count) != 1 {
        return None;
    }
    let scalar = innermost(ty)?;
    let element = LLVMABISizeOfType(layout, scalar);
    let bytes = LLVMABISizeOfType(layout, ty);
    let mut work = vec![a];
    while let Some(p) = work.pop() {
        let mut u = LLVMGetFirstUse(p);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            u = LLVMGetNextUse(u);
            if LLVMIsAInstruction(user).is_null() {
                return None;
            }
            match LLVMGetInstructionOpcode(user) {
                LLVMOpcode::LLVMGetElementPtr if LLVMGetOperand(user, 0) == p => {
                    // Arrays of numbers alone: every index steps over
                    // whole elements of the array's own numbers.
                    let source = LLVMGetGEPSourceElementType(user);
                    let mut t = source;
                    for _ in 2..LLVMGetNumOperands(user) {
                        if LLVMGetTypeKind(t) != LLVMTypeKind::LLVMArrayTypeKind {
                            return None;
                        }
                        t = LLVMGetElementType(t);
                    }
                    innermost(source)?;
                    work.push(user);
                }
                LLVMOpcode::LLVMLoad => {
                    if !number(LLVMTypeOf(user))
                        || LLVMABISizeOfType(layout, LLVMTypeOf(user)) != element
                    {
                        return None;
                    }
                }
                LLVMOpcode::LLVMStore => {
                    let value = LLVMGetOperand(user, 0);
                    if value == p
                        || !number(LLVMTypeOf(value))
                        || LLVMABISizeOfType(layout, LLVMTypeOf(value)) != element
                    {
                        return None;
                    }
                }
                LLVMOpcode::LLVMCall if is_lifetime_marker(user) => {}
                LLVMOpcode::LLVMCall
                    if fill_length(user).is_some_and(|n| n % element == 0)
                        && LLVMGetOperand(user, 0) == p => {}
                _ => return None,
            }
        }
    }
    Some(PrivateArray { bytes, element })
}

pub(crate) use kernel_ir::builtin_kinds::is_lifetime_marker;

/// The bytes `call` fills, if it is a `memset` of a constant length, not
/// volatile.
pub(crate) unsafe fn fill_length(call: LLVMValueRef) -> Option<u64> {
    let name = crate::intrinsics::intrinsic_name(LLVMGetCalledValue(call))?;
    if name != "llvm.memset" {
        return None;
    }
    let (length, volatile) = (LLVMGetOperand(call, 2), LLVMGetOperand(call, 3));
    if LLVMIsAConstantInt(length).is_null() || LLVMConstIntGetZExtValue(volatile) != 0 {
        return None;
    }
    Some(LLVMConstIntGetZExtValue(length))
}

/// Whether `p` points into an `alloca` of module `m` the vector form keeps
/// per lane.
pub(crate) unsafe fn into_private_array(m: LLVMModuleRef, mut p: LLVMValueRef) -> bool {
    while !LLVMIsAGetElementPtrInst(p).is_null() {
        p = LLVMGetOperand(p, 0);
    }
    !LLVMIsAAllocaInst(p).is_null() && private_array(m, p).is_some()
}

/// The number type inside arrays of arrays of `ty`, if that is all it is.
unsafe fn innermost(mut ty: LLVMTypeRef) -> Option<LLVMTypeRef> {
    while LLVMGetTypeKind(ty) == LLVMTypeKind::LLVMArrayTypeKind {
        ty = LLVMGetElementType(ty);
    }
    number(ty).then_some(ty)
}

unsafe fn number(ty: LLVMTypeRef) -> bool {
    use LLVMTypeKind::*;
    matches!(
        LLVMGetTypeKind(ty),
        LLVMIntegerTypeKind | LLVMFloatTypeKind | LLVMDoubleTypeKind | LLVMHalfTypeKind
    )
}
