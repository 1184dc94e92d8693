#!/bin/sh
# The benchmark programs: bench_spmv's q = A p in every storage form agrees with the host's
# SpMV (and a wrong kernel is caught: exit status 1, the form named); bench_comm on two and
# three ranks prints its JSON record with the halo exchanges timed; precision_model's forms
# count as the program does.
. "${srcdir:-.}/tests/tap.sh"
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
# development settings that would change what runs (forms, kernel source, build log on stderr)
unset BENCH_FORMATS CLCG_CL_OPTIONS CLCG_CL_DIR CLCG_DUMP_CSR
bdir=${abs_top_builddir:-.}/bench
cl=${srcdir:-.}/cl
forms="csr-scalar csr-vector sell csr-adaptive csr-stream"

# spmv_ok OUT: one row per form, each with an error column <= 1e-12 (rows of up to ~1100 entries)
spmv_ok() {
  for f in $forms; do
    e=$(awk -F'|' -v f="$f" '$3 ~ "^ " f "[ (]" { gsub(/ /, "", $7); print $7 }' "$1")
    [ -n "$e" ] && le "$e" 1e-12 || return 1
  done
  grep -q '^automatic choice: ' "$1"
}
list="poisson3d:16 random:3000,8 poisson2d:37"
have_matrices && list="$list $CLCG_MATRICES/spd/bcsstk14.mtx $CLCG_MATRICES/spd/LFAT5.mtx"
for m in $list; do
  timeout 300 "$bdir/bench_spmv" "$m" >"$t/out" 2>"$t/err"; rc=$?
  [ $rc -eq 0 ] && spmv_ok "$t/out" && [ ! -s "$t/err" ]
  ok $? "bench_spmv $(basename "$m"): every form agrees with the host's SpMV (rc=$rc) $(head -c 200 "$t/err")"
