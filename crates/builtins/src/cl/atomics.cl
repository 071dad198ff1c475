// The OpenCL 1.x atomic functions (OpenCL C 3.0 section 6.15.12.9 "Legacy
// atomics"): atomic_* on 32-bit integers, atom_* for the cl_khr_*_int32_*
// and cl_khr_int64_* extensions, each on __global and __local memory (and
// on generic pointers where the language has them). Every work-item of
// every work-group may run on its own core, so each is a real hardware
// read-modify-write. Sequential consistency costs nothing more than relaxed
// order for a locked instruction on x86, and keeps surrounding accesses in
// program order.
#include "mux.h"

#define ORDER __ATOMIC_SEQ_CST

// One read-modify-write for pointer qualifier AS, type T, name prefix P.
#define RMW(P, AS, T, NAME, BUILTIN)                                          \
  T OVERLOAD P##NAME(volatile AS T *p, T v) { return BUILTIN(p, v, ORDER); }

#define INC_DEC_CMPXCHG(P, AS, T)                                             \
  T OVERLOAD P##inc(volatile AS T *p) {                                       \
    return __atomic_fetch_add(p, (T)1, ORDER);                                \
  }                                                                           \
  T OVERLOAD P##dec(volatile AS T *p) {                                       \
    return __atomic_fetch_sub(p, (T)1, ORDER);                                \
  }                                                                           \
  T OVERLOAD P##cmpxchg(volatile AS T *p, T cmp, T v) {                       \
    T old = cmp;                                                              \
    __atomic_compare_exchange_n(p, &old, v, false, ORDER, ORDER);             \
    return old;                                                               \
  }

#define ALL_OPS(P, AS, T)                                                     \
  RMW(P, AS, T, add, __atomic_fetch_add)                                      \
  RMW(P, AS, T, sub, __atomic_fetch_sub)                                      \
  RMW(P, AS, T, xchg, __atomic_exchange_n)                                    \
  RMW(P, AS, T, min, __atomic_fetch_min)                                      \
  RMW(P, AS, T, max, __atomic_fetch_max)                                      \
  RMW(P, AS, T, and, __atomic_fetch_and)                                      \
  RMW(P, AS, T, or, __atomic_fetch_or)                                        \
  RMW(P, AS, T, xor, __atomic_fetch_xor)                                      \
  INC_DEC_CMPXCHG(P, AS, T)

// atomic_xchg also exists for float: exchanged as its bits.
#define FLOAT_XCHG(AS)                                                        \
  float OVERLOAD atomic_xchg(volatile AS float *p, float v) {                 \
    return as_float(                                                          \
        __atomic_exchange_n((volatile AS uint *)p, as_uint(v), ORDER));       \
  }

#define FOR_INT32(AS)                                                         \
  ALL_OPS(atomic_, AS, int)                                                   \
  ALL_OPS(atomic_, AS, uint)                                                  \
  ALL_OPS(atom_, AS, int)                                                     \
  ALL_OPS(atom_, AS, uint)                                                    \
  FLOAT_XCHG(AS)

#define FOR_INT64(AS)                                                         \
  ALL_OPS(atom_, AS, long)                                                    \
  ALL_OPS(atom_, AS, ulong)

FOR_INT32(__global)
FOR_INT32(__local)
FOR_INT64(__global)
FOR_INT64(__local)

#if defined(__opencl_c_generic_address_space)
// Generic pointers: atomic_* only (the atom_* extensions predate them).
ALL_OPS(atomic_, , int)
ALL_OPS(atomic_, , uint)
FLOAT_XCHG()
#endif
