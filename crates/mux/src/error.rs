use std::fmt;

/// Failures a target or the validating layer reports to the API layer,
/// which maps each to the OpenCL error code the spec names for the call in
/// question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The device could not allocate memory for the request.
    OutOfMemory,
    /// The host ran out of resources (threads, JIT memory).
    OutOfResources,
    /// A size, count, offset or region outside what the objects allow.
    InvalidValue,
    /// A copy whose source and destination share bytes.
    CopyOverlap,
    /// A binary the target cannot load.
    InvalidBinary,
    /// An executable has no kernel of that name.
    NoSuchKernel,
    /// The device does not offer this (images on a device without them).
    Unsupported,
    /// Compilation for the device failed; the text says why.
    Compile(String),
    /// A dispatch did not run: a semaphore it waited on signalled failure.
    WaitFailed,
    /// Host work of the API layer failed with this (API-level) status.
    Status(i32),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::OutOfMemory => write!(f, "out of device memory"),
            Error::OutOfResources => write!(f, "out of host resources"),
            Error::InvalidValue => write!(f, "invalid value"),
            Error::CopyOverlap => write!(f, "source and destination overlap"),
            Error::InvalidBinary => write!(f, "the binary cannot be loaded"),
            Error::NoSuchKernel => write!(f, "no kernel of that name"),
            Error::Unsupported => write!(f, "not supported by the device"),
            Error::Compile(s) => write!(f, "compilation failed: {s}"),
            Error::WaitFailed => write!(f, "a command waited on failed"),
            Error::Status(s) => write!(f, "command failed with status {s}"),
        }
    }
}

impl std::error::Error for Error {}
