// cl_intel_subgroups (with its _char, _short and _long types) and
// cl_intel_subgroup_local_block_io: Intel's shuffles, which take a vector
// as well as a scalar and, for up and down, a second value that the lanes
// past the sub-group's end read from; and block reads and writes, where
// the lanes of a sub-group together read or write consecutive elements,
// the k-th element of each lane at k * max_sub_group_size + its lane.
#include "declarations.h"
#include "image.h"
#include "sub_group.h"
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define SG_MAX() __mux_get_sub_group_width()

// The scalar shuffles: `down` reads the lane `delta` after the caller's,
// from `next` once past the last lane; `up` the lane `delta` before, from
// `previous` before the first.
#define INTEL_SCALAR_SHUFFLES(T)                                              \
  T OVERLOAD intel_sub_group_shuffle(T x, uint lane) {                        \
    return sub_group_shuffle(x, lane);                                        \
  }                                                                           \
  T OVERLOAD intel_sub_group_shuffle_xor(T x, uint mask) {                    \
    return sub_group_shuffle_xor(x, mask);                                    \
  }                                                                           \
  T OVERLOAD intel_sub_group_shuffle_down(T current, T next, uint delta) {    \
    uint at = SG_LANE() + delta;                                              \
    T from_current = sub_group_shuffle(current, at);                          \
    T from_next = sub_group_shuffle(next, at - SG_MAX());                     \
    return at < SG_MAX() ? from_current : from_next;                          \
  }                                                                           \
  T OVERLOAD intel_sub_group_shuffle_up(T previous, T current, uint delta) {  \
    int at = (int)SG_LANE() - (int)delta;                                     \
    T from_current = sub_group_shuffle(current, (uint)at);                    \
    T from_previous = sub_group_shuffle(previous, (uint)(at + (int)SG_MAX())); \
    return at >= 0 ? from_current : from_previous;                            \
  }

// A vector shuffles component by component.
#define INTEL_VECTOR_SHUFFLES(T, N)                                           \
  T##N OVERLOAD intel_sub_group_shuffle(T##N x, uint lane) {                  \
    T##N r;                                                                   \
    for (int i = 0; i < N; i++)                                               \
      r[i] = intel_sub_group_shuffle(x[i], lane);                             \
    return r;                                                                 \
  }                                                                           \
  T##N OVERLOAD intel_sub_group_shuffle_xor(T##N x, uint mask) {              \
    T##N r;                                                                   \
    for (int i = 0; i < N; i++)                                               \
      r[i] = intel_sub_group_shuffle_xor(x[i], mask);                         \
    return r;                                                                 \
  }                                                                           \
  T##N OVERLOAD intel_sub_group_shuffle_down(T##N c, T##N n, uint delta) {    \
    T##N r;                                                                   \
    for (int i = 0; i < N; i++)                                               \
      r[i] = intel_sub_group_shuffle_down(c[i], n[i], delta);                 \
    return r;                                                                 \
  }                                                                           \
  T##N OVERLOAD intel_sub_group_shuffle_up(T##N p, T##N c, uint delta) {      \
    T##N r;                                                                   \
    for (int i = 0; i < N; i++)                                               \
      r[i] = intel_sub_group_shuffle_up(p[i], c[i], delta);                   \
    return r;                                                                 \
  }

#define INTEL_SHUFFLES(T)                                                     \
  INTEL_SCALAR_SHUFFLES(T)                                                    \
  INTEL_VECTOR_SHUFFLES(T, 2)                                                 \
  INTEL_VECTOR_SHUFFLES(T, 3)                                                 \
  INTEL_VECTOR_SHUFFLES(T, 4)                                                 \
  INTEL_VECTOR_SHUFFLES(T, 8)                                                 \
  INTEL_VECTOR_SHUFFLES(T, 16)

