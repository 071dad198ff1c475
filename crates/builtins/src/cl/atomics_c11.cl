// The OpenCL C 3.0 atomics (section 6.15.12): atomic_init, load, store,
// exchange, compare-exchange, fetch-and-modify, atomic_flag and
// atomic_work_item_fence, each in its plain and _explicit forms, for the
// atomic types on __global and __local memory (the overloads OpenCL C
// without the generic address space has) and on generic pointers (those
// it has with it), which may point to global, local or private memory.
//
// Orders and scopes arrive as run-time arguments: Clang turns an order into
// a switch over the LLVM orderings, which folds to one instruction once the
// call is inlined with a constant. Every scope is the system's on the host:
// the host, all work-groups and every device of the platform share one
// coherent memory, so a system-scope atomic is exactly as strong as
// memory_scope_all_svm_devices asks and stronger than the narrower scopes
// need. Atomics on __local memory become plain accesses later
// (passes::local_atomics): a work-group runs on one thread. On a generic
// pointer they stay the CPU's atomics, right for every memory.
#include "mux.h"

// The forms without an order or scope mean these (section 6.15.12.3).
#define DEFAULT_ORDER memory_order_seq_cst
#define DEFAULT_SCOPE memory_scope_device

// ---------------------------------------------------------------------------
// atomic_init, atomic_store, atomic_load, atomic_exchange: atomic type A
// holding C, in address space AS.

#define LOAD_STORE_EXCHANGE(AS, A, C)                                         \
  void OVERLOAD atomic_init(volatile AS A *p, C v) {                          \
    __opencl_atomic_init(p, v);                                               \
  }                                                                           \
                                                                              \
  void OVERLOAD atomic_store_explicit(volatile AS A *p, C v, memory_order o,  \
                                      memory_scope s) {                       \
    __opencl_atomic_store(p, v, o, s);                                        \
  }                                                                           \
  void OVERLOAD atomic_store_explicit(volatile AS A *p, C v,                  \
                                      memory_order o) {                       \
    __opencl_atomic_store(p, v, o, DEFAULT_SCOPE);                            \
  }                                                                           \
  void OVERLOAD atomic_store(volatile AS A *p, C v) {                         \
    __opencl_atomic_store(p, v, DEFAULT_ORDER, DEFAULT_SCOPE);                \
  }                                                                           \
                                                                              \
  C OVERLOAD atomic_load_explicit(volatile AS A *p, memory_order o,           \
                                  memory_scope s) {                           \
    return __opencl_atomic_load(p, o, s);                                     \
  }                                                                           \
  C OVERLOAD atomic_load_explicit(volatile AS A *p, memory_order o) {         \
    return __opencl_atomic_load(p, o, DEFAULT_SCOPE);                         \
  }                                                                           \
  C OVERLOAD atomic_load(volatile AS A *p) {                                  \
    return __opencl_atomic_load(p, DEFAULT_ORDER, DEFAULT_SCOPE);             \
  }                                                                           \
                                                                              \
  C OVERLOAD atomic_exchange_explicit(volatile AS A *p, C v, memory_order o,  \
                                      memory_scope s) {                       \
    return __opencl_atomic_exchange(p, v, o, s);                              \
  }                                                                           \
  C OVERLOAD atomic_exchange_explicit(volatile AS A *p, C v,                  \
                                      memory_order o) {                       \
    return __opencl_atomic_exchange(p, v, o, DEFAULT_SCOPE);                  \
  }                                                                           \
  C OVERLOAD atomic_exchange(volatile AS A *p, C v) {                         \
    return __opencl_atomic_exchange(p, v, DEFAULT_ORDER, DEFAULT_SCOPE);      \
  }

// ---------------------------------------------------------------------------
// atomic_compare_exchange_strong and _weak, with `expected` in address
// space EAS. The comparison works on a private copy of `expected`, written
// back only when the exchange fails, as the spec says. x86's cmpxchg never
// fails spuriously, so weak is strong.

