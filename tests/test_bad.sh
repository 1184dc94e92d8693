#!/bin/sh
# Hostile inputs: each gets either a right answer or one clear message naming the file,
# a documented non-zero exit status, no output file and no hang; on 1, 2 and (the shared
# files) 3 ranks.
. "${srcdir:-.}/tests/tap.sh"
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT

check_error() {  # check_error FILE NP [EXIT-CODES]
  f=$1; np=$2; codes=${3:-"3 4"}
  rm -f "$t/x.mtx"
  timeout 120 $MPIEXEC -n "$np" "$CLCG_BIN" "$f" -o "$t/x.mtx" </dev/null >"$t/out" 2>"$t/err"; rc=$?
  msgs=$(errors "$t/err")
  good=1
  case " $codes " in *" $rc "*) ;; *) good=0 ;; esac
  [ "$msgs" -eq 1 ] || good=0
  grep -q "$(basename "$f")" "$t/err" || good=0
  [ -e "$t/x.mtx" ] && good=0
  ls "$t" | grep -q 'x.mtx.tmp' && good=0
  grep -qi 'nan' "$t/out" && good=0
  [ $good -eq 1 ]
  ok $? "$(basename "$f") on $np rank(s): refused, exit $rc, $(head -c 160 "$t/err" | tr '\n' ' ')"
}

check_valid() {  # check_valid FILE NP
  f=$1; np=$2
  rm -f "$t/x.mtx"
  timeout 120 $MPIEXEC -n "$np" "$CLCG_BIN" "$f" -o "$t/x.mtx" </dev/null >"$t/out" 2>"$t/err"; rc=$?
  r=$(residual "$f" "$t/x.mtx" 2>/dev/null)
  [ $rc -eq 0 ] && le "$r" 1e-7
  ok $? "$(basename "$f") on $np rank(s): solved, true residual $r (rc=$rc $(head -c 160 "$t/err"))"
}

refused_naming() {  # refused_naming FILE NP PATTERN: exit 3, and the message holds PATTERN
  check_error "$1" "$2" 3
  grep -q -- "$3" "$t/err"
  ok $? "$(basename "$1") on $2 rank(s): the message names it ($3)"
}

# our own small hostile inputs, always tested
mm() { printf '%%%%MatrixMarket matrix coordinate real %s\n' "$1"; }
{ mm general; printf '2 2 3\n1 1 4\n2 2 4\n'; } >"$t/short.mtx"
{ mm general; printf '2 2 2\n1 1 4\n2 2 x4\n'; } >"$t/word.mtx"
{ mm general; printf '2 2 3\n1 1 4\n1 2 1\n2 2 4\n'; } >"$t/unsym.mtx"
{ mm symmetric; printf '2 2 3\n1 1 1\n2 1 3\n2 2 2\n'; } >"$t/indef.mtx"
{ mm symmetric; printf '2 2 2\n1 1 -1\n2 2 -1\n'; } >"$t/negdef.mtx"
{ mm symmetric; printf '3 3 2\n1 1 1\n2 2 1\n'; } >"$t/emptyrow.mtx"
{ mm general; printf '2 2 2\n1 1 1e400\n2 2 1\n'; } >"$t/huge.mtx"
printf 'not a matrix\n' >"$t/nobanner.mtx"
: >"$t/empty.mtx"
for f in short word unsym huge nobanner empty; do check_error "$t/$f.mtx" 1 3; done
for f in indef negdef emptyrow; do check_error "$t/$f.mtx" 1 4; done
check_error "$t/word.mtx" 2 3
check_error "$t/indef.mtx" 2 4
# fewer entries than rows: refused from the size line, before anything of size n is made
{ mm symmetric; printf '3000000000 3000000000 1\n1 1 1\n'; } >"$t/hugen.mtx"
for np in 1 2; do
  check_error "$t/hugen.mtx" $np 4
  grep -q 'hugen.mtx:2: 3000000000 rows but 1 entries' "$t/err"; ok $? "hugen.mtx on $np rank(s): the size line is named"
