#!/usr/bin/env bash
# Profiles the small-request path: sequential keep-alive GETs of a 64-byte file through URLSession with
# completion handlers (Tests/ProfileClient, release build) against a loopback nginx (one worker, keep-alive
# for 100000 requests, no access log).
#
#   Scripts/profile.sh callgrind [N]   valgrind --tool=callgrind over N requests (default 2000) after 200
#                                      warm-up requests (instrumentation is switched on after the warm-up, so
#                                      start-up and the connection are not in the profile); prints
#                                      callgrind_annotate's inclusive and exclusive tables and instructions
#                                      per request, twice: requests sent one after another from the main
#                                      thread (the figure the README's history uses), then in the
#                                      benchmark's closed loop (each completion handler starts the next,
#                                      --concurrency 1; its callgrind.out is kept in Scripts/.profile/);
#                                      then libcurl multi's instructions per request (bench-curl)
#   Scripts/profile.sh strace [N]      strace -c -f over N requests (default 10000) of ProfileClient and of
#                                      libcurl's multi interface (Scripts/bench/curl/bench-curl.c), both in
#                                      the benchmark's closed loop (each completion starts the next request)
#                                      at c=1 and c=32; prints both syscall tables with the calls per
#                                      request, then both clients' context switches per request (perf stat,
#                                      when perf is installed and allowed to count). ProfileClient fails if
#                                      a checked completion handler (one in eight) ran off the delegate queue
#   Scripts/profile.sh hops [N]        wall-clock time per request of ProfileClient and of libcurl multi
#                                      (bench-curl) over N requests (default 3000) after a warm-up, and the
#                                      round trip of two threads waking each other through semaphores
#                                      (what one hand-off there and back costs here), in 3 interleaved
#                                      rounds; then CPU per request (user + system) of both clients;
#                                      prints each round's figures and the ratios
#   Scripts/profile.sh memory          peak RSS (ru_maxrss, /usr/bin/time) of ProfileClient: exiting at its
#                                      argument check (Foundation and FWNetworking loaded, nothing run), with
#                                      a session and no request, one GET, 1000 GETs; 3 rounds
#   Scripts/profile.sh memory-steps    the growth of each mapping's resident size (/proc/self/smaps) as
#                                      ProfileClient --memory-steps makes the shared cookie, credential and
#                                      URL-cache stores, a configuration, a session, a request, and sends
#                                      two GETs, one step at a time; 3 rounds, then one round that first
#                                      makes the Foundation facilities those steps use
#   Scripts/profile.sh serve           only start nginx and print its URLs, HTTP then HTTPS (the ECDSA leaf
#                                      below; trust Fixtures/tls/root-ca.pem); stops on Ctrl-C
#
# TLS modes (callgrind as above; nginx also serves HTTPS with the ECDSA P-256 and the RSA 2048 leaves of
# Fixtures/tls, each with the intermediate, TLS 1.2 + 1.3, a session cache and tickets as Scripts/bench.sh
# configures them; the client trusts only Fixtures/tls/root-ca.pem):
#   Scripts/profile.sh tls-bulk [N]            N (default 1) GETs of a 100 MiB file over one keep-alive HTTPS
#                                              connection (ECDSA), streamed through a data delegate that
#                                              drops the bytes, after one warm-up GET; instructions per MiB
#   Scripts/profile.sh tls-full-ecdsa [N]      N (default 100) GETs of 64 B, each on a new connection
#   Scripts/profile.sh tls-full-rsa [N]        (`Connection: close`) with a full handshake (the session's
#                                              resumption off), after 10 warm-up GETs; instructions per
#                                              handshake (connection, handshake, trust, one small request)
#   Scripts/profile.sh tls-resumed-ecdsa [N]   the same with resumption on: every handshake after the first
#   Scripts/profile.sh tls-resumed-rsa [N]     resumes (nginx's log of $ssl_session_reused is checked)
#
# Installs valgrind, strace and nginx with apt-get when missing and run as root. Nothing but 127.0.0.1 is
# contacted.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

mode=${1:-callgrind}
case "$mode" in
    callgrind) requests=${2:-2000} ;;
    strace) requests=${2:-10000} ;;
    hops) requests=${2:-3000} ;;
    memory) requests=0 ;;
    memory-steps) requests=0 ;;
    serve) requests=0 ;;
    tls-bulk) requests=${2:-1} ;;
    tls-full-ecdsa | tls-full-rsa | tls-resumed-ecdsa | tls-resumed-rsa) requests=${2:-100} ;;
    *)
        echo "usage: $0 callgrind|strace|hops|memory|memory-steps|serve|tls-bulk|tls-full-ecdsa|tls-full-rsa|" \
            "tls-resumed-ecdsa|tls-resumed-rsa [N]" >&2
        exit 2
        ;;
