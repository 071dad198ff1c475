// Image read functions (OpenCL C 3.0 section 6.15.15.2-6.15.15.4):
// read_imagef, read_imagei and read_imageui with a sampler (float and int
// coordinates) and without one, for every image type and access. Sampling
// follows the API spec's "Image Addressing and Filtering" and its
// conversion rules. The sampler's bits are a constant once a sampler
// initializer is inlined, so the branches on them fold; the format's are
// the same for every work-item. Coordinates are clamped into the image
// before anything is loaded, so no read leaves it whatever the coordinate
// (NaN, huge, or out of range with CLK_ADDRESS_NONE). read_imageh
// (cl_khr_fp16) is read_imagef rounded to half.
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#include "half.h"
#include "image_texel.h"

// sRGB to linear of each 8-bit value c: the spec's curve of c / 255.0f,
// rounded once to float.
__constant float __ferrocl_srgb_to_linear[256] = {
    0.0f, 0x1.3e4568p-12f, 0x1.3e4568p-11f, 0x1.dd681cp-11f, 0x1.3e4568p-10f,
    0x1.8dd6c2p-10f, 0x1.dd681cp-10f, 0x1.167cbap-9f, 0x1.3e4568p-9f,
    0x1.660e16p-9f, 0x1.8dd6c2p-9f, 0x1.b6a31cp-9f, 0x1.e1e31ep-9f,
    0x1.07c38cp-8f, 0x1.1fcc2cp-8f, 0x1.390ffcp-8f, 0x1.53936ep-8f,
    0x1.6f5aep-8f, 0x1.8c6a96p-8f, 0x1.aac6c2p-8f, 0x1.ca7384p-8f,
    0x1.eb74e2p-8f, 0x1.06e76cp-7f, 0x1.18c2a6p-7f, 0x1.2b4e0ap-7f,
    0x1.3e8b7cp-7f, 0x1.527cd6p-7f, 0x1.6723fp-7f, 0x1.7c8292p-7f,
    0x1.929a8ap-7f, 0x1.a96d92p-7f, 0x1.c0fd68p-7f, 0x1.d94bcp-7f,
    0x1.f25a48p-7f, 0x1.061552p-6f, 0x1.135f4p-6f, 0x1.210bbap-6f,
    0x1.2f1b8ep-6f, 0x1.3d8f86p-6f, 0x1.4c6868p-6f, 0x1.5ba6fcp-6f,
    0x1.6b4c04p-6f, 0x1.7b5844p-6f, 0x1.8bcc76p-6f, 0x1.9ca95ap-6f,
    0x1.adefaap-6f, 0x1.bfa022p-6f, 0x1.d1bb74p-6f, 0x1.e4425ap-6f,
    0x1.f73586p-6f, 0x1.054ad4p-5f, 0x1.0f31bap-5f, 0x1.194fccp-5f,
    0x1.23a55ep-5f, 0x1.2e32cap-5f, 0x1.38f86p-5f, 0x1.43f678p-5f,
    0x1.4f2d64p-5f, 0x1.5a9d76p-5f, 0x1.664702p-5f, 0x1.722a56p-5f,
    0x1.7e47c8p-5f, 0x1.8a9fa4p-5f, 0x1.97323ap-5f, 0x1.a3ffdcp-5f,
    0x1.b108d2p-5f, 0x1.be4d6ep-5f, 0x1.cbcdfcp-5f, 0x1.d98acap-5f,
    0x1.e7842p-5f, 0x1.f5ba4cp-5f, 0x1.0216ccp-4f, 0x1.096f28p-4f,
    0x1.10e65ep-4f, 0x1.187c92p-4f, 0x1.2031eap-4f, 0x1.280688p-4f,
    0x1.2ffa92p-4f, 0x1.380e2cp-4f, 0x1.404176p-4f, 0x1.489496p-4f,
    0x1.5107aep-4f, 0x1.599aep-4f, 0x1.624e5p-4f, 0x1.6b222p-4f,
    0x1.741672p-4f, 0x1.7d2b66p-4f, 0x1.86612p-4f, 0x1.8fb7c2p-4f,
    0x1.992f6ap-4f, 0x1.a2c83cp-4f, 0x1.ac8258p-4f, 0x1.b65ddcp-4f,
    0x1.c05aeep-4f, 0x1.ca79aap-4f, 0x1.d4ba32p-4f, 0x1.df1ca4p-4f,
    0x1.e9a122p-4f, 0x1.f447cap-4f, 0x1.ff10bcp-4f, 0x1.04fe0cp-3f,
    0x1.0a84fep-3f, 0x1.101d44p-3f, 0x1.15c6eep-3f, 0x1.1b820ap-3f,
    0x1.214ea6p-3f, 0x1.272cd4p-3f, 0x1.2d1ca2p-3f, 0x1.331e1ep-3f,
    0x1.39315ap-3f, 0x1.3f566p-3f, 0x1.458d42p-3f, 0x1.4bd61p-3f,
    0x1.5230d4p-3f, 0x1.589dap-3f, 0x1.5f1c84p-3f, 0x1.65ad8ap-3f,
    0x1.6c50c4p-3f, 0x1.73063ep-3f, 0x1.79ce06p-3f, 0x1.80a82ep-3f,
    0x1.8794cp-3f, 0x1.8e93ccp-3f, 0x1.95a55ep-3f, 0x1.9cc986p-3f,
    0x1.a40052p-3f, 0x1.ab49cep-3f, 0x1.b2a60ap-3f, 0x1.ba1516p-3f,
    0x1.c196f8p-3f, 0x1.c92bcp-3f, 0x1.d0d38p-3f, 0x1.d88e4p-3f,
    0x1.e05c12p-3f, 0x1.e83dp-3f, 0x1.f0311ap-3f, 0x1.f8386ap-3f,
    0x1.00298p-2f, 0x1.044074p-2f, 0x1.086118p-2f, 0x1.0c8b72p-2f,
    0x1.10bf88p-2f, 0x1.14fd62p-2f, 0x1.194504p-2f, 0x1.1d9678p-2f,
    0x1.21f1cp-2f, 0x1.2656e6p-2f, 0x1.2ac5eep-2f, 0x1.2f3eep-2f,
    0x1.33c1c2p-2f, 0x1.384e9ap-2f, 0x1.3ce56ep-2f, 0x1.418644p-2f,
    0x1.463122p-2f, 0x1.4ae61p-2f, 0x1.4fa512p-2f, 0x1.546e2ep-2f,
    0x1.59416ep-2f, 0x1.5e1ed2p-2f, 0x1.630666p-2f, 0x1.67f82cp-2f,
    0x1.6cf42ap-2f, 0x1.71fa6ap-2f, 0x1.770aeep-2f, 0x1.7c25bcp-2f,
    0x1.814adep-2f, 0x1.867a56p-2f, 0x1.8bb42ap-2f, 0x1.90f862p-2f,
    0x1.964702p-2f, 0x1.9ba012p-2f, 0x1.a10396p-2f, 0x1.a67194p-2f,
    0x1.abea12p-2f, 0x1.b16d16p-2f, 0x1.b6faa6p-2f, 0x1.bc92c8p-2f,
    0x1.c2358p-2f, 0x1.c7e2d4p-2f, 0x1.cd9accp-2f, 0x1.d35d6ap-2f,
    0x1.d92ab8p-2f, 0x1.df02b8p-2f, 0x1.e4e572p-2f, 0x1.ead2eap-2f,
    0x1.f0cb26p-2f, 0x1.f6ce2ep-2f, 0x1.fcdc02p-2f, 0x1.017a56p-1f,
    0x1.048c18p-1f, 0x1.07a34ap-1f, 0x1.0abffp-1f, 0x1.0de20ap-1f,
    0x1.11099cp-1f, 0x1.1436a8p-1f, 0x1.176934p-1f, 0x1.1aa13ep-1f,
    0x1.1ddeccp-1f, 0x1.2121dep-1f, 0x1.246a7ap-1f, 0x1.27b8ap-1f,
    0x1.2b0c54p-1f, 0x1.2e6598p-1f, 0x1.31c47p-1f, 0x1.3528dcp-1f,
    0x1.3892ep-1f, 0x1.3c028p-1f, 0x1.3f77bep-1f, 0x1.42f29ap-1f,
    0x1.46731ap-1f, 0x1.49f93ep-1f, 0x1.4d850ap-1f, 0x1.511682p-1f,
    0x1.54ada6p-1f, 0x1.584a78p-1f, 0x1.5becfep-1f, 0x1.5f9538p-1f,
    0x1.63432ap-1f, 0x1.66f6d4p-1f, 0x1.6ab03cp-1f, 0x1.6e6f62p-1f,
    0x1.723448p-1f, 0x1.75fef4p-1f, 0x1.79cf66p-1f, 0x1.7da5ap-1f,
    0x1.8181a4p-1f, 0x1.856378p-1f, 0x1.894b1cp-1f, 0x1.8d3892p-1f,
    0x1.912bdep-1f, 0x1.952502p-1f, 0x1.9923fep-1f, 0x1.9d28dap-1f,
    0x1.a13392p-1f, 0x1.a5442cp-1f, 0x1.a95aacp-1f, 0x1.ad771p-1f,
    0x1.b1995ep-1f, 0x1.b5c198p-1f, 0x1.b9efbep-1f, 0x1.be23d4p-1f,
    0x1.c25ddep-1f, 0x1.c69ddcp-1f, 0x1.cae3d2p-1f, 0x1.cf2fcp-1f,
    0x1.d381aap-1f, 0x1.d7d994p-1f, 0x1.dc377ep-1f, 0x1.e09b6ap-1f,
    0x1.e5055cp-1f, 0x1.e97556p-1f, 0x1.edeb5cp-1f, 0x1.f2676cp-1f,
    0x1.f6e98cp-1f, 0x1.fb71bcp-1f, 1.0f,};

