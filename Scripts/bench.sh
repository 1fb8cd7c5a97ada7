#!/usr/bin/env bash
# The client benchmark suite: FWNetworking's URLSession against libcurl's multi interface,
# AsyncHTTPClient, FoundationNetworking's URLSession and wrk, all against a loopback nginx, over HTTP
# (issue 4, item 7) and HTTPS (issue 5, item 9), plus 1 GiB file transfers against the curl tool
# (issue 6, "Performance and memory").
#
#   Scripts/bench.sh                 every row, 5 rounds of 2 s per client and row: about 15 minutes after
#                                    the build (the first build compiles AsyncHTTPClient, SwiftNIO and
#                                    BoringSSL: 10-25 min); the report goes to Scripts/bench/results.md
#   Scripts/bench.sh --quick         3 rounds of 1 s, waiting at most a minute for a quiet machine
#   Scripts/bench.sh --rows https    a subset: row ids and the groups http, https, files (comma-separated)
#   --rounds N, --seconds S          rounds per row, seconds per timed client run
#   --api CLIENT=API                 a Swift client's other API (repeatable): fw=async (N tasks awaiting
#                                    `data(for:)`), fw=async-executor (the same with the session's
#                                    `fwExecutor` preferred), ahc=async (`execute(_:timeout:)`),
#                                    foundation=async; such a run is partial too (its report is not results.md)
#   --out FILE                       where the report goes. Runs with --quick, --rows or fewer than 5
#                                    rounds default to Scripts/bench/.build/results-partial.md, so only a
#                                    full run replaces results.md
#
# It installs what it needs with apt-get when run as root (nginx-light or nginx, libcurl4-openssl-dev,
# curl, wrk), builds the clients in Scripts/bench (release), writes an nginx config in a temporary
# directory and runs nginx in the foreground as a child, stopping it on exit. nginx listens on 127.0.0.1
# only, on four free ports, one worker, keep-alive for 100000 requests:
#   http         files of 64 B, 1 MiB, 100 MiB and (file rows) 1 GiB; PUT /put/NAME stores the body
#                (WebDAV, no size limit) in a tmpfs directory, so the whole body is read, and the suite
#                checks the stored size after every upload and deletes it
#   https        TLS 1.2 + 1.3, ECDSA P-256 leaf + intermediate from Fixtures/tls, session cache and
#                tickets on, no access log (keep-alive rows)
#   https-rsa    the same with the RSA 2048 leaf, and an access log of $ssl_session_reused per request
#   https-ecdsa  the ECDSA leaf with that log (new-connection rows: the suite checks full vs resumed)
# Clients trust only Fixtures/tls/root-ca.pem. Then it waits for a quiet machine (1-minute load below
# 1.5, at most 15 minutes), runs the suite and prints the Markdown report. Nothing but 127.0.0.1 is
# ever contacted.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
package="$here/bench"
fixtures="$here/../Fixtures/tls"
rounds=5
seconds=2
max_wait=900
rows=""
apis=()
report=""
partial=false
usage() {
    echo "usage: $0 [--quick] [--rows id|group,...] [--rounds N] [--seconds S] [--api CLIENT=API]... [--out FILE]" >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) rounds=3 seconds=1 max_wait=60 partial=true; shift ;;
        --rows) [ $# -ge 2 ] || usage; rows=$2 partial=true; shift 2 ;;
        --rounds) [ $# -ge 2 ] && [ "$2" -gt 0 ] 2>/dev/null || usage; rounds=$2; shift 2 ;;
        --seconds) [ $# -ge 2 ] || usage; seconds=$2; shift 2 ;;
        --api) [ $# -ge 2 ] || usage; apis+=(--api "$2") partial=true; shift 2 ;;
        --out) [ $# -ge 2 ] || usage; report=$2; shift 2 ;;
        *) usage ;;
    esac
done
[ "$rounds" -lt 5 ] && partial=true
if [ -z "$report" ]; then
    if $partial; then report="$package/.build/results-partial.md"; else report="$package/results.md"; fi
