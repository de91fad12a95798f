#!/usr/bin/env bash
# Runs the whole test suite N times (default 5) with the machine busy: `stress-ng --cpu 2` runs
# beside each run, as on a user's or a packager's loaded machine. Prints each run's result and the
# passes/failures at the end; exits non-zero when any run failed. Logs: $STRESS_LOG_DIR (a temp folder).
# Tests run TEST_WIDTH (8) at a time, as in scripts/test.sh.
#   scripts/checks/stress-tests.sh [N] [extra test arguments, e.g. --filter ServeTests]
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-5}
shift || true
scripts/setup.sh
grep -q "ok installed" <<<"$(dpkg-query -W -f='${Status}' stress-ng 2>/dev/null)" || {
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends stress-ng >/dev/null
}
swift build --build-tests
tests="$(swift build --show-bin-path)/portal-authPackageTests.xctest"
logs=${STRESS_LOG_DIR:-$(mktemp -d)}
mkdir -p "$logs"
stress_pid=""
trap '[ -n "$stress_pid" ] && kill "$stress_pid" 2>/dev/null; wait 2>/dev/null || true' EXIT
passed=0
failed=0
for i in $(seq 1 "$runs"); do
  stress-ng --cpu 2 --timeout 0 --quiet &
  stress_pid=$!
  start=$(date +%s)
  if env --default-signal scripts/with-keyring.sh "$tests" --testing-library swift-testing \
    --experimental-maximum-parallelization-width "${TEST_WIDTH:-8}" "$@" >"$logs/run-$i.log" 2>&1; then
    passed=$((passed + 1)); result=passed
  else
    failed=$((failed + 1)); result="FAILED ($(grep -cE '✘|error:' "$logs/run-$i.log" || true) failure lines)"
  fi
  kill "$stress_pid" 2>/dev/null || true
  wait "$stress_pid" 2>/dev/null || true
  stress_pid=""
  echo "run $i: $result in $(( $(date +%s) - start )) s (log: $logs/run-$i.log)"
  grep -E '✘ Test .* failed|Test Case .* failed' "$logs/run-$i.log" | sed -n '1,10s/^/  /p' || true
done
echo "stress: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
