#!/usr/bin/env bash
# Writes Sources/fwget/Link/hot-functions.txt, the symbol ordering file of fwget's release link: every function
# of the fwget binary that a fetch runs. The linker (lld, Package.swift) puts the sections holding them
# first and together, so a fetch touches a few dense pages of code instead of a page here and there across
# the whole binary. The kernel maps a program's file pages 64 KB around each fault (fault-around), so
# scattered code costs resident memory far beyond its size: the ordering took one HTTPS GET's peak RSS from
# 12.7 to 11.1 MB when this file was made (medians of 10 paired runs, the README's fwget section).
#
# What runs is recorded with valgrind (callgrind) over the fetches fwget is measured and used for: an HTTPS
# GET from `openssl s_server` with --cacert, and with --json; an HTTP GET from Python's http.server. The list
# is sorted by name, so a new run's diff shows what changed. A stale list costs memory, never correctness:
# a name the linker does not find is skipped. Run it again when the fetch path or the toolchain changes; it
# removes the linked fwget, because SwiftPM does not know the list is a link input and would not link again.
#
# Usage: Scripts/fwget-order.sh   (needs valgrind, openssl, python3; takes a minute after the static build)
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build-static
swift build -c release --product fwget --static-swift-stdlib --scratch-path "$scratch" >/dev/null
work=$(mktemp -d)
servers=()
trap 'for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"' EXIT
# valgrind cannot read the toolchain's DWARF 5; the symbol table is all it needs.
strip --strip-debug -o "$work/fwget" "$scratch/release/fwget"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for() {
    for _ in $(seq 100); do
        (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
        sleep 0.05
    done
    echo "fwget-order: no server on port $1" >&2
    return 1
}

tls=Fixtures/tls
https_port=$(free_port)
openssl s_server -accept "127.0.0.1:$https_port" -www -cert "$tls/valid-ecdsa.pem" -key "$tls/valid-ecdsa.key" \
    -cert_chain "$tls/intermediate-ca.pem" -quiet >/dev/null 2>&1 &
servers+=($!)
http_port=$(free_port)
mkdir "$work/docs" && echo "hello" >"$work/docs/index.html"
python3 -m http.server --bind 127.0.0.1 --directory "$work/docs" "$http_port" >/dev/null 2>&1 &
servers+=($!)
wait_for "$https_port"
wait_for "$http_port"

run=0
record() {
    run=$((run + 1))
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/run$run.out" \
        "$work/fwget" "$@" >/dev/null 2>"$work/run$run.log" || {
        echo "fwget-order: fwget $* failed under valgrind" >&2
        cat "$work/run$run.log" >&2
        exit 1
    }
}
record -o /dev/null --cacert "$tls/root-ca.pem" "https://localhost:$https_port/"
record --json --cacert "$tls/root-ca.pem" "https://localhost:$https_port/"
record -o /dev/null "http://127.0.0.1:$http_port/"

# The functions callgrind saw run in the fwget object itself (not in libc, OpenSSL or the loader), as
# symbols of the binary's symbol table.
python3 - "$work" "$work/fwget" <<'EOF' | sort -u >Sources/fwget/Link/hot-functions.txt
import glob, re, subprocess, sys
work, binary = sys.argv[1], sys.argv[2]
defined = set()
for line in subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True).stdout.splitlines():
    parts = line.split()
    if len(parts) == 3 and parts[1] in "tTwW":
        defined.add(parts[2])
for path in glob.glob(work + "/run*.out"):
    objects, functions, current = {}, {}, None
    for line in open(path):
        match = re.match(r"^(c?ob|c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if not match:
            continue
        kind, number, name = match.groups()
        table = objects if kind.endswith("ob") else functions
        if name:
            table[number] = name
        if kind == "ob":
            current = objects.get(number)
        elif kind == "fn" and current == binary and functions[number] in defined:
            print(functions[number])
EOF
rm -f "$scratch/release/fwget"
echo "fwget-order: $(wc -l <Sources/fwget/Link/hot-functions.txt) functions in Sources/fwget/Link/hot-functions.txt"
