#!/bin/bash
# The measurements of one multi-GPU machine: model parameters (bench_comm), strong and weak
# scaling of Poisson 256^3 through the project's scaling scripts (every exchange mode; one
# rank per GPU), one rank driving every GPU, and the CG variants on the most ranks.
# usage: bench/scaling_node.sh OUTDIR [RANKS]      RANKS: rank counts, default "1 2"
#   (the machine needs as many GPUs as the largest count; CLCG_SCALING_N: grid edge, 256)
set -u
export LC_ALL=C   # numbers with a decimal point (awk, printf, gnuplot), whatever the locale
out=${1:-scaling-out}
ranks=${2:-1 2}
for r in $ranks; do
  case $r in ''|*[!0-9]*|0*) echo "scaling_node.sh: rank count '$r' is not a positive whole number" >&2; exit 2 ;; esac
done
[ -n "$ranks" ] || { echo "scaling_node.sh: no rank counts given" >&2; exit 2; }
maxr=$(echo $ranks | tr ' ' '\n' | sort -n | tail -n 1)
# this call's figures alone: an earlier call's records would be collected with them
[ -z "$(ls -A "$out/series" 2>/dev/null)" ] ||
  { echo "scaling_node.sh: $out/series holds an earlier call's records: give another OUTDIR" >&2; exit 2; }
mkdir -p "$out/series" || exit 2
failed=0
ok1() { [ "$1" -le 1 ] || { echo "scaling_node.sh: $2 failed (exit $1)" >&2; failed=1; }; }   # 1: the iteration limit, on purpose
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${CLCG_BIN:-$here/clcg-mpi}
mpi="mpirun --allow-run-as-root --bind-to none"
common="--rtol 1e-30 --max-iterations 100 --repeat 3 --precond none --profile --devices-per-rank 1"
{ date -u; uname -n; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi topo -m; } >"$out/machine.txt" 2>&1
[ -x "$here/bench/bench_comm" ] || make -C "$here" bench/bench_comm >/dev/null
$mpi -n $(( maxr > 2 ? maxr : 2 )) "$here/bench/bench_comm" >"$out/comm.json" 2>&1   # the slab halo too, on 3 ranks or more
ok1 $(( $? ? 2 : 0 )) bench_comm
cat "$out/comm.json"
# strong and weak series, one rank per GPU
MPIEXEC="$mpi" "$here/scripts/scaling/run-series.sh" --strong --ranks "$ranks" --size poisson3d:${CLCG_SCALING_N:-256} \
  --exchange "allgather needed neighbor" --precond none --out "$out/series" --bin "$bin" -- $common
ok1 $(( $? ? 2 : 0 )) "the strong series"
MPIEXEC="$mpi" "$here/scripts/scaling/run-series.sh" --weak --ranks "$ranks" --size poisson3d:${CLCG_SCALING_N:-256},${CLCG_SCALING_N:-256},${CLCG_SCALING_N:-256} \
  --exchange "needed neighbor" --precond none --out "$out/series" --bin "$bin" -- $common
ok1 $(( $? ? 2 : 0 )) "the weak series"
# one rank driving every GPU; the variants on the most ranks
$mpi -n 1 "$bin" --generate poisson3d:${CLCG_SCALING_N:-256} $common --devices-per-rank $maxr --json "$out/series/extra-${maxr}dev.json" -q
ok1 $? "one rank of $maxr devices"
for v in standard single-reduction pipelined; do
  for ex in needed neighbor; do
    $mpi -n $maxr "$bin" --generate poisson3d:${CLCG_SCALING_N:-256} --exchange $ex --variant $v $common --json "$out/series/extra-$v-$ex.json" -q
    ok1 $? "$v, $ex, $maxr ranks"
  done
done
python3 "$here/scripts/scaling/collect.py" "$out/series" -o "$out/runs.csv" --summary "$out/summary.csv" || failed=1
bash "$here/scripts/scaling/plot.sh" "$out/summary.csv" "$out/plots" >/dev/null 2>&1
for f in "$out"/series/extra-*.json; do
  [ -e "$f" ] || continue
  # per timed iteration, as per_iteration is (the exchange and allreduce times are the timed solve's)
  python3 -c "import json, os, sys
r = json.load(open(sys.argv[1])); t = r['times']; k = max(1, r.get('timed_iterations') or r['iterations_run'])
print(os.path.basename(sys.argv[1]), 'ms/it %.4f' % (1e3 * t['per_iteration']), 'exchange %.4f ms/it' % (1e3 * t['exchange'] / k),
      'allreduce %.4f ms/it' % (1e3 * t['allreduce'] / k))" "$f"
done
cut -d, -f1-12 "$out/summary.csv"
exit $failed