#define ADDRESSING(s) ((s) & 0xeu)
#define NORMALIZED(s) (((s) & CLK_NORMALIZED_COORDS_TRUE) != 0)
#define LINEAR(s) (((s) & CLK_FILTER_LINEAR) != 0)
#define BORDER(s)                                                             \
  (ADDRESSING(s) == CLK_ADDRESS_NONE || ADDRESSING(s) == CLK_ADDRESS_CLAMP)

#define FLOOR(x) __builtin_elementwise_floor(x)
#define RINT(x) __builtin_elementwise_rint(x)
// LLVM's minnum and maxnum: a NaN operand gives the other, so a NaN
// coordinate clamps to a valid index.
#define FMIN(x, y) __builtin_elementwise_min(x, y)
#define FMAX(x, y) __builtin_elementwise_max(x, y)

// A texel's stored channels (their bits), or the zeros the border colour
// is made of where `inside` is 0. The address is inside the image either
// way, so the load needs no branch.
static uint4 texel_channels(__mux_image_t im, int4 at, int inside) {
  uint4 w = load_bits(texel_address(im, at), im->element_size);
  return split_channels(inside ? w : (uint4)0, im->channel_data_type);
}

// Stored channels to floats, by the conversion rules: normalized types
// divided by their largest value (the signed ones clamped to -1), sRGB
// colour channels through the curve, half and float as they are.
static float4 channels_to_float(uint4 c, uint type, uint order) {
  switch (type) {
  case CLK_UNORM_INT8: {
    float4 f = CONV(4, float4, c) / 255.0f;
    if (order == CLK_sRGB || order == CLK_sRGBA || order == CLK_sBGRA)
      f.xyz = (float3)(__ferrocl_srgb_to_linear[c.x],
                       __ferrocl_srgb_to_linear[c.y],
                       __ferrocl_srgb_to_linear[c.z]);
    return f;
  }
  case CLK_UNORM_INT16:
    return CONV(4, float4, c) / 65535.0f;
  case CLK_SNORM_INT8:
    return FMAX(CONV(4, float4, as_int4(c << 24) >> 24) / 127.0f, (float4)-1.0f);
  case CLK_SNORM_INT16:
    return FMAX(CONV(4, float4, as_int4(c << 16) >> 16) / 32767.0f, (float4)-1.0f);
  case CLK_UNORM_SHORT_565:
    return CONV(4, float4, c) / (float4)(31, 63, 31, 1);
  case CLK_UNORM_SHORT_555:
    return CONV(4, float4, c) / (float4)(31, 31, 31, 1);
  case CLK_UNORM_INT_101010:
    return CONV(4, float4, c) / 1023.0f;
  case CLK_HALF_FLOAT:
    return half_bits_to_float(CONV(4, ushort4, c));
  case CLK_FLOAT:
    return as_float4(c);
  default: // integer types: undefined for read_imagef; their values
    return CONV(4, float4, as_int4(c));
  }
}

