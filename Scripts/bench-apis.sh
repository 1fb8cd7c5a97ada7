#!/usr/bin/env bash
# FWNetworking's APIs against each other in one run: the benchmark client (Scripts/bench, bench-fw) built at the
# working tree, driven through completion handlers (`--api handler`), the async API (`--api async`: N Swift
# tasks awaiting `data(for:)`) and the async API with the session's executor preferred (`--api
# async-executor`, `URLSession.fwExecutor`), with libcurl's multi client (bench-curl) in the same rounds as the
# reference, against one loopback nginx. The order of the four rotates each round; ratios are per round, then
# the median, as Scripts/bench.sh reports them.
#
#   Scripts/bench-apis.sh [ROUNDS] [SECONDS]    default 7 rounds, 2 s per client run
#
# Rows: GET 64 B keep-alive c=1 and c=32, GET 64 B on a new connection each (c=1). Needs what
# Scripts/bench-ab.sh needs. Nothing but 127.0.0.1 is contacted.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rounds=${1:-7} seconds=${2:-2}
say() { echo "bench-apis: $*" >&2; }
# shellcheck source=lib/bench-common.sh
. "$root/Scripts/lib/bench-common.sh"
make_work_dir

say "building bench-fw at the working tree (release) and bench-curl"
client=$(build_bench_fw "$root")
curl_client="$work/bench-curl"
build_bench_curl "$curl_client"
start_loopback_nginx "$work" || exit 1

apis=(handler async async-executor curl)
url="http://127.0.0.1:$nginx_port/64.bin"
results="$work/results.txt"
for row in "GET 64 B, keep-alive, c=1|1|get" "GET 64 B, keep-alive, c=32|32|get" \
           "GET 64 B, new connection each, c=1|1|close"; do
    IFS='|' read -r title concurrency mode <<<"$row"
    for round in $(seq "$rounds"); do
        line="$title"
        declare -A speed=()
        for i in 0 1 2 3; do
            api=${apis[$(((round + i) % 4))]}
            if [ "$api" = curl ]; then
                json=$("$curl_client" "$url" "$concurrency" "${seconds}s" "$mode" --max-conns "$concurrency" | tail -1)
            else
                json=$("$client" "$url" "$concurrency" "${seconds}s" "$mode" --max-conns "$concurrency" --api "$api" |
                    tail -1)
            fi
            speed[$api]=$(python3 -c 'import json, sys; r = json.loads(sys.argv[1])
assert r["errors"] == 0 and r.get("off_queue_callbacks", 0) == 0, r
print(r["requests_per_second"])' "$json")
        done
        for api in "${apis[@]}"; do line+="|${speed[$api]}"; done
        echo "$line" >>"$results"
        say "$title round $round: handler ${speed[handler]} async ${speed[async]}" \
            "async-executor ${speed[async-executor]} curl ${speed[curl]}"
    done
done

echo "FWNetworking's APIs (working tree at $(git -C "$root" rev-parse --short HEAD)) against libcurl in one run:" \
    "$rounds rounds of $seconds s, medians of per-round ratios of requests per second"
echo
python3 "$root/Scripts/lib/ratios.py" "$results" 3 "handler/curl=0/3" "async/curl=1/3" \
    "async + fwExecutor/curl=2/3" "fwExecutor/async=2/1" "fwExecutor/handler=2/0"
