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
header=,$(head -1 "$csv" | tr -d '\r'),
missing=""
for c in series curve units per_iteration_ms speedup efficiency comm_share; do
  case $header in *,"$c",*) ;; *) missing="$missing $c" ;; esac
done
[ -z "$missing" ] || die "'$csv' is not a summary.csv of collect.py: no column$missing"

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

# a string for gnuplot: in single quotes, a quote inside doubled
gq() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/''/g")"; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/clcg-plot.XXXXXX") || die "cannot make a temporary folder"
trap 'rm -rf "$tmp"' EXIT

# One data file per curve, TMP/S-K.dat (series S, curve K, both numbers) with columns
# units per_iteration_ms speedup efficiency comm_share(%) variant ("-" for none: older
# summaries have no variant column), TMP/S-K.title its key, TMP/S.name the series' name.
awk -F, -v tmp="$tmp" '
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  function v(name) { x = $(col[name]); return x == "" ? "NaN" : x }
  {
    s = $(col["series"]); c = $(col["curve"])
    if (!(s in sid)) {   # files named by number: a series name is data, not a path
      sid[s] = ++nseries
      print s > (tmp "/" sid[s] ".name"); close(tmp "/" sid[s] ".name")
    }
    if (!((s, c) in id)) {
      id[s, c] = ++count[s]
      t = c
      if (index(t, s "/") == 1) t = substr(t, length(s) + 2)
      print t > (tmp "/" sid[s] "-" id[s, c] ".title")
      close(tmp "/" sid[s] "-" id[s, c] ".title")
    }
    share = v("comm_share"); if (share != "NaN") share *= 100
    vr = ("variant" in col) ? $(col["variant"]) : ""; if (vr == "") vr = "-"
    f = tmp "/" sid[s] "-" id[s, c] ".dat"
    print v("units"), v("per_iteration_ms"), v("speedup"), v("efficiency"), share, vr >> f
    close(f)
  }' "$csv" || die "cannot read the columns of '$csv'"

found=0
for nf in "$tmp"/*.name; do
  [ -e "$nf" ] || continue
  k=$(basename "$nf" .name)
  series=$(cat "$nf")
  case $series in ''|*/*|.|..) echo "plot.sh: series '$series' is not a file name: left out" >&2; continue ;; esac
  found=1
  umin=$(cat "$tmp/$k"-*.dat | awk 'NR == 1 || $1 < m { m = $1 } END { print m }')
  umax=$(cat "$tmp/$k"-*.dat | awk 'NR == 1 || $1 > m { m = $1 } END { print m }')
  # curves COLUMN: one curve per data file, the variant in its key where all its points ran
  # one, else beside each point
  curves() {
    local sep="" f title vs
    for f in "$tmp/$k"-*.dat; do
      title=$(cat "${f%.dat}.title")
      vs=$(awk '$6 != "-" { print $6 }' "$f" | sort -u)
      if [ "$(echo "$vs" | grep -c .)" -eq 1 ]; then
        case /$title/ in */"$vs"/*) ;; *) title="$title ($vs)" ;; esac
      fi
      printf "%s%s using 1:%s with linespoints lw 2 pt 7 title %s" "$sep" "$(gq "$f")" "$1" "$(gq "$title")"
      if [ "$(echo "$vs" | grep -c .)" -gt 1 ]; then
        printf ", %s using 1:%s:6 with labels offset char 0,0.9 font ',8' notitle" "$(gq "$f")" "$1"
      fi
      sep=", "
    done
  }
  if [ "$series" = weak ]; then speedup_label="scaled speedup"; else speedup_label="speedup"; fi
  out=$outdir/$series
  gnuplot <<EOF || { rm -f "$out"-{time,speedup,efficiency,comm}.png; die "gnuplot failed on series '$series'"; }
set terminal $term
set datafile missing 'NaN'
set grid
set key top left box opaque
set logscale x 2
set xrange [$umin*0.8:$umax*1.25]
set xlabel 'devices (ranks x devices per rank)'

set output $(gq "$out-time.png")
set title $(gq "$series scaling: time per CG iteration")
set ylabel 'ms per iteration'
set logscale y
plot $(curves 2)
unset logscale y

set output $(gq "$out-speedup.png")
set title $(gq "$series scaling: $speedup_label")
set ylabel '$speedup_label'
set yrange [0:*]
plot x/$umin with lines dt 2 lc 'black' title 'ideal', $(curves 3)

set output $(gq "$out-efficiency.png")
set title $(gq "$series scaling: parallel efficiency")
set ylabel 'efficiency'
set yrange [0:1.1<*]   # the ideal line at 1 inside the frame
set key bottom left box opaque   # clear of the ideal line at 1
plot 1 with lines dt 2 lc 'black' title 'ideal', $(curves 4)
set key top left box opaque

set output $(gq "$out-comm.png")
set title $(gq "$series scaling: share of communication (halo exchange + allreduce)")
set ylabel '% of solve time'
# at least 0-100 %, more where a share is above 100 % (collect.py warns of those)
set yrange [0:100<*]
plot $(curves 5)
EOF
  for k in time speedup efficiency comm; do echo "$outdir/$series-$k.png"; done
done
[ $found = 1 ] || die "no data rows in '$csv'"