done
# ... but when the file holds more entries than it declares, that is what is wrong (exit 3),
# found at the first extra line (a million follow it here)
{ mm general; printf '3 3 2\n1 1 4\n2 2 4\n3 3 4\n'; } >"$t/extra.mtx"
{ mm symmetric; printf '3000000000 3000000000 1\n'; awk 'BEGIN { for (i = 1; i <= 1000000; i++) print i, i, 1 }'; } >"$t/hugex.mtx"
for np in 1 2; do
  refused_naming "$t/extra.mtx" $np 'extra.mtx:5: more entries than the 2 declared'
  refused_naming "$t/hugex.mtx" $np 'hugex.mtx:4: more entries than the 1 declared'
done
# binary data early in a file of 200 GB (sparse): said at once, not after every rank has
# gone through its share (it ran past a minute); also zeros after an entry's value or after
# the start of a comment, said from the first lines (a search for the line's end went
# through the whole file)
{ mm symmetric; printf '4 4 7\n1 1 4\n'; printf '\000'; } >"$t/zeros.mtx"
{ mm symmetric; printf '4 4 7\n1 1 4 '; } >"$t/zval.mtx"
{ mm symmetric; printf '4 4 7\n1 1 4\n%% '; } >"$t/zcom.mtx"
for c in "zeros 4 after line 3" "zval 3 from line 3 on, after its first bytes" "zcom 4 from line 4 on, after its first bytes"; do
  set -- $c
  f=$1 line=$2
  shift 2
  if truncate -s 200G "$t/$f.mtx" 2>/dev/null; then
    for np in 1 3; do
      timeout 60 $MPIEXEC -n $np "$CLCG_BIN" "$t/$f.mtx" -o "$t/x.mtx" >"$t/out" 2>"$t/err"; rc=$?
      [ $rc -eq 3 ] && [ "$(errors "$t/err")" -eq 1 ] && [ ! -e "$t/x.mtx" ] &&
        grep -q "$f.mtx:$line: binary data (byte 0x00)" "$t/err"
      ok $? "200 GB of zeros $*, $np rank(s): exit $rc within the minute, $(head -c 120 "$t/err")"
    done
  else
    skip "200 GB of zeros $*" "no sparse file of 200 GB here"
  fi
  rm -f "$t/$f.mtx"
done
# a NUL byte in a comment is no text either (a small file: every reader, plain and gzip)
{ mm symmetric; printf '2 2 2\n1 1 1\n%% a \000 comment\n2 2 2\n'; } >"$t/nulc.mtx"
gzip -c "$t/nulc.mtx" >"$t/nulc.mtx.gz"
{ mm symmetric; printf '%% a \000 comment\n2 2 2\n1 1 1\n2 2 2\n'; } >"$t/nulh.mtx"
for np in 1 2; do
  refused_naming "$t/nulc.mtx" $np 'nulc.mtx:4: binary data (byte 0x00)'
  refused_naming "$t/nulc.mtx.gz" $np 'nulc.mtx.gz:4: binary data (byte 0x00)'
  refused_naming "$t/nulh.mtx" $np 'nulh.mtx:2: binary data (byte 0x00)'
done
export CLCG_PARSE_MIN=1   # the parallel parse of a rank's text
refused_naming "$t/nulc.mtx" 2 'nulc.mtx:4: binary data (byte 0x00)'
unset CLCG_PARSE_MIN
# a binary matrix inside gzip, or given as --rhs: named as such (it was "binary data")
"$CLCG_BIN" --generate poisson2d:5 --write-binary "$t/A.bin" -q
gzip -c "$t/A.bin" >"$t/A.bin.gz"
for np in 1 2; do
  refused_naming "$t/A.bin.gz" $np 'A.bin.gz: a clcg binary matrix, which is read only as the matrix, uncompressed, from a regular file'
done
# through a pipe: every rank reads its own part of a binary file, so it must be a regular one
mkfifo "$t/bin.fifo"
for np in 1 2; do
  (cat "$t/A.bin" >"$t/bin.fifo" &)
  refused_naming "$t/bin.fifo" $np 'bin.fifo: a clcg binary matrix, which is read only as the matrix, uncompressed, from a regular file (not through gzip or a pipe'
