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
# every option of the README's table, and every kind the generator takes, is in --help
missing=""
for o in $(grep -o '^| `--[a-z-]*' "${srcdir:-.}/README.md" | sed 's/^| `//' | sort -u); do
  grep -qE -- "(^|[ ,|(])$o([] ,=|):;]|\$)" "$t/out" || missing="$missing $o"   # whole: --tune is no --tune-cache
done
for k in random:N -weak poisson3d27:NX,NY,NZ; do
  grep -qF -- "$k" "$t/out" || missing="$missing $k"
done
[ -z "$missing" ] && [ "$(grep -c '^| `--' "${srcdir:-.}/README.md")" -ge 20 ]
ok $? "--help names every option of the README and every generator kind (missing:${missing:- none})"
"$CLCG_BIN" --version >"$t/out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q '^clcg-mpi [0-9]' "$t/out"
ok $? "--version"

# the report lost (standard output on a full device): status 3, one message, no output left
if [ -w /dev/full ]; then
  "$CLCG_BIN" --help >/dev/full 2>"$t/err"; rc=$?
  [ $rc -eq 3 ] && [ "$(cat "$t/err")" = "clcg-mpi: cannot write the report to standard output: No space left on device" ]
  ok $? "--help to /dev/full: exit 3 and one message (rc=$rc: $(head -c 200 "$t/err"))"
  "$CLCG_BIN" --generate poisson2d:10 -o "$t/full.mtx" --json "$t/full.json" >/dev/full 2>"$t/err"; rc=$?
  [ $rc -eq 3 ] && [ "$(wc -l <"$t/err")" -eq 1 ] && grep -q '^clcg-mpi: cannot write the report to standard output' "$t/err" &&
    [ ! -e "$t/full.mtx" ] && [ ! -e "$t/full.json" ]
  ok $? "a solve reporting to /dev/full: exit 3, one message, neither -o nor --json left (rc=$rc: $(head -c 200 "$t/err"))"
  # files of those names from an earlier run stay as they were, and no temporary file is left
  mkdir "$t/old" && echo "earlier x" >"$t/old/x.mtx" && echo "earlier record" >"$t/old/r.json"
  "$CLCG_BIN" --generate poisson2d:10 -o "$t/old/x.mtx" --json "$t/old/r.json" >/dev/full 2>"$t/err"; rc=$?
  [ $rc -eq 3 ] && [ "$(cat "$t/old/x.mtx")" = "earlier x" ] && [ "$(cat "$t/old/r.json")" = "earlier record" ] &&
    [ "$(ls "$t/old" | wc -l)" -eq 2 ]
  ok $? "a solve reporting to /dev/full leaves the earlier -o and --json files as they were (rc=$rc: $(ls "$t/old" | tr '\n' ' '))"
  "$CLCG_BIN" --generate poisson2d:10 -o "$t/old/x.mtx" --json /dev/full >/dev/null 2>"$t/err"; rc=$?
  [ $rc -eq 3 ] && [ "$(wc -l <"$t/err")" -eq 1 ] && grep -q '^clcg-mpi: /dev/full: cannot write' "$t/err" &&
    [ "$(cat "$t/old/x.mtx")" = "earlier x" ] && [ "$(ls "$t/old" | wc -l)" -eq 2 ]
  ok $? "a --json record that cannot be written: exit 3, one message, the earlier -o file as it was (rc=$rc: $(head -c 200 "$t/err"))"
  "$CLCG_BIN" --generate poisson2d:10 -o "$t/old/x.mtx" --json "$t/old/r.json" >/dev/null 2>"$t/err"; rc=$?
  [ $rc -eq 0 ] && head -1 "$t/old/x.mtx" | grep -q '^%%MatrixMarket matrix array' && grep -q '"outcome": "CONVERGED"' "$t/old/r.json" &&
    [ "$(ls "$t/old" | wc -l)" -eq 2 ]
  ok $? "the same run with outputs that can be written replaces both (rc=$rc)"
  # names near the longest a directory takes: the two outputs' temporary names still differ
  la=$(printf 'a%.0s' $(seq 240)); lb=$(printf 'b%.0s' $(seq 240))
  mkdir "$t/long" && echo "earlier x" >"$t/long/$la.mtx" && echo "earlier record" >"$t/long/$lb.json"
  "$CLCG_BIN" --generate poisson2d:10 -o "$t/long/$la.mtx" --json "$t/long/$lb.json" -q 2>"$t/err"; rc=$?
  [ $rc -eq 0 ] && head -1 "$t/long/$la.mtx" | grep -q '^%%MatrixMarket matrix array' &&
    grep -q '"outcome": "CONVERGED"' "$t/long/$lb.json" && [ "$(ls "$t/long" | wc -l)" -eq 2 ]
  ok $? "-o and --json with names of 244 characters: both written, nothing else left (rc=$rc: $(head -c 200 "$t/err"))"
  "$CLCG_BIN" --generate poisson2d:10 -q >/dev/full 2>"$t/err"; rc=$?
  [ $rc -eq 0 ] && [ ! -s "$t/err" ]
  ok $? "-q prints nothing: /dev/full is no fault (rc=$rc)"
  "$CLCG_BIN" --generate poisson2d:10 -q --monitor >/dev/full 2>"$t/err"; rc=$?
  [ $rc -eq 0 ] && [ ! -s "$t/err" ]
  ok $? "-q --monitor prints nothing either (rc=$rc)"
  # the writers too: the matrix file goes into place only once its "wrote" line is out
  mkdir "$t/wold" && echo "earlier matrix" >"$t/wold/m.mtx" && echo "earlier binary" >"$t/wold/m.bin"
  "$CLCG_BIN" --generate poisson2d:6 --write-binary "$t/wold/m.bin" >/dev/full 2>"$t/err"; rc=$?
  [ $rc -eq 3 ] && [ "$(wc -l <"$t/err")" -eq 1 ] && grep -q '^clcg-mpi: cannot write the report to standard output' "$t/err" &&
    [ "$(cat "$t/wold/m.bin")" = "earlier binary" ] && [ "$(ls -A "$t/wold" | wc -l)" -eq 2 ]
  ok $? "--write-binary reporting to /dev/full: exit 3, one message, the earlier file as it was, nothing else left (rc=$rc: $(ls -A "$t/wold" | tr '\n' ' '))"
  for src in "--generate poisson2d:6" "$t/wold/new.bin"; do
    [ "$src" = "$t/wold/new.bin" ] && "$CLCG_BIN" --generate poisson2d:6 --write-binary "$t/wold/new.bin" -q
    "$CLCG_BIN" $src --write-matrix "$t/wold/m.mtx" >/dev/full 2>"$t/err"; rc=$?
    [ $rc -eq 3 ] && [ "$(wc -l <"$t/err")" -eq 1 ] && grep -q '^clcg-mpi: cannot write the report to standard output' "$t/err" &&
      [ "$(cat "$t/wold/m.mtx")" = "earlier matrix" ] && [ "$(ls -A "$t/wold" | grep -vc '^new.bin$')" -eq 2 ]
    ok $? "--write-matrix of $(basename -- "${src##* }") reporting to /dev/full: exit 3, one message, the earlier file as it was (rc=$rc: $(ls -A "$t/wold" | tr '\n' ' '))"
  done
  "$CLCG_BIN" "$t/wold/new.bin" --write-matrix "$t/wold/m.mtx" >/dev/null 2>"$t/err" &&
    "$CLCG_BIN" "$t/wold/m.mtx" --write-binary "$t/wold/m.bin" >/dev/null 2>>"$t/err"; rc=$?
  [ $rc -eq 0 ] && head -1 "$t/wold/m.mtx" | grep -q '^%%MatrixMarket matrix coordinate real symmetric' &&
    cmp -s "$t/wold/m.bin" "$t/wold/new.bin" && [ "$(ls -A "$t/wold" | wc -l)" -eq 3 ]
  ok $? "the same writers with standard output that takes the line replace the files (rc=$rc: $(head -c 200 "$t/err"))"
else
  skip "the report to /dev/full" "/dev/full is not writable here"
fi
# standard input and output closed at the start: the MPI library's own descriptors must not
# take their numbers (the report would go into one of its pipes, lost, exit 0): exit 3 and one
# message as for standard output alone closed, no -o file left; with -q, nothing is printed
# and the run succeeds
for fds in "<&- >&-" ">&-"; do
  eval '"$CLCG_BIN" --generate poisson2d:10 -o "$t/closed.mtx" 2>"$t/err" '"$fds"; rc=$?
  [ $rc -eq 3 ] && [ "$(cat "$t/err")" = "clcg-mpi: cannot write the report to standard output: Bad file descriptor" ] &&
    [ ! -e "$t/closed.mtx" ]
  ok $? "a solve with $fds: exit 3, one message, no -o file (rc=$rc: $(head -c 200 "$t/err"))"
done
"$CLCG_BIN" --generate poisson2d:10 -q -o "$t/closed.mtx" 2>"$t/err" <&- >&-; rc=$?
[ $rc -eq 0 ] && [ ! -s "$t/err" ] && head -1 "$t/closed.mtx" | grep -q '^%%MatrixMarket matrix array'
ok $? "-q with standard input and output closed: the solution written, nothing said (rc=$rc: $(head -c 200 "$t/err"))"
# an existing output file that cannot be written (read-only to its owner's choice, or
# immutable) is not replaced behind that by the rename: exit 3, one message, the file as it
# was; a file that can be written is replaced and keeps its permission bits
mkdir "$t/ro" && chmod 777 "$t/ro"
echo earlier >"$t/ro/p.mtx" && chmod 600 "$t/ro/p.mtx"
"$CLCG_BIN" --reference --generate poisson2d:6 -o "$t/ro/p.mtx" -q 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && [ "$(stat -c %a "$t/ro/p.mtx")" = 600 ] && head -1 "$t/ro/p.mtx" | grep -q '^%%MatrixMarket matrix array'
ok $? "-o onto a file of mode 600: replaced, still 600 (rc=$rc: $(stat -c %a "$t/ro/p.mtx") $(head -c 200 "$t/err"))"
echo earlier >"$t/ro/r.mtx" && chmod 444 "$t/ro/r.mtx"
as_other=""
if [ "$(id -u)" -ne 0 ]; then as_other=" "
elif command -v setpriv >/dev/null 2>&1 &&   # (the program must be reachable by that user)
     setpriv --reuid=65534 --regid=65534 --clear-groups "$CLCG_BIN" --version >/dev/null 2>&1; then
  as_other="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
if [ -n "$as_other" ]; then
  if [ "$(id -u)" -eq 0 ]; then   # the test's folder (mode 700) is closed to the other user
    HOME="$t/ro" $as_other "$CLCG_BIN" --reference --generate poisson2d:6 -o "$t/ro/r.mtx" -q 2>"$t/err"; rc=$?
    [ $rc -eq 3 ] && [ "$(cat "$t/err")" = "clcg-mpi: $t/ro/r.mtx: cannot create the file: directory $t/ro: Permission denied" ]
    ok $? "-o below a folder closed to the user: exit 3, the directory and the reason named, not \"no directory\" (rc=$rc: $(head -c 200 "$t/err"))"
    chmod 755 "$t"
  fi
  for out in "-o" "--json" "--write-matrix"; do
    HOME="$t/ro" $as_other "$CLCG_BIN" --reference --generate poisson2d:6 $out "$t/ro/r.mtx" -q 2>"$t/err"; rc=$?
    [ $rc -eq 3 ] && [ "$(cat "$t/err")" = "clcg-mpi: $t/ro/r.mtx: cannot replace the file: Permission denied" ] &&
      [ "$(cat "$t/ro/r.mtx")" = earlier ] && [ "$(ls -A "$t/ro" | tr '\n' ' ')" = "p.mtx r.mtx " ]
    ok $? "$out onto a read-only file of another user: exit 3, one message, the file as it was (rc=$rc: $(head -c 200 "$t/err"))"
  done
else
  skip "outputs onto a read-only file" "root, and no setpriv to run as another user"
fi
echo earlier >"$t/ro/i.mtx"
if chattr +i "$t/ro/i.mtx" 2>/dev/null; then
  "$CLCG_BIN" --generate poisson2d:6 --write-binary "$t/ro/i.mtx" 2>"$t/err" >"$t/out"; rc=$?
  chattr -i "$t/ro/i.mtx"
  [ $rc -eq 3 ] && [ "$(wc -l <"$t/err")" -eq 1 ] && grep -q 'i.mtx: cannot replace the file: ' "$t/err" && [ ! -s "$t/out" ] &&
    [ "$(cat "$t/ro/i.mtx")" = earlier ]
  ok $? "--write-binary onto an immutable file: exit 3, one message, no \"wrote\" line, the file as it was (rc=$rc: $(head -c 200 "$t/err"))"
else
  skip "an output onto an immutable file" "chattr +i does not work here"
fi
# a file-size limit (ulimit -f) met while an output is written: exit 3 and one message, no file
# left.  16000 of the shell's units (512 or 1024 bytes) leave room for MPI_Init's own files;
# each output below is larger.
if (ulimit -f 16000; "$CLCG_BIN" --version) >/dev/null 2>&1; then
  mkdir "$t/fsz"
  for out in "--write-matrix $t/fsz/m.mtx" "--write-binary $t/fsz/m.bin" "--reference --rtol 0.1 -o $t/fsz/x.mtx" \
             "--rtol 0.1 -o $t/fsz/x.mtx"; do
    (ulimit -f 16000; "$CLCG_BIN" --generate poisson3d:120 $out -q) >/dev/null 2>"$t/err"; rc=$?
    [ $rc -eq 3 ] && [ "$(wc -l <"$t/err")" -eq 1 ] && grep -Eq '^clcg-mpi: .*(File too large|file-size limit)' "$t/err" &&
      [ -z "$(ls -A "$t/fsz")" ]
    ok $? "$(echo "${out%% $t*}" | sed 's/.* //') past the file-size limit: exit 3, one message, no file left (rc=$rc: $(head -c 200 "$t/err"); left: $(ls -A "$t/fsz" | tr '\n' ' '))"
  done
else
  skip "outputs past the file-size limit" "MPI_Init fails under ulimit -f 16000 here"
fi
# standard output's reader gone before the report (a pipe whose read end is closed: SIGPIPE at
# the first write, as `| head -0` may give): the run ends by that signal, leaving no temporary
# file and the earlier files of those names as they were
if command -v python3 >/dev/null 2>&1; then
  mkdir "$t/pipe" && echo "earlier" >"$t/pipe/e.mtx" && echo "earlier" >"$t/pipe/d.bin" && echo "earlier" >"$t/pipe/x.mtx"
  for out in "--write-matrix $t/pipe/e.mtx" "--write-binary $t/pipe/d.bin" "-o $t/pipe/x.mtx --json $t/pipe/r.json"; do
    got=$(python3 -c '
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
print(subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.DEVNULL).returncode)' "$CLCG_BIN" --generate poisson2d:20 $out)
    [ "$got" = -13 ] && [ "$(ls -A "$t/pipe" | tr '\n' ' ')" = "d.bin e.mtx x.mtx " ] &&
      [ "$(cat "$t/pipe/e.mtx" "$t/pipe/d.bin" "$t/pipe/x.mtx" | sort -u)" = earlier ]
    ok $? "${out//$t\/pipe\//} with standard output's reader gone: ended by SIGPIPE, no temporary file, the earlier files kept (status $got: $(ls -A "$t/pipe" | tr '\n' ' '))"
  done
else
  skip "standard output's reader gone" "no python3"
fi
# the reader gone after the report, before "solution written to" (SIGPIPE ignored, the record
# written to a FIFO meanwhile): status 3, that line's loss named; the files were complete
if command -v python3 >/dev/null 2>&1 && mkfifo "$t/pipe/late.fifo" 2>/dev/null; then
  got=$(python3 -c '
import os, signal, subprocess, sys
p = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     preexec_fn=lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN))
for line in p.stdout:
    if line.startswith(b"time:"):
        break
