#!/usr/bin/env bash
# The symbol diff of issue 14: every public symbol of the toolchain's FoundationNetworking that FWURLSession
# lacks, grouped by type. A symbol is matched by its path (`URLSession.dataTask(with:)`) and, where
# FoundationNetworking overloads a path, by its declaration (attributes, `any`, `open`/`public` and `let`/`var`
# aside: those do not change what a caller writes). Members synthesized for a conformance (`hashValue`,
# `!=`) come with their type and are not counted.
#
# Scripts/api-diff/allowlist.txt lists the deliberate omissions, each with why and (for work not done yet)
# the issue item that removes it. The script fails when a missing symbol is not on the list, and when an
# entry matches nothing any more (FWURLSession has it now: shrink the list). Scripts/test.sh runs it.
#
# Usage: Scripts/api-diff.sh [--list]   (--list also prints every allowed omission)
set -euo pipefail
cd "$(dirname "$0")/.."

triple=$(swift -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')
out=.build/api-diff
rm -rf "$out" && mkdir -p "$out/foundation" "$out/ours"

swift build --target FWURLSession >/dev/null
bin=$(swift build --show-bin-path)
module_maps=()
for map in "$bin"/*.build/module.modulemap; do module_maps+=(-Xcc "-fmodule-map-file=$map"); done

swift-symbolgraph-extract -module-name FoundationNetworking -target "$triple" -minimum-access-level public \
    -output-dir "$out/foundation"
swift-symbolgraph-extract -module-name FWURLSession -target "$triple" -minimum-access-level public \
    -I "$bin/Modules" "${module_maps[@]}" -output-dir "$out/ours"

exec python3 Scripts/api-diff/compare.py "$out/foundation" "$out/ours" Scripts/api-diff/allowlist.txt "$@"
