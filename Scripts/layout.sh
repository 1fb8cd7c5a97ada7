#!/usr/bin/env bash
# What code layout buys the small-request path, laid out by either of two tools from a profile of the
# benchmark's closed loop (keep-alive and a new connection each, HTTPS, against a loopback nginx):
#
# - BOLT (default): builds Tests/ProfileClient linked by lld with its relocations kept, has BOLT (llvm-bolt)
#   instrument it, trains it, and lets BOLT lay the same binary out again from that profile: hot blocks together,
#   cold blocks split out of their functions, hot functions next to each other.
# - profile-guided optimisation (--pgo), with the Swift toolchain alone: builds ProfileClient instrumented by
#   LLVM (IR-level PGO), trains it, merges the profile (Scripts/.layout-pgo/FWNetworking.profdata, kept) and
#   builds it again optimised with that profile: the compiler places blocks and splits hot and cold code by
#   it, inlines by it, and puts hot functions in a section of their own (.text.hot), cold ones in another.
#
# Then it times the binary as built by default (BOLT: as linked), the laid-out one and libcurl's multi interface
# (bench-curl) in interleaved rounds, the order rotating, and prints the medians and the medians of the
# per-round ratios.
#
#   Scripts/layout.sh [--pgo] [N] [ROUNDS]   N requests a run (default 10000; a new connection each: N / 2),
#                                    ROUNDS rounds of each mode (default 9): keep-alive, a new connection
#                                    each, HTTPS keep-alive (TLS 1.3, the ECDSA leaf of Fixtures/tls), all
#                                    one request at a time, and keep-alive with 32 in flight (5 N requests)
#
# Only the executable is laid out (SwiftPM links FWNetworking's modules into it): the Swift runtime and
# Foundation stay the shared libraries they are. An app can do the same to itself (README, "Stage C, tenth
# cuts", and "Profile-guided optimisation"). BOLT: installs bolt-15 (Debian's BOLT) when missing and run as
# root (lld is the Swift toolchain's). PGO: the toolchain's own frontend flags, profile runtime and
# llvm-profdata (Debian's llvm-profdata reads another profile format version); the driver's
# `-ir-profile-generate` is not passed on to the frontend by this toolchain, hence `-Xfrontend`, and the
# toolchain's `-profile-use` (SIL-level) stops on an assertion. nginx comes from `Scripts/profile.sh serve`.
# Builds in Scripts/.layout and Scripts/.layout-pgo, leaving .build alone. Nothing but 127.0.0.1 is contacted.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
method=bolt
if [ "${1:-}" = --pgo ]; then
    method=pgo
    shift
fi
requests=${1:-10000}
rounds=${2:-9}
say() { echo "layout: $*" >&2; }

if [ "$method" = bolt ] && ! command -v llvm-bolt-15 >/dev/null; then
    [ "$(id -u)" -eq 0 ] || { say "missing bolt-15; run: sudo apt-get install -y bolt-15"; exit 1; }
    say "installing bolt-15"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bolt-15 >&2 ||
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bolt-15 >&2; }
fi

