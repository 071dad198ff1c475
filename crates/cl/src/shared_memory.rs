//! A context's shared allocations: memory the host and kernels reach at
//! one address (`clSVMAlloc`, and `cl_intel_unified_shared_memory`'s host,
//! device and shared allocations), found by any address inside them, and
//! what SVM and USM share beside it: the device capabilities they report,
//! the commands over raw addresses, and kernel arguments that are pointers.

use crate::context::Context;
use crate::device::Device;
use crate::enqueue_buffer::Action;
use crate::entry::ensure;
use crate::info::Info;
use crate::object::ClObject;
use crate::queue::{enqueue_payload, Ordering, Payload, Queue};
use opencl_sys::*;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, RwLock, Weak};

/// Which API made an allocation: each frees only its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Svm,
    UsmHost,
    UsmDevice,
    UsmShared,
}

pub struct Allocation {
    /// The address the application was given.
    pub base: usize,
    pub size: usize,
    pub origin: Origin,
    /// `cl_svm_mem_flags`, or USM's `CL_MEM_ALLOC_FLAGS_INTEL`.
    pub flags: u64,
    /// A USM device or shared allocation's device, if it named one.
    pub device: Option<Arc<ClObject<Device>>>,
    /// Commands name the allocation through this memory, so that one
    /// still running keeps it alive after the application freed it.
    pub memory: mux::MemoryRef,
    /// Ranges `clEnqueueSVMMap` mapped (offset, size), for the unmap.
    maps: Mutex<Vec<(usize, usize)>>,
}

impl Allocation {
    /// `[offset, offset + size)` of the allocation as a buffer commands name.
    pub fn buffer(
        &self,
        device: &Device,
        offset: usize,
        size: usize,
    ) -> Result<mux::BufferRef, cl_int> {
        device
            .mux
            .create_buffer(self.memory.clone(), offset, size)
            .map_err(|_| CL_INVALID_VALUE)
    }
}

/// The registry a context keeps: allocations by base address, and the
/// context's queues (a blocking free waits for them).
#[derive(Default)]
pub struct Registry {
    by_base: RwLock<BTreeMap<usize, Arc<Allocation>>>,
    queues: Mutex<Vec<Weak<ClObject<Queue>>>>,
}

impl Registry {
    /// Allocates `size` bytes on the context's first device and registers
    /// them; the address the application gets.
    pub fn allocate(
        &self,
        ctx: &Context,
        size: usize,
        align: usize,
        origin: Origin,
        flags: u64,
        device: Option<Arc<ClObject<Device>>>,
    ) -> Result<usize, cl_int> {
        let memory = ctx.devices[0]
            .mux
            .allocate_shared(size, align)
            .map_err(|e| match e {
                mux::Error::OutOfMemory => CL_OUT_OF_HOST_MEMORY,
                _ => CL_OUT_OF_RESOURCES,
            })?;
        let base = memory.device_address() as usize;
        let a = Allocation {
            base,
            size,
            origin,
            flags,
            device,
            memory,
            maps: Mutex::new(Vec::new()),
        };
        self.by_base.write().unwrap().insert(base, Arc::new(a));
        Ok(base)
    }

    /// Unregisters the allocation at `base` if `origin` made it: its memory
    /// goes once no command names it any more.
    pub fn free(&self, base: usize, origin: impl Fn(Origin) -> bool) -> Option<Arc<Allocation>> {
        let mut map = self.by_base.write().unwrap();
        if !map.get(&base).is_some_and(|a| origin(a.origin)) {
            return None;
        }
        map.remove(&base)
    }

    /// The allocation holding `ptr`, and where `ptr` is in it.
    pub fn find(&self, ptr: usize) -> Option<(Arc<Allocation>, usize)> {
        let map = self.by_base.read().unwrap();
        let (&base, a) = map.range(..=ptr).next_back()?;
        (ptr - base < a.size).then(|| (a.clone(), ptr - base))
    }