p.stdout.close()
with open(sys.argv[1]) as f:
    f.read()
err = p.stderr.read().decode()
print(p.wait(), err.strip())' "$t/pipe/late.fifo" "$CLCG_BIN" --generate poisson2d:20 -o "$t/pipe/late.mtx" --json "$t/pipe/late.fifo")
  [ "$got" = "3 clcg-mpi: cannot write the report to standard output: Broken pipe" ] && [ -s "$t/pipe/late.mtx" ]
  ok $? "standard output's reader gone before \"solution written to\": status 3, named ($got)"
else
  skip "standard output's reader gone before \"solution written to\"" "no python3 or no FIFO"
fi
# a temporary name already taken (a symbolic link planted at TARGET.tmp.PID, PIDs being
# predictable): the output is written to a new file of that name, never through the link, so
# the file it names is left as it was, whether the run succeeds or fails
mkdir "$t/link" && echo precious >"$t/link/victim"
for out in "-o x.mtx" "--json r.json" "--write-matrix m.mtx" "--write-binary m.bin" "-o f.mtx --json /dev/full"; do
  set -- $out
  (cd "$t/link" && exec sh -c 'ln -s victim "$1.tmp.$$" && shift && exec "$@"' sh "$2" "$CLCG_BIN" --generate poisson2d:6 -q $out) \
    >/dev/null 2>"$t/err"; rc=$?
  case $out in
    *full) want=3; kept=$(ls -A "$t/link" | tr '\n' ' '); [ "$kept" = "victim " ] ;;
    *) want=0; [ -f "$t/link/$2" ] && [ ! -L "$t/link/$2" ] && [ -s "$t/link/$2" ] && [ "$(ls -A "$t/link" | wc -l)" -eq 2 ] ;;
  esac
  good=$?
  [ $good -eq 0 ] && [ $rc -eq $want ] && [ "$(cat "$t/link/victim")" = precious ]
  ok $? "$out with a symbolic link planted at the temporary name: exit $want, the link's target as it was, no link left (rc=$rc: $(ls -A "$t/link" | tr '\n' ' ') $(head -c 200 "$t/err"))"
  rm -f "$t/link/$2" "$t/link/$2".tmp.*
done
# --monitor with --repeat 3: each timed solve's history after a line naming it, the same
# iterations each time, the last ending at the count reported
for np in 1 2; do
  timeout 120 $MPIEXEC -n $np "$CLCG_BIN" --generate poisson2d:12 --monitor --repeat 3 >"$t/out" 2>"$t/err"; rc=$?
  hist=$(awk '/^solve [0-9] of 3 \(--repeat\)$/ { n++; next } / \|\|r\|\|\/\|\|b\|\| = / && n { it[n] = $1 } END { for (k = 1; k <= n; k++) printf "%s ", it[k] }' "$t/out")
  its=$(sed -n 's/^converged in \([0-9]*\) iterations.*/\1/p' "$t/out")
  [ $rc -eq 0 ] && [ "$(grep -c '^solve [123] of 3 (--repeat)$' "$t/out")" -eq 3 ] && [ "$hist" = "$its $its $its " ] &&
    [ "$(grep -c '^ *0  ||r||/||b|| = ' "$t/out")" -eq 3 ]
  ok $? "--monitor --repeat 3 on $np rank(s): three histories, each after its 'solve K of 3' line, each to $its iterations (rc=$rc: $hist)"