// Stored channels to ints: the signed types sign-extended.
static int4 channels_to_int(uint4 c, uint type) {
  switch (type) {
  case CLK_SIGNED_INT8:
    return as_int4(c << 24) >> 24;
  case CLK_SIGNED_INT16:
    return as_int4(c << 16) >> 16;
  default:
    return as_int4(c);
  }
}

// The coordinate of each axis in texels: for CLK_ADDRESS_REPEAT and
// CLK_ADDRESS_MIRRORED_REPEAT (normalized coordinates only) the spec's
// reduction into [0, extent]; otherwise scaled when normalized.
static float4 unnormalized(float4 c, float4 ext, uint s) {
  if (ADDRESSING(s) == CLK_ADDRESS_REPEAT)
    return (c - FLOOR(c)) * ext;
  if (ADDRESSING(s) == CLK_ADDRESS_MIRRORED_REPEAT)
    return __builtin_elementwise_abs(c - 2.0f * RINT(0.5f * c)) * ext;
  return NORMALIZED(s) ? c * ext : c;
}

// Integer texel indices from floor()ed ones `f`: -1 and extent stand for
// the border where the addressing mode has one, every other index is
// clamped to the edge (which is what MIRRORED_REPEAT's min/max are, and
// leaves REPEAT's wrapped indices as they are). Clamped as floats, so that
// NaN and huge values convert to in-range integers.
static int4 address(float4 f, float4 ext, uint s, int4 *inside) {
  float4 lo = (float4)(BORDER(s) ? -1.0f : 0.0f);
  float4 hi = BORDER(s) ? ext : ext - 1.0f;
  int4 i = CONV(4, int4, FMIN(FMAX(f, lo), hi));
  int4 e = CONV(4, int4, ext);
  *inside = i >= 0 & i < e;
  return __builtin_elementwise_min(__builtin_elementwise_max(i, (int4)0), e - 1);
}

