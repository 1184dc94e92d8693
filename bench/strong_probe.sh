#!/bin/bash
# Strong scaling at one size on a 2-GPU machine, several configurations in interleaved rounds
# (so that drift of the machine falls on all of them alike); then the kernel timeline of each
# configuration that CLCG_PROBE_TIMELINE names.  A configuration is "label|env|mpirun options|clcg
# options" (the clcg options may name another --generate).  Prints ms per iteration last.
# A label ending in "-np" runs without --json and reads the time from the report's last line.
# (Until 2026-11-27 15:50 UTC a --json record profiled every launch, so "-np" was the only
# unprofiled form; since, both are, unless the configuration passes --profile.)
# usage: bench/strong_probe.sh OUTDIR [ROUNDS] [SIZE]     (in a built tree on the GPU machine)
set -u
export LC_ALL=C   # numbers with a decimal point (awk, printf, gnuplot), whatever the locale
out=${1:-probe-out}
rounds=${2:-3}
size=${3:-poisson3d:256}
case $rounds in ''|*[!0-9]*|0*) echo "strong_probe.sh: ROUNDS '$rounds' is not a positive whole number" >&2; exit 2 ;; esac
mkdir -p "$out" || exit 2
failed=0
bin=${CLCG_BIN:-./clcg-mpi}
common="--precond none --rtol 1e-30 --max-iterations 100 --repeat 3 --no-tune --devices-per-rank 1"
configs=${CLCG_PROBE_CONFIGS:-"1gpu||-n 1 --bind-to none|
2r-none||-n 2 --bind-to none|--exchange neighbor
2r-pe8||-n 2 --map-by slot:PE=8 --bind-to core|--exchange neighbor"}
# this call's figures alone: an earlier call's records and table (those of these labels) go first
rm -f "$out/table.txt"
while IFS='|' read -r label _; do
  [ -n "$label" ] && rm -f "$out/$label-"[0-9]*.json "$out/$label-"[0-9]*.txt "$out/timeline-$label.txt"
done <<<"$configs"
{ date -u; uname -n; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nvidia-smi topo -m; lscpu | grep -E 'Model name|NUMA|Socket'; } >"$out/machine.txt" 2>&1
cat "$out/machine.txt"
for r in $(seq 1 "$rounds"); do
  i=0
  while IFS='|' read -r label envs mopts copts; do
    [ -n "$label" ] || continue
    i=$((i + 1))
    j="$out/$label-$r.json"
    case " $copts " in *" --generate "*) gen= ;; *) gen="--generate $size" ;; esac
    case "$label" in
    *-np)
      env $envs mpirun --allow-run-as-root $mopts "$bin" $gen $common $copts </dev/null >"$out/$label-$r.txt" 2>&1
      rc=$?
      ms=$(sed -n 's/.*(\([0-9.]*\) ms per iteration).*/\1/p' "$out/$label-$r.txt" | tail -n 1)
      { [ -n "$ms" ] && [ $rc -le 1 ]; } || ms=fail ;;
    *)
      env $envs mpirun --allow-run-as-root $mopts "$bin" $gen $common $copts -q --json "$j" </dev/null >"$out/$label-$r.txt" 2>&1 ||
        [ $? -eq 1 ] || rm -f "$j"   # exit 1: the iteration limit these runs reach on purpose
      ms=$(python3 -c "import json, sys; print('%.4f' % (1e3*json.load(open(sys.argv[1]))['times']['per_iteration']))" "$j" 2>/dev/null || echo fail) ;;
    esac
    [ "$ms" != fail ] || { failed=1; echo "strong_probe.sh: $label round $r failed: see $out/$label-$r.txt" >&2; }
    echo "$label round $r: $ms" | tee -a "$out/table.txt"
  done <<<"$configs"
done
while IFS='|' read -r label envs mopts copts; do   # kernel timelines (the last 16 kernels)
  [ -n "$label" ] || continue
  case " $copts " in *" --generate "*) gen= ;; *) gen="--generate $size" ;; esac
  env $envs CLCG_PROF_TIMELINE=16 mpirun --allow-run-as-root $mopts "$bin" $gen $common $copts --profile -q \
    </dev/null >"$out/timeline-$label.txt" 2>&1
  echo "timeline of $label:"; grep timeline: "$out/timeline-$label.txt" | tail -n 16
done <<<"${CLCG_PROBE_TIMELINE:-}"
sort "$out/table.txt"
exit $failed