done
# --monitor: the problem's line first, then ||r||/||b|| at iterations 0..N, then the rest of
# the report; the last residual printed is the one reported, and N the iterations counted
for np in 1 2; do
  for how in "" "--variant pipelined" "--variant single-reduction" --reference; do
    timeout 120 $MPIEXEC -n $np "$CLCG_BIN" --generate poisson2d:12 --monitor $how --json "$t/mon.json" >"$t/out" 2>"$t/err"; rc=$?
    it=$(json_num "$t/mon.json" iterations)
    rec=$(sed -n 's/^  ||r||\/||b|| (recursive) = //p' "$t/out")
    [ $rc -eq 0 ] && [ -n "$it" ] && sed -n 1p "$t/out" | grep -q "^clcg-mpi [0-9.]*: poisson2d:12,12, n = 144, nnz = 672, $np rank" &&
      awk -v n="$it" -v rec="$rec" 'NR == 1 { next }
        NR <= n + 2 { if ($1 != NR - 2 || $2 != "||r||/||b||" || $3 != "=") bad = 1; last = $4; next }
        NR == n + 3 { if ($1 != "solver:") bad = 1 }
        END { if (NR < n + 3 || bad || sprintf("%.3e", last) != rec) exit 1 }' "$t/out" &&
      ! grep -qv '^clcg-mpi: warning: ' "$t/err"   # (ranks that share a GPU are warned)
    ok $? "--monitor ${how:-(standard)} on $np rank(s): the problem's line, residuals 0..$it, the last one the reported $rec (rc=$rc $(head -c 120 "$t/err"))"
  done
done
# the same at the iteration limit (the last residual, of x as it is, shown too), and where
# CG breaks down: the last numbered line is the iteration count of the record and the message
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 1\n2 1 2\n2 2 3\n3 2 1\n3 3 1\n' >"$t/indef3.mtx"
for np in 1 2; do
  for how in "" "--variant pipelined" "--variant single-reduction" --reference; do
    timeout 120 $MPIEXEC -n $np "$CLCG_BIN" --generate poisson2d:12 --max-iterations 5 --monitor $how --json "$t/mon.json" >"$t/out" 2>"$t/err"; rc=$?
    it=$(json_num "$t/mon.json" iterations)
    [ $rc -eq 1 ] && [ "$it" = 5 ] && [ "$(grep -c '||r||/||b|| = ' "$t/out")" -eq 6 ] &&
      [ "$(grep '||r||/||b|| = ' "$t/out" | tail -n 1 | awk '{ print $1 }')" = 5 ]
    ok $? "--monitor ${how:-(standard)} at --max-iterations 5 on $np rank(s): residuals 0..5 (rc=$rc, record $it)"
    timeout 120 $MPIEXEC -n $np "$CLCG_BIN" "$t/indef3.mtx" --monitor $how --json "$t/mon.json" >"$t/out" 2>"$t/err"; rc=$?
    it=$(json_num "$t/mon.json" iterations)
    last=$(grep '||r||/||b|| = ' "$t/out" | tail -n 1 | awk '{ print $1 }')
    [ $rc -eq 4 ] && [ -n "$it" ] && [ "$last" = "$it" ] && grep -q "(CG stopped after $it iteration" "$t/err"
    ok $? "--monitor ${how:-(standard)}, a breakdown on $np rank(s): the last line $last, the record's $it, the message's $(grep -o 'after [0-9]* iteration' "$t/err") (rc=$rc)"
  done
done
# with corrections (a matrix near singular): each is announced with the true residual it
# starts from, its lines go on from the count before it, the last is the record's count
for how in "" --reference; do
  timeout 120 "$CLCG_BIN" "${srcdir:-.}/tests/data/lap1k_eps1e-10.mtx.gz" --monitor $how --json "$t/mon.json" >"$t/out" 2>"$t/err"; rc=$?
  it=$(json_num "$t/mon.json" iterations); nref=$(json_num "$t/mon.json" refinements)
  [ $rc -eq 0 ] && [ -n "$nref" ] && [ "$nref" -ge 1 ] &&
    awk -v n="$it" -v nref="$nref" '
      /^ +correction [0-9]+: A d = b - Ax, / { c++; if ($2 != c ":") bad = 1; from = $NF; want = last; next }
      /\|\|r\|\|\/\|\|b\|\| = / { k = $1 + 0
        if (want != "") { if (k != want || $4 != from) bad = 1; want = "" }
        else if (seen && k != last + 1) bad = 1
        last = k; seen = 1 }
      END { if (bad || c != nref || last != n) exit 1 }' "$t/out"
  ok $? "--monitor ${how:-(standard)} with $nref correction(s): numbered on from the count before, the last $it (rc=$rc)"
done
"$CLCG_BIN" --generate poisson2d:1 >"$t/out" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q '^converged in 1 iteration$' "$t/out"
ok $? "one iteration said as such (rc=$rc: $(grep converged "$t/out"))"
usage_error "no matrix"
usage_error "unknown option" --frobnicate x.mtx
usage_error "a prefix of two options" --re x.mtx
grep -q "option '--re' is ambiguous: it may be --reference, --repeat" "$t/err"
ok $? "the prefix's message names both ($(head -c 120 "$t/err"))"
usage_error "a prefix of three options, with a value" --no-=1 x.mtx
"$CLCG_BIN" --rep 2 --generate poisson2d:4 -q --json "$t/rep.json" >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && grep -q '"solve_repeats": \[[^],]*,[^],]*\]' "$t/rep.json"
ok $? "a prefix of one option is that option (--rep 2: rc=$rc)"
# --repeat keeps every timed solve's time in the record: up to 64 (65 ran 65 and took the
# median of the first 64)
usage_error "--repeat 65" --generate poisson2d:4 --repeat 65
"$CLCG_BIN" --repeat 64 --generate poisson2d:4 -q --json "$t/rep.json" >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && [ "$(grep -o '"solve_repeats": \[[^]]*\]' "$t/rep.json" | tr ',' '\n' | wc -l)" -eq 64 ]
ok $? "--repeat 64: 64 times in the record (rc=$rc)"
usage_error "--generate twice" --generate poisson2d:4 --generate poisson3d:4
grep -q "generate given twice ('poisson2d:4', then 'poisson3d:4')" "$t/err"
ok $? "--generate twice: both named ($(head -c 120 "$t/err"))"
# the record keeps --rtol as given (0.99999 is not 1), and a poisson2d's name is one --generate takes
"$CLCG_BIN" --generate poisson2d:5 --rtol 0.99999 -q --json "$t/rt.json" >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && grep -q '"rtol": 0.99999,' "$t/rt.json" && grep -q '"matrix": "poisson2d:5,5",' "$t/rt.json"
ok $? "the record's rtol and generator name as given (rc=$rc: $(grep -o '"matrix[^,]*,[^,]*' "$t/rt.json"; grep -o '"rtol": [^,]*' "$t/rt.json"))"
# --reference has no kernels: --profile is warned of, and no empty table follows
"$CLCG_BIN" --generate poisson2d:5 --reference --profile >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && grep -q "profile does not apply" "$t/err" && ! grep -q "profile\|overhead" "$t/out"
ok $? "--reference --profile: a warning and no table (rc=$rc)"
usage_error "--device with --devices-per-rank 2 (one device, or two?)" --device 0 --devices-per-rank 2 x.mtx
# an unknown letter inside an argument is named, not the program or the option before it
for args in "-m.mtx" "-q -m.mtx" "-qm x.mtx" "--output=x.mtx -m.mtx"; do
  "$CLCG_BIN" $args >"$t/out" 2>"$t/err"; rc=$?
  [ $rc -eq 2 ] && [ "$(cat "$t/err")" = "clcg-mpi: unknown option '-m' (see --help)" ]
  ok $? "'$args': exit 2, the message names -m (rc=$rc: $(head -c 200 "$t/err"))"
done
# a long option of a short letter given a value is named as given, not as the letter
for args in "--quiet=1" "--qu=1 -q"; do
  "$CLCG_BIN" $args x.mtx >"$t/out" 2>"$t/err"; rc=$?
  [ $rc -eq 2 ] && [ "$(cat "$t/err")" = "clcg-mpi: unknown option '${args%% *}' (see --help)" ]
  ok $? "'$args': exit 2, the message names ${args%% *} (rc=$rc: $(head -c 200 "$t/err"))"
done
usage_error "missing argument" x.mtx --rtol
usage_error "rtol not a number" --rtol abc x.mtx
usage_error "rtol out of range" --rtol 2 x.mtx
usage_error "rtol zero" --rtol 0 x.mtx
usage_error "rtol below the smallest double" --rtol 1e-400 x.mtx
# a subnormal rtol and blanks around the number are taken as read
for r in 4.9e-324 " 1e-8 "; do
  "$CLCG_BIN" --generate poisson2d:6 --rtol "$r" -q 2>"$t/err"; rc=$?
  [ $rc -eq 0 ] && [ ! -s "$t/err" ]; ok $? "--rtol '$r': solved (rc=$rc $(head -c 100 "$t/err"))"
done
usage_error "--rhs with --write-matrix" --generate poisson2d:4 --rhs b.mtx --write-matrix a.mtx
usage_error "--rhs with --write-binary" --generate poisson2d:4 --rhs b.mtx --write-binary a.bin
usage_error "negative iteration limit" --max-iterations -1 x.mtx
usage_error "iteration limit with junk" --max-iterations 10x x.mtx
usage_error "iteration limit with junk after a blank" --max-iterations "10 x" x.mtx
# blanks around a whole number are taken as read, as around --rtol's
for m in " 50" "50 "; do
  "$CLCG_BIN" --generate poisson2d:6 --max-iterations "$m" -q 2>"$t/err"; rc=$?
  [ $rc -eq 0 ] && [ ! -s "$t/err" ]; ok $? "--max-iterations '$m': solved (rc=$rc $(head -c 100 "$t/err"))"
