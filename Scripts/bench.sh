#!/usr/bin/env bash
# The client benchmark suite (issue 4, item 7): FWNetworking's URLSession against libcurl's multi
# interface, AsyncHTTPClient, FoundationNetworking's URLSession and wrk, all against a loopback nginx.
#
#   Scripts/bench.sh            5 rounds of 2 s per client and row: about 5 minutes after the build (the
#                               first build compiles AsyncHTTPClient, SwiftNIO and BoringSSL: 10-25 min)
#   Scripts/bench.sh --quick    3 rounds of 1 s, waiting at most a minute for a quiet machine: a smoke
#                               run (its report goes to Scripts/bench/.build/results-quick.md)
#
# It installs what it needs with apt-get when run as root (nginx-light or nginx, libcurl4-openssl-dev,
# wrk), builds the clients in Scripts/bench (release), writes an nginx config in a temporary directory
# (127.0.0.1 only, a free port, one worker, keep-alive for 100000 requests, no access log, files of
# 64 B, 1 MiB and 100 MiB), runs nginx in the foreground as a child and stops it on exit, waits for a
# quiet machine (1-minute load below 1.5, at most 15 minutes), runs the suite and prints the Markdown
# report, which also goes to Scripts/bench/results.md. Nothing but 127.0.0.1 is ever contacted.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
package="$here/bench"
rounds=5
seconds=2
max_wait=900
report="$package/results.md"
case "${1:-}" in
    "") ;;
    --quick) rounds=3 seconds=1 max_wait=60 report="$package/.build/results-quick.md" ;;
    *) echo "usage: $0 [--quick]" >&2; exit 2 ;;
esac
say() { echo "bench: $*" >&2; }

# MARK: Dependencies

have_curl_headers() { echo '#include <curl/curl.h>' | cc -E - >/dev/null 2>&1; }
missing=()
command -v cc >/dev/null || missing+=(gcc)
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null || missing+=(nginx)
command -v cc >/dev/null && have_curl_headers || missing+=(libcurl4-openssl-dev)
command -v wrk >/dev/null || missing+=(wrk)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        say "missing ${missing[*]}; run: sudo apt-get install -y ${missing[*]/#nginx/nginx-light}"
        exit 1
    fi
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    packages=()
    for name in "${missing[@]}"; do
        if [ "$name" = nginx ]; then
            # nginx-light is enough (static files); newer Debian releases only ship nginx.
            if apt-cache show nginx-light >/dev/null 2>&1; then name=nginx-light; fi
        fi
        packages+=("$name")
    done
    apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
fi
nginx=$(command -v nginx || echo /usr/sbin/nginx)
wrk=$(command -v wrk)

# MARK: Build

say "building the clients (release)"
# SwiftPM does not recompile a module when only a module re-exported by its dependency changed (bench-fw
# imports FWNetworking, which re-exports FWURLSession): a stale bench-fw can crash on changed witness
# tables. A new modification time on its source makes it compile against the current sources.
touch "$package/Sources/bench-fw/main.swift"
nice -n 10 swift build -c release --package-path "$package" >&2
bin=$(swift build -c release --package-path "$package" --show-bin-path)
mkdir -p "$package/.build/c"
nice -n 10 cc -O2 -Wall -Wextra -o "$package/.build/c/bench-curl" "$package/curl/bench-curl.c" -lcurl

# MARK: nginx

work=$(mktemp -d /tmp/fwbench.XXXXXX)
nginx_pid=""
cleanup() {
    if [ -n "$nginx_pid" ] && kill -0 "$nginx_pid" 2>/dev/null; then
        kill -TERM "$nginx_pid" 2>/dev/null || true
        wait "$nginx_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

chmod 755 "$work"   # nginx's worker runs as an unprivileged user when we are root
mkdir -p "$work/www" "$work/logs" "$work/temp"
head -c 64 /dev/urandom >"$work/www/64.bin"
head -c $((1 << 20)) /dev/urandom >"$work/www/1m.bin"
head -c $((100 << 20)) /dev/urandom >"$work/www/100m.bin"
chmod 644 "$work/www/"*

port_is_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
start_nginx() {
    local port=$1
    cat >"$work/nginx.conf" <<EOF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/logs/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_timeout 65s;
    keepalive_requests 100000;
    default_type application/octet-stream;
    client_body_temp_path $work/temp/body;
    proxy_temp_path $work/temp/proxy;
    fastcgi_temp_path $work/temp/fastcgi;
    uwsgi_temp_path $work/temp/uwsgi;
    scgi_temp_path $work/temp/scgi;
    server {
        listen 127.0.0.1:$port backlog=4096;
        root $work/www;
    }
}
EOF
    "$nginx" -p "$work" -e "$work/logs/error.log" -c "$work/nginx.conf" -g 'daemon off;' &
    nginx_pid=$!
    for _ in $(seq 50); do
        kill -0 "$nginx_pid" 2>/dev/null || { nginx_pid=""; return 1; }
        port_is_taken "$port" && return 0
        sleep 0.1
    done
    return 1
}
port=""
for _ in $(seq 20); do
    candidate=$((20000 + RANDOM % 40000))
    port_is_taken "$candidate" && continue
    if start_nginx "$candidate"; then port=$candidate; break; fi
done
[ -n "$port" ] || { say "nginx did not start: $(tail -3 "$work/logs/error.log" 2>/dev/null)"; exit 1; }
say "nginx $("$nginx" -v 2>&1 | sed 's/.*nginx\///') on 127.0.0.1:$port (pid $nginx_pid)"

# MARK: A quiet machine

waited=0
load() { cut -d' ' -f1 /proc/loadavg; }
while awk -v load="$(load)" 'BEGIN { exit !(load >= 1.5) }'; do
    if [ "$waited" -ge "$max_wait" ]; then
        say "the load is still $(load) after $((waited / 60)) min; measuring anyway"
        break
    fi
    say "1-minute load $(load) ≥ 1.5; waiting (${waited}s so far)"
    sleep 30
    waited=$((waited + 30))
done
quiet="1-minute load $(load) at the start"
[ "$waited" -ge "$max_wait" ] && quiet="$quiet (waited $((waited / 60)) min for < 1.5, then measured anyway)"

# MARK: The suite

versions="nginx $("$nginx" -v 2>&1 | sed 's/.*nginx\///') (1 worker), $(curl-config --version)"
versions="$versions, $("$wrk" -v 2>&1 | head -1 | cut -d' ' -f1-2), $(swift --version 2>/dev/null | head -1)"
"$bin/bench-suite" --base "http://127.0.0.1:$port" --bin "$bin" --curl "$package/.build/c/bench-curl" \
    --wrk "$wrk" --rounds "$rounds" --seconds "$seconds" --out "$report" \
    --note "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, Linux $(uname -r), $quiet" \
    --note "$versions"
say "report written to $report"
