//! The host device: this machine's CPU as an OpenCL device.

use crate::executable::HostExecutable;
use crate::memory::{image_layout, HostBuffer, HostImage, HostMemory};
use crate::queue::{Executor, ExecutorHandle, HostQueue, HostSemaphore};
use crate::sync::{HostFence, HostQueryPool};
use crate::thread_pool::ThreadPool;
use crate::topology;
use mux::{
    BufferRef, DeviceInfo, ExecutableRef, FenceRef, ImageDesc, ImageLayout, ImageRef, Kernel,
    MemoryRef, NdRange, QueryPoolRef,
};
use std::sync::Arc;

pub struct HostDevice {
    info: DeviceInfo,
    executor: Arc<ExecutorHandle>,
    /// The CPU each compute unit runs on.
    cpus: Vec<usize>,
}

impl HostDevice {
    /// The whole machine, or as much of it as the process may use: a
    /// compute unit per allowed CPU, cut to the cgroup's CPU quota, or
    /// `FERROCL_THREADS` of them. Its threads go where the OS puts them.
    pub fn new() -> HostDevice {
        let allowed = topology::allowed_cpus();
        let units = topology::compute_units(
            allowed.len(),
            topology::cgroup_cpu_limit(),
            compiler::knobs::threads(),
        );
        let cpus: Vec<usize> = (0..units).map(|i| allowed[i % allowed.len()]).collect();
        let info = crate::device_info::probe(crate::cpu::host_cpu().0, &cpus);
        HostDevice::start(info, cpus, false)
    }

    /// A device on `cpus` (one compute unit each), its threads `pinned` to
    /// them or not.
    fn start(info: DeviceInfo, cpus: Vec<usize>, pinned: bool) -> HostDevice {
        let bind = pinned.then(|| {
            let mut set = cpus.clone();
            set.sort_unstable();
            set.dedup();
            set
        });
        // The thread that runs an ND-range works too: one worker fewer than cores.
        let workers = cpus.len().saturating_sub(1);
        let pool = Arc::new(ThreadPool::new(workers, bind.clone()));
        // Command buffers run on a few threads of their own, so that
        // independent ones overlap (a copy beside a kernel).
        let executor = Executor::new(2, pool, info.local_mem_size, bind);
        HostDevice {
            executor,
            info,
            cpus,
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

    fn allocate_memory(&self, size: usize, align: usize) -> mux::Result<MemoryRef> {
        Ok(Arc::new(HostMemory::allocate(size, align)?))
    }

    /// All of the host's memory is the device's, at the same address.
    fn allocate_shared(&self, size: usize, align: usize) -> mux::Result<MemoryRef> {
        Ok(Arc::new(HostMemory::allocate(size, align)?))
    }

    unsafe fn memory_from_host(&self, ptr: *mut u8, size: usize) -> mux::Result<MemoryRef> {
        Ok(Arc::new(HostMemory::Borrowed {
            ptr: ptr as usize,
            size,
        }))
    }

    fn create_buffer(
        &self,
        memory: MemoryRef,
        offset: usize,
        size: usize,
    ) -> mux::Result<BufferRef> {
        Ok(Arc::new(HostBuffer {
            memory,
            offset,
            size,
        }))
    }

    fn image_layout(&self, desc: &ImageDesc) -> mux::Result<ImageLayout> {
        image_layout(desc)
    }

    fn create_image(
        &self,
        memory: MemoryRef,
        offset: usize,
        desc: ImageDesc,
    ) -> mux::Result<ImageRef> {
        Ok(Arc::new(HostImage::new(memory, offset, desc)?))
    }

    fn create_executable(&self, binary: &[u8]) -> mux::Result<ExecutableRef> {
        Ok(Arc::new(HostExecutable::load(binary)?))
    }

    fn create_queue(&self) -> Arc<dyn mux::Queue> {
        Arc::new(HostQueue::new(self.executor.clone()))
    }

    fn create_semaphore(&self) -> mux::SemaphoreRef {
        Arc::new(HostSemaphore::default())
    }

    fn create_fence(&self) -> FenceRef {
        Arc::new(HostFence::default())
    }

    fn create_query_pool(&self, count: usize) -> mux::Result<QueryPoolRef> {
        Ok(Arc::new(HostQueryPool::new(count)))
    }

    fn create_sub_device(&self, units: &[u32]) -> mux::Result<Arc<dyn mux::Device>> {
        let cpus: Vec<usize> = units.iter().map(|&u| self.cpus[u as usize]).collect();
        let mut info = self.info.clone();
        info.compute_units = cpus.len() as u32;
        info.affinity_domains = topology::domains(&cpus);
        Ok(Arc::new(HostDevice::start(info, cpus, true)))
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
