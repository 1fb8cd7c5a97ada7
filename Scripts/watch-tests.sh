#!/usr/bin/env bash
# Runs one Swift Testing command under a watchdog and makes its failures readable from the end of the log.
#
#   Scripts/watch-tests.sh LABEL MINUTES COMMAND [ARGUMENT ...]
#
# The command's output goes through unchanged. When it ends, a test run with failures gets a summary at the
# very end (CI keeps only the last lines of a log): every failed test, and the lines that recorded its
# issues. A run still going after MINUTES is stopped (the whole suite takes about 3 minutes on 2 cores, so
# the limits here are generous and only catch a hang), and the summary then names every test that
# started and never finished: the hung ones.
set -uo pipefail

[ $# -ge 3 ] || { echo "usage: $0 LABEL MINUTES COMMAND [ARGUMENT ...]" >&2; exit 2; }
label=$1 minutes=$2
shift 2

log=$(mktemp)
trap 'rm -f "$log"' EXIT
timeout --kill-after=30 "$((minutes * 60))" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] && exit 0

# Swift Testing may colour its output: read a copy without the escape sequences.
sed -i 's/\x1b\[[0-9;]*m//g' "$log"
summarize() {
    echo
    echo "==== $label: failed (exit $status) ===="
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
        echo "stopped after $minutes minutes; tests that started and never finished:"
        # "◇ Test name() started." against "✔ Test name() passed after ..." / "✘ Test name() failed after ...".
        sed -n 's/^◇ Test \(.*\) started\.$/\1/p' "$log" | sort -u > "$log.started"
        sed -n 's/^[✔✘] Test \(.*\) \(passed\|failed\) after .*/\1/p' "$log" | sed 's/ with [0-9]* test cases*$//' \
            | sort -u > "$log.ended"
        comm -23 "$log.started" "$log.ended" | sed 's/^/  hung: /'
        rm -f "$log.started" "$log.ended"
    fi
    echo "failed tests and their issues:"
    grep -E '^✘ (Test|Suite)|recorded an issue|Expectation failed|Caught error' "$log" | grep -v '^✘ Test run with' \
        | cut -c1-400 | head -n 60
    grep -E '^✘ Test run with' "$log"
}
# WATCH_TESTS_SUMMARY names a file the summary is also appended to, for a caller that runs several commands
# and repeats every failure at the end of its own output (Scripts/time-travel.sh).
if [ -n "${WATCH_TESTS_SUMMARY:-}" ]; then
    summarize | tee -a "$WATCH_TESTS_SUMMARY"
else
    summarize
fi
exit "$status"
