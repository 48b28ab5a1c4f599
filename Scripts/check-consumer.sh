#!/usr/bin/env bash
# What an app fetches: resolves a throwaway package that depends on this checkout the way an app
# does (the library products in its app target, SwitchboardTesting in its test target) and fails
# when it resolves more packages than the bound.
#
#   Scripts/check-consumer.sh            # bound 10 (swift-nio and what it needs, swift-nio-ssl,
#                                        # swift-crypto, swift-log, swift-metrics, swift-collections)
#   MAX_PACKAGES=12 Scripts/check-consumer.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
max="${MAX_PACKAGES:-10}"
work="$(mktemp -d "${TMPDIR:-/tmp}/switchboard-consumer.XXXXXX")"
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/Sources/App" "$work/Tests/AppTests"
cat > "$work/Package.swift" <<EOF
// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "App",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .visionOS(.v1)],
    dependencies: [.package(name: "Switchboard", path: "$root")],
    targets: [
        .target(name: "App", dependencies: [
            .product(name: "Switchboard", package: "Switchboard"),
            .product(name: "SwitchboardCore", package: "Switchboard"),
            .product(name: "SwitchboardNIO", package: "Switchboard"),
            .product(name: "SwitchboardAppSync", package: "Switchboard"),
            .product(name: "SwitchboardGraphQL", package: "Switchboard"),
            .product(name: "SwitchboardSync", package: "Switchboard"),
            .product(name: "SwitchboardConfiguration", package: "Switchboard"),
        ]),
        .testTarget(name: "AppTests", dependencies: [
            "App",
            .product(name: "SwitchboardTesting", package: "Switchboard"),
        ]),
    ]
)
EOF
echo 'import Switchboard' > "$work/Sources/App/App.swift"
echo 'import SwitchboardTesting' > "$work/Tests/AppTests/AppTests.swift"

# The environment of this shell must not add the repository's development products.
if ! ( cd "$work" && env -u SWITCHBOARD_DEVELOPMENT_PRODUCTS -u SWITCHBOARD_FUZZ swift package resolve >"$work/resolve.log" 2>&1 ); then
    cat "$work/resolve.log" >&2
    echo "check-consumer: the consumer package does not resolve" >&2
    exit 2
fi
packages="$(python3 -c 'import json, sys; print("\n".join(sorted(p["identity"] for p in json.load(open(sys.argv[1]))["pins"])))' "$work/Package.resolved")"
count="$(printf '%s\n' "$packages" | grep -c .)"
echo "An app using every library product of Switchboard resolves $count packages (bound $max):"
printf '%s\n' "$packages" | sed 's/^/  /'
if [ "$count" -gt "$max" ]; then
    echo "check-consumer: FAILED: $count packages is more than $max; a product now reaches a dependency it should not" >&2
    exit 1
fi
echo "check-consumer: passed"
