// Texels of the image formats ferrocl offers (libimg::format): where a
// texel is, its bits as words, the words split into channels (and joined
// back) by channel type, and the channels moved between the order they are
// stored in and the (r, g, b, a) the image functions take and return.
// Everything here inlines into the image functions; its branches are on the
// descriptor's format, which is the same for every work-item.
#ifndef FERROCL_IMAGE_TEXEL_H
#define FERROCL_IMAGE_TEXEL_H

#include "gentype.h"
#include "image.h"

// An image made over a host pointer may be only byte-aligned.
typedef ushort ushort_u __attribute__((aligned(1)));
typedef uint uint_u __attribute__((aligned(1)));
typedef uint uint2_u __attribute__((ext_vector_type(2), aligned(1)));
typedef uint uint4_u __attribute__((ext_vector_type(4), aligned(1)));

// Texel (at.x, at.y, at.z), each index inside the image; z is the slice of
// a 3D image or the layer of an array (slice_pitch apart either way).
static __global uchar *texel_address(__mux_image_t im, int4 at) {
  return im->data + (size_t)(uint)at.z * im->slice_pitch +
         (size_t)(uint)at.y * im->row_pitch +
         (size_t)(uint)at.x * im->element_size;
}

// A texel's bytes as little-endian words: one load of exactly its size.
static uint4 load_bits(const __global uchar *p, uint size) {
  switch (size) {
  case 1:
    return (uint4)(p[0], 0, 0, 0);
  case 2:
    return (uint4)(*(const __global ushort_u *)p, 0, 0, 0);
  case 3: // sRGB: three bytes
    return (uint4)(p[0] | (uint)p[1] << 8 | (uint)p[2] << 16, 0, 0, 0);
  case 4:
    return (uint4)(*(const __global uint_u *)p, 0, 0, 0);
  case 8:
    return (uint4)(*(const __global uint2_u *)p, 0, 0);
  default:
    return *(const __global uint4_u *)p;
  }
}

static void store_bits(__global uchar *p, uint4 w, uint size) {
  switch (size) {
  case 1:
    p[0] = (uchar)w.x;
    break;
  case 2:
    *(__global ushort_u *)p = (ushort)w.x;
    break;
  case 3:
    p[0] = (uchar)w.x;
    p[1] = (uchar)(w.x >> 8);
    p[2] = (uchar)(w.x >> 16);
    break;
  case 4:
    *(__global uint_u *)p = w.x;
    break;
  case 8:
    *(__global uint2_u *)p = w.xy;
    break;
  default:
    *(__global uint4_u *)p = w;
    break;
  }
}

// The channels in the order they are stored, each its own bits
// zero-extended. The packed types lay out (r, g, b) from the high bits
// down: 5-6-5, x-5-5-5 and x-10-10-10.
static uint4 split_channels(uint4 w, uint type) {
  switch (type) {
  case CLK_SNORM_INT8:
  case CLK_UNORM_INT8:
  case CLK_SIGNED_INT8:
  case CLK_UNSIGNED_INT8:
    return (uint4)(w.x, w.x >> 8, w.x >> 16, w.x >> 24) & 0xffu;
  case CLK_UNORM_SHORT_565:
    return (uint4)(w.x >> 11, w.x >> 5, w.x, 0) & (uint4)(31, 63, 31, 0);
  case CLK_UNORM_SHORT_555:
    return (uint4)(w.x >> 10, w.x >> 5, w.x, 0) & (uint4)(31, 31, 31, 0);
  case CLK_UNORM_INT_101010:
    return (uint4)(w.x >> 20, w.x >> 10, w.x, 0) & (uint4)(1023, 1023, 1023, 0);
  case CLK_SIGNED_INT32:
  case CLK_UNSIGNED_INT32:
  case CLK_FLOAT:
    return w;
  default: // 16-bit channels
    return (uint4)(w.x, w.x >> 16, w.y, w.y >> 16) & 0xffffu;
  }
}

