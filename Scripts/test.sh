#!/usr/bin/env bash
# The whole test suite: system packages, build, every test target, the same suite again under shifted
# clocks (no test may depend on today's date), then the dependency check, the symbol diff against
# FoundationNetworking (a missing symbol that is not on Scripts/api-diff/allowlist.txt fails it) and the
# DocC archive (a broken link in the documentation catalog fails it).
# This is the README's test command, and CI's.
set -euo pipefail
cd "$(dirname "$0")/.."

Scripts/install-deps.sh
swift build --build-tests
swift test --skip-build
Scripts/time-travel.sh
Scripts/check-deps.sh
Scripts/api-diff.sh
Scripts/docs.sh