    pub fn add_queue(&self, q: &Arc<ClObject<Queue>>) {
        let mut queues = self.queues.lock().unwrap();
        queues.retain(|w| w.strong_count() > 0);
        queues.push(Arc::downgrade(q));
    }

    /// Waits until every command enqueued so far on the context's queues
    /// has ended.
    pub fn finish_queues(&self) {
        let queues: Vec<_> = self
            .queues
            .lock()
            .unwrap()
            .iter()
            .filter_map(Weak::upgrade)
            .collect();
        for q in queues {
            q.finish();
        }
    }
}

/// Where `size` bytes at an address lie, for a command.
pub enum Region {
    /// In a shared allocation.
    Shared(mux::BufferRef),
    /// In host memory of the application's own.
    Host(usize),
}

/// `size` (> 0) bytes at `ptr`: a range of the context's allocation holding
/// them, else host memory. A range that starts in an allocation must end
/// in it; host memory is allowed only if `host_allowed`.
pub fn region(
    ctx: &Context,
    device: &Device,
    ptr: usize,
    size: usize,
    host_allowed: bool,
) -> Result<Region, cl_int> {
    ensure(ptr != 0, CL_INVALID_VALUE)?;
    let end = ptr.checked_add(size).ok_or(CL_INVALID_VALUE)?;
    match ctx.shared.find(ptr) {
        Some((a, offset)) => {
            ensure(end <= a.base + a.size, CL_INVALID_VALUE)?;
            Ok(Region::Shared(a.buffer(device, offset, size)?))
        }
        None => {
            ensure(host_allowed, CL_INVALID_VALUE)?;
            Ok(Region::Host(ptr))
        }
    }
}

/// Whether the device can share memory with the host at all (SVM or USM).
pub fn supported(device: &Device) -> bool {
    device.info().shared_memory.buffers
}

/// Whether a kernel may reach any host memory by its address.
pub fn system_supported(device: &Device) -> bool {
    device.info().shared_memory.system
}

/// Whether a pointer may be a kernel argument or an indirect pointer of
/// `kernel`: NULL, inside an allocation of the context, or anywhere if
/// every device shares all host memory.
pub fn valid_kernel_pointer(ctx: &Context, ptr: usize) -> bool {
    ptr == 0 || ctx.devices.iter().all(|d| system_supported(d)) || ctx.shared.find(ptr).is_some()
}

/// `CL_DEVICE_SVM_CAPABILITIES` and the USM capability queries.
pub fn device_query(d: &Device, param: cl_device_info) -> Option<Info> {
    let s = d.info().shared_memory;
    let bit = |on: bool, b: u64| if on { b } else { 0 };
    let svm = bit(s.buffers, CL_DEVICE_SVM_COARSE_GRAIN_BUFFER)
        | bit(s.fine_grain, CL_DEVICE_SVM_FINE_GRAIN_BUFFER)
        | bit(s.system, CL_DEVICE_SVM_FINE_GRAIN_SYSTEM)
        | bit(s.host_atomics, CL_DEVICE_SVM_ATOMICS);
    // Kernels' atomics work on any global memory, so on shared memory too.
    let usm = bit(
        s.buffers,
        CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL | CL_UNIFIED_SHARED_MEMORY_ATOMIC_ACCESS_INTEL,
    ) | bit(
        s.fine_grain,
        CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ACCESS_INTEL,
    ) | bit(
        s.host_atomics,
        CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ATOMIC_ACCESS_INTEL,
    );
    Some(match param {
        CL_DEVICE_SVM_CAPABILITIES => Info::value::<cl_device_svm_capabilities>(svm),
        CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL
        | CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL
        | CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL
        | CL_DEVICE_CROSS_DEVICE_SHARED_MEM_CAPABILITIES_INTEL => {
            Info::value::<cl_device_unified_shared_memory_capabilities_intel>(usm)
        }
        CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL => Info::value::<
            cl_device_unified_shared_memory_capabilities_intel,
        >(if s.system { usm } else { 0 }),
        _ => return None,
    })
}

