//! Device memory ([`Memory`]), the buffers bound to it ([`Buffer`]), and
//! the host-side byte blocks the API layer packs kernel arguments into
//! ([`Allocation`]).

use crate::Result;
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;
use std::sync::Arc;

/// A block of memory the device owns. The host reaches it only through
/// [`map`](Memory::map); kernels reach it through
/// [`device_address`](Memory::device_address).
pub trait Memory: Send + Sync {
    fn size(&self) -> usize;

    /// The address kernels use for the first byte.
    fn device_address(&self) -> u64;

    /// A host pointer to bytes `[offset, offset + size)`, valid until the
    /// matching [`unmap`](Memory::unmap).
    fn map(&self, offset: usize, size: usize) -> Result<*mut u8>;

    /// Ends a mapping made by [`map`](Memory::map); what the host wrote
    /// through it is then the device's.
    fn unmap(&self, offset: usize, size: usize) -> Result<()>;
}

pub type MemoryRef = Arc<dyn Memory>;

/// A range of a [`Memory`] used as a buffer: what buffer commands and
/// kernel arguments name.
pub trait Buffer: Send + Sync {
    fn memory(&self) -> &MemoryRef;

    /// Where the buffer starts in its memory.
    fn offset(&self) -> usize;

    fn size(&self) -> usize;

    /// The address kernels use for the buffer's first byte.
    fn device_address(&self) -> u64 {
        self.memory().device_address() + self.offset() as u64
    }
}

pub type BufferRef = Arc<dyn Buffer>;

/// A host pointer a command reads or writes. The application keeps it
/// valid until the command has run, as OpenCL requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostPtr(pub usize);

impl HostPtr {
    pub fn new<T>(p: *const T) -> HostPtr {
        HostPtr(p as usize)
    }

    pub fn get(self) -> *mut u8 {
        self.0 as *mut u8
    }
}

/// Zeroed, aligned host bytes: a packed argument block, or the storage a
/// host target's memory lives in.
pub struct Allocation {
    ptr: NonNull<u8>,
    layout: Layout,
}

// The allocation is plain memory; synchronization is the user's (OpenCL's) job.
unsafe impl Send for Allocation {}
unsafe impl Sync for Allocation {}

impl Allocation {
    /// Zeroed host memory of `size` bytes (at least one), aligned to `align`.
    pub fn host(size: usize, align: usize) -> Option<Allocation> {
        let layout = Layout::from_size_align(size.max(1), align.max(1)).ok()?;
        // SAFETY: the layout has a non-zero size.
        let ptr = NonNull::new(unsafe { alloc_zeroed(layout) })?;
        Some(Allocation { ptr, layout })
    }

    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    pub fn size(&self) -> usize {
        self.layout.size()
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        // SAFETY: allocated in `host` with this layout.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) }
    }
}
