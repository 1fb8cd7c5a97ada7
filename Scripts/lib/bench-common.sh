# Sourced by Scripts/bench-ab.sh and Scripts/bench-apis.sh: the working tree's benchmark client, libcurl's, and
# a loopback nginx serving a 64 B, a 1 MiB and a 100 MiB file.
#
#   make_work_dir               sets `work` to a new temporary directory, removed on exit with the nginx
#                               started below
#   build_bench_fw ROOT         builds Scripts/bench's bench-fw against the checkout at ROOT (release), its
#                               modules afresh, and prints the binary's path
#   build_bench_curl OUT        compiles Scripts/bench/curl/bench-curl.c (libcurl's multi interface) to OUT
#   start_loopback_nginx DIR    writes DIR/www/64.bin, 1m.bin, 100m.bin and DIR/nginx/nginx.conf, starts nginx
#                               (one worker, keep-alive for 100000 requests, no access log) on a free port of
#                               127.0.0.1 and waits for it; sets `nginx_port` and `nginx_pid` (the caller's
#                               EXIT trap kills it). Nothing but 127.0.0.1 is contacted.
make_work_dir() {
    work=$(mktemp -d)
    nginx_pid=""
    trap remove_work_dir EXIT
}

remove_work_dir() {
    [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null || true
    rm -rf "$work"
}

start_loopback_nginx() {
    local dir=$1
    mkdir -p "$dir/www" "$dir/nginx"
    head -c 64 /dev/urandom >"$dir/www/64.bin"
    head -c $((1 << 20)) /dev/urandom >"$dir/www/1m.bin"
    head -c $((100 << 20)) /dev/urandom >"$dir/www/100m.bin"
    chmod 755 "$dir" "$dir/www" && chmod 644 "$dir/www/"*
    nginx_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    cat >"$dir/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/error.log;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_requests 100000;
    keepalive_timeout 300s;
    client_body_temp_path $dir/nginx; proxy_temp_path $dir/nginx; fastcgi_temp_path $dir/nginx;
    uwsgi_temp_path $dir/nginx; scgi_temp_path $dir/nginx;
    server { listen 127.0.0.1:$nginx_port backlog=4096; root $dir/www; }
}
CONF
    nginx -c "$dir/nginx/nginx.conf" -p "$dir/nginx" &
    nginx_pid=$!
    for _ in $(seq 50); do [ -s "$dir/nginx/nginx.pid" ] && return 0; sleep 0.1; done
    echo "nginx did not start" >&2
    return 1
}

build_bench_fw() {
    local root=$1
    # The bench package depends on this checkout by path; SwiftPM does not plan again when the checkout gains
    # a source file, so an earlier build of the package would compile without it. Its plan goes first. Nor
    # does it always recompile a module when a module it imports changed a type's stored properties: the old
    # layout stays in the binary, which then misbehaves (a client whose every callback ran off the delegate
    # queue, seen here). This checkout's own modules are built afresh every time; the bench's dependencies
    # stay built.
    rm -f "$root/Scripts/bench/.build/release.yaml"
    for target in "$root"/Sources/*/ bench_fw; do
        rm -rf "$root/Scripts/bench/.build/release/$(basename "$target").build"
    done
    nice -n 5 swift build -c release --package-path "$root/Scripts/bench" --product bench-fw >&2
    echo "$(swift build -c release --package-path "$root/Scripts/bench" --show-bin-path)/bench-fw"
}

build_bench_curl() {
    cc -O2 -o "$1" "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/bench/curl/bench-curl.c" -lcurl
}