#define COMPARE_EXCHANGE_ONE(KIND, AS, A, C, EAS)                             \
  bool OVERLOAD atomic_compare_exchange_##KIND##_explicit(                    \
      volatile AS A *p, EAS C *expected, C desired, memory_order success,     \
      memory_order failure, memory_scope s) {                                 \
    C e = *expected;                                                          \
    bool exchanged = __opencl_atomic_compare_exchange_##KIND(                 \
        p, &e, desired, success, failure, s);                                 \
    if (!exchanged)                                                           \
      *expected = e;                                                          \
    return exchanged;                                                         \
  }                                                                           \
  bool OVERLOAD atomic_compare_exchange_##KIND##_explicit(                    \
      volatile AS A *p, EAS C *expected, C desired, memory_order success,     \
      memory_order failure) {                                                 \
    return atomic_compare_exchange_##KIND##_explicit(                         \
        p, expected, desired, success, failure, DEFAULT_SCOPE);               \
  }                                                                           \
  bool OVERLOAD atomic_compare_exchange_##KIND(volatile AS A *p,              \
                                               EAS C *expected, C desired) {  \
    return atomic_compare_exchange_##KIND##_explicit(                         \
        p, expected, desired, DEFAULT_ORDER, DEFAULT_ORDER, DEFAULT_SCOPE);   \
  }

#define COMPARE_EXCHANGE_EXPECTED_IN(EAS, AS, A, C)                           \
  COMPARE_EXCHANGE_ONE(strong, AS, A, C, EAS)                                 \
  COMPARE_EXCHANGE_ONE(weak, AS, A, C, EAS)

// A named address space's atomic takes `expected` in any named one; a
// generic atomic takes a generic `expected`.
#define COMPARE_EXCHANGE_NAMED(AS, A, C)                                      \
  COMPARE_EXCHANGE_EXPECTED_IN(__global, AS, A, C)                            \
  COMPARE_EXCHANGE_EXPECTED_IN(__local, AS, A, C)                             \
  COMPARE_EXCHANGE_EXPECTED_IN(__private, AS, A, C)
#define COMPARE_EXCHANGE_GENERIC(AS, A, C)                                    \
  COMPARE_EXCHANGE_EXPECTED_IN(__generic, AS, A, C)

// ---------------------------------------------------------------------------
// atomic_fetch_<op>: the result is the value before the operation. The
// operand type M differs from C only for the intptr_t/uintptr_t mixes the
// spec lists; it is converted to C, so min and max compare as C does.

#define FETCH_OP(AS, A, C, M, OP)                                             \
  C OVERLOAD atomic_fetch_##OP##_explicit(volatile AS A *p, M v,              \
                                          memory_order o, memory_scope s) {   \
    return __opencl_atomic_fetch_##OP(p, (C)v, o, s);                         \
  }                                                                           \
  C OVERLOAD atomic_fetch_##OP##_explicit(volatile AS A *p, M v,              \
                                          memory_order o) {                   \
    return __opencl_atomic_fetch_##OP(p, (C)v, o, DEFAULT_SCOPE);             \
  }                                                                           \
  C OVERLOAD atomic_fetch_##OP(volatile AS A *p, M v) {                       \
    return __opencl_atomic_fetch_##OP(p, (C)v, DEFAULT_ORDER, DEFAULT_SCOPE); \
  }

#define FETCH_ALL(AS, A, C)                                                   \
  FETCH_OP(AS, A, C, C, add)                                                  \
  FETCH_OP(AS, A, C, C, sub)                                                  \
  FETCH_OP(AS, A, C, C, or)                                                   \
  FETCH_OP(AS, A, C, C, xor)                                                  \
  FETCH_OP(AS, A, C, C, and)                                                  \
  FETCH_OP(AS, A, C, C, min)                                                  \
  FETCH_OP(AS, A, C, C, max)

// The pointer-sized mixes (section 6.15.12.7): atomic_uintptr_t moved by a
// ptrdiff_t, and the bitwise and min/max operations of one pointer-sized
// atomic type with an operand of the other signedness.
#define FETCH_POINTER_SIZED(AS)                                               \
  FETCH_OP(AS, atomic_uintptr_t, uintptr_t, ptrdiff_t, add)                   \
  FETCH_OP(AS, atomic_uintptr_t, uintptr_t, ptrdiff_t, sub)                   \
  FETCH_OP(AS, atomic_uintptr_t, uintptr_t, intptr_t, or)                     \
  FETCH_OP(AS, atomic_uintptr_t, uintptr_t, intptr_t, xor)                    \
  FETCH_OP(AS, atomic_uintptr_t, uintptr_t, intptr_t, and)                    \
  FETCH_OP(AS, atomic_uintptr_t, uintptr_t, intptr_t, min)                    \
  FETCH_OP(AS, atomic_uintptr_t, uintptr_t, intptr_t, max)                    \
  FETCH_OP(AS, atomic_intptr_t, intptr_t, uintptr_t, or)                      \
  FETCH_OP(AS, atomic_intptr_t, intptr_t, uintptr_t, xor)                     \
  FETCH_OP(AS, atomic_intptr_t, intptr_t, uintptr_t, and)                     \
  FETCH_OP(AS, atomic_intptr_t, intptr_t, uintptr_t, min)                     \
  FETCH_OP(AS, atomic_intptr_t, intptr_t, uintptr_t, max)

