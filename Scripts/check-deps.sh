#!/usr/bin/env bash
# Enforces the layer table of ARCHITECTURE.md and the dependency promise:
#   1. no Swift file anywhere imports FoundationNetworking or SwiftNIO;
#   2. each target's Swift files import only the modules the table allows it (`@_exported`, `@testable`,
#      scoped and access-level imports included), so nothing below FWURLSession imports Foundation;
#   3. each C target includes no third-party header but its own library's (CFWShims: libc only);
#   4. Package.swift's target dependencies stay inside the same table, and the module graphs of FWTransport,
#      FWHTTP and fwget (every target they reach) hold none of the targets MUST_NOT_REACH names for them;
#   5. fwcurl, linked with the static Swift runtime, needs only libc, libm, libstdc++, libgcc_s, libssl,
#      libcrypto, libz and the loader (no libcurl).
# `--no-ldd` skips 5 (the release build it needs is the slow part).
set -euo pipefail
cd "$(dirname "$0")/.."

# MARK: - The layer table (ARCHITECTURE.md): keep it in step with that document

# The modules each target's Swift files may import; "*" means any. Test targets (Tests/) are free. A Swift
# target under Sources/ that is missing here fails the check: add it to ARCHITECTURE.md and to this table.
declare -A MAY_IMPORT=(
    [FWWire]=""
    [FWLoop]="CFWShims Glibc Synchronization"
    [FWNetworkMonitor]="FWLoop CFWNetlink Glibc"
    [FWTLS]="CFWOpenSSL Glibc"
    [FWTransport]="FWWire FWLoop FWTLS CFWZlib Glibc"
    [FWURLSession]="FWTransport FWTLS FWNetworkMonitor Foundation Glibc Dispatch"
    [FWNetworking]="FWURLSession FWTLS FWLoop FWNetworkMonitor Foundation Dispatch Glibc"
    [fwcurl]="FWNetworking Foundation Dispatch Glibc"
    [FWHTTP]="FWTransport FWTLS FWWire FWLoop"
    [fwget]="FWHTTP Glibc"
    [TestSupport]="*"
)
# The third-party libraries each C target may include (its own headers and libc are always allowed).
declare -A MAY_INCLUDE=(
    [CFWShims]=""
    [CFWNetlink]=""
    [CFWOpenSSL]="openssl"
    [CFWZlib]="zlib"
)
# The targets that must stay out of a target's whole module graph (its dependencies, theirs, and so on): the
# network-change monitor is linked by the session layer only, never by the Foundation-free client.
declare -A MUST_NOT_REACH=(
    [FWTransport]="FWNetworkMonitor CFWNetlink FWURLSession FWNetworking"
    [FWHTTP]="FWNetworkMonitor CFWNetlink FWURLSession FWNetworking"
    [fwget]="FWNetworkMonitor CFWNetlink FWURLSession FWNetworking"
)
# How each third-party library's headers are spelled in an #include.
declare -A LIBRARY_HEADERS=(
    [openssl]='openssl/'
    [zlib]='zlib\.h|zconf\.h'
)
# Modules no Swift file in the repository may import.
NEVER_IMPORTED='FoundationNetworking|NIO[A-Za-z0-9_]*'
# The shared objects the static fwcurl may load.
LDD_ALLOWED='^(linux-vdso|libc|libm|libstdc\+\+|libgcc_s|libssl|libcrypto|libz|ld-linux-x86-64|ld-linux-aarch64)\.so'

status=0
fail() {
    echo "check-deps: $*" >&2
    status=1
}

# MARK: - Swift imports

# An import declaration: attributes (`@_exported`, `@testable`, ...), an access level, `import`, a kind
# (`struct` in `import struct FWWire.HTTPHeaders`), then the module (group 8 with the file and line first).
IMPORT_ATTRIBUTES='(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*'
IMPORT_ACCESS='((public|package|internal|fileprivate|private)[[:space:]]+)?'
IMPORT_KIND='((typealias|struct|class|enum|protocol|let|var|func)[[:space:]]+)?'
IMPORT_LINE="[[:space:]]*${IMPORT_ATTRIBUTES}${IMPORT_ACCESS}import[[:space:]]+${IMPORT_KIND}([A-Za-z_][A-Za-z0-9_]*)"

# Prints "FILE:LINE MODULE" for every import declaration under the given directories.
imports_in() {
    grep -rnE --include='*.swift' "^${IMPORT_LINE}" "$@" 2>/dev/null |
        sed -E "s/^([^:]+:[0-9]+):${IMPORT_LINE}.*/\1 \8/"
}

while read -r location module; do
    [[ "$module" =~ ^($NEVER_IMPORTED)$ ]] && fail "$location imports $module: the product never depends on it"
done < <(imports_in Sources Tests)

