#!/usr/bin/env python3
"""Scaling model of clcg-mpi's CG iteration (the variant --variant auto picks on the host
path, the fused form on one GPU) for 3D Poisson on an N^3 grid split into slabs of rows, per
exchange mode; parameters from bench/comm-2gpu.json and the one-GPU kernel rates; checked
against the measured points of one node (2 GPUs; 4 GPUs, which the parameters were not
taken from); extrapolated to a 200 Gb/s InfiniBand cluster.

usage: model.py [--comm bench/comm-2gpu.json]
                [--measured bench/scaling-2gpu-summary.csv,bench/scaling-4gpu-summary.csv]
                [--out DIR]     (writes DIR/model.csv, DIR/model-*.png with gnuplot;
                                 default bench/plots)
The default files are found relative to this script (the repository's bench/), so it runs
from any folder; paths given on the command line are taken as given."""
import argparse
import csv
import json
import math
import os
import re
import subprocess
import sys

# the repository's bench/ folder, two above this script
BENCH = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
p = argparse.ArgumentParser()
p.add_argument("--comm", default=os.path.join(BENCH, "comm-2gpu.json"))
p.add_argument("--measured", help="summary CSVs of collect.py, comma-separated (default: the repository's, "
               "where they are there)")
p.add_argument("--out", default=os.path.join(BENCH, "plots"))
a = p.parse_args()
MEASURED_DEFAULT = a.measured is None   # the default files may be absent; files named must be there
if MEASURED_DEFAULT:
    a.measured = ",".join(os.path.join(BENCH, f) for f in ("scaling-2gpu-summary.csv", "scaling-4gpu-summary.csv"))
for path in [] if MEASURED_DEFAULT else a.measured.split(","):
    if not os.path.isfile(path):
        sys.exit("model.py: --measured %s: no such file" % path)
try:
    with open(a.comm) as f:
        comm = json.load(f)
    if not isinstance(comm, dict):
        raise ValueError("not a record of bench/bench_comm")
    for key in ("d2h_pinned_512k_GBps", "mpi_latency_s", "mpi_512k_GBps", "allreduce_1_double_s",
                "exchange_512k_pinned_s"):
        v = comm.get(key)
        if (key != "exchange_512k_pinned_s" or key in comm) and not (
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0):
            raise ValueError("no positive number '%s' (a record of bench/bench_comm is needed)" % key)
except (OSError, ValueError) as e:
    sys.exit("model.py: --comm %s: %s" % (a.comm, e))

# --- parameters (seconds, bytes/second) ---
BW = 4.0e12            # sustained kernel bandwidth on an H200 (bench/RESULTS.md, 2026-11-23: 3.8-4.2 TB/s)
T_FUSED_ROW = 0.7358e-3 / 256**3  # one GPU, per row (0.7294-0.7368 ms at 256^3, 2-GPU machine, 2026-11-27 02:47-03:25 UTC)
T_SYNC = 28e-6         # one host synchronization (kernel done, small read, MPI_Allreduce, next launch; 27-30 us, 2026-11-27)
T_LAUNCH = 3e-6        # gap between kernels on the host path (kernel timelines of 2026-11-27: 2.7-3.2 us)
# The halo's way beyond its transfers and MPI: the read starting after update_p_pack, the
# write and the boundary launch queued behind MPI.  Traced on 2 H200 (2026-11-27 03:16 UTC,
# strong 256^3): the boundary SpMV starts 167-177 us after update_p_pack ends, of which the
# two transfers take about 45 us and the exchange about 100 us.
T_HALO_HOST = 30e-6
T_BND = 15e-6          # the boundary rows' SpMV alone (65 536 rows, 2 H200, 2026-11-27: 14.9-16.5 us)
PCIE = 1e9 * comm["d2h_pinned_512k_GBps"]     # pinned staging at halo sizes (measured)
NODE = {"lat": comm["mpi_latency_s"], "bw": 1e9 * comm["mpi_512k_GBps"], "allreduce": comm["allreduce_1_double_s"]}
# Two ranks sending each other a halo at once (bench_comm's exchange_512k_s): inside the node
# each direction gets less than the ping-pong rate (Open MPI's shared memory without a
# single-copy mechanism on the GPU machine: 97-103 us for 512 KB each way, 2026-11-27).
if "exchange_512k_pinned_s" in comm:
    NODE["bw"] = 524288 / comm["exchange_512k_pinned_s"]
