//! libimg: the host side of images on a CPU (seed 000). It knows OpenCL's
//! image formats and shapes, but nothing of objects or queues: the API
//! layer (`cl`) validates with it and packs fill colours with it, and the
//! host target lays out the descriptor a kernel's image argument points to.
//! The kernel side, the image builtins, is OpenCL C in the builtins library
//! (`crates/builtins/src/cl/image*.cl`), reading that same descriptor.

pub mod descriptor;
pub mod fill;
pub mod format;
pub mod sampler;
pub mod validate;

pub use descriptor::KernelImage;
pub use format::Format;
pub use validate::{Limits, Shape};
