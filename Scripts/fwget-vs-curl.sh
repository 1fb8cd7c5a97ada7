#!/usr/bin/env bash
# fwget against curl (and the static fwcurl): one HTTPS GET of a small page from `openssl s_server -www` on
# loopback, RUNS times each (default 20), the tools taking turns in each round (paired runs, so a busy
# moment of the machine hits all of them). For each tool: the binary size (stripped for ours), the median
# peak RSS (/usr/bin/time -v's "Maximum resident set size") and the median whole-process wall time.
# Prints a Markdown table (the README's).
#
# Usage: Scripts/fwget-vs-curl.sh [RUNS]   (builds the static fwget and fwcurl into .build-static first)
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-20}
scratch=.build-static
swift build -c release --product fwget --static-swift-stdlib --scratch-path "$scratch" >/dev/null
swift build -c release --product fwcurl --static-swift-stdlib --scratch-path "$scratch" >/dev/null
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
strip -o "$work/fwget" "$scratch/release/fwget"
strip -o "$work/fwcurl" "$scratch/release/fwcurl"

tls=Fixtures/tls
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
openssl s_server -accept "127.0.0.1:$port" -www -cert "$tls/valid-ecdsa.pem" -key "$tls/valid-ecdsa.key" \
    -cert_chain "$tls/intermediate-ca.pem" -quiet >/dev/null 2>&1 &
server=$!
for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    sleep 0.05
done
url="https://localhost:$port/"
ca="$tls/root-ca.pem"

declare -A command=(
    [curl]="curl -sS -o /dev/null --cacert $ca $url"
    [fwget]="$work/fwget -o /dev/null --cacert $ca $url"
    [fwcurl]="$work/fwcurl -s -o /dev/null --cacert $ca $url"
)
tools=(curl fwget fwcurl)
for tool in "${tools[@]}"; do : >"$work/$tool.rss"; : >"$work/$tool.ms"; done
for _ in $(seq "$runs"); do
    for tool in "${tools[@]}"; do
        start=$(date +%s%N)
        /usr/bin/time -v -o "$work/time.txt" ${command[$tool]}
        end=$(date +%s%N)
        echo $(((end - start) / 1000000)) >>"$work/$tool.ms"
        awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt" >>"$work/$tool.rss"
    done
done

median() { sort -n "$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
size_of() {
    case $1 in
        curl) stat -L -c %s "$(command -v curl)" ;;
        *) stat -c %s "$work/$1" ;;
    esac
}
echo "One HTTPS GET from openssl s_server on loopback, median of $runs paired runs ($(nproc) cores, $(date -u +%Y-%m-%d)):"
echo
echo "| tool | binary | peak RSS | wall time |"
echo "|---|---|---|---|"
for tool in "${tools[@]}"; do
    bytes=$(size_of "$tool")
    printf '| %s | %s | %s MB | %s ms |\n' "$tool" \
        "$(awk -v b="$bytes" 'BEGIN {printf (b >= 1048576) ? "%.1f MB" : "%.0f KB", (b >= 1048576) ? b / 1048576 : b / 1024}')" \
        "$(awk -v k="$(median "$work/$tool.rss")" 'BEGIN {printf "%.1f", k / 1024}')" "$(median "$work/$tool.ms")"
done
echo
echo "(curl is the system's dynamically linked curl, $(curl --version | head -1 | cut -d' ' -f1-2); fwget and fwcurl are static, stripped)"
