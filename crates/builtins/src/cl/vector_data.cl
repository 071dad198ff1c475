// Vector data load and store functions (OpenCL C 3.0 section 6.15.7):
// vloadn/vstoren for every type (half too: cl_khr_fp16), and the half <->
// float conversions of vload_half, vstore_half (every rounding mode) and
// their aligned forms.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#include "gentype.h"

// vloadn/vstoren address elements, not vectors: p + offset * n need only be
// aligned to the element. A vector type with the element's alignment lets
// LLVM use one unaligned vector load or store.
#define UNALIGNED(N, T)                                                       \
  typedef T T##N##_unaligned __attribute__((ext_vector_type(N), aligned(sizeof(T))));

// A 3-vector occupies 4 elements' room, so it is read and written per lane.
#define VLOAD(N, T, AS) VLOAD_##N(T, AS)
#define VLOAD_V(N, T, AS)                                                     \
  T##N OVERLOAD vload##N(size_t offset, const AS T *p) {                      \
    return *(const AS T##N##_unaligned *)(p + offset * N);                    \
  }
#define VLOAD_2(T, AS) VLOAD_V(2, T, AS)
#define VLOAD_4(T, AS) VLOAD_V(4, T, AS)
#define VLOAD_8(T, AS) VLOAD_V(8, T, AS)
#define VLOAD_16(T, AS) VLOAD_V(16, T, AS)
#define VLOAD_3(T, AS)                                                        \
  T##3 OVERLOAD vload3(size_t offset, const AS T *p) {                        \
    const AS T *q = p + offset * 3;                                           \
    return (T##3)(q[0], q[1], q[2]);                                          \
  }

#define VSTORE(N, T, AS) VSTORE_##N(T, AS)
#define VSTORE_V(N, T, AS)                                                    \
  void OVERLOAD vstore##N(T##N data, size_t offset, AS T *p) {                \
    *(AS T##N##_unaligned *)(p + offset * N) = data;                          \
  }
#define VSTORE_2(T, AS) VSTORE_V(2, T, AS)
#define VSTORE_4(T, AS) VSTORE_V(4, T, AS)
#define VSTORE_8(T, AS) VSTORE_V(8, T, AS)
#define VSTORE_16(T, AS) VSTORE_V(16, T, AS)
#define VSTORE_3(T, AS)                                                       \
  void OVERLOAD vstore3(T##3 data, size_t offset, AS T *p) {                  \
    AS T *q = p + offset * 3;                                                 \
    q[0] = data.x;                                                            \
    q[1] = data.y;                                                            \
    q[2] = data.z;                                                            \
  }

#define VLOAD_STORE(N, T)                                                     \
  UNALIGNED(N, T)                                                             \
  VLOAD(N, T, __global)                                                       \
  VLOAD(N, T, __local)                                                        \
  VLOAD(N, T, __constant)                                                     \
  VLOAD(N, T, __private)                                                      \
  VSTORE(N, T, __global)                                                      \
  VSTORE(N, T, __local)                                                       \
  VSTORE(N, T, __private)                                                     \
  VLOAD_STORE_GENERIC(N, T)

#if defined(__opencl_c_generic_address_space)
#define VLOAD_STORE_GENERIC(N, T) VLOAD(N, T, ) VSTORE(N, T, )
#else
#define VLOAD_STORE_GENERIC(N, T)
#endif

#define VLOAD_STORE_TYPE(T) VWIDTHS(VLOAD_STORE, T)
VLOAD_STORE_TYPE(char)
VLOAD_STORE_TYPE(uchar)
VLOAD_STORE_TYPE(short)
VLOAD_STORE_TYPE(ushort)
VLOAD_STORE_TYPE(int)
VLOAD_STORE_TYPE(uint)
VLOAD_STORE_TYPE(long)
VLOAD_STORE_TYPE(ulong)
VLOAD_STORE_TYPE(float)
VLOAD_STORE_TYPE(double)
VLOAD_STORE_TYPE(half)

// --- half <-> float (half.h).
#include "half.h"

