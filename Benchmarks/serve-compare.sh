#!/usr/bin/env bash
# Compares portal-auth serve between builds, side by side against one emulator: each BINDIR holds a
# release `portal-auth-full` (copy .build/release/portal-auth-full aside before and after a change);
# one serve per build, and N rounds of the same query directly and through each (serve-compare.py),
# or, with --stream, N rounds of a 200 MB answer streamed through each in turn (the median time each).
# The figures docs/development/performance.md gives for a change to serve come from this script.
#
# usage: Benchmarks/serve-compare.sh [--stream] N BINDIR... (run inside scripts/with-keyring.sh; the
# emulator from .build/release: swift build -c release --product portal-emulator)
set -euo pipefail
cd "$(dirname "$0")/.."
stream=false
if [ "$1" = --stream ]; then stream=true; shift; fi
n=$1
shift
# shellcheck source=Benchmarks/with-emulator.sh
source Benchmarks/with-emulator.sh
start_serves "$@"
if ! $stream; then
  python3 Benchmarks/serve-compare.py "$layer" "$("$pa" token "$layer")" "$work/ca.pem" "$n" "${bases[@]}"
else
  declare -A times
  for _ in $(seq 1 "$n"); do
    for index in "${!bases[@]}"; do
      url="${bases[$index]}https/${base#https://}/server/rest/services/Stream/MapServer/bytes?size=200000000"
      start=$(date +%s%N)
      streamed=$(curl -sS "$url" | wc -c)
      [ "$streamed" = 200000000 ] || { echo "build $((index + 1)): $streamed bytes, not 200000000" >&2; exit 1; }
      times[$index]="${times[$index]:-} $(( ($(date +%s%N) - start) / 1000000 ))"
    done
  done
  for index in "${!bases[@]}"; do
    # shellcheck disable=SC2086 # (the times, one word each)
    median=$(printf '%s\n' ${times[$index]} | sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}')
    echo "  build $((index + 1)): 200 MB in ${median} ms, median of $n (${times[$index]# })"
  done
fi
"$pa" logout --portal "$base/portal" >/dev/null
