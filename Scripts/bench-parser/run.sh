#!/usr/bin/env bash
# FWWire's HTTPResponseParser against swift-nio's NIOHTTP1 (llhttp) on four realistic inputs: builds the
# bench package in release mode, runs it, prints a Markdown report on stdout (build output goes to
# stderr). Arguments go to bench-parser: --rounds N (default 7, at least 5), --min-time-ms MS per
# measurement (default 150), --stream-kib KIB per input stream (default 2048), --inputs abcd.
set -euo pipefail
cd "$(dirname "$0")"

swift build -c release --product bench-parser >&2
bin="$(swift build -c release --show-bin-path)"
"$bin/bench-parser" "$@"
nio_version="$(grep -A 6 '"identity" : "swift-nio"' Package.resolved | sed -n 's/.*"version" : "\(.*\)".*/\1/p')"
echo
echo "swift-nio ${nio_version:-?}; $(swift --version 2>/dev/null | head -n 1); $(nproc) cores."
