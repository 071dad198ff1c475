//! `libferrocl.so`: the OpenCL API layer. Each OpenCL object has its own
//! module; every entry point validates its arguments to the spec's error
//! codes, then works through `mux` (devices, kernels) and `compiler`
//! (programs). Applications reach it through the ICD loader.

mod command_buffer;
mod context;
mod device;
mod dispatch;
mod enqueue_buffer;
mod enqueue_image;
mod enqueue_kernel;
mod entry;
mod event;
mod image;
mod info;
mod kernel;
mod memory;
mod mutable_command;
mod object;
mod pipe;
mod platform;
mod printf;
mod program;
mod program_globals;
mod queue;
mod sampler;
mod semaphore;
mod shared_memory;
mod sub_device;
mod svm;
mod usm;
mod util;

pub use dispatch::{clGetExtensionFunctionAddress, clIcdGetPlatformIDsKHR};
