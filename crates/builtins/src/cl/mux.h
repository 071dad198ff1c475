// The mux builtins: defined per kernel by the work-group compiler, which
// knows the work-group's ids and sizes. Dimension arguments >= 3 give the
// spec's out-of-range value (0 for ids and offsets, 1 for sizes).
#ifndef FERROCL_MUX_H
#define FERROCL_MUX_H

#define OVERLOAD __attribute__((overloadable))
#define CONST_FN __attribute__((const))

size_t CONST_FN __mux_get_local_id(uint dim);
size_t CONST_FN __mux_get_group_id(uint dim);
size_t CONST_FN __mux_get_local_size(uint dim);
size_t CONST_FN __mux_get_enqueued_local_size(uint dim);
size_t CONST_FN __mux_get_global_size(uint dim);
size_t CONST_FN __mux_get_global_offset(uint dim);
size_t CONST_FN __mux_get_num_groups(uint dim);
uint CONST_FN __mux_get_work_dim(void);
void __attribute__((convergent)) __mux_work_group_barrier(uint flags);
// WORK_GROUP_SCRATCH_BYTES (64, aligned to 8) of the work-group's local
// memory, where the collectives combine their work-items' values
// (work_group.h); laid out with the kernel's own __local variables.
__local void *CONST_FN __mux_get_work_group_scratch(void);

// The kernel's sub-group width: a sub-group is a run of this many
// consecutive work-items along dimension 0 (fewer at a row's end).
uint CONST_FN __mux_get_sub_group_width(void);
// Where a sub-group's work-items meet: the work-group function runs the
// work-items of one sub-group up to it, then on from it (sub_group.h).
void __attribute__((convergent)) __mux_sub_group_barrier(void);
// SUB_GROUP_SCRATCH_BYTES (aligned to 128) of the work-group's local
// memory: the slots the sub-group collectives combine in, then the mask of
// the lanes running the current stretch, which the work-group function
// writes.
__local void *CONST_FN __mux_get_sub_group_scratch(void);

#if defined(__opencl_c_generic_address_space)
// Where a generic pointer points: into the work-group's local memory, or
// into the calling work-item's private memory (passes::generic_pointers).
bool CONST_FN __mux_is_local(const __generic void *p);
bool CONST_FN __mux_is_private(const __generic void *p);
#endif

#endif
