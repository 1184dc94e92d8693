#!/bin/sh
# Install what clcg-mpi needs to build and test on Debian/Ubuntu (run as root).
# Skips apt-get entirely when everything is already there.
set -e
pkgs="gcc make autoconf automake pkg-config libopenmpi-dev openmpi-bin ocl-icd-opencl-dev \
opencl-headers pocl-opencl-icd clinfo zlib1g-dev gzip valgrind python3 gnuplot-nox locales"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "setup-debian: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
