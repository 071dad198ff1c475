//! A translation failure: where in the module (word offset and opcode) and why.

use std::fmt;

/// Why a module was refused. `word` is the offset, in 32-bit words from the
/// start of the module, of the instruction at fault (0 for the header).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub word: usize,
    /// The opcode's name (`OpIAdd`), or `header`.
    pub opcode: String,
    pub reason: String,
}

impl Error {
    pub(crate) fn new(word: usize, opcode: impl Into<String>, reason: impl Into<String>) -> Error {
        Error {
            word,
            opcode: opcode.into(),
            reason: reason.into(),
        }
    }

    pub(crate) fn header(reason: impl Into<String>) -> Error {
        Error::new(0, "header", reason)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "SPIR-V error at word {} ({}): {}",
            self.word, self.opcode, self.reason
        )
    }
}

impl std::error::Error for Error {}

pub(crate) type Result<T> = std::result::Result<T, Error>;