esac
say() { echo "profile: $*" >&2; }

# MARK: Dependencies

missing=()
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null || missing+=(nginx)
command -v valgrind >/dev/null || missing+=(valgrind)
command -v strace >/dev/null || missing+=(strace)
command -v cc >/dev/null || missing+=(gcc)
echo '#include <curl/curl.h>' | cc -E - >/dev/null 2>&1 || missing+=(libcurl4-openssl-dev)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        say "missing ${missing[*]}; run: sudo apt-get install -y ${missing[*]/#nginx/nginx-light}"
        exit 1
    fi
    if [[ " ${missing[*]} " == *" nginx "* ]] && apt-cache show nginx-light >/dev/null 2>&1; then
        missing=("${missing[@]/#nginx/nginx-light}")
    fi
    say "installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2 ||
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2; }
fi
nginx=$(command -v nginx || echo /usr/sbin/nginx)

# MARK: nginx

work=$(mktemp -d /tmp/fwprofile.XXXXXX)
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
chmod 644 "$work/www/64.bin"
tls_servers=""
if [[ "$mode" == tls-* || "$mode" == serve ]]; then
    fixtures="$root/Fixtures/tls"
    mkdir -p "$work/tls"
    cat "$fixtures/valid-rsa.pem" "$fixtures/intermediate-ca.pem" >"$work/tls/rsa-chain.pem"
    cp "$fixtures/valid-ecdsa-chain.pem" "$work/tls/ecdsa-chain.pem"
    cp "$fixtures/valid-rsa.key" "$fixtures/valid-ecdsa.key" "$work/tls/"
    chmod 644 "$work/tls/"*
    [ "$mode" = tls-bulk ] && head -c $((100 * 1024 * 1024)) /dev/urandom >"$work/www/100M.bin" &&
        chmod 644 "$work/www/100M.bin"
fi

port_is_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for _ in $(seq 20); do
    port=$((20000 + RANDOM % 40000))
    port_is_taken "$port" && continue
    if [[ "$mode" == tls-* || "$mode" == serve ]]; then
        port_is_taken $((port + 1)) && continue
        port_is_taken $((port + 2)) && continue
        tls_servers="
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache shared:fwprofile:10m;
    ssl_session_timeout 1h;
    ssl_session_tickets on;
    log_format sessions '\$ssl_session_reused \$ssl_protocol';
    server {
        listen 127.0.0.1:$((port + 1)) ssl;
        ssl_certificate $work/tls/ecdsa-chain.pem;
        ssl_certificate_key $work/tls/valid-ecdsa.key;
        access_log $work/logs/sessions.log sessions;
    }
    server {
        listen 127.0.0.1:$((port + 2)) ssl;
        ssl_certificate $work/tls/rsa-chain.pem;
        ssl_certificate_key $work/tls/valid-rsa.key;
        access_log $work/logs/sessions.log sessions;
    }"
    fi
    cat >"$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/logs/error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
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
    server { listen 127.0.0.1:$port; }$tls_servers
}
CONF
    "$nginx" -p "$work" -e "$work/logs/error.log" -c "$work/nginx.conf" -g 'daemon off;' &
    nginx_pid=$!
    for _ in $(seq 50); do
        kill -0 "$nginx_pid" 2>/dev/null || { nginx_pid=""; break; }
        port_is_taken "$port" && break 2
        sleep 0.1
    done
    [ -n "$nginx_pid" ] && { kill -TERM "$nginx_pid" 2>/dev/null || true; wait "$nginx_pid" 2>/dev/null || true; }
    nginx_pid=""
done
[ -n "$nginx_pid" ] || { say "nginx did not start: $(tail -3 "$work/logs/error.log" 2>/dev/null)"; exit 1; }
url="http://127.0.0.1:$port/64.bin"
say "nginx on $url (pid $nginx_pid)"
if [ "$mode" = serve ]; then
    echo "$url"
    echo "https://127.0.0.1:$((port + 1))/64.bin"
    wait "$nginx_pid"
    exit 0
fi

# MARK: The client

# shellcheck source=lib/own-modules.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/own-modules.sh"
client=$(build_own_product release ProfileClient)

# MARK: callgrind

