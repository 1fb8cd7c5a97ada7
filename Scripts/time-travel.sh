#!/usr/bin/env bash
# Runs the built test suite again with the wall clock shifted (default: +1 day, +30 days, +5 years), to
# prove that no test depends on today's date. Only FixtureExpiryTests reads the date on purpose (it is
# the fixture-expiry guard, and says so when it fails); everything else must pass on any day before the
# fixtures expire (Fixtures/tls/README.md says when).
#
# How: libfaketime (Debian's faketime) shifts CLOCK_REALTIME for the test process and every server it
# starts. The monotonic clock stays real (timers, timeouts), file timestamps stay real (NO_FAKE_STAT: a
# faked stat() but a real utimensat() would move a file's mtime by the offset on every copy), and
# timerfd-passthrough.c works around libfaketime's rewriting of timerfd deadlines.
#
# Usage: Scripts/time-travel.sh [OFFSET ...] after `swift build --build-tests`. OFFSET is faketime's
# relative form: +1d, +30d, +5y.
set -euo pipefail
cd "$(dirname "$0")/.."

offsets=("$@")
[ ${#offsets[@]} -gt 0 ] || offsets=(+1d +30d +5y)

bin=$(swift build --show-bin-path)
tests=$(find "$bin" -maxdepth 1 -name '*PackageTests.xctest' | head -n 1)
[ -x "$tests" ] || { echo "time-travel: no test binary in $bin; run swift build --build-tests first" >&2; exit 1; }
passthrough=$bin/time-travel/timerfd-passthrough.so
mkdir -p "$(dirname "$passthrough")"
${CC:-clang} -shared -fPIC -O2 -o "$passthrough" Scripts/time-travel/timerfd-passthrough.c

status=0
# Each failed pass's summary, repeated at the very end: CI keeps only the last lines of a log, and a later
# pass that succeeds would otherwise push an earlier failure out of them.
summaries=$(mktemp)
trap 'rm -f "$summaries"' EXIT
export WATCH_TESTS_SUMMARY=$summaries
for offset in "${offsets[@]}"; do
    echo "time-travel: the whole suite with the clock at $offset ($(faketime -f "$offset" date -u +%F))"
    # The faketime wrapper sets LD_PRELOAD; the passthrough goes in front of it so that it wins.
    # Under the watchdog of Scripts/watch-tests.sh, which names a hung test and sums up the failures.
    if ! Scripts/watch-tests.sh "time-travel $offset" 25 \
        env FAKETIME_DONT_FAKE_MONOTONIC=1 NO_FAKE_STAT=1 faketime -f "$offset" \
        sh -c 'LD_PRELOAD="$0:$LD_PRELOAD" exec "$1" --testing-library swift-testing --experimental-maximum-parallelization-width 12' \
        "$passthrough" "$tests"; then
        echo "time-travel: FAILED at $offset: a test depends on the date (only FixtureExpiryTests may)" \
            | tee -a "$summaries" >&2
        status=1
    fi
done
if [ "$status" -ne 0 ]; then
    echo
    echo "==== time-travel: the failed passes again ===="
    cat "$summaries"
fi
exit $status
