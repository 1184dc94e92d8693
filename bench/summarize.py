#!/usr/bin/env python3
"""Table of a gpu_bench.sh run: ms per CG iteration for clcg-mpi and the peers, per-kernel
GB/s and the share of the memory-bandwidth floor.  usage: summarize.py OUTDIR [COPY_TBPS]"""
import glob
import json
import os
import sys

out = sys.argv[1]
copy_bw = float(sys.argv[2]) if len(sys.argv) > 2 else 3.99e12   # OpenCL copy, H200
runs = {}
for f in sorted(glob.glob(os.path.join(out, "clcg-*.json"))):
    r = json.load(open(f))
    runs[os.path.basename(f)[5:-5]] = r
peers = {}
for f in glob.glob(os.path.join(out, "cupy-*.jsonl")):
    for line in open(f):
        if line.strip():
            p = json.loads(line)
            peers[(p["n"], p["what"])] = p

print("| case | device | ms/iteration | vs CuPy cg | floor ms | % of floor speed |")
print("| --- | --- | --- | --- | --- | --- |")
for name, r in runs.items():
    n, nnz = r["n"], r["nnz"]
    floor = (12 * nnz + 20 * n + 64 * n) / copy_bw
    ms = 1e3 * r["times"]["per_iteration"]
    cupy = peers.get((n, "cg"))
    vs = "%.2fx" % (cupy["seconds_per_iteration"] * 1e3 / ms) if cupy and ms > 0 else "-"
    print("| %s | %s | %.4f | %s | %.3f | %.0f%% |" % (name, r["device"], ms, vs, 1e3 * floor,
                                                   100 * floor * 1e3 / ms if ms > 0 else 0))
for (n, what), p in sorted(peers.items()):
    if what == "cg":
        print("| CuPy cg n=%d | %s | %.4f | 1.00x | | |" % (n, p["device"], 1e3 * p["seconds_per_iteration"]))
    else:
        print("| cuSPARSE SpMV n=%d | %s | %.4f (SpMV only, %.0f GB/s) | | | |" % (n, p["device"], 1e3 * p["seconds"], p["gbps"]))
print()
for f in ("spmv-poisson.txt", "spmv-random.txt"):
    path = os.path.join(out, f)
    if os.path.exists(path):
        print("".join(l for l in open(path) if l.startswith(("SpMV", "|", "automatic"))))
for (n, what), p in sorted(peers.items()):
    if what == "spmv":
        print("cuSPARSE SpMV (CuPy A @ x), n=%d nnz=%d: %.1f us, %.0f GB/s" % (n, p["nnz"], 1e6 * p["seconds"], p["gbps"]))
print()
for name, r in runs.items():
    print("%s (format %s, tuning: %s)" % (name, r["options"]["format"], r["options"]["tuning"]))
    print("  | kernel | calls | us/call | GB/s |")
    for k in r["kernels"]:
        if k["calls"]:
            print("  | %s | %d | %.1f | %.0f |" % (k["name"], k["calls"], 1e6 * k["time"] / k["calls"],
                                                 k["gbps"] or 0))
