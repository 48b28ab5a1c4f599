#!/usr/bin/env bash
# Fails when the public API of the library products breaks against a baseline.
#
#   Scripts/check-api.sh [REF] [-- EXTRA...]
#
# REF defaults to the newest release tag reachable from HEAD (vX.Y.Z or X.Y.Z); give a commit, branch
# or tag to compare against something else. EXTRA goes to `swift package
# diagnose-api-breaking-changes` as it is (for example `--products SwitchboardCore` to check one
# product, or `--breakage-allowlist-path FILE` for breaks a major release accepts).
#
# Run it before tagging a release: a break is fine only in a new major version (or a new minor
# version while the major is 0), and the CHANGELOG must say so. It builds this checkout and the
# baseline (in a temporary worktree) in .build/api-check, so the test build in .build is untouched;
# the first run takes as long as two debug builds.
set -euo pipefail
cd "$(dirname "$0")/.."

ref=""
if [[ $# -gt 0 && "$1" != "--" ]]; then
    ref="$1"
    shift
fi
[[ "${1:-}" == "--" ]] && shift

if [[ -z "$ref" ]]; then
    if ! ref="$(git describe --tags --abbrev=0 --match 'v[0-9]*' --match '[0-9]*' HEAD 2>/dev/null)"; then
        echo "check-api: no release tag is reachable from HEAD; name a baseline: Scripts/check-api.sh REF" >&2
        exit 2
    fi
fi
baseline="$(git rev-parse --verify --quiet "$ref^{commit}")" || {
    echo "check-api: '$ref' is not a commit, branch or tag here" >&2
    exit 2
}

echo "check-api: public API of the library products at HEAD ($(git rev-parse --short HEAD)) against $ref ($(git rev-parse --short "$baseline"))"
# The optional integration needs its trait to build its module; every product is compared.
if swift package --scratch-path .build/api-check --traits SwiftConfiguration \
    diagnose-api-breaking-changes "$baseline" "$@"; then
    echo "check-api: no API breaks"
else
    status=$?
    echo "check-api: the public API breaks against $ref (exit $status): see the diagnostics above" >&2
    exit "$status"
fi
