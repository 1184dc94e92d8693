#!/bin/sh
# The host path (reader, assembly, reference CG, reports) under valgrind memcheck.
. "${srcdir:-.}/tests/tap.sh"
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
if [ -z "${VALGRIND:-}" ]; then skip "valgrind" "not installed"; done_testing; exit 0; fi
vg="$VALGRIND -q --error-exitcode=99 --suppressions=${srcdir:-.}/tests/valgrind.supp"
"$CLCG_BIN" -q --generate poisson2d:7 --write-matrix "$t/a.mtx"
gzip -c "$t/a.mtx" >"$t/a.mtx.gz"
$vg "$CLCG_BIN" --reference "$t/a.mtx.gz" -o "$t/x.mtx" --json "$t/r.json" -q 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && [ -s "$t/x.mtx" ]; ok $? "reference solve of a gzip file is clean under valgrind (rc=$rc)"
$vg "$CLCG_BIN" --reference --generate poisson3d:5 --precond none -q 2>"$t/err"; rc=$?
[ $rc -eq 0 ]; ok $? "generated problem, no preconditioner, clean under valgrind (rc=$rc)"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 4 9\n2 2 4\n' >"$t/junk.mtx"
$vg "$CLCG_BIN" --reference "$t/junk.mtx" 2>"$t/err"; rc=$?
[ $rc -eq 3 ]; ok $? "bad input is refused cleanly under valgrind (rc=$rc)"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 1\n2 1 3\n2 2 2\n' >"$t/indef.mtx"
$vg "$CLCG_BIN" --reference "$t/indef.mtx" 2>"$t/err"; rc=$?
[ $rc -eq 4 ]; ok $? "breakdown on an indefinite matrix is clean under valgrind (rc=$rc)"
done_testing