done
timeout 60 "$CLCG_BIN" --generate poisson2d:5 --rhs "$t/A.bin" -o "$t/x.mtx" >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 3 ] && [ "$(errors "$t/err")" -eq 1 ] && [ ! -e "$t/x.mtx" ] && grep -q 'A.bin: a clcg binary matrix' "$t/err"
ok $? "a binary matrix as --rhs: exit $rc, $(head -c 160 "$t/err")"
# a 1 x 1 right-hand side marked symmetric (as scipy's mmwrite writes it) is that vector; a
# longer one marked so is refused
printf '%%%%MatrixMarket matrix coordinate real symmetric\n1 1 1\n1 1 4\n' >"$t/one.mtx"
printf '%%%%MatrixMarket matrix array real symmetric\n1 1\n2.5\n' >"$t/one_b.mtx"
printf '%%%%MatrixMarket matrix array real symmetric\n2 1\n2.5\n1\n' >"$t/two_b.mtx"
for np in 1 2; do
  rm -f "$t/x.mtx"
  timeout 60 $MPIEXEC -n $np "$CLCG_BIN" "$t/one.mtx" --rhs "$t/one_b.mtx" -o "$t/x.mtx" -q 2>"$t/err"; rc=$?
  [ $rc -eq 0 ] && [ "$(tail -n 1 "$t/x.mtx")" = 0.625 ] && [ "$(errors "$t/err")" -eq 0 ]
  ok $? "a 1 x 1 --rhs marked symmetric, $np rank(s): x = 2.5/4 = $(tail -n 1 "$t/x.mtx" 2>/dev/null) (rc=$rc)"
done
timeout 60 "$CLCG_BIN" --generate poisson2d:2,1 --rhs "$t/two_b.mtx" -o "$t/x.mtx" >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 3 ] && [ "$(errors "$t/err")" -eq 1 ] && grep -q "two_b.mtx:1: a vector must be 'real general'" "$t/err"
ok $? "a 2 x 1 --rhs marked symmetric: exit $rc, $(head -c 160 "$t/err")"
# a block of rows without a boundary condition beside others: singular (1 on the block is a
# null vector) though A*1 as a whole is not small.  A chain Laplacian over 15 of 30 rows,
# spread so that it crosses ranks at most steps, 1000 on the others: refused on 1-3 ranks,
# the same message; with a boundary condition at one end it solves
awk -v bc=0 'BEGIN { m = 15; for (k = 0; k < m; k++) r[k] = 2 * ((7 * k) % m) + 1
  print "%%MatrixMarket matrix coordinate real symmetric"; print 30, 30, (2 * m - 1) + 15
  for (k = 0; k < m; k++) { d = (k > 0) + (k < m - 1) + (k == 0 && bc); print r[k], r[k], d
    if (k < m - 1) { a = r[k]; b = r[k + 1]; if (a < b) { t = a; a = b; b = t }; print a, b, -1 } }
  for (i = 2; i <= 30; i += 2) print i, i, 1000 }' >"$t/chain_nobc.mtx"
sed '3s/^1 1 1$/1 1 2/' "$t/chain_nobc.mtx" >"$t/chain_bc.mtx"
for np in 1 2 3; do
  check_error "$t/chain_nobc.mtx" $np 4
  grep -q 'chain_nobc.mtx: the matrix is singular to double precision: 15 of its rows (row 1 among them) have no entry outside them' "$t/err"
  ok $? "chain_nobc.mtx on $np rank(s): the block is named"
  check_valid "$t/chain_bc.mtx" $np
done
# with --no-symmetry-check the pattern may be one-sided (a boundary row zeroed, its column
# not): no block test there (rows reach columns, not the other way, so the verdict would
# hang on the rank count); this nonsingular matrix, whose middle row sums to zero, is not
# called singular (CG itself, on a nonsymmetric matrix, may or may not get there)
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 1\n2 1 -1\n2 2 2\n2 3 -1\n3 3 1\n' >"$t/onesided.mtx"
for np in 1 2; do
  timeout 60 $MPIEXEC -n $np "$CLCG_BIN" "$t/onesided.mtx" --no-symmetry-check --max-iterations 50 -q 2>"$t/err"; rc=$?
  [ $rc -ne 4 ] && [ $rc -le 1 ] && ! grep -q 'no entry outside them' "$t/err"
  ok $? "a one-sided pattern with --no-symmetry-check, $np rank(s): not called singular (rc=$rc $(head -c 100 "$t/err"))"
