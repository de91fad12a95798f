#!/usr/bin/env bash
# portal-auth serve's instructions a request, counted by valgrind's callgrind: repeatable for the same
# build and inputs whatever else the machine does (a figure for a change to serve's own work; its
# wall time is section 5 of run.sh and serve-compare.sh). One emulator, one serve under callgrind per
# build, 30 queries to warm it, then the counters zeroed, N feature queries, and the counters read.
# Only user-space instructions count: the kernel's part (sockets, wake-ups) is not in them.
#
# usage: Benchmarks/serve-instructions.sh N BINDIR... (run inside scripts/with-keyring.sh; each BINDIR
# holds a release portal-auth-full built as run.sh builds it, with --static-swift-stdlib: valgrind 3.19 stops
# with an internal error at the start of a build that loads the Swift runtime dynamically; the emulator from
# .build/release: swift build -c release --product portal-emulator; needs valgrind)
set -euo pipefail
cd "$(dirname "$0")/.."
n=$1
shift
# shellcheck source=Benchmarks/with-emulator.sh
source Benchmarks/with-emulator.sh
index=0
for build in "$@"; do
  index=$((index + 1))
  # (valgrind 3.19 cannot read the DWARF 5 of Swift's debug information: a copy without it.)
  strip --strip-debug -o "$work/portal-auth-full.$index" "$build/portal-auth-full"
  pa="$work/portal-auth-full.$index"
  printf '%s' alice-pass-123 | "$pa" login --portal "$base/portal" --username alice --password-stdin >/dev/null
  valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.$index" \
    "$pa" serve --listen 127.0.0.1:0 --state-file "$work/serve$index.json" >/dev/null 2>"$work/valgrind.$index" &
  serve=$!
  pids+=($serve)
  until [ -s "$work/serve$index.json" ]; do
    # (A serve that ended, or a valgrind that stopped, never writes it: said, not waited for.)
    if ! kill -0 "$serve" 2>/dev/null; then
      echo "build $index ($build): serve ended under valgrind:" >&2
      tail -5 "$work/valgrind.$index" >&2
      exit 1
    fi
    sleep 0.2
  done
  url=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$work/serve$index.json")
  python3 - "$url" "$layer" "$n" "$serve" <<'PY'
import subprocess, sys
import requests
sys.path.insert(0, "Benchmarks")
from serve_queries import PARAMS
base, layer, n, pid = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
local = base + "https/" + layer.removeprefix("https://") + "/query"
session = requests.Session()
for _ in range(30):
    session.get(local, params=PARAMS, timeout=120).raise_for_status()
subprocess.run(["callgrind_control", "-z", pid], check=True, capture_output=True)
for _ in range(n):
    session.get(local, params=PARAMS, timeout=120).raise_for_status()
subprocess.run(["callgrind_control", "-d", pid], check=True, capture_output=True)
PY
  dump=$(ls -t "$work"/callgrind."$index".* | head -1)
  total=$(awk '/^(summary|totals):/ {print $2; exit}' "$dump")
  echo "  build $index ($build): $((total / n)) instructions a request ($n queries)"
  kill "$serve" 2>/dev/null || true
  wait "$serve" 2>/dev/null || true
  "$pa" logout --portal "$base/portal" >/dev/null
done
