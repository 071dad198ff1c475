//! What the vectorizer knows of a kernel before it builds anything: each
//! value's shape across the lanes (`shape`), the loops lanes leave apart
//! and the blocks only some lanes run (`divergence`), and why it declines
//! an instruction (`legality`).

pub(crate) mod divergence;
pub(crate) mod legality;
pub(crate) mod private;
pub mod shape;