// split_channels' inverse: the low bits of each channel, packed.
static uint4 join_channels(uint4 c, uint type) {
  switch (type) {
  case CLK_SNORM_INT8:
  case CLK_UNORM_INT8:
  case CLK_SIGNED_INT8:
  case CLK_UNSIGNED_INT8:
    c &= 0xffu;
    return (uint4)(c.x | c.y << 8 | c.z << 16 | c.w << 24, 0, 0, 0);
  case CLK_UNORM_SHORT_565:
    return (uint4)(c.x << 11 | c.y << 5 | c.z, 0, 0, 0);
  case CLK_UNORM_SHORT_555:
    return (uint4)(c.x << 10 | c.y << 5 | c.z, 0, 0, 0);
  case CLK_UNORM_INT_101010:
    return (uint4)(c.x << 20 | c.y << 10 | c.z, 0, 0, 0);
  case CLK_SIGNED_INT32:
  case CLK_UNSIGNED_INT32:
  case CLK_FLOAT:
    return c;
  default: // 16-bit channels
    c &= 0xffffu;
    return (uint4)(c.x | c.y << 16, c.z | c.w << 16, 0, 0);
  }
}

// Stored channels to (r, g, b, a), missing ones filled as the spec's table
// of channel orders says: 0 for colours, `one` for alpha. Raw zeros come
// out as the border colour: (0, 0, 0, 0) for orders with alpha (and
// CL_INTENSITY), (0, 0, 0, 1) for the others.
#define PLACE_CHANNELS(T, ONE)                                                \
  static T##4 OVERLOAD place_channels(T##4 v, uint order) {                   \
    const T one = ONE;                                                        \
    switch (order) {                                                          \
    case CLK_R:                                                               \
    case CLK_DEPTH:                                                           \
      return (T##4)(v.x, 0, 0, one);                                          \
    case CLK_A:                                                               \
      return (T##4)(0, 0, 0, v.x);                                            \
    case CLK_RG:                                                              \
      return (T##4)(v.x, v.y, 0, one);                                        \
    case CLK_RA:                                                              \
      return (T##4)(v.x, 0, 0, v.y);                                          \
    case CLK_RGB:                                                             \
    case CLK_sRGB:                                                            \
      return (T##4)(v.xyz, one);                                              \
    case CLK_BGRA:                                                            \
    case CLK_sBGRA:                                                           \
      return v.zyxw;                                                          \
    case CLK_ARGB:                                                            \
      return v.yzwx;                                                          \
    case CLK_ABGR:                                                            \
      return v.wzyx;                                                          \
    case CLK_INTENSITY:                                                       \
      return v.xxxx;                                                          \
    case CLK_LUMINANCE:                                                       \
      return (T##4)(v.xxx, one);                                              \
    default: /* RGBA, sRGBA */                                                \
      return v;                                                               \
    }                                                                         \
  }
PLACE_CHANNELS(float, 1.0f)
PLACE_CHANNELS(int, 1)
PLACE_CHANNELS(uint, 1u)

// (r, g, b, a) to the channels in stored order: a one-channel order takes
// r (alpha for CL_A), CL_RA takes r and a; the rest are permutations.
#define STORED_ORDER(T)                                                       \
  static T##4 OVERLOAD stored_order(T##4 c, uint order) {                     \
    switch (order) {                                                          \
    case CLK_A:                                                               \
      return c.wwww;                                                          \
    case CLK_RA:                                                              \
      return c.xwww;                                                          \
    case CLK_BGRA:                                                            \
    case CLK_sBGRA:                                                           \
      return c.zyxw;                                                          \
    case CLK_ARGB:                                                            \
      return c.wxyz;                                                          \
    case CLK_ABGR:                                                            \
      return c.wzyx;                                                          \
    default:                                                                  \
      return c;                                                               \
    }                                                                         \
  }
STORED_ORDER(float)
STORED_ORDER(int)
STORED_ORDER(uint)

// The extent of each axis an image is indexed on: width, height (1 for 1D
// images), and the depth of a 3D image or the layers of an array.
static int4 texel_extent(__mux_image_t im, int array) {
  return (int4)(im->width, im->height, array ? im->array_size : im->depth, 1);
}

#endif