done
# an array file's zeros are not kept, but one on the diagonal is named as a zero, not as missing
printf '%%%%MatrixMarket matrix array real symmetric\n3 3\n4\n1\n0\n0\n1\n4\n' >"$t/zdiag_arr.mtx"
for np in 1 2; do
  check_error "$t/zdiag_arr.mtx" $np 4
  grep -q 'zdiag_arr.mtx: diagonal entry A(2,2) = 0 is not positive' "$t/err"
  ok $? "zdiag_arr.mtx on $np rank(s): the zero diagonal entry is named"
done
# more than 16 MiB of comments before the size line: refused, the line it stops in named
{ printf '%%%%MatrixMarket matrix coordinate real symmetric\n'
  awk 'BEGIN { for (i = 0; i < 300000; i++) printf "%% header comment line number %030d\n", i }'
  printf '3 3 4\n1 1 4\n2 1 -1\n2 2 4\n3 3 4\n'; } >"$t/bighead.mtx"
gzip -c "$t/bighead.mtx" >"$t/bighead.mtx.gz"
for np in 1 2; do
  refused_naming "$t/bighead.mtx" $np 'bighead.mtx:279621: no size line in the first 16777216 bytes'
  refused_naming "$t/bighead.mtx.gz" $np 'bighead.mtx.gz:279621: no size line in the first 16777216 bytes'
done
rm -f "$t/bighead.mtx" "$t/bighead.mtx.gz"
# a gzip file of zeros after its first lines: binary data, not a line too long
{ mm symmetric; printf '4 4 4\n1 1 4\n'; head -c 80000000 /dev/zero; } | gzip -1 >"$t/gzz.mtx.gz"
for np in 1 2; do
  refused_naming "$t/gzz.mtx.gz" $np 'gzz.mtx.gz:4: binary data (byte 0x00)'
done
# a NUL byte inside the banner (words compared as C strings would stop there)
printf '%%%%MatrixMarket matrix\000XYZ coordinate real\000junk symmetric\n2 2 2\n1 1 2\n2 2 3\n' >"$t/nul.mtx"
check_error "$t/nul.mtx" 1 3
# values whose A*1 (the right-hand side) overflows in double: solved (scaled for the solve)
{ mm symmetric; printf '2 2 2\n1 1 1e300\n2 2 1e300\n'; } >"$t/big.mtx"
check_valid "$t/big.mtx" 1
check_valid "$t/big.mtx" 2
# a right-hand side whose duplicates sum past double: bad input, its file named (it was exit 4,
# "NaN or Inf in the iteration", naming the matrix)
printf '%%%%MatrixMarket matrix coordinate real general\n2 1 2\n1 1 1e308\n1 1 1e308\n' >"$t/bdup.mtx"
{ mm symmetric; printf '2 2 2\n1 1 2\n2 2 3\n'; } >"$t/two.mtx"
for np in 1 2; do
  rm -f "$t/x.mtx"
  timeout 120 $MPIEXEC -n $np "$CLCG_BIN" "$t/two.mtx" --rhs "$t/bdup.mtx" -o "$t/x.mtx" >"$t/out" 2>"$t/err"; rc=$?
  [ $rc -eq 3 ] && [ "$(errors "$t/err")" -eq 1 ] && [ ! -e "$t/x.mtx" ] &&
    grep -q 'bdup.mtx: entry 1: its duplicate entries sum beyond double precision' "$t/err"
  ok $? "--rhs with duplicates summing past double, $np rank(s): exit $rc, $(head -c 120 "$t/err")"
done
# duplicates (summed, as the format says) whose sum overflows: bad input, not a breakdown
{ mm symmetric; printf '2 2 3\n1 1 1e308\n1 1 1e308\n2 2 1\n'; } >"$t/dupinf.mtx"
{ mm general; printf '2 2 4\n1 1 1\n2 1 -1e308\n2 1 -1e308\n2 2 1\n'; } >"$t/dupinf2.mtx"
for np in 1 2 3; do
  refused_naming "$t/dupinf.mtx" $np 'dupinf.mtx: A(1,1) = inf: its duplicate entries sum beyond double precision'
