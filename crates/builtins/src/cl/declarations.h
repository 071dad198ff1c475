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
#if defined(cl_khr_fp16)
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__ferrocl_wg_three(half, mul)
#pragma OPENCL EXTENSION cl_khr_fp16 : disable
#endif
__ferrocl_wg_three(int, logical_and)
__ferrocl_wg_three(int, logical_or)
__ferrocl_wg_three(int, logical_xor)
#undef __ferrocl_wg_integer
#undef __ferrocl_wg_three
#endif

// cl_intel_subgroups with its _char, _short and _long types, and
// cl_intel_subgroup_local_block_io (intel_sub_groups.cl).
#if defined(cl_intel_subgroups)
#define __ferrocl_intel_shuffles(T)                                           \
  T __attribute__((overloadable)) intel_sub_group_shuffle(T, uint);           \
  T __attribute__((overloadable)) intel_sub_group_shuffle_xor(T, uint);       \
  T __attribute__((overloadable)) intel_sub_group_shuffle_down(T, T, uint);   \
  T __attribute__((overloadable)) intel_sub_group_shuffle_up(T, T, uint);
#define __ferrocl_intel_shuffles_all(T)                                       \
  __ferrocl_intel_shuffles(T) __ferrocl_intel_shuffles(T##2)                  \
      __ferrocl_intel_shuffles(T##3) __ferrocl_intel_shuffles(T##4)           \
          __ferrocl_intel_shuffles(T##8) __ferrocl_intel_shuffles(T##16)
__ferrocl_intel_shuffles_all(char)
__ferrocl_intel_shuffles_all(uchar)
__ferrocl_intel_shuffles_all(short)
__ferrocl_intel_shuffles_all(ushort)
__ferrocl_intel_shuffles_all(int)
__ferrocl_intel_shuffles_all(uint)
__ferrocl_intel_shuffles_all(long)
__ferrocl_intel_shuffles_all(ulong)
__ferrocl_intel_shuffles_all(float)
#if defined(cl_khr_fp64)
__ferrocl_intel_shuffles_all(double)
#endif
#if defined(cl_khr_fp16)
// Enabled for these declarations only: a program enables half itself.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__ferrocl_intel_shuffles_all(half)
#pragma OPENCL EXTENSION cl_khr_fp16 : disable
#endif
#define __ferrocl_intel_block(R, T, NAME, AS)                                 \
  R __attribute__((overloadable)) intel_sub_group_block_read##NAME(const AS T *); \
  void __attribute__((overloadable)) intel_sub_group_block_write##NAME(AS T *, R);
#define __ferrocl_intel_blocks(T, SUFFIX, AS)                                 \
  __ferrocl_intel_block(T, T, SUFFIX, AS)                                     \
      __ferrocl_intel_block(T##2, T, SUFFIX##2, AS)                           \
          __ferrocl_intel_block(T##4, T, SUFFIX##4, AS)                       \
              __ferrocl_intel_block(T##8, T, SUFFIX##8, AS)
#define __ferrocl_intel_blocks_space(AS)                                      \
  __ferrocl_intel_blocks(uint, , AS) __ferrocl_intel_blocks(uint, _ui, AS)    \
      __ferrocl_intel_blocks(ushort, _us, AS)                                 \
          __ferrocl_intel_blocks(uchar, _uc, AS)                              \
              __ferrocl_intel_block(uchar16, uchar, _uc16, AS)                \
                  __ferrocl_intel_blocks(ulong, _ul, AS)
__ferrocl_intel_blocks_space(__global)
__ferrocl_intel_blocks_space(__local)
#if defined(__opencl_c_images)
#define __ferrocl_intel_image_block(R, NAME, READ, WRITE)                     \
  R __attribute__((overloadable)) intel_sub_group_block_read##NAME(READ image2d_t, int2); \
  void __attribute__((overloadable)) intel_sub_group_block_write##NAME(WRITE image2d_t, int2, R);
#define __ferrocl_intel_image_blocks(T, SUFFIX, READ, WRITE)                  \
  __ferrocl_intel_image_block(T, SUFFIX, READ, WRITE)                         \
      __ferrocl_intel_image_block(T##2, SUFFIX##2, READ, WRITE)               \
          __ferrocl_intel_image_block(T##4, SUFFIX##4, READ, WRITE)           \
              __ferrocl_intel_image_block(T##8, SUFFIX##8, READ, WRITE)
#define __ferrocl_intel_image_blocks_access(READ, WRITE)                      \
  __ferrocl_intel_image_blocks(uint, , READ, WRITE)                           \
      __ferrocl_intel_image_blocks(uint, _ui, READ, WRITE)                    \
          __ferrocl_intel_image_blocks(ushort, _us, READ, WRITE)              \
              __ferrocl_intel_image_blocks(uchar, _uc, READ, WRITE)           \
                  __ferrocl_intel_image_blocks(ulong, _ul, READ, WRITE)
__ferrocl_intel_image_blocks_access(read_only, write_only)
#if defined(__opencl_c_read_write_images) && __OPENCL_C_VERSION__ >= 200
__ferrocl_intel_image_blocks_access(read_write, read_write)
#endif
#undef __ferrocl_intel_image_blocks_access
#undef __ferrocl_intel_image_blocks
#undef __ferrocl_intel_image_block
#endif
#undef __ferrocl_intel_blocks_space
#undef __ferrocl_intel_blocks
#undef __ferrocl_intel_block
#undef __ferrocl_intel_shuffles_all
#undef __ferrocl_intel_shuffles
#endif

// cl_intel_bfloat16_conversions (bfloat16.cl).
#if defined(cl_intel_bfloat16_conversions)
#define __ferrocl_bfloat16(N)                                                 \
  ushort##N __attribute__((overloadable))                                     \
      intel_convert_bfloat16##N##_as_ushort##N(float##N);                     \
  float##N __attribute__((overloadable))                                      \
      intel_convert_as_bfloat16##N##_float##N(ushort##N);
__ferrocl_bfloat16()
__ferrocl_bfloat16(2)
__ferrocl_bfloat16(3)
__ferrocl_bfloat16(4)
__ferrocl_bfloat16(8)
__ferrocl_bfloat16(16)
#undef __ferrocl_bfloat16
#endif

#endif
