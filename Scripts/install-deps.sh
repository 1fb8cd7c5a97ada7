#!/usr/bin/env bash
# Installs the system packages FWNetworking needs to build and test, when run as root (otherwise it prints
# the exact apt-get command and fails):
#   libssl-dev, zlib1g-dev    TLS and content decoding
#   libbrotli1, brotli        brotli decoding (libbrotlidec, loaded at run time when installed) and the
#                             encoder of the tests' br bodies
#   media-types               /etc/mime.types: the MIME types of multipart file parts
#   publicsuffix              the public suffix list cookies are checked against (without it, single-label
#                             cookie domains are refused)
#   python3, openssl, nginx   test peers (http.server, s_server, nginx)
#   python3-websockets        a WebSocket test peer (echo, compression, subprotocols, close codes)
#   apache2-bin               a test peer for HTTP Digest
#   faketime                  Scripts/time-travel.sh
#   musl-tools                musl-gcc: Scripts/musl-shims.sh compiles the C shims with musl's headers
#   iproute2, util-linux      ip, unshare and nsenter for the network-namespace tests of reachability
#   squid, microsocks         HTTP/CONNECT (with basic_ncsa_auth) and SOCKS5 proxies for the proxy tests;
#                             a temporary policy-rc.d keeps their packages from starting system daemons
#                             (the tests start their own, on loopback ports)
set -euo pipefail

missing=()
dpkg -s libssl-dev >/dev/null 2>&1 || missing+=(libssl-dev)
dpkg -s zlib1g-dev >/dev/null 2>&1 || missing+=(zlib1g-dev)
dpkg -s libbrotli1 >/dev/null 2>&1 || missing+=(libbrotli1)
command -v brotli >/dev/null 2>&1 || missing+=(brotli)
[ -f /etc/mime.types ] || missing+=(media-types)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
/usr/bin/python3 -c 'import websockets' >/dev/null 2>&1 || missing+=(python3-websockets)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null 2>&1 || missing+=(nginx)
command -v faketime >/dev/null 2>&1 || missing+=(faketime)
command -v musl-gcc >/dev/null 2>&1 || missing+=(musl-tools)
[ -f /usr/share/publicsuffix/public_suffix_list.dat ] || missing+=(publicsuffix)
[ -x /usr/sbin/apache2 ] || missing+=(apache2-bin)
command -v ip >/dev/null 2>&1 || missing+=(iproute2)
{ command -v unshare && command -v nsenter; } >/dev/null 2>&1 || missing+=(util-linux)
[ -x /usr/sbin/squid ] || missing+=(squid)
[ -x /usr/lib/squid/basic_ncsa_auth ] || missing+=(squid)
command -v microsocks >/dev/null 2>&1 || missing+=(microsocks)
for extra in "$@"; do
    dpkg -s "$extra" >/dev/null 2>&1 || missing+=("$extra")
done

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "Missing system packages. Install them with:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
echo "Installing ${missing[*]} ..."
apt-get update -qq
# nginx-light is enough (static files, gzip, ranges); newer Debian releases only ship nginx.
if [[ " ${missing[*]} " == *" nginx "* ]] && apt-cache show nginx-light >/dev/null 2>&1; then
    missing=("${missing[@]/#nginx/nginx-light}")
fi
# No daemon may start during the install: the tests run their own squid and microsocks.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy"
    chmod +x "$policy"
    trap 'rm -f "$policy"' EXIT
fi
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
