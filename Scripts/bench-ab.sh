#!/usr/bin/env bash
# Before and after in one run: FWNetworking's benchmark client (Scripts/bench, bench-fw, completion
# handlers) built at an older commit and at the working tree, run against the same loopback nginx in
# interleaved rounds (the order alternating each round), with libcurl's multi client (bench-curl) in the
# same rounds as the fixed reference. Ratios are per round, then the median, as Scripts/bench.sh reports
# them: the way to say whether a change made the plain-HTTP rows slower on a shared, noisy machine, where
# a ratio against another day's run means little.
#
#   Scripts/bench-ab.sh BASE [ROUNDS] [SECONDS]    BASE: a commit (default rounds 5, 2 s per client run)
#
# Rows: GET 64 B keep-alive c=1 and c=32, GET 64 B on a new connection each (c=1), GET 1 MiB c=4, GET 100 MiB
# streamed to a data delegate that drops the bytes (c=1). Needs
# nginx, cc and libcurl's headers (Scripts/bench.sh installs them) and the bench package's dependencies
# (resolved once by Scripts/bench.sh). Nothing but 127.0.0.1 is contacted.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 BASE [ROUNDS] [SECONDS]" >&2; exit 2; }
base=$1 rounds=${2:-5} seconds=${3:-2}
say() { echo "bench-ab: $*" >&2; }
# shellcheck source=lib/bench-common.sh
. "$root/Scripts/lib/bench-common.sh"
make_work_dir

# MARK: The two clients and the reference

say "building bench-fw at $base and at the working tree (release)"
mkdir -p "$work/old" "$work/bench"
git -C "$root" archive "$base" | tar -x -C "$work/old"
# The old build takes the bench package's resolved versions (resolved here on a machine that never built it).
[ -f "$root/Scripts/bench/Package.resolved" ] || swift package --package-path "$root/Scripts/bench" resolve >&2
cp "$root/Scripts/bench/Package.swift" "$root/Scripts/bench/Package.resolved" "$work/bench/"
cp -rL "$root/Scripts/bench/Sources" "$root/Scripts/bench/Tests" "$work/bench/"
sed -i "s|path: \"../..\"|path: \"$work/old\"|" "$work/bench/Package.swift"
# The client switches the URL cache off; commits from before the cache (issue 14) have none to switch off.
grep -rq "var urlCache" "$work/old/Sources/FWURLSession" ||
    sed -i 's/^configuration.urlCache = nil$//' "$work/bench/Sources/bench-fw/main.swift"
# Nor, in commits before it, the busy-poll window (whose default the new build keeps).
grep -rq "var busyPollInterval" "$work/old/Sources/FWURLSession" ||
    sed -i '/configuration.busyPollInterval = seconds/d' "$work/bench/Sources/bench-fw/main.swift"
# Nor, in commits before it, `fwExecutor`, which the client's async-executor API prefers.
grep -rq "var fwExecutor" "$work/old/Sources/FWURLSession" ||
    sed -i '/^#if !FOUNDATION_NETWORKING \/\/ async-executor/,/^#endif$/d' "$work/bench/Sources/bench-fw/main.swift"
nice -n 5 swift build -c release --package-path "$work/bench" --product bench-fw >&2
new=$(build_bench_fw "$root")
old="$(swift build -c release --package-path "$work/bench" --show-bin-path)/bench-fw"
curl_client="$work/bench-curl"
build_bench_curl "$curl_client"

# MARK: nginx

start_loopback_nginx "$work" || exit 1
port=$nginx_port

# MARK: Rounds

# One run: prints "requests_per_second mb_per_second cpu_us_per_request" of the client's JSON line.
run() { # run PROGRAM PATH CONCURRENCY MODE
    local line
    line=$("$1" "http://127.0.0.1:$port/$2" "$3" "${seconds}s" "$4" --max-conns "$3" | tail -1)
    python3 -c 'import json, sys; r = json.loads(sys.argv[1]); assert r["errors"] == 0, r
print(r["requests_per_second"], r["mb_per_second"], r["cpu_us_per_request"])' "$line"
}
rows=("GET 64 B, keep-alive, c=1|64.bin|1|get|0" "GET 64 B, keep-alive, c=32|64.bin|32|get|0"
      "GET 64 B, new connection each, c=1|64.bin|1|close|0" "GET 1 MiB, keep-alive, c=4|1m.bin|4|get|1"
      "GET 100 MiB, streamed, c=1|100m.bin|1|stream|1")
results="$work/results.txt"
for row in "${rows[@]}"; do
    IFS='|' read -r title path concurrency mode column <<<"$row"
    for round in $(seq "$rounds"); do
        order=(new old curl)
        [ $((round % 2)) -eq 0 ] && order=(old new curl)
        declare -A speed=() cpu=()
        for client in "${order[@]}"; do
            case $client in new) program=$new ;; old) program=$old ;; curl) program=$curl_client ;; esac
            result=$(run "$program" "$path" "$concurrency" "$mode")
            read -r rps mbps cpu_us <<<"$result"
            speed[$client]=$([ "$column" = 1 ] && echo "$mbps" || echo "$rps")
            cpu[$client]=$cpu_us
        done
        echo "$title|${speed[new]}|${speed[old]}|${speed[curl]}|${cpu[new]}|${cpu[old]}|${cpu[curl]}" >>"$results"
        say "$title round $round: new ${speed[new]} old ${speed[old]} curl ${speed[curl]}"
    done
done

# MARK: Report

echo "Before ($base) and after (working tree at $(git -C "$root" rev-parse --short HEAD)) in one run: $rounds rounds" \
    "of $seconds s, medians of per-round ratios; speed is req/s (MB/s for 1 MiB and 100 MiB), CPU is µs per request"
echo
python3 "$root/Scripts/lib/ratios.py" "$results" 2 "new/old speed=0/1" "new/curl speed=0/2" "old/curl speed=1/2" \
    "new/old CPU=3/4" "new/curl CPU=3/5" "old/curl CPU=4/5"