fi
wants() { # wants GROUP ROW-PREFIX: true when the selected rows include the group or a row of it
    [ -z "$rows" ] || [[ ",$rows," == *",all,"* ]] || [[ ",$rows," == *",$1,"* ]] || [[ ",$rows," == *",$2"* ]]
}
say() { echo "bench: $*" >&2; }

# MARK: Dependencies

have_curl_headers() { echo '#include <curl/curl.h>' | cc -E - >/dev/null 2>&1; }
missing=()
command -v cc >/dev/null || missing+=(gcc)
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null || missing+=(nginx)
command -v cc >/dev/null && have_curl_headers || missing+=(libcurl4-openssl-dev)
command -v curl >/dev/null || missing+=(curl)
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
            # nginx-light is enough (static files, TLS, WebDAV PUT); newer Debian releases only ship nginx.
            if apt-cache show nginx-light >/dev/null 2>&1; then name=nginx-light; fi
        fi
        packages+=("$name")
    done
    apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
fi
nginx=$(command -v nginx || echo /usr/sbin/nginx)
wrk=$(command -v wrk)
curl_tool=$(command -v curl)

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

# MARK: Files and directories

work=$(mktemp -d /tmp/fwbench.XXXXXX)
# Uploads land and downloads go in memory when /dev/shm has room for two 1 GiB files (no disk writes).
if [ -d /dev/shm ] && [ -w /dev/shm ] && [ "$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')" -gt $((3 << 20)) ]
then
    transfers=$(mktemp -d /dev/shm/fwbench.XXXXXX)
else
    transfers="$work/transfers"
fi
nginx_pid=""
cleanup() {
    if [ -n "$nginx_pid" ] && kill -0 "$nginx_pid" 2>/dev/null; then
        kill -TERM "$nginx_pid" 2>/dev/null || true
        wait "$nginx_pid" 2>/dev/null || true
    fi
    rm -rf "$work" "$transfers"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

chmod 755 "$work"   # nginx's worker runs as an unprivileged user when we are root
mkdir -p "$work/www" "$work/logs" "$work/temp" "$work/tls" "$transfers/put/.temp" "$transfers/scratch"
chmod 755 "$transfers"
chmod 777 "$transfers/put" "$transfers/put/.temp"   # written by nginx's worker
head -c 64 /dev/urandom >"$work/www/64.bin"
head -c $((1 << 20)) /dev/urandom >"$work/www/1m.bin"
head -c $((100 << 20)) /dev/urandom >"$work/www/100m.bin"
if wants files file-; then
    say "writing the 1 GiB file"
    head -c $((1 << 30)) /dev/urandom >"$work/www/1g.bin"
fi
chmod 644 "$work/www/"*
cat "$fixtures/valid-rsa.pem" "$fixtures/intermediate-ca.pem" >"$work/tls/rsa-chain.pem"
cp "$fixtures/valid-ecdsa-chain.pem" "$work/tls/ecdsa-chain.pem"
cp "$fixtures/valid-rsa.key" "$fixtures/valid-ecdsa.key" "$fixtures/root-ca.pem" "$work/tls/"

# MARK: nginx

port_is_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() {
    local candidate
    while :; do
        candidate=$((20000 + RANDOM % 40000))
        port_is_taken "$candidate" || { echo "$candidate"; return; }
    done
}
start_nginx() { # start_nginx HTTP HTTPS HTTPS-RSA HTTPS-ECDSA
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
    root $work/www;

    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache shared:fwbench:10m;
    ssl_session_timeout 1h;
    ssl_session_tickets on;
    log_format sessions '\$ssl_session_reused \$ssl_protocol \$ssl_cipher';

    server {
        listen 127.0.0.1:$1 backlog=4096;
        location /put/ {
            # WebDAV PUT reads the whole body into a temporary file on the same tmpfs and renames it.
            alias $transfers/put/;
            dav_methods PUT;
            client_max_body_size 0;
            client_body_temp_path $transfers/put/.temp;
        }
    }
    server {
        listen 127.0.0.1:$2 ssl backlog=4096;
        ssl_certificate $work/tls/ecdsa-chain.pem;
        ssl_certificate_key $work/tls/valid-ecdsa.key;
    }
    server {
        listen 127.0.0.1:$3 ssl backlog=4096;
        ssl_certificate $work/tls/rsa-chain.pem;
        ssl_certificate_key $work/tls/valid-rsa.key;
        access_log $work/logs/sessions.log sessions;
    }
    server {
        listen 127.0.0.1:$4 ssl backlog=4096;
        ssl_certificate $work/tls/ecdsa-chain.pem;
        ssl_certificate_key $work/tls/valid-ecdsa.key;
        access_log $work/logs/sessions.log sessions;
    }
}
EOF
    "$nginx" -p "$work" -e "$work/logs/error.log" -c "$work/nginx.conf" -g 'daemon off;' &
    nginx_pid=$!
    for _ in $(seq 50); do
        kill -0 "$nginx_pid" 2>/dev/null || { nginx_pid=""; return 1; }
        if port_is_taken "$1" && port_is_taken "$2" && port_is_taken "$3" && port_is_taken "$4"; then return 0; fi
        sleep 0.1
    done
    return 1
}
ports=()
for _ in $(seq 20); do
    candidates=("$(free_port)" "$(free_port)" "$(free_port)" "$(free_port)")
    [ "$(printf '%s\n' "${candidates[@]}" | sort -u | wc -l)" -eq 4 ] || continue
    if start_nginx "${candidates[@]}"; then ports=("${candidates[@]}"); break; fi
    if [ -n "$nginx_pid" ]; then kill -TERM "$nginx_pid" 2>/dev/null || true; wait "$nginx_pid" 2>/dev/null || true; fi
    nginx_pid=""
