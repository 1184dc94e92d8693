#!/usr/bin/env python3
"""Gather the clcg-mpi JSON records of a folder into CSV tables.

runs.csv has one row per record (per run); summary.csv one row per point of a series
(the median over repeats).  A series is named by the start of the record's file name
(SERIES-EXCHANGE-pRANKS-rREPEAT.json from run-series.sh or the sbatch templates:
"strong", "weak", anything else is kept as written).  Runs are grouped into curves by
(series, exchange, preconditioner, variant asked for, device, size, rtol, max-iterations),
where size is the matrix for a strong series and the rows per device for a weak one; a
point is a curve's runs on one (devices, ranks).  summary.csv's variant is the variant the
point's runs ran ("mixed" where they differ): a curve of --variant auto may change variant
from point to point.  Within a curve, with
u = ranks * devices_per_rank and T the time per iteration, relative to the smallest u0:

  strong: speedup = T(u0) / T(u),              efficiency = speedup * u0 / u
  weak:   efficiency = T(u0) / T(u),           speedup = efficiency * u / u0  (scaled)

summary.csv's base_units is the u0 of the point's curve: a curve whose runs on the series'
smallest device count failed or are missing starts higher, with a warning, as does one with
two layouts (ranks x devices) on its u0, whose baseline is the layout with the fewest ranks.

comm_share is the share of the solve time spent communicating: the record's times.comm
(the maximum over ranks of each rank's exchange + allreduce time) where it has one, else
times.exchange + times.allreduce (each the maximum over ranks, so their sum may exceed any
one rank's time).  A share above 1 is kept as it is, with a warning.

Records whose outcome means a failure (DIVERGED_INDEFINITE, DIVERGED_BREAKDOWN,
DIVERGED_NANORINF, DIVERGED_RESIDUAL_GAP, DIVERGED_SINGULAR) stay in runs.csv but are left out of the points,
with a warning; DIVERGED_ITS (the iteration limit, the normal end of a timing run with
--rtol 1e-30 --max-iterations N) is kept.  A point whose runs differ in iteration count or
outcome is warned about (records of two studies in one folder?).

usage: collect.py DIR [-o RUNS.csv] [--summary SUMMARY.csv]
       (defaults DIR/runs.csv and DIR/summary.csv; '-' writes to standard output)
Python 3 standard library only.
"""

import argparse
import csv
import glob
import json
import math
import os
import stat
import statistics
import sys

RUN_FIELDS = [
    "file", "series", "curve", "date", "host", "ranks", "devices_per_rank", "units",
    "device", "platform", "matrix", "n", "nnz", "n_per_unit", "exchange", "precond",
    "format", "variant", "outcome", "iterations", "iterations_run", "solve_s",
    "per_iteration_ms", "exchange_s", "allreduce_s", "comm_s", "comm_share", "bytes_sent_min",
    "bytes_sent_max", "residual_true", "speedup", "efficiency", "base_units", "rtol",
    "max_iterations",
]
SUMMARY_FIELDS = [
    "series", "curve", "exchange", "precond", "variant", "units", "ranks", "devices_per_rank",
    "n", "runs", "iterations", "per_iteration_ms", "per_iteration_ms_min", "solve_s",
    "comm_share", "bytes_sent_max", "speedup", "efficiency", "rtol", "max_iterations",
    "base_units",
]
# outcomes that mean the run failed: its time says nothing about the scaling
FAILED = ("DIVERGED_INDEFINITE", "DIVERGED_BREAKDOWN", "DIVERGED_NANORINF", "DIVERGED_RESIDUAL_GAP",
          "DIVERGED_SINGULAR")


def warn(message):
    print("collect.py: warning: " + message, file=sys.stderr)


def get(record, *keys):
    """record[k1][k2]... or None when a level is missing."""
    for k in keys:
        if not isinstance(record, dict) or k not in record:
            return None
        record = record[k]
    return record


