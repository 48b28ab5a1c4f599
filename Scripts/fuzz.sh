#!/usr/bin/env bash
# Builds the libFuzzer targets under Fuzz/ and runs each for a bounded time (Linux toolchains only).
#
#   Scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#
# TARGET is AppSyncCodec, GraphQLCodec or Models (default: all three); SECONDS_PER_TARGET defaults
# to 60. Before building, the seed corpus Fuzz/Corpus/<TARGET>/ is regenerated from the recorded
# frames in Tests/MigrationTests/Fixtures and Examples/ParityTest/Fixtures (commit any change: the
# unit tests run every seed through the same check). New inputs the fuzzer finds go to a temporary
# directory, not into the repository. Exits 1 when a target crashed, printing the crashing input's
# path under .build-fuzz/findings/<TARGET>/; turn it into a regression test in the matching test
# target. Needs jq.
#
# With PARALLEL=1 the targets run side by side (each on one core) instead of one after another,
# so `PARALLEL=1 Scripts/fuzz.sh 3600` takes an hour rather than three. NICE=N runs the fuzzers
# at that niceness (for example 19, to leave other work the CPU it needs).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=60
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
    seconds=$1
    shift
fi
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then
    targets=(AppSyncCodec GraphQLCodec Models)
fi
for target in "${targets[@]}"; do
    if [[ ! -d Fuzz/$target ]] || [[ $target == Checks || $target == Corpus || $target == Driver ]]; then
        echo "unknown fuzz target '$target' (AppSyncCodec, GraphQLCodec, Models)" >&2
        exit 2
    fi
done

# Writes each line of stdin to $1/<sha1 of the line>, without the newline.
write_seeds() {
    local directory=$1 line
    while IFS= read -r line; do
        [[ -n $line ]] || continue
        printf '%s' "$line" > "$directory/$(printf '%s' "$line" | sha1sum | cut -d' ' -f1)"
    done
}

# Seeds: server frames for the codecs (for GraphQL prefixed with the dialect's index in
# GraphQLProtocol.allCases), and the event payloads those frames carry for the models.
make_seeds() {
    local fixture dialect index
    rm -rf Fuzz/Corpus/AppSyncCodec Fuzz/Corpus/GraphQLCodec Fuzz/Corpus/Models
    mkdir -p Fuzz/Corpus/AppSyncCodec Fuzz/Corpus/GraphQLCodec Fuzz/Corpus/Models
    for fixture in Tests/MigrationTests/Fixtures/*/*.jsonl Examples/ParityTest/Fixtures/*.jsonl; do
        dialect=$(head -n 1 "$fixture" | jq -r '.fixture.dialect // empty')
        case $dialect in
            appsync)
                jq -r 'select(.direction == "out") | .frame // empty' "$fixture" | write_seeds Fuzz/Corpus/AppSyncCodec
                jq -r 'select(.direction == "out") | .frame // empty | fromjson? | select(.type == "data") | .event
                    | if type == "array" then .[] else . end | if type == "string" then . else tojson end' "$fixture" |
                    write_seeds Fuzz/Corpus/Models
                continue ;;
            graphql-ws) index=0 ;;
            graphql-transport-ws) index=1 ;;
            appsync-graphql) index=2 ;;
            *) echo "skipping $fixture: unknown dialect '$dialect'" >&2; continue ;;
        esac
        jq -r --arg index "$index" 'select(.direction == "out") | .frame // empty | $index + .' "$fixture" |
            write_seeds Fuzz/Corpus/GraphQLCodec
        jq -r 'select(.direction == "out") | .frame // empty | fromjson? | select(.type == "data" or .type == "next")
            | .payload.data // empty | tojson' "$fixture" | write_seeds Fuzz/Corpus/Models
    done
}

make_seeds
for target in "${targets[@]}"; do
    echo "== building Fuzz$target"
    SWITCHBOARD_FUZZ=1 swift build -c release --build-path .build-fuzz -Xswiftc -sanitize=fuzzer \
        --product "Fuzz$target"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs one target; its exit status says whether it crashed. Output goes to $work/<target>.log.
fuzz_one() {
    local target=$1 findings=.build-fuzz/findings/$1
    mkdir -p "$findings" "$work/$target"
    # Swift's own backtracer would catch the fatal error before libFuzzer could save the input.
    SWIFT_BACKTRACE=enable=no nice -n "${NICE:-0}" ".build-fuzz/release/Fuzz$target" -max_total_time="$seconds" \
        -timeout=10 -max_len=16384 -print_final_stats=1 -artifact_prefix="$findings/" "$work/$target" \
        "Fuzz/Corpus/$target" > "$work/$target.log" 2>&1
}

# Prints what a finished target reported, and records it as failed when it crashed.
report_one() {
    local target=$1 status=$2
    echo "== $target"
    if [[ $status -eq 0 ]]; then
        grep -E '^(Done|stat::)' "$work/$target.log" || true
        grep -E '^#[0-9]+' "$work/$target.log" | tail -n 1 || true
    else
        failed+=("$target")
        tail -n 40 "$work/$target.log"
        grep -h 'Test unit written to' "$work/$target.log" || true
        echo "== $target crashed; the input is under .build-fuzz/findings/$target/" >&2
    fi
}

failed=()
if [[ ${PARALLEL:-0} == 1 ]]; then
    declare -A pids
    for target in "${targets[@]}"; do
        echo "== fuzzing $target for ${seconds}s ($(ls "Fuzz/Corpus/$target" | wc -l) seeds), in parallel"
        fuzz_one "$target" &
        pids[$target]=$!
    done
    for target in "${targets[@]}"; do
        status=0
        wait "${pids[$target]}" || status=$?
        report_one "$target" "$status"
    done
else
    for target in "${targets[@]}"; do
        echo "== fuzzing $target for ${seconds}s ($(ls "Fuzz/Corpus/$target" | wc -l) seeds)"
        status=0
        fuzz_one "$target" || status=$?
        report_one "$target" "$status"
    done
fi

if [[ ${#failed[@]} -gt 0 ]]; then
    echo "fuzzing found crashes in: ${failed[*]}" >&2
    exit 1
fi
echo "no crashes in: ${targets[*]}"