done
usage_error "unknown preconditioner" --precond ilu x.mtx
usage_error "unknown exchange" --exchange broadcast x.mtx
usage_error "unknown format" --format coo x.mtx
usage_error "two matrices" a.mtx b.mtx
usage_error "an empty matrix name" ''
grep -q "^clcg-mpi: the matrix: the file name is empty$" "$t/err"; ok $? "the empty matrix name said as such ($(head -c 120 "$t/err"))"
usage_error "an empty --rhs name" x.mtx --rhs ''
grep -q "^clcg-mpi: --rhs: the file name is empty$" "$t/err"; ok $? "the empty --rhs name said as such ($(head -c 120 "$t/err"))"
usage_error "matrix and --generate" a.mtx --generate poisson2d:4
usage_error "unknown generator" --generate cube:4
usage_error "generator without size" --generate poisson3d
# blanks in a size: refused before it as after it (strtoll skipped the ones before)
for g in "poisson3d: 4" "poisson3d:4 " "poisson3d:4, 4,4" "random: 100" "random:100, 8" "random:100,8, 3"; do
  usage_error "generator size with a blank, '$g'" --generate "$g"
done
usage_error "a Poisson plane beyond 2^31 - 1 rows" --generate poisson2d:65536,65536
grep -q 'NX x NY = 65536 x 65536 is more than 2^31 - 1' "$t/err"; ok $? "the message names the limit"
usage_error "generator with bad size" --generate poisson3d:0
usage_error "generator size ending in a comma" --generate poisson2d:3,
usage_error "generator size ending in an x" --generate poisson3d:3x
usage_error "bad device type" --device-type fpga x.mtx
usage_error "tune and no-tune" --tune --no-tune x.mtx
usage_error "autotune and no-autotune" --autotune --no-autotune x.mtx
# a model problem larger than this machine's memory: refused at once (it took 25 s to walk
# poisson3d:1290's rows before the allocation failed), and the limit of rows per rank
if mem_below_gb 600; then
  timeout 60 "$CLCG_BIN" --generate poisson3d27:1280 >"$t/out" 2>"$t/err"; rc=$?
  [ $rc -eq 5 ] && [ "$(wc -l <"$t/err")" -eq 1 ] &&
    grep -q 'poisson3d27:1280 (n = 2097152000, nnz >= 56534676472) needs at least 1633.3 GB of host memory on this node' "$t/err"
  ok $? "--generate poisson3d27:1280: exit $rc at once ($(head -c 150 "$t/err"))"
else
  skip "--generate poisson3d27:1280 refused for memory" "this machine has 600 GB free"
fi
# the check counts what loading holds at its peak, not the matrix alone: 300 M rows of a
# chain on 3 ranks (4.4 GB of matrix a rank) were killed by the system on a node with 23 GB
CLCG_MEM_AVAILABLE=23e9 timeout 60 $MPIEXEC -n 3 "$CLCG_BIN" --generate poisson3d-weak:1,1,100000000 -q \
  >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 5 ] && [ "$(errors "$t/err")" -eq 1 ] &&
  grep -q 'poisson3d-weak:1,1,100000000 (n = 300000000, nnz >= 899999998) needs at least 32.4 GB of host memory on this node (3 of 3 ranks here), but it has 23.0 GB available' "$t/err"
ok $? "300 M generated rows on 3 ranks with 23 GB available: exit $rc at once ($(head -c 160 "$t/err"))"
# an array file counts its positions at the matrix's own 12 bytes, not at the peak of reading
# entries (a tridiagonal n = 2000 written densely was refused with 100 MB, for 128 MB)
awk 'BEGIN { n = 2000; print "%%MatrixMarket matrix array real symmetric"; print n, n
  for (j = 1; j <= n; j++) for (i = j; i <= n; i++) print (i == j ? 4 : (i == j + 1 ? -1 : 0)) }' >"$t/tri.mtx"
CLCG_MEM_AVAILABLE=100000000 "$CLCG_BIN" "$t/tri.mtx" --json "$t/tri.json" -q 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && le "$(json_num "$t/tri.json" true)" 1e-7
ok $? "a sparse matrix in a 2000 x 2000 array file with 100 MB available: solved (rc=$rc $(head -c 100 "$t/err"))"
CLCG_MEM_AVAILABLE=40000000 "$CLCG_BIN" "$t/tri.mtx" -q 2>"$t/err"; rc=$?
[ $rc -eq 5 ] && [ "$(errors "$t/err")" -eq 1 ] && grep -q 'tri.mtx (n = 2000, 2001000 entries) needs at least 48 MB of host memory on this node (1 of 1 rank here), but it has 40 MB available' "$t/err"
ok $? "the same with 40 MB: exit $rc at once ($(head -c 150 "$t/err"))"
CLCG_MEM_AVAILABLE=1000 "$CLCG_BIN" --generate poisson2d:20 -q 2>"$t/err"; rc=$?
[ $rc -eq 5 ] && [ "$(errors "$t/err")" -eq 1 ] && grep -q 'needs at least [1-9][0-9]* kB of host memory .*, but it has 1 kB available' "$t/err"
ok $? "sizes under a megabyte in kB, not as 0 MB: exit $rc ($(head -c 150 "$t/err"))"
# a CPU device's buffers are host memory too: held to the rank's share of what is left
if [ "${CLCG_DEVICE_TYPE:-cpu}" = cpu ]; then
  for np in 1 2; do
    CLCG_MEM_AVAILABLE=120000000 timeout 60 $MPIEXEC -n $np "$CLCG_BIN" --generate poisson3d:1,1,1000000 \
      --variant pipelined -o "$t/cpu-x.mtx" --json "$t/cpu.json" >"$t/out" 2>"$t/err"; rc=$?
    [ $rc -eq 5 ] && [ "$(errors "$t/err")" -eq 1 ] && [ ! -e "$t/cpu-x.mtx" ] && [ ! -e "$t/cpu.json" ] &&
      grep -q "keeps its buffers in host memory: .* more than this rank may give them" "$t/err"
    ok $? "CPU device buffers past the rank's share of host memory, $np rank(s): exit $rc, one message, no output ($(head -c 150 "$t/err"))"
  done
  CLCG_MEM_AVAILABLE=400000000 "$CLCG_BIN" --generate poisson3d:1,1,1000000 --variant pipelined -q; rc=$?
  [ $rc -eq 0 ]; ok $? "the same with room for them: solved (rc=$rc)"
else
  skip "CPU device buffers past the rank's share of host memory" "CLCG_DEVICE_TYPE=$CLCG_DEVICE_TYPE"
fi
usage_error "more rows than a rank holds" --generate poisson3d:1300
CLCG_DEVICE_TYPE=GPU usage_error "CLCG_DEVICE_TYPE not gpu, cpu or all" x.mtx
grep -q 'CLCG_DEVICE_TYPE=GPU' "$t/err"; ok $? "the variable is named"

"$CLCG_BIN" "$t/missing.mtx" >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 3 ] && grep -q "missing.mtx" "$t/err" && [ "$(wc -l <"$t/err")" -eq 1 ]
ok $? "missing matrix file: exit 3 naming the file"

"$CLCG_BIN" --reference --generate poisson2d:6 -o "$t/nodir/x.mtx" >"$t/out" 2>"$t/err"; rc=$?
[ $rc -ne 0 ] && [ ! -e "$t/nodir/x.mtx" ] && grep -q "x.mtx" "$t/err"
ok $? "unwritable output: non-zero exit (rc=$rc), message names the file"

"$CLCG_BIN" --reference --generate poisson2d:6 --max-iterations 2 -o "$t/x.mtx" >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 1 ] && [ ! -e "$t/x.mtx" ] && grep -q "NOT converged" "$t/out"
ok $? "iteration limit: exit 1, no solution file"