// CLK_FILTER_NEAREST: the texel each unnormalized coordinate falls in.
static int4 nearest_texel(float4 u, float4 ext, uint s, int4 *inside) {
  float4 f = FLOOR(u);
  if (ADDRESSING(s) == CLK_ADDRESS_REPEAT)
    f = f > ext - 1.0f ? f - ext : f;
  return address(f, ext, s, inside);
}

// CLK_FILTER_LINEAR: the two texels each axis blends, i0 = floor(u - 0.5)
// and i1 = i0 + 1 (wrapped for REPEAT), and the weight of i1.
static float4 linear_texels(float4 u, float4 ext, uint s, int4 *i0, int4 *i1,
                            int4 *in0, int4 *in1) {
  float4 t = u - 0.5f;
  float4 f0 = FLOOR(t);
  float4 f1 = f0 + 1.0f;
  float4 weight = t - f0;
  if (ADDRESSING(s) == CLK_ADDRESS_REPEAT) {
    f0 = f0 < 0.0f ? f0 + ext : f0;
    f1 = f1 > ext - 1.0f ? f1 - ext : f1;
  }
  *i0 = address(f0, ext, s, in0);
  *i1 = address(f1, ext, s, in1);
  return weight;
}

// The layer an array coordinate selects: clamp(rint(w), 0, layers - 1).
static int array_layer(__mux_image_t im, float w) {
  return (int)FMIN(FMAX(RINT(w), 0.0f), (float)(im->array_size - 1));
}

static float4 texel_float(__mux_image_t im, int4 at, int inside) {
  return channels_to_float(texel_channels(im, at, inside),
                           im->channel_data_type, im->channel_order);
}

