// Image query functions (OpenCL C 3.0 section 6.15.15.7): an image's
// width, height, depth, dimensions, layers, channel type and channel order,
// for every image type and access, from its descriptor.
#include "image.h"

#define DESCRIPTOR(NAME, SUFFIX, im) __mux_image_descriptor_##NAME##_##SUFFIX(im)

// Every image type has a width, a channel type and a channel order.
#define COMMON_QUERIES(ACC, SUFFIX, IMG, NAME)                                \
  int OVERLOAD get_image_width(ACC IMG im) {                                  \
    return DESCRIPTOR(NAME, SUFFIX, im)->width;                               \
  }                                                                           \
  int OVERLOAD get_image_channel_data_type(ACC IMG im) {                      \
    return DESCRIPTOR(NAME, SUFFIX, im)->channel_data_type;                   \
  }                                                                           \
  int OVERLOAD get_image_channel_order(ACC IMG im) {                          \
    return DESCRIPTOR(NAME, SUFFIX, im)->channel_order;                       \
  }

#define HEIGHT_QUERY(ACC, SUFFIX, IMG, NAME)                                  \
  int OVERLOAD get_image_height(ACC IMG im) {                                 \
    return DESCRIPTOR(NAME, SUFFIX, im)->height;                              \
  }

#define DIM2_QUERY(ACC, SUFFIX, IMG, NAME)                                    \
  int2 OVERLOAD get_image_dim(ACC IMG im) {                                   \
    __mux_image_t d = DESCRIPTOR(NAME, SUFFIX, im);                           \
    return (int2)(d->width, d->height);                                       \
  }

#define ARRAY_SIZE_QUERY(ACC, SUFFIX, IMG, NAME)                              \
  size_t OVERLOAD get_image_array_size(ACC IMG im) {                          \
    return DESCRIPTOR(NAME, SUFFIX, im)->array_size;                          \
  }

#define QUERIES(ACC, SUFFIX)                                                  \
  COMMON_QUERIES(ACC, SUFFIX, image1d_t, 1d)                                  \
  COMMON_QUERIES(ACC, SUFFIX, image1d_buffer_t, 1d_buffer)                    \
  COMMON_QUERIES(ACC, SUFFIX, image1d_array_t, 1d_array)                      \
  COMMON_QUERIES(ACC, SUFFIX, image2d_t, 2d)                                  \
  COMMON_QUERIES(ACC, SUFFIX, image2d_array_t, 2d_array)                      \
  COMMON_QUERIES(ACC, SUFFIX, image3d_t, 3d)                                  \
  COMMON_QUERIES(ACC, SUFFIX, image2d_depth_t, 2d_depth)                      \
  COMMON_QUERIES(ACC, SUFFIX, image2d_array_depth_t, 2d_array_depth)          \
  HEIGHT_QUERY(ACC, SUFFIX, image2d_t, 2d)                                    \
  HEIGHT_QUERY(ACC, SUFFIX, image2d_array_t, 2d_array)                        \
  HEIGHT_QUERY(ACC, SUFFIX, image3d_t, 3d)                                    \
  HEIGHT_QUERY(ACC, SUFFIX, image2d_depth_t, 2d_depth)                        \
  HEIGHT_QUERY(ACC, SUFFIX, image2d_array_depth_t, 2d_array_depth)            \
  DIM2_QUERY(ACC, SUFFIX, image2d_t, 2d)                                      \
  DIM2_QUERY(ACC, SUFFIX, image2d_array_t, 2d_array)                          \
  DIM2_QUERY(ACC, SUFFIX, image2d_depth_t, 2d_depth)                          \
  DIM2_QUERY(ACC, SUFFIX, image2d_array_depth_t, 2d_array_depth)              \
  ARRAY_SIZE_QUERY(ACC, SUFFIX, image1d_array_t, 1d_array)                    \
  ARRAY_SIZE_QUERY(ACC, SUFFIX, image2d_array_t, 2d_array)                    \
  ARRAY_SIZE_QUERY(ACC, SUFFIX, image2d_array_depth_t, 2d_array_depth)        \
  int OVERLOAD get_image_depth(ACC image3d_t im) {                            \
    return DESCRIPTOR(3d, SUFFIX, im)->depth;                                 \
  }                                                                           \
  int4 OVERLOAD get_image_dim(ACC image3d_t im) {                             \
    __mux_image_t d = DESCRIPTOR(3d, SUFFIX, im);                             \
    return (int4)(d->width, d->height, d->depth, 0);                          \
  }

QUERIES(read_only, ro)
QUERIES(write_only, wo)
QUERIES(read_write, rw)
