#!/bin/sh
# python.sh BUILD... - the Python package (python/loomc, docs/python.md) on
# each build: its pytest tests (tests/python/) against the source tree's
# package with that build's library (the first build's found by the package
# itself, the others' through LOOMC_LIBRARY), then `make install` into a
# fresh folder and the same tests against the installed package, run from
# another folder with nothing of the source tree on the paths (it must find
# the installed library and descriptions itself); the files the install
# writes for Python, staged with DESTDIR too. A sanitizer build's library is
# loaded with the sanitizer runtime preloaded. Needs a python3 with numpy
# and pytest (Debian's python3-numpy, python3-pytest; `make test` installs
# them). Ends with 'python: N passed, N failed' (every pytest test and
# every check here counts one).
cd "$(dirname "$0")/.." || exit 1
root=$PWD
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM  # the EXIT trap cleans up; a trap alone would carry on
unset LOOMC_ARCH_PATH LOOMC_LIBRARY PYTHONPATH
export PYTHONDONTWRITEBYTECODE=1

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL [python $build] $1"; [ -n "$2" ] && sed 's/^/    /' "$2" | tail -n 40; }

# the first interpreter with numpy and pytest
py=""
for p in ${PYTHON:-} python3 /usr/bin/python3; do
    if "$p" -c 'import numpy, pytest' >/dev/null 2>&1; then py=$p; break; fi
done
if [ -z "$py" ]; then
    build=-
    bad "no python3 with numpy and pytest (Debian: python3-numpy python3-pytest; make deps installs them)"
    echo "python: $pass passed, $fail failed"
    exit 1
fi

# tests WHAT [VAR=VALUE...]: the pytest tests with that environment, from
# $tmp/run; their counts added to ours
tests() {
    what=$1
    shift
    mkdir -p "$tmp/run"
    (cd "$tmp/run" && env "$@" "$py" -m pytest -q -p no:cacheprovider -rfEs "$root/tests/python") >"$tmp/log" 2>&1
    rc=$?
    line=$(grep -E '^(=+ )?[0-9]+ (passed|failed|error)' "$tmp/log" | tail -n 1)
    # pytest's last line: '56 passed, 2 skipped in 2.3s', '1 failed, 55 passed in ...', '... 1 error ...'
    p=$(echo "$line" | grep -o '[0-9]* passed' | cut -d' ' -f1)
    f=$(echo "$line" | grep -o '[0-9]* failed' | cut -d' ' -f1)
    e=$(echo "$line" | grep -o '[0-9]* errors\{0,1\}' | cut -d' ' -f1)
    pass=$((pass + ${p:-0}))
    fail=$((fail + ${f:-0} + ${e:-0}))
    if [ $rc -ne 0 ] || [ -z "$line" ]; then
        [ -z "${f}${e}" ] && fail=$((fail + 1))
        bad "$what: pytest exited $rc" "$tmp/log"
    fi
    grep -q '^SKIPPED' "$tmp/log" && grep '^SKIPPED' "$tmp/log" | sed "s/^/  [python $build] $what: /"
}

first=1
for build in "$@"; do
    if [ ! -f "$build/libloomc.so.0" ]; then bad "$build/libloomc.so.0 missing"; continue; fi
    lib=$(cd "$build" && pwd)/libloomc.so.0
    cc=gcc
    readelf -p .comment "$build/libloomc.so" 2>/dev/null | grep -q clang && cc=clang
    san=0
    nm "$build/loomc" 2>/dev/null | grep -q __asan_init && san=1
    # a sanitizer build's library needs the runtimes in the process before it
    pre=""
    if [ $san = 1 ]; then
        pre="LD_PRELOAD=$(clang -print-file-name=libclang_rt.asan-x86_64.so)"
        pre="$pre ASAN_OPTIONS=detect_leaks=0:exitcode=86 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1"
    fi
    # the source tree's package: the first build's library found by the package itself
    if [ $first = 1 ]; then
        # shellcheck disable=SC2086
        tests "source tree" $pre PYTHONPATH="$root/python" LOOMC_TEST_PACKAGE="$root/python/loomc" \
            LOOMC_TEST_LIBRARY="$lib" LOOMC_TEST_COMMAND="$root/$build/loomc"
    else
        # shellcheck disable=SC2086
        tests "source tree" $pre PYTHONPATH="$root/python" LOOMC_LIBRARY="$lib" LOOMC_TEST_PACKAGE="$root/python/loomc" \
            LOOMC_TEST_LIBRARY="$lib" LOOMC_TEST_COMMAND="$root/$build/loomc"
    fi
    first=0

    # installed
    rm -rf "$tmp/inst" "$tmp/stage"
    prefix=$tmp/inst
    pydir=$prefix/lib/python3/dist-packages
    if make -s install BUILD="$build" CC="$cc" SAN="$san" PREFIX="$prefix" >"$tmp/log" 2>&1; then ok
    else bad "make install PREFIX" "$tmp/log"; continue; fi
    # every module of the package, and the one the install writes
    for f in $(cd python/loomc && ls -- *.py) _installed.py; do
        if [ -f "$pydir/loomc/$f" ]; then ok; else bad "make install: no lib/python3/dist-packages/loomc/$f"; fi
    done
    if grep -qx "LIBDIR = \"$prefix/lib\"" "$pydir/loomc/_installed.py"; then ok
    else bad "_installed.py does not name $prefix/lib" "$pydir/loomc/_installed.py"; fi
    if make -s install BUILD="$build" CC="$cc" SAN="$san" DESTDIR="$tmp/stage" PREFIX=/opt/loomc >"$tmp/log" 2>&1 &&
        grep -qx 'LIBDIR = "/opt/loomc/lib"' "$tmp/stage/opt/loomc/lib/python3/dist-packages/loomc/_installed.py"; then ok
    else bad "make install DESTDIR: the staged package does not name PREFIX/lib" "$tmp/log"; fi
    # shellcheck disable=SC2086
    tests "installed" $pre PYTHONPATH="$pydir" LOOMC_TEST_PACKAGE="$pydir/loomc" LOOMC_TEST_LIBRARY="$prefix/lib/libloomc.so.0" \
        LOOMC_TEST_COMMAND="$prefix/bin/loomc" LOOMC_TEST_INCLUDE="$prefix/include"
done

echo "python: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