done
# wrong kernels: the check fails (exit status 1), naming the form.  mutant FORM AWK-PROGRAM:
# spmv.cl changed by the awk program (the mutation must apply), bench_spmv on that form alone
mutant() {
  rm -rf "$t/cl" && mkdir "$t/cl" && cp "$cl"/*.cl "$t/cl/" && awk "$2" "$cl/spmv.cl" >"$t/cl/spmv.cl"
  if cmp -s "$cl/spmv.cl" "$t/cl/spmv.cl"; then
    ok 1 "bench_spmv with a wrong $1 kernel: the mutation did not apply (spmv.cl changed?)"
    return
  fi
  BENCH_FORMATS=$1 CLCG_CL_DIR="$t/cl" timeout 300 "$bdir/bench_spmv" poisson3d:16 >"$t/out" 2>"$t/err"; rc=$?
  [ $rc -eq 1 ] && grep -q "^bench_spmv: $1: row [0-9]* of q = A p is off by" "$t/err"
  ok $? "bench_spmv with a wrong $1 kernel: rc=$rc, $(head -n 1 "$t/err")"
}
# the fourth of four products added in a turn replaced by the third (SELL's unrolled rows)
mutant sell '{ sub(/s \+= v3 \* f3;/, "s += v3 * f2;") } { print }'
# csr-stream's short rows: q one too large
mutant csr-stream '!d && /q\[rs \+ t\] = s;/ { sub(/= s;/, "= s + 1;"); d = 1 } { print }'

# precision_model: its standard form in double is the host reference's iteration (the same
# arithmetic, dot products in double-double), its pipelined form the device's recurrences
# (PoCL's csr-scalar adds rows in the reference's order; +-1 for a CPU whose vector code
# fuses multiply-adds); DRAWS perturbed right-hand sides: a row each and the summary
"$CLCG_BIN" -q --generate poisson2d:30 --write-matrix "$t/p2d.mtx"
list="$t/p2d.mtx"
have_matrices && list="$list $CLCG_MATRICES/spd/bcsstk08.mtx"
for m in $list; do
  timeout 300 "$bdir/precision_model" "$m" >"$t/pm" 2>"$t/err"; rc=$?
  "$CLCG_BIN" "$m" --reference --json "$t/r.json" -q 2>>"$t/err"
  "$CLCG_BIN" "$m" --variant pipelined --json "$t/p.json" -q 2>>"$t/err"
  ref=$(json_num "$t/r.json" iterations); pip=$(json_num "$t/p.json" iterations)
  set -- $(awk '$1 == "double" && $2 == "double" { print $3, $4 }' "$t/pm")
  [ $rc -eq 0 ] && [ "${1:-x}" = "$ref" ] && absdiff_le "${2:-x}" "$pip" 1
  ok $? "precision_model $(basename "$m"): standard / pipelined in double $1 / $2, the program $ref / $pip (rc=$rc) $(head -c 200 "$t/err")"
done
timeout 300 "$bdir/precision_model" "$t/p2d.mtx" 1e-8 4 >"$t/pm" 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && [ "$(grep -c '^[0-3]  ' "$t/pm")" -eq 4 ] && grep -q '^pipelined, long double .* of 4$' "$t/pm" &&
  grep -q '^predict-and-recompute .* of 4$' "$t/pm" && grep -q '^pipelined, replacement .* of 4$' "$t/pm" &&
  grep -q '^pipelined, scaled .* of 4$' "$t/pm" && grep -q '^Gropp .* of 4$' "$t/pm" &&
  [ "$(awk '$1 ~ /^[0-3]$/ && NF == 9' "$t/pm" | wc -l)" -eq 4 ]
ok $? "precision_model DRAWS 4: four draws of eight forms and the summary (rc=$rc)"
# a well-conditioned matrix, replacement after every iteration: each form (the predict-and-
# recompute one, the replacing one, the scaled one and Gropp's too) converges within 2 iterations of
# the standard form
timeout 300 "$bdir/precision_model" "$t/p2d.mtx" 1e-8 1 1 >"$t/pm" 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && awk '$1 == "0" && NF == 9 { for (i = 2; i <= 9; i++) if ($i < 1 || $i - $2 > 2 || $2 - $i > 2) exit 1; f = 1 }
  END { exit !f }' "$t/pm"
ok $? "precision_model REPLACE 1: every form within 2 of the standard one, $(awk '$1 == "0"' "$t/pm") (rc=$rc)"
# the scaled form on a matrix whose diagonal spans seven decades (a random one, row and column
# i times 100^(i mod 3)): Jacobi-PCG's iterates do not change with such a scaling, and the
# scaled form's take as many iterations to the unscaled residual's tolerance (a square root
# missing from the scaling costs thousands; the stop test on the scaled residual, 2 more)
"$CLCG_BIN" -q --generate random:3000,8 --write-matrix "$t/r3k.mtx"
awk 'NR <= 2 { print; next } { printf "%d %d %.17g\n", $1, $2, $3 * 100 ^ ($1 % 3) * 100 ^ ($2 % 3) }' "$t/r3k.mtx" >"$t/r3ks.mtx"
timeout 300 "$bdir/precision_model" "$t/r3ks.mtx" 1e-8 1 >"$t/pm" 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && awk '$1 == "0" && NF == 9 && $2 >= 1 && $8 - $2 <= 1 && $2 - $8 <= 1 { f = 1 } END { exit !f }' "$t/pm"
ok $? "precision_model, scaled form on a badly scaled matrix: standard and scaled within 1, $(awk '$1 == "0"' "$t/pm") (rc=$rc)"
for bad in "1e-8 x" "1e-8 -1" "2 4" "1e-8 4 0" "1e-8 4 y"; do
  timeout 60 "$bdir/precision_model" "$t/p2d.mtx" $bad >"$t/pm" 2>"$t/err"; rc=$?
  [ $rc -eq 2 ] && [ ! -s "$t/pm" ] && [ "$(wc -l <"$t/err")" -eq 1 ]
  ok $? "precision_model $bad: usage error, exit $rc, $(head -c 120 "$t/err")"
done

# bench_comm on one rank: refused (its figures are between ranks; it printed zeros as rates)
timeout 120 $MPIEXEC -n 1 "$bdir/bench_comm" >"$t/comm" 2>"$t/err"; rc=$?
[ $rc -ne 0 ] && [ ! -s "$t/comm" ] && grep -q '^bench_comm: needs 2 or more ranks' "$t/err"
ok $? "bench_comm on 1 rank: refused, no record (rc=$rc: $(head -c 120 "$t/err"))"
# bench_comm: two ranks, one JSON object, the exchange and the transfers timed
timeout 300 $MPIEXEC -n 2 "$bdir/bench_comm" >"$t/comm" 2>"$t/err"; rc=$?
python3 - "$t/comm" <<'PY'
import json, sys
j = json.loads(open(sys.argv[1]).read())
assert j["ranks"] == 2, j
for k in ("mpi_latency_s", "exchange_512k_s", "exchange_512k_pinned_s", "exchange_64m_pinned_s", "h2d_pinned_512k_GBps", "d2h_pinned_64m_GBps"):
    assert j[k] > 0, k
PY
r=$?
[ $rc -eq 0 ] && [ $r -eq 0 ]
ok $? "bench_comm on 2 ranks: rc=$rc, a JSON record with the exchange and transfer rates $(head -c 200 "$t/err")"
# on 3 ranks also every rank's exchange with both neighbours at once (the inner slab's halo)
timeout 300 $MPIEXEC -n 3 "$bdir/bench_comm" >"$t/comm" 2>"$t/err"; rc=$?
python3 - "$t/comm" <<'PY'
import json, sys
j = json.loads(open(sys.argv[1]).read())
assert j["ranks"] == 3 and j["slab_halo_512k_s"] > 0 and j["exchange_512k_s"] > 0, j
PY
r=$?
[ $rc -eq 0 ] && [ $r -eq 0 ]
ok $? "bench_comm on 3 ranks: rc=$rc, the slab halo timed too $(head -c 200 "$t/err")"
# summarize.py (gpu_bench.sh's tables): the summary comes last, and the SpMV of the automatic
# storage form is put beside the peer's on the same matrix (a peer record made up here: 2x
# slower than ours, on the same n and nnz)
mkdir -p "$t/sum"
timeout 300 "$bdir/bench_spmv" random:3000,8 >"$t/sum/spmv-random.txt" 2>/dev/null
"$CLCG_BIN" --generate random:3000,8 --profile --rtol 1e-30 --max-iterations 20 --json "$t/sum/clcg-random-none.json" \
  --precond none -q 2>/dev/null
python3 - "$t/sum" <<'PY'
import json, re, sys
d = sys.argv[1]
text = open(d + "/spmv-random.txt").read()
n, nnz = map(int, re.search(r"n = (\d+), nnz = (\d+)", text).groups())
auto = re.search(r"^automatic choice: (\S+)", text, re.M).group(1)
us = [float(l.split("|")[4]) for l in text.splitlines() if l.startswith("|") and l.split("|")[2].strip().split("(")[0] == auto][0]
r = json.load(open(d + "/clcg-random-none.json"))
with open(d + "/cupy-random.jsonl", "w") as f:
    f.write(json.dumps({"what": "spmv", "n": n, "nnz": nnz, "device": "peer", "seconds": 2 * us * 1e-6, "gbps": 1.0}) + "\n")
    f.write(json.dumps({"what": "cg", "n": r["n"], "nnz": r["nnz"], "device": "peer", "seconds_per_iteration": 3 * r["times"]["per_iteration"]}) + "\n")
PY
python3 "${srcdir:-.}/bench/summarize.py" "$t/sum" >"$t/sum.txt" 2>"$t/err"; rc=$?
last=$(grep -v '^$' "$t/sum.txt" | tail -n 1)
cg=$(grep '^| random-none |' "$t/sum.txt")
[ $rc -eq 0 ] && [ ! -s "$t/err" ] && echo "$last" | grep -q '^| random:3000,8 | .* | 2\.00x |$' &&
  echo "$cg" | grep -q ' | 3\.00x | ' && [ "$(grep -n '^| case |' "$t/sum.txt" | cut -d: -f1)" -gt "$(grep -n '| kernel |' "$t/sum.txt" | tail -n 1 | cut -d: -f1)" ]
ok $? "summarize.py: the summary last, after the per-kernel tables; SpMV and CG against the peer (rc=$rc: $last; $cg)"
# gpu_bench.sh itself, tiny, on this machine's device: every case, the summary last; an earlier
# call's files in OUTDIR are not reported as this call's; a run that fails is named and makes
# the status 1 (after the tables); bad settings are refused before anything runs
mkdir -p "$t/gb"; echo '{"n": 1}' >"$t/gb/clcg-stale-case.json"
CLCG_BIN="$CLCG_BIN" CLCG_BENCH_RANDOM=random:3000,8 CLCG_BENCH_ITERATIONS=5 CLCG_BENCH_REPEATS=1 \
  timeout 600 bash "${srcdir:-.}/bench/gpu_bench.sh" "$t/gb" 8 >"$t/gb.out" 2>"$t/err"; rc=$?
[ $rc -eq 0 ] && [ ! -s "$t/err" ] && [ ! -e "$t/gb/clcg-stale-case.json" ] && ! grep -q stale "$t/gb.out" &&
  [ "$(grep -c '^| 8-\(none\|jacobi\|jacobi-scaled\)-\(no-tune\|tune\) |' "$t/gb.out")" -eq 6 ] &&
  grep -q '^| random-none |' "$t/gb.out" &&
  grep -v '^$' "$t/gb.out" | tail -n 1 | grep -q '^| random:3000,8 | .* | [0-9.]*e[-+][0-9]* | \(- | - \|[0-9.]* | [0-9.]*x \)|$'
ok $? "gpu_bench.sh, tiny: 8 cases, the SpMV table last, an earlier call's record gone (rc=$rc) $(head -c 200 "$t/err")"
CLCG_BIN="$CLCG_BIN" CLCG_BENCH_RANDOM=random:0 CLCG_BENCH_ITERATIONS=5 CLCG_BENCH_REPEATS=1 \
  timeout 600 bash "${srcdir:-.}/bench/gpu_bench.sh" "$t/gb" 8 >"$t/gb.out" 2>"$t/err"; rc=$?
[ $rc -eq 1 ] && grep -q '^gpu_bench.sh: clcg-random-none failed (exit 2)' "$t/err" &&
  grep -q '^gpu_bench.sh: bench_spmv random:0 failed' "$t/err" && ! grep -q '^| random-none |' "$t/gb.out" &&
  grep -q '^| 8-none-tune |' "$t/gb.out"
ok $? "gpu_bench.sh with a random matrix refused: its runs named, status 1, the others' tables still there (rc=$rc)"
for bad in "SIZES=abc:size 'abc'" "CLCG_BENCH_ITERATIONS=x:CLCG_BENCH_ITERATIONS 'x'" \
           "CLCG_BENCH_REPEATS=65:CLCG_BENCH_REPEATS 65" "CLCG_BENCH_BW=0:CLCG_BENCH_BW '0'" "CLCG_BENCH_BW=1.2.3:CLCG_BENCH_BW '1.2.3'"; do
  want=${bad#*:} bad=${bad%%:*}
  size=8; case $bad in SIZES=*) size=${bad#SIZES=}; bad=CLCG_BENCH_UNUSED=1 ;; esac
  env "$bad" CLCG_BIN="$CLCG_BIN" timeout 60 bash "${srcdir:-.}/bench/gpu_bench.sh" "$t/gbx" "$size" >"$t/out" 2>"$t/err"; rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l <"$t/err")" -eq 1 ] && grep -q "^gpu_bench.sh: $want" "$t/err" && [ ! -e "$t/gbx" ]
  ok $? "gpu_bench.sh with $bad (size $size): refused before running, exit $rc, $(head -c 120 "$t/err")"
done
# the other bench scripts: bad arguments refused (exit 2), failed runs not reported as times
timeout 60 bash "${srcdir:-.}/bench/strong_probe.sh" "$t/sp" x >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 2 ] && grep -q "^strong_probe.sh: ROUNDS 'x'" "$t/err"
ok $? "strong_probe.sh with ROUNDS x: exit $rc, $(head -c 100 "$t/err")"
timeout 60 bash "${srcdir:-.}/bench/scaling_node.sh" "$t/sn" "1 x" >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 2 ] && grep -q "^scaling_node.sh: rank count 'x'" "$t/err" && [ ! -e "$t/sn" ]
ok $? "scaling_node.sh with a rank count x: exit $rc, $(head -c 100 "$t/err")"
CLCG_BIN="$CLCG_BIN" CLCG_LOAD_DIR="$t" MPIEXEC="$MPIEXEC" MPIEXEC_BOUND="$MPIEXEC" \
  timeout 300 bash "${srcdir:-.}/bench/load_bench.sh" "$t/lb" poisson3d:abc 2 >"$t/out" 2>"$t/err"; rc=$?
[ $rc -eq 1 ] && grep -q '^load_bench.sh: runs failed' "$t/err" && ! grep -q '^.mtx  *singleton  *[0-9]' "$t/out" &&
  grep -q '^.mtx  *singleton  *fail' "$t/out"
ok $? "load_bench.sh with a spec the program refuses: the runs say fail, exit $rc"
done_testing
