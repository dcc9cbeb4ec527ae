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
    fuzz_plan)
        copy $(find tests -name '*.json' | sort)
        ;;
    esac
    echo "corpus: $h: $(find "$out/$h" -type f | wc -l) files"
done