# ... but `neighbor` between ranks of one node goes through a shared-memory window that each
# device reads its pack into and writes its ghosts from (src/halo_shm.c): the two pinned
# transfers and a message of no bytes, no MPI copy
NODE["window"] = True
SR_ROWS = 6e6          # --variant auto: single-reduction below this many rows a GPU (src/cg_ocl.c)
IB = {"lat": 2.0e-6, "bw": 25e9, "allreduce_step": 2.5e-6}   # 200 Gb/s InfiniBand, one link per GPU


# The whole-vector gather moves 8 n bytes through host copies and MPI_Allgatherv; measured on
# 2 GPUs it ran at this effective rate (57.2 ms for 134 MB), far below the link rate.
ALLGATHER_EFF = 134e6 / 57.2e-3


def plane(curve):
    """The entries of one grid plane (NX * NY) of a collect.py curve's Poisson problem:
    poisson3d:NXxNYxNZ (strong), poisson3d-K-per-unit (weak, a cube of K rows a GPU), or
    None for any other matrix."""
    m = re.search(r"(^|/)poisson3d:(\d+)x(\d+)x(\d+)(/|$)", curve)
    if m:
        return int(m.group(2)) * int(m.group(3))
    m = re.search(r"(^|/)poisson3d-(\d+)-per-unit(/|$)", curve)
    if m:
        k = int(m.group(2))
        side = round(k ** (1 / 3))
        return side * side if side ** 3 == k else None
    return None


