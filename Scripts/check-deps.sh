#!/usr/bin/env bash
# Proves the dependency promise: fwcurl, linked with the static Swift runtime, needs only libc, libm,
# libstdc++, libgcc_s, libssl, libcrypto, libz and the loader; no libcurl; and no source imports
# FoundationNetworking (nor SwiftNIO).
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
if grep -rn --include='*.swift' -E '^\s*(@_exported\s+)?import\s+(FoundationNetworking|NIO)' Sources Tests; then
    echo "check-deps: the lines above import a module the product must never depend on" >&2
    status=1
fi
for target in FWWire FWLoop FWTLS FWTransport; do
    if grep -rn --include='*.swift' -E '^\s*import\s+(Foundation|FoundationEssentials)\b' "Sources/$target"; then
        echo "check-deps: Sources/$target must not import Foundation" >&2
        status=1
    fi
done

swift build -c release --product fwcurl --static-swift-stdlib --scratch-path .build-static >/dev/null
binary=.build-static/release/fwcurl
allowed='^(linux-vdso|libc|libm|libstdc\+\+|libgcc_s|libssl|libcrypto|libz|ld-linux-x86-64|ld-linux-aarch64)\.so'
echo "check-deps: ldd $binary"
while read -r line; do
    library=$(echo "$line" | awk '{print $1}')
    [ -z "$library" ] && continue
    library=$(basename "$library")
    if [[ "$library" =~ $allowed ]]; then
        echo "  ok       $library"
    else
        echo "  REFUSED  $line"
        status=1
    fi
done < <(ldd "$binary")
if [ $status -eq 0 ]; then echo "check-deps: passed"; else echo "check-deps: FAILED" >&2; fi
exit $status
