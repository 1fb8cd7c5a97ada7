#!/usr/bin/env bash
# Keeps fwget small and Foundation-free (issue 24): builds it statically (release, --static-swift-stdlib, in
# .build-static, the scratch path check-deps.sh's static fwcurl uses, so the lower modules are built once),
# strips a copy, and fails when
#   1. the stripped binary is larger than 8 MB, 8,000,000 bytes (FWGET_SIZE_LIMIT bytes to change it);
#   2. the (unstripped) binary holds a Foundation or ICU symbol.
# Prints the sizes. Run by Scripts/test.sh after check-deps.sh, whose static fwcurl build leaves the lower
# modules built (then about a minute on 2 cores; cold, about 4 minutes).
set -euo pipefail
cd "$(dirname "$0")/.."

limit=${FWGET_SIZE_LIMIT:-8000000}
scratch=.build-static
swift build -c release --product fwget --static-swift-stdlib --scratch-path "$scratch" >/dev/null
binary=$scratch/release/fwget
stripped=$(mktemp)
trap 'rm -f "$stripped"' EXIT
strip -o "$stripped" "$binary"

status=0
unstripped_size=$(stat -c %s "$binary")
size=$(stat -c %s "$stripped")
echo "size-check: fwget $unstripped_size bytes, $size stripped (limit $limit)"
# The margin left, so a branch that eats into it is seen before one crosses the limit.
echo "size-check: headroom $((limit - size)) bytes"
if [ "$size" -gt "$limit" ]; then
    echo "size-check: the stripped fwget is larger than $limit bytes" >&2
    status=1
fi
# Swift symbols of Foundation's modules are mangled with the module name (10Foundation,
# 20FoundationEssentials, 27FoundationInternationalization), ICU's C symbols carry its version suffix
# (ucol_open_74) or namespace (icu_74::), and its data is icudt*.
foreign=$(nm "$binary" 2>/dev/null | grep -E 'Foundation(Essentials|Internationalization|Networking)?[^A-Za-z]|[0-9]+Foundation|icudt|icu_[0-9]+|_u(col|loc|brk|norm2|calendar|trans)_[A-Za-z]+_[0-9]+' || true)
if [ -n "$foreign" ]; then
    echo "size-check: fwget holds Foundation or ICU symbols:" >&2
    echo "$foreign" | head -20 >&2
    status=1
else
    echo "size-check: no Foundation or ICU symbol ($(nm "$binary" | wc -l) symbols checked)"
fi
if [ $status -eq 0 ]; then echo "size-check: passed"; else echo "size-check: FAILED" >&2; fi
exit $status