def read_records(folder):
    """Yield (file name, record) for every JSON file in folder; warn on bad ones."""
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        try:
            with open(path, encoding="utf-8") as f:
                record = json.load(f)
        except (OSError, ValueError) as e:
            print("collect.py: skipping %s: %s" % (path, e), file=sys.stderr)
            continue
        pi = get(record, "times", "per_iteration")
        if not isinstance(record, dict) or pi is None:
            print("collect.py: skipping %s: not a clcg-mpi record" % path, file=sys.stderr)
            continue
        if isinstance(pi, bool) or not isinstance(pi, (int, float)) or not math.isfinite(pi) or pi < 0:
            print("collect.py: skipping %s: times.per_iteration is %r, not a time" % (path, pi), file=sys.stderr)
            continue
        yield os.path.basename(path), record


def row_of(name, r):
    """One CSV row (a dict) from a record."""
    ranks = get(r, "ranks") or 1
    dpr = get(r, "devices_per_rank") or 1
    units = ranks * dpr
    n = get(r, "n")
    per_it = get(r, "times", "per_iteration")
    solve = get(r, "times", "solve")
    exch = get(r, "times", "exchange")
    allred = get(r, "times", "allreduce")
    comm_t = get(r, "times", "comm")
    what = "times.comm"
    if comm_t is None and exch is not None and allred is not None:
        comm_t = exch + allred
        what = "times.exchange + times.allreduce, each the maximum over ranks,"
    comm = comm_t / solve if solve and comm_t is not None else None
    if comm is not None and comm > 1:
        warn("%s: communication share %.3g above 1 (%s %.6g s against a solve of %.6g s)"
             % (name, comm, what, comm_t, solve))
    series = name.split("-", 1)[0] if "-" in name else "run"
    row = {
        "file": name, "series": series, "date": get(r, "date"), "host": get(r, "host"),
        "ranks": ranks, "devices_per_rank": dpr, "units": units,
        "device": get(r, "device"), "platform": get(r, "platform"),
        "matrix": get(r, "matrix"), "n": n, "nnz": get(r, "nnz"),
        "n_per_unit": round(n / units) if n else None,
        "exchange": get(r, "options", "exchange"), "precond": get(r, "options", "precond"),
        "format": get(r, "options", "format"), "variant": get(r, "options", "variant"),
        "outcome": get(r, "outcome"), "iterations": get(r, "iterations"),
        "iterations_run": get(r, "iterations_run"), "solve_s": solve,
        "per_iteration_ms": per_it * 1e3 if per_it is not None else None,
        "exchange_s": exch, "allreduce_s": allred, "comm_s": comm_t, "comm_share": comm,
        "bytes_sent_min": get(r, "comm", "bytes_sent_per_iteration_min"),
        "bytes_sent_max": get(r, "comm", "bytes_sent_per_iteration_max"),
        "residual_true": get(r, "residual", "true"),
        "rtol": get(r, "options", "rtol"), "max_iterations": get(r, "options", "max_iterations"),
    }
    if series == "weak":
        size = "%s-%s-per-unit" % (str(row["matrix"]).split(":")[0], row["n_per_unit"])
    else:
        size = row["matrix"]
    # a label without commas or spaces, so that plot.sh can split on them
    # (a variant asked for by name other than the standard one named: runs of several variants
    # are not one curve; --variant auto, which may pick another on more GPUs, is the default's
    # curve, as records without variant_asked are)
    asked = get(r, "options", "variant_asked") or row["variant"]
    variant = [] if asked in (None, "standard", "auto") else [asked]
    label = "/".join(str(v) for v in [series, row["exchange"], row["precond"]] + variant + [size])
    row["curve"] = label.replace(",", "x").replace(" ", "_")
    row["_key"] = (series, row["exchange"], row["precond"], "auto" if asked in (None, "standard", "auto") else asked,
                   row["device"], size, row["rtol"], row["max_iterations"])
    return row


