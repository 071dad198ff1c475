//! The host device: this machine's CPU as an OpenCL device.

use crate::queue::{Executor, HostQueue, HostSemaphore};
use crate::thread_pool::ThreadPool;
use mux::{Allocation, DeviceInfo, Kernel, NdRange};
use std::sync::Arc;

/// The size of a transparent huge page on x86-64.
const HUGE_PAGE: usize = 2 << 20;

pub struct HostDevice {
    info: DeviceInfo,
    pool: Arc<ThreadPool>,
    executor: Arc<Executor>,
}

impl HostDevice {
    pub fn new() -> HostDevice {
        let info = crate::device_info::probe(crate::jit::host_cpu().0);
        // The thread that runs an ND-range works too: one worker fewer than cores.
        let workers = (info.compute_units as usize).saturating_sub(1);
        let pool = Arc::new(ThreadPool::new(workers));
        // Command buffers run on a few threads of their own, so that
        // independent ones overlap (a copy beside a kernel).
        let executor = Executor::new(2, pool.clone(), info.local_mem_size);
        HostDevice {
            pool,
            executor,
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
        run_nd_range(&self.pool, self.info.local_mem_size, kernel, args, range)
    }

    fn create_queue(&self) -> Arc<dyn mux::Queue> {
        Arc::new(HostQueue::new(self.executor.clone()))
    }

    fn create_semaphore(&self) -> mux::SemaphoreRef {
        Arc::new(HostSemaphore::default())
    }
}

/// Runs every work-group of `range` on the pool.
pub(crate) fn run_nd_range(
    pool: &ThreadPool,
    local_mem_size: u64,
    kernel: &dyn Kernel,
    args: &[u8],
    range: &NdRange,
) -> mux::Result<()> {
    let local_bytes = kernel.static_local_memory() + range.dynamic_local_memory;
    if local_bytes as u64 > local_mem_size {
        return Err(mux::Error::OutOfResources);
    }
    // SAFETY: the API layer packed `args` for this kernel.
    unsafe {
        pool.run(
            kernel,
            args.as_ptr(),
            range.schedule_info(),
            range.total_groups(),
            local_bytes,
        )
    };
    Ok(())
}
