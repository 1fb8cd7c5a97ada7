#!/usr/bin/env bash
# The allocation budgets (Tests/AllocationBudget): heap allocations per keep-alive GET through URLSession
# with completion handlers and through HTTPTransport alone, against the checked-in counts in
# Tests/AllocationBudget/budget.txt. Counts, not times, so a loaded machine cannot make it flaky.
#
#   Scripts/alloc-budget.sh              the debug build (what Scripts/test.sh runs), then the release build
#   Scripts/alloc-budget.sh --debug      the debug build only (no release build: for CI after `swift build`)
#   Scripts/alloc-budget.sh --suggest    print the measured counts and budget lines with ~10% headroom
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=lib/own-modules.sh
. Scripts/lib/own-modules.sh

configurations=(debug release)
extra=()
for argument in "$@"; do
    case "$argument" in
        --debug) configurations=(debug) ;;
        --suggest) extra+=(--suggest) ;;
        *) echo "usage: $0 [--debug] [--suggest]" >&2; exit 2 ;;
    esac
done
for configuration in "${configurations[@]}"; do
    budget=$(build_own_product "$configuration" AllocationBudget)
    "$budget" "${extra[@]}"
done
