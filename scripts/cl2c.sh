#!/bin/sh
# Turn OpenCL C files into one C source with a table of (name, text) strings.
# usage: cl2c.sh OUT.c FILE.cl...
set -e
out=$1; shift
tmp=$out.tmp
{
  echo '/* Generated from the kernel sources by scripts/cl2c.sh: do not edit. */'
  echo '#include "cl_sources.h"'
  echo 'const clcg_cl_source clcg_cl_sources[] = {'
  for f in "$@"; do
    printf '  { "%s",\n' "$(basename "$f")"
    sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$/\\n"/' "$f"
    echo '  },'
  done
  echo '  { 0, 0 }'
  echo '};'
} > "$tmp"
mv "$tmp" "$out"
