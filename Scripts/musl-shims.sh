#!/usr/bin/env bash
# Compiles every C shim (CFWShims, CFWNetlink, CFWOpenSSL, CFWZlib) with musl-gcc: musl's libc headers in
# place of glibc's, as the Swift static Linux SDK (musl) would see them, with the system's kernel, OpenSSL and zlib
# headers after them (-idirafter). Objects are discarded; a compile error or warning fails. Seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v musl-gcc >/dev/null; then
    echo "musl-shims: musl-gcc not found (Debian: musl-tools)" >&2
    exit 1
fi
multiarch=$(gcc -print-multiarch)
overlay=$(mktemp -d)
trap 'rm -rf "$overlay"' EXIT
mkdir "$overlay/openssl"
ln -s /usr/include/openssl/* "$overlay/openssl/"
ln -sf "/usr/include/$multiarch/openssl/"* "$overlay/openssl/"
ln -s /usr/include/linux /usr/include/asm-generic /usr/include/zlib.h /usr/include/zconf.h "$overlay/"
ln -s "/usr/include/$multiarch/asm" "$overlay/asm"

status=0
for source in Sources/CFW*/*.c; do
    target=$(dirname "$source")
    if ! musl-gcc -std=gnu11 -Wall -Werror -c -o /dev/null -I"$target/include" -I"$target" \
        -idirafter "$overlay" "$source"; then
        echo "musl-shims: $source does not compile with musl's headers" >&2
        status=1
    fi
done
if [ $status -eq 0 ]; then echo "musl-shims: passed ($(ls Sources/CFW*/*.c | wc -l) C files)"; fi
exit $status
