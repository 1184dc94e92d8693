#!/bin/bash
# Run a strong or weak scaling series of clcg-mpi: one run per (exchange, rank count,
# repeat), each writing one JSON record into the output folder, named
# SERIES-EXCHANGE-pRANKS-rREPEAT.json (collect.py reads the series from the name).
#
# Strong: the same problem on every rank count.  Weak: the problem grows with the rank
# count, the last grid dimension scaled by P (poisson3d:NX,NY,NZ -> NX,NY,NZ*P,
# poisson3d:N -> N,N,N*P, poisson2d:NX,NY -> NX,NY*P, poisson2d:N -> N,N*P; as clcg-mpi's
# --generate, poisson3d takes one size or three), so every rank owns the same slab and
# sends the same halo.
#
# usage: run-series.sh [OPTION]... [-- CLCG-MPI-ARGS...]
#   --strong | --weak        series kind (default strong; env CLCG_SERIES)
#   --ranks "1 2 4"          rank counts (env CLCG_RANKS, default "1 2 4")
#   --size KIND:SIZE|FILE    problem; for --weak the size on one rank
#                            (env CLCG_PROBLEM, default poisson3d:64)
#   --exchange "needed neighbor"  exchange modes (env CLCG_EXCHANGE, default neighbor)
#   --precond none|jacobi    (env CLCG_PRECOND, default jacobi)
#   --repeats N              runs per point (env CLCG_REPEATS, default 1)
#   --out DIR                output folder (env CLCG_OUT, default scaling-out); one that
#                            already holds records of this series (SERIES-*.json) is
#                            refused, since collect.py would average them with the new ones
#   --append                 add to such a folder: each point's repeats are numbered on
#                            after the records it has
#   --bin PATH               the binary (env CLCG_BIN; default the repository's built
#                            clcg-mpi, two folders above this script, where it is
#                            executable, else clcg-mpi in PATH)
#   --dry-run                print the commands, run nothing (env CLCG_DRY_RUN=1)
# Launcher: $MPIEXEC (default mpiexec) is called as `$MPIEXEC $MPIEXEC_NP P $MPIEXEC_ARGS`
# with MPIEXEC_NP defaulting to -n; inside a SLURM allocation use MPIEXEC="srun --mpi=pmix".
# Exit status 0 when every run finished (converged or reached the iteration limit),
# 1 when a run failed (its log is beside its record), 2 on a usage error, of this script
# or of clcg-mpi: the series stops at the first run that exits 2, since every following
# run would fail the same way.
set -u
export LC_ALL=C   # numbers with a decimal point (awk, printf, gnuplot), whatever the locale

# default_bin: the repository's built binary beside scripts/, else clcg-mpi from PATH
default_bin() {
  local top
  top=$(cd "$(dirname "$0")/../.." 2>/dev/null && pwd) &&
    [ -f "$top/clcg-mpi" ] && [ -x "$top/clcg-mpi" ] && { echo "$top/clcg-mpi"; return; }
  echo clcg-mpi
}

series=${CLCG_SERIES:-strong}
ranks=${CLCG_RANKS:-1 2 4}
problem=${CLCG_PROBLEM:-poisson3d:64}
exchanges=${CLCG_EXCHANGE:-neighbor}
precond=${CLCG_PRECOND:-jacobi}
repeats=${CLCG_REPEATS:-1}
out=${CLCG_OUT:-scaling-out}
bin=${CLCG_BIN:-$(default_bin)}
dry=${CLCG_DRY_RUN:-0}
append=0
launcher=${MPIEXEC:-mpiexec}
np_flag=${MPIEXEC_NP:--n}
launcher_args=${MPIEXEC_ARGS:-}

usage() { sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'; }
die() { echo "run-series.sh: $*" >&2; exit 2; }
case $dry in 0|1) ;; *) die "CLCG_DRY_RUN '$dry': 1 prints the commands and runs nothing, 0 runs them" ;; esac
need() { [ $# -ge 2 ] || die "$1 needs a value"; }

while [ $# -gt 0 ]; do
  case $1 in
    --strong) series=strong ;;
    --weak) series=weak ;;
    --ranks) need "$@"; ranks=$2; shift ;;
    --size) need "$@"; problem=$2; shift ;;
    --exchange) need "$@"; exchanges=$2; shift ;;
    --precond) need "$@"; precond=$2; shift ;;
    --repeats) need "$@"; repeats=$2; shift ;;
    --out) need "$@"; out=$2; shift ;;
    --bin) need "$@"; bin=$2; shift ;;
    --dry-run) dry=1 ;;
    --append) append=1 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
  shift
done
extra=("$@")   # what is left goes to clcg-mpi

case $series in strong|weak) ;; *) die "series must be strong or weak, not '$series'" ;; esac
case $series:$problem in   # a -weak generator grows with the ranks: no strong series, and --weak grows the plain form
  *:*-weak:*) [ -e "$problem" ] || die "'$problem' grows with the rank count; give the plain form (${problem%%-weak:*}:${problem#*-weak:}): a $series series $([ "$series" = weak ] && echo grows it itself || echo keeps it fixed)" ;;
