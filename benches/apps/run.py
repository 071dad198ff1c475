"""`make bench-apps`: real applications' OpenCL paths on ferrocl, Intel's
CPU runtime and PoCL, one platform after another in the same run, each
alone in OCL_ICD_VENDORS: dpnp's operations (`dpnp_ops.py`, SYCL through
DPC++), OpenCV's T-API (`opencv_ops.py`), pyclesperanto and pyvkfft
(`clesperanto_ops.py`).

    run.py --out <dir> --app dpnp=<venv python> --app opencv=/usr/bin/python3
           --platform ferrocl=<icd dir> --platform intel=<icd dir>:<lib dir> ...

A platform's `<lib dir>` goes on LD_LIBRARY_PATH (Intel's runtime finds
its libraries there). Prints each operation's hot and first-call times and
ferrocl's speed against each other platform (their time over ferrocl's:
above 1, ferrocl is faster); writes results.json.
"""

import argparse
import json
import math
import os
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent


def run_platform(app, python, name, spec, args):
    icd, _, libs = spec.partition(":")
    env = dict(os.environ, OCL_ICD_VENDORS=icd)
    env.pop("LD_LIBRARY_PATH", None)
    if libs:
        env["LD_LIBRARY_PATH"] = libs
    # Builds from nothing, as for a first run: ferrocl's disk cache off.
    env["FERROCL_CACHE"] = "0"
    cmd = [python, str(HERE / f"{app}_ops.py"), "--repeat", str(args.repeat)]
    print(f"== {name}: {' '.join(cmd)}", file=sys.stderr, flush=True)
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=3600)
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"exit {p.returncode}: {last[:200]}"}
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--app", action="append", default=[],
                    help="name=python: runs <name>_ops.py with that interpreter")
    ap.add_argument("--platform", action="append", default=[])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    platforms = dict(p.split("=", 1) for p in args.platform)
    everything = {}
    for app, python in (a.split("=", 1) for a in args.app):
        results = {name: run_platform(app, python, name, spec, args)
                   for name, spec in platforms.items()}
        everything[app] = results
        report(app, results)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(everything, indent=1))


def report(app, results):
    """Prints one application's tables: hot and first calls, with
    ferrocl's speed against each other platform."""

    others = [n for n in results if n != "ferrocl"]
    for n, r in results.items():
        if "error" in r:
            print(f"{n}: cannot run {app}: {r['error']}")
    ops = list(results.get("ferrocl", {}).get("results", {}))
    for n, r in results.items():
        for op, v in r.get("results", {}).items():
            if "error" in v:
                print(f"{n}: {op} failed: {v['error']}")
    for what, field in [("hot call (median)", "hot_ms"), ("first call (kernels built)", "first_ms")]:
        print(f"\n{app}, {what}: ms, and ferrocl's speed against each platform")
        print(f"{'operation':28}" + "".join(f"{n:>12}" for n in results)
              + "".join(f"{'vs ' + n:>12}" for n in others))
        logs = {n: [] for n in others}
        for op in ops:
            row = f"{op:28}"
            times = {}
            for n, r in results.items():
                t = r.get("results", {}).get(op, {}).get(field)
                times[n] = t
                row += f"{t:12.2f}" if t is not None else f"{'-':>12}"
            for n in others:
                if times.get("ferrocl") and times.get(n):
                    ratio = times[n] / times["ferrocl"]
                    logs[n].append(math.log(ratio))
                    row += f"{ratio:11.2f}x"
                else:
                    row += f"{'-':>12}"
            print(row)
        print(f"{'geometric mean':28}" + " " * 12 * len(results)
              + "".join(f"{math.exp(sum(l) / len(l)):11.2f}x" if l else f"{'-':>12}"
                        for l in logs.values()))


if __name__ == "__main__":
    main()
