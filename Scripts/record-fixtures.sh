#!/usr/bin/env bash
# Re-records the migration fixtures (Tests/MigrationTests/Fixtures): AppSync Events and the AppSync
# GraphQL dialect against the emulator, graphql-ws and graphql-transport-ws against the real GraphQL
# server in Scripts/legacy-server (strawberry-graphql serving contract §4). Review the diff, then run
# the parity suite (swift test --traits SwiftConfiguration --filter MigrationTests).
set -euo pipefail
cd "$(dirname "$0")/.."
SWITCHBOARD_LEGACY_SERVER_PYTHON="$(Scripts/legacy-server/setup.sh)"
export SWITCHBOARD_LEGACY_SERVER_PYTHON
export SWITCHBOARD_RECORD_FIXTURES=1
swift build --build-tests --traits SwiftConfiguration
swift test --skip-build --traits SwiftConfiguration --filter 'MigrationTests\.(FixtureRoundTripTests|LegacyServerFixtureRoundTripTests)'
git status --short Tests/MigrationTests/Fixtures
