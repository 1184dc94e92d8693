#!/bin/sh
# Generate configure and Makefile.in from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
mkdir -p build-aux m4
# the TAP test driver ships with Automake but is not copied by autoreconf
cp -f "$(automake --print-libdir)/tap-driver.sh" build-aux/
autoreconf -fi
