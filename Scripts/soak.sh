#!/usr/bin/env bash
# Soak mode of the fault suite (not in CI): the whole fault table (every fault x phase row through the
# completion-handler, delegate, async and download APIs) round after round for SECONDS (default 3600),
# recording the test process's RSS and open descriptors every minute. It fails if any run failed or if the
# descriptors did not come back to where they started; the log shows whether RSS stays flat.
#
# Usage: Scripts/soak.sh [SECONDS] [INTERVAL]   (the log: .build/soak.log, or FW_SOAK_LOG)
# Add --sanitize=thread --scratch-path .build-tsan to both swift commands for a ThreadSanitizer soak.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-3600}"
interval="${2:-60}"
log="${FW_SOAK_LOG:-$PWD/.build/soak.log}"

Scripts/install-deps.sh
swift build --build-tests
echo "soak: ${seconds} s, a sample every ${interval} s, into ${log}"
FW_SOAK_SECONDS="$seconds" FW_SOAK_INTERVAL="$interval" FW_SOAK_LOG="$log" \
    swift test --skip-build --filter 'FaultSuite/soak'
