#!/usr/bin/env bash
# Runs the whole test suite once under ThreadSanitizer and once under AddressSanitizer, each in its
# own build folder (.build-tsan, .build-asan). Too slow for CI; run it before calling a change to
# concurrency or C code done. Prints one line per sanitizer, then a summary table (tests run and
# failed, sanitizer reports, build and test seconds), and exits non-zero when either failed.
#   scripts/sanitize.sh [thread|address ...] [-- extra test arguments, e.g. --filter NAME]
# SANITIZE_WIDTH: how many tests run at once (default 4).
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh || exit 1
sanitizers=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do sanitizers+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
[ ${#sanitizers[@]} -gt 0 ] || sanitizers=(thread address)
logs=$(mktemp -d)
status=0
summary=()
for s in "${sanitizers[@]}"; do
  scratch=".build-${s:0:1}san"
  log="$logs/$s.log"
  started=$(date +%s)
  built=""
  # libcurl, libsecret and OpenSSL are not instrumented: TSan's reports inside them are not ours.
  export TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
  # The quarantine of freed blocks is capped (default 256 MB) so that peak-memory bounds stay meaningful.
  export ASAN_OPTIONS="detect_leaks=0 quarantine_size_mb=64 ${ASAN_OPTIONS:-}"
  # Tests that measure memory widen their bounds under AddressSanitizer (shadow memory, quarantine).
  export PORTAL_AUTH_SANITIZER="$s"
  # The test binary itself, to bound how many tests run at once (swift test cannot pass the
  # option): under a sanitizer each test is 5 to 20 times slower and the CLI tests start dozens of
  # instrumented processes, and with every test at once on 2 loaded cores a ThreadSanitizer run
  # stalled (tests past their time limits, then 7 suites that never ended with no thread busy).
  if swift build --build-tests --sanitize="$s" --scratch-path "$scratch" >"$log" 2>&1 \
    && built=$(date +%s) && env --default-signal scripts/with-keyring.sh "$(swift build --sanitize="$s" --scratch-path "$scratch" --show-bin-path)/portal-authPackageTests.xctest" \
      --testing-library swift-testing --experimental-maximum-parallelization-width "${SANITIZE_WIDTH:-4}" "$@" >>"$log" 2>&1 \
    && ! grep -qE "WARNING: ThreadSanitizer|ERROR: AddressSanitizer" "$log"; then
    echo "sanitize $s: passed (log: $log)"
  else
    status=1
    echo "sanitize $s: FAILED (log: $log)"
    grep -E "WARNING: ThreadSanitizer|ERROR: AddressSanitizer|✘ Test .* failed" "$log" | sort | uniq -c | sed -n 1,20p
  fi
  ended=$(date +%s)
  # "✔ Test run with 406 tests in 80 suites passed after …" (or "✘ … failed after … with N issues").
  run=$(grep -E "Test run with [0-9]+ tests? " "$log" | tail -n 1)
  tests=$(sed -nE 's/.*Test run with ([0-9]+) tests?.*/\1/p' <<<"$run")
  failed=$(grep -E "^✘ Test .* failed after" "$log" | grep -vc "^✘ Test run with")
  reports=$(grep -cE "WARNING: ThreadSanitizer|ERROR: AddressSanitizer" "$log")
  summary+=("$(printf '%-10s %8s %8s %9s %8s %8s' "$s" "${tests:-0}" "$failed" "$reports" \
    "$(( ${built:-$ended} - started ))" "$(( built ? ended - built : 0 ))")")
done
printf '%-10s %8s %8s %9s %8s %8s\n' sanitizer tests failed reports build-s tests-s
printf '%s\n' "${summary[@]}"
exit $status