done
check_error "$t/dupinf2.mtx" 2 3
grep -q 'A(2,1) = -inf' "$t/err"; ok $? "dupinf2.mtx: the entry is named ($(head -c 120 "$t/err"))"
# a general file with both triangles, each summing past double alike: named as such, not
# "not symmetric" (inf - inf) with a hint that --no-symmetry-check would help
{ mm general; printf '2 2 6\n1 1 1\n2 2 1\n1 2 1e308\n1 2 1e308\n2 1 1e308\n2 1 1e308\n'; } >"$t/dupinf3.mtx"
for np in 1 2 3; do
  refused_naming "$t/dupinf3.mtx" $np 'dupinf3.mtx: A(.,.) = inf: its duplicate entries sum beyond double precision'
done
"$CLCG_BIN" "$t/dupinf3.mtx" --write-matrix "$t/w.mtx" 2>"$t/err"; rc=$?
[ $rc -eq 3 ] && [ ! -e "$t/w.mtx" ] && grep -q 'A(.,.) = inf: its duplicate entries sum beyond' "$t/err"
ok $? "dupinf3.mtx --write-matrix: the overflow named (rc=$rc, $(head -c 120 "$t/err"))"
"$CLCG_BIN" "$t/dupinf.mtx" --write-matrix "$t/w.mtx" 2>"$t/err"; rc=$?
[ $rc -eq 3 ] && [ ! -e "$t/w.mtx" ] && grep -q 'A(1,1) = inf' "$t/err"
ok $? "dupinf.mtx --write-matrix: refused (rc=$rc), nothing written"
# fewer entries than a billion rows: --write-matrix refuses it as a solve does, before it
# makes anything of the rows' size (8 GB of row starts, under a 4 GB limit here, where the
# program starts under that limit at all)
{ mm symmetric; printf '1000000000 1000000000 1\n1 1 1\n'; } >"$t/bign.mtx"
if (ulimit -v 4000000; "$CLCG_BIN" --version) >/dev/null 2>&1; then
  (ulimit -v 4000000; "$CLCG_BIN" "$t/bign.mtx" --write-matrix "$t/w.mtx" 2>"$t/err"); rc=$?
else
  "$CLCG_BIN" "$t/bign.mtx" --write-matrix "$t/w.mtx" 2>"$t/err"; rc=$?
fi
[ $rc -eq 4 ] && [ ! -e "$t/w.mtx" ] && grep -q 'bign.mtx:2: 1000000000 rows but 1 entries: a diagonal entry is missing' "$t/err"
ok $? "a billion rows, one entry, --write-matrix: refused as not positive definite (rc=$rc, $(head -c 100 "$t/err"))"
# through a pipe (no file size to bound it) the size line's count of 900 million entries
# must not size the triplets before they come (7.2 GB each, under a 4 GB limit here): the
# file ends after one, and says so, as a regular file does; likewise a --rhs
{ mm general; printf '3 3 900000000\n1 1 1\n'; } >"$t/pipecount.mtx"
{ mm general; printf '2 1 900000000\n1 1 1\n'; } >"$t/piperhs.mtx"
{ mm symmetric; printf '2 2 2\n1 1 2\n2 2 2\n'; } >"$t/d2.mtx"
for how in matrix rhs; do
  if [ $how = matrix ]; then set -- /dev/stdin; f=pipecount.mtx; else set -- --rhs /dev/stdin "$t/d2.mtx"; f=piperhs.mtx; fi
  if (ulimit -v 4000000; "$CLCG_BIN" --version) >/dev/null 2>&1; then
    (ulimit -v 4000000; cat "$t/$f" | "$CLCG_BIN" --reference "$@" >"$t/out" 2>"$t/err"); rc=$?
  else
    cat "$t/$f" | "$CLCG_BIN" --reference "$@" >"$t/out" 2>"$t/err"; rc=$?
  fi
  [ $rc -eq 3 ] && [ ! -s "$t/out" ] && [ "$(errors "$t/err")" -eq 1 ] &&
    grep -q '/dev/stdin:3: truncated: 1 entries of 900000000 declared' "$t/err"
  ok $? "a $how through a pipe declaring 900 million entries, holding one: truncated, named (rc=$rc, $(head -c 100 "$t/err"))"
