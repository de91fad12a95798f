#!/usr/bin/env bash
# The main job on the embedded default, on a fresh Debian machine: installs the runtime packages
# that are missing (scripts/setup.sh --runtime: no test-only package), builds portal-auth and
# portal-emulator only, starts portal-emulator and a session keyring when none is running, then
# signs in, prints a token, shows whoami, queries the parcels layer, and signs out, printing each
# command as you would type it.
#   scripts/demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${PORTAL_AUTH_KEYRING_STARTED:-}" != 1 ] && [ -z "${PORTAL_AUTH_DEMO_BUILT:-}" ]; then
  echo "# the demo installs these Debian packages when they are missing:" $(scripts/setup.sh --runtime --list)
  # A long step says at least every 30 s what it is doing and for how long (scripts/support/progress.sh).
  scripts/support/progress.sh "checking and installing Debian packages" scripts/setup.sh --runtime
  build_log="${TMPDIR:-/tmp}/portal-auth-demo-build.log"
  echo "# building portal-auth and portal-emulator (a first build takes several minutes; the compiler's output goes to $build_log)"
  # A build's progress instead of the compiler's output: its [step/steps] (in place on a terminal,
  # a line every 30 s otherwise); when it fails, the end of that output.
  quietly() {
    local status=0
    scripts/support/progress.sh --log "$build_log" "building ${*: -1}" "$@" || status=$?
    if [ "$status" -ne 0 ]; then
      echo "# building ${*: -1} failed; the end of its output (all of it in $build_log):" >&2
      tail -n 40 "$build_log" >&2
      exit "$status"
    fi
    echo "# built ${*: -1}"
  }
  quietly swift build --product portal-auth-full
  quietly swift build --product portal-auth
  quietly swift build --product portal-emulator
  export PORTAL_AUTH_DEMO_BUILT=1
fi
# A keyring: the desktop's when one is running, otherwise a private unlocked one.
if [ -z "${PORTAL_AUTH_DEMO_IN_KEYRING:-}" ]; then
  PORTAL_AUTH_DEMO_IN_KEYRING=1 exec scripts/with-keyring.sh "$0" "$@"
fi

# portal-auth and portal-emulator on the PATH, as an installed package puts them.
PATH="$(swift build --show-bin-path):$PATH"
export PATH
state_dir="${TMPDIR:-/tmp}/portal-auth-demo"
state="$state_dir/emulator.json"
mkdir -p "$state_dir"

# The emulator: reuse a running one, else start one for this demo.
if [ -f "$state" ] && portal-emulator env "$state" >/dev/null 2>&1 \
  && kill -0 "$(sed -n 's/.*"pid" *: *\([0-9]*\).*/\1/p' "$state")" 2>/dev/null; then
  echo "# using the portal-emulator that is already running ($state)"
else
  rm -f "$state"
  portal-emulator --config config/emulator.json --state-file "$state" --ca-out "$state_dir/ca.pem" \
    >"$state_dir/emulator.log" 2>&1 &
  emulator_pid=$!
  trap 'kill $emulator_pid 2>/dev/null || true' EXIT
  # Waits for its state file as long as it runs (no deadline: a busy machine may take a while),
  # saying so every 30 s; if it ends first, it could not start.
  waited=0
  until [ -s "$state" ]; do
    kill -0 "$emulator_pid" 2>/dev/null || { echo "portal-emulator did not start; see $state_dir/emulator.log" >&2; exit 1; }
    sleep 0.1
    waited=$((waited + 1))
    [ $((waited % 300)) -ne 0 ] || echo "# waiting for portal-emulator to start ($((waited / 10)) s so far)"
  done
fi

# Each step: the command as typed, then its output.
run() {
  printf '\n$ %s\n' "$1"
  eval "$1"
}
run "eval \"\$(portal-emulator env $state)\""
echo "# portal $PORTAL_URL, federated server $SERVER_URL"
echo "# alice's password in the emulator: alice-pass-123"
export PASSWORD=alice-pass-123
run 'printf %s "$PASSWORD" | portal-auth login --portal "$PORTAL_URL" --username alice --password-stdin'
run 'portal-auth token --format json'
run 'portal-auth whoami'
run 'portal-auth request "$LAYER/query" -f "where=UseType = '"'Government'"'" -f "geometry=-117.3,34.0,-117.1,34.1" \
  -f geometryType=esriGeometryEnvelope -f outFields=APN,UseType,Owner -f returnGeometry=false'
run 'portal-auth status'
run 'portal-auth logout'
