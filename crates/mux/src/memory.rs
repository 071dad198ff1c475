use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;

/// A block of device memory. On a device that shares the host's address
/// space the pointer is directly usable by the host.
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