esac
ranks=$(echo "$ranks" | tr ',' ' ')
exchanges=$(echo "$exchanges" | tr ',' ' ')
[ -n "${ranks//[[:space:],]/}" ] || die "no rank counts given (--ranks)"
[ -n "${exchanges//[[:space:],]/}" ] || die "no exchange modes given (--exchange)"
for p in $ranks; do
  case $p in ''|*[!0-9]*|0*|???????*) die "rank count '$p' is not a positive integer (no leading zero, at most 6 digits)" ;; esac
done
case $repeats in ''|*[!0-9]*|0*|???????*) die "repeats '$repeats' is not a positive integer (no leading zero, at most 6 digits)" ;; esac

# problem_args P: set pargs to the clcg-mpi arguments naming the problem on P ranks
problem_args() {
  local p=$1 kind nx ny nz
  if [ -e "$problem" ] || case $problem in *.mtx|*.mtx.gz) true ;; *) false ;; esac; then
    [ "$series" = weak ] && die "a weak series needs a generated problem, not the file '$problem'"
    pargs=("$problem")
    return
  fi
  [ "$series" = strong ] && { pargs=(--generate "$problem"); return; }
  kind=${problem%%:*}
  case ${problem#*:} in   # positive counts without leading zeros: N, NX,NY or NX,NY,NZ
    ''|*[!0-9,]*|*,,*|,*|*,|0*|*,0*) die "bad size in '$problem'" ;;
    *[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]*) die "a size in '$problem' has more than 9 digits" ;;
  esac
  case $kind:${problem#*:} in
    poisson2d:*,*,*|poisson3d:*,*,*,*) die "too many sizes in '$problem'" ;;
    poisson3d:*,*,*) ;;
    poisson3d:*,*) die "poisson3d takes N or NX,NY,NZ, not two sizes: '$problem'" ;;
  esac
  IFS=, read -r nx ny nz <<EOF
${problem#*:}
EOF
  case $kind in
    poisson3d) pargs=(--generate "poisson3d:$nx,${ny:-$nx},$((${nz:-$nx} * p))") ;;
    poisson2d) pargs=(--generate "poisson2d:$nx,$((${ny:-$nx} * p))") ;;
    *) die "a weak series needs poisson3d or poisson2d, not '$kind'" ;;
  esac
}

# records of an earlier series in the folder would be averaged with the new ones
if [ "$append" = 0 ] && [ -d "$out" ]; then
  old=$(find "$out" -maxdepth 1 -name "$series-*.json" | head -n 1)
  [ -z "$old" ] || die "'$out' already holds records of a $series series (${old##*/}), which collect.py" \
    "would mix with the new ones: give another --out, remove them, or add --append"
fi

# first_repeat X P: the repeat number after the highest of the folder's records for (X, P)
first_repeat() {
  local f k last=0
  for f in "$out/$series-$1-p$2-r"*.json; do
    k=${f##*-r}; k=${k%.json}
    case $k in ''|*[!0-9]*|0*) continue ;; esac
    [ "$k" -gt "$last" ] && last=$k
  done
  echo $((last + 1))
}

[ "$dry" = 1 ] || mkdir -p "$out" || die "cannot create '$out'"
failed=0
for x in $exchanges; do
  for p in $ranks; do
    problem_args "$p"
    r0=1
    [ "$append" = 0 ] || r0=$(first_repeat "$x" "$p")
    for ((r = r0; r < r0 + repeats; r++)); do
      name=$out/$series-$x-p$p-r$r
      # shellcheck disable=SC2206  # the launcher and its flags are word lists
      cmd=($launcher $np_flag "$p" $launcher_args "$bin" "${pargs[@]}" --exchange "$x"
           --precond "$precond" --json "$name.json" -q ${extra[@]+"${extra[@]}"})
      if [ "$dry" = 1 ]; then
        echo "${cmd[*]}"
        continue
      fi
      command -v "$bin" >/dev/null 2>&1 ||
        die "the binary '$bin' is not found or not executable: build it (make), or name it with --bin"
      echo "# $series $x P=$p run $r: ${cmd[*]}" >&2
      rm -f "$name.json"
      "${cmd[@]}" >"$name.log" 2>&1
      rc=$?
      if [ $rc -eq 2 ]; then
        echo "run-series.sh: $series $x P=$p run $r: clcg-mpi refused its arguments (exit 2, a usage" \
             "error), so every following run would too; the series stops here. From $name.log:" >&2
        head -n 3 "$name.log" | sed 's/^/  /' >&2
        exit 2
      fi
      # 0: converged, 1: iteration limit (expected for fixed-iteration timing runs)
      if [ $rc -gt 1 ] || [ ! -s "$name.json" ]; then
        echo "run-series.sh: $series $x P=$p run $r failed (exit $rc), see $name.log" >&2
        failed=1
      fi
    done
  done
done
exit $failed
