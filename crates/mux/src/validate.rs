//! The validating entry layer: a [`Device`] in front of the target's that
//! checks each call's arguments before the target sees them, and hands
//! out memory that checks its mappings. Commands are checked as they are
//! recorded ([`CommandBuffer`](crate::CommandBuffer)).

use crate::image::{ImageDesc, ImageKind, ImageLayout, ImageRef};
use crate::memory::{BufferRef, Memory, MemoryRef};
use crate::{
    Device, DeviceInfo, Error, ExecutableRef, FenceRef, QueryPoolRef, Queue, Result, SemaphoreRef,
};
use std::sync::Arc;

/// `device` behind the validating layer: what the API layer holds.
pub fn validating(device: Arc<dyn Device>) -> Arc<dyn Device> {
    Arc::new(Validating { inner: device })
}

struct Validating {
    inner: Arc<dyn Device>,
}

fn check(ok: bool) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidValue)
    }
}

/// The extent and layers fit the kind: no dimension it lacks, none empty.
fn valid_desc(desc: &ImageDesc) -> bool {
    let [w, h, d] = desc.extent;
    let shape = match desc.kind {
        ImageKind::D1 | ImageKind::D1Buffer => h == 1 && d == 1 && desc.layers == 1,
        ImageKind::D1Array => h == 1 && d == 1,
        ImageKind::D2 => d == 1 && desc.layers == 1,
        ImageKind::D2Array => d == 1,
        ImageKind::D3 => desc.layers == 1,
    };
    let [row, slice] = desc.pitches;
    let [_, rows, _] = desc.addressable();
    // A pitch given holds what it steps over.
    let pitches = (row == 0 || w.checked_mul(desc.element_size).is_some_and(|b| b <= row))
        && (slice == 0
            || row
                .max(w * desc.element_size)
                .checked_mul(rows)
                .is_some_and(|b| b <= slice));
    shape
        && w > 0
        && h > 0
        && d > 0
        && desc.layers > 0
        && (1..=16).contains(&desc.element_size)
        && pitches
}

impl Device for Validating {
    fn info(&self) -> &DeviceInfo {
        self.inner.info()
    }

    fn allocate_memory(&self, size: usize, align: usize) -> Result<MemoryRef> {
        check(
            size > 0 && size as u64 <= self.info().max_mem_alloc_size && align.is_power_of_two(),
        )?;
        let memory = self.inner.allocate_memory(size, align)?;
        Ok(Arc::new(CheckedMemory(memory)))
    }

    fn allocate_shared(&self, size: usize, align: usize) -> Result<MemoryRef> {
        if !self.info().shared_memory.buffers {
            return Err(Error::Unsupported);
        }
        check(
            size > 0 && size as u64 <= self.info().max_mem_alloc_size && align.is_power_of_two(),
        )?;
        let memory = self.inner.allocate_shared(size, align)?;
        Ok(Arc::new(CheckedMemory(memory)))
    }

    unsafe fn memory_from_host(&self, ptr: *mut u8, size: usize) -> Result<MemoryRef> {
        check(!ptr.is_null() && size > 0)?;
        let memory = self.inner.memory_from_host(ptr, size)?;
        Ok(Arc::new(CheckedMemory(memory)))
    }

    fn create_buffer(&self, memory: MemoryRef, offset: usize, size: usize) -> Result<BufferRef> {
        check(
            size > 0
                && offset
                    .checked_add(size)
                    .is_some_and(|end| end <= memory.size()),
        )?;
        self.inner.create_buffer(memory, offset, size)
    }

    fn image_layout(&self, desc: &ImageDesc) -> Result<ImageLayout> {
        check(valid_desc(desc))?;
        self.inner.image_layout(desc)
    }

    fn create_image(&self, memory: MemoryRef, offset: usize, desc: ImageDesc) -> Result<ImageRef> {
        let layout = self.image_layout(&desc)?;
        check(
            offset.is_multiple_of(layout.align)
                && offset
                    .checked_add(layout.size)
                    .is_some_and(|end| end <= memory.size()),
        )?;
        self.inner.create_image(memory, offset, desc)
    }

    fn create_executable(&self, binary: &[u8]) -> Result<ExecutableRef> {
        if binary.is_empty() {
            return Err(Error::InvalidBinary);
        }
        self.inner.create_executable(binary)
    }

    fn create_queue(&self) -> Arc<dyn Queue> {
        self.inner.create_queue()
    }

    fn create_semaphore(&self) -> SemaphoreRef {
        self.inner.create_semaphore()
    }

    fn create_fence(&self) -> FenceRef {
        self.inner.create_fence()
    }

    fn create_query_pool(&self, count: usize) -> Result<QueryPoolRef> {
        check(count > 0)?;
        self.inner.create_query_pool(count)
    }

    fn create_sub_device(&self, units: &[u32]) -> Result<Arc<dyn Device>> {
        let total = self.info().compute_units;
        let mut seen = units.to_vec();
        seen.sort_unstable();
        seen.dedup();
        check(!units.is_empty() && seen.len() == units.len() && seen.iter().all(|&u| u < total))?;
        Ok(validating(self.inner.create_sub_device(units)?))
    }
}

/// Memory whose mappings are checked against its size.
struct CheckedMemory(MemoryRef);

impl Memory for CheckedMemory {
    fn size(&self) -> usize {
        self.0.size()
    }

    fn device_address(&self) -> u64 {
        self.0.device_address()
    }

    fn map(&self, offset: usize, size: usize) -> Result<*mut u8> {
        check(
            offset
                .checked_add(size)
                .is_some_and(|end| end <= self.size()),
        )?;
        self.0.map(offset, size)
    }

    fn unmap(&self, offset: usize, size: usize) -> Result<()> {
        check(
            offset
                .checked_add(size)
                .is_some_and(|end| end <= self.size()),
        )?;
        self.0.unmap(offset, size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_shapes_must_fit_their_kind() {
        let desc = |kind, extent, layers| ImageDesc {
            kind,
            element_size: 4,
            extent,
            layers,
            format: [0; 2],
            pitches: [0; 2],
        };
        assert!(valid_desc(&desc(ImageKind::D2, [4, 4, 1], 1)));
        assert!(valid_desc(&desc(ImageKind::D2Array, [4, 4, 1], 3)));
        assert!(!valid_desc(&desc(ImageKind::D1, [4, 2, 1], 1)));
        assert!(!valid_desc(&desc(ImageKind::D3, [4, 4, 4], 2)));
        assert!(!valid_desc(&desc(ImageKind::D2, [0, 4, 1], 1)));
        let mut wide = desc(ImageKind::D1, [4, 1, 1], 1);
        wide.element_size = 32;
        assert!(!valid_desc(&wide));
        let mut pitched = desc(ImageKind::D2, [4, 4, 1], 1);
        pitched.pitches = [16, 0];
        assert!(valid_desc(&pitched));
        pitched.pitches = [12, 0];
        assert!(!valid_desc(&pitched));
        pitched.pitches = [32, 64];
        assert!(!valid_desc(&pitched));
    }
}
