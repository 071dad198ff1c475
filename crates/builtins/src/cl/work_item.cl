// Work-item functions (OpenCL C 3.0 section 6.15.1), in terms of the mux builtins.
#include "mux.h"

uint OVERLOAD get_work_dim(void) { return __mux_get_work_dim(); }
size_t OVERLOAD get_global_size(uint d) { return __mux_get_global_size(d); }
size_t OVERLOAD get_global_id(uint d) {
  return __mux_get_group_id(d) * __mux_get_enqueued_local_size(d) + __mux_get_local_id(d) +
         __mux_get_global_offset(d);
}
size_t OVERLOAD get_local_size(uint d) { return __mux_get_local_size(d); }
// The last work-group of a dimension may be smaller than the enqueued size.
size_t OVERLOAD get_enqueued_local_size(uint d) { return __mux_get_enqueued_local_size(d); }
size_t OVERLOAD get_local_id(uint d) { return __mux_get_local_id(d); }
size_t OVERLOAD get_num_groups(uint d) { return __mux_get_num_groups(d); }
size_t OVERLOAD get_group_id(uint d) { return __mux_get_group_id(d); }
size_t OVERLOAD get_global_offset(uint d) { return __mux_get_global_offset(d); }

size_t OVERLOAD get_global_linear_id(void) {
  size_t x = get_global_id(0) - get_global_offset(0);
  size_t y = get_global_id(1) - get_global_offset(1);
  size_t z = get_global_id(2) - get_global_offset(2);
  return (z * get_global_size(1) + y) * get_global_size(0) + x;
}

size_t OVERLOAD get_local_linear_id(void) {
  return (get_local_id(2) * get_local_size(1) + get_local_id(1)) * get_local_size(0) +
         get_local_id(0);
}
