/// The scheduling-info struct every work-group function receives (the host
/// kernel ABI): sizes of the whole range, which part of it the call runs,
/// and which slice of that part's work-groups the calling worker runs.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScheduleInfo {
    pub global_size: [usize; 3],
    pub global_offset: [usize; 3],
    /// The size of this part's work-groups.
    pub local_size: [usize; 3],
    pub slice: usize,
    pub total_slices: usize,
    pub work_dim: u32,
    /// The local size the range was enqueued with (`get_enqueued_local_size`).
    pub enqueued_local_size: [usize; 3],
    /// Work-groups of the whole range (`get_num_groups`), the last of a
    /// dimension smaller where the local size does not divide the global.
    pub num_groups: [usize; 3],
    /// The id of this part's first work-group.
    pub group_offset: [usize; 3],
    /// Work-groups of this part, in each dimension.
    pub part_groups: [usize; 3],
}

/// An ND-range as the API layer validated it, or one part of it: unused
/// dimensions have size 1.
///
/// Where a local size does not divide its global size (non-uniform
/// work-groups, OpenCL 2.0), the last work-group of that dimension is
/// smaller. Each combination of whole and remainder groups across the
/// dimensions is a part of the range whose work-groups all have one size,
/// so that a work-group function compiled for that size runs it: up to
/// eight parts, from [`NdRange::parts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NdRange {
    pub work_dim: u32,
    pub global_size: [usize; 3],
    pub global_offset: [usize; 3],
    /// The local size the range was enqueued with.
    pub local_size: [usize; 3],
    /// `__local` bytes the arguments ask for, past the kernel's own.
    pub dynamic_local_memory: usize,
    /// Per dimension, whether this part is the remainder work-group (the
    /// last, smaller one) rather than the whole ones.
    pub remainder: [bool; 3],
}

impl NdRange {
    /// The whole range (for a range with non-uniform work-groups, the part
    /// of its whole work-groups).
    pub fn new(
        work_dim: u32,
        global_size: [usize; 3],
        global_offset: [usize; 3],
        local_size: [usize; 3],
        dynamic_local_memory: usize,
    ) -> NdRange {
        NdRange {
            work_dim,
            global_size,
            global_offset,
            local_size,
            dynamic_local_memory,
            remainder: [false; 3],
        }
    }

    /// 1 to 3 dimensions, every local size non-zero, and at least one
    /// work-group in this part: what [`CommandBuffer::nd_range`](crate::CommandBuffer) checks.
    pub fn is_valid(&self) -> bool {
        // Without a division where there is no remainder: checked at every
        // launch, more than once.
        (1..=3).contains(&self.work_dim)
            && (0..3).all(|d| {
                let (g, l) = (self.global_size[d], self.local_size[d]);
                l > 0
                    && if self.remainder[d] {
                        g % l != 0
                    } else {
                        g >= l
                    }
            })
    }

    /// Whether every work-group has the enqueued local size.
    pub fn is_uniform(&self) -> bool {
        (0..3).all(|d| self.local_size[d] > 0 && self.global_size[d] % self.local_size[d] == 0)
    }

    /// The parts of the range that have work-groups, whole ones first: one
    /// for a uniform range.
    pub fn parts(&self) -> impl Iterator<Item = NdRange> + '_ {
        // The dimensions with a smaller last group: only their remainders
        // are parts (found once, as divisions cost a launch its time).
        let ragged: u32 = (0..3)
            .filter(|&d| self.local_size[d] > 0 && self.global_size[d] % self.local_size[d] != 0)
            .map(|d| 1 << d)
            .sum();
        (0..8u32)
            .filter(move |bits| bits & !ragged == 0)
            .map(|bits| NdRange {
                remainder: [0, 1, 2].map(|d| bits & (1 << d) != 0),
                ..*self
            })
            .filter(NdRange::is_valid)
    }

    /// The size of this part's work-groups.
    pub fn group_size(&self) -> [usize; 3] {
        [0, 1, 2].map(|d| {
            if self.remainder[d] {
                self.global_size[d] % self.local_size[d]
            } else {
                self.local_size[d]
            }
        })
    }

    /// Work-groups of the whole range in each dimension.
    pub fn num_groups(&self) -> [usize; 3] {
        [0, 1, 2].map(|d| self.global_size[d].div_ceil(self.local_size[d]))
    }

    /// Work-groups of this part in each dimension.
    pub fn part_groups(&self) -> [usize; 3] {
        [0, 1, 2].map(|d| {
            let (whole, rest) = (
                self.global_size[d] / self.local_size[d].max(1),
                self.global_size[d] % self.local_size[d].max(1),
            );
            match self.remainder[d] {
                true => (rest > 0) as usize,
                false => whole,
            }
        })
    }

    /// Work-groups of this part.
    pub fn total_groups(&self) -> u64 {
        self.part_groups().iter().map(|&n| n as u64).product()
    }

    pub fn schedule_info(&self) -> ScheduleInfo {
        ScheduleInfo {
            global_size: self.global_size,
            global_offset: self.global_offset,
            local_size: self.group_size(),
            slice: 0,
            total_slices: 1,
            work_dim: self.work_dim,
            enqueued_local_size: self.local_size,
            num_groups: self.num_groups(),
            group_offset: [0, 1, 2].map(|d| match self.remainder[d] {
                true => self.global_size[d] / self.local_size[d],
                false => 0,
            }),
            part_groups: self.part_groups(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uniform_range_is_one_part() {
        let r = NdRange::new(2, [64, 8, 1], [0; 3], [16, 4, 1], 0);
        assert!(r.is_uniform());
        assert_eq!(r.parts().collect::<Vec<_>>(), vec![r]);
        assert_eq!(r.total_groups(), 8);
    }

    #[test]
    fn a_non_uniform_range_splits_into_parts_of_one_group_size() {
        // 10 x 7 in groups of 4 x 3: 2 whole and a remainder of 2 along x,
        // 2 whole and a remainder of 1 along y.
        let r = NdRange::new(2, [10, 7, 1], [0; 3], [4, 3, 1], 0);
        assert!(!r.is_uniform());
        let parts: Vec<NdRange> = r.parts().collect();
        assert_eq!(parts.len(), 4);
        let sizes: Vec<_> = parts.iter().map(|p| p.group_size()).collect();
        assert_eq!(sizes, [[4, 3, 1], [2, 3, 1], [4, 1, 1], [2, 1, 1]]);
        let items: usize = parts
            .iter()
            .map(|p| p.total_groups() as usize * p.group_size().iter().product::<usize>())
            .sum();
        assert_eq!(items, 70);
        let last = parts[3].schedule_info();
        assert_eq!(last.group_offset, [2, 2, 0]);
        assert_eq!(last.num_groups, [3, 3, 1]);
        assert_eq!(last.part_groups, [1, 1, 1]);
        assert_eq!(last.enqueued_local_size, [4, 3, 1]);
    }

    #[test]
    fn a_range_smaller_than_its_local_size_is_only_a_remainder() {
        let r = NdRange::new(1, [5, 1, 1], [0; 3], [8, 1, 1], 0);
        let parts: Vec<NdRange> = r.parts().collect();
        assert_eq!(parts.len(), 1);
        assert_eq!(parts[0].group_size(), [5, 1, 1]);
        assert_eq!(parts[0].schedule_info().group_offset, [0, 0, 0]);
    }
}
