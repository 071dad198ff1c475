//! Host memory, buffers and images. Device memory is the process's own:
//! a device address is a host pointer, and mapping is free.

use libimg::{descriptor, KernelImage};
use mux::{Allocation, Buffer, Image, ImageDesc, ImageKind, ImageLayout, Memory, MemoryRef};

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

/// Images are linear: elements in rows, rows in slices, nothing between,
/// unless the image is made over memory with pitches of its own.
pub fn image_layout(desc: &ImageDesc) -> mux::Result<ImageLayout> {
    let [w, h, d] = desc.addressable();
    let too_big = mux::Error::InvalidValue;
    let [row, slice] = desc.pitches;
    let row_pitch = match row {
        0 => w.checked_mul(desc.element_size).ok_or(too_big.clone())?,
        given => given,
    };
    let slice_pitch = match slice {
        0 => row_pitch.checked_mul(h).ok_or(too_big.clone())?,
        given => given,
    };
    // The last slice and row end where their texels do.
    let size = slice_pitch
        .checked_mul(d - 1)
        .and_then(|s| s.checked_add(row_pitch.checked_mul(h - 1)?))
        .and_then(|s| s.checked_add(w.checked_mul(desc.element_size)?))
        .ok_or(too_big)?;
    Ok(ImageLayout {
        row_pitch,
        slice_pitch,
        size,
        align: if desc.pitches == [0; 2] { 64 } else { 1 },
    })
}

pub struct HostImage {
    pub desc: ImageDesc,
    pub layout: ImageLayout,
    pub memory: MemoryRef,
    pub offset: usize,
    /// What the image's kernel arguments point to.
    descriptor: Box<KernelImage>,
}

impl HostImage {
    pub fn new(memory: MemoryRef, offset: usize, desc: ImageDesc) -> mux::Result<HostImage> {
        let layout = image_layout(&desc)?;
        let [w, h, d] = desc.extent;
        let narrow = |n: usize| i32::try_from(n).map_err(|_| mux::Error::InvalidValue);
        let image_type = match desc.kind {
            ImageKind::D1 => descriptor::IMAGE1D,
            ImageKind::D1Buffer => descriptor::IMAGE1D_BUFFER,
            ImageKind::D1Array => descriptor::IMAGE1D_ARRAY,
            ImageKind::D2 => descriptor::IMAGE2D,
            ImageKind::D2Array => descriptor::IMAGE2D_ARRAY,
            ImageKind::D3 => descriptor::IMAGE3D,
        };
        // A 1D array's layers are its rows here; kernels find every
        // layer and slice at the slice pitch.
        let slice_pitch = match desc.kind {
            ImageKind::D1Array => layout.row_pitch,
            _ => layout.slice_pitch,
        };
        let descriptor = Box::new(KernelImage {
            data: memory.device_address() + offset as u64,
            width: narrow(w)?,
            height: narrow(h)?,
            depth: narrow(d)?,
            array_size: narrow(desc.layers)?,
            row_pitch: layout.row_pitch as u64,
            slice_pitch: slice_pitch as u64,
            channel_order: desc.format[0],
            channel_data_type: desc.format[1],
            element_size: desc.element_size as u32,
            image_type,
        });
        Ok(HostImage {
            desc,
            layout,
            memory,
            offset,
            descriptor,
        })
    }
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

    fn kernel_argument(&self) -> u64 {
        &*self.descriptor as *const KernelImage as u64
    }
}
