#!/usr/bin/env python3
"""Tables of a gpu_bench.sh run: per-kernel times and GB/s of each CG run, the SpMV alone in
every storage form, then, last, the summary: ms per CG iteration for clcg-mpi and CuPy's cg
with the share of the memory-bandwidth floor, and the SpMV of the automatic storage form
against cuSPARSE on the same matrix.  usage: summarize.py OUTDIR [COPY_BYTES_PER_S]"""
import glob
import json
import os
import re
import sys

if len(sys.argv) not in (2, 3) or not os.path.isdir(sys.argv[1]):
    sys.exit("usage: summarize.py OUTDIR [COPY_BYTES_PER_S]   (OUTDIR: a folder of gpu_bench.sh's outputs)")
out = sys.argv[1]
try:
    copy_bw = float(sys.argv[2]) if len(sys.argv) > 2 else 3.99e12   # OpenCL copy, H200
except ValueError:
    copy_bw = 0.0
if not (copy_bw > 0 and copy_bw != float("inf")):
    sys.exit("summarize.py: COPY_BYTES_PER_S '%s' is not a positive number" % sys.argv[2])
runs = {}
for f in sorted(glob.glob(os.path.join(out, "clcg-*.json"))):
    r = json.load(open(f))
    runs[os.path.basename(f)[5:-5]] = r
peers = {}
for f in glob.glob(os.path.join(out, "cupy-*.jsonl")):
    for line in open(f):
        if line.strip():
            p = json.loads(line)
            peers[(p["n"], p.get("nnz"), p["what"])] = p

# bench_spmv's tables: "SpMV KIND: n = N, ...", rows "| device | format | shape | us | GB/s | error |",
# "automatic choice: FORMAT"
spmv = []   # (kind, n, nnz, device, format, us, GB/s) of the automatic choice
for f in ("spmv-poisson.txt", "spmv-random.txt"):
    path = os.path.join(out, f)
    if not os.path.exists(path):
        continue
    text = open(path).read()
    print("".join(l + "\n" for l in text.splitlines() if l.startswith(("SpMV", "|", "automatic", "bench_spmv"))))
    head = re.search(r"^SpMV (\S+): n = (\d+), nnz = (\d+)", text, re.M)
    auto = re.search(r"^automatic choice: (\S+)", text, re.M)
    if not head or not auto:
        continue
    for l in text.splitlines():
        cells = [c.strip() for c in l.strip().strip("|").split("|")]
        if len(cells) >= 5 and (cells[1] == auto.group(1) or cells[1].startswith(auto.group(1) + "(")):
            spmv.append((head.group(1).rstrip(":"), int(head.group(2)), int(head.group(3)), cells[0], cells[1],
                         float(cells[3]), float(cells[4]), cells[5] if len(cells) > 5 else "-",
                         re.search(r"^bench_spmv: ", text, re.M) is not None))
for (n, nnz, what), p in sorted(peers.items(), key=lambda kv: (kv[0][0], kv[0][1] or -1, kv[0][2])):
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
print()

# the floor: CG's memory traffic an iteration without a preconditioner (SpMV 12 nnz + 20 n
# bytes, the fused vector work 64 n) at the copy bandwidth; CuPy's cg has no preconditioner,
# so against a Jacobi case the ratio is PCG's time against CG's
print("| case | device | ms/iteration | vs CuPy cg | floor ms (12 nnz + 84 n bytes at %.3g TB/s) | %% of floor speed |"
      % (copy_bw / 1e12))
print("| --- | --- | --- | --- | --- | --- |")
for name, r in runs.items():
    n, nnz = r["n"], r["nnz"]
    floor = (12 * nnz + 20 * n + 64 * n) / copy_bw
    ms = 1e3 * r["times"]["per_iteration"]
    cupy = peers.get((n, nnz, "cg"))
    pcg = r["options"].get("precond", "none") != "none"
    vs = "%.2fx%s" % (cupy["seconds_per_iteration"] * 1e3 / ms, " (PCG vs CG)" if pcg else "") if cupy and ms > 0 else "-"
    print("| %s | %s | %.4f | %s | %.3f | %.0f%% |" % (name, r["device"], ms, vs, 1e3 * floor,
                                                   100 * floor * 1e3 / ms if ms > 0 else 0))
for (n, nnz, what), p in sorted(peers.items(), key=lambda kv: (kv[0][0], kv[0][1] or -1, kv[0][2])):
    if what == "cg":
        print("| CuPy cg n=%d | %s | %.4f | 1.00x | | |" % (n, p["device"], 1e3 * p["seconds_per_iteration"]))
if spmv:
    print()
    print("| SpMV alone | device | format | us | GB/s (12 nnz + 20 n) | error (worst row) | cuSPARSE us | vs cuSPARSE |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for kind, n, nnz, dev, fmt, us, gbps, err, bad in spmv:
        p = peers.get((n, nnz, "spmv"))
        ours = "| %s | %s | %s | %.1f | %.0f | %s |" % (kind, dev, fmt, us, gbps,
                                                     err + (" (check failed: see above)" if bad else ""))
        if p and us > 0:
            print("%s %.1f | %.2fx |" % (ours, 1e6 * p["seconds"], 1e6 * p["seconds"] / us))
        else:
            print("%s - | - |" % ours)
