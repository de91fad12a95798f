#!/usr/bin/env bash
# Where portal-auth serve's CPU goes, kernel included: `perf record -g` of one serve while N sequential
# feature queries go through it, then the share of each library and the busiest symbols. A profile, not a
# figure to compare builds by (perf samples: use serve-instructions.sh or serve-compare.sh for that).
# docs/development/performance.md's breakdown of serve's CPU comes from this script.
#
# usage: Benchmarks/serve-profile.sh N BINDIR (run inside scripts/with-keyring.sh; BINDIR holds a release
# portal-auth-full; the emulator from .build/release: swift build -c release --product portal-emulator;
# needs perf: apt-get install linux-perf)
set -euo pipefail
cd "$(dirname "$0")/.."
n=$1
pa="$2/portal-auth-full"
# shellcheck source=Benchmarks/with-emulator.sh
source Benchmarks/with-emulator.sh
printf '%s' alice-pass-123 | "$pa" login --portal "$base/portal" --username alice --password-stdin >/dev/null
"$pa" serve --listen 127.0.0.1:0 --state-file "$work/serve.json" >/dev/null 2>&1 &
serve=$!
pids+=($serve)
until [ -s "$work/serve.json" ]; do sleep 0.1; done
url=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$work/serve.json")
perf record -F 4999 -g -p "$serve" -o "$work/perf.data" >/dev/null 2>&1 &
recorder=$!
# (Warm-up queries first: perf starts recording while they run.)
(cd Benchmarks && python3 - "$url" "$layer" "$n" <<'PY'
import sys
import requests
from serve_queries import timed
base, layer, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
session = requests.Session()
url = base + "https/" + layer.removeprefix("https://") + "/query"
for _ in range(n + 30):
    timed(session, url)
PY
)
kill -INT "$recorder"
wait "$recorder" || true
echo "== serve's CPU by library ($n queries)"
perf report -i "$work/perf.data" --no-children --sort dso --stdio -g none 2>/dev/null | grep -E '^ +[0-9]' | head -8
echo "== the busiest symbols"
perf report -i "$work/perf.data" --no-children --sort sym --stdio -g none 2>/dev/null | grep -E '^ +[0-9]' | head -15
