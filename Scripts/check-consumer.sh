#!/usr/bin/env bash
# What an app fetches: resolves a throwaway package that depends on this checkout the way an app
# does (the library products in its app target, SwitchboardTesting in its test target) and fails
# when it resolves more packages than the bound. Then it shows, from the manifests (this package's
# and its dependencies' `swift package dump-package`), that an Apple app using Switchboard,
# SwitchboardAppSync and the connector products (SwitchboardURLSession, SwitchboardConnectors)
# links no SwiftNIO module: every dependency path from those products to a NIO module must carry
# a condition that leaves out the Apple platforms.
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
            .product(name: "SwitchboardURLSession", package: "Switchboard"),
            .product(name: "SwitchboardConnectors", package: "Switchboard"),
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

# An Apple app on the default connector: no path from its products to a NIO module.
if ! env -u SWITCHBOARD_DEVELOPMENT_PRODUCTS -u SWITCHBOARD_FUZZ python3 - "$root" "$work" <<'PY'
import json, os, subprocess, sys

root, work = sys.argv[1], sys.argv[2]
APPLE = {"macos", "ios", "tvos", "watchos", "visionos", "maccatalyst", "driverkit"}
APP_PRODUCTS = ["Switchboard", "SwitchboardAppSync", "SwitchboardURLSession", "SwitchboardConnectors"]
checkouts = os.path.join(work, ".build", "checkouts")
manifests = {}

def manifest(path):
    if path not in manifests:
        out = subprocess.run(["swift", "package", "dump-package", "--package-path", path],
                             capture_output=True, text=True, check=True).stdout
        manifests[path] = json.loads(out)
    return manifests[path]

def package_path(identity):
    for name in os.listdir(checkouts):
        if name.lower() == identity.lower():
            return os.path.join(checkouts, name)
    raise SystemExit(f"check-consumer: no checkout of {identity}")

def applies_on_apple(condition):
    names = (condition or {}).get("platformNames") or []
    return not names or any(name in APPLE for name in names)

def is_nio(package, target):
    return package.startswith("swift-nio") or target.lstrip("_").startswith(("NIO", "CNIO"))

def edges(path, package, target_name):
    """The target's dependencies that apply on an Apple platform, as (package path, package, target)."""
    data = manifest(path)
    target = next(t for t in data["targets"] if t["name"] == target_name)
    local = {t["name"] for t in data["targets"]}
    for dependency in target["dependencies"]:
        kind, value = next(iter(dependency.items()))
        if kind in ("byName", "target"):
            name, condition = value[0], value[1]
            if not applies_on_apple(condition):
                continue
            if name in local:
                yield path, package, name
            else:
                yield from product_targets(path, package, name)
        elif kind == "product":
            name, dependency_package, condition = value[0], value[1], value[3]
            if applies_on_apple(condition):
                yield from product_targets(package_path(dependency_package), dependency_package.lower(), name)

def product_targets(path, package, product_name):
    data = manifest(path)
    product = next((p for p in data["products"] if p["name"] == product_name), None)
    for target in (product["targets"] if product else [product_name]):
        yield path, package, target

failures = []
for product in APP_PRODUCTS:
    found = len(failures)
    seen = set()
    stack = [(root, "switchboard", target, [product]) for _, _, target in product_targets(root, "switchboard", product)]
    while stack:
        path, package, target, trail = stack.pop()
        if (path, target) in seen:
            continue
        seen.add((path, target))
        trail = trail + [f"{package}/{target}"]
        if is_nio(package, target):
            failures.append(" -> ".join(trail))
            continue
        for next_path, next_package, next_target in edges(path, package, target):
            stack.append((next_path, next_package, next_target, trail))
    verdict = "none of them SwiftNIO" if len(failures) == found else "SwiftNIO among them"
    print(f"  {product}: {len(seen)} modules on an Apple platform, {verdict}")
if failures:
    print("check-consumer: FAILED: on an Apple platform these paths reach SwiftNIO:", file=sys.stderr)
    for failure in failures:
        print(f"  {failure}", file=sys.stderr)
    sys.exit(1)
PY
then
    exit 1
fi
echo "An Apple app using Switchboard, SwitchboardAppSync, SwitchboardURLSession and SwitchboardConnectors links no NIOPosix, NIOSSL or other SwiftNIO module (every path to one is conditional on Linux)."
echo "check-consumer: passed"
