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
# the threaded loader: the text mapped and parsed in pieces (forced on a small file), a general
# file's mirrors and duplicates, then the binary form written and read back by threads
awk 'NR == 1 { sub(/symmetric/, "general"); print; next } /^%/ { print; next }
     !s { s = 1; e = $3; nd = 0; next } { k++; r[k] = $1; c[k] = $2; v[k] = $3 }
     END { n = 0; for (i = 1; i <= k; i++) { n++; if (r[i] != c[i]) n++ } n += 3
           print 49, 49, n
           for (i = 1; i <= k; i++) { print r[i], c[i], v[i]; if (r[i] != c[i]) print c[i], r[i], v[i] }
           print 1, 1, 0.5; print 1, 1, -0.25; print 1, 1, -0.25 }' "$t/a.mtx" >"$t/g.mtx"
CLCG_PARSE_MIN=1 $vg "$CLCG_BIN" --reference "$t/g.mtx" --write-binary "$t/g.bin" -q 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && [ -s "$t/g.bin" ]; ok $? "threaded parse and assembly of a general file with duplicates, binary written, clean under valgrind (rc=$rc)"
$vg "$CLCG_BIN" --reference "$t/g.bin" -o "$t/y.mtx" -q 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && cmp -s "$t/x.mtx" "$t/y.mtx"; ok $? "binary read by threads, the same solution as from the text, clean under valgrind (rc=$rc)"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 4 9\n2 2 4\n' >"$t/junk.mtx"
CLCG_PARSE_MIN=1 $vg "$CLCG_BIN" --reference "$t/junk.mtx" 2>"$t/err"; rc=$?
[ $rc -eq 3 ]; ok $? "bad input is refused cleanly under valgrind (rc=$rc)"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 3\n1 1 1\n2 1 3\n2 2 2\n' >"$t/indef.mtx"
$vg "$CLCG_BIN" --reference "$t/indef.mtx" 2>"$t/err"; rc=$?
[ $rc -eq 4 ]; ok $? "breakdown on an indefinite matrix is clean under valgrind (rc=$rc)"
done_testing