for directory in Sources/*/; do
    target=$(basename "$directory")
    compgen -G "$directory*.c" >/dev/null && continue
    [ -z "$(find "$directory" -name '*.swift' -print -quit)" ] && continue
    if [[ ! -v MAY_IMPORT[$target] ]]; then
        fail "$directory is not in the layer table of Scripts/check-deps.sh (nor, probably, of ARCHITECTURE.md)"
        continue
    fi
    allowed=${MAY_IMPORT[$target]}
    [ "$allowed" = "*" ] && continue
    while read -r location module; do
        [[ " $allowed " == *" $module "* ]] && continue
        [ "$module" = Musl ] && [[ " $allowed " == *" Glibc "* ]] && continue # Glibc's musl branch
        fail "$location: $target may not import $module (allowed: ${allowed:-the standard library only})"
    done < <(imports_in "$directory")
done

# MARK: - Portable imports

# Every `import Glibc` sits in `#if canImport(Glibc)` and is followed by an `#elseif canImport(Musl)` branch
# (the Swift static Linux SDK builds with musl); Musl may be imported wherever Glibc may.
while IFS= read -r hit; do
    fail "$hit: an unconditional import Glibc (write #if canImport(Glibc) / #elseif canImport(Musl) / #endif)"
done < <(find Sources Tests -name '*.swift' -print0 | xargs -0 awk '
    FNR == 1 { previous = ""; check = 0 }
    /^[[:space:]]*import[[:space:]]+Glibc[[:space:]]*$/ {
        pending = (previous ~ /^[[:space:]]*#if[[:space:]]+canImport\(Glibc\)/) ? FILENAME ":" FNR : "";
        if (pending == "") print FILENAME ":" FNR; else { check = 1; previous = $0; next }
    }
    check == 1 { if ($0 !~ /^[[:space:]]*#elseif[[:space:]]+canImport\(Musl\)/) print pending; check = 0 }
    { previous = $0 }')

# MARK: - C includes

for directory in Sources/*/; do
    target=$(basename "$directory")
    compgen -G "$directory*.c" >/dev/null || continue
    if [[ ! -v MAY_INCLUDE[$target] ]]; then
        fail "$directory is a C target missing from the include table of Scripts/check-deps.sh"
        continue
    fi
    for library in "${!LIBRARY_HEADERS[@]}"; do
        [[ " ${MAY_INCLUDE[$target]} " == *" $library "* ]] && continue
        pattern="^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"](${LIBRARY_HEADERS[$library]})"
        while IFS= read -r hit; do
            fail "${hit%%:#*}: $target may not include $library headers (${hit#*:#})"
        done < <(grep -rnE --include='*.[ch]' "$pattern" "$directory" | sed -E 's/^([^:]+:[0-9]+):[[:space:]]*#/\1:#/')
    done
done

# MARK: - Package.swift

# Every target dependency declared in Package.swift must be a module the table lets that target import;
# the C targets depend on no target.
edges=$(swift package dump-package | python3 -c '
import json, sys
for target in json.load(sys.stdin)["targets"]:
    for dependency in target["dependencies"]:
        for kind in ("byName", "target", "product"):
            if kind in dependency:
                print(target["name"], dependency[kind][0])
')
while read -r target dependency; do
    [[ -v MAY_INCLUDE[$target] ]] && fail "Package.swift: the C target $target depends on $dependency"
    [[ -v MAY_IMPORT[$target] ]] || continue
    allowed=${MAY_IMPORT[$target]}
    [ "$allowed" = "*" ] && continue
    [[ " $allowed " == *" $dependency "* ]] && continue
    fail "Package.swift: $target depends on $dependency, which the layer table does not allow"
done <<<"$edges"

# Every target a target reaches through Package.swift's dependencies, one a line.
reached_from() {
    local -a queue=("$1")
    local -A seen=()
    while [ ${#queue[@]} -gt 0 ]; do
        local current=${queue[0]}
        queue=("${queue[@]:1}")
        while read -r target dependency; do
            [ "$target" = "$current" ] && [[ ! -v seen[$dependency] ]] || continue
            seen[$dependency]=1
            queue+=("$dependency")
            echo "$dependency"
        done <<<"$edges"
    done
}

for root in "${!MUST_NOT_REACH[@]}"; do
    reached=" $(reached_from "$root" | tr '\n' ' ') "
    for forbidden in ${MUST_NOT_REACH[$root]}; do
        [[ "$reached" == *" $forbidden "* ]] && fail "Package.swift: $root's module graph reaches $forbidden"
    done
done

# MARK: - Shared objects of the static fwcurl

if [ "${1:-}" != "--no-ldd" ]; then
    swift build -c release --product fwcurl --static-swift-stdlib --scratch-path .build-static >/dev/null
    binary=.build-static/release/fwcurl
    echo "check-deps: ldd $binary"
    while read -r line; do
        library=$(echo "$line" | awk '{print $1}')
        [ -z "$library" ] && continue
        library=$(basename "$library")
        if [[ "$library" =~ $LDD_ALLOWED ]]; then
            echo "  ok       $library"
        else
            echo "  REFUSED  $line"
            status=1
        fi
    done < <(ldd "$binary")
fi

if [ $status -eq 0 ]; then echo "check-deps: passed"; else echo "check-deps: FAILED" >&2; fi
exit $status
