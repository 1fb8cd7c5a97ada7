#!/usr/bin/env bash
# The whole test suite: system packages, build, every test target, then the dependency check.
# This is the README's test command, and CI's.
set -euo pipefail
cd "$(dirname "$0")/.."

Scripts/install-deps.sh
swift build --build-tests
swift test --skip-build
Scripts/check-deps.sh