INTEL_SHUFFLES(char)
INTEL_SHUFFLES(uchar)
INTEL_SHUFFLES(short)
INTEL_SHUFFLES(ushort)
INTEL_SHUFFLES(int)
INTEL_SHUFFLES(uint)
INTEL_SHUFFLES(long)
INTEL_SHUFFLES(ulong)
INTEL_SHUFFLES(float)
INTEL_SHUFFLES(double)
INTEL_SHUFFLES(half)

// Block reads and writes of `N` elements per lane from `AS` memory.
#define INTEL_BLOCK_IO(T, SUFFIX, N, AS)                                      \
  T##N OVERLOAD intel_sub_group_block_read##SUFFIX##N(const AS T *p) {        \
    T##N r;                                                                   \
    for (int k = 0; k < N; k++)                                               \
      r[k] = p[k * SG_MAX() + SG_LANE()];                                     \
    return r;                                                                 \
  }                                                                           \
  void OVERLOAD intel_sub_group_block_write##SUFFIX##N(AS T *p, T##N v) {     \
    for (int k = 0; k < N; k++)                                               \
      p[k * SG_MAX() + SG_LANE()] = v[k];                                     \
  }
#define INTEL_BLOCK_IO1(T, SUFFIX, AS)                                        \
  T OVERLOAD intel_sub_group_block_read##SUFFIX(const AS T *p) {              \
    return p[SG_LANE()];                                                      \
  }                                                                           \
  void OVERLOAD intel_sub_group_block_write##SUFFIX(AS T *p, T v) {           \
    p[SG_LANE()] = v;                                                         \
  }
#define INTEL_BLOCK_IO_ALL(T, SUFFIX, AS)                                     \
  INTEL_BLOCK_IO1(T, SUFFIX, AS)                                              \
  INTEL_BLOCK_IO(T, SUFFIX, 2, AS)                                            \
  INTEL_BLOCK_IO(T, SUFFIX, 4, AS)                                            \
  INTEL_BLOCK_IO(T, SUFFIX, 8, AS)
#define INTEL_BLOCK_IO_SPACE(AS)                                              \
  INTEL_BLOCK_IO_ALL(uint, , AS)                                              \
  INTEL_BLOCK_IO_ALL(uint, _ui, AS)                                           \
  INTEL_BLOCK_IO_ALL(ushort, _us, AS)                                         \
  INTEL_BLOCK_IO_ALL(uchar, _uc, AS)                                          \
  INTEL_BLOCK_IO(uchar, _uc, 16, AS)                                          \
  INTEL_BLOCK_IO_ALL(ulong, _ul, AS)

INTEL_BLOCK_IO_SPACE(__global)
INTEL_BLOCK_IO_SPACE(__local)

// Image block reads and writes: the image's bytes as they are (no format
// conversion), from byte column x of row y; the lanes read consecutive
// elements of a row, the k-th element of each lane from row y + k. A read
// outside the image takes the nearest element inside it, a write outside
// it is dropped; in an image whose rows are narrower than one element,
// reads give 0 and writes are dropped.
static __global uchar *image_element(__mux_image_t im, long x, long y,
                                     int size, bool clamped) {
  long row_bytes = (long)im->width * im->element_size;
  if (row_bytes < size)
    return 0;
  if (clamped) {
    x = clamp(x, 0L, row_bytes - size);
    y = clamp(y, 0L, (long)im->height - 1);
  } else if (x < 0 || y < 0 || x + size > row_bytes || y >= im->height) {
    return 0;
  }
  return im->data + (ulong)y * im->row_pitch + (ulong)x;
}

// The element of lane `SG_LANE()` in row `row` of a block at `c`.
#define IMAGE_BLOCK_ELEMENT(T, d, c, row, clamped)                            \
  ((__global T *)image_element(d, (long)c.x + SG_LANE() * sizeof(T),         \
                               (long)c.y + (row), sizeof(T), clamped))

