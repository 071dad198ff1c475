// Declarations of the library's functions that Clang's own
// (-fdeclare-opencl-builtins) lack: the compiler includes this header
// before every program, and the library files that define them include it
// too, so a definition that strays from its declaration fails to compile.
// Its macros are undefined at the end: a program's names are its own.
#ifndef FERROCL_DECLARATIONS_H
#define FERROCL_DECLARATIONS_H

// The functions of cl_khr_work_group_uniform_arithmetic, with the
// collectives (the extension itself is not reported: see
// compiler::OPENCL_C_EXTENSIONS).
#if defined(__opencl_c_work_group_collective_functions)
#define __ferrocl_wg_three(T, OP)                                             \
  T __attribute__((overloadable)) work_group_reduce_##OP(T);                  \
  T __attribute__((overloadable)) work_group_scan_inclusive_##OP(T);          \
  T __attribute__((overloadable)) work_group_scan_exclusive_##OP(T);
#define __ferrocl_wg_integer(T)                                               \
  __ferrocl_wg_three(T, mul) __ferrocl_wg_three(T, and)                       \
      __ferrocl_wg_three(T, or) __ferrocl_wg_three(T, xor)
__ferrocl_wg_integer(int)
__ferrocl_wg_integer(uint)
__ferrocl_wg_integer(long)
__ferrocl_wg_integer(ulong)
__ferrocl_wg_three(float, mul)
#if defined(cl_khr_fp64)
__ferrocl_wg_three(double, mul)
#endif
__ferrocl_wg_three(int, logical_and)
__ferrocl_wg_three(int, logical_or)
__ferrocl_wg_three(int, logical_xor)
#undef __ferrocl_wg_integer
#undef __ferrocl_wg_three
#endif

#endif
