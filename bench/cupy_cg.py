#!/usr/bin/env python3
"""Peer timing: CuPy's cupyx.scipy.sparse.linalg.cg and cuSPARSE SpMV (A @ x) on the
3D Poisson 7-point matrix of clcg-mpi's --generate poisson3d:N (same entries, CSR,
float64, 32-bit indices), b = A*1.  Prints one JSON line per measurement.

usage: cupy_cg.py N [ITERATIONS] [REPEATS]"""
import json
import statistics
import sys
import time

if len(sys.argv) < 2 or len(sys.argv) > 4:
    sys.exit("usage: %s" % "cupy_cg.py N [ITERATIONS] [REPEATS]")
try:
    import cupy as cp
    import cupyx.scipy.sparse as sp
    import cupyx.scipy.sparse.linalg as spla
except ImportError as e:
    sys.exit("cupy_cg.py: CuPy is not available here (%s): the peers run on the GPU machine" % e)


def poisson3d(n):
    one = cp.ones(n, dtype=cp.float64)
    t = sp.diags([-one[:-1], 2 * one, -one[:-1]], [-1, 0, 1], format="csr")
    e = sp.identity(n, dtype=cp.float64, format="csr")
    a = sp.kron(sp.kron(t, e), e) + sp.kron(sp.kron(e, t), e) + sp.kron(sp.kron(e, e), t)
    a = a.tocsr()
    a.sum_duplicates()
    a.sort_indices()
    return a


def main():
    n = int(sys.argv[1])
    its = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    a = poisson3d(n)
    rows = a.shape[0]
    b = a @ cp.ones(rows, dtype=cp.float64)
    dev = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    # SpMV alone
    x = cp.ones(rows, dtype=cp.float64)
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
    t_spmv = statistics.median(ts)
    model = 12 * a.nnz + 20 * rows
    print(json.dumps({"peer": "cupy", "what": "spmv", "n": rows, "nnz": int(a.nnz), "device": dev,
                      "seconds": t_spmv, "gbps": model / t_spmv / 1e9}))
    # CG, fixed iteration count
    spla.cg(a, b, rtol=0, atol=0, maxiter=10)
    cp.cuda.runtime.deviceSynchronize()
    ts = []
    for _ in range(reps):
        cp.cuda.runtime.deviceSynchronize()
        t0 = time.perf_counter()
        spla.cg(a, b, rtol=0, atol=0, maxiter=its)
        cp.cuda.runtime.deviceSynchronize()
        ts.append((time.perf_counter() - t0) / its)
    print(json.dumps({"peer": "cupy", "what": "cg", "n": rows, "nnz": int(a.nnz), "device": dev,
                      "iterations": its, "seconds_per_iteration": statistics.median(ts),
                      "all": ts}))


if __name__ == "__main__":
    main()