# outputs that would overwrite an input or each other: refused before anything is read
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 2\n2 2 4\n' >"$t/in.mtx"
printf '%%%%MatrixMarket matrix array real general\n2 1\n1\n1\n' >"$t/b.mtx"
cp "$t/in.mtx" "$t/in.orig"; cp "$t/b.mtx" "$t/b.orig"
usage_error "--json onto the matrix" "$t/in.mtx" --json "$t/in.mtx"
usage_error "-o onto the matrix, another spelling" "$t/in.mtx" -o "$t/../$(basename "$t")/in.mtx"
usage_error "-o onto --rhs" "$t/in.mtx" --rhs "$t/b.mtx" -o "$t/b.mtx"
usage_error "--tune-cache onto the matrix" "$t/in.mtx" --tune-cache "$t/in.mtx"
usage_error "--write-binary onto the matrix" "$t/in.mtx" --write-binary "$t/in.mtx"
usage_error "-o and --json one new file" "$t/in.mtx" -o "$t/s.mtx" --json "$t/s.mtx"
usage_error "empty -o" "$t/in.mtx" -o ""
usage_error "empty --json" "$t/in.mtx" --json ""
cmp -s "$t/in.mtx" "$t/in.orig" && cmp -s "$t/b.mtx" "$t/b.orig" && [ ! -e "$t/s.mtx" ]
ok $? "the inputs are untouched and nothing was written"
# the default tuning cache ($XDG_CACHE_HOME/clcg-mpi/tune.txt) is no output's name either,
# where the solve would read and write it; with --no-tune it is not used
mkdir -p "$t/xdgc/clcg-mpi"
printf 'kept\n' >"$t/xdgc/clcg-mpi/tune.txt"
xdg_was=${XDG_CACHE_HOME-unset}
XDG_CACHE_HOME="$t/xdgc"; export XDG_CACHE_HOME
usage_error "--json onto the default tuning cache" "$t/in.mtx" --tune --json "$t/xdgc/clcg-mpi/tune.txt"
usage_error "-o onto the default tuning cache" "$t/in.mtx" -o "$t/xdgc/clcg-mpi/tune.txt"
grep -q 'the same file as the tuning cache' "$t/err" && [ "$(cat "$t/xdgc/clcg-mpi/tune.txt")" = kept ]
ok $? "the default tuning cache is named, and untouched"
"$CLCG_BIN" "$t/in.mtx" --no-tune -o "$t/xdgc/clcg-mpi/tune.txt" -q; rc=$?
[ $rc -eq 0 ] && head -n 1 "$t/xdgc/clcg-mpi/tune.txt" | grep -q '^%%MatrixMarket matrix array'
ok $? "--no-tune: -o there is written (rc=$rc)"
if [ "$xdg_was" = unset ]; then unset XDG_CACHE_HOME; else XDG_CACHE_HOME=$xdg_was; fi
ln -s "$t/in.mtx" "$t/link.mtx"
usage_error "-o onto a link to the matrix" "$t/in.mtx" -o "$t/link.mtx"
# a link to a file not there yet leads where the output will be made: two outputs meet there
ln -s new.out "$t/dangling"; ln -s dangling "$t/dangling2"; mkdir "$t/sub"; ln -s ../new.out "$t/sub/up"
usage_error "-o and --json a dangling link to it" "$t/in.mtx" -o "$t/new.out" --json "$t/dangling"
usage_error "--json and -o a dangling link to it" "$t/in.mtx" --json "$t/new.out" -o "$t/dangling"
usage_error "-o and --json a chain of two dangling links to it" "$t/in.mtx" -o "$t/new.out" --json "$t/dangling2"
usage_error "--json and -o a dangling link from a subdirectory to it" "$t/in.mtx" --json "$t/new.out" -o "$t/sub/up"
[ ! -e "$t/new.out" ] && [ -L "$t/dangling" ] && [ -L "$t/dangling2" ]
ok $? "dangling links: nothing written, the links kept"
"$CLCG_BIN" "$t/in.mtx" -o "$t/dangling2" -q; rc=$?
[ $rc -eq 0 ] && [ -L "$t/dangling" ] && [ -L "$t/dangling2" ] && [ "$(sed -n 1p "$t/new.out" | cut -c1-14)" = "%%MatrixMarket" ]
ok $? "-o onto a chain of dangling links: the file made where it ends, both links kept (rc=$rc)"
ln -s loop2 "$t/loop1"; ln -s loop1 "$t/loop2"
"$CLCG_BIN" "$t/in.mtx" -o "$t/loop1" >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 3 ] && [ ! -s "$t/out" ] && [ -L "$t/loop1" ] && [ -L "$t/loop2" ] && [ "$(wc -l <"$t/err")" -eq 1 ] &&
  grep -q "loop1: cannot create the file: " "$t/err"
ok $? "-o onto a loop of links: exit 3 before solving, the links kept (rc=$rc: $(head -c 120 "$t/err"))"
ln -s "$(printf '%0300d' 0 | tr 0 b)" "$t/short"   # a short name whose link names one too long
"$CLCG_BIN" "$t/in.mtx" -o "$t/short" >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 3 ] && [ ! -s "$t/out" ] && grep -q "short: cannot create the file: its name has 300 characters" "$t/err"
ok $? "-o onto a dangling link to a name of 300 characters: exit 3 before solving (rc=$rc: $(head -c 120 "$t/err"))"
# an output that cannot be made is found before the solve (exit 3, the file named)
"$CLCG_BIN" --generate poisson2d:6 --json "$t/nodir/r.json" >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 3 ] && [ ! -s "$t/out" ] && grep -q "r.json: cannot create the file: no directory" "$t/err"
ok $? "--json into a missing directory: exit 3 before solving (rc=$rc: $(head -c 120 "$t/err"))"
"$CLCG_BIN" --generate poisson2d:6 -o "$t" >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 3 ] && grep -q "it is a directory" "$t/err"
ok $? "-o onto a directory: exit 3 (rc=$rc)"
# a directory that says writable but takes no new file (/proc): found before the solve
if [ -r /proc/version ] && [ "$(id -u)" -eq 0 ]; then   # others meet /proc's permissions first
  for o in -o --json --write-binary; do
    "$CLCG_BIN" --generate poisson2d:6 $o /proc/version >"$t/out" 2>"$t/err"; rc=$?
    [ $rc -eq 3 ] && [ ! -s "$t/out" ] && [ "$(wc -l <"$t/err")" -eq 1 ] &&
      grep -q "/proc/version: cannot create the file: a file cannot be made in /proc" "$t/err"
    ok $? "$o /proc/version: exit 3 before solving (rc=$rc: $(head -c 120 "$t/err"))"
  done
fi
# a name or path too long to be made: found before the solve, not after it
n300=$(printf '%0300d' 0 | tr 0 a)
for o in --json -o --write-binary; do
  "$CLCG_BIN" --generate poisson2d:6 $o "$t/$n300" >"$t/out" 2>"$t/err"; rc=$?
  [ $rc -eq 3 ] && [ ! -s "$t/out" ] && [ "$(wc -l <"$t/err")" -eq 1 ] &&
    grep -q "cannot create the file: its name has 300 characters, more than the 255 its directory allows" "$t/err"
  ok $? "$o to a name of 300 characters: exit 3 before solving (rc=$rc: $(tail -c 100 "$t/err"))"
done
"$CLCG_BIN" --generate poisson2d:6 -o "$t/$(printf '%02100d' 0 | sed 's/0/d\//g')x" >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 3 ] && [ ! -s "$t/out" ] && grep -q "the path has 4.* characters, more than the 40.. the system allows" "$t/err"
ok $? "-o to a path of 4200 characters: exit 3 before solving (rc=$rc: $(tail -c 100 "$t/err"))"
# a path of 990 characters in a missing directory: named twice in the message, whose reason
# in the middle was lost when the message was cut to its start and end
for o in -o --json; do
  "$CLCG_BIN" --generate poisson2d:6 $o "$t/nodir/$(printf '%0490d' 0 | sed 's/0/d\//g')x" >"$t/out" 2>"$t/err"; rc=$?
  [ $rc -eq 3 ] && [ ! -s "$t/out" ] && [ "$(wc -l <"$t/err")" -eq 1 ] && grep -q "x: cannot create the file: no directory $t/nodir/d/d/.*\.\.\..*/d/d$" "$t/err"
  ok $? "$o to a path of 990 characters in a missing directory: exit 3, the reason kept in the message (rc=$rc: $(head -c 100 "$t/err"))"
