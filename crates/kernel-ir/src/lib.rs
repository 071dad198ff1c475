//! The IR machinery the kernel passes (`passes`) and the whole-function
//! vectorizer (`vecz`) share, so that neither imports the other's helpers:
//! - [`cfg`]: a function's blocks, edges, dominators and phis, and a block
//!   split after an instruction;
//! - [`loops`]: its natural loops; [`inductions`]: how a header's phi
//!   steps each iteration;
//! - [`regions`]: a region under a branch left from one block;
//! - [`arms`]: the arms of a branch that share blocks before they meet
//!   (a `switch` case falling into the next) made apart by copying them;
//! - [`loop_exits`]: a loop left from several places made a loop left from
//!   one;
//! - [`lcssa`]: the values a loop hands on read through phis of its exit;
//! - [`builtin_kinds`]: what a call of the builtins is (a work-item query,
//!   the local id, a barrier, a work-group collective), by its callee's
//!   name, and [`sub_group_calls`]: which sub-group function it is;
//! - [`build`]: addresses and loads at byte offsets;
//! - [`compare`]: integer comparisons (a predicate with its operands
//!   swapped);
//! - [`form`]: an empty function to hold another form of a kernel, kept
//!   only if it verifies;
//! - [`abi`]: what the passes, the vectorizer and the runtime must agree
//!   on: the work-group and region functions' parameters, the storage
//!   block's alignment, the scheduling info's layout.

pub mod abi;
pub mod arms;
pub mod build;
pub mod builtin_kinds;
pub mod cfg;
pub mod compare;
pub mod form;
pub mod inductions;
pub mod lcssa;
pub mod loop_exits;
pub mod loops;
pub mod regions;
pub mod sub_group_calls;
#[cfg(any(test, feature = "test-support"))]
pub mod test_support;
