// Images as the library sees them: an image argument is the address of its
// descriptor, laid out by the host (libimg::KernelImage, field for field),
// and a sampler is the integer of its CLK_* bits. OpenCL C cannot look
// inside an image_t or sampler_t, so the library asks for them through the
// __mux_image_descriptor_* and __mux_sampler_bits builtins, which the
// image-argument pass (passes::image_arguments) replaces by the argument
// itself.
#ifndef FERROCL_IMAGE_H
#define FERROCL_IMAGE_H

#include "mux.h"

struct __mux_image {
  __global uchar *data;  // texel (0, 0, 0)
  int width;
  int height;      // 1 for 1D images and 1D arrays
  int depth;       // 1 unless 3D
  int array_size;  // 1 unless an array
  ulong row_pitch;    // bytes from one row to the next
  ulong slice_pitch;  // bytes from one slice (3D) or layer (arrays) to the next
  uint channel_order;      // CLK_R, CLK_RGBA, ...
  uint channel_data_type;  // CLK_UNORM_INT8, ...
  uint element_size;       // bytes per texel
  uint image_type;         // CL_MEM_OBJECT_IMAGE2D, ...
};

typedef __global const struct __mux_image *__mux_image_t;

#define FERROCL_IMAGE_DESCRIPTOR(type, name)                               \
  __mux_image_t CONST_FN __mux_image_descriptor_##name##_ro(read_only type); \
  __mux_image_t CONST_FN __mux_image_descriptor_##name##_wo(write_only type); \
  __mux_image_t CONST_FN __mux_image_descriptor_##name##_rw(read_write type);

FERROCL_IMAGE_DESCRIPTOR(image1d_t, 1d)
FERROCL_IMAGE_DESCRIPTOR(image1d_buffer_t, 1d_buffer)
FERROCL_IMAGE_DESCRIPTOR(image1d_array_t, 1d_array)
FERROCL_IMAGE_DESCRIPTOR(image2d_t, 2d)
FERROCL_IMAGE_DESCRIPTOR(image2d_array_t, 2d_array)
FERROCL_IMAGE_DESCRIPTOR(image3d_t, 3d)
FERROCL_IMAGE_DESCRIPTOR(image2d_depth_t, 2d_depth)
FERROCL_IMAGE_DESCRIPTOR(image2d_array_depth_t, 2d_array_depth)

#undef FERROCL_IMAGE_DESCRIPTOR

// The sampler's CLK_NORMALIZED_COORDS_*, CLK_ADDRESS_* and CLK_FILTER_*
// bits.
uint CONST_FN __mux_sampler_bits(sampler_t sampler);

#endif