// The half pointers are read and written as ushort bits.
#define HALF_LOAD(N, AS)                                                      \
  float##N OVERLOAD vload_half##N(size_t offset, const AS half *p) {          \
    return half_bits_to_float(                                                \
        VLOAD_BITS_##N((const AS ushort *)p, offset * HALF_N(N)));            \
  }                                                                           \
  float##N OVERLOAD vloada_half##N(size_t offset, const AS half *p) {         \
    return half_bits_to_float(                                                \
        VLOAD_BITS_##N((const AS ushort *)p, offset * HALF_A(N)));            \
  }
// Elements per step: n, with vloada_half3 stepping by 4 (aligned as 4).
#define HALF_N(N) HALF_N_##N
#define HALF_N_ 1
#define HALF_N_2 2
#define HALF_N_3 3
#define HALF_N_4 4
#define HALF_N_8 8
#define HALF_N_16 16
#define HALF_A(N) HALF_A_##N
#define HALF_A_ 1
#define HALF_A_2 2
#define HALF_A_3 4
#define HALF_A_4 4
#define HALF_A_8 8
#define HALF_A_16 16
#define VLOAD_BITS_(p, i) (p)[i]
#define VLOAD_BITS_2(p, i) vload2(0, (p) + (i))
#define VLOAD_BITS_3(p, i) vload3(0, (p) + (i))
#define VLOAD_BITS_4(p, i) vload4(0, (p) + (i))
#define VLOAD_BITS_8(p, i) vload8(0, (p) + (i))
#define VLOAD_BITS_16(p, i) vload16(0, (p) + (i))
#define VSTORE_BITS_(v, p, i) ((p)[i] = (v))
#define VSTORE_BITS_2(v, p, i) vstore2(v, 0, (p) + (i))
#define VSTORE_BITS_3(v, p, i) vstore3(v, 0, (p) + (i))
#define VSTORE_BITS_4(v, p, i) vstore4(v, 0, (p) + (i))
#define VSTORE_BITS_8(v, p, i) vstore8(v, 0, (p) + (i))
#define VSTORE_BITS_16(v, p, i) vstore16(v, 0, (p) + (i))

#define HALF_STORE_MODE(N, F, AS, SUFFIX, MODE)                               \
  void OVERLOAD vstore_half##N##SUFFIX(F##N data, size_t offset, AS half *p) { \
    VSTORE_BITS_##N(float_to_half_bits(data, MODE), (AS ushort *)p,           \
                    offset * HALF_N(N));                                      \
  }                                                                           \
  void OVERLOAD vstorea_half##N##SUFFIX(F##N data, size_t offset,             \
                                        AS half *p) {                         \
    VSTORE_BITS_##N(float_to_half_bits(data, MODE), (AS ushort *)p,           \
                    offset * HALF_A(N));                                      \
  }
#define HALF_STORE(N, F, AS)                                                  \
  HALF_STORE_MODE(N, F, AS, , RTE)                                            \
  HALF_STORE_MODE(N, F, AS, _rte, RTE)                                        \
  HALF_STORE_MODE(N, F, AS, _rtz, RTZ)                                        \
  HALF_STORE_MODE(N, F, AS, _rtp, RTP)                                        \
  HALF_STORE_MODE(N, F, AS, _rtn, RTN)

#define HALF_ALL(N, ...)                                                      \
  HALF_LOAD(N, __global)                                                      \
  HALF_LOAD(N, __local)                                                       \
  HALF_LOAD(N, __constant)                                                    \
  HALF_LOAD(N, __private)                                                     \
  HALF_STORE(N, float, __global)                                              \
  HALF_STORE(N, float, __local)                                               \
  HALF_STORE(N, float, __private)                                             \
  HALF_STORE(N, double, __global)                                             \
  HALF_STORE(N, double, __local)                                              \
  HALF_STORE(N, double, __private)                                            \
  HALF_GENERIC(N)

#if defined(__opencl_c_generic_address_space)
#define HALF_GENERIC(N) HALF_LOAD(N, ) HALF_STORE(N, float, ) HALF_STORE(N, double, )
#else
#define HALF_GENERIC(N)
#endif

WIDTHS(HALF_ALL)
