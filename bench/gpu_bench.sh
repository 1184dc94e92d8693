#!/bin/bash
# CG on 3D Poisson problems and a random matrix with power-law rows: clcg-mpi (untuned and
# autotuned, with and without Jacobi, explicit and scaled), its SpMV in every storage form, and
# CuPy's cg / cuSPARSE SpMV on the same matrices, in one device call; the tables last, the
# summary at the very end.  Our CG runs drive one device (--devices-per-rank 1), whatever the
# machine has.  Every output is made afresh (an earlier call's files in OUTDIR are removed
# first, so that none is reported as this call's); a run that fails is named on stderr and
# makes the exit status 1, after the tables of what did run.
# usage: bench/gpu_bench.sh OUTDIR [SIZES]     (run in a built tree on the GPU machine)
#   SIZES                  Poisson grid sizes N (poisson3d:N), default "128 256"
#   CLCG_BENCH_ITERATIONS  CG iterations timed per solve (default 100)
#   CLCG_BENCH_REPEATS     timed solves per case, the median reported (default 3, at most 64)
#   CLCG_BENCH_RANDOM      the random matrix's --generate spec (default random:5000000,16;
#                          empty: none)
#   CLCG_BENCH_BW          the copy bandwidth in bytes/s the floor is taken at (default 3.99e12,
#                          OpenCL copy on an H200)
#   CLCG_BIN               the clcg-mpi binary (default ./clcg-mpi; bench/ beside it)
set -u
export LC_ALL=C   # numbers with a decimal point (awk, printf, gnuplot), whatever the locale
die() { echo "gpu_bench.sh: $*" >&2; exit 2; }
out=${1:-bench-out}
sizes=${2:-"128 256"}
its=${CLCG_BENCH_ITERATIONS:-100}
reps=${CLCG_BENCH_REPEATS:-3}
rnd=${CLCG_BENCH_RANDOM-random:5000000,16}
bw=${CLCG_BENCH_BW:-3.99e12}
for n in $sizes; do
  case $n in ''|*[!0-9]*|0*) die "size '$n' is not a positive whole number (SIZES: grid sizes N of poisson3d:N)" ;; esac
done
[ -n "$sizes" ] || die "no sizes given"
case $its in ''|*[!0-9]*|0*) die "CLCG_BENCH_ITERATIONS '$its' is not a positive whole number" ;; esac
case $reps in ''|*[!0-9]*|0*) die "CLCG_BENCH_REPEATS '$reps' is not a positive whole number" ;; esac
[ "$reps" -le 64 ] || die "CLCG_BENCH_REPEATS $reps: clcg-mpi --repeat takes at most 64"
awk -v b="$bw" 'BEGIN { exit !(b + 0 > 0 && b ~ /^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/) }' || die "CLCG_BENCH_BW '$bw' is not a positive number of bytes/s"
here=$(cd "$(dirname "$0")" && pwd)
bin=${CLCG_BIN:-./clcg-mpi}
bdir=$(dirname "$bin")/bench
[ -x "$bin" ] || die "$bin: not found or not executable (build first, or set CLCG_BIN)"
mkdir -p "$out" || die "cannot make $out"
# (what this script writes and summarize.py reads; the tuning cache stays: --tune searches anew)
rm -f "$out"/clcg-*.json "$out"/clcg-*.txt "$out"/cupy-*.jsonl "$out"/cupy-*.err "$out/spmv-random.txt" \
  "$out/spmv-poisson.txt" "$out/machine.txt" "$out/rnd.rowptr.i32" "$out/rnd.col.i32" "$out/rnd.val.f64"
failed=0
fail() { echo "gpu_bench.sh: $1 failed (exit $2): see $3" >&2; failed=1; }
# clcg-mpi at the iteration limit (exit 1) is what fixed-iteration timing runs reach on purpose
clcg() {   # clcg NAME ARGS...: one run of ours, its report in NAME.txt, its record in NAME.json
  local name=$1; shift
  echo "\$ $bin $* --json $out/$name.json" >"$out/$name.txt"
  "$bin" "$@" --json "$out/$name.json" >>"$out/$name.txt" 2>&1
  local rc=$?
  { [ $rc -le 1 ] && [ -s "$out/$name.json" ]; } || { rm -f "$out/$name.json"; fail "$name" $rc "$out/$name.txt"; }
}
have_cupy=0
python3 -c 'import cupy' 2>/dev/null && have_cupy=1
{ date -u; uname -n; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null; } >"$out/machine.txt"
for n in $sizes; do
  for pc in none jacobi jacobi-scaled; do
    for tune in no-tune tune; do
      popt="--precond $pc"
      [ $pc = jacobi-scaled ] && popt="--precond jacobi --jacobi-scaled"
      # shellcheck disable=SC2086  # popt is two or three words
      clcg "clcg-$n-$pc-$tune" --generate poisson3d:$n $popt --rtol 1e-30 --max-iterations "$its" --repeat "$reps" \
        --devices-per-rank 1 --profile --$tune --tune-cache "$out/tune.txt"
    done
  done
  if [ $have_cupy = 1 ]; then
    python3 "$here/cupy_cg.py" "$n" "$its" "$reps" >"$out/cupy-$n.jsonl" 2>"$out/cupy-$n.err" ||
      { rc=$?; rm -f "$out/cupy-$n.jsonl"; fail "cupy_cg.py $n" $rc "$out/cupy-$n.err"; }
  fi
done
# irregular rows: SpMV in every storage form and CG, against cuSPARSE and CuPy on the same matrix
if [ -n "$rnd" ]; then
  CLCG_DUMP_CSR="$out/rnd" "$bdir/bench_spmv" "$rnd" >"$out/spmv-random.txt" 2>&1 ||
    fail "bench_spmv $rnd" $? "$out/spmv-random.txt"
  if [ $have_cupy = 1 ] && [ -s "$out/rnd.val.f64" ]; then
    python3 "$here/cupy_file.py" "$out/rnd" "$its" "$reps" >"$out/cupy-random.jsonl" 2>"$out/cupy-random.err" ||
      { rc=$?; rm -f "$out/cupy-random.jsonl"; fail "cupy_file.py $rnd" $rc "$out/cupy-random.err"; }
  fi
  rm -f "$out"/rnd.*.i32 "$out"/rnd.val.f64
  for pc in none jacobi; do
    clcg "clcg-random-$pc" --generate "$rnd" --precond $pc --rtol 1e-30 --max-iterations "$its" --repeat "$reps" \
      --devices-per-rank 1 --profile --no-tune
  done
fi
last=$(echo $sizes | awk '{print $NF}')
"$bdir/bench_spmv" "poisson3d:$last" >"$out/spmv-poisson.txt" 2>&1 || fail "bench_spmv poisson3d:$last" $? "$out/spmv-poisson.txt"
python3 "$here/summarize.py" "$out" "$bw" || failed=1
exit $failed
