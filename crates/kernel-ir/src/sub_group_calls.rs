//! What a call of the builtins' sub-group functions is, told by its
//! OpenCL C name (Itanium-mangled: `_Z20sub_group_reduce_addf`). The
//! library's bodies exchange values through local memory at sub-group
//! barriers (its `sub_group.h`), which is what the scalar kernel runs; a
//! vector form whose lanes are one sub-group does the same in a few vector
//! instructions (`vecz`), so these calls stay calls until the vector form
//! is made (`passes::inline_all::run_before_vector_form`).

use crate::builtin_kinds::{demangle, is_barrier, Barrier};
use compiler::llvm;
use llvm_sys::core::*;
use llvm_sys::prelude::*;

/// How a reduction or scan combines two values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combine {
    Add,
    Min,
    Max,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Collective {
    Reduce(Combine),
    ScanInclusive(Combine),
    ScanExclusive(Combine),
    /// From the lane the (uniform) second argument names.
    Broadcast,
    All,
    Any,
    /// From the lane the (per-lane) second argument names.
    Shuffle,
    ShuffleXor,
    ShuffleUp,
    ShuffleDown,
    /// `sub_group_barrier`: the lanes of a vector meet at every instruction.
    Barrier,
}

/// The scalar type a collective works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Element {
    Signed,
    Unsigned,
    Float,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubGroupCall {
    pub collective: Collective,
    pub element: Element,
}

impl SubGroupCall {
    /// Whether every lane gets the same result.
    pub fn is_uniform(&self) -> bool {
        matches!(
            self.collective,
            Collective::Reduce(_)
                | Collective::Broadcast
                | Collective::All
                | Collective::Any
                | Collective::Barrier
        )
    }
}

/// The element of a mangled scalar parameter list's first type.
fn element(params: &str) -> Option<Element> {
    Some(match params.as_bytes().first()? {
        b'i' | b'l' => Element::Signed,
        b'j' | b'm' => Element::Unsigned,
        b'f' | b'd' => Element::Float,
        _ => return None,
    })
}

/// The sub-group function `f` is, among those a vector form computes
/// across its lanes: the uniform and non-uniform reductions, scans,
/// broadcasts, votes and shuffles of `int`, `uint`, `long`, `ulong`,
/// `float` and `double`, and the barrier.
///
/// # Safety
/// `f` must be a live function.
pub unsafe fn classify(f: LLVMValueRef) -> Option<SubGroupCall> {
    let name = llvm::name(f);
    let (base, params) = demangle(&name)?;
    let base = base
        .strip_prefix("sub_group_non_uniform_")
        .map(|b| format!("sub_group_{b}"))
        .unwrap_or_else(|| base.to_string());
    let op = |s: &str| match s {
        "add" => Some(Combine::Add),
        "min" => Some(Combine::Min),
        "max" => Some(Combine::Max),
        _ => None,
    };
    let collective = match base.as_str() {
        "sub_group_barrier" => {
            return Some(SubGroupCall {
                collective: Collective::Barrier,
                element: Element::Unsigned,
            })
        }
        "sub_group_all" => Collective::All,
        "sub_group_any" => Collective::Any,
        "sub_group_broadcast" => Collective::Broadcast,
        "sub_group_shuffle" => Collective::Shuffle,
        "sub_group_shuffle_xor" => Collective::ShuffleXor,
        "sub_group_shuffle_up" => Collective::ShuffleUp,
        "sub_group_shuffle_down" => Collective::ShuffleDown,
        b => {
            if let Some(o) = b.strip_prefix("sub_group_reduce_") {
                Collective::Reduce(op(o)?)
            } else if let Some(o) = b.strip_prefix("sub_group_scan_inclusive_") {
                Collective::ScanInclusive(op(o)?)
            } else if let Some(o) = b.strip_prefix("sub_group_scan_exclusive_") {
                Collective::ScanExclusive(op(o)?)
            } else {
                return None;
            }
        }
    };
    // One scalar value, then for broadcasts and shuffles a uint lane.
    let scalar = matches!(params.len(), 1) || (params.len() == 2 && params.ends_with('j'));
    if !scalar {
        return None;
    }
    Some(SubGroupCall {
        collective,
        element: element(params)?,
    })
}

/// Whether `f` is one of the library's functions that meet at a sub-group
/// barrier (a collective of any kind, which only the barrier regions run
/// in the scalar kernel).
///
/// # Safety
/// `f` must be a live function.
pub unsafe fn meets_sub_group(f: LLVMValueRef) -> bool {
    LLVMIsDeclaration(f) == 0
        && llvm::instructions(f)
            .into_iter()
            .any(|i| llvm::called_function(i).is_some_and(|g| is_barrier(g, Barrier::SubGroup)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mangled_names_are_read() {
        assert_eq!(
            demangle("_Z20sub_group_reduce_addf"),
            Some(("sub_group_reduce_add", "f"))
        );
        assert_eq!(
            demangle("_Z19sub_group_broadcastjj"),
            Some(("sub_group_broadcast", "jj"))
        );
        assert_eq!(demangle("_Z3foo"), Some(("foo", "")));
        assert_eq!(demangle("_Z99x"), None);
        assert_eq!(demangle("sub_group_all"), None);
        assert_eq!(element("d"), Some(Element::Float));
        assert_eq!(element("m"), Some(Element::Unsigned));
        assert_eq!(element("c"), None);
    }
}
