// cl_intel_bfloat16_conversions: float to the bits of a bfloat16 (the top
// half of a float) rounded to nearest even, and back. A NaN stays a NaN of
// its sign, made quiet, as truncation alone could turn its payload into
// an infinity.
#include "declarations.h"
#include "gentype.h"

#define BFLOAT16(N)                                                           \
  ushort##N OVERLOAD intel_convert_bfloat16##N##_as_ushort##N(float##N f) {   \
    uint##N u = as_uint##N(f);                                                \
    uint##N rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;                 \
    uint##N quiet_nan = (u >> 16) | 0x40u;                                    \
    return convert_ushort##N(select(rounded, quiet_nan, isnan(f)));           \
  }                                                                           \
  float##N OVERLOAD intel_convert_as_bfloat16##N##_float##N(ushort##N b) {    \
    return as_float##N(convert_uint##N(b) << 16);                             \
  }

BFLOAT16()
BFLOAT16(2)
BFLOAT16(3)
BFLOAT16(4)
BFLOAT16(8)
BFLOAT16(16)
