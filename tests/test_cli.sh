#!/bin/sh
# Command-line errors: each gets exit status 2 and one message; --help and --version work.
. "${srcdir:-.}/tests/tap.sh"
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT

usage_error() {  # usage_error DESCRIPTION ARGS...
  d=$1; shift
  "$CLCG_BIN" "$@" >"$t/out" 2>"$t/err"; rc=$?
  n=$(wc -l <"$t/err")
  [ $rc -eq 2 ] && [ "$n" -eq 1 ] && grep -q '^clcg-mpi: ' "$t/err"
  ok $? "$d: exit 2 and one message (rc=$rc: $(head -c 200 "$t/err"))"
}

"$CLCG_BIN" --help >"$t/out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q '^Usage: clcg-mpi' "$t/out" && grep -q -- '--precond' "$t/out" && grep -q 'Exit status' "$t/out"
ok $? "--help prints the usage and exits 0"
"$CLCG_BIN" --version >"$t/out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q '^clcg-mpi [0-9]' "$t/out"
ok $? "--version"

usage_error "no matrix"
usage_error "unknown option" --frobnicate x.mtx
usage_error "missing argument" x.mtx --rtol
usage_error "rtol not a number" --rtol abc x.mtx
usage_error "rtol out of range" --rtol 2 x.mtx
usage_error "rtol zero" --rtol 0 x.mtx
usage_error "negative iteration limit" --max-iterations -1 x.mtx
usage_error "iteration limit with junk" --max-iterations 10x x.mtx
usage_error "unknown preconditioner" --precond ilu x.mtx
usage_error "unknown exchange" --exchange broadcast x.mtx
usage_error "unknown format" --format coo x.mtx
usage_error "two matrices" a.mtx b.mtx
usage_error "matrix and --generate" a.mtx --generate poisson2d:4
usage_error "unknown generator" --generate cube:4
usage_error "generator without size" --generate poisson3d
usage_error "generator with bad size" --generate poisson3d:0
usage_error "bad device type" --device-type fpga x.mtx
usage_error "tune and no-tune" --tune --no-tune x.mtx

"$CLCG_BIN" "$t/missing.mtx" >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 3 ] && grep -q "missing.mtx" "$t/err" && [ "$(wc -l <"$t/err")" -eq 1 ]
ok $? "missing matrix file: exit 3 naming the file"

"$CLCG_BIN" --reference --generate poisson2d:6 -o "$t/nodir/x.mtx" >"$t/out" 2>"$t/err"; rc=$?
[ $rc -ne 0 ] && [ ! -e "$t/nodir/x.mtx" ] && grep -q "x.mtx" "$t/err"
ok $? "unwritable output: non-zero exit (rc=$rc), message names the file"

"$CLCG_BIN" --reference --generate poisson2d:6 --max-iterations 2 -o "$t/x.mtx" >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 1 ] && [ ! -e "$t/x.mtx" ] && grep -q "NOT converged" "$t/out"
ok $? "iteration limit: exit 1, no solution file"

done_testing
