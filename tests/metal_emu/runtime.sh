#!/bin/sh
# runtime.sh BUILD SAN_FLAGS - builds the host emulation's runtime (a test harness) into
# BUILD: its two C++ files and loomc's own tile numerics (src/num, with util/base.c, as
# C), so that emulated programs compute what loomc's simulator computes. Prints the
# object files on stdout, one line; exit 1 when one does not build.
cd "$(dirname "$0")" || exit 1
here=$(pwd)
BUILD=$1
san=$2
CXX=${CXX:-g++}
objs=""
for f in ../../src/num/num.c ../../src/util/base.c; do
    o="$BUILD/$(basename "$f" .c).o"
    ${CC:-gcc} -std=c17 -D_POSIX_C_SOURCE=200809L -O1 -g $san -I../../src -c "$f" -o "$o" >&2 || exit 1
    objs="$objs $o"
done
for f in runtime/host.cpp runtime/kernel_rt.cpp; do
    o="$BUILD/$(basename "$f" .cpp).o"
    $CXX -std=c++17 -Wall -Wextra -Werror -O1 -g -pthread $san -Iinclude -DEMU_INCLUDE_DIR="\"$here/include\"" \
        -c "$f" -o "$o" >&2 || exit 1
    objs="$objs $o"
done
echo $objs