// ---------------------------------------------------------------------------
// atomic_flag (an atomic_int): set is any non-zero value, clear is zero.

#define FLAG(AS)                                                              \
  bool OVERLOAD atomic_flag_test_and_set_explicit(                            \
      volatile AS atomic_flag *f, memory_order o, memory_scope s) {           \
    return __opencl_atomic_exchange(f, 1, o, s) != 0;                         \
  }                                                                           \
  bool OVERLOAD atomic_flag_test_and_set_explicit(volatile AS atomic_flag *f, \
                                                  memory_order o) {           \
    return atomic_flag_test_and_set_explicit(f, o, DEFAULT_SCOPE);            \
  }                                                                           \
  bool OVERLOAD atomic_flag_test_and_set(volatile AS atomic_flag *f) {        \
    return atomic_flag_test_and_set_explicit(f, DEFAULT_ORDER, DEFAULT_SCOPE); \
  }                                                                           \
  void OVERLOAD atomic_flag_clear_explicit(volatile AS atomic_flag *f,        \
                                           memory_order o, memory_scope s) {  \
    __opencl_atomic_store(f, 0, o, s);                                        \
  }                                                                           \
  void OVERLOAD atomic_flag_clear_explicit(volatile AS atomic_flag *f,        \
                                           memory_order o) {                  \
    atomic_flag_clear_explicit(f, o, DEFAULT_SCOPE);                          \
  }                                                                           \
  void OVERLOAD atomic_flag_clear(volatile AS atomic_flag *f) {               \
    atomic_flag_clear_explicit(f, DEFAULT_ORDER, DEFAULT_SCOPE);              \
  }

// ---------------------------------------------------------------------------

#define EVERY_TYPE(AS, A, C, COMPARE_EXCHANGE)                                \
  LOAD_STORE_EXCHANGE(AS, A, C)                                               \
  COMPARE_EXCHANGE(AS, A, C)

#define FOR_ADDRESS_SPACE(AS, COMPARE_EXCHANGE)                               \
  EVERY_TYPE(AS, atomic_int, int, COMPARE_EXCHANGE)                           \
  EVERY_TYPE(AS, atomic_uint, uint, COMPARE_EXCHANGE)                         \
  EVERY_TYPE(AS, atomic_long, long, COMPARE_EXCHANGE)                         \
  EVERY_TYPE(AS, atomic_ulong, ulong, COMPARE_EXCHANGE)                       \
  EVERY_TYPE(AS, atomic_float, float, COMPARE_EXCHANGE)                       \
  EVERY_TYPE(AS, atomic_double, double, COMPARE_EXCHANGE)                     \
  FETCH_ALL(AS, atomic_int, int)                                              \
  FETCH_ALL(AS, atomic_uint, uint)                                            \
  FETCH_ALL(AS, atomic_long, long)                                            \
  FETCH_ALL(AS, atomic_ulong, ulong)                                          \
  FETCH_POINTER_SIZED(AS)                                                     \
  FLAG(AS)

FOR_ADDRESS_SPACE(__global, COMPARE_EXCHANGE_NAMED)
FOR_ADDRESS_SPACE(__local, COMPARE_EXCHANGE_NAMED)
#if defined(__opencl_c_generic_address_space)
FOR_ADDRESS_SPACE(__generic, COMPARE_EXCHANGE_GENERIC)
#endif

// A fence for work-item scope only orders this work-item's own accesses
// (as seen by itself), which is the compiler's business alone; any wider
// scope reaches other threads, so the CPU fences too. A relaxed fence is
// no fence.
void OVERLOAD atomic_work_item_fence(cl_mem_fence_flags flags,
                                     memory_order order, memory_scope scope) {
  if (scope == memory_scope_work_item)
    __atomic_signal_fence(order);
  else
    __atomic_thread_fence(order);
}
