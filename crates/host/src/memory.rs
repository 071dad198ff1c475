//! Host memory, buffers and images. Device memory is the process's own:
//! a device address is a host pointer, and mapping is free.

use libimg::{descriptor, KernelImage};
use mux::{Allocation, Buffer, Image, ImageDesc, ImageKind, ImageLayout, Memory, MemoryRef};

/// The size of a transparent huge page on x86-64.
const HUGE_PAGE: usize = 2 << 20;

pub enum HostMemory {
    Owned(Allocation),
    /// A large buffer: pages of its own, huge where the system gives them.
    Mapped(HugeMapping),
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
        HugeMapping::new(size, align)
            .map(HostMemory::Mapped)
            .ok_or(mux::Error::OutOfMemory)
    }

    fn base(&self) -> *mut u8 {
        match self {
            HostMemory::Owned(a) => a.as_ptr(),
            HostMemory::Mapped(m) => m.ptr,
            HostMemory::Borrowed { ptr, .. } => *ptr as *mut u8,
        }
    }
}

impl Memory for HostMemory {
    fn size(&self) -> usize {
        match self {
            HostMemory::Owned(a) => a.size(),
            HostMemory::Mapped(m) => m.size,
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

/// Zeroed memory mapped for one large buffer, starting at a huge-page
/// boundary (or the buffer's alignment, if larger) and advised to be huge pages before anything touches it.
/// Kernels stream through large buffers, and with 4 KiB pages every 4 KiB
/// costs a TLB miss, whose page walk is slow once other work has evicted
/// the page tables from the caches. (Memory zeroed before the advice, as
/// an aligned allocator's is, would keep its small pages.)
pub struct HugeMapping {
    ptr: *mut u8,
    size: usize,
}

// The mapping is plain memory; synchronization is the user's (OpenCL's) job.
unsafe impl Send for HugeMapping {}
unsafe impl Sync for HugeMapping {}

impl HugeMapping {
    fn new(size: usize, align: usize) -> Option<HugeMapping> {
        let align = align.max(HUGE_PAGE);
        let reserve = size.checked_add(align)?;
        // SAFETY: a fresh anonymous mapping; nothing else refers to it.
        let at = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                reserve,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if at == libc::MAP_FAILED {
            return None;
        }
        let at = at as usize;
        let start = at.next_multiple_of(align);
        let end = start + mapped_len(size);
        // SAFETY: the unaligned head and the tail beyond `size` are parts of
        // the mapping just made; the advice concerns the rest of it.
        unsafe {
            if start > at {
                libc::munmap(at as *mut _, start - at);
            }
            if at + reserve > end {
                libc::munmap(end as *mut _, at + reserve - end);
            }
            // Failure only means small pages.
            libc::madvise(start as *mut _, end - start, libc::MADV_HUGEPAGE);
        }
        Some(HugeMapping {
            ptr: start as *mut u8,
            size,
        })
    }
}

impl Drop for HugeMapping {
    fn drop(&mut self) {
        // SAFETY: what `new` kept of its mapping.
        unsafe { libc::munmap(self.ptr.cast(), mapped_len(self.size)) };
    }
}

/// The bytes a mapping of `size` bytes spans: whole pages.
fn mapped_len(size: usize) -> usize {
    size.next_multiple_of(4096)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The line starting `key` of the mapping that holds `addr`, from
    /// `/proc/self/smaps`.
    fn smaps_at(addr: usize, key: &str) -> String {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ') {
                if let Some((lo, hi)) = range.split_once('-') {
                    if let (Ok(lo), Ok(hi)) =
                        (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
                    {
                        inside = (lo..hi).contains(&addr);
                        continue;
                    }
                }
            }
            if inside {
                if let Some(value) = line.strip_prefix(key) {
                    return value.trim().to_string();
                }
            }
        }
        panic!("no mapping holds {addr:#x}");
    }

    #[test]
    fn a_large_buffer_is_zeroed_huge_page_aligned_and_advised_huge() {
        let size = 3 * HUGE_PAGE + 100;
        let m = HostMemory::allocate(size, 128).unwrap();
        let base = m.device_address() as usize;
        assert_eq!(base % HUGE_PAGE, 0);
        assert_eq!(m.size(), size);
        // SAFETY: the memory holds `size` bytes.
        let bytes = unsafe { std::slice::from_raw_parts_mut(base as *mut u8, size) };
        assert!(bytes.iter().all(|&b| b == 0));
        for page in bytes.chunks_mut(HUGE_PAGE) {
            page[0] = 7;
        }
        // `hg`: advised MADV_HUGEPAGE before the first write.
        let flags = smaps_at(base, "VmFlags:");
        assert!(flags.split(' ').any(|f| f == "hg"), "{flags}");
        // Where the system gives huge pages on advice, and makes them at a
        // fault when it must, the writes got them.
        let setting = |f: &str| {
            std::fs::read_to_string(format!("/sys/kernel/mm/transparent_hugepage/{f}"))
                .is_ok_and(|s| !s.contains("[never]"))
        };
        if setting("enabled") && setting("defrag") {
            let huge = smaps_at(base, "AnonHugePages:");
            assert_ne!(huge, "0 kB", "no huge page in the buffer");
        }
    }

    #[test]
    fn a_large_buffer_keeps_an_alignment_beyond_a_huge_page() {
        // clSVMAlloc takes any power of two.
        let m = HostMemory::allocate(3 * HUGE_PAGE, 4 * HUGE_PAGE).unwrap();
        assert_eq!(m.device_address() as usize % (4 * HUGE_PAGE), 0);
        assert_eq!(m.size(), 3 * HUGE_PAGE);
    }

    #[test]
    fn a_small_buffer_keeps_its_alignment() {
        let m = HostMemory::allocate(1000, 256).unwrap();
        assert_eq!(m.device_address() % 256, 0);
        assert_eq!(m.size(), 1000);
    }
}
