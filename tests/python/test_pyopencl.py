#!/usr/bin/env python3
"""ferrocl through pyopencl: platform/device queries and a saxpy kernel on
1M float32 elements, checked against numpy.

A plain script (no pytest): prints one line per check, then
"N passed, M failed", and exits non-zero when a check failed.

    OCL_ICD_VENDORS=$PWD/build/icd build/venv/bin/python tests/python/test_pyopencl.py

FERROCL_TEST_PLATFORM names another platform to run the same checks on.
"""
import os
import sys
import traceback

import numpy as np
import pyopencl as cl

PLATFORM = os.environ.get("FERROCL_TEST_PLATFORM", "ferrocl")
N = 1 << 20

SAXPY = """
__kernel void saxpy(const float a,
                    __global const float *x,
                    __global float *y,
                    const uint n)
{
    size_t i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}
"""

passed = 0
failed = 0


def check(name, cond, detail=""):
    global passed, failed
    if cond:
        passed += 1
        print(f"ok    {name}")
    else:
        failed += 1
        print(f"FAIL  {name}" + (f": {detail}" if detail else ""))
    return cond


def finish():
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


def find_platform():
    try:
        platforms = cl.get_platforms()
    except cl.Error as e:
        check("clGetPlatformIDs lists platforms", False, str(e))
        finish()
    names = [p.name for p in platforms]
    matches = [p for p in platforms if p.name == PLATFORM]
    if not check(f'platform "{PLATFORM}" is listed', bool(matches), f"platforms: {names}"):
        finish()
    return matches[0]


def main():
    platform = find_platform()
    check('platform.version contains "OpenCL 3.0"', "OpenCL 3.0" in platform.version,
          repr(platform.version))

    devices = platform.get_devices()
    if not check("platform has a device", len(devices) >= 1, repr(devices)):
        finish()
    device = devices[0]
    print(f"      platform: {platform.name} ({platform.version})")
    print(f"      device:   {device.name}")
    check("device.name is a non-empty string", isinstance(device.name, str) and device.name.strip() != "",
          repr(device.name))
    check('device.version contains "OpenCL 3.0"', "OpenCL 3.0" in device.version, repr(device.version))
    check("device is a CPU", bool(device.type & cl.device_type.CPU), cl.device_type.to_string(device.type))

    ctx = cl.Context([device])
    queue = cl.CommandQueue(ctx, device)
    check("context holds the one device", ctx.devices == [device], repr(ctx.devices))

    program = cl.Program(ctx, SAXPY).build()
    kernel = program.saxpy
    check("kernel function name", kernel.function_name == "saxpy", kernel.function_name)
    check("kernel argument count", kernel.num_args == 4, str(kernel.num_args))

    rng = np.random.default_rng(1234)
    a = np.float32(2.5)
    x = rng.uniform(-1.0, 1.0, N).astype(np.float32)
    y = rng.uniform(-1.0, 1.0, N).astype(np.float32)

    mf = cl.mem_flags
    x_buf = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
    y_buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=y)
    kernel(queue, (N,), None, a, x_buf, y_buf, np.uint32(N))
    out = np.empty_like(y)
    cl.enqueue_copy(queue, out, y_buf).wait()

    # OpenCL C may contract a * x + y into one fma, so allow the last bit of
    # rounding, not an exact match.
    want = a * x + y
    err = np.abs(out - want)
    bad = int(np.count_nonzero(err > 1e-6 + 1e-6 * np.abs(want)))
    check(f"saxpy on {N} float32 elements matches numpy", bad == 0,
          f"{bad} elements differ, max error {err.max():.3g}")

    check_binary_cache(ctx)
    check_struct_layout(device)
    check_images(ctx, queue)


IMAGE_SHIFT = """
__constant sampler_t image_shift_sampler =
    CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
__kernel void image_shift(__read_only image2d_t src, __write_only image2d_t dst)
{
    int2 at = (int2)(get_global_id(0), get_global_id(1));
    float4 p = read_imagef(src, image_shift_sampler, at + (int2)(1, 0));
    write_imagef(dst, at, p * 0.5f);
}
"""


