// The functions of cl_khr_work_group_uniform_arithmetic: reduce and scans by mul for every
// type, by and, or and xor for the integer types, and by logical and, or
// and xor over int predicates, combined as work_group.h describes. Clang
// declares none of them; declarations.h does, for programs and for this file.
#include "work_group.h"
#include "declarations.h"
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define WG_INTEGER(T)                                                         \
  WG_ARITHMETIC(mul, T, WG_MUL_INT, 1)                                        \
  WG_ARITHMETIC(and, T, WG_AND, ~(T)0)                                        \
  WG_ARITHMETIC(or, T, WG_OR, 0)                                              \
  WG_ARITHMETIC(xor, T, WG_XOR, 0)

WG_INTEGER(int)
WG_INTEGER(uint)
WG_INTEGER(long)
WG_INTEGER(ulong)
WG_ARITHMETIC_FLOAT(mul, float, WG_MUL_FLOAT, 1)
WG_ARITHMETIC_FLOAT(mul, double, WG_MUL_FLOAT, 1)
WG_ARITHMETIC_FLOAT(mul, half, WG_MUL_FLOAT, 1)

WG_LOGICAL(logical_and, WG_LOGICAL_AND, 1)
WG_LOGICAL(logical_or, WG_LOGICAL_OR, 0)
WG_LOGICAL(logical_xor, WG_LOGICAL_XOR, 0)
