/// The scheduling-info struct every work-group function receives (the host
/// kernel ABI): sizes of the whole range, and which slice of the work-groups
/// the calling worker runs.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScheduleInfo {
    pub global_size: [usize; 3],
    pub global_offset: [usize; 3],
    pub local_size: [usize; 3],
    pub slice: usize,
    pub total_slices: usize,
    pub work_dim: u32,
}

/// An ND-range as the API layer validated it: unused dimensions have size 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NdRange {
    pub work_dim: u32,
    pub global_size: [usize; 3],
    pub global_offset: [usize; 3],
    pub local_size: [usize; 3],
    /// `__local` bytes the arguments ask for, past the kernel's own.
    pub dynamic_local_memory: usize,
}

impl NdRange {
    /// 1 to 3 dimensions, and every local size non-zero and dividing its
    /// global size: what [`CommandBuffer::nd_range`](crate::CommandBuffer) checks.
    pub fn is_valid(&self) -> bool {
        (1..=3).contains(&self.work_dim)
            && (0..3).all(|d| {
                self.local_size[d] > 0 && self.global_size[d].is_multiple_of(self.local_size[d])
            })
    }

    pub fn num_groups(&self) -> [usize; 3] {
        [0, 1, 2].map(|d| self.global_size[d] / self.local_size[d])
    }

    pub fn total_groups(&self) -> u64 {
        self.num_groups().iter().map(|&n| n as u64).product()
    }

    pub fn schedule_info(&self) -> ScheduleInfo {
        ScheduleInfo {
            global_size: self.global_size,
            global_offset: self.global_offset,
            local_size: self.local_size,
            slice: 0,
            total_slices: 1,
            work_dim: self.work_dim,
        }
    }
}
