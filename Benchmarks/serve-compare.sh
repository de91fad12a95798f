#!/usr/bin/env bash
# Compares portal-auth serve between builds, side by side against one emulator: each BINDIR holds a
# release `portal-auth-full` (copy .build/release/portal-auth-full aside before and after a change);
# one serve per build, and N rounds of the same query directly and through each (serve-compare.py).
# The figures docs/development/performance.md gives for a change to serve come from this script.
#
# usage: Benchmarks/serve-compare.sh N BINDIR... (run inside scripts/with-keyring.sh; the emulator from
# .build/release: swift build -c release --product portal-emulator)
set -euo pipefail
cd "$(dirname "$0")/.."
n=$1
shift
# shellcheck source=Benchmarks/with-emulator.sh
source Benchmarks/with-emulator.sh
pa="$1/portal-auth-full"
printf '%s' alice-pass-123 | "$pa" login --portal "$base/portal" --username alice --password-stdin >/dev/null
bases=()
index=0
for build in "$@"; do
  index=$((index + 1))
  echo "  build $index: $build"
  "$build/portal-auth-full" serve --listen 127.0.0.1:0 --state-file "$work/serve$index.json" >/dev/null 2>&1 &
  pids+=($!)
  until [ -s "$work/serve$index.json" ]; do sleep 0.1; done
  bases+=("$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$work/serve$index.json")")
done
python3 Benchmarks/serve-compare.py "$layer" "$("$pa" token "$layer")" "$work/ca.pem" "$n" "${bases[@]}"
"$pa" logout --portal "$base/portal" >/dev/null
