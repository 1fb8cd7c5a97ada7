#!/usr/bin/env bash
# The multipart upload benchmark of issue 15: HTTPSessionManager.post(urlString:...constructingBody:...)
# streams a 1 GiB file (appendPart(fileURL:name:)) to a Python sink on 127.0.0.1 and the client prints its
# peak RSS (getrusage ru_maxrss, the whole process). The bar: below 32 MB.
#
#   Scripts/bench-multipart.sh [--size-mib N] [--file PATH]
#
# Builds Scripts/bench/multipart-upload (release; FWNetworking's sources only, no other package) and runs
# bench-multipart-upload from a fresh process. Needs python3. Record the result in Scripts/bench/results.md.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
package="$here/bench/multipart-upload"
command -v python3 >/dev/null || { echo "bench-multipart: python3 is needed for the sink" >&2; exit 1; }
nice -n 10 swift build -c release --package-path "$package" >&2
bin=$(swift build -c release --package-path "$package" --show-bin-path)
exec "$bin/bench-multipart-upload" "$@"