def check_images(ctx, queue):
    """pyopencl's images: made from a numpy array, read with a sampler by a
    kernel that writes another image, copied back into numpy; and an image
    of uint8 made by image_from_array, read back as it was."""
    h, w = 48, 64
    rng = np.random.default_rng(77)
    src = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
    fmt = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.UNORM_INT8)
    formats = cl.get_supported_image_formats(ctx, cl.mem_flags.READ_ONLY, cl.mem_object_type.IMAGE2D)
    check("RGBA UNORM_INT8 2D images are supported", any(
        f.channel_order == fmt.channel_order and f.channel_data_type == fmt.channel_data_type
        for f in formats), repr(formats))
    mf = cl.mem_flags
    image = cl.create_image(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, fmt, shape=(w, h), hostbuf=src)
    out = cl.create_image(ctx, mf.WRITE_ONLY, fmt, shape=(w, h))
    program = cl.Program(ctx, IMAGE_SHIFT).build()
    program.image_shift(queue, (w, h), None, image, out)
    got = np.empty_like(src)
    cl.enqueue_copy(queue, got, out, origin=(0, 0), region=(w, h)).wait()
    # One texel to the right, the last column clamped; halved and rounded
    # to nearest even by the UNORM8 write.
    shifted = np.concatenate([src[:, 1:], src[:, -1:]], axis=1).astype(np.float32)
    want = np.rint(shifted / 255.0 * 0.5 * 255.0).astype(np.uint8)
    bad = int(np.count_nonzero(got != want))
    check("a kernel reads and writes pyopencl images", bad == 0, f"{bad} channels differ")
    raw = cl.image_from_array(ctx, src, num_channels=4, mode="r")
    back = np.empty_like(src)
    cl.enqueue_copy(queue, back, raw, origin=(0, 0), region=(w, h)).wait()
    check("image_from_array's image reads back as the array", bool((back == src).all()))


def check_binary_cache(ctx):
    """pyopencl keeps each program's binary (CL_PROGRAM_BINARIES) in its own
    on-disk cache and builds later copies of the source from it."""
    import tempfile
    src = "__kernel void twice(__global float *a) { a[get_global_id(0)] *= 2.0f; }"
    with tempfile.TemporaryDirectory() as cache:
        first = cl.Program(ctx, src).build(cache_dir=cache)
        entries = os.listdir(cache)
        check("pyopencl's binary cache holds the built program", len(entries) >= 1, repr(entries))
        second = cl.Program(ctx, src).build(cache_dir=cache)
        how = second._build_duration_info[0]
        check("a second build is read from pyopencl's binary cache", how == "cache retrieval", how)
        queue = cl.CommandQueue(ctx)
        data = np.arange(16, dtype=np.float32)
        buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=data)
        second.twice(queue, (16,), None, buf)
        out = np.empty_like(data)
        cl.enqueue_copy(queue, out, buf).wait()
        check("the program read from the cache runs", np.array_equal(out, data * 2), repr(out))
        del first


def check_struct_layout(device):
    """pyopencl learns a struct's layout on the device with a kernel that
    declares a __local variable of it."""
    import pyopencl.tools
    dtype = np.dtype([("a", np.int8), ("b", np.int32), ("c", np.float64)])
    try:
        matched, decl = pyopencl.tools.match_dtype_to_c_struct(device, "pair_t", dtype)
        ok = matched.itemsize == 16 and matched.fields["b"][1] == 4 and matched.fields["c"][1] == 8
        check("match_dtype_to_c_struct gets the device's struct layout", ok, repr(matched))
    except Exception as e:  # the failure is the check's result
        check("match_dtype_to_c_struct gets the device's struct layout", False, repr(e))


if __name__ == "__main__":
    try:
        main()
    except Exception:  # an unexpected exception is a failed check, not a crash
        traceback.print_exc()
        check("no unexpected exception", False)
    finish()