// read_imagef with a sampler and float coordinates: c holds x, y and z
// (0 for the axes an image lacks), `dims` of them sampled; an array's layer
// comes from `w`. A blend is made of the stored channels converted to
// float (sRGB ones made linear first) and placed once, so a missing alpha
// stays exactly 1.
static float4 sample_float(__mux_image_t im, uint s, float4 c, int dims,
                           int array, float w) {
  float4 ext = CONV(4, float4, texel_extent(im, 0));
  int layer = array ? array_layer(im, w) : 0;
  float4 u = unnormalized(c, ext, s);
  uint order = im->channel_order;
  if (!LINEAR(s)) {
    int4 inside;
    int4 at = nearest_texel(u, ext, s, &inside);
    at.z = dims == 3 ? at.z : layer;
    return place_channels(texel_float(im, at, inside.x & inside.y & inside.z),
                          order);
  }
  int4 i0, i1, in0, in1;
  float4 a = linear_texels(u, ext, s, &i0, &i1, &in0, &in1);
  float4 b = 1.0f - a;
  if (dims == 1) {
    float4 t0 = texel_float(im, (int4)(i0.x, 0, layer, 0), in0.x);
    float4 t1 = texel_float(im, (int4)(i1.x, 0, layer, 0), in1.x);
    return place_channels(b.x * t0 + a.x * t1, order);
  }
  // The first slice (the only one below 3D) and its z test.
  int z0 = dims == 3 ? i0.z : layer;
  int inz0 = dims == 3 ? in0.z : -1;
  float4 t00 = texel_float(im, (int4)(i0.x, i0.y, z0, 0), in0.x & in0.y & inz0);
  float4 t10 = texel_float(im, (int4)(i1.x, i0.y, z0, 0), in1.x & in0.y & inz0);
  float4 t01 = texel_float(im, (int4)(i0.x, i1.y, z0, 0), in0.x & in1.y & inz0);
  float4 t11 = texel_float(im, (int4)(i1.x, i1.y, z0, 0), in1.x & in1.y & inz0);
  float4 v0 = b.x * b.y * t00 + a.x * b.y * t10 + b.x * a.y * t01 +
              a.x * a.y * t11;
  if (dims == 2)
    return place_channels(v0, order);
  int inz1 = in1.z;
  float4 t001 = texel_float(im, (int4)(i0.x, i0.y, i1.z, 0), in0.x & in0.y & inz1);
  float4 t101 = texel_float(im, (int4)(i1.x, i0.y, i1.z, 0), in1.x & in0.y & inz1);
  float4 t011 = texel_float(im, (int4)(i0.x, i1.y, i1.z, 0), in0.x & in1.y & inz1);
  float4 t111 = texel_float(im, (int4)(i1.x, i1.y, i1.z, 0), in1.x & in1.y & inz1);
  float4 v1 = b.x * b.y * t001 + a.x * b.y * t101 + b.x * a.y * t011 +
              a.x * a.y * t111;
  return place_channels(b.z * v0 + a.z * v1, order);
}

// read_imagei and read_imageui with a sampler and float coordinates: the
// nearest texel (linear filtering of integer formats is undefined).
static uint4 sample_channels(__mux_image_t im, uint s, float4 c, int dims,
                             int array, float w) {
  float4 ext = CONV(4, float4, texel_extent(im, 0));
  int4 inside;
  int4 at = nearest_texel(unnormalized(c, ext, s), ext, s, &inside);
  at.z = dims == 3 ? at.z : array ? array_layer(im, w) : 0;
  return texel_channels(im, at, inside.x & inside.y & inside.z);
}

// Integer coordinates, with a sampler or without one (which is
// CLK_ADDRESS_NONE): the texel itself; outside the image, the border
// colour, or the edge for CLK_ADDRESS_CLAMP_TO_EDGE.
static uint4 fetch_channels(__mux_image_t im, uint s, int4 c, int array,
                            int w) {
  int4 ext = texel_extent(im, 0);
  int4 inside = c >= 0 & c < ext;
  int4 at = __builtin_elementwise_min(__builtin_elementwise_max(c, (int4)0), ext - 1);
  if (array)
    at.z = __builtin_elementwise_min(__builtin_elementwise_max(w, 0),
                                     im->array_size - 1);
  int in = ADDRESSING(s) == CLK_ADDRESS_CLAMP_TO_EDGE
               ? -1
               : inside.x & inside.y & inside.z;
  return texel_channels(im, at, in);
}

static int4 sample_int(__mux_image_t im, uint s, float4 c, int dims,
                       int array, float w) {
  uint4 ch = sample_channels(im, s, c, dims, array, w);
  return place_channels(channels_to_int(ch, im->channel_data_type),
                        im->channel_order);
}