# run_callgrind TITLE UNIT UNITS URL WARM-UP [CLIENT-FLAG...]: ProfileClient under callgrind, $requests
# requests of URL after WARM-UP requests; prints the instructions per UNIT (the total divided by UNITS) and
# callgrind_annotate's tables; keeps callgrind.out in Scripts/.profile/.
run_callgrind() {
    local title=$1 unit=$2 units=$3 target=$4 warm_up=$5
    shift 5
    out="$root/Scripts/.profile"
    mkdir -p "$out"
    rm -f "$out"/callgrind.out*
    # valgrind 3.19 cannot read the DWARF 5 the toolchain writes: profile a copy without debug information
    # (the symbol table is enough for functions).
    cp "$client" "$work/ProfileClient"
    strip --strip-debug "$work/ProfileClient"
    rm -f "$work/gate"
    mkfifo "$work/gate"
    valgrind --tool=callgrind --instr-atstart=no --separate-threads=no \
        --callgrind-out-file="$out/callgrind.out" \
        "$work/ProfileClient" "$target" "$requests" --warm-up "$warm_up" --gate "$@" \
        <"$work/gate" >"$work/client.out" 2>"$work/valgrind.log" &
    valgrind_pid=$!
    exec 4>"$work/gate"
    for _ in $(seq 2400); do
        grep -q warmed-up "$work/client.out" 2>/dev/null && break
        kill -0 "$valgrind_pid" 2>/dev/null || break
        sleep 0.25
    done
    grep -q warmed-up "$work/client.out" || { cat "$work/valgrind.log" >&2; say "the client did not warm up"; exit 1; }
    callgrind_control -i on "$valgrind_pid" >&2
    echo go >&4
    exec 4>&-
    wait "$valgrind_pid" || { tail -20 "$work/valgrind.log" >&2; exit 1; }
    total=$(grep -m1 '^summary:\|^totals:' "$out/callgrind.out" | awk '{print $2}')
    echo "## callgrind: $title"
    echo
    echo "instructions (Ir) total $total, per $unit $((total / units))"
    echo
    echo '### inclusive (top 40)'
    callgrind_annotate --inclusive=yes --threshold=100 "$out/callgrind.out" 2>/dev/null |
        swift demangle --simplified | sed -n '1,60p'
    echo
    echo '### exclusive (top 40)'
    callgrind_annotate --threshold=100 "$out/callgrind.out" 2>/dev/null |
        swift demangle --simplified | sed -n '1,60p'
}

# curl_instructions COUNT URL MODE [FLAG...]: instructions (Ir) of libcurl's multi interface (bench-curl, one
# easy handle) making COUNT requests, the whole process.
curl_instructions() {
    local count=$1 target=$2 curl_mode=$3
    shift 3
    valgrind --tool=callgrind --callgrind-out-file="$work/curl.callgrind" \
        "$work/bench-curl" "$target" 1 "$count" "$curl_mode" "$@" \
        >/dev/null 2>"$work/curl-valgrind.log" || { tail -5 "$work/curl-valgrind.log" >&2; exit 1; }
    grep -m1 '^summary:\|^totals:' "$work/curl.callgrind" | awk '{print $2}'
}

# compare_with_curl UNIT UNITS-PER-REQUEST URL MODE [FLAG...]: libcurl's instructions per UNIT for the same
# requests, as the difference between a run of $requests + 10 requests and one of 10 (start-up, the first
# connection and libcurl's initialisation cancel out).
compare_with_curl() {
    local unit=$1 per_request=$2 target=$3 curl_mode=$4
    shift 4
    cc -O2 -o "$work/bench-curl" "$root/Scripts/bench/curl/bench-curl.c" -lcurl
    local small large
    small=$(curl_instructions 10 "$target" "$curl_mode" "$@")
    large=$(curl_instructions $((requests + 10)) "$target" "$curl_mode" "$@")
    echo
    echo "libcurl ($(curl-config --version), bench-curl $curl_mode $*): instructions per $unit" \
        "$(( (large - small) / (requests * per_request) ))"
}

if [ "$mode" = callgrind ]; then
    run_callgrind "$requests GETs of 64 B, URLSession completion handlers, loopback nginx" request "$requests" \
        "$url" 200
    echo
    run_callgrind "$requests GETs of 64 B in the benchmark's closed loop (each completion handler starts the next)" \
        request "$requests" "$url" 200 --concurrency 1
    compare_with_curl request 1 "$url" get
    exit 0
fi