#define INTEL_IMAGE_READ(T, SUFFIX, N, ACCESS, RO)                            \
  T##N OVERLOAD intel_sub_group_block_read##SUFFIX##N(ACCESS image2d_t im,    \
                                                      int2 c) {               \
    __mux_image_t d = __mux_image_descriptor_2d_##RO(im);                     \
    T##N r;                                                                   \
    for (int k = 0; k < N; k++) {                                             \
      __global T *e = IMAGE_BLOCK_ELEMENT(T, d, c, k, true);                  \
      r[k] = e ? *e : 0;                                                      \
    }                                                                         \
    return r;                                                                 \
  }
#define INTEL_IMAGE_READ1(T, SUFFIX, ACCESS, RO)                              \
  T OVERLOAD intel_sub_group_block_read##SUFFIX(ACCESS image2d_t im, int2 c) { \
    __mux_image_t d = __mux_image_descriptor_2d_##RO(im);                     \
    __global T *e = IMAGE_BLOCK_ELEMENT(T, d, c, 0, true);                    \
    return e ? *e : 0;                                                        \
  }
#define INTEL_IMAGE_WRITE(T, SUFFIX, N, ACCESS, WO)                           \
  void OVERLOAD intel_sub_group_block_write##SUFFIX##N(ACCESS image2d_t im,   \
                                                       int2 c, T##N v) {      \
    __mux_image_t d = __mux_image_descriptor_2d_##WO(im);                     \
    for (int k = 0; k < N; k++) {                                             \
      __global T *e = IMAGE_BLOCK_ELEMENT(T, d, c, k, false);                 \
      if (e)                                                                  \
        *e = v[k];                                                            \
    }                                                                         \
  }
#define INTEL_IMAGE_WRITE1(T, SUFFIX, ACCESS, WO)                             \
  void OVERLOAD intel_sub_group_block_write##SUFFIX(ACCESS image2d_t im,      \
                                                    int2 c, T v) {            \
    __mux_image_t d = __mux_image_descriptor_2d_##WO(im);                     \
    __global T *e = IMAGE_BLOCK_ELEMENT(T, d, c, 0, false);                   \
    if (e)                                                                    \
      *e = v;                                                                 \
  }
#define INTEL_IMAGE_IO(T, SUFFIX)                                             \
  INTEL_IMAGE_READ1(T, SUFFIX, read_only, ro)                                 \
  INTEL_IMAGE_READ(T, SUFFIX, 2, read_only, ro)                               \
  INTEL_IMAGE_READ(T, SUFFIX, 4, read_only, ro)                               \
  INTEL_IMAGE_READ(T, SUFFIX, 8, read_only, ro)                               \
  INTEL_IMAGE_READ1(T, SUFFIX, read_write, rw)                                \
  INTEL_IMAGE_READ(T, SUFFIX, 2, read_write, rw)                              \
  INTEL_IMAGE_READ(T, SUFFIX, 4, read_write, rw)                              \
  INTEL_IMAGE_READ(T, SUFFIX, 8, read_write, rw)                              \
  INTEL_IMAGE_WRITE1(T, SUFFIX, write_only, wo)                               \
  INTEL_IMAGE_WRITE(T, SUFFIX, 2, write_only, wo)                             \
  INTEL_IMAGE_WRITE(T, SUFFIX, 4, write_only, wo)                             \
  INTEL_IMAGE_WRITE(T, SUFFIX, 8, write_only, wo)                             \
  INTEL_IMAGE_WRITE1(T, SUFFIX, read_write, rw)                               \
  INTEL_IMAGE_WRITE(T, SUFFIX, 2, read_write, rw)                             \
  INTEL_IMAGE_WRITE(T, SUFFIX, 4, read_write, rw)                             \
  INTEL_IMAGE_WRITE(T, SUFFIX, 8, read_write, rw)

INTEL_IMAGE_IO(uint, )
INTEL_IMAGE_IO(uint, _ui)
INTEL_IMAGE_IO(ushort, _us)
INTEL_IMAGE_IO(uchar, _uc)
INTEL_IMAGE_IO(ulong, _ul)
