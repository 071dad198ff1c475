// cl_khr_kernel_clock at device, work-group and sub-group scope: the CPU's time-stamp
// counter. It is invariant and kept in step across cores on the CPUs
// ferrocl runs on, so a read after another, on any core, is no smaller.
// The fence keeps the read after the instructions before it; hilo is the
// same count as (low, high) 32-bit halves.
#include "gentype.h"

static ulong read_counter(void) {
  __builtin_ia32_lfence();
  return __builtin_readcyclecounter();
}

ulong OVERLOAD clock_read_device(void) { return read_counter(); }
ulong OVERLOAD clock_read_work_group(void) { return read_counter(); }
uint2 OVERLOAD clock_read_hilo_device(void) { return as_uint2(read_counter()); }
uint2 OVERLOAD clock_read_hilo_work_group(void) {
  return as_uint2(read_counter());
}
ulong OVERLOAD clock_read_sub_group(void) { return read_counter(); }
uint2 OVERLOAD clock_read_hilo_sub_group(void) {
  return as_uint2(read_counter());
}