if [[ "$mode" == tls-* ]]; then
    cacert=(--cacert "$root/Fixtures/tls/root-ca.pem")
    ecdsa="https://127.0.0.1:$((port + 1))"
    rsa="https://127.0.0.1:$((port + 2))"
    case "$mode" in
        tls-bulk)
            title="$requests GETs of 100 MiB over one HTTPS keep-alive connection (ECDSA, TLS 1.3)"
            run_callgrind "$title, streamed through a data delegate, loopback nginx" MiB $((requests * 100)) "$ecdsa/100M.bin" 1 \
                --stream "${cacert[@]}"
            compare_with_curl MiB 100 "$ecdsa/100M.bin" stream --buffer-size 65536 "${cacert[@]}"
            ;;
        tls-full-* | tls-resumed-*)
            leaf=${mode##*-}
            base=$ecdsa
            [ "$leaf" = rsa ] && base=$rsa
            flags=(--close "${cacert[@]}")
            kind=resumed
            [[ "$mode" == tls-full-* ]] && { flags+=(--no-resumption); kind=full; }
            : >"$work/logs/sessions.log"
            title="$requests GETs of 64 B, each on a new HTTPS connection ($leaf leaf, $kind handshake)"
            run_callgrind "$title, completion handlers, loopback nginx" handshake "$requests" "$base/64.bin" 10 "${flags[@]}"
            echo
            echo "nginx: $(grep -c '^r' "$work/logs/sessions.log") of $(wc -l <"$work/logs/sessions.log")" \
                "connections resumed ($(awk '{print $2}' "$work/logs/sessions.log" | sort | uniq -c | xargs))"
            resumption=on
            [ "$kind" = full ] && resumption=off
            : >"$work/logs/sessions.log"
            compare_with_curl handshake 1 "$base/64.bin" close "${cacert[@]}" --tls-resumption "$resumption"
            echo "nginx: $(grep -c '^r' "$work/logs/sessions.log") of $(wc -l <"$work/logs/sessions.log")" \
                "libcurl connections resumed"
            ;;
    esac
    exit 0
fi

# MARK: memory

if [ "$mode" = memory ]; then
    peak() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1; }
    echo "## memory: peak RSS of ProfileClient (KB, ru_maxrss)"
    echo
    echo "| round | loaded, nothing run | session, no request | one GET | 1000 GETs |"
    echo "|--:|--:|--:|--:|--:|"
    for round in 1 2 3; do
        echo "| $round | $(peak "$client") | $(peak "$client" "$url" 0) | $(peak "$client" "$url" 1) |" \
            "$(peak "$client" "$url" 1000) |"
    done
    exit 0
fi

# MARK: memory-steps

if [ "$mode" = memory-steps ]; then
    echo "## memory-steps: resident KB each step adds, per mapping (ProfileClient --memory-steps)"
    for round in 1 2 3; do
        echo
        echo "### round $round"
        echo
        "$client" --memory-steps "$url"
    done
    echo
    echo "### the Foundation facilities first (what the later steps add is then ours)"
    echo
    "$client" --memory-steps "$url" --foundation-first
    exit 0
fi

# MARK: hops

if [ "$mode" = hops ]; then
    cc -O2 -o "$work/bench-curl" "$root/Scripts/bench/curl/bench-curl.c" -lcurl
    cat >"$work/wake.c" <<'C'
