#!/bin/sh
# The PTX suite on a GPU (issue 14, item 6), in two steps that may run on two machines:
#
#   scripts/gpu-ptx-suite.sh emit OUT     # here: harnesses, assembled and checked by optcheck
#   scripts/gpu-ptx-suite.sh run OUT [ITERATIONS] [SECONDS]   # where the GPU is
#
# `emit` writes one CUDA harness directory per test into OUT/harness/ (`mapcheck gpu emit
# --target cuda`, the GPU preset, ptxas 13.5 from scripts/install-cuda-wheels.sh, optcheck
# passed, kernel.sm_90.cubin written), for
#   - every PTX litmus test of tests/data that the harness accepts (tests/data/ptx-manual and the
#     vendored Dat3M PTX corpus; the reason each refused one is refused goes to OUT/skipped.txt),
#   - the counterexample of every mapping of mappings/EXPECTED.tsv that has one at bound 5 (the
#     first per axiom, as `mapcheck check --bound 5 -o` writes it), judged by the mapping's
#     target model and its source model (`gpu emit --mapping --source`).
# `run` runs them one after another (`mapcheck gpu run DIR --iterations ITERATIONS`, each under
# `timeout`), counterexamples first, until SECONDS have passed, and writes OUT/run.log and
# OUT/not-run.txt; each directory gets its result.json and result.csv. The tables in
# docs/results/ are made from those files.
set -eu
cd "$(dirname "$0")/.."
bin=${MAPCHECK:-target/release/mapcheck}
step=${1:?usage: gpu-ptx-suite.sh emit|run OUT [ITERATIONS] [SECONDS]}
out=${2:?usage: gpu-ptx-suite.sh emit|run OUT [ITERATIONS] [SECONDS]}

emit_one() { # NAME TEST [gpu emit options…]
    name=$1 test=$2
    shift 2
    if why=$("$bin" gpu emit "$test" --target cuda -o "$out/harness/$name" "$@" 2>&1); then
        echo "$name	$test" >>"$out/emitted.txt"
    else
        rm -rf "$out/harness/$name"
        echo "$name	$test	$(echo "$why" | grep -m1 -i 'error' || echo "$why" | head -n1)" >>"$out/skipped.txt"
    fi
}

emit() {
    scripts/install-cuda-wheels.sh
    mkdir -p "$out/harness" "$out/cx"
    : >"$out/emitted.txt"
    : >"$out/skipped.txt"
    # The counterexamples: one check per mapping with one, then one harness per axiom.
    grep -v '^#' mappings/EXPECTED.tsv | awk -F'\t' '$4 ~ /^counterexample/ {print $1}' | sort -u |
        while read -r map; do
            stem=$(basename "$map" .map)
            "$bin" check "mappings/$map" --bound 5 -o "$out/cx/$stem" >"$out/cx/$stem.txt" 2>&1 || true
            for cx in "$out/cx/$stem"/*/; do
                [ -f "$cx/target.litmus" ] || continue
                emit_one "cx-$(basename "$cx")" "$cx/target.litmus" \
                    --mapping "mappings/$map" --source "$cx/source.litmus"
            done
        done
    for test in tests/data/ptx-manual/*.litmus; do
        emit_one "manual-$(basename "$test" .litmus)" "$test"
    done
    find tests/data/oracle/dat3m/litmus/PTX -name '*.litmus' | sort | while read -r test; do
        group=$(dirname "$test" | sed 's|.*/PTX/||; s|/|-|g')
        emit_one "dat3m-$group-$(basename "$test" .litmus)" "$test"
    done
    echo "emitted $(wc -l <"$out/emitted.txt"), skipped $(wc -l <"$out/skipped.txt") (see $out/skipped.txt)"
}

run() {
    iterations=${3:-1000}
    seconds=${4:-480}
    deadline=$(($(date +%s) + seconds))
    : >"$out/run.log"
    : >"$out/not-run.txt"
    for dir in "$out"/harness/cx-* "$out"/harness/manual-* "$out"/harness/dat3m-*; do
        [ -d "$dir" ] || continue
        left=$((deadline - $(date +%s)))
        if [ "$left" -le 5 ]; then
            echo "$(basename "$dir")	time limit" >>"$out/not-run.txt"
            continue
        fi
        limit=$((left < 120 ? left : 120))
        status=0
        timeout "$limit" "$bin" gpu run "$dir" --iterations "$iterations" >>"$out/run.log" 2>&1 || status=$?
        echo "== $(basename "$dir"): exit $status" >>"$out/run.log"
    done
}

case "$step" in
emit) emit ;;
run) run "$@" ;;
*) echo "gpu-ptx-suite.sh: unknown step $step (emit or run)" >&2; exit 2 ;;
esac