def iteration(n_total, P, mode, variant, net, N2=256 * 256, parts=None):
    """Seconds per CG iteration on P GPUs, one rank per GPU, rows in P slabs of an
    NX x NY x NZ grid whose plane (the halo towards one side) holds N2 entries; and the
    seconds of communication in it.  parts, a dict, gets the halo's way: the pinned
    staging ("stage"), MPI ("mpi"), the host's part ("host") and their sum ("halo")."""
    nr = n_total / P
    if P == 1:
        return T_FUSED_ROW * nr, 0.0
    nb = 1 if P == 2 else 2                 # sides of an inner slab
    halo = nb * N2                           # a plane from each side
    msgs = nb * max(1, math.ceil(N2 / nr))   # slabs thinner than a plane: several senders
    nnz_r = 7 * nr
    # standard: update_p_pack 24 n, update_r 24 n, x += alpha p 24 n (in two halves, each
    # run while the host reduces: a synchronization shows only where it is longer); on the
    # device queue's path: the two halves, update_r, update_p_pack and the interior SpMV (the
    # boundary SpMV runs beside it on the transfer queue, behind the ghosts)
    vec = 88 * nr if variant == "single-reduction" else 72 * nr
    spmv = 12 * nnz_r + 20 * nr
    launches = 5
    reductions = 1 if variant == "single-reduction" else 2
    t_cover = 0.0 if variant == "single-reduction" else 12 * nr / BW
    t_sync = reductions * max(0.0, T_SYNC - t_cover)
    t_spmv_interior = spmv / BW * max(0.0, 1 - halo / nr)
    # host <-> device staging of what leaves and what arrives
    if mode == "allgather":
        sent, recv = 8 * nr, 8 * halo
        t_mpi = net["lat"] * math.log2(P) + 8 * n_total * (P - 1) / P / min(net["bw"], ALLGATHER_EFF)
    elif mode == "needed":
        sent, recv = 8 * halo, 8 * halo
        t_mpi = net["lat"] * math.log2(P) + 8 * nb * N2 * (P - 1) / net["bw"]
    else:
        sent, recv = 8 * halo, 8 * halo
        t_mpi = msgs * net["lat"] + (0.0 if net.get("window") else 8 * halo / net["bw"])
    t_stage = (sent + recv) / PCIE
    t_red = reductions * (net["allreduce"] if "allreduce" in net else net["allreduce_step"] * math.log2(P))
    # the halo (staging both ways, MPI, the host's part) and the boundary SpMV run beside the
    # interior SpMV; where they are longer, each rank packs the boundary values in a launch of
    # its own before p is formed (decided from the run: src/cg_ocl.c, pack_first), so that
    # the forming of p covers them too
    t_halo = t_stage + t_mpi + T_HALO_HOST
    if parts is not None:
        parts.update(stage=t_stage, mpi=t_mpi, host=T_HALO_HOST, halo=t_halo)
    window = t_spmv_interior
    if variant == "standard" and t_halo + T_BND > window:
        window += 24 * nr / BW
        launches += 1
    t_kernels = (vec + spmv) / BW + launches * T_LAUNCH
    t = t_kernels + t_sync + max(0.0, t_halo + T_BND - window) + t_red
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
                variant = "single-reduction" if P > 1 and n / P < SR_ROWS else "standard"
                t, tc = iteration(n, P, mode, variant, net)
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
    # the ghosts' way on 2 GPUs (strong 256^3, neighbor): from the end of update_p_pack to the
    # ghosts at the boundary SpMV, through the node's shared-memory window as the model takes
    # it, and through MPI as before the window (and as the trace of 2026-11-27 03:16 UTC ran)
    print()
    for how, net in (("the shared-memory window", NODE), ("MPI", dict(NODE, window=False))):
        w = {}
        iteration(n1, 2, "neighbor", "standard", net, parts=w)
        print("halo, strong 256^3 on 2 GPUs, through %s: the ghosts at the boundary SpMV %.0f us after"
              " update_p_pack (pinned staging %.1f us, MPI %.1f us, host %.0f us)"
              % (how, 1e6 * w["halo"], 1e6 * w["stage"], 1e6 * w["mpi"], 1e6 * w["host"]))
    # the measured points of one node (one rank per GPU) beside the model, with the node's
    # parameters: inner slabs there exchange with both neighbours through the same host
    for path in a.measured.split(","):
        if not os.path.exists(path) and MEASURED_DEFAULT:
            continue
        shown = os.path.relpath(path, os.path.dirname(BENCH)) if os.path.abspath(path).startswith(
            os.path.dirname(BENCH) + os.sep) else path
        print("\nmeasured in one node (%s) against the model (whose kernel rates are an H200's):" % shown)
        with open(path, newline="") as f:
            measured = list(csv.DictReader(f))
        skipped = set()
        for m in measured:
            N2 = plane(m.get("curve", ""))
            if N2 is None:   # the model is of the 7-point Poisson grid cut into slabs
                skipped.add((m.get("curve", ""), "-per-unit" in m.get("curve", "")))
                continue
            P = int(m["ranks"])
            # the variant the point ran (collect.py's variant column), or, in older summaries
            # without it, the one in the curve's name where it is not standard
            v = m.get("variant") or ""
            if v not in ("standard", "single-reduction", "pipelined"):
                v = next((x for x in ("single-reduction", "pipelined") if "/%s/" % x in m["curve"]), "standard")
            # (an extra point only where its curve names single-reduction: older summaries
            # named no variant in their extra points)
            if P >= 2 and m["devices_per_rank"] == "1" and (
                    m["series"] in ("strong", "weak") or m["series"] == "extra" and v == "single-reduction"):
                t, _ = iteration(int(m["n"]), P, m["exchange"], v, NODE, N2=N2)
                meas = float(m["per_iteration_ms"])
                print("  %s %s%s, %d GPUs: measured %.3f ms, model %.3f ms (%+.0f%%)" % (
                    m["series"], m["exchange"], "" if v == "standard" else ", " + v, P, meas, 1e3 * t,
                    100 * (1e3 * t - meas) / meas))
        for c, weak in sorted(skipped):
            print("  %s: not modelled (%s)" % (c or "a point without a curve",
                  "a weak series' block a GPU that is not a cube: summary.csv does not give its plane" if weak
                  else "the model is of poisson3d, a 7-point grid of NX x NY planes"))
        if not measured:
            print("  no points")
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


try:
    main()
except (OSError, KeyError, ValueError) as e:   # an output folder not writable, a CSV not collect.py's
    sys.exit("model.py: %s%s" % ("no column " if isinstance(e, KeyError) else "", e))
