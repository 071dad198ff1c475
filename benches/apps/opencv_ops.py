"""OpenCV's OpenCL path (the T-API: `cv2.UMat`) on one OpenCL platform (the
one OCL_ICD_VENDORS names; OPENCV_OPENCL_DEVICE picks its CPU device): for
each operation, the first call (its kernels built, OpenCV's binary cache
off) and the median of hot calls, each ended by reading the result back;
every result checked against OpenCV's own CPU path. Prints one JSON object.

    python3 opencv_ops.py [--repeat 7]
"""

import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("OPENCV_OPENCL_DEVICE", ":CPU:")
os.environ.setdefault("OPENCV_OPENCL_CACHE_ENABLE", "0")

import cv2  # noqa: E402
import numpy as np  # noqa: E402


def inputs(g):
    """A 1080p colour picture with structure (gradients, shapes, noise),
    its gray version, a 1024² float field and a 512² matrix."""
    h, w = 1080, 1920
    y, x = np.mgrid[0:h, 0:w]
    bgr = np.stack([(x * 255 // w), (y * 255 // h), ((x + y) * 255 // (w + h))], -1).astype(np.uint8)
    cv2.circle(bgr, (600, 500), 220, (30, 200, 90), -1)
    cv2.rectangle(bgr, (1100, 200), (1600, 800), (220, 40, 160), -1)
    bgr = cv2.add(bgr, g.integers(0, 24, bgr.shape, dtype=np.uint8))
    gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    field = g.random((1024, 1024), dtype=np.float32)
    mat = g.random((512, 512), dtype=np.float32)
    return bgr, gray, field, mat


def ops(bgr, gray, field, mat):
    """name: (inputs, the call on them, the largest difference allowed from
    the CPU path, in the result's units, and the share of elements that may
    differ by more: rounding and ties differ between the two paths)."""
    rot = cv2.getRotationMatrix2D((960, 540), 17, 0.9)
    templ = gray[400:464, 500:564].copy()
    return {
        "cvtColor BGR2GRAY": ([bgr], lambda a: cv2.cvtColor(a, cv2.COLOR_BGR2GRAY), 1, 0),
        "equalizeHist": ([gray], cv2.equalizeHist, 1, 0),
        "threshold Otsu": ([gray], lambda a: cv2.threshold(a, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)[1], 0, 0.001),
        "resize AREA 1/4": ([bgr], lambda a: cv2.resize(a, (480, 270), interpolation=cv2.INTER_AREA), 1, 0),
        "resize LINEAR 1/2": ([bgr], lambda a: cv2.resize(a, (960, 540), interpolation=cv2.INTER_LINEAR), 1, 0),
        "GaussianBlur 7x7": ([bgr], lambda a: cv2.GaussianBlur(a, (7, 7), 1.5), 1, 0),
        "Sobel dx": ([gray], lambda a: cv2.Sobel(a, cv2.CV_16S, 1, 0), 1, 0),
        "erode 5x5": ([bgr], lambda a: cv2.erode(a, np.ones((5, 5), np.uint8)), 0, 0),
        "bilateralFilter": ([bgr], lambda a: cv2.bilateralFilter(a, 9, 50, 50), 2, 0.001),
        "Canny": ([gray], lambda a: cv2.Canny(a, 50, 150), 255, 0.002),
        "warpAffine": ([bgr], lambda a: cv2.warpAffine(a, rot, (1920, 1080)), 1, 0.001),
        "matchTemplate CCORR_NORMED": ([gray, templ], lambda a, t: cv2.matchTemplate(a, t, cv2.TM_CCORR_NORMED), 1e-3, 0.001),
        "dft 1024": ([field], lambda a: cv2.dft(a, flags=cv2.DFT_COMPLEX_OUTPUT), 1e-2, 0),
        "gemm 512": ([mat, mat], lambda a, b: cv2.gemm(a, b, 1.0, None, 0.0), 1e-2, 0),
    }


def check(name, got, want, tol, share):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape:
        raise AssertionError(f"{name}: shape {got.shape}, not {want.shape}")
    over = np.abs(got - want) > tol
    if over.mean() > share:
        raise AssertionError(f"{name}: {over.mean():.4%} of the elements differ by more than {tol}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--ops", default="")
    args = ap.parse_args()
    if not cv2.ocl.haveOpenCL():
        sys.exit("OpenCV finds no OpenCL device")
    cv2.ocl.setUseOpenCL(True)
    dev = cv2.ocl.Device.getDefault()
    out = {"device": dev.name(), "driver": dev.driverVersion(),
           "platform": dev.vendorName(), "results": {}}
    g = np.random.default_rng(7)
    table = ops(*inputs(g))
    wanted = [n for n in args.ops.split(",") if n] or list(table)
    for name in wanted:
        host, call, tol, share = table[name]
        cv2.ocl.setUseOpenCL(False)
        want = call(*host)
        cv2.ocl.setUseOpenCL(True)
        dev_in = [cv2.UMat(x) for x in host]
        try:
            t = time.perf_counter()
            got = call(*dev_in).get()
            first = time.perf_counter() - t
            check(name, got, want, tol, share)
            hot = []
            for _ in range(args.repeat):
                t = time.perf_counter()
                call(*dev_in).get()
                hot.append(time.perf_counter() - t)
            out["results"][name] = {"first_ms": first * 1e3, "hot_ms": statistics.median(hot) * 1e3}
        except Exception as e:  # one operation failing does not hide the rest
            out["results"][name] = {"error": str(e)[:200]}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