/// A host address a command touches when it runs.
#[derive(Clone, Copy)]
struct Address(usize);

/// Checks a copy of `size` bytes from `src` to `dst` (either may be host
/// memory); the commands that make it. An empty copy does nothing.
pub fn memcpy_action(
    q: &Arc<ClObject<Queue>>,
    dst: usize,
    src: usize,
    size: usize,
) -> Result<Action, cl_int> {
    ensure(dst != 0 && src != 0, CL_INVALID_VALUE)?;
    ensure(
        dst.checked_add(size).is_some() && src.checked_add(size).is_some(),
        CL_INVALID_VALUE,
    )?;
    ensure(dst + size <= src || src + size <= dst, CL_MEM_COPY_OVERLAP)?;
    if size == 0 {
        return Ok(Arc::new(|_: &mut mux::CommandBuffer| Ok(())));
    }
    let d = region(&q.context, &q.device, dst, size, true)?;
    let s = region(&q.context, &q.device, src, size, true)?;
    let record: Action = match (s, d) {
        (Region::Shared(s), Region::Shared(d)) => Arc::new(move |c: &mut mux::CommandBuffer| {
            c.copy_buffer(s.clone(), 0, d.clone(), 0, size)
        }),
        (Region::Shared(s), Region::Host(d)) => Arc::new(move |c: &mut mux::CommandBuffer| {
            c.read_buffer(s.clone(), 0, mux::HostPtr(d), size)
        }),
        (Region::Host(s), Region::Shared(d)) => Arc::new(move |c: &mut mux::CommandBuffer| {
            c.write_buffer(d.clone(), 0, mux::HostPtr(s), size)
        }),
        (Region::Host(s), Region::Host(d)) => {
            let (s, d) = (Address(s), Address(d));
            Arc::new(move |c: &mut mux::CommandBuffer| {
                c.host(Box::new(move || {
                    // SAFETY: the application's memory, valid until the
                    // command has run (as for any host pointer it passes).
                    unsafe {
                        std::ptr::copy_nonoverlapping(s.0 as *const u8, d.0 as *mut u8, size)
                    };
                    Ok(())
                }));
                Ok(())
            })
        }
    };
    checked(record)
}

/// Checks a fill of `size` bytes at `ptr` with `pattern` (1 to 128 bytes,
/// a power of two, dividing the address and the size); the commands that
/// make it. Host memory is allowed if the device shares all of it.
///
/// # Safety
/// `pattern` must be null or point to `pattern_size` bytes.
pub unsafe fn fill_action(
    q: &Arc<ClObject<Queue>>,
    ptr: usize,
    pattern: *const u8,
    pattern_size: usize,
    size: usize,
) -> Result<Action, cl_int> {
    ensure(ptr != 0 && !pattern.is_null(), CL_INVALID_VALUE)?;
    ensure(
        pattern_size.is_power_of_two() && pattern_size <= 128,
        CL_INVALID_VALUE,
    )?;
    ensure(
        ptr.is_multiple_of(pattern_size) && size.is_multiple_of(pattern_size),
        CL_INVALID_VALUE,
    )?;
    if size == 0 {
        return Ok(Arc::new(|_: &mut mux::CommandBuffer| Ok(())));
    }
    // The pattern as it is now: the application may reuse its memory.
    let bytes = std::slice::from_raw_parts(pattern, pattern_size).to_vec();
    let system = system_supported(&q.device);
    let record: Action = match region(&q.context, &q.device, ptr, size, system)? {
        Region::Shared(b) => {
            Arc::new(move |c: &mut mux::CommandBuffer| c.fill_buffer(b.clone(), 0, size, &bytes))
        }
        Region::Host(at) => {
            let at = Address(at);
            Arc::new(move |c: &mut mux::CommandBuffer| {
                let bytes = bytes.clone();
                c.host(Box::new(move || {
                    // SAFETY: host memory the device shares, `size` bytes
                    // from `at`, valid while its commands use it.
                    let dst = unsafe { std::slice::from_raw_parts_mut(at.0 as *mut u8, size) };
                    for chunk in dst.chunks_exact_mut(bytes.len()) {
                        chunk.copy_from_slice(&bytes);
                    }
                    Ok(())
                }));
                Ok(())
            })
        }
    };
    checked(record)
}

