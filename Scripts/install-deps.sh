#!/usr/bin/env bash
# Installs the system packages FWNetworking needs to build and test: libssl-dev (TLS), zlib1g-dev
# (content decoding), media-types (/etc/mime.types, the MIME types of multipart file parts),
# publicsuffix (the public suffix list cookies are checked against; without it FWURLSession falls back to
# refusing single-label cookie domains), the test peers python3, openssl (s_server), nginx and Apache
# (apache2-bin, for HTTP Digest), and faketime for Scripts/time-travel.sh. As root it installs what is
# missing with apt-get; otherwise it prints the exact command to run and fails.
set -euo pipefail

missing=()
dpkg -s libssl-dev >/dev/null 2>&1 || missing+=(libssl-dev)
dpkg -s zlib1g-dev >/dev/null 2>&1 || missing+=(zlib1g-dev)
[ -f /etc/mime.types ] || missing+=(media-types)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null 2>&1 || missing+=(nginx)
command -v faketime >/dev/null 2>&1 || missing+=(faketime)
[ -f /usr/share/publicsuffix/public_suffix_list.dat ] || missing+=(publicsuffix)
[ -x /usr/sbin/apache2 ] || missing+=(apache2-bin)
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
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