done
# outputs that are no regular file are written through (a FIFO stays a FIFO, a link a link)
mkfifo "$t/fifo" && { cat "$t/fifo" >"$t/fifo.out" & }
"$CLCG_BIN" --generate poisson2d:4 -o "$t/fifo" -q; rc=$?
wait
[ $rc -eq 0 ] && [ -p "$t/fifo" ] && [ "$(wc -l <"$t/fifo.out")" -eq 18 ]
ok $? "-o onto a FIFO: written through it (rc=$rc, $(wc -l <"$t/fifo.out") lines)"
: >"$t/target.mtx"; ln -s target.mtx "$t/out.lnk"
"$CLCG_BIN" --generate poisson2d:4 -o "$t/out.lnk" -q; rc=$?
[ $rc -eq 0 ] && [ -L "$t/out.lnk" ] && [ "$(wc -l <"$t/target.mtx")" -eq 18 ]
ok $? "-o onto a symbolic link: its target written, the link kept (rc=$rc)"
"$CLCG_BIN" --generate poisson2d:4 -o /dev/stdout -q >"$t/so.txt"; rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <"$t/so.txt")" -eq 18 ] && [ -L /dev/stdout -o ! -f /dev/stdout ]
ok $? "-o /dev/stdout redirected to a file: written there (rc=$rc)"
"$CLCG_BIN" --generate poisson2d:4 -o /dev/stdout >"$t/so.txt"; rc=$?
[ $rc -eq 0 ] && [ "$(sed -n 1p "$t/so.txt" | cut -c1-14)" = "%%MatrixMarket" ] && [ "$(grep -n 'converged in' "$t/so.txt" | cut -d: -f1)" -gt 18 ]
ok $? "-o /dev/stdout with the report: the solution whole, then the report, as written (rc=$rc)"
"$CLCG_BIN" --generate poisson2d:4 -o /dev/null --json /dev/null -q; rc=$?
[ $rc -eq 0 ]; ok $? "-o and --json both /dev/null: allowed, devices are written through (rc=$rc)"
"$CLCG_BIN" --generate poisson2d:4 --write-binary /dev/null -q 2>"$t/err"; rc=$?
[ $rc -eq 3 ] && grep -q 'not a regular file' "$t/err"
ok $? "--write-binary onto a device: exit 3 before loading (rc=$rc)"
"$CLCG_BIN" --generate poisson2d:4 --tune-cache "$t/new/dir/tune.txt" -q; rc=$?
[ $rc -eq 0 ] && [ -s "$t/new/dir/tune.txt" ]
ok $? "--tune-cache in directories not there yet: made (rc=$rc)"
# a cache that cannot be written costs only a new search next time; the record says so,
# instead of "saved in" (a directory where the cache file would be)
mkdir -p "$t/xdg/clcg-mpi/tune.txt"
XDG_CACHE_HOME="$t/xdg" POCL_CACHE_DIR="$t/pocl" "$CLCG_BIN" --generate poisson2d:4 --tune --devices-per-rank 1 --json "$t/tj.json" -q; rc=$?
[ $rc -eq 0 ] && grep -q "\"tuning\": \"searched (.*), not saved: cannot write $t/xdg/clcg-mpi/tune.txt\"" "$t/tj.json"
ok $? "--tune with a cache that cannot be written: solved, the record says not saved (rc=$rc: $(grep -o '"tuning": "[^"]*' "$t/tj.json"))"
# PoCL lists no device when its kernel cache has no usable folder: the message says so
if CLCG_DEVICE_TYPE=all "$CLCG_BIN" --list-devices 2>/dev/null | grep -q "Portable Computing Language"; then
  (unset POCL_CACHE_DIR; CLCG_DEVICE_TYPE=cpu XDG_CACHE_HOME=/dev/null "$CLCG_BIN" --generate poisson2d:4 >"$t/out" 2>"$t/err"); rc=$?
  [ $rc -eq 5 ] && [ "$(wc -l <"$t/err")" -eq 1 ] && grep -q "no OpenCL cpu device found (see --list-devices): PoCL needs a writable folder for its kernel cache, and /dev/null is not a folder" "$t/err"
  ok $? "XDG_CACHE_HOME=/dev/null under PoCL: exit 5, the cache folder named (rc=$rc: $(head -c 200 "$t/err"))"
  # tried for real, not by access(), which passes for root in /proc; a file where the folder
  # should be lets PoCL list its device, whose build then fails: said there too
  echo "not a folder" >"$t/pocl-file"
  for cd in /proc/clcg-cache "$t/pocl-file"; do
    CLCG_DEVICE_TYPE=cpu POCL_CACHE_DIR="$cd" "$CLCG_BIN" --generate poisson2d:4 -o "$t/pc.mtx" >"$t/out" 2>"$t/err"; rc=$?
    case $cd in
      /proc/*) want="and $cd cannot be made in /proc (" ;;
      *) want="and $cd is not a folder;" ;;
    esac
    [ $rc -eq 5 ] && [ ! -e "$t/pc.mtx" ] && [ "$(grep -c '^clcg-mpi: \(no OpenCL cpu device found\|building the kernels\)' "$t/err")" -eq 1 ] &&
      grep -qF "PoCL needs a writable folder for its kernel cache, $want" "$t/err"
    ok $? "POCL_CACHE_DIR=$cd under PoCL: exit 5, the cache folder named (rc=$rc: $(grep '^clcg-mpi: [nb]' "$t/err" | head -c 250))"
  done
else
  skip "PoCL's kernel cache folder" "no PoCL platform here"
fi
# the name a random matrix is reported by builds that matrix again: AVG in full (27.9614
# for 27.9614004 draws fewer long edges: 138792 entries against 138830)
for g in random:5000,27.9614004 random:5000,16.5,3 random:4000; do
  "$CLCG_BIN" --generate "$g" --load-only >"$t/out" 2>"$t/err"; rc=$?
  name=$(sed -n 's/: n = .*//p' "$t/out"); nnz=$(sed -n 's/.* nnz = \([0-9]*\),.*/\1/p' "$t/out")
  "$CLCG_BIN" --generate "$name" --load-only >"$t/out2" 2>>"$t/err"; rc2=$?
  nnz2=$(sed -n 's/.* nnz = \([0-9]*\),.*/\1/p' "$t/out2")
  [ $rc -eq 0 ] && [ $rc2 -eq 0 ] && [ -n "$nnz" ] && [ "$nnz" = "$nnz2" ] && [ "$(sed -n 's/: n = .*//p' "$t/out2")" = "$name" ]
  ok $? "--generate $g is reported as $name, which builds it again ($nnz / $nnz2 entries; rc=$rc/$rc2 $(head -c 100 "$t/err"))"
done
# and in its plain form: 40 is reported as 40, not 4e+01
"$CLCG_BIN" --generate random:3000,40 --load-only >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && grep -q '^random:3000,40,1: n = 3000,' "$t/out"
ok $? "--generate random:3000,40 is reported as random:3000,40,1 (rc=$rc: $(head -c 40 "$t/out"))"
# CLCG_BINS (development): team sizes must be powers of two (3, 5 or 7 made the sums skip
# entries and the SpMV wrong: "not positive definite" on an SPD matrix); a valid one solves
"$CLCG_BIN" -q --generate random:3000,16 --write-matrix "$t/rb.mtx"
for b in 32:3,1024:5,7 32:4,1024:32,100000 32:4,1024:32,3 32:4 32:4,16:32,256 32:4,1024:32,256x; do
  CLCG_BINS=$b "$CLCG_BIN" "$t/rb.mtx" --format csr-adaptive -o "$t/xb.mtx" >"$t/out" 2>"$t/err"; rc=$?
  [ $rc -eq 2 ] && [ ! -e "$t/xb.mtx" ] && [ "$(wc -l <"$t/err")" -eq 1 ] && grep -q "CLCG_BINS=$b: expected" "$t/err"
  ok $? "CLCG_BINS=$b: exit 2 and one message (rc=$rc: $(head -c 100 "$t/err"))"
done
CLCG_BINS=8:2,64:16,128 "$CLCG_BIN" "$t/rb.mtx" --format csr-adaptive -o "$t/xb.mtx" -q; rc=$?
r=$(residual "$t/rb.mtx" "$t/xb.mtx")
[ $rc -eq 0 ] && le "$r" 1e-7
ok $? "CLCG_BINS=8:2,64:16,128: solved, true residual $r (rc=$rc)"
# a tuning cache that is not a regular file would never end (/dev/zero) or never open (a FIFO)
[ -p "$t/fifo" ] || mkfifo "$t/fifo"   # made above for -o
for c in /dev/zero "$t/fifo"; do
  timeout 60 "$CLCG_BIN" "$t/in.mtx" --tune-cache "$c" >"$t/out" 2>"$t/err"; rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l <"$t/err")" -eq 1 ] && grep -q -- "--tune-cache $c: not a regular file" "$t/err"
  ok $? "--tune-cache $c: exit 2 and one message (rc=$rc: $(head -c 200 "$t/err"))"
done
# a path of 6000 characters: the message keeps its start and its end, which says what is wrong
lp=$(awk 'BEGIN { for (i = 0; i < 2999; i++) printf "a/"; printf "x.mtx" }')
"$CLCG_BIN" "$lp" >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 3 ] && [ "$(wc -l <"$t/err")" -eq 1 ] && grep -q '/a/x.mtx: cannot open: File name too long$' "$t/err"
ok $? "a path of 6000 characters: exit $rc, one message ending in what is wrong ($(tail -c 60 "$t/err"))"
mkdir -p "$t/xdg/clcg-mpi" && mkfifo "$t/xdg/clcg-mpi/tune.txt"
XDG_CACHE_HOME="$t/xdg" timeout 120 "$CLCG_BIN" --generate poisson2d:4 --tune -q 2>"$t/err"; rc=$?
[ $rc -eq 0 ]; ok $? "a FIFO where the default tuning cache would be: not used, solved (rc=$rc $(head -c 100 "$t/err"))"
# modes that stop before the solve, with outputs they would never write
usage_error "--write-matrix with --write-binary" --generate poisson2d:4 --write-matrix "$t/a.mtx" --write-binary "$t/a.bin"
usage_error "--write-matrix with --json" --generate poisson2d:4 --write-matrix "$t/a.mtx" --json "$t/a.json"
usage_error "--write-binary with -o" --generate poisson2d:4 --write-binary "$t/a.bin" -o "$t/x.mtx"
usage_error "--load-only with -o" --generate poisson2d:4 --load-only -o "$t/x.mtx"
usage_error "--list-devices with -o" --list-devices -o "$t/x.mtx"
usage_error "--list-devices with a matrix" --list-devices "$t/a.mtx"
usage_error "--list-devices with --generate" --list-devices --generate poisson2d:4
usage_error "--list-devices with --write-binary" --list-devices --write-binary "$t/a.bin"
usage_error "--list-devices with --reference" --list-devices --reference
# --list-devices numbers the devices as --device counts them: among those --device-type and
# --platform leave (two PoCL devices here, beside whatever else the machine has), "-" for others
if CLCG_DEVICE_TYPE=all "$CLCG_BIN" --list-devices 2>/dev/null | grep -q "Portable Computing Language"; then
  pocl_nums() { awk 'NR > 1 && /Portable Computing Language/{printf "%s ", $1}' "$1"; }
  POCL_DEVICES="pthread pthread" "$CLCG_BIN" --list-devices --device-type cpu --platform portable >"$t/ld" 2>"$t/err"; rc=$?
  nums=$(pocl_nums "$t/ld")
  if [ "$(echo $nums | wc -w)" -ne 2 ]; then
    skip "--list-devices numbers two PoCL devices" "this PoCL does not show two devices for POCL_DEVICES=\"pthread pthread\" ($nums)"
  else
    [ $rc -eq 0 ] && [ "$nums" = "0 1 " ] &&
      grep -q "^# counts the devices a run picks from: cpu devices on platforms matching 'portable'$" "$t/ld" &&
      POCL_DEVICES="pthread pthread" "$CLCG_BIN" --generate poisson2d:4 --device-type cpu --platform portable --device 1 -q &&
      ! POCL_DEVICES="pthread pthread" "$CLCG_BIN" --generate poisson2d:4 --device-type cpu --platform portable --device 2 2>"$t/err2" &&
      grep -q -- '--device 2: only 2 matching devices' "$t/err2"
    ok $? "--list-devices numbers the two PoCL devices 0 and 1, as --device takes them (rc=$rc: $nums$(head -c 200 "$t/err"))"
  fi
  for f in "--platform no-such-platform" "--device-type all --platform no-such"; do
    # shellcheck disable=SC2086
    POCL_DEVICES="pthread pthread" "$CLCG_BIN" --list-devices $f >"$t/ld" 2>"$t/err"; rc=$?
    nums=$(pocl_nums "$t/ld")
    [ $rc -eq 0 ] && [ -n "$nums" ] && [ -z "$(echo $nums | tr -d ' -')" ] && ! awk 'NR > 1 && / GiB / && $1 != "-"' "$t/ld" | grep -q . &&
      grep -q '^no device matches: ' "$t/ld" && [ ! -s "$t/err" ]
    ok $? "--list-devices $f: every device listed, none numbered, none said to match (rc=$rc: $nums)"
  done
  # --platform alone: the default type is taken over the platforms it leaves, as a run takes it
  # (over every platform, a GPU beside PoCL made the PoCL rows "-" while --device 0 ran on one)
  (unset CLCG_DEVICE_TYPE; "$CLCG_BIN" --list-devices --platform portable >"$t/ld" 2>"$t/err"); rc=$?
  (unset CLCG_DEVICE_TYPE; "$CLCG_BIN" --generate poisson2d:4 --platform portable --device 0 -q --json "$t/pd.json" 2>>"$t/err"); rc2=$?
  nums=$(pocl_nums "$t/ld")
  [ $rc -eq 0 ] && [ $rc2 -eq 0 ] && [ "${nums%% *}" = 0 ] && grep -q '"platform": "Portable Computing Language"' "$t/pd.json" &&
    grep -q "^# counts the devices a run picks from: cpu devices on platforms matching 'portable' (the default: GPUs where those have any, else CPUs)$" "$t/ld"
  ok $? "--list-devices --platform portable: the PoCL device numbered 0, as --device 0 takes it (rc=$rc/$rc2: $nums)"
  POCL_DEVICES="pthread pthread" "$CLCG_BIN" --list-devices --device-type gpu >"$t/ld" 2>"$t/err"; rc=$?
  nums=$(pocl_nums "$t/ld")
  [ $rc -eq 0 ] && [ -n "$nums" ] && [ -z "$(echo $nums | tr -d ' -')" ] && grep -q ' gpu devices$' "$t/ld"
  ok $? "--list-devices --device-type gpu: the PoCL CPU devices listed, not numbered (rc=$rc: $nums)"
