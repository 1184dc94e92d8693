#!/usr/bin/env python3
"""Peer timing on a matrix dumped by bench_spmv (CLCG_DUMP_CSR=PREFIX): cuSPARSE SpMV
(CuPy A @ x) and CuPy's cg, b = A*1.  usage: cupy_file.py PREFIX [ITERATIONS] [REPEATS]"""
import json
import statistics
import sys
import time

import numpy as np
if len(sys.argv) < 2 or len(sys.argv) > 4:
    sys.exit("usage: %s" % "cupy_file.py PREFIX [ITERATIONS] [REPEATS]")
try:
    import cupy as cp
    import cupyx.scipy.sparse as sp
    import cupyx.scipy.sparse.linalg as spla
except ImportError as e:
    sys.exit("cupy_file.py: CuPy is not available here (%s): the peers run on the GPU machine" % e)

prefix = sys.argv[1]
its = int(sys.argv[2]) if len(sys.argv) > 2 else 100
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 3
ptr = np.fromfile(prefix + ".rowptr.i32", dtype=np.int32)
col = np.fromfile(prefix + ".col.i32", dtype=np.int32)
val = np.fromfile(prefix + ".val.f64", dtype=np.float64)
n = len(ptr) - 1
a = sp.csr_matrix((cp.asarray(val), cp.asarray(col), cp.asarray(ptr)), shape=(n, n))
dev = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
x = cp.ones(n, dtype=cp.float64)
for _ in range(5):
    y = a @ x
cp.cuda.runtime.deviceSynchronize()
ts = []
for _ in range(reps):
    s = cp.cuda.Event(); e = cp.cuda.Event()
    s.record()
    for _ in range(20):
        y = a @ x
    e.record(); e.synchronize()
    ts.append(cp.cuda.get_elapsed_time(s, e) / 20 / 1e3)
t = statistics.median(ts)
print(json.dumps({"peer": "cupy", "what": "spmv", "matrix": prefix, "n": n, "nnz": int(a.nnz), "device": dev,
                  "seconds": t, "gbps": (12 * a.nnz + 20 * n) / t / 1e9}))
b = a @ x
spla.cg(a, b, rtol=0, atol=0, maxiter=5)
ts = []
for _ in range(reps):
    cp.cuda.runtime.deviceSynchronize()
    t0 = time.perf_counter()
    spla.cg(a, b, rtol=0, atol=0, maxiter=its)
    cp.cuda.runtime.deviceSynchronize()
    ts.append((time.perf_counter() - t0) / its)
print(json.dumps({"peer": "cupy", "what": "cg", "matrix": prefix, "n": n, "nnz": int(a.nnz), "device": dev,
                  "iterations": its, "seconds_per_iteration": statistics.median(ts)}))
