//! A kernel compiled for one local size: a loaded work-group function.

use crate::executable::Code;
use mux::ScheduleInfo;

/// `void wg(ptr args, ptr schedule_info, ptr local, i64 first, i64 last, ptr storage)`.
type WorkGroupFn = unsafe extern "C" fn(*const u8, *const ScheduleInfo, *mut u8, u64, u64, *mut u8);

pub struct HostKernel {
    entry: WorkGroupFn,
    static_local_memory: usize,
    work_item_storage: usize,
    /// `-cl-denorms-are-zero`: run with denormals flushed.
    flush_denormals: bool,
    /// The executable it came from, for program binaries.
    executable: std::sync::Arc<[u8]>,
    // Keeps the code loaded while the kernel can run.
    _code: Code,
}

impl HostKernel {
    pub fn new(
        code: Code,
        address: u64,
        static_local_memory: usize,
        work_item_storage: usize,
        flush_denormals: bool,
        executable: std::sync::Arc<[u8]>,
    ) -> HostKernel {
        // SAFETY: the address is the work-group function the passes built,
        // with exactly this signature.
        let entry = unsafe { std::mem::transmute::<usize, WorkGroupFn>(address as usize) };
        HostKernel {
            entry,
            static_local_memory,
            work_item_storage,
            flush_denormals,
            executable,
            _code: code,
        }
    }
}

impl mux::Kernel for HostKernel {
    fn static_local_memory(&self) -> usize {
        self.static_local_memory
    }

    fn work_item_storage(&self) -> usize {
        self.work_item_storage
    }

    fn executable(&self) -> Option<std::sync::Arc<[u8]>> {
        Some(self.executable.clone())
    }

    unsafe fn run_groups(
        &self,
        args: *const u8,
        info: &ScheduleInfo,
        local: *mut u8,
        storage: *mut u8,
        first: u64,
        last: u64,
    ) {
        if first < last {
            crate::fp_control::with_kernel_environment(self.flush_denormals, || {
                (self.entry)(args, info, local, first, last, storage)
            })
        }
    }
}

#[cfg(all(test, feature = "compiler"))]
mod tests {
    use kernel_ir::abi::*;
    use mux::ScheduleInfo;
    use std::mem::offset_of;

    /// The work-group function reads the scheduling info at the offsets
    /// the passes were given: they must be where the struct has its fields.
    #[test]
    fn the_passes_read_the_scheduling_info_where_its_fields_are() {
        let fields = [
            (offset_of!(ScheduleInfo, global_size), GLOBAL_SIZE_OFFSET),
            (
                offset_of!(ScheduleInfo, global_offset),
                GLOBAL_OFFSET_OFFSET,
            ),
            (offset_of!(ScheduleInfo, local_size), LOCAL_SIZE_OFFSET),
            (offset_of!(ScheduleInfo, work_dim), WORK_DIM_OFFSET),
            (
                offset_of!(ScheduleInfo, enqueued_local_size),
                ENQUEUED_LOCAL_SIZE_OFFSET,
            ),
            (offset_of!(ScheduleInfo, num_groups), NUM_GROUPS_OFFSET),
            (offset_of!(ScheduleInfo, group_offset), GROUP_OFFSET_OFFSET),
            (offset_of!(ScheduleInfo, part_groups), PART_GROUPS_OFFSET),
        ];
        for (at, constant) in fields {
            assert_eq!(at as u64, constant);
        }
    }
}
