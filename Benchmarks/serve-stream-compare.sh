#!/usr/bin/env bash
# Compares how fast a 200 MB answer streams through portal-auth serve between builds, side by side
# against one emulator: each BINDIR holds a release `portal-auth-full`; one serve per build, and N
# rounds of the same download through each in turn (section 5 of run.sh streams it once).
#
# usage: Benchmarks/serve-stream-compare.sh N BINDIR... (run inside scripts/with-keyring.sh; the emulator
# from .build/release: swift build -c release --product portal-emulator)
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
  "$build/portal-auth-full" serve --listen 127.0.0.1:0 --state-file "$work/serve$index.json" >/dev/null 2>&1 &
  pids+=($!)
  until [ -s "$work/serve$index.json" ]; do sleep 0.1; done
  bases+=("$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$work/serve$index.json")")
done
declare -A times
for round in $(seq 1 "$n"); do
  for index in "${!bases[@]}"; do
    stream="${bases[$index]}https/${base#https://}/server/rest/services/Stream/MapServer/bytes?size=200000000"
    start=$(date +%s%N)
    streamed=$(curl -sS "$stream" | wc -c)
    [ "$streamed" = 200000000 ] || { echo "build $((index + 1)): $streamed bytes, not 200000000" >&2; exit 1; }
    times[$index]="${times[$index]:-} $(( ($(date +%s%N) - start) / 1000000 ))"
  done
done
for index in "${!bases[@]}"; do
  median=$(printf '%s\n' ${times[$index]} | sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}')
  echo "  build $((index + 1)) (${*:$((index + 1)):1}): 200 MB in ${median} ms, median of $n (${times[$index]# })"
done
"$pa" logout --portal "$base/portal" >/dev/null
