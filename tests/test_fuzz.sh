#!/bin/sh
# Mutated Matrix Market inputs (tests/fuzz_mm.py): random edits of small seed matrices and
# right-hand sides, a fixed seed per run (CLCG_FUZZ_SEED moves it), on 1 and 2 ranks; each run
# must end in a documented way, and a solved one must solve the system that an independent
# reader finds in the file.
. "${srcdir:-.}/tests/tap.sh"
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
fuzz="${srcdir:-.}/tests/fuzz_mm.py"
seed=${CLCG_FUZZ_SEED:-1}

if ! command -v python3 >/dev/null 2>&1; then
  skip "mutated inputs" "no python3"; done_testing; exit 0
fi

# fuzz_mm.py prints its own TAP lines; they are counted into this script's
fuzz() {  # fuzz NP CASES RHS-CASES SEED [SEED-FILE]...
  mkdir -p "$t/w$4"
  python3 "$fuzz" "$CLCG_BIN" "$t/w$4" "$@" >"$t/tap" 2>"$t/err"
  rc=$?
  grep '^#' "$t/tap"
  n=0
  while IFS= read -r line; do
    case $line in
      "not ok "*) n=$((n + 1)); ok 1 "${line#not ok [0-9]* - }" ;;
      "ok "*) n=$((n + 1)); ok 0 "${line#ok [0-9]* - }" ;;
    esac
  done <"$t/tap"
  [ "$rc" -eq 0 ] && [ "$n" -eq 3 ]
  ok $? "fuzz_mm.py on $1 rank(s), seed $4 ran to its end ($n checks$(tail -n 3 "$t/err" | tr "\n" " " | sed "s/^./; &/"))"
}

fuzz 1 150 40 "$seed"
fuzz 2 40 10 $((seed + 1))
if have_matrices; then
  set --
  for f in "$CLCG_MATRICES"/bad/*.mtx "$CLCG_MATRICES"/spd/bcsstk01.mtx "$CLCG_MATRICES"/spd/LFAT5.mtx \
           "$CLCG_MATRICES"/spd/lund_a.mtx "$CLCG_MATRICES"/spd/ginkgo_isai_spd.mtx; do
    case $f in *long-line*) ;; *) [ -f "$f" ] && set -- "$@" "$f" ;; esac
  done
  fuzz 1 80 0 $((seed + 2)) "$@"
else
  skip "mutated shared matrices" "CLCG_MATRICES not set"
fi
done_testing