done
# a newline or an escape in a path or an argument leaves the message one line ('?' for it)
{ mm symmetric; printf '2 2 2\n1 1 1\n2 2 \033[31m1\n'; } >"$t/esc
.mtx"
for a in "$t/no
such.mtx" "$t/esc
.mtx" "--generate=poisson3d:4
x"; do
  "$CLCG_BIN" "$a" >"$t/out" 2>"$t/err"; rc=$?
  [ $rc -ge 2 ] && [ $rc -le 3 ] && [ ! -s "$t/out" ] && [ "$(wc -l <"$t/err")" -eq 1 ] &&
    ! LC_ALL=C grep -q "$(printf '\033')" "$t/err" && grep -q '^clcg-mpi: .*?' "$t/err"
  ok $? "an argument holding a newline: one line of message, rc=$rc ($(tr -c '[:print:]' '.' <"$t/err" | head -c 120))"
done
# --write-matrix checks the memory rank 0 needs for the whole matrix, read or generated
{ mm general; printf '3 3 3\n1 1 1\n2 2 1\n3 3 1\n'; } >"$t/d3.mtx"
for src in "$t/d3.mtx" "--generate poisson2d:10"; do
  CLCG_MEM_AVAILABLE=100 "$CLCG_BIN" $src --write-matrix "$t/w.mtx" 2>"$t/err"; rc=$?
  [ $rc -eq 5 ] && [ ! -e "$t/w.mtx" ] && [ "$(errors "$t/err")" -eq 1 ] &&
    grep -q 'needs at least .* --write-matrix assembles the whole matrix on rank 0' "$t/err"
  ok $? "--write-matrix of $(basename "${src#--generate }") with 100 bytes available: refused (rc=$rc, $(head -c 100 "$t/err"))"
done
# more entries than the matrix has places: duplicates, summed (they were refused from the
# size line); b given, so x = 1 only if A(1,1) is the sum 2 + 1
{ mm general; printf '2 2 5\n1 1 2\n1 2 1\n2 1 1\n2 2 3\n1 1 1\n'; } >"$t/dup5.mtx"
{ mm symmetric; printf '2 2 4\n1 1 2\n2 1 1\n2 2 3\n1 1 1\n'; } >"$t/dup4s.mtx"
printf '%%%%MatrixMarket matrix array real general\n2 1\n4\n4\n' >"$t/b44.mtx"
for f in dup5 dup4s; do
  for np in 1 2; do
    for pm in "" 1; do
      CLCG_PARSE_MIN=$pm timeout 120 $MPIEXEC -n $np "$CLCG_BIN" "$t/$f.mtx" --rhs "$t/b44.mtx" -o "$t/x.mtx" -q 2>"$t/err"; rc=$?
      x=$(awk 'n++ >= 2 { printf "%s ", $1 }' "$t/x.mtx" 2>/dev/null)
      [ $rc -eq 0 ] && echo "$x" | awk '{ exit !(NF == 2 && ($1 - 1) ^ 2 < 1e-16 && ($2 - 1) ^ 2 < 1e-16) }'
      ok $? "$f.mtx (more entries than places), $np rank(s)${pm:+, threaded parse}: duplicates summed, x = $x(rc=$rc $(head -c 100 "$t/err"))"
      rm -f "$t/x.mtx"
    done
  done
done
# a symmetric file with entries on both sides of the diagonal: mirrored, (2,1) and (1,2)
# would be summed into twice the value; refused, both lines named.  Upper entries alone are
# mirrored (the same matrix).
{ mm symmetric; printf '3 3 5\n1 1 4\n2 1 1\n1 2 1\n2 2 4\n3 3 4\n'; } >"$t/both.mtx"
for np in 1 2 3; do
  refused_naming "$t/both.mtx" $np 'both.mtx:5: an entry above the diagonal, and line 4 holds one below it'
done
CLCG_PARSE_MIN=1 check_error "$t/both.mtx" 1 3
{ mm symmetric; printf '3 3 5\n1 1 4\n1 2 -1\n2 2 4\n2 3 -1\n3 3 4\n'; } >"$t/upper.mtx"
{ mm symmetric; printf '3 3 5\n1 1 4\n2 1 -1\n2 2 4\n3 2 -1\n3 3 4\n'; } >"$t/lower.mtx"
"$CLCG_BIN" "$t/upper.mtx" -o "$t/xu.mtx" -q && "$CLCG_BIN" "$t/lower.mtx" -o "$t/xl.mtx" -q && cmp -s "$t/xu.mtx" "$t/xl.mtx"
ok $? "a symmetric file of upper entries only: the same solution as its lower triangle"
# numbers: a nonzero value below the least double is refused like one above the largest; a
# diagonal whose inverse overflows cannot take Jacobi (without a preconditioner it solves)
for v in 2e-400 -1e-999; do
  { mm symmetric; printf '2 2 2\n1 1 %s\n2 2 4\n' $v; } >"$t/num.mtx"
  refused_naming "$t/num.mtx" 1 "num.mtx:3: value '$v'"
done
{ mm symmetric; printf '2 2 2\n1 1 1e-310\n2 2 4\n'; } >"$t/subn.mtx"
for np in 1 2; do
  refused_naming "$t/subn.mtx" $np 'A(1,1) = 1e-310, its inverse overflows'
done
"$CLCG_BIN" "$t/subn.mtx" --precond none -q; ok $? "subnormal diagonal without a preconditioner: solved"
# a truncated gzip file: zlib's words, the same on every rank count, the file named once
"$CLCG_BIN" --generate poisson2d:30 --write-matrix "$t/g.mtx" -q && gzip -c "$t/g.mtx" | head -c 3000 >"$t/gt.mtx.gz"
for np in 1 2; do
  refused_naming "$t/gt.mtx.gz" $np 'gt.mtx.gz: corrupt or truncated gzip data (unexpected end of file)'
done
# a generated problem too large for the ranks is refused at once (no walk over its rows)
timeout 20 "$CLCG_BIN" --generate poisson3d:46340,46340,100000000 >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 2 ] && grep -q 'too many for 1 rank' "$t/err"
ok $? "--generate of 2e17 rows on one rank: usage error at once (rc=$rc)"
{ mm symmetric; printf '3 3 4\n1 1 4\n2 1 -1\n2 2 4\n3 3 4\n'; } >"$t/fine.mtx"
check_valid "$t/fine.mtx" 1
check_valid "$t/fine.mtx" 2

