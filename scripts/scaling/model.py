#!/usr/bin/env python3
"""Scaling model of clcg-mpi's CG iteration (the standard variant on the host path, the fused
form on one GPU) for 3D Poisson on an N^3 grid split into slabs of rows, per
exchange mode; parameters from bench/comm-2gpu.json and the one-GPU kernel rates; checked
against the measured 2-GPU points; extrapolated to a 200 Gb/s InfiniBand cluster.

usage: model.py [--comm bench/comm-2gpu.json] [--measured bench/scaling-2gpu-summary.csv]
                [--out DIR]     (writes DIR/model.csv, DIR/model-*.png with gnuplot)"""
import argparse
import csv
import json
import math
import os
import subprocess

p = argparse.ArgumentParser()
p.add_argument("--comm", default="bench/comm-2gpu.json")
p.add_argument("--measured", default="bench/scaling-2gpu-summary.csv")
p.add_argument("--out", default="bench/plots")
a = p.parse_args()
comm = json.load(open(a.comm))

# --- parameters (seconds, bytes/second) ---
BW = 4.0e12            # sustained kernel bandwidth on an H200 (bench/RESULTS.md, 2026-11-23: 3.8-4.2 TB/s)
T_FUSED_ROW = 0.7366e-3 / 256**3  # one GPU, per row (0.7363-0.7375 ms at 256^3, 2-GPU machine, 2026-11-23 07:53 UTC)
T_SYNC = 25e-6         # one host synchronization (kernel done + small read), device README
T_LAUNCH = 3e-6        # gap between kernels on the host path (kernel timeline, 2026-11-23 07:53 UTC)
# The halo's way through the host beyond its transfers and MPI (waiting for the read, copies
# into and out of the host vector, the MPI calls): the kernel timeline of strong 256^3 on 2
# GPUs (2026-11-23 07:53 UTC) shows the boundary SpMV starting 267 us after the interior one,
# of which the transfers and MPI account for about 100 us.
T_HALO_HOST = 160e-6
PCIE = 1e9 * comm["d2h_pinned_512k_GBps"]     # pinned staging at halo sizes (measured)
NODE = {"lat": comm["mpi_latency_s"], "bw": 1e9 * comm["mpi_512k_GBps"], "allreduce": comm["allreduce_1_double_s"]}
IB = {"lat": 2.0e-6, "bw": 25e9, "allreduce_step": 2.5e-6}   # 200 Gb/s InfiniBand, one link per GPU


# The whole-vector gather moves 8 n bytes through host copies and MPI_Allgatherv; measured on
# 2 GPUs it ran at this effective rate (57.2 ms for 134 MB), far below the link rate.
ALLGATHER_EFF = 134e6 / 57.2e-3


def iteration(n_total, P, mode, variant, net, N2=256 * 256):
    """Seconds per CG iteration on P GPUs, one rank per GPU, rows in P slabs of an
    NX x NY x NZ grid whose plane (the halo towards one side) holds N2 entries."""
    nr = n_total / P
    if P == 1:
        return T_FUSED_ROW * nr, 0.0
    nb = 1 if P == 2 else 2                 # sides of an inner slab
    halo = nb * N2                           # a plane from each side
    msgs = nb * max(1, math.ceil(N2 / nr))   # slabs thinner than a plane: several senders
    nnz_r = 7 * nr
    # standard: update_p_pack 24 n, update_r 24 n, x += alpha p 24 n (in two halves, each
    # run while the host reduces: a synchronization shows only where it is longer)
    vec = 88 * nr if variant == "single-reduction" else 72 * nr
    spmv = 12 * nnz_r + 20 * nr
    launches = 5 if variant == "single-reduction" else 8
    # slices under 10 M rows pack the boundary values in a launch of their own first, so the
    # halo also runs beside the forming of p (24 n bytes) (src/cg_ocl.c, PACK_FIRST_ROWS)
    pack_first = variant == "standard" and nr < 10e6
    launches += 1 if pack_first else 0
    reductions = 1 if variant == "single-reduction" else 2
    t_kernels = (vec + spmv) / BW + launches * T_LAUNCH
    t_cover = 0.0 if variant == "single-reduction" else 12 * nr / BW
    t_sync = reductions * max(0.0, T_SYNC - t_cover)
    t_spmv_interior = spmv / BW * max(0.0, 1 - halo / nr) + (24 * nr / BW if pack_first else 0.0)
    # host <-> device staging of what leaves and what arrives
    if mode == "allgather":
        sent, recv = 8 * nr, 8 * halo
        t_mpi = net["lat"] * math.log2(P) + 8 * n_total * (P - 1) / P / min(net["bw"], ALLGATHER_EFF)
    elif mode == "needed":
        sent, recv = 8 * halo, 8 * halo
        t_mpi = net["lat"] * math.log2(P) + 8 * nb * N2 * (P - 1) / net["bw"]
    else:
        sent, recv = 8 * halo, 8 * halo
        t_mpi = msgs * net["lat"] + 8 * halo / net["bw"]
    t_stage = (sent + recv) / PCIE
    t_red = reductions * (net["allreduce"] if "allreduce" in net else net["allreduce_step"] * math.log2(P))
    # the halo (staging both ways, MPI, the host's part) runs beside the interior SpMV (and
    # the forming of p, where the pack comes first)
    t_halo = t_stage + t_mpi + T_HALO_HOST
    t = t_kernels + t_sync + max(0.0, t_halo - t_spmv_interior) + t_red
    return t, t_halo + t_red