fi
# too few open files for the OpenCL loader to open its vendors' files: the message names the
# limit.  Where the MPI library starts under it and the loader does not depends on how many the
# launcher holds: the first limit from 12 to 28 at which the loader finds no platform.
seen=
for n in 12 14 16 17 18 19 20 22 24 28; do
  out=$($MPIEXEC -n 1 sh -c "ulimit -n $n && exec \"$CLCG_BIN\" --generate poisson2d:6 -q" 2>&1); rc=$?
  echo "$out" | grep -q '^clcg-mpi: no OpenCL platform found' || continue
  seen=$n
  [ $rc -eq 5 ] && echo "$out" | grep -q "^clcg-mpi: no OpenCL platform found: .*; or too few open files allowed (ulimit -n is $n here)\$"
  ok $? "no OpenCL platform under ulimit -n $n: exit 5, the message names the limit (rc=$rc)"
  break
done
[ -n "$seen" ] || skip "no OpenCL platform under a low ulimit -n" "at each limit tried the run got past the loader or failed before it"
# the settings users give through the environment: a value that cannot be meant is refused
for v in CLCG_HALO_SHM=off CLCG_HALO_SHM=3 CLCG_SR_ROWS=abc CLCG_SR_ROWS=-1 CLCG_SR_ROWS=nan CLCG_SHM_RANKS=-2 CLCG_SHM_RANKS=x \
         CLCG_P_PASS=bogus CLCG_PACK_FIRST=7 CLCG_WARMUP=5 CLCG_X_SPLIT=abc CLCG_X_SPLIT=1 CLCG_READ_CHUNK=0 \
         CLCG_READ_CHUNK=-64 CLCG_PARSE_MIN=abc CLCG_FAULT=1:solve CLCG_FAULT=0:nothing CLCG_FAULT=solve \
         CLCG_SIDE=x CLCG_HALO_COPY=2 CLCG_FINISH=no CLCG_HOST_PATH=-1 CLCG_NO_PTX=yes CLCG_NO_MMAP=2 \
         CLCG_MPIIO_ONLY=on CLCG_BINARY_WIDE=x CLCG_TRACE=9 CLCG_LOAD_TRACE=yes CLCG_MEM_AVAILABLE=nan \
         CLCG_MEM_AVAILABLE=-1 CLCG_MEM_AVAILABLE=1x CLCG_PROF_TIMELINE=-5 CLCG_PROF_TIMELINE=x; do
  env "$v" "$CLCG_BIN" --generate poisson2d:4 -o "$t/xe.mtx" >"$t/out" 2>"$t/err"; rc=$?
  [ $rc -eq 2 ] && [ ! -e "$t/xe.mtx" ] && [ "$(wc -l <"$t/err")" -eq 1 ] && grep -q "^clcg-mpi: $v: expected" "$t/err"
  ok $? "$v: exit 2 and one message (rc=$rc: $(head -c 100 "$t/err"))"
done
for v in CLCG_HALO_SHM=0 CLCG_HALO_SHM=2 CLCG_SR_ROWS=1e6 CLCG_SHM_RANKS=2 CLCG_SHM_RANKS= CLCG_P_PASS=fused \
         CLCG_PACK_FIRST=0 CLCG_WARMUP=1 CLCG_X_SPLIT=0.25 CLCG_READ_CHUNK=64 CLCG_PARSE_MIN=0 CLCG_FAULT=0:window \
         CLCG_SIDE=0 CLCG_HALO_COPY=1 CLCG_FINISH=0 CLCG_HOST_PATH=1 CLCG_NO_PTX=0 CLCG_NO_MMAP=1 CLCG_MPIIO_ONLY=0 \
         CLCG_BINARY_WIDE=0 CLCG_TRACE=0 CLCG_LOAD_TRACE=0 CLCG_MEM_AVAILABLE=23e9 CLCG_PROF_TIMELINE=0; do
  env "$v" "$CLCG_BIN" --generate poisson2d:4 -q 2>"$t/err"; rc=$?
  [ $rc -eq 0 ]; ok $? "$v: accepted (rc=$rc $(head -c 80 "$t/err"))"
done
[ ! -e "$t/a.mtx" ] && [ ! -e "$t/a.bin" ] && [ ! -e "$t/x.mtx" ]; ok $? "nothing written by those"
# options that do not apply are said to be so, not dropped in silence
"$CLCG_BIN" --reference --generate poisson2d:6 --variant pipelined >/dev/null 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && grep -q '^clcg-mpi: warning: --reference runs the host.s standard CG: --variant does not apply' "$t/err"
ok $? "--reference with --variant: solved, a warning says it does not apply (rc=$rc)"
"$CLCG_BIN" --reference --generate poisson2d:6 --profile --device 0 --no-tune >/dev/null 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <"$t/err")" -eq 1 ] &&
  grep -q '^clcg-mpi: warning: --reference runs the host.s standard CG: --profile, --device, --no-tune do not apply$' "$t/err"
ok $? "--reference with three device options: solved, one warning names them all (rc=$rc: $(head -c 200 "$t/err"))"
"$CLCG_BIN" --reference --generate poisson2d:6 >/dev/null 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && [ ! -s "$t/err" ]; ok $? "--reference alone: no warning (rc=$rc)"
"$CLCG_BIN" --generate poisson2d:6 --write-matrix "$t/idle.mtx" --rtol 1e-6 --precond none --variant standard \
  --exchange allgather --tune >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <"$t/err")" -eq 1 ] && grep -q '^wrote ' "$t/out" && [ -s "$t/idle.mtx" ] &&
  grep -q '^clcg-mpi: warning: --write-matrix stops before the solve: --rtol, --precond, --exchange, --variant, --tune do nothing$' "$t/err"
ok $? "--write-matrix with solver and device options: written, one warning names them all (rc=$rc: $(head -c 200 "$t/err"))"
"$CLCG_BIN" --generate poisson2d:6 --load-only --exchange allgather --precond none --max-iterations 5 --reference >/dev/null 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && [ "$(wc -l <"$t/err")" -eq 1 ] &&
  grep -q '^clcg-mpi: warning: --load-only stops before the solve: --reference, --max-iterations do nothing$' "$t/err"
