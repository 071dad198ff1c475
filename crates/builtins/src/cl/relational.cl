// Relational functions (OpenCL C 3.0 section 6.15.6). OpenCL C's own
// comparison operators already give the spec's results: int 1/0 for
// scalars, and for vectors a lane mask of -1/0 in the signed integer type of
// the element's size. So each test is one expression of comparisons, which
// serves the scalar and every vector width and vectorizes.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#include "gentype.h"

// N: width suffix; F: float or double; I: the signed integer of F's size.
// The scalar forms return int, the vector forms I##N.
#define REL_RESULT(N, I) REL_RESULT_##N(I)
#define REL_RESULT_(I) int
#define REL_RESULT_2(I) I##2
#define REL_RESULT_3(I) I##3
#define REL_RESULT_4(I) I##4
#define REL_RESULT_8(I) I##8
#define REL_RESULT_16(I) I##16

#define REL_FLOAT(N, F, I, U)                                                 \
  REL_RESULT(N, I) OVERLOAD isequal(F##N x, F##N y) { return x == y; }        \
  /* != is true for unordered operands, as the spec's x != y is. */           \
  REL_RESULT(N, I) OVERLOAD isnotequal(F##N x, F##N y) { return x != y; }     \
  REL_RESULT(N, I) OVERLOAD isgreater(F##N x, F##N y) { return x > y; }       \
  REL_RESULT(N, I) OVERLOAD isgreaterequal(F##N x, F##N y) { return x >= y; } \
  REL_RESULT(N, I) OVERLOAD isless(F##N x, F##N y) { return x < y; }          \
  REL_RESULT(N, I) OVERLOAD islessequal(F##N x, F##N y) { return x <= y; }    \
  REL_RESULT(N, I) OVERLOAD islessgreater(F##N x, F##N y) {                   \
    return (x < y) | (x > y);                                                 \
  }                                                                           \
  REL_RESULT(N, I) OVERLOAD isordered(F##N x, F##N y) {                       \
    return (x == x) & (y == y);                                               \
  }                                                                           \
  REL_RESULT(N, I) OVERLOAD isunordered(F##N x, F##N y) {                     \
    return (x != x) | (y != y);                                               \
  }                                                                           \
  REL_RESULT(N, I) OVERLOAD isnan(F##N x) { return x != x; }                  \
  REL_RESULT(N, I) OVERLOAD isinf(F##N x) {                                   \
    return __builtin_elementwise_abs(x) == (F##N)INFINITY;                    \
  }                                                                           \
  REL_RESULT(N, I) OVERLOAD isfinite(F##N x) {                                \
    return __builtin_elementwise_abs(x) < (F##N)INFINITY;                     \
  }                                                                           \
  /* Normal: at least the smallest normal, and finite (so not NaN). */        \
  REL_RESULT(N, I) OVERLOAD isnormal(F##N x) {                                \
    F##N a = __builtin_elementwise_abs(x);                                    \
    return (a >= (F##N)F##_MIN_NORMAL) & (a < (F##N)INFINITY);                \
  }                                                                           \
  /* The sign bit is the integer's: NaNs and zeros included. */               \
  REL_RESULT(N, I) OVERLOAD signbit(F##N x) { return as_##I##N(x) < (I##N)0; }

#define float_MIN_NORMAL FLT_MIN
#define double_MIN_NORMAL DBL_MIN
#define half_MIN_NORMAL HALF_MIN

WIDTHS(REL_FLOAT, float, int, uint)
WIDTHS(REL_FLOAT, double, long, ulong)
WIDTHS(REL_FLOAT, half, short, ushort)

// any/all look at the most significant bit of each lane: the OR (AND) of all
// lanes has it set exactly when some (every) lane has.
#define ANY_ALL(N, I)                                                         \
  int OVERLOAD any(I##N x) { return REDUCE_##N(or, x) < (I)0; }               \
  int OVERLOAD all(I##N x) { return REDUCE_##N(and, x) < (I)0; }
#define REDUCE_(op, x) (x)
#define REDUCE_2(op, x) __builtin_reduce_##op(x)
#define REDUCE_3(op, x) __builtin_reduce_##op(x)
#define REDUCE_4(op, x) __builtin_reduce_##op(x)
#define REDUCE_8(op, x) __builtin_reduce_##op(x)
#define REDUCE_16(op, x) __builtin_reduce_##op(x)

WIDTHS(ANY_ALL, char)
WIDTHS(ANY_ALL, short)
WIDTHS(ANY_ALL, int)
WIDTHS(ANY_ALL, long)

// bitselect: each bit from b where c has a 1, else from a. Floating-point
// types are handled as their bits.
#define BITSELECT_INT(N, T)                                                   \
  T##N OVERLOAD bitselect(T##N a, T##N b, T##N c) { return a ^ ((a ^ b) & c); }
#define BITSELECT_FLOAT(N, F, U)                                              \
  F##N OVERLOAD bitselect(F##N a, F##N b, F##N c) {                           \
    return as_##F##N(bitselect(as_##U##N(a), as_##U##N(b), as_##U##N(c)));    \
  }

// select: for scalars b if c is non-zero, else a; for vectors lane by lane,
// b where the lane of c has its most significant bit set. The selector may be
// the signed (S) or unsigned (U) integer type of T's element size.
#define SELECT(N, T, S, U) SELECT_##N(T, S, U)
#define SELECT_(T, S, U)                                                      \
  T OVERLOAD select(T a, T b, S c) { return c ? b : a; }                      \
  T OVERLOAD select(T a, T b, U c) { return c ? b : a; }
#define SELECT_V(N, T, S, U)                                                  \
  T##N OVERLOAD select(T##N a, T##N b, S##N c) {                              \
    return c < (S##N)0 ? b : a;                                               \
  }                                                                           \
  T##N OVERLOAD select(T##N a, T##N b, U##N c) {                              \
    return as_##S##N(c) < (S##N)0 ? b : a;                                    \
  }
#define SELECT_2(T, S, U) SELECT_V(2, T, S, U)
#define SELECT_3(T, S, U) SELECT_V(3, T, S, U)
#define SELECT_4(T, S, U) SELECT_V(4, T, S, U)
#define SELECT_8(T, S, U) SELECT_V(8, T, S, U)
#define SELECT_16(T, S, U) SELECT_V(16, T, S, U)

#define SELECT_ALL(T, S, U) WIDTHS(SELECT, T, S, U)
#define INT_REL(S, U)                                                         \
  WIDTHS(BITSELECT_INT, S)                                                    \
  WIDTHS(BITSELECT_INT, U)                                                    \
  SELECT_ALL(S, S, U)                                                         \
  SELECT_ALL(U, S, U)

INT_REL(char, uchar)
INT_REL(short, ushort)
INT_REL(int, uint)
INT_REL(long, ulong)
WIDTHS(BITSELECT_FLOAT, float, uint)
WIDTHS(BITSELECT_FLOAT, double, ulong)
SELECT_ALL(float, int, uint)
SELECT_ALL(double, long, ulong)
WIDTHS(BITSELECT_FLOAT, half, ushort)
SELECT_ALL(half, short, ushort)