static uint4 sample_uint(__mux_image_t im, uint s, float4 c, int dims,
                         int array, float w) {
  return place_channels(sample_channels(im, s, c, dims, array, w),
                        im->channel_order);
}

static float4 fetch_float(__mux_image_t im, uint s, int4 c, int array,
                          int w) {
  uint4 ch = fetch_channels(im, s, c, array, w);
  return place_channels(
      channels_to_float(ch, im->channel_data_type, im->channel_order),
      im->channel_order);
}

static int4 fetch_int(__mux_image_t im, uint s, int4 c, int array, int w) {
  uint4 ch = fetch_channels(im, s, c, array, w);
  return place_channels(channels_to_int(ch, im->channel_data_type),
                        im->channel_order);
}

static uint4 fetch_uint(__mux_image_t im, uint s, int4 c, int array, int w) {
  return place_channels(fetch_channels(im, s, c, array, w), im->channel_order);
}

// How each kind of image reads its coordinate: x, y and z (0 where it has
// none), how many axes it samples, whether it is an array and its layer.
#define XYZ_1(T, c) ((T##4)((c), 0, 0, 0))
#define XYZ_1A(T, c) ((T##4)((c).x, 0, 0, 0))
#define XYZ_2(T, c) ((T##4)((c).xy, 0, 0))
#define XYZ_2A(T, c) ((T##4)((c).xy, 0, 0))
#define XYZ_3(T, c) ((T##4)((c).xyz, 0))
#define DIMS_1 1
#define DIMS_1A 1
#define DIMS_2 2
#define DIMS_2A 2
#define DIMS_3 3
#define ARRAY_1 0
#define ARRAY_1A 1
#define ARRAY_2 0
#define ARRAY_2A 1
#define ARRAY_3 0
#define LAYER_1(c) 0
#define LAYER_1A(c) (c).y
#define LAYER_2(c) 0
#define LAYER_2A(c) (c).z
#define LAYER_3(c) 0

#define SAMPLED(K, c) XYZ_##K(float, c), DIMS_##K, ARRAY_##K, LAYER_##K(c)
#define FETCHED(K, c) XYZ_##K(int, c), ARRAY_##K, LAYER_##K(c)
#define RO(NAME, im) __mux_image_descriptor_##NAME##_ro(im)
#define SAMPLER(s) __mux_sampler_bits(s)

// The reads with a sampler, of a read-only image of kind K (FC and IC its
// float and int coordinate types).
#define SAMPLER_READS(IMG, NAME, K, FC, IC)                                   \
  float4 OVERLOAD read_imagef(read_only IMG im, sampler_t s, FC c) {          \
    return sample_float(RO(NAME, im), SAMPLER(s), SAMPLED(K, c));             \
  }                                                                           \
  int4 OVERLOAD read_imagei(read_only IMG im, sampler_t s, FC c) {            \
    return sample_int(RO(NAME, im), SAMPLER(s), SAMPLED(K, c));               \
  }                                                                           \
  uint4 OVERLOAD read_imageui(read_only IMG im, sampler_t s, FC c) {          \
    return sample_uint(RO(NAME, im), SAMPLER(s), SAMPLED(K, c));              \
  }                                                                           \
  float4 OVERLOAD read_imagef(read_only IMG im, sampler_t s, IC c) {          \
    return fetch_float(RO(NAME, im), SAMPLER(s), FETCHED(K, c));              \
  }                                                                           \
  int4 OVERLOAD read_imagei(read_only IMG im, sampler_t s, IC c) {            \
    return fetch_int(RO(NAME, im), SAMPLER(s), FETCHED(K, c));                \
  }                                                                           \
  uint4 OVERLOAD read_imageui(read_only IMG im, sampler_t s, IC c) {          \
    return fetch_uint(RO(NAME, im), SAMPLER(s), FETCHED(K, c));               \
  }                                                                           \
  half4 OVERLOAD read_imageh(read_only IMG im, sampler_t s, FC c) {           \
    return convert_half4(read_imagef(im, s, c));                              \
  }                                                                           \
  half4 OVERLOAD read_imageh(read_only IMG im, sampler_t s, IC c) {           \
    return convert_half4(read_imagef(im, s, c));                              \
  }

