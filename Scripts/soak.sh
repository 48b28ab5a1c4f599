#!/usr/bin/env bash
# The chaos soak (issue 8): builds `switchboard` in release and runs `switchboard soak` for
# DURATION on each transport in turn, AppSync Events then legacy GraphQL (graphql-transport-ws).
# Each run starts its emulator as a child `switchboard serve`, so the memory figures are the
# client's alone (pass --emulator in-process to keep it in the soak's process).
# Exits non-zero when any run fails: an event missing, duplicated or reordered, memory growth
# after the warm-up (a jump, or a sustained slope above --max-memory-slope, 2 MiB/hour by
# default), or a crash.
#
#   Scripts/soak.sh            # 10 minutes per transport
#   Scripts/soak.sh 3m         # 3 minutes per transport
#   RATE=1000 SEED=7 TRANSPORTS="appsync graphql-ws" Scripts/soak.sh 5m
#   CONFIGURATION=debug SWIFT_BUILD_FLAGS="--traits SwiftConfiguration" Scripts/soak.sh 3m
#                                            # reuse the debug build `swift test` made
#
# Extra arguments after DURATION go to every `switchboard soak` run (see its --help).
set -euo pipefail

cd "$(dirname "$0")/.."
duration="${1:-10m}"
shift || true
rate="${RATE:-500}"
seed="${SEED:-$RANDOM}"
transports="${TRANSPORTS:-appsync graphql-transport-ws}"
configuration="${CONFIGURATION:-release}"

# shellcheck disable=SC2086  # SWIFT_BUILD_FLAGS is a list of flags
swift build -c "$configuration" ${SWIFT_BUILD_FLAGS:-} --product switchboard
binary="$(swift build -c "$configuration" ${SWIFT_BUILD_FLAGS:-} --show-bin-path)/switchboard"

status=0
for transport in $transports; do
    echo "== soak: $transport, $duration at $rate events/s, seed $seed"
    if ! "$binary" soak --duration "$duration" --rate "$rate" --transport "$transport" --seed "$seed" "$@"; then
        echo "== soak: $transport FAILED (exit status above; seed $seed replays the fault plan)"
        status=1
    fi
done
exit "$status"
