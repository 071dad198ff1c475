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
// WORK_GROUP_SCRATCH_BYTES (8, aligned to 8) of the work-group's local
// memory, where the collectives combine their work-items' values
// (work_group.h); laid out with the kernel's own __local variables.
__local void *CONST_FN __mux_get_work_group_scratch(void);

#if defined(__opencl_c_generic_address_space)
// Where a generic pointer points: into the work-group's local memory, or
// into the calling work-item's private memory (passes::generic_pointers).
bool CONST_FN __mux_is_local(const __generic void *p);
bool CONST_FN __mux_is_private(const __generic void *p);
#endif

#endif
