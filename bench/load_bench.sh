#!/bin/bash
# Load times of one large matrix: the Matrix Market text and the binary form, on 1 rank
# (singleton and under mpirun) and on several ranks, with --load-only; one line per run,
# the program's own read / partition / setup split and the wall time of the whole command.
# usage: bench/load_bench.sh OUTDIR [PROBLEM] [RANKS] [CORES]      (in a built tree)
#   PROBLEM: a generator spec (default poisson3d:256); RANKS: mpirun rank counts ("2 4 8");
#   CORES: also run 1 and RANKS ranks with CORES cores each, bound (--map-by slot:PE=CORES
#   --bind-to core: as when every rank brings its own cores, as on separate nodes); rows
#   "PxCc".  Without it the ranks share the machine's cores (--bind-to none).
set -u
export LC_ALL=C   # numbers with a decimal point (awk, printf, gnuplot), whatever the locale
out=${1:-load-out}
prob=${2:-poisson3d:256}
ranks=${3:-"2 4 8"}
cores=${4:-}
bin=${CLCG_BIN:-./clcg-mpi}
mpi=${MPIEXEC:-mpirun --allow-run-as-root --bind-to none}
mpib=${MPIEXEC_BOUND:-mpirun --allow-run-as-root}
mkdir -p "$out"
# files of this call alone: two calls at once (another user's, on a shared /tmp) must not
# time each other's matrix
work=$(mktemp -d "${CLCG_LOAD_DIR:-/tmp}/load-bench.XXXXXX") || { echo "load_bench.sh: cannot make a folder in ${CLCG_LOAD_DIR:-/tmp}" >&2; exit 2; }
trap 'rm -rf "$work"' EXIT
mtx=$work/load-bench.mtx
bin_file=$work/load-bench.bin
rm -f "$out/failed.txt"
wall() {   # wall seconds of a command, its output kept; "fail" for one that failed (named in failed.txt)
  local t0 t1 rc
  t0=$(date +%s.%N)
  "$@" >"$out/last.txt" 2>&1
  rc=$?
  t1=$(date +%s.%N)
  if [ $rc -ne 0 ]; then
    { echo "$* (exit $rc):"; head -n 3 "$out/last.txt"; } >>"$out/failed.txt"
    : >"$out/last.txt"
    echo fail
    return
  fi
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}
{ date -u; uname -n; nproc; } >"$out/machine.txt"
w=$(wall $bin --generate "$prob" --write-matrix "$mtx"); echo "write .mtx: $w s ($(stat -c %s "$mtx") bytes)" | tee "$out/load.txt"
w=$(wall $bin "$mtx" --write-binary "$bin_file"); echo "write binary from .mtx: $w s ($(stat -c %s "$bin_file") bytes)" | tee -a "$out/load.txt"
cat "$mtx" "$bin_file" >/dev/null   # both in the page cache
printf '%-7s %-10s %7s %7s %9s %7s\n' input ranks wall read partition setup | tee -a "$out/load.txt"
for f in "$mtx" "$bin_file"; do
  kind=$([ "$f" = "$mtx" ] && echo .mtx || echo binary)
  bound=""
  [ -n "$cores" ] && for r in 1 $ranks; do bound="$bound ${r}x${cores}c"; done
  for r in singleton 1 $ranks $bound; do
    for rep in 1 2; do
      case $r in
        singleton) w=$(wall $bin "$f" --load-only) ;;
        *x*c) w=$(wall $mpib -n "${r%%x*}" --map-by "slot:PE=$cores" --bind-to core $bin "$f" --load-only) ;;
        *) w=$(wall $mpi -n "$r" $bin "$f" --load-only) ;;
      esac
      line=$(grep -o 'read [0-9.]* s, partition [0-9.]* s, setup [0-9.]* s' "$out/last.txt" | awk '{print $2, $5, $8}')
      printf '%-7s %-10s %7s %7s %9s %7s\n' "$kind" "$r" "$w" $line | tee -a "$out/load.txt"
    done
  done
done
if [ -s "$out/failed.txt" ]; then
  echo "load_bench.sh: runs failed (their rows say fail):" >&2
  cat "$out/failed.txt" >&2
  exit 1
fi