/// Enqueues what `action` records as one command of `q`.
///
/// # Safety
/// Pointers as the calling entry point received them.
pub unsafe fn enqueue_action(
    q: &Arc<ClObject<Queue>>,
    command_type: cl_command_type,
    num_events: cl_uint,
    event_list: *const cl_event,
    event: *mut cl_event,
    blocking: bool,
    action: Action,
) -> Result<(), cl_int> {
    let mut commands = mux::CommandBuffer::new();
    action(&mut commands).map_err(|_| CL_INVALID_VALUE)?;
    enqueue_payload(
        q,
        command_type,
        num_events,
        event_list,
        event,
        blocking,
        Ordering::Normal,
        Payload::Device {
            commands,
            keep: Vec::new(),
        },
    )
}

/// `record`, once recorded on the side, so that what `mux` refuses is
/// refused now.
fn checked(record: Action) -> Result<Action, cl_int> {
    record(&mut mux::CommandBuffer::new()).map_err(|e| match e {
        mux::Error::CopyOverlap => CL_MEM_COPY_OVERLAP,
        _ => CL_INVALID_VALUE,
    })?;
    Ok(record)
}

/// What a map makes the host's (`clEnqueueSVMMap`): the allocation's
/// range, mapped when the command runs. Host memory of the application's
/// own needs nothing.
pub fn map_work(
    ctx: &Context,
    ptr: usize,
    size: usize,
) -> Result<Box<dyn FnOnce() -> Result<(), cl_int> + Send>, cl_int> {
    ensure(ptr != 0 && size > 0, CL_INVALID_VALUE)?;
    let end = ptr.checked_add(size).ok_or(CL_INVALID_VALUE)?;
    let Some((a, offset)) = ctx.shared.find(ptr) else {
        return Ok(Box::new(|| Ok(())));
    };
    ensure(end <= a.base + a.size, CL_INVALID_VALUE)?;
    a.maps.lock().unwrap().push((offset, size));
    Ok(Box::new(move || {
        let p = a
            .memory
            .map(offset, size)
            .map_err(|_| CL_OUT_OF_RESOURCES)?;
        // The host reaches shared memory at its one address.
        ensure(p as usize == a.base + offset, CL_OUT_OF_RESOURCES)
    }))
}

/// What an unmap gives back (`clEnqueueSVMUnmap`): the latest mapping
/// starting at `ptr`, unmapped when the command runs.
pub fn unmap_work(
    ctx: &Context,
    ptr: usize,
) -> Result<Box<dyn FnOnce() -> Result<(), cl_int> + Send>, cl_int> {
    ensure(ptr != 0, CL_INVALID_VALUE)?;
    let Some((a, offset)) = ctx.shared.find(ptr) else {
        return Ok(Box::new(|| Ok(())));
    };
    let mapping = {
        let mut maps = a.maps.lock().unwrap();
        maps.iter()
            .rposition(|m| m.0 == offset)
            .map(|i| maps.remove(i))
    };
    Ok(Box::new(move || match mapping {
        Some((offset, size)) => a
            .memory
            .unmap(offset, size)
            .map_err(|_| CL_OUT_OF_RESOURCES),
        // Never mapped: nothing to give back.
        None => Ok(()),
    }))
}