work=$(mktemp -d /tmp/fwlayout.XXXXXX)
serve_pid=""
cleanup() {
    if [ -n "$serve_pid" ] && kill -TERM "$serve_pid" 2>/dev/null; then wait "$serve_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

Scripts/profile.sh serve >"$work/serve.out" 2>"$work/serve.log" &
serve_pid=$!
for _ in $(seq 600); do
    grep -q '^http://' "$work/serve.out" 2>/dev/null && break
    kill -0 "$serve_pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
    sleep 0.5
done
url=$(grep -m1 '^http://' "$work/serve.out")
for _ in $(seq 20); do grep -q '^https://' "$work/serve.out" && break; sleep 0.1; done
tls_url=$(grep -m1 '^https://' "$work/serve.out")
cacert=(--cacert "$root/Fixtures/tls/root-ca.pem")
say "nginx on $url and $tls_url"

# train NAME ARGUMENTS...: one run of the instrumented client; BOLT's profile (written at exit) becomes NAME.fdata,
# LLVM's is written to NAME.profraw.
train() {
    local name=$1
    shift
    LLVM_PROFILE_FILE="$work/$name.profraw" "$work/instrumented" "$@" --concurrency 1
    if [ "$method" = bolt ]; then mv "$work/profile" "$work/$name.fdata"; fi
}
train_all() {
    say "training"
    train keep-alive "$url" 5000 --warm-up 200
    train close "$url" 2000 --warm-up 20 --close
    train tls "$tls_url" 2000 --warm-up 20 "${cacert[@]}"
}

if [ "$method" = bolt ]; then
    # lld keeps the relocations BOLT needs to move functions (gold fails with --emit-relocs); no PIE, as BOLT 15
    # wants. Linked this way and not laid out, the client runs as fast as the default build (0.992×, 7 rounds).
    scratch="$root/Scripts/.layout"
    swift build -c release --product ProfileClient --scratch-path "$scratch" \
        -Xswiftc -use-ld=lld -Xlinker --emit-relocs -Xlinker -no-pie >&2
    cp "$scratch/release/ProfileClient" "$work/linked"
    say "instrumenting"
    llvm-bolt-15 "$work/linked" -instrument -o "$work/instrumented" -instrumentation-file="$work/profile" \
        -runtime-instrumentation-lib=llvm-15/lib/libbolt_rt_instr.a >"$work/bolt.log" 2>&1 ||
        { tail -5 "$work/bolt.log" >&2; exit 1; }
    train_all
    merge-fdata-15 "$work/keep-alive.fdata" "$work/close.fdata" "$work/tls.fdata" >"$work/merged.fdata"
    llvm-bolt-15 "$work/linked" -o "$work/laid-out" -data="$work/merged.fdata" -reorder-blocks=ext-tsp \
        -reorder-functions=hfsort+ -split-functions -split-all-cold -split-eh >"$work/layout.log" 2>&1 ||
        { tail -5 "$work/layout.log" >&2; exit 1; }
    grep -E 'have non-empty execution profile|modified layout' "$work/layout.log" | sed 's/^/layout: /' >&2
    labels=(linked laid-out "as linked" "laid out by BOLT")
else
    toolchain=$(dirname "$(readlink -f "$(command -v swiftc)")")
    runtime=$(find "$toolchain/../lib/clang" -name 'libclang_rt.profile-x86_64.a' | head -1)
    [ -n "$runtime" ] || { say "no libclang_rt.profile-x86_64.a in the toolchain"; exit 1; }
    scratch="$root/Scripts/.layout-pgo"
    swift build -c release --product ProfileClient --scratch-path "$scratch/default" >&2
    cp "$scratch/default/release/ProfileClient" "$work/linked"
    say "building instrumented"
    # The instrumented link pulls the profile runtime in by hand: the driver adds it only for its own
    # `-profile-generate`.
    swift build -c release --product ProfileClient --scratch-path "$scratch/instrumented" \
        -Xswiftc -Xfrontend -Xswiftc -ir-profile-generate \
        -Xlinker -u__llvm_profile_runtime -Xlinker "$runtime" >&2
    cp "$scratch/instrumented/release/ProfileClient" "$work/instrumented"
    train_all
    "$toolchain/llvm-profdata" merge -o "$scratch/FWNetworking.profdata" "$work"/*.profraw
    say "profile: $scratch/FWNetworking.profdata; building with it"
    swift build -c release --product ProfileClient --scratch-path "$scratch/optimised" \
        -Xswiftc -Xfrontend -Xswiftc -ir-profile-use="$scratch/FWNetworking.profdata" \
        -Xswiftc -Xfrontend -Xswiftc -function-sections -Xlinker -z -Xlinker keep-text-section-prefix >&2
    cp "$scratch/optimised/release/ProfileClient" "$work/laid-out"
    labels=(default PGO "as built by default" "built with the profile")
fi
cc -O2 -o "$work/bench-curl" "$root/Scripts/bench/curl/bench-curl.c" -lcurl

# One line per run: round, mode, who, wall, user and system seconds.
for mode in get close tls c32; do
    count=$requests
    target=$url
    concurrency=1
    extra=()
    curl_extra=()
    case $mode in
        close) count=$((requests / 2)); extra=(--close) ;;
        tls) target=$tls_url; extra=("${cacert[@]}"); curl_extra=("${cacert[@]}") ;;
        c32) count=$((requests * 5)); concurrency=32 ;;
    esac
    say "$rounds rounds of $count requests, mode $mode"
    for round in $(seq "$rounds"); do
        case $((round % 3)) in
            0) order="linked laid-out curl" ;;
            1) order="laid-out curl linked" ;;
            *) order="curl linked laid-out" ;;
        esac
        for who in $order; do
            if [ "$who" = curl ]; then
                curl_mode=$mode
                [ "$mode" = close ] || curl_mode=get
                command=("$work/bench-curl" "$target" "$concurrency" "$count" "$curl_mode" "${curl_extra[@]}")
            else
                command=("$work/$who" "$target" "$count" --warm-up 200 --concurrency "$concurrency" "${extra[@]}")
            fi
            /usr/bin/time -f "$round $mode $who %e %U %S" "${command[@]}" >/dev/null 2>>"$work/times"
        done
    done
done

echo "## layout: ProfileClient ${labels[2]}, ${labels[3]}, and libcurl multi ($rounds rounds each)"
python3 - "$work/times" "${labels[@]}" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    fields = line.split()
    if len(fields) == 6 and fields[0].isdigit():
        runs[(fields[1], int(fields[0]))][fields[2]] = tuple(map(float, fields[3:]))
names = {"linked": sys.argv[2], "laid-out": sys.argv[3], "curl": "libcurl"}
for mode, title in (("get", "keep-alive, c=1"), ("close", "a new connection each, c=1"),
                    ("tls", "HTTPS keep-alive, c=1"), ("c32", "keep-alive, c=32")):
    done = [r for (m, _), r in runs.items() if m == mode and len(r) == 3]
    print(f"\n### {title}\n\n| client | wall s | user s | system s | speed / libcurl |\n|---|--:|--:|--:|--:|")
    for who in ("linked", "laid-out", "curl"):
        wall, user, system = (statistics.median(r[who][i] for r in done) for i in range(3))
        ratio = statistics.median(r["curl"][0] / r[who][0] for r in done)
        print(f"| {names[who]} | {wall:.3f} | {user:.3f} | {system:.3f} | {ratio:.3f}× |")
    speed = statistics.median(r["linked"][0] / r["laid-out"][0] for r in done)
    print(f"\n{sys.argv[5]} / {sys.argv[4]}: {speed:.3f}× the speed (median of {len(done)} per-round ratios)")
PY
