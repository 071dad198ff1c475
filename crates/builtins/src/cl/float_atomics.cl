// cl_ext_float_atomics: atomic_fetch_add, _sub, _min and _max (and their
// _explicit forms) on atomic_float and atomic_double, in __global, __local
// and generic memory. They are LLVM's atomicrmw fadd, fsub, fmin and fmax
// (a compare-exchange loop on x86); min and max return the number when one
// operand is a NaN, as fmin and fmax do. Orders and scopes as in
// atomics_c11.cl: every scope is the system's.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#include "mux.h"

#define FLOAT_FETCH_OP(AS, A, C, OP)                                          \
  C OVERLOAD atomic_fetch_##OP##_explicit(volatile AS A *p, C v,              \
                                          memory_order o, memory_scope s) {   \
    return __opencl_atomic_fetch_##OP(p, v, o, s);                            \
  }                                                                           \
  C OVERLOAD atomic_fetch_##OP##_explicit(volatile AS A *p, C v,              \
                                          memory_order o) {                   \
    return __opencl_atomic_fetch_##OP(p, v, o, memory_scope_device);          \
  }                                                                           \
  C OVERLOAD atomic_fetch_##OP(volatile AS A *p, C v) {                       \
    return __opencl_atomic_fetch_##OP(p, v, memory_order_seq_cst,             \
                                      memory_scope_device);                   \
  }

#define FLOAT_FETCH_ALL(AS, A, C)                                             \
  FLOAT_FETCH_OP(AS, A, C, add)                                               \
  FLOAT_FETCH_OP(AS, A, C, sub)                                               \
  FLOAT_FETCH_OP(AS, A, C, min)                                               \
  FLOAT_FETCH_OP(AS, A, C, max)

#define FLOAT_FETCH_TYPES(AS)                                                 \
  FLOAT_FETCH_ALL(AS, atomic_float, float)                                    \
  FLOAT_FETCH_ALL(AS, atomic_double, double)

FLOAT_FETCH_TYPES(__global)
FLOAT_FETCH_TYPES(__local)
FLOAT_FETCH_TYPES(__generic)
