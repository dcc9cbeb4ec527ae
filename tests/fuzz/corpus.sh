#!/bin/sh
# corpus.sh OUT_DIR - build the seed corpus of every fuzz harness from the
# project's own files (kernels, descriptions, dataflow programs and the error
# corpora under tests/expect/), one folder per harness: OUT_DIR/fuzz_NAME/.
# The seeds are generated, never committed. A new harness gets its seeds by
# a case below; a harness without one starts from an empty corpus.
cd "$(dirname "$0")/../.." || exit 1
out=${1:-build/fuzz/corpus}

# copy FILE... into the corpus of harness $h, named after their paths
copy() {
    for f in "$@"; do
        [ -f "$f" ] && cp "$f" "$out/$h/$(printf '%s' "$f" | tr '/' '_')"
    done
}

# The value of option $2 in the argument list $1 ("" when absent).
opt() {
    printf '%s\n' "$1" | tr ' ' '\n' | sed -n "/^$2\$/{n;p;q;}"
}

# launch seeds: "--shape value\n--const value\n--kernel name\n" + kernel text,
# from the golden commands and the RUN lines of the front-end corpus
launch_seeds() {
    n=0
    {
        cat tests/golden/ir_*.cmd 2>/dev/null
        find tests/expect -name '*.py' | sort | while read -r f; do
            sed -n 's/^\(#\|\/\/\) RUN: *loomc //p' "$f" | head -n 1 | sed "s|%s|$f|g"
        done
    } | while read -r args; do
        file=$(printf '%s\n' "$args" | tr ' ' '\n' | grep '\.py$' | head -n 1)
        [ -f "$file" ] || continue
        n=$((n + 1))
        {
            opt "$args" --shape
            opt "$args" --const
            opt "$args" --kernel
            cat "$file"
        } >"$out/$h/launch_$n"
    done
}

for src in tests/fuzz/fuzz_*.c; do
    h=$(basename "$src" .c)
    mkdir -p "$out/$h"
    case $h in
    fuzz_kernel)
        copy kernels/*.py tests/kernels/*.py tests/unit/data/*.py
        copy $(find tests/expect -name '*.py' | sort)
        ;;
    fuzz_launch | fuzz_compile)
        launch_seeds
        ;;
    fuzz_arch)
        copy arch/*.yaml
        copy $(find tests/expect -name '*.yaml' | sort)
        ;;
    fuzz_df)
        copy tests/sim/*.df
        copy $(find tests/expect -name '*.df' | sort)
        ;;
    fuzz_suite)
        copy bench/*.suite
        ;;
    fuzz_plan)
        copy $(find tests -name '*.json' | sort)
        # plans as `loomc compile -o` writes them, when a loomc is built
        loomc=${LOOMC:-build/loomc}
        if [ -x "$loomc" ]; then
            n=0
            for args in "kernels/matmul.py --shape M=512,N=512,K=512" "kernels/matmul.py --shape M=64,N=96,K=33" \
                "kernels/flash_attention.py --shape B=1,H=8,S=1024,D=64" \
                "kernels/flash_decode.py --shape B=1,H=8,HKV=2,S=1024,D=64"; do
                n=$((n + 1))
                # shellcheck disable=SC2086
                LOOMC_ARCH_PATH="$PWD/arch" "$loomc" compile $args --arch wormhole_n150 \
                    -o "$out/$h/plan_$n.json" >/dev/null 2>&1 || rm -f "$out/$h/plan_$n.json"
            done
        fi
        ;;
    esac
    echo "corpus: $h: $(find "$out/$h" -type f | wc -l) files"
done
