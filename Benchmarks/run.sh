#!/usr/bin/env bash
# Runs every Switchboard benchmark (issue 8) in release mode and prints one table.
#
#   Benchmarks/run.sh                      # everything (about 3 minutes after the build)
#   Benchmarks/run.sh --filter Throughput  # any option of `swift package benchmark`
#
# Needs: a Swift 6.1+ toolchain (measured with 6.3.1) and python3 (formats the table).
# Nothing to install: on Swift 6.3+ ordo-one/benchmark counts allocations with its own malloc
# interposer (a Swift package), not jemalloc. The first build compiles every dependency in
# release mode (10–15 minutes on 2 cores); later runs reuse Benchmarks/.build.
# Everything runs on 127.0.0.1: an in-process emulator and a raw-NIO sender on ephemeral ports.
set -euo pipefail
cd "$(dirname "$0")"
# The in-process emulator is a product of the root package only with this set (Package.swift).
export SWITCHBOARD_DEVELOPMENT_PRODUCTS=1

report="$(mktemp -t switchboard-bench.XXXXXX)"
trap 'rm -f "$report"' EXIT

load_before="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
SWITCHBOARD_BENCH_REPORT="$report" swift package benchmark --no-progress "$@" >&2
load_after="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"

echo
echo "Switchboard benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC'), $(swift --version 2>/dev/null | head -1)"
echo "$(nproc) cores; load average before: $load_before, after: $load_after (other work on the machine skews every figure)"

python3 - "$report" <<'PY'
import statistics, sys
rows = {}
order = []
decimals = set()
for line in open(sys.argv[1]):
    name, figure, value = line.rstrip("\n").split("\t")
    key = (name, figure)
    if key not in rows:
        rows[key] = []
        order.append(key)
    if "." in value:
        decimals.add(key)
    rows[key].append(float(value))
width_name = max([len(n) for n, _ in order] + [9])
width_figure = max([len(f) for _, f in order] + [6])
print()
print(f"{'benchmark':<{width_name}}  {'figure':<{width_figure}}  {'median':>12}  {'min':>12}  {'max':>12}  runs")
print(f"{'-' * width_name}  {'-' * width_figure}  {'-' * 12}  {'-' * 12}  {'-' * 12}  ----")
for key in order:
    name, figure = key
    values = rows[key]
    shown = ",.1f" if key in decimals else ",.0f"
    median, low, high = statistics.median(values), min(values), max(values)
    print(f"{name:<{width_name}}  {figure:<{width_figure}}  {median:>12{shown}}  {low:>12{shown}}  {high:>12{shown}}  {len(values):>4}")
PY
