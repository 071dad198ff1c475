//! What a call of the builtins is, told by its callee's name: a query of
//! the `__mux_get_*` family (the work-item functions and the scratches),
//! the local id among them (the one that differs between work-items), a
//! barrier of a work-group or of a sub-group, the work-group collectives'
//! scratch. Which sub-group function a call is: [`crate::sub_group_calls`].

/// The `__mux_*` builtins' names.
pub use builtins::mux as names;
use compiler::llvm;
use llvm_sys::core::*;
use llvm_sys::prelude::*;

/// Whether `name` is one of the `__mux_get_*` queries: the work-item
/// functions (ids, sizes, the work dimension), the sub-group width, the
/// work-group's and sub-group's scratch, the printf buffer. None has side
/// effects, and all but the local id give every work-item of a group the
/// same answer.
pub fn is_query(name: &str) -> bool {
    name.starts_with("__mux_get_")
}

/// Whether `name` is `__mux_get_local_id`, the query whose answer
/// differs between the work-items of a group.
pub fn is_local_id(name: &str) -> bool {
    name == names::GET_LOCAL_ID
}

/// The OpenCL C name and the mangled parameter types of a builtin's
/// mangled `name` (`_Z3expf`: `exp`, `f`).
pub fn demangle(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix("_Z")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    let body = rest.get(digits..digits + len)?;
    Some((body, &rest[digits + len..]))
}

/// Whether `name` (mangled) is one of the OpenCL C math functions whose
/// bodies are long chains of arithmetic: exponentials, logarithms, powers,
/// roots, the trigonometric, hyperbolic, error and gamma functions.
pub fn is_transcendental(name: &str) -> bool {
    let Some((base, _)) = demangle(name) else {
        return false;
    };
    matches!(
        base,
        "exp"
            | "exp2"
            | "exp10"
            | "expm1"
            | "log"
            | "log2"
            | "log10"
            | "log1p"
            | "pow"
            | "powr"
            | "pown"
            | "rootn"
            | "cbrt"
            | "hypot"
            | "sin"
            | "cos"
            | "tan"
            | "sincos"
            | "asin"
            | "acos"
            | "atan"
            | "atan2"
            | "sinpi"
            | "cospi"
            | "tanpi"
            | "asinpi"
            | "acospi"
            | "atanpi"
            | "atan2pi"
            | "sinh"
            | "cosh"
            | "tanh"
            | "asinh"
            | "acosh"
            | "atanh"
            | "erf"
            | "erfc"
            | "tgamma"
            | "lgamma"
            | "lgamma_r"
    )
}

/// Whether `name` is the work-group collectives' scratch, where their
/// work-items combine their values one work-item after the other.
pub fn is_work_group_scratch(name: &str) -> bool {
    name == names::GET_WORK_GROUP_SCRATCH
}

/// Whether `i` writes the work-group collectives' scratch: a store or an
/// atomic whose address is the scratch pointer or derived from it.
///
/// # Safety
/// `i` must be a live instruction.
pub unsafe fn writes_work_group_scratch(i: LLVMValueRef) -> bool {
    use llvm_sys::LLVMOpcode::*;
    let mut p = match LLVMGetInstructionOpcode(i) {
        LLVMStore => LLVMGetOperand(i, 1),
        LLVMAtomicRMW | LLVMAtomicCmpXchg => LLVMGetOperand(i, 0),
        _ => return false,
    };
    loop {
        if !LLVMIsAGetElementPtrInst(p).is_null() || !LLVMIsACastInst(p).is_null() {
            p = LLVMGetOperand(p, 0);
        } else {
            return callee_name(p).is_some_and(|n| is_work_group_scratch(&n));
        }
    }
}

/// Whether `call` is `llvm.lifetime.start` or `llvm.lifetime.end`.
///
/// # Safety
/// `call` must be a live call.
pub unsafe fn is_lifetime_marker(call: LLVMValueRef) -> bool {
    let id = LLVMGetIntrinsicID(LLVMGetCalledValue(call));
    if id == 0 {
        return false;
    }
    let mut len = 0;
    let name = LLVMIntrinsicGetName(id, &mut len);
    let name = std::slice::from_raw_parts(name as *const u8, len);
    name == b"llvm.lifetime.start" || name == b"llvm.lifetime.end"
}

/// The name of the function `i` calls, if it is a direct call.
///
/// # Safety
/// `i` must be a live instruction.
pub unsafe fn callee_name(i: LLVMValueRef) -> Option<String> {
    llvm::called_function(i).map(|f| llvm::name(f))
}

/// The dimension a work-item function's call is asked for, if constant.
///
/// # Safety
/// `call` must be a live call with an argument.
pub unsafe fn constant_dimension(call: LLVMValueRef) -> Option<u64> {
    let d = LLVMGetOperand(call, 0);
    if LLVMIsAConstantInt(d).is_null() {
        None
    } else {
        Some(LLVMConstIntGetZExtValue(d))
    }
}

/// Where work-items meet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Barrier {
    /// `__mux_work_group_barrier`: every work-item of the group.
    WorkGroup,
    /// `__mux_sub_group_barrier`: the work-items of a sub-group, inside
    /// the library's sub-group functions.
    SubGroup,
}

impl Barrier {
    /// The builtin's name.
    pub fn name(self) -> &'static str {
        match self {
            Barrier::WorkGroup => names::WORK_GROUP_BARRIER,
            Barrier::SubGroup => names::SUB_GROUP_BARRIER,
        }
    }
}

/// Whether `f` is the barrier `kind`.
///
/// # Safety
/// `f` must be a live function.
pub unsafe fn is_barrier(f: LLVMValueRef, kind: Barrier) -> bool {
    llvm::name(f) == kind.name()
}

/// The calls of barrier `kind` in `function`, in block order.
///
/// # Safety
/// `function` must be a live function.
pub unsafe fn barrier_calls(function: LLVMValueRef, kind: Barrier) -> Vec<LLVMValueRef> {
    llvm::instructions(function)
        .into_iter()
        .filter(|&i| llvm::called_function(i).is_some_and(|f| is_barrier(f, kind)))
        .collect()
}

/// Whether `function` calls a math function `is_transcendental` names,
/// itself or through the functions it calls.
///
/// # Safety
/// `function` must be a live function.
pub unsafe fn calls_transcendental(function: LLVMValueRef) -> bool {
    let mut seen = std::collections::HashSet::from([function]);
    let mut work = vec![function];
    while let Some(f) = work.pop() {
        for i in llvm::instructions(f) {
            let Some(callee) = llvm::called_function(i) else {
                continue;
            };
            if is_transcendental(&llvm::name(callee)) {
                return true;
            }
            if llvm_sys::core::LLVMIsDeclaration(callee) == 0 && seen.insert(callee) {
                work.push(callee);
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::is_transcendental;

    #[test]
    fn transcendental_functions_are_told_by_their_mangled_names() {
        for name in [
            "_Z3expf",
            "_Z3logDv4_f",
            "_Z3sind",
            "_Z5atan2ff",
            "_Z8lgamma_rfPi",
        ] {
            assert!(is_transcendental(name), "{name}");
        }
        for name in ["_Z4sqrtf", "_Z3fmafff", "_Z4fabsf", "exp", "_Z99x", "_Z3ex"] {
            assert!(!is_transcendental(name), "{name}");
        }
    }
}