def main():
    os.makedirs(a.out, exist_ok=True)
    rows = []
    n1 = 256 ** 3
    for series in ("strong", "weak"):
        for mode in ("allgather", "needed", "neighbor"):
            for P in (1, 2, 4, 8, 16, 32, 64, 128, 256, 512):
                net = NODE if P <= 2 else IB
                n = n1 if series == "strong" else n1 * P
                t, tc = iteration(n, P, mode, "standard", net)
                t1, _ = iteration(n1, 1, mode, "standard", net)
                eff = (t1 / t / P) if series == "strong" else t1 / t
                rows.append({"series": series, "exchange": mode, "gpus": P, "n": n, "ms": 1e3 * t,
                             "comm_ms": 1e3 * tc, "speedup": t1 / t if series == "strong" else P * t1 / t,
                             "efficiency": eff})
    with open(os.path.join(a.out, "model.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print("| series | exchange | GPUs | model ms/iteration | of which communication | speedup | efficiency |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        if r["gpus"] in (1, 2, 8, 64, 512):
            print("| %s | %s | %d | %.3f | %.3f | %.2f | %.0f%% |" % (r["series"], r["exchange"], r["gpus"], r["ms"],
                                                                r["comm_ms"], r["speedup"], 100 * r["efficiency"]))
    # the measured 2-GPU points beside the model
    if os.path.exists(a.measured):
        print("\nmeasured on 2 GPUs (one node) against the model:")
        for m in csv.DictReader(open(a.measured)):
            if m["series"] in ("strong", "weak") and m["ranks"] == "2":
                n = int(m["n"])
                t, _ = iteration(n, 2, m["exchange"], "standard", NODE)
                print("  %s %s: measured %.3f ms, model %.3f ms" % (m["series"], m["exchange"],
                                                                  float(m["per_iteration_ms"]), 1e3 * t))
    # plots
    for series in ("strong", "weak"):
        data = os.path.join(a.out, "model-%s.dat" % series)
        with open(data, "w") as f:
            for mode in ("allgather", "needed", "neighbor"):
                f.write("# %s\n" % mode)
                for r in rows:
                    if r["series"] == series and r["exchange"] == mode:
                        f.write("%d %.6f %.6f\n" % (r["gpus"], r["ms"], r["efficiency"]))
                f.write("\n\n")
        png = os.path.join(a.out, "model-%s.png" % series)
        ylab = "ms per iteration"
        script = f"""set terminal pngcairo size 800,560 noenhanced
set output '{png}'
set title 'scaling model, {series} scaling, Poisson 256^3{" per GPU" if series == "weak" else ""} (200 Gb/s IB beyond one node)'
set logscale x 2
set logscale y
set xlabel 'GPUs'
set ylabel '{ylab}'
set grid
set key top left
plot '{data}' index 0 using 1:2 with linespoints title 'allgather', \\
     '{data}' index 1 using 1:2 with linespoints title 'needed', \\
     '{data}' index 2 using 1:2 with linespoints title 'neighbor'
"""
        try:
            subprocess.run(["gnuplot"], input=script.encode(), check=True)
        except (OSError, subprocess.CalledProcessError):
            print("gnuplot not available: %s not drawn" % png)
        os.remove(data)


main()
