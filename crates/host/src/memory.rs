//! Host memory, buffers and images. Device memory is the process's own:
//! a device address is a host pointer, and mapping is free.

use mux::{Allocation, Buffer, Image, ImageDesc, ImageLayout, Memory, MemoryRef};

/// The size of a transparent huge page on x86-64.
const HUGE_PAGE: usize = 2 << 20;

pub enum HostMemory {
    Owned(Allocation),
    /// The application's memory (`CL_MEM_USE_HOST_PTR`): used in place.
    Borrowed {
        ptr: usize,
        size: usize,
    },
}

impl HostMemory {
    pub fn allocate(size: usize, align: usize) -> mux::Result<HostMemory> {
        if size < HUGE_PAGE {
            return Allocation::host(size, align)
                .map(HostMemory::Owned)
                .ok_or(mux::Error::OutOfMemory);
        }
        // Large buffers on huge pages: kernels stream through them, and
        // 4 KiB pages would cost a TLB miss every 4 KiB.
        let a = Allocation::host(size, align.max(HUGE_PAGE)).ok_or(mux::Error::OutOfMemory)?;
        // SAFETY: advice on memory we own; failure only means small pages.
        unsafe { libc::madvise(a.as_ptr().cast(), size, libc::MADV_HUGEPAGE) };
        Ok(HostMemory::Owned(a))
    }

    fn base(&self) -> *mut u8 {
        match self {
            HostMemory::Owned(a) => a.as_ptr(),
            HostMemory::Borrowed { ptr, .. } => *ptr as *mut u8,
        }
    }
}

impl Memory for HostMemory {
    fn size(&self) -> usize {
        match self {
            HostMemory::Owned(a) => a.size(),
            HostMemory::Borrowed { size, .. } => *size,
        }
    }

    fn device_address(&self) -> u64 {
        self.base() as u64
    }

    fn map(&self, offset: usize, _size: usize) -> mux::Result<*mut u8> {
        // SAFETY: the validating layer checked the range.
        Ok(unsafe { self.base().add(offset) })
    }

    fn unmap(&self, _offset: usize, _size: usize) -> mux::Result<()> {
        Ok(())
    }
}

pub struct HostBuffer {
    pub memory: MemoryRef,
    pub offset: usize,
    pub size: usize,
}

impl Buffer for HostBuffer {
    fn memory(&self) -> &MemoryRef {
        &self.memory
    }

    fn offset(&self) -> usize {
        self.offset
    }

    fn size(&self) -> usize {
        self.size
    }
}

/// Images are linear: elements in rows, rows in slices, nothing between.
pub fn image_layout(desc: &ImageDesc) -> mux::Result<ImageLayout> {
    let [w, h, d] = desc.addressable();
    let too_big = mux::Error::InvalidValue;
    let row_pitch = w.checked_mul(desc.element_size).ok_or(too_big.clone())?;
    let slice_pitch = row_pitch.checked_mul(h).ok_or(too_big.clone())?;
    Ok(ImageLayout {
        row_pitch,
        slice_pitch,
        size: slice_pitch.checked_mul(d).ok_or(too_big)?,
        align: 64,
    })
}

pub struct HostImage {
    pub desc: ImageDesc,
    pub layout: ImageLayout,
    pub memory: MemoryRef,
    pub offset: usize,
}

impl Image for HostImage {
    fn desc(&self) -> &ImageDesc {
        &self.desc
    }

    fn layout(&self) -> &ImageLayout {
        &self.layout
    }

    fn memory(&self) -> &MemoryRef {
        &self.memory
    }

    fn offset(&self) -> usize {
        self.offset
    }
}
