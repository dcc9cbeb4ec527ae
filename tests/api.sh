#!/bin/sh
# api.sh BUILD... - the library as a user gets it, for each build: `make
# install` into a fresh folder (PREFIX, and DESTDIR with another PREFIX),
# the files it installs, the shared library's soname and exported names (the
# loomc_* of include/loomc.h, nothing else), docs/example.c built with
# `cc $(pkg-config --cflags --libs loomc)` from the installed tree and run
# (it compiles kernels/matmul.py, simulates it on its own inputs, checks the
# outputs against a C product and a malformed kernel's diagnostic; see the
# example), the same example linked statically, and the installed command
# finding its installed descriptions. A sanitizer build's example is built
# with the sanitizers and run under them; the gcc build's also runs under
# Valgrind's memcheck. Ends with 'api: N passed, N failed'.
cd "$(dirname "$0")/.." || exit 1
root=$PWD
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM  # the EXIT trap cleans up; a trap alone would carry on
export ASAN_OPTIONS="exitcode=86:detect_leaks=1"
export UBSAN_OPTIONS="halt_on_error=1:exitcode=87:print_stacktrace=1"
# nothing from the source tree: the installed tree must stand alone
unset LOOMC_ARCH_PATH

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL [api $build] $1"; [ -n "$2" ] && sed 's/^/    /' "$2" | head -n 30; }
# check WHAT COMMAND...: one test, its output kept for the report
check() {
    what=$1
    shift
    if "$@" >"$tmp/log" 2>&1; then ok; else bad "$what" "$tmp/log"; fi
}

for build in "$@"; do
    if [ ! -f "$build/libloomc.so" ]; then bad "$build/libloomc.so missing"; continue; fi
    # the compiler and sanitizers the build was made with, so that make
    # finds it up to date and the example links against it
    cc=gcc
    readelf -p .comment "$build/libloomc.so" 2>/dev/null | grep -q clang && cc=clang
    san=0
    exflags=""
    if nm "$build/loomc" 2>/dev/null | grep -q __asan_init; then
        san=1
        exflags="-fsanitize=address,undefined -fno-sanitize-recover=all"
    fi
    rm -rf "$tmp/inst" "$tmp/stage" "$tmp/run"
    prefix=$tmp/inst
    check "make install PREFIX" make -s install BUILD="$build" CC="$cc" SAN="$san" PREFIX="$prefix"
    for f in bin/loomc include/loomc.h lib/libloomc.a lib/libloomc.so lib/libloomc.so.0 lib/pkgconfig/loomc.pc \
        share/loomc/arch/wormhole_n150.yaml share/loomc/arch/blackhole_p150.yaml; do
        if [ -e "$prefix/$f" ]; then ok; else bad "make install: no $f"; fi
    done
    check "make install DESTDIR" make -s install BUILD="$build" CC="$cc" SAN="$san" DESTDIR="$tmp/stage" PREFIX=/opt/loomc
    check "DESTDIR: the pkg-config file names PREFIX" grep -qx 'prefix=/opt/loomc' "$tmp/stage/opt/loomc/lib/pkgconfig/loomc.pc"

    # the shared library: soname, and the header's functions are its only names
    check "soname libloomc.so.0" sh -c "readelf -d '$prefix/lib/libloomc.so' | grep -q 'Library soname: \[libloomc.so.0\]'"
    nm -D --defined-only "$prefix/lib/libloomc.so" | awk '$2 ~ /^[TDBRW]$/ {print $3}' | sed 's/@.*//' | sort -u >"$tmp/exported"
    sed -n 's/^[a-z_ ]*[ *]\(loomc_[a-z_]*\)(.*/\1/p' include/loomc.h | sort -u >"$tmp/declared"
    check "the .so exports the header's functions and nothing else" diff "$tmp/declared" "$tmp/exported"

    # the example, from the installed tree only
    export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
    mkdir -p "$tmp/run"
    # shellcheck disable=SC2046,SC2086
    check "example builds with pkg-config" $cc -std=c17 -Wall -Wextra -Werror $exflags -o "$tmp/run/example" \
        docs/example.c $(pkg-config --cflags --libs loomc) -lm
    if [ -x "$tmp/run/example" ]; then
        (cd "$tmp/run" && LD_LIBRARY_PATH="$prefix/lib" ./example "$root/kernels/matmul.py") >"$tmp/out" 2>"$tmp/err"
        rc=$?
        if [ $rc -ne 0 ]; then cat "$tmp/out" >>"$tmp/err"; bad "example exited $rc" "$tmp/err"
        else ok; fi
        for want in "c matches the C product" "malformed kernel: error at bad.py:6:11, as expected" \
            "timing-only simulation:"; do
            if grep -qF "$want" "$tmp/out"; then ok; else bad "example printed no '$want'" "$tmp/out"; fi
        done
        # the library printed nothing: stderr holds the example's own line for the diagnostic
        if [ "$(cat "$tmp/err")" = "bad.py:6:11: error: unexpected character '\$'" ]; then ok
        else bad "example's stderr is not the one diagnostic it prints" "$tmp/err"; fi
        # the gcc build: the same run under Valgrind's memcheck, no error and no leak (Debian's
        # Valgrind cannot read clang's debug information; sanitizers do not run under it)
        if [ "$cc" = gcc ] && [ "$san" = 0 ] && command -v valgrind >/dev/null 2>&1; then
            check "example under valgrind" sh -c "cd '$tmp/run' && LD_LIBRARY_PATH='$prefix/lib' valgrind --quiet \
                --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect \
                ./example '$root/kernels/matmul.py' >/dev/null"
        fi
    fi
    # linked statically, the example takes the installed description by path
    archdir=$(pkg-config --variable=archdir loomc)
    # shellcheck disable=SC2046,SC2086
    check "example links statically" $cc -std=c17 $exflags -o "$tmp/run/example_static" docs/example.c \
        $(pkg-config --cflags loomc) $(pkg-config --static --libs loomc | sed 's/-lloomc/-l:libloomc.a/') -lm
    if [ -x "$tmp/run/example_static" ]; then
        check "static example runs" sh -c "cd '$tmp/run' && ./example_static '$root/kernels/matmul.py' '$archdir/wormhole_n150.yaml'"
    fi
    unset PKG_CONFIG_PATH

    # the installed command finds the installed descriptions by name
    (cd "$tmp/run" && "$prefix/bin/loomc" arch --list) >"$tmp/out" 2>&1
    if [ "$(sort "$tmp/out" | tr '\n' ' ')" = "$(ls arch/*.yaml | sed 's|arch/||; s|\.yaml$||' | sort | tr '\n' ' ')" ]; then ok
    else bad "installed loomc arch --list does not list the installed descriptions" "$tmp/out"; fi
    check "installed loomc runs a kernel by the description's name" sh -c \
        "cd '$tmp/run' && '$prefix/bin/loomc' run '$root/kernels/matmul.py' --arch wormhole_n150 --shape M=64,N=64,K=64 --check"
done

echo "api: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
