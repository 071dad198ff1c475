// A first part of the integer library (OpenCL C 3.0 section 6.15.3).
#include "mux.h"

#define MIN_MAX(T)                                                            \
  T OVERLOAD min(T a, T b) { return b < a ? b : a; }                          \
  T OVERLOAD max(T a, T b) { return a < b ? b : a; }                          \
  T OVERLOAD clamp(T x, T lo, T hi) { return min(max(x, lo), hi); }

MIN_MAX(char)
MIN_MAX(uchar)
MIN_MAX(short)
MIN_MAX(ushort)
MIN_MAX(int)
MIN_MAX(uint)
MIN_MAX(long)
MIN_MAX(ulong)

// The common min/max/clamp for floats (section 6.15.4).
float OVERLOAD min(float a, float b) { return b < a ? b : a; }
float OVERLOAD max(float a, float b) { return a < b ? b : a; }
float OVERLOAD clamp(float x, float lo, float hi) { return min(max(x, lo), hi); }

uint OVERLOAD abs(int x) { return x < 0 ? -(uint)x : (uint)x; }
uint OVERLOAD abs(uint x) { return x; }
