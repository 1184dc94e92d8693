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
