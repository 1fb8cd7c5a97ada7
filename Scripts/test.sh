#!/usr/bin/env bash
# The whole test suite: system packages, build, every test target (the fault suite included: a fault-
# injecting proxy between the client and nginx / openssl s_server, every fault x phase x API, ~15 s), the
# allocation budgets (heap allocations per keep-alive GET, Tests/AllocationBudget), the same suite again
# under shifted clocks (no test may depend on today's date), then the dependency check,
# the symbol diff against FoundationNetworking (a missing symbol that is not on
# Scripts/api-diff/allowlist.txt fails it) and the DocC archive (a broken link in the documentation
# catalog fails it).
# With --tsan, the fault suite also runs under ThreadSanitizer (its own build in .build-tsan).
# This is the README's test command, and CI's.
set -euo pipefail
cd "$(dirname "$0")/.."

Scripts/install-deps.sh
# The shared cookie, credential and URL cache stores persist under the XDG directories: give the tests
# their own, so no run sees what an earlier one stored.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
export XDG_DATA_HOME="$scratch/data" XDG_CACHE_HOME="$scratch/cache"
swift build --build-tests
# At most 12 tests at a time: unbounded, Swift Testing starts every test at once, and the integration tests'
# hundred-odd servers (nginx, squid, apache, python) then start together and starve one another — a test
# could wait longer than a kept-alive connection's idle timeout between two of its own requests. Bounded,
# the run takes as long (about 100 s on 2 cores) and no test waits a minute for the CPU.
width=(--experimental-maximum-parallelization-width 12)
# Under a watchdog (Scripts/watch-tests.sh): a hung test is stopped and named, and the failures are summed
# up at the end of the log, where CI's excerpt of it ends.
Scripts/watch-tests.sh "swift test" 25 swift test --skip-build "${width[@]}"
# Heap allocations per keep-alive GET against Tests/AllocationBudget/budget.txt (counts, not times; ~10 s).
Scripts/alloc-budget.sh --debug
Scripts/time-travel.sh
if [ "${1:-}" = "--tsan" ]; then
    swift build --build-tests --sanitize=thread --scratch-path .build-tsan
    swift test --skip-build --sanitize=thread --scratch-path .build-tsan "${width[@]}" --filter 'FaultSuite|FaultProxyTests'
fi
Scripts/check-deps.sh
Scripts/musl-shims.sh
Scripts/size-check.sh
Scripts/api-diff.sh
Scripts/docs.sh