def name_curves(rows):
    """Curves that share a label but differ in device, rtol or max-iterations get these
    in their labels, so that plot.sh, which tells curves apart by label, keeps them apart."""
    keys = {}
    for row in rows:
        keys.setdefault(row["curve"], set()).add(row["_key"])
    for row in rows:
        others = keys[row["curve"]]
        if len(others) < 2:
            continue
        extra = []
        for i, tag in ((5, "device"), (6, "rtol"), (7, "max-it")):
            if len({k[i] for k in others}) > 1:
                extra.append("%s=%s" % (tag, row["_key"][i]))
        row["curve"] = (row["curve"] + "/" + "/".join(extra)).replace(",", "x").replace(" ", "_")


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def derive(rows):
    """Add speedup and efficiency to the rows; return the summary rows."""
    curves = {}
    for row in rows:
        if row["outcome"] in FAILED:
            warn("%s: outcome %s, left out of the points" % (row["file"], row["outcome"]))
            continue
        curves.setdefault(row["_key"], []).append(row)
    summary = []
    # the smallest device count of each series, over its curves: a curve that starts above
    # it (its runs there failed or are missing) has its speedup and efficiency relative to
    # another baseline than the curves it is plotted with
    series_units = {}
    for key, members in curves.items():
        series_units.setdefault(key[0], set()).update(r["units"] for r in members)
    for key in sorted(curves, key=lambda k: tuple(str(v) for v in k)):
        members = curves[key]
        # a point per (units, ranks): 1 rank x 4 devices and 4 ranks x 1 device stay apart
        points = {}
        for row in members:
            points.setdefault((row["units"], row["ranks"]), []).append(row)
        u0 = min(points)[0]
        if u0 > min(series_units[key[0]]):
            warn("the curve %s has no point on %s devices, where other %s curves start: its speedup"
                 " and efficiency are relative to %s devices (base_units)"
                 % (members[0]["curve"], min(series_units[key[0]]), key[0], u0))
        gaps = sorted(u for u in series_units[key[0]] - {u for u, _ in points} if u > u0)
        if gaps:
            warn("the curve %s has no point on %s devices, where other %s curves have one (its runs"
                 " failed or are missing)" % (members[0]["curve"], "/".join(map(str, gaps)), key[0]))
        layouts = sorted(nr for u, nr in points if u == u0)
        if len(layouts) > 1:
            warn("the curve %s has %d layouts on %s devices (%s ranks): its baseline is the one of %s"
                 " ranks, so the others there have a speedup other than 1"
                 % (members[0]["curve"], len(layouts), u0, "/".join(map(str, layouts)), layouts[0]))
        t0 = median(r["per_iteration_ms"] for r in points[min(points)])
        weak = key[0] == "weak"

        def scale(t, u):
            if not t or not t0:
                return None, None
            if weak:
                eff = t0 / t
                return eff * u / u0, eff
            sp = t0 / t
            return sp, sp * u0 / u

        for row in members:
            row["base_units"] = u0
            row["speedup"], row["efficiency"] = scale(row["per_iteration_ms"], row["units"])
        for u, nr in sorted(points):
            runs = points[(u, nr)]
            t = median(r["per_iteration_ms"] for r in runs)
            sp, eff = scale(t, u)
            first = runs[0]
            its = sorted({r["iterations"] for r in runs}, key=lambda v: (not isinstance(v, int), str(v).zfill(12)))
            outcomes = sorted({r["outcome"] for r in runs}, key=str)
            if len(its) > 1 or len(outcomes) > 1:
                warn("the point %s on %s devices (%s ranks) mixes iteration counts %s and outcomes %s"
                     " (%s): records of different studies in one folder?"
                     % (first["curve"], u, nr, "/".join(map(str, its)), "/".join(map(str, outcomes)),
                        ", ".join(r["file"] for r in runs)))
            variants = {r["variant"] for r in runs}
            summary.append({
                "series": key[0], "curve": first["curve"], "exchange": first["exchange"],
                "precond": first["precond"],
                "variant": variants.pop() if len(variants) == 1 else "mixed",
                "units": u, "ranks": first["ranks"],
                "devices_per_rank": first["devices_per_rank"], "n": first["n"],
                "runs": len(runs), "iterations": median(r["iterations"] for r in runs),
                "per_iteration_ms": t,
                "per_iteration_ms_min": min(r["per_iteration_ms"] for r in runs),
                "solve_s": median(r["solve_s"] for r in runs),
                "comm_share": median(r["comm_share"] for r in runs),
                "bytes_sent_max": median(r["bytes_sent_max"] for r in runs),
                "speedup": sp, "efficiency": eff,
                "rtol": first["rtol"], "max_iterations": first["max_iterations"],
                "base_units": u0,
            })
    return summary


