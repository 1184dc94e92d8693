#!/bin/bash
# Plot a scaling study from the summary.csv that collect.py writes: for each series
# (strong, weak, ...) four PNG files, one curve per curve of collect.py (exchange,
# preconditioner, size, ...), its key naming the variant its points ran (summary.csv's
# variant column), or, where that changes along the curve (--variant auto), each point
# labelled with its variant:
#   SERIES-time.png        time per CG iteration (ms) against the device count
#   SERIES-speedup.png     speedup (scaled speedup for weak), ideal line dashed
#   SERIES-efficiency.png  parallel efficiency, ideal 1
#   SERIES-comm.png        share of the solve time in halo exchange + allreduce (%; the
#                          axis reaches past 100 % where a share does)
# usage: plot.sh SUMMARY.csv [OUTDIR]     (OUTDIR defaults to the folder of the CSV)
# Needs gnuplot with the pngcairo or png terminal (Debian: gnuplot-nox).
set -u
export LC_ALL=C   # numbers with a decimal point (awk, printf, gnuplot), whatever the locale

die() { echo "plot.sh: $*" >&2; exit 1; }
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  sed -n '2,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//' >&2
  exit 2
fi
csv=$1
outdir=${2:-$(dirname "$csv")}
[ -r "$csv" ] || die "cannot read '$csv'"
command -v gnuplot >/dev/null 2>&1 || die "gnuplot not found (Debian package gnuplot-nox)"
mkdir -p "$outdir" || die "cannot create '$outdir'"

terms=$(gnuplot -e 'set terminal' 2>&1)
if echo "$terms" | grep -qw pngcairo; then
  term="pngcairo size 800,560 noenhanced font ',10'"
elif echo "$terms" | grep -qw png; then
  term="png size 800,560 noenhanced"
else
  die "this gnuplot has neither the pngcairo nor the png terminal"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/clcg-plot.XXXXXX") || die "cannot make a temporary folder"
trap 'rm -rf "$tmp"' EXIT

# One data file per curve, TMP/SERIES/K.dat with columns
# units per_iteration_ms speedup efficiency comm_share(%) variant ("-" for none: older
# summaries have no variant column), and TMP/SERIES/K.title.
awk -F, -v tmp="$tmp" '
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  function v(name) { x = $(col[name]); return x == "" ? "NaN" : x }
  {
    s = $(col["series"]); c = $(col["curve"])
    if (!((s, c) in id)) {
      id[s, c] = ++count[s]
      system("mkdir -p \"" tmp "/" s "\"")
      t = c; sub("^" s "/", "", t)
      print t > (tmp "/" s "/" id[s, c] ".title")
      close(tmp "/" s "/" id[s, c] ".title")
    }
    share = v("comm_share"); if (share != "NaN") share *= 100
    vr = ("variant" in col) ? $(col["variant"]) : ""; if (vr == "") vr = "-"
    f = tmp "/" s "/" id[s, c] ".dat"
    print v("units"), v("per_iteration_ms"), v("speedup"), v("efficiency"), share, vr >> f
    close(f)
  }' "$csv" || die "cannot read the columns of '$csv'"

found=0
for sdir in "$tmp"/*/; do
  [ -d "$sdir" ] || continue
  series=$(basename "$sdir")
  found=1
  umin=$(cat "$sdir"/*.dat | awk 'NR == 1 || $1 < m { m = $1 } END { print m }')
  umax=$(cat "$sdir"/*.dat | awk 'NR == 1 || $1 > m { m = $1 } END { print m }')
  # curves COLUMN: one curve per data file, the variant in its key where all its points ran
  # one, else beside each point
  curves() {
    local sep="" f title vs
    for f in "$sdir"/*.dat; do
      title=$(cat "${f%.dat}.title")
      vs=$(awk '$6 != "-" { print $6 }' "$f" | sort -u)
      if [ "$(echo "$vs" | grep -c .)" -eq 1 ]; then
        case /$title/ in */"$vs"/*) ;; *) title="$title ($vs)" ;; esac
      fi
      printf "%s'%s' using 1:%s with linespoints lw 2 pt 7 title '%s'" \
        "$sep" "$f" "$1" "$(printf '%s' "$title" | sed "s/'/''/g")"
      if [ "$(echo "$vs" | grep -c .)" -gt 1 ]; then
        printf ", '%s' using 1:%s:6 with labels offset char 0,0.9 font ',8' notitle" "$f" "$1"
      fi
      sep=", "
    done
  }
  if [ "$series" = weak ]; then speedup_label="scaled speedup"; else speedup_label="speedup"; fi
  gnuplot <<EOF || die "gnuplot failed on series '$series'"
set terminal $term
set datafile missing 'NaN'
set grid
set key top left box opaque
set logscale x 2
set xrange [$umin*0.8:$umax*1.25]
set xlabel 'devices (ranks x devices per rank)'

set output '$outdir/$series-time.png'
set title '$series scaling: time per CG iteration'
set ylabel 'ms per iteration'
set logscale y
plot $(curves 2)
unset logscale y

set output '$outdir/$series-speedup.png'
set title '$series scaling: $speedup_label'
set ylabel '$speedup_label'
set yrange [0:*]
plot x/$umin with lines dt 2 lc 'black' title 'ideal', $(curves 3)

set output '$outdir/$series-efficiency.png'
set title '$series scaling: parallel efficiency'
set ylabel 'efficiency'
set yrange [0:*]
plot 1 with lines dt 2 lc 'black' title 'ideal', $(curves 4)

set output '$outdir/$series-comm.png'
set title '$series scaling: share of communication (halo exchange + allreduce)'
set ylabel '% of solve time'
# at least 0-100 %, more where a share is above 100 % (collect.py warns of those)
set yrange [0:100<*]
plot $(curves 5)
EOF
  for k in time speedup efficiency comm; do echo "$outdir/$series-$k.png"; done
done
[ $found = 1 ] || die "no data rows in '$csv'"