if have_matrices; then
  # expected outcomes from the index that comes with the files
  # the list on descriptor 3: mpirun inside the loop reads (and would swallow) standard input
  grep '^| [a-z0-9-]*\.mtx |' "$CLCG_MATRICES/bad/INDEX.md" >"$t/index"
  (while IFS='|' read -r _ file expect _ <&3; do
    file=$(echo $file); expect=$(echo $expect)
    for np in 1 2 3; do   # 3: some ranks own no rows of the small ones
      case "$expect" in
        valid) check_valid "$CLCG_MATRICES/bad/$file" $np ;;
        error) check_error "$CLCG_MATRICES/bad/$file" $np ;;
        *)  # valid or error: either a right answer or a clean refusal
          timeout 120 $MPIEXEC -n $np "$CLCG_BIN" "$CLCG_MATRICES/bad/$file" -o "$t/y.mtx" </dev/null >"$t/out" 2>"$t/err"; rc=$?
          if [ $rc -eq 0 ]; then r=$(residual "$CLCG_MATRICES/bad/$file" "$t/y.mtx"); le "$r" 1e-7
          else [ $rc -eq 3 ] || [ $rc -eq 4 ]; fi
          ok $? "$file on $np rank(s): $expect (rc=$rc)"
          rm -f "$t/y.mtx" ;;
      esac
    done
  done 3<"$t/index") >"$t/tap"
  # renumber: the loop ran in a subshell
  while read -r line; do
    case "$line" in
      "ok "*) ok 0 "${line#ok [0-9]* - }" ;;
      "not ok "*) ok 1 "${line#not ok [0-9]* - }" ;;
    esac
  done <"$t/tap"
  for f in "$CLCG_MATRICES"/not-spd/*.mtx; do check_error "$f" 1; check_error "$f" 2; done
else
  skip "shared hostile matrices" "CLCG_MATRICES not found"
fi
done_testing
