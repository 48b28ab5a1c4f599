#!/usr/bin/env bash
# Makes (or reuses) the legacy GraphQL server's virtual environment and prints its python's path.
#   Scripts/legacy-server/setup.sh [VENV_DIR]      (default: .build/legacy-server-venv)
# The environment is reused while requirements.txt is unchanged (its hash is kept in the venv).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${1:-$here/../../.build/legacy-server-venv}"
requirements="$here/requirements.txt"
stamp="$venv/requirements.sha256"
wanted="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [[ ! -x "$venv/bin/python" || ! -f "$stamp" || "$(cat "$stamp")" != "$wanted" ]]; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps -r "$requirements" >&2
    "$venv/bin/python" -m pip check >&2
    echo "$wanted" > "$stamp"
fi
cd "$venv" && echo "$(pwd)/bin/python"