def fmt(v):
    if v is None:
        return ""
    if isinstance(v, float):
        return "%.6g" % v
    return v


def staging(path):
    """(the name to write, the name to rename it to, or None to write in place): a new
    temporary file beside the target, where a symbolic link's target is the file replaced;
    standard output ('-'), a device or a FIFO is written through (renaming onto /dev/null
    would replace the device with a file)."""
    if path == "-":
        return path, None
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return path, None
    except FileNotFoundError:
        pass
    final = os.path.realpath(path) if os.path.islink(path) else path
    return "%s.tmp.%d" % (final, os.getpid()), final


def open_new(tmp):
    """A temporary name opened as a new file: never through a link or an existing file
    planted there (removed first, not its target)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(tmp, flags, 0o666)
    except FileExistsError:
        os.unlink(tmp)
        fd = os.open(tmp, flags, 0o666)
    return open(fd, "w", newline="", encoding="utf-8")


def write_csv(path, fields, rows, created=None):
    """Write the rows to path: '-' standard output, with created (a list) a new temporary
    file, appended to created once it exists (for the cleanup of a failed write)."""
    if path == "-":
        out = sys.stdout
    elif created is not None:
        out = open_new(path)
        created.append(path)
    else:
        out = open(path, "w", newline="", encoding="utf-8")
    try:
        w = csv.DictWriter(out, fieldnames=fields, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        for row in rows:
            w.writerow({k: fmt(row.get(k)) for k in fields})
    finally:
        if out is not sys.stdout:
            out.close()


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", help="folder of clcg-mpi JSON records")
    ap.add_argument("-o", "--output", help="per-run CSV (default FOLDER/runs.csv)")
    ap.add_argument("--summary", help="per-point CSV (default FOLDER/summary.csv)")
    a = ap.parse_args(argv)
    if not os.path.isdir(a.folder):
        ap.error("%s is not a folder" % a.folder)
    rows = [row_of(name, r) for name, r in read_records(a.folder)]
    name_curves(rows)
    if not rows:
        print("collect.py: no clcg-mpi records in %s" % a.folder, file=sys.stderr)
        return 1
    summary = derive(rows)
    runs_path = a.output or os.path.join(a.folder, "runs.csv")
    summary_path = a.summary or os.path.join(a.folder, "summary.csv")
    if runs_path == summary_path or "-" not in (runs_path, summary_path) and \
            os.path.realpath(runs_path) == os.path.realpath(summary_path):
        ap.error("the per-run and the per-point CSV are both %s: give them two names" % runs_path)
    # both to temporary names first, put in place only once both are written
    done, created, path = [], [], runs_path
    try:
        for path, fields, data in ((runs_path, RUN_FIELDS, rows), (summary_path, SUMMARY_FIELDS, summary)):
            tmp, final = staging(path)
            write_csv(tmp, fields, data, created if final is not None else None)
            if final is not None:
                done.append((tmp, final))
        for tmp, final in done:
            os.replace(tmp, final)
            created.remove(tmp)
    except OSError as e:
        for tmp in created:   # only what this run made: a write that failed part way too
            try:
                os.remove(tmp)
            except OSError:
                pass
        print("collect.py: cannot write %s: %s" % (path, e.strerror or e), file=sys.stderr)
        return 1
    if "-" not in (runs_path, summary_path):
        print("collect.py: %d runs -> %s, %d points -> %s"
              % (len(rows), runs_path, len(summary), summary_path), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
