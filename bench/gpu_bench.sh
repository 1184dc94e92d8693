#!/bin/bash
# CG on 3D Poisson problems and a random matrix with power-law rows: clcg-mpi (untuned and
# autotuned, with and without Jacobi, explicit and scaled), its SpMV in every storage form, and
# CuPy's cg / cuSPARSE SpMV on the same matrices, in one device call; a table last.  Our CG runs
# drive one device (--devices-per-rank 1), whatever the machine has.
# usage: bench/gpu_bench.sh OUTDIR [SIZES]     (run in a built tree on the GPU machine)
set -u
export LC_ALL=C   # numbers with a decimal point (awk, printf, gnuplot), whatever the locale
out=${1:-bench-out}
sizes=${2:-"128 256"}
its=${CLCG_BENCH_ITERATIONS:-100}
reps=${CLCG_BENCH_REPEATS:-3}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
bin=${CLCG_BIN:-./clcg-mpi}
{ date -u; uname -n; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null; } >"$out/machine.txt"
for n in $sizes; do
  for pc in none jacobi jacobi-scaled; do
    for tune in no-tune tune; do
      popt="--precond $pc"
      [ $pc = jacobi-scaled ] && popt="--precond jacobi --jacobi-scaled"
      cmd="$bin --generate poisson3d:$n $popt --rtol 1e-30 --max-iterations $its --repeat $reps --devices-per-rank 1 --profile --$tune --tune-cache $out/tune.txt --json $out/clcg-$n-$pc-$tune.json"
      echo "\$ $cmd" >"$out/clcg-$n-$pc-$tune.txt"
      $cmd >>"$out/clcg-$n-$pc-$tune.txt" 2>&1
    done
  done
  if python3 -c 'import cupy' 2>/dev/null; then
    python3 "$here/cupy_cg.py" "$n" "$its" "$reps" >"$out/cupy-$n.jsonl" 2>"$out/cupy-$n.err"
  fi
done
# irregular rows: SpMV in every storage form and CG, against cuSPARSE and CuPy on the same matrix
rnd=${CLCG_BENCH_RANDOM:-random:5000000,16}
if [ -n "$rnd" ]; then
  bdir=$(dirname "$bin")/bench
  CLCG_DUMP_CSR="$out/rnd" "$bdir/bench_spmv" "$rnd" >"$out/spmv-random.txt" 2>&1
  if python3 -c 'import cupy' 2>/dev/null; then
    python3 "$here/cupy_file.py" "$out/rnd" "$its" "$reps" >"$out/cupy-random.jsonl" 2>"$out/cupy-random.err"
  fi
  rm -f "$out"/rnd.*.i32 "$out"/rnd.val.f64
  for pc in none jacobi; do
    $bin --generate "$rnd" --precond $pc --rtol 1e-30 --max-iterations $its --repeat $reps --devices-per-rank 1 --profile \
      --json "$out/clcg-random-$pc.json" >"$out/clcg-random-$pc.txt" 2>&1
  done
  "$bdir/bench_spmv" poisson3d:$(echo $sizes | awk '{print $NF}') >"$out/spmv-poisson.txt" 2>&1
fi
python3 "$here/summarize.py" "$out"
