//! Integer comparisons as the passes read them.

use llvm_sys::LLVMIntPredicate::{self, *};

/// The predicate that compares the same two values with its operands
/// swapped: `a < b` is `b > a`.
pub fn swapped(pred: LLVMIntPredicate) -> LLVMIntPredicate {
    match pred {
        LLVMIntULT => LLVMIntUGT,
        LLVMIntULE => LLVMIntUGE,
        LLVMIntUGT => LLVMIntULT,
        LLVMIntUGE => LLVMIntULE,
        LLVMIntSLT => LLVMIntSGT,
        LLVMIntSLE => LLVMIntSGE,
        LLVMIntSGT => LLVMIntSLT,
        LLVMIntSGE => LLVMIntSLE,
        LLVMIntEQ | LLVMIntNE => pred,
    }
}

/// The predicate that holds exactly where `pred` does not: `a < b` is
/// not `a >= b`.
pub fn inverse(pred: LLVMIntPredicate) -> LLVMIntPredicate {
    match pred {
        LLVMIntULT => LLVMIntUGE,
        LLVMIntULE => LLVMIntUGT,
        LLVMIntUGT => LLVMIntULE,
        LLVMIntUGE => LLVMIntULT,
        LLVMIntSLT => LLVMIntSGE,
        LLVMIntSLE => LLVMIntSGT,
        LLVMIntSGT => LLVMIntSLE,
        LLVMIntSGE => LLVMIntSLT,
        LLVMIntEQ => LLVMIntNE,
        LLVMIntNE => LLVMIntEQ,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swapping_twice_is_the_same_and_equality_stays() {
        for p in [
            LLVMIntULT, LLVMIntULE, LLVMIntSGT, LLVMIntSGE, LLVMIntEQ, LLVMIntNE,
        ] {
            assert_eq!(swapped(swapped(p)), p);
        }
        assert_eq!(swapped(LLVMIntULT), LLVMIntUGT);
        assert_eq!(swapped(LLVMIntEQ), LLVMIntEQ);
    }

    #[test]
    fn the_inverse_of_the_inverse_is_the_predicate() {
        for p in [
            LLVMIntULT, LLVMIntULE, LLVMIntSGT, LLVMIntSGE, LLVMIntEQ, LLVMIntNE,
        ] {
            assert_eq!(inverse(inverse(p)), p);
            assert_ne!(inverse(p), p);
        }
        assert_eq!(inverse(LLVMIntSLT), LLVMIntSGE);
    }
}
