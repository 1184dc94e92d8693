# TAP helpers for the shell tests; source this file.
tap_n=0
ok() {   # ok CONDITION-EXIT-STATUS DESCRIPTION
  tap_n=$((tap_n + 1))
  if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2"; else echo "not ok $tap_n - $2"; fi
}
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1 # SKIP ${2:-}"; }
diag() { echo "# $*"; }
done_testing() { echo "1..$tap_n"; }
run_np() {  # run_np NP ARGS... : clcg-mpi on NP ranks
  np=$1; shift
  $MPIEXEC -n "$np" "$CLCG_BIN" "$@"
}
json_num() {  # json_num FILE KEY: first numeric value of "KEY": in a JSON record
  sed -n "s/.*\"$2\": *\([-+0-9.eE]*\).*/\1/p" "$1" | head -n 1
}
json_str() {  # json_str FILE KEY
  sed -n "s/.*\"$2\": *\"\([^\"]*\)\".*/\1/p" "$1" | head -n 1
}
le() {  # le A B: true when the number A <= B (A not a number, such as nan or inf: false)
  awk -v a="$1" -v b="$2" 'BEGIN { exit !(a ~ /^[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?$/ && a + 0 <= b + 0) }'
}
absdiff_le() {  # absdiff_le A B D: |A-B| <= D
  awk -v a="$1" -v b="$2" -v d="$3" 'BEGIN { x = a - b; if (x < 0) x = -x; exit !(a != "" && b != "" && x <= d) }'
}
wait_tmp() {  # wait_tmp DIR PID [SECONDS]: until a temporary file (*tmp*) is in DIR (0), or PID
  # has ended or the time is up (1); bounded by time, not a count of polls, for slow machines
  wt_end=$(( $(date +%s) + ${3:-120} ))
  until ls "$1" | grep -q tmp; do
    kill -0 "$2" 2>/dev/null && [ "$(date +%s)" -lt "$wt_end" ] || return 1
    sleep 0.02
  done
}
errors() {  # errors FILE: the error lines in FILE (a warning, such as ranks sharing a GPU, is none)
  grep '^clcg-mpi: ' "$1" | grep -vc '^clcg-mpi: warning: '
}
mem_below_gb() {  # mem_below_gb G: this machine has less than G GB of memory and swap free
  awk -v g="$1" '/^(MemAvailable|SwapFree):/ { kb += $2 } END { exit !(kb > 0 && kb / 1e6 < g) }' /proc/meminfo
}
have_matrices() { [ -n "${CLCG_MATRICES:-}" ] && [ -d "$CLCG_MATRICES/spd" ]; }
RESIDUAL_CHECK="${abs_top_builddir:-.}/tests/residual_check"
residual() {  # residual MATRIX X [RHS]: ||b-Ax||/||b|| computed outside the solver
  $MPIEXEC -n 1 "$RESIDUAL_CHECK" "$@"
}
