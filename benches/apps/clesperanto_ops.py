"""pyclesperanto (GPU-accelerated image processing through OpenCL) and
pyvkfft (VkFFT's OpenCL backend, through pyopencl) on one OpenCL platform
(the one OCL_ICD_VENDORS names): for each operation, the first call (its
kernels built) and the median of hot calls, each ended by reading the
result back; every result checked against NumPy or SciPy. Prints one JSON
object.

    python clesperanto_ops.py [--repeat 7]
"""

import argparse
import json
import statistics
import time

import numpy as np


def check(name, got, want, tol):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape:
        raise AssertionError(f"{name}: shape {got.shape}, not {want.shape}")
    scale = max(float(np.max(np.abs(want))), 1.0)
    err = float(np.max(np.abs(got - want))) / scale
    if err > tol:
        raise AssertionError(f"{name}: relative error {err:.3g}")


def clesperanto_ops(g):
    import pyclesperanto as cle
    from scipy import ndimage

    cle.select_device()
    image = g.random((1024, 1024), dtype=np.float32) * 100
    blobs = ndimage.gaussian_filter(g.random((1024, 1024), dtype=np.float32), 6) > 0.5
    dev_image, dev_blobs = cle.push(image), cle.push(blobs.astype(np.float32))

    def labels_count(a):
        return np.array([float(np.max(cle.pull(cle.connected_components_labeling(a))))])

    return {
        "clesperanto gaussian_blur": (
            lambda: cle.pull(cle.gaussian_blur(dev_image, sigma_x=2, sigma_y=2)),
            lambda: ndimage.gaussian_filter(image, 2, mode="nearest", truncate=4.0),
            2e-2,
        ),
        "clesperanto maximum_box": (
            lambda: cle.pull(cle.maximum_box(dev_image, radius_x=3, radius_y=3)),
            lambda: ndimage.maximum_filter(image, size=7, mode="nearest"),
            0,
        ),
        "clesperanto top_hat_box": (
            lambda: cle.pull(cle.top_hat_box(dev_image, radius_x=5, radius_y=5)),
            lambda: image - ndimage.maximum_filter(
                ndimage.minimum_filter(image, size=11, mode="nearest"), size=11, mode="nearest"),
            1e-5,
        ),
        "clesperanto connected_components": (
            lambda: labels_count(dev_blobs),
            # clesperanto connects diagonal neighbours too.
            lambda: np.array([float(ndimage.label(blobs, structure=np.ones((3, 3)))[1])]),
            0,
        ),
        "clesperanto sum": (
            lambda: np.array([cle.sum_of_all_pixels(dev_image)]),
            lambda: np.array([float(np.sum(image, dtype=np.float64))]),
            1e-5,
        ),
    }


def vkfft_ops(g):
    import pyopencl as cl
    import pyopencl.array as cla
    from pyvkfft.opencl import VkFFTApp

    ctx = cl.create_some_context(interactive=False)
    q = cl.CommandQueue(ctx)
    ops = {}
    for name, shape, ndim in [("vkfft 2D c64 1024²", (1024, 1024), 2),
                              ("vkfft 3D c64 128³", (128, 128, 128), 3)]:
        host = (g.random(shape, dtype=np.float32)
                + 1j * g.random(shape, dtype=np.float32)).astype(np.complex64)
        dev = cla.to_device(q, host)
        out = cla.empty_like(dev)
        app = VkFFTApp(shape, np.complex64, queue=q, ndim=ndim, inplace=False)

        def run(app=app, dev=dev, out=out):
            app.fft(dev, out)
            return out.get()

        ops[name] = (run, lambda host=host, ndim=ndim: np.fft.fftn(host, axes=range(-ndim, 0)), 1e-4)
    return ops


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    g = np.random.default_rng(7)
    out = {"results": {}}
    for make in (clesperanto_ops, vkfft_ops):
        try:
            table = make(g)
        except Exception as e:  # an application that cannot start
            out["results"][make.__name__] = {"error": str(e)[:200]}
            continue
        for name, (call, reference, tol) in table.items():
            try:
                t = time.perf_counter()
                got = call()
                first = time.perf_counter() - t
                check(name, got, reference(), tol)
                hot = []
                for _ in range(args.repeat):
                    t = time.perf_counter()
                    call()
                    hot.append(time.perf_counter() - t)
                out["results"][name] = {"first_ms": first * 1e3,
                                        "hot_ms": statistics.median(hot) * 1e3}
            except Exception as e:  # one operation failing does not hide the rest
                out["results"][name] = {"error": str(e)[:200]}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
