#!/usr/bin/env bash
# Fuzzes one FWWire target with libFuzzer and AddressSanitizer (Scripts/fuzz, Fixtures/fuzz/README.md).
#
#   Scripts/fuzz.sh TARGET SECONDS      TARGET: response-parser | chunked-decoder | websocket-decoder
#
# Builds the target with `-sanitize=fuzzer,address` into Scripts/fuzz/.build (FUZZ_SCRATCH_PATH to move
# it), copies the seeds of Fixtures/fuzz/TARGET into a temporary working corpus (the repository is never
# written), fuzzes for SECONDS and prints libFuzzer's final stats line. SECONDS = 0 replays the seeds and
# the saved crashers (Fixtures/fuzz/crashers/TARGET-*) once instead: a regression check.
#
# Exit status: 0 without a finding; 1 on a finding, with the reproducer's path and the command that
# replays it (the working directory is kept); 2 on bad usage or a failed build.
# FUZZ_CONFIGURATION=release builds optimised (faster, but without the debug bounds checks of unsafe
# buffers); the default is debug.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
    echo "usage: Scripts/fuzz.sh response-parser|chunked-decoder|websocket-decoder SECONDS" >&2
    exit 2
}

[[ $# -eq 2 ]] || usage
target=$1
duration=$2
case "$target" in
    response-parser | chunked-decoder | websocket-decoder) ;;
    *) usage ;;
esac
[[ "$duration" =~ ^[0-9]+$ ]] || usage

scratch=${FUZZ_SCRATCH_PATH:-$PWD/Scripts/fuzz/.build}
configuration=${FUZZ_CONFIGURATION:-debug}

# MARK: Build

build_flags=(-c "$configuration" -Xswiftc -sanitize=fuzzer,address --product "$target")
# lld next to the toolchain's swift, when present: gold floods the log with ASan export warnings.
lld=$(dirname "$(readlink -f "$(command -v swift)")")/ld.lld
if [[ -x "$lld" ]]; then
    mkdir -p "$scratch"
    printf '{"schemaVersion": "1.0", "linker": {"path": "%s"}}\n' "$lld" >"$scratch/fuzz-toolset.json"
    build_flags+=(--toolset "$scratch/fuzz-toolset.json")
fi
echo "building $target ($configuration, -sanitize=fuzzer,address)"
if ! swift build --package-path Scripts/fuzz --scratch-path "$scratch" "${build_flags[@]}"; then
    echo "fuzz.sh: build failed" >&2
    exit 2
fi
binary=$(swift build --package-path Scripts/fuzz --scratch-path "$scratch" "${build_flags[@]}" --show-bin-path)/$target

# MARK: Run

work=$(mktemp -d "${TMPDIR:-/tmp}/fwfuzz-$target.XXXXXX")
mkdir "$work/corpus" "$work/artifacts"
cp Fixtures/fuzz/"$target"/* "$work/corpus/"
fuzz_flags=(-max_len=65536 -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/artifacts/")
if [[ "$duration" -eq 0 ]]; then
    fuzz_flags+=(-runs=0)
    for crasher in Fixtures/fuzz/crashers/"$target"-*; do
        if [[ -e "$crasher" ]]; then
            cp "$crasher" "$work/corpus/"
        fi
    done
else
    fuzz_flags+=(-max_total_time="$duration")
fi

# The Swift runtime's backtracer would run before libFuzzer's handler and slow every crash down.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=${ASAN_OPTIONS:-handle_abort=1:symbolize=1}
echo "fuzzing $target for ${duration}s in $work"
status=0
"$binary" "${fuzz_flags[@]}" "$work/corpus" >"$work/fuzz.log" 2>&1 || status=$?

# MARK: Report

# The last status line: DONE after a clean run; the last progress line before a finding.
grep -E '^#[0-9]+[[:space:]]' "$work/fuzz.log" | tail -n 1 || true
grep -E '^stat::' "$work/fuzz.log" || true
if [[ $status -ne 0 ]]; then
    grep -E 'FWWire fuzz property violated|ERROR: (AddressSanitizer|libFuzzer)|SUMMARY' "$work/fuzz.log" >&2 || true
    grep -E '^[[:space:]]+#[0-9]+ 0x' "$work/fuzz.log" | head -n 24 >&2 || true
    reproducer=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$work/fuzz.log" | tail -n 1)
    echo "fuzz.sh: $target found a problem (libFuzzer status $status); full log: $work/fuzz.log" >&2
    if [[ -n "$reproducer" ]]; then
        echo "reproducer: $reproducer" >&2
        echo "replay:     SWIFT_BACKTRACE=enable=no $binary $reproducer" >&2
    fi
    exit 1
fi
rm -rf "$work"
