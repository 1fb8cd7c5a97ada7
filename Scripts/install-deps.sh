#!/usr/bin/env bash
# Installs the system packages FWNetworking needs to build and test: libssl-dev (TLS), zlib1g-dev
# (content decoding), media-types (/etc/mime.types, the MIME types of multipart file parts), the test
# peers python3, openssl (s_server), nginx, squid (an HTTP and CONNECT proxy with its basic_ncsa_auth
# helper) and microsocks (a SOCKS5 proxy), and faketime for Scripts/time-travel.sh. As root it installs
# what is missing with apt-get; otherwise it prints the exact command to run and fails. The proxies'
# packages would start system-wide daemons on install: a temporary policy-rc.d keeps them from starting
# (the tests start their own, on loopback ports).
set -euo pipefail

missing=()
dpkg -s libssl-dev >/dev/null 2>&1 || missing+=(libssl-dev)
dpkg -s zlib1g-dev >/dev/null 2>&1 || missing+=(zlib1g-dev)
[ -f /etc/mime.types ] || missing+=(media-types)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null 2>&1 || missing+=(nginx)
command -v faketime >/dev/null 2>&1 || missing+=(faketime)
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