done
[ ${#ports[@]} -eq 4 ] || { say "nginx did not start: $(tail -3 "$work/logs/error.log" 2>/dev/null)"; exit 1; }
say "nginx $("$nginx" -v 2>&1 | sed 's/.*nginx\///') on 127.0.0.1 ports ${ports[*]} (pid $nginx_pid)"

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

versions="nginx $("$nginx" -v 2>&1 | sed 's/.*nginx\///') (1 worker), $(curl-config --version), "
versions+="$("$curl_tool" --version | head -1 | cut -d' ' -f1-2) (tool), OpenSSL $(openssl version 2>/dev/null |
    cut -d' ' -f2), $("$wrk" -v 2>&1 | head -1 | cut -d' ' -f1-2), $(swift --version 2>/dev/null | head -1)"
selection=()
[ -n "$rows" ] && selection=(--rows "$rows")
# A full run rewrites results.md; what follows its hand-maintained marker (allocation, profile and syscall
# figures) is kept.
marker='<!-- Hand-maintained from here on'
kept=""
if [ -f "$report" ] && grep -qF "$marker" "$report"; then
    kept=$(mktemp)
    sed -n "/^$marker/,\$p" "$report" >"$kept"
fi
"$bin/bench-suite" --server "http=http://127.0.0.1:${ports[0]}" --server "https=https://127.0.0.1:${ports[1]}" \
    --server "https-rsa=https://127.0.0.1:${ports[2]}" --server "https-ecdsa=https://127.0.0.1:${ports[3]}" \
    --bin "$bin" --curl "$package/.build/c/bench-curl" --curl-tool "$curl_tool" --wrk "$wrk" \
    --cacert "$work/tls/root-ca.pem" --session-log "$work/logs/sessions.log" \
    --docroot "$work/www" --put-dir "$transfers/put" --scratch "$transfers/scratch" \
    --rounds "$rounds" --seconds "$seconds" "${selection[@]}" "${apis[@]}" --out "$report" \
    --note "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, Linux $(uname -r), $quiet" \
    --note "$versions"
# The multipart upload benchmark runs on its own (Scripts/bench-multipart.sh); its last recorded result is
# kept in its package and carried into every report, so a full run does not drop it.
multipart="$package/multipart-upload/results.md"
if [ -f "$multipart" ]; then printf '\n' >> "$report" && cat "$multipart" >> "$report"; fi
if [ -n "$kept" ]; then
    { echo; cat "$kept"; } >>"$report"
    rm -f "$kept"
fi
say "report written to $report"
