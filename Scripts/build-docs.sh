#!/usr/bin/env bash
# Builds the DocC documentation of every library product with warnings as errors, so a broken symbol
# link or a malformed catalog fails (CI runs it after the test build).
#
#   Scripts/build-docs.sh [OUTPUT_DIR]        (default: .build/docs, one .doccarchive per module)
#
# No documentation plugin is involved: `swift package dump-symbol-graph` extracts the public symbol
# graphs from the debug build (after `swift build --build-tests` or `swift test` little is left to
# compile), and the toolchain's `docc` converts each module's catalog with its graphs. DOCC overrides
# the docc executable (default: the one beside swift).
set -euo pipefail
cd "$(dirname "$0")/.."
output="${1:-.build/docs}"
# Each module after the modules it depends on, whose archives resolve its links to their symbols.
modules=(SwitchboardCore SwitchboardNIO SwitchboardURLSession SwitchboardConnectors SwitchboardAppSync SwitchboardGraphQL
    SwitchboardSync Switchboard SwitchboardConfiguration SwitchboardTesting)
declare -A dependencies=(
    [SwitchboardNIO]="SwitchboardCore" [SwitchboardURLSession]="SwitchboardCore"
    [SwitchboardConnectors]="SwitchboardCore SwitchboardURLSession SwitchboardNIO" [SwitchboardAppSync]="SwitchboardCore" [SwitchboardGraphQL]="SwitchboardCore"
    [SwitchboardSync]="SwitchboardCore" [Switchboard]="SwitchboardCore"
    [SwitchboardConfiguration]="SwitchboardCore Switchboard" [SwitchboardTesting]="SwitchboardCore Switchboard"
)

docc="${DOCC:-}"
if [[ -z "$docc" ]]; then
    docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
    [[ -x "$docc" ]] || docc="$(command -v docc || true)"
fi
[[ -x "$docc" ]] || { echo "build-docs: no docc executable (set DOCC)" >&2; exit 2; }

# The same trait as the test build, so nothing recompiles for a different configuration.
swift package --traits SwiftConfiguration dump-symbol-graph --minimum-access-level public \
    --emit-extension-block-symbols >"$output.symbol-graph.log" 2>&1 || {
    cat "$output.symbol-graph.log" >&2
    echo "build-docs: extracting the symbol graphs failed" >&2
    exit 1
}
graphs="$(sed -n 's/^Files written to //p' "$output.symbol-graph.log" | tail -n 1)"
[[ -d "$graphs" ]] || { cat "$output.symbol-graph.log" >&2; echo "build-docs: no symbol graph directory" >&2; exit 1; }

rm -rf "$output"
mkdir -p "$output"
failed=()
for module in "${modules[@]}"; do
    # The module's own graph and its extensions of other modules' types (Module@Other).
    module_graphs="$output/$module.symbol-graphs"
    mkdir -p "$module_graphs"
    cp "$graphs/$module.symbols.json" "$module_graphs/"
    find "$graphs" -maxdepth 1 -name "$module@*.symbols.json" -exec cp {} "$module_graphs/" \;
    catalog=()
    [[ -d "Sources/$module/Documentation.docc" ]] && catalog=("Sources/$module/Documentation.docc")
    linked=()
    for dependency in ${dependencies[$module]:-}; do linked+=(--dependency "$output/$dependency.doccarchive"); done
    if "$docc" convert "${catalog[@]}" \
        --additional-symbol-graph-dir "$module_graphs" \
        --enable-experimental-external-link-support "${linked[@]}" \
        --fallback-display-name "$module" --fallback-bundle-identifier "com.switchboard.$module" \
        --output-path "$output/$module.doccarchive" \
        --warnings-as-errors >"$output/$module.log" 2>&1; then
        echo "build-docs: $module ok"
    else
        cat "$output/$module.log" >&2
        failed+=("$module")
    fi
    rm -rf "$module_graphs"
done
if ((${#failed[@]})); then
    echo "build-docs: FAILED for ${failed[*]} (warnings are errors)" >&2
    exit 1
fi
echo "build-docs: ${#modules[@]} modules documented in $output"