SAMPLER_READS(image1d_t, 1d, 1, float, int)
SAMPLER_READS(image1d_array_t, 1d_array, 1A, float2, int2)
SAMPLER_READS(image2d_t, 2d, 2, float2, int2)
SAMPLER_READS(image2d_array_t, 2d_array, 2A, float4, int4)
SAMPLER_READS(image3d_t, 3d, 3, float4, int4)

// Depth images read one float: the depth.
#define DEPTH_SAMPLER_READS(IMG, NAME, K, FC, IC)                             \
  float OVERLOAD read_imagef(read_only IMG im, sampler_t s, FC c) {           \
    return sample_float(RO(NAME, im), SAMPLER(s), SAMPLED(K, c)).x;           \
  }                                                                           \
  float OVERLOAD read_imagef(read_only IMG im, sampler_t s, IC c) {           \
    return fetch_float(RO(NAME, im), SAMPLER(s), FETCHED(K, c)).x;            \
  }

DEPTH_SAMPLER_READS(image2d_depth_t, 2d_depth, 2, float2, int2)
DEPTH_SAMPLER_READS(image2d_array_depth_t, 2d_array_depth, 2A, float4, int4)

// The reads without a sampler (OpenCL C 1.2 and later): as with integer
// coordinates and a sampler of CLK_ADDRESS_NONE and CLK_FILTER_NEAREST, for
// read-only and read-write images (ACC the access qualifier, SUFFIX its
// descriptor builtin's).
#define DESCRIPTOR(NAME, SUFFIX, im) __mux_image_descriptor_##NAME##_##SUFFIX(im)
#define PLAIN_READS(ACC, SUFFIX, IMG, NAME, K, IC)                            \
  float4 OVERLOAD read_imagef(ACC IMG im, IC c) {                             \
    return fetch_float(DESCRIPTOR(NAME, SUFFIX, im), CLK_ADDRESS_NONE,        \
                       FETCHED(K, c));                                        \
  }                                                                           \
  int4 OVERLOAD read_imagei(ACC IMG im, IC c) {                               \
    return fetch_int(DESCRIPTOR(NAME, SUFFIX, im), CLK_ADDRESS_NONE,          \
                     FETCHED(K, c));                                          \
  }                                                                           \
  uint4 OVERLOAD read_imageui(ACC IMG im, IC c) {                             \
    return fetch_uint(DESCRIPTOR(NAME, SUFFIX, im), CLK_ADDRESS_NONE,         \
                      FETCHED(K, c));                                         \
  }                                                                           \
  half4 OVERLOAD read_imageh(ACC IMG im, IC c) {                              \
    return convert_half4(read_imagef(im, c));                                 \
  }
#define DEPTH_PLAIN_READS(ACC, SUFFIX, IMG, NAME, K, IC)                      \
  float OVERLOAD read_imagef(ACC IMG im, IC c) {                              \
    return fetch_float(DESCRIPTOR(NAME, SUFFIX, im), CLK_ADDRESS_NONE,        \
                       FETCHED(K, c))                                         \
        .x;                                                                   \
  }

#define ALL_PLAIN_READS(ACC, SUFFIX)                                          \
  PLAIN_READS(ACC, SUFFIX, image1d_t, 1d, 1, int)                             \
  PLAIN_READS(ACC, SUFFIX, image1d_buffer_t, 1d_buffer, 1, int)               \
  PLAIN_READS(ACC, SUFFIX, image1d_array_t, 1d_array, 1A, int2)               \
  PLAIN_READS(ACC, SUFFIX, image2d_t, 2d, 2, int2)                            \
  PLAIN_READS(ACC, SUFFIX, image2d_array_t, 2d_array, 2A, int4)               \
  PLAIN_READS(ACC, SUFFIX, image3d_t, 3d, 3, int4)                            \
  DEPTH_PLAIN_READS(ACC, SUFFIX, image2d_depth_t, 2d_depth, 2, int2)          \
  DEPTH_PLAIN_READS(ACC, SUFFIX, image2d_array_depth_t, 2d_array_depth, 2A,   \
                    int4)

ALL_PLAIN_READS(read_only, ro)
ALL_PLAIN_READS(read_write, rw)
