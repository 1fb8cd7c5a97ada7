#!/usr/bin/env bash
# Builds the browsable DocC archive of FWNetworking with the toolchain's own docc, without a SwiftPM plugin
# (Package.swift keeps zero dependencies):
#   1. builds FWNetworking (debug; nothing to do after `swift build --build-tests`);
#   2. extracts FWNetworking's symbol graph from the built modules, with the modules it re-exports
#      (FWURLSession, and the FWTLS and FWTransport types FWURLSession re-exports) merged in as
#      FWNetworking's own symbols;
#   3. converts the catalog Sources/FWNetworking/FWNetworking.docc with it into
#      .build/docs/FWNetworking.doccarchive, ready for static hosting.
# Fails when the catalog has a broken link or any other docc warning; warnings that come from doc comments
# in the sources are listed without failing.
#
# Browse: python3 -m http.server --directory .build/docs/FWNetworking.doccarchive 8000
#         then open http://127.0.0.1:8000/documentation/fwnetworking/
set -euo pipefail
cd "$(dirname "$0")/.."

catalog=Sources/FWNetworking/FWNetworking.docc
output=.build/docs
archive=$output/FWNetworking.doccarchive
toolchain=$(dirname "$(readlink -f "$(command -v swift)")")
docc=${DOCC:-$toolchain/docc}
extract=$toolchain/swift-symbolgraph-extract

swift build --target FWNetworking
bin=$(swift build --show-bin-path)
triple=$(swiftc -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')

rm -rf "$output"
mkdir -p "$output/symbol-graphs"
module_maps=()
for map in "$bin"/*.build/module.modulemap; do
    module_maps+=(-Xcc "-fmodule-map-file=$map")
done
"$extract" -module-name FWNetworking -target "$triple" -I "$bin/Modules" "${module_maps[@]}" \
    -minimum-access-level public -skip-inherited-docs \
    -experimental-allowed-reexported-modules=FWURLSession,FWTLS,FWTransport \
    -output-dir "$output/symbol-graphs"

"$docc" convert "$catalog" \
    --additional-symbol-graph-dir "$output/symbol-graphs" \
    --output-path "$archive" \
    --fallback-display-name FWNetworking \
    --fallback-bundle-identifier org.fwnetworking.FWNetworking \
    --transform-for-static-hosting \
    --diagnostics-file "$output/diagnostics.json" >/dev/null

python3 - "$output/diagnostics.json" "$(pwd)/$catalog" <<'EOF'
import json, sys

diagnostics = json.load(open(sys.argv[1]))["diagnostics"]
catalog = sys.argv[2]
serious = [d for d in diagnostics if d["severity"] in ("warning", "error")]

def where(diagnostic):
    source = (diagnostic.get("source") or "").removeprefix("file://")
    line = (diagnostic.get("range") or {}).get("start", {}).get("line")
    return f"{source}:{line}" if line else source or "(no source)"

in_catalog = [d for d in serious if where(d).startswith(catalog)]
elsewhere = [d for d in serious if d not in in_catalog]
for d in elsewhere:
    print(f"docs: doc comment {d['severity']} (not fatal): {where(d)}: {d['summary']}")
for d in in_catalog:
    print(f"docs: {where(d)}: {d['severity']}: {d['summary']}", file=sys.stderr)
if in_catalog:
    sys.exit(f"docs: FAILED: {len(in_catalog)} problem(s) in the catalog")
EOF
symbols=$(find "$archive/data/documentation/fwnetworking" -name '*.json' | wc -l)
echo "docs: $archive ($symbols pages); browse with"
echo "  python3 -m http.server --directory $archive 8000  # http://127.0.0.1:8000/documentation/fwnetworking/"
