// Image write functions (OpenCL C 3.0 section 6.15.15.5): write_imagef,
// write_imagei and write_imageui for every image type, 3D included
// (cl_khr_3d_image_writes), write-only and read-write. Values are converted
// by the API spec's conversion rules: normalized types scaled, rounded to
// nearest even and saturated, half rounded to nearest even, integers
// saturated to the channel's range. A coordinate outside the image writes
// nothing. write_imageh (cl_khr_fp16) is write_imagef of the same values.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#include "half.h"
#include "image_texel.h"

#define FMIN(x, y) __builtin_elementwise_min(x, y)
#define FMAX(x, y) __builtin_elementwise_max(x, y)

// f * scale rounded to even and clamped to [lo, scale], NaN giving 0, as
// convert_<type>_sat_rte does.
static uint4 normalize_rte(float4 f, float4 scale, float4 lo) {
  float4 x = f * scale;
  x = FMIN(FMAX(x == x ? x : 0.0f, lo), scale);
  return as_uint4(CONV(4, int4, __builtin_elementwise_rint(x)));
}

// (r, g, b, a) in stored order to each channel's bits. The signed
// normalized types clamp to [-1, 1] first, as the Khronos CTS's reference
// does (-128 is never written).
static uint4 float_to_channels(float4 f, uint type) {
  switch (type) {
  case CLK_UNORM_INT8:
    return normalize_rte(f, 255.0f, 0.0f);
  case CLK_UNORM_INT16:
    return normalize_rte(f, 65535.0f, 0.0f);
  case CLK_SNORM_INT8:
    return normalize_rte(f, 127.0f, -127.0f);
  case CLK_SNORM_INT16:
    return normalize_rte(f, 32767.0f, -32767.0f);
  case CLK_UNORM_SHORT_565:
    return normalize_rte(f, (float4)(31, 63, 31, 0), 0.0f);
  case CLK_UNORM_SHORT_555:
    return normalize_rte(f, (float4)(31, 31, 31, 0), 0.0f);
  case CLK_UNORM_INT_101010:
    return normalize_rte(f, (float4)(1023, 1023, 1023, 0), 0.0f);
  case CLK_HALF_FLOAT:
    return CONV(4, uint4, float_to_half_bits(f, RTE));
  case CLK_FLOAT:
    return as_uint4(f);
  default: // integer types: undefined for write_imagef
    return as_uint4(CONV(4, int4, FMIN(FMAX(f, (float4)-0x1p31f), (float4)0x1.fffffep30f)));
  }
}

static uint4 int_to_channels(int4 i, uint type) {
  switch (type) {
  case CLK_SIGNED_INT8:
    return as_uint4(__builtin_elementwise_min(
        __builtin_elementwise_max(i, (int4)-128), (int4)127));
  case CLK_SIGNED_INT16:
    return as_uint4(__builtin_elementwise_min(
        __builtin_elementwise_max(i, (int4)-32768), (int4)32767));
  default:
    return as_uint4(i);
  }
}

static uint4 uint_to_channels(uint4 u, uint type) {
  switch (type) {
  case CLK_UNSIGNED_INT8:
    return __builtin_elementwise_min(u, (uint4)255);
  case CLK_UNSIGNED_INT16:
    return __builtin_elementwise_min(u, (uint4)65535);
  default:
    return u;
  }
}

// Texel `at` (x, y, and z: the slice of a 3D image or an array's layer)
// takes channels `c`, if it is inside the image.
static void store_texel(__mux_image_t im, int4 at, int array, uint4 c) {
  int4 inside = at >= 0 & at < texel_extent(im, array);
  if (inside.x & inside.y & inside.z)
    store_bits(texel_address(im, at), join_channels(c, im->channel_data_type),
               im->element_size);
}

static void write_float(__mux_image_t im, int4 at, int array, float4 v) {
  uint4 c = float_to_channels(stored_order(v, im->channel_order),
                              im->channel_data_type);
  store_texel(im, at, array, c);
}

static void write_int(__mux_image_t im, int4 at, int array, int4 v) {
  uint4 c = int_to_channels(stored_order(v, im->channel_order),
                            im->channel_data_type);
  store_texel(im, at, array, c);
}

static void write_uint(__mux_image_t im, int4 at, int array, uint4 v) {
  uint4 c = uint_to_channels(stored_order(v, im->channel_order),
                             im->channel_data_type);
  store_texel(im, at, array, c);
}

// Each kind of image's coordinate as (x, y, z): z is a 3D image's slice or
// an array's layer.
#define AT_1(c) ((int4)((c), 0, 0, 0))
#define AT_1A(c) ((int4)((c).x, 0, (c).y, 0))
#define AT_2(c) ((int4)((c).xy, 0, 0))
#define AT_2A(c) ((int4)((c).xyz, 0))
#define AT_3(c) ((int4)((c).xyz, 0))
#define ARRAY_1 0
#define ARRAY_1A 1
#define ARRAY_2 0
#define ARRAY_2A 1
#define ARRAY_3 0

#define DESCRIPTOR(NAME, SUFFIX, im) __mux_image_descriptor_##NAME##_##SUFFIX(im)
#define WRITES(ACC, SUFFIX, IMG, NAME, K, IC)                                 \
  void OVERLOAD write_imagef(ACC IMG im, IC c, float4 v) {                    \
    write_float(DESCRIPTOR(NAME, SUFFIX, im), AT_##K(c), ARRAY_##K, v);       \
  }                                                                           \
  void OVERLOAD write_imagei(ACC IMG im, IC c, int4 v) {                      \
    write_int(DESCRIPTOR(NAME, SUFFIX, im), AT_##K(c), ARRAY_##K, v);         \
  }                                                                           \
  void OVERLOAD write_imageui(ACC IMG im, IC c, uint4 v) {                    \
    write_uint(DESCRIPTOR(NAME, SUFFIX, im), AT_##K(c), ARRAY_##K, v);        \
  }                                                                           \
  void OVERLOAD write_imageh(ACC IMG im, IC c, half4 v) {                     \
    write_float(DESCRIPTOR(NAME, SUFFIX, im), AT_##K(c), ARRAY_##K,           \
                convert_float4(v));                                           \
  }
// A depth image takes one float: the depth.
#define DEPTH_WRITES(ACC, SUFFIX, IMG, NAME, K, IC)                           \
  void OVERLOAD write_imagef(ACC IMG im, IC c, float depth) {                 \
    write_float(DESCRIPTOR(NAME, SUFFIX, im), AT_##K(c), ARRAY_##K,           \
                (float4)(depth, 0, 0, 0));                                    \
  }

#define ALL_WRITES(ACC, SUFFIX)                                               \
  WRITES(ACC, SUFFIX, image1d_t, 1d, 1, int)                                  \
  WRITES(ACC, SUFFIX, image1d_buffer_t, 1d_buffer, 1, int)                    \
  WRITES(ACC, SUFFIX, image1d_array_t, 1d_array, 1A, int2)                    \
  WRITES(ACC, SUFFIX, image2d_t, 2d, 2, int2)                                 \
  WRITES(ACC, SUFFIX, image2d_array_t, 2d_array, 2A, int4)                    \
  WRITES(ACC, SUFFIX, image3d_t, 3d, 3, int4)                                 \
  DEPTH_WRITES(ACC, SUFFIX, image2d_depth_t, 2d_depth, 2, int2)               \
  DEPTH_WRITES(ACC, SUFFIX, image2d_array_depth_t, 2d_array_depth, 2A, int4)

ALL_WRITES(write_only, wo)
ALL_WRITES(read_write, rw)
