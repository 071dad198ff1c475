//! The host device: this machine's CPU as an OpenCL device.

use crate::thread_pool::ThreadPool;
use mux::{Allocation, DeviceInfo, Kernel, NdRange};

/// The size of a transparent huge page on x86-64.
const HUGE_PAGE: usize = 2 << 20;

pub struct HostDevice {
    info: DeviceInfo,
    pool: ThreadPool,
}

impl HostDevice {
    pub fn new() -> HostDevice {
        let info = crate::device_info::probe(crate::jit::host_cpu().0);
        // The thread that enqueues a run works too: one worker fewer than cores.
        let workers = (info.compute_units as usize).saturating_sub(1);
        HostDevice {
            pool: ThreadPool::new(workers),
            info,
        }
    }
}

impl Default for HostDevice {
    fn default() -> Self {
        HostDevice::new()
    }
}

impl mux::Device for HostDevice {
    fn info(&self) -> &DeviceInfo {
        &self.info
    }

    fn allocate(&self, size: usize, align: usize) -> mux::Result<Allocation> {
        if size as u64 > self.info.max_mem_alloc_size {
            return Err(mux::Error::InvalidValue);
        }
        if size < HUGE_PAGE {
            return Allocation::host(size, align).ok_or(mux::Error::OutOfMemory);
        }
        // Large buffers on huge pages: kernels stream through them, and
        // 4 KiB pages would cost a TLB miss every 4 KiB.
        let a = Allocation::host(size, align.max(HUGE_PAGE)).ok_or(mux::Error::OutOfMemory)?;
        // SAFETY: advice on memory we own; failure only means small pages.
        unsafe { libc::madvise(a.as_ptr().cast(), size, libc::MADV_HUGEPAGE) };
        Ok(a)
    }

    fn run(&self, kernel: &dyn Kernel, args: &[u8], range: &NdRange) -> mux::Result<()> {
        let local_bytes = kernel.static_local_memory() + range.dynamic_local_memory;
        if local_bytes as u64 > self.info.local_mem_size {
            return Err(mux::Error::OutOfResources);
        }
        // SAFETY: the API layer packed `args` for this kernel.
        unsafe {
            self.pool.run(
                kernel,
                args.as_ptr(),
                range.schedule_info(),
                range.total_groups(),
                local_bytes,
            )
        };
        Ok(())
    }
}
