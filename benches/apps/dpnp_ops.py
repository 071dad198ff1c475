"""dpnp operations on one OpenCL platform (the one OCL_ICD_VENDORS names),
through DPC++'s OpenCL backend: for each operation and size, the first
call (its kernels built) and the median of hot calls, each ended by a wait
on the queue; every result checked against NumPy. Prints one JSON object.

    python dpnp_ops.py [--sizes 1000000,10000000] [--repeat 7]
"""

import argparse
import json
import statistics
import sys
import time

import numpy as np

OPS = {
    # name: (make inputs from a NumPy generator and a size, the dpnp call,
    #        the NumPy reference, relative tolerance)
    "sin": (lambda g, n: [g.random(n, dtype=np.float32)],
            lambda dp, a: dp.sin(a), np.sin, 1e-5),
    "multiply": (lambda g, n: [g.random(n, dtype=np.float32), g.random(n, dtype=np.float32)],
                 lambda dp, a, b: a * b, lambda a, b: a * b, 1e-6),
    "where": (lambda g, n: [g.random(n, dtype=np.float32)],
              lambda dp, a: dp.where(a > 0.5, a, 0), lambda a: np.where(a > 0.5, a, 0), 0),
    "sum": (lambda g, n: [g.random(n, dtype=np.float32)],
            lambda dp, a: dp.sum(a), np.sum, 1e-3),
    "sort": (lambda g, n: [g.random(n, dtype=np.float32)],
             lambda dp, a: dp.sort(a), np.sort, 0),
    "cumsum": (lambda g, n: [g.random(n, dtype=np.float32)],
               lambda dp, a: dp.cumsum(a), lambda a: np.cumsum(a, dtype=np.float64), 1e-3),
    # Square matrices of about n elements.
    "matmul": (lambda g, n: [g.random((int(n ** 0.5),) * 2, dtype=np.float32)] * 2,
               lambda dp, a, b: dp.matmul(a, b), np.matmul, 1e-4),
    "fft": (lambda g, n: [g.random(n, dtype=np.float32).astype(np.complex64)],
            lambda dp, a: dp.fft.fft(a), np.fft.fft, 1e-3),
}


def check(name, got, want, tol):
    got, want = np.asarray(got, dtype=np.float64 if not np.iscomplexobj(want) else np.complex128), np.asarray(want)
    scale = max(float(np.max(np.abs(want))), 1.0)
    err = float(np.max(np.abs(got - want))) / scale
    if err > max(tol, 0):
        raise AssertionError(f"{name}: relative error {err:.3g}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000000,10000000")
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--ops", default=",".join(OPS))
    args = ap.parse_args()
    import dpctl
    import dpnp
    q = dpctl.SyclQueue("opencl:cpu")
    out = {"device": q.sycl_device.name, "driver": q.sycl_device.driver_version,
           "platform": q.sycl_device.sycl_platform.name, "results": {}}
    g = np.random.default_rng(7)
    for size in [int(s) for s in args.sizes.split(",")]:
        for name in args.ops.split(","):
            make, call, ref, tol = OPS[name]
            host = make(g, size)
            dev = [dpnp.asarray(x, sycl_queue=q) for x in host]
            q.wait()
            key = f"{name} {size:.0e}"
            try:
                t = time.perf_counter()
                r = call(dpnp, *dev)
                q.wait()
                first = time.perf_counter() - t
                check(name, dpnp.asnumpy(r), ref(*host), tol)
                hot = []
                for _ in range(args.repeat):
                    t = time.perf_counter()
                    call(dpnp, *dev)
                    q.wait()
                    hot.append(time.perf_counter() - t)
                out["results"][key] = {"first_ms": first * 1e3,
                                       "hot_ms": statistics.median(hot) * 1e3}
            except Exception as e:  # a platform that cannot run it says why
                out["results"][key] = {"error": str(e).splitlines()[0][:200]}
            print(key, out["results"][key], file=sys.stderr)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
