//! The kernel ABI: what the passes that build a work-group function, the
//! vectorizer that makes vector forms of its parts and the runtime that
//! calls it must agree on.
//!
//! ```text
//! void __ferrocl_wg.<kernel>(ptr args, ptr schedule_info, ptr local, i64 first, i64 last, ptr storage)
//! i32 <kernel>.regions(<kernel params>..., i32 region, ptr storage, i64 linear_id, ptr staged)
//! ```

/// Prefix of every work-group function's name.
pub const WORK_GROUP_PREFIX: &str = "__ferrocl_wg.";

/// The work-group function's parameters, in order.
pub const WORK_GROUP_PARAMS: [&str; 6] =
    ["args", "schedule_info", "local", "first", "last", "storage"];

/// Parameter positions of the work-group function.
pub const PARAM_ARGS: u32 = 0;
pub const PARAM_SCHEDULE: u32 = 1;
pub const PARAM_LOCAL: u32 = 2;
pub const PARAM_FIRST: u32 = 3;
pub const PARAM_LAST: u32 = 4;
pub const PARAM_STORAGE: u32 = 5;

/// Byte offsets inside the scheduling-info struct (`mux::ScheduleInfo`).
pub const GLOBAL_SIZE_OFFSET: u64 = 0;
pub const GLOBAL_OFFSET_OFFSET: u64 = 24;
pub const LOCAL_SIZE_OFFSET: u64 = 48;
pub const WORK_DIM_OFFSET: u64 = 88;
pub const ENQUEUED_LOCAL_SIZE_OFFSET: u64 = 96;
pub const NUM_GROUPS_OFFSET: u64 = 120;
pub const GROUP_OFFSET_OFFSET: u64 = 144;
pub const PART_GROUPS_OFFSET: u64 = 168;

/// The parameters a region function takes after the kernel's own, in
/// order: the region to run, the storage block, the work-item's linear
/// local id (its slot in the storage block) and the staged uniform values.
pub const REGION_PARAMS: [&str; 4] = ["region", "storage", "linear_id", "staged"];

/// Position of the region parameter of a region function of `params`
/// parameters.
pub const fn region_param(params: u32) -> u32 {
    params - 4
}

/// Position of the storage parameter of a region function of `params`
/// parameters.
pub const fn storage_param(params: u32) -> u32 {
    params - 3
}

/// Position of the linear-id parameter of a region function of `params`
/// parameters: lane 0's in its vector form, the other lanes' following.
pub const fn linear_id_param(params: u32) -> u32 {
    params - 2
}

/// Position of the staged parameter of a region function of `params`
/// parameters.
pub const fn staged_param(params: u32) -> u32 {
    params - 1
}

/// What a region function returns when the work-item finished the kernel.
pub const REGION_EXIT: u32 = u32::MAX;

/// Address space of `__local` in the IR (the front end's address-space
/// map).
pub const LOCAL_AS: u32 = 3;

/// Address space of `__constant` in the IR (`__global`'s is
/// `compiler::program_globals::GLOBAL_AS`).
pub const CONSTANT_AS: u32 = 2;

/// Alignment of each slot's run of copies in the storage block.
pub const SLOT_ALIGN: usize = 64;