// N round trips between two threads over semaphores: the main thread wakes the peer, the peer wakes it.
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static sem_t ping, pong;
static long n;
static void *peer(void *arg) {
    for (long i = 0; i < n; i++) { sem_wait(&ping); sem_post(&pong); }
    return arg;
}
int main(int argc, char **argv) {
    n = argc > 1 ? atol(argv[1]) : 3000;
    sem_init(&ping, 0, 0);
    sem_init(&pong, 0, 0);
    pthread_t thread;
    pthread_create(&thread, NULL, peer, NULL);
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (long i = 0; i < n; i++) { sem_post(&ping); sem_wait(&pong); }
    clock_gettime(CLOCK_MONOTONIC, &end);
    pthread_join(thread, NULL);
    printf("%.0f\n", ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / n);
    return 0;
}
C
    cc -O2 -pthread -o "$work/wake" "$work/wake.c"
    echo "## hops: $requests sequential GETs of 64 B (ns per request, wall clock) and a thread round trip"
    echo
    echo "| round | FWNetworking | libcurl multi | round trip of 2 threads | FW / curl | (FW - curl) / round trip |"
    echo "|--:|--:|--:|--:|--:|--:|"
    for round in 1 2 3; do
        fw=$("$client" "$url" "$requests" --warm-up 200 --time)
        start=$(date +%s%N)
        "$work/bench-curl" "$url" 1 "$requests" get >/dev/null
        curl_ns=$(( ($(date +%s%N) - start) / requests ))
        trip=$("$work/wake" "$requests")
        awk -v r="$round" -v f="$fw" -v c="$curl_ns" -v t="$trip" \
            'BEGIN { printf "| %d | %d | %d | %d | %.2f | %.2f |\n", r, f, c, t, f / c, (f - c) / t }'
    done
    echo
    echo "bench-curl's figure includes its process start-up and connection (FWNetworking's does not)."
    echo
    # CPU (user + system, all threads) per request: the difference between a run of N and one of N/6
    # requests, so that start-up and the first connection cancel out.
    cpu() { /usr/bin/time -f "%U %S" "$@" 2>&1 >/dev/null | tail -n 1 | awk '{ printf "%d", ($1 + $2) * 1e6 }'; }
    small=$((requests / 6))
    echo "### CPU per request (µs, user + system; (run of $requests - run of $small) / $((requests - small)))"
    echo
    echo "| round | FWNetworking | libcurl multi | FW / curl |"
    echo "|--:|--:|--:|--:|"
    for round in 1 2 3; do
        fw_large=$(cpu "$client" "$url" "$requests")
        fw_small=$(cpu "$client" "$url" "$small")
        curl_large=$(cpu "$work/bench-curl" "$url" 1 "$requests" get)
        curl_small=$(cpu "$work/bench-curl" "$url" 1 "$small" get)
        awk -v r="$round" -v fl="$fw_large" -v fs="$fw_small" -v cl="$curl_large" -v cs="$curl_small" \
            -v n=$((requests - small)) \
            'BEGIN { f = (fl - fs) / n; c = (cl - cs) / n; printf "| %d | %.1f | %.1f | %.2f |\n", r, f, c, f / c }'
    done
    exit 0
fi

# MARK: strace

per_request() { # per_request STRACE-OUTPUT: the syscall table with calls per request
    awk -v n="$requests" '
        /^[ ]*[0-9.]+[ ]+[0-9.]+[ ]+[0-9]+[ ]+[0-9]+/ {
            calls = $4; name = $NF
            if ($5 ~ /^[0-9]+$/) { name = $6 }
            printf "  %-16s %9d  %7.2f per request\n", name, calls, calls / n
        }' "$1"
}
cc -O2 -o "$work/bench-curl" "$root/Scripts/bench/curl/bench-curl.c" -lcurl
# Context switches without strace's own (perf stat, when the kernel lets it count).
counts_switches=false
if command -v perf >/dev/null && perf stat -e context-switches true >/dev/null 2>&1; then counts_switches=true; fi
switches() {
    perf stat -x, -e context-switches -o "$work/perf.csv" "$@" >/dev/null
    awk -F, -v n="$requests" '/context-switches/ { printf "%.2f", $1 / n }' "$work/perf.csv"
}
# Both clients in the same closed loop: C chains, each completion starting its chain's next request
# (ProfileClient --concurrency, which fails if a checked completion handler ran off the delegate queue;
# bench-curl).
for concurrency in 1 32; do
    say "strace: ProfileClient, $requests requests, c=$concurrency"
    strace -c -f -o "$work/fw.strace" "$client" "$url" "$requests" --warm-up 0 --concurrency "$concurrency" >/dev/null
    say "strace: libcurl multi (bench-curl), $requests requests, c=$concurrency"
    strace -c -f -o "$work/curl.strace" "$work/bench-curl" "$url" "$concurrency" "$requests" get >/dev/null
    echo "## strace -c -f: $requests GETs of 64 B, c=$concurrency closed loop"
    echo
    echo "### FWNetworking (URLSession completion handlers; the whole process, start-up included)"
    per_request "$work/fw.strace"
    echo
    echo "### $(curl-config --version) multi interface (bench-curl; the whole process)"
    per_request "$work/curl.strace"
    if $counts_switches; then
        echo
        echo "### context switches per request, c=$concurrency (perf stat -e context-switches; the whole process)"
        echo "  FWNetworking     $(switches "$client" "$url" "$requests" --warm-up 0 --concurrency "$concurrency")"
        echo "  libcurl multi    $(switches "$work/bench-curl" "$url" "$concurrency" "$requests" get)"
    fi
    echo
done
