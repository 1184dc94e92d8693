#!/bin/bash
# CG on 3D Poisson problems: clcg-mpi (untuned and autotuned, with and without Jacobi) and
# CuPy's cg / cuSPARSE SpMV on the same matrix, in one go; a table last.
# usage: bench/gpu_bench.sh OUTDIR [SIZES]     (run in a built tree on the GPU machine)
set -u
out=${1:-bench-out}
sizes=${2:-"128 256"}
its=${CLCG_BENCH_ITERATIONS:-100}
reps=${CLCG_BENCH_REPEATS:-3}
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
bin=${CLCG_BIN:-./clcg-mpi}
{ date -u; uname -n; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null; } >"$out/machine.txt"
for n in $sizes; do
  for pc in none jacobi; do
    for tune in no-tune tune; do
      cmd="$bin --generate poisson3d:$n --precond $pc --rtol 1e-30 --max-iterations $its --repeat $reps --profile --$tune --tune-cache $out/tune.txt --json $out/clcg-$n-$pc-$tune.json"
      echo "\$ $cmd" >"$out/clcg-$n-$pc-$tune.txt"
      $cmd >>"$out/clcg-$n-$pc-$tune.txt" 2>&1
    done
  done
  if python3 -c 'import cupy' 2>/dev/null; then
    python3 "$here/cupy_cg.py" "$n" "$its" "$reps" >"$out/cupy-$n.jsonl" 2>"$out/cupy-$n.err"
  fi
done
python3 "$here/summarize.py" "$out"