ok $? "--load-only with --exchange and --precond none (used: the halo is set up, the diagonal checked for Jacobi or not), --max-iterations and --reference: a warning names the two idle ones (rc=$rc: $(head -c 200 "$t/err"))"
"$CLCG_BIN" --generate poisson2d:6 --write-binary "$t/idle.bin" --monitor -q >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && [ ! -s "$t/err" ] && [ ! -s "$t/out" ] && [ -s "$t/idle.bin" ]
ok $? "--write-binary with --monitor and -q: written, no warning, nothing printed (rc=$rc)"
"$CLCG_BIN" --generate poisson2d:6 --write-matrix "$t/idle2.mtx" --no-symmetry-check >/dev/null 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && [ ! -s "$t/err" ]; ok $? "--write-matrix with --no-symmetry-check (it uses it): no warning (rc=$rc)"
rm -f "$t/idle.mtx" "$t/idle.bin" "$t/idle2.mtx"
"$CLCG_BIN" --generate poisson2d:6 --jacobi-scaled --precond none >/dev/null 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && grep -q 'warning: --jacobi-scaled needs --precond jacobi' "$t/err"
ok $? "--jacobi-scaled with --precond none: solved, a warning says it does not apply (rc=$rc)"
"$CLCG_BIN" --generate poisson2d:6 --devices-per-rank 1 --jacobi-scaled >/dev/null 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && [ ! -s "$t/err" ]; ok $? "--jacobi-scaled where it applies (one device): no warning (rc=$rc)"
# a name of 250 characters: its temporary name beside it must stay within the 255 allowed
long="$t/$(printf '%0250d' 0 | tr 0 a)"
"$CLCG_BIN" --generate poisson2d:4 --write-matrix "$long" -q 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && [ -s "$long" ] && [ "$(ls -A "$t" | grep -c 'clcg-\|tmp\.')" -eq 0 ]
ok $? "--write-matrix to a 250-character name: written, no temporary left (rc=$rc $(head -c 100 "$t/err"))"
rm -f "$long"
# a job cancelled while writing (SIGTERM), or sent another signal that ends it (SLURM's
# --signal=USR1 without B: reaches the steps; a CPU time limit): the temporary file is removed
# (under mpiexec, the signal sent to the rank, whose pid the temporary name carries; a
# singleton's MPI library catches SIGUSR1 itself and lets the process go on)
mkdir "$t/sig"
for sig in TERM USR1 XCPU; do
  timeout 300 $MPIEXEC -n 1 "$CLCG_BIN" --generate poisson3d:100 --write-matrix "$t/sig/A.mtx" -q & pid=$!
  wait_tmp "$t/sig" $pid
  seen=$(ls "$t/sig" | grep -c tmp)
  kill -$sig "$(ls "$t/sig" | sed -n 's/.*\.tmp\.//p')"; wait $pid; rc=$?
  [ "$seen" -eq 1 ] && [ $rc -gt 128 ] && [ "$(kill -l $rc)" = "$sig" ] && [ -z "$(ls -A "$t/sig")" ]
  ok $? "SIG$sig while --write-matrix writes: ended by it, the temporary file is gone (rc=$rc, seen $seen, left: $(ls -A "$t/sig"))"
  rm -f "$t/sig/"*
done
# a singleton, where a library loaded in MPI_Init (PoCL's LLVM) takes SIGUSR2 and ends the
# process itself: the temporary file is still removed
"$CLCG_BIN" --generate poisson3d:100 --write-matrix "$t/sig/A.mtx" -q 2>/dev/null & pid=$!
wait_tmp "$t/sig" $pid
seen=$(ls "$t/sig" | grep -c tmp)
kill -USR2 $pid; wait $pid; rc=$?
[ "$seen" -eq 1 ] && [ $rc -gt 128 ] && [ "$(kill -l $rc)" = USR2 ] && [ -z "$(ls -A "$t/sig")" ]
ok $? "SIGUSR2 to a singleton while --write-matrix writes: ended by it, the temporary file is gone (rc=$rc, seen $seen, left: $(ls -A "$t/sig"))"
rm -f "$t/sig/"*
# a background job of a script (SIGQUIT ignored from the start): a SIGQUIT stays ignored and
# leaves the guard of the temporary file in place; SIGTERM after it still removes the file
# (the solution held while its --json record waits on a FIFO that nobody reads)
if mkfifo "$t/sig/q.fifo" 2>/dev/null; then
  (trap '' QUIT; exec "$CLCG_BIN" --generate poisson2d:10 -o "$t/sig/x.mtx" --json "$t/sig/q.fifo" -q) 2>/dev/null & pid=$!
  wait_tmp "$t/sig" $pid
  seen=$(ls "$t/sig" | grep -c tmp)
  kill -QUIT $pid; sleep 0.3; kill -TERM $pid; wait $pid; rc=$?
  [ "$seen" -eq 1 ] && [ $rc -gt 128 ] && [ "$(kill -l $rc)" = TERM ] && [ "$(ls -A "$t/sig")" = q.fifo ]
  ok $? "SIGQUIT ignored from the start, then SIGTERM while the solution waits: ended by TERM, the waiting file gone (rc=$rc, seen $seen, left: $(ls -A "$t/sig" | tr '\n' ' '))"
  rm -f "$t/sig/"*
else
  skip "SIGQUIT ignored from the start, then SIGTERM" "no mkfifo"
fi
# SIGQUIT at its default in a singleton: PoCL's LLVM, loaded inside MPI_Init, handles it,
# lets the process go on and puts back the SIGTERM, SIGINT and SIGHUP handlers it found;
# SIGTERM after it still removes the waiting file (the guard lies beneath LLVM's too)
# (a background job of a non-interactive shell starts with SIGQUIT ignored, and dash's
# `trap - QUIT` does not undo that: python3 puts the default back before the exec)
if command -v python3 >/dev/null && mkfifo "$t/sig/q.fifo" 2>/dev/null; then
  python3 -c 'import os, signal, sys
signal.signal(signal.SIGQUIT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$CLCG_BIN" --generate poisson2d:10 -o "$t/sig/x.mtx" --json "$t/sig/q.fifo" -q 2>/dev/null & pid=$!
  wait_tmp "$t/sig" $pid
  seen=$(ls "$t/sig" | grep -c tmp)
  ign=$(sed -n 's/^SigIgn:[[:space:]]*//p' /proc/$pid/status 2>/dev/null)
  quit=unknown; [ -n "$ign" ] && { [ $((0x$ign & 4)) -eq 0 ] && quit=default || quit=ignored; }
  kill -QUIT $pid; sleep 0.3; kill -TERM $pid; wait $pid; rc=$?
  [ "$seen" -eq 1 ] && [ "$quit" = default ] && [ $rc -gt 128 ] && [ "$(kill -l $rc)" = TERM ] &&
    [ "$(ls -A "$t/sig")" = q.fifo ]
  ok $? "SIGQUIT at its default, then SIGTERM while the solution waits: ended by TERM, the waiting file gone (quit $quit, rc=$rc, seen $seen, left: $(ls -A "$t/sig" | tr '\n' ' '))"
  rm -f "$t/sig/"*
else
  skip "SIGQUIT at its default, then SIGTERM" "no mkfifo or no python3"
fi
# a job cancelled while the solution file waits for its rename (the --json record going to a
# FIFO that nobody reads): the waiting file is removed, the earlier one of that name kept
if mkfifo "$t/sig/r.fifo" 2>/dev/null; then
  echo "earlier x" >"$t/sig/x.mtx"
  timeout 300 $MPIEXEC -n 1 "$CLCG_BIN" --generate poisson2d:10 -o "$t/sig/x.mtx" --json "$t/sig/r.fifo" -q & pid=$!
  wait_tmp "$t/sig" $pid
  seen=$(ls "$t/sig" | grep -c tmp)
  kill -TERM "$(ls "$t/sig" | sed -n 's/.*\.tmp\.//p')"; wait $pid; rc=$?
  [ "$seen" -eq 1 ] && [ $rc -gt 128 ] && [ "$(kill -l $rc)" = TERM ] && [ "$(cat "$t/sig/x.mtx")" = "earlier x" ] &&
    [ "$(ls "$t/sig" | tr '\n' ' ')" = "r.fifo x.mtx " ]
  ok $? "SIGTERM while the solution waits for the --json record: ended by it, the waiting file gone, the earlier one kept (rc=$rc, seen $seen, left: $(ls -A "$t/sig" | tr '\n' ' '))"
  rm -f "$t/sig/"*
else
  skip "SIGTERM while the solution waits for the --json record" "no mkfifo"
fi
# a signal ignored when the program starts (SIGINT of a background job, as in a script's
# `cmd &`) stays ignored while it writes, although the OpenCL runtime's LLVM, loaded inside
# MPI_Init, installs a handler for it: the file is written and the run ends well
(trap '' INT; exec "$CLCG_BIN" --generate poisson3d:100 --write-matrix "$t/sig/A.mtx" -q) & pid=$!
wait_tmp "$t/sig" $pid
seen=$(ls "$t/sig" | grep -c tmp)
kill -INT $pid; wait $pid; rc=$?
[ "$seen" -eq 1 ] && [ $rc -eq 0 ] && [ -s "$t/sig/A.mtx" ] && [ "$(ls -A "$t/sig")" = A.mtx ]
ok $? "SIGINT ignored from the start, sent while --write-matrix writes: still ignored, the file written (rc=$rc, seen $seen, left: $(ls -A "$t/sig"))"
rm -f "$t/sig/"*

# a matrix whose name is not UTF-8 (a file name in another encoding): the JSON record stays
# valid JSON, the stray bytes as U+FFFD, valid UTF-8 and escapes kept as they are
nm="$t/na$(printf '\377\376')me-$(printf '\303\251')-\"q\"-$(printf '\t').mtx"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 2\n2 2 4\n' >"$nm"
"$CLCG_BIN" "$nm" --json "$t/u.json" -q; rc=$?
if command -v python3 >/dev/null; then
  got=$(python3 -c 'import json, sys
name = json.load(open(sys.argv[1], encoding="utf-8"))["matrix"].rsplit("/", 1)[1]
print(ascii(name)); sys.exit(name != "na\ufffd\ufffdme-\u00e9-\"q\"-\t.mtx")' "$t/u.json" 2>&1)
  [ $? -eq 0 ] && [ $rc -eq 0 ]
  ok $? "a file name that is not UTF-8: the JSON record parses, name read back as $got (rc=$rc)"
else
  skip "a file name that is not UTF-8 in the JSON record" "no python3"
fi

done_testing
