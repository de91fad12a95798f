#!/usr/bin/env bash
# The main job on the embedded default, on a fresh Debian machine: installs what is missing,
# builds, starts portal-emulator and a session keyring when none is running, then signs in,
# prints a token, shows whoami, queries the parcels layer, and signs out.
#   scripts/demo.sh
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${PORTAL_AUTH_KEYRING_STARTED:-}" != 1 ] && [ -z "${PORTAL_AUTH_DEMO_BUILT:-}" ]; then
  scripts/setup.sh
  swift build --product portal-auth
  swift build --product portal-emulator
  export PORTAL_AUTH_DEMO_BUILT=1
fi
# A keyring: the desktop's when one is running, otherwise a private unlocked one.
if [ -z "${PORTAL_AUTH_DEMO_IN_KEYRING:-}" ]; then
  PORTAL_AUTH_DEMO_IN_KEYRING=1 exec scripts/with-keyring.sh "$0" "$@"
fi

bin=$(swift build --show-bin-path)
pa="$bin/portal-auth"
state_dir="${TMPDIR:-/tmp}/portal-auth-demo"
state="$state_dir/emulator.json"
mkdir -p "$state_dir"

# The emulator: reuse a running one, else start one for this demo.
if [ -f "$state" ] && kill -0 "$(python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))["pid"])' "$state")" 2>/dev/null; then
  echo "# using the portal-emulator that is already running ($state)"
else
  rm -f "$state"
  "$bin/portal-emulator" --config config/emulator.json --state-file "$state" --ca-out "$state_dir/ca.pem" > "$state_dir/emulator.log" 2>&1 &
  emulator_pid=$!
  trap 'kill $emulator_pid 2>/dev/null || true' EXIT
  for _ in $(seq 1 100); do [ -f "$state" ] && break; sleep 0.1; done
  [ -f "$state" ] || { echo "portal-emulator did not start; see $state_dir/emulator.log" >&2; exit 1; }
fi
field() { python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$state" "$1"; }
portal=$(field portalURL); server=$(field serverURL)
export PORTAL_AUTH_CA_BUNDLE=$(field caCertificatePath)

run() { printf '\n$ %s\n' "$*"; "$@"; }
echo "# portal $portal, federated server $server"
printf '\n$ printf %%s "$PASSWORD" | portal-auth login --portal %s --username alice --password-stdin\n' "$portal"
printf %s "alice-pass-123" | "$pa" login --portal "$portal" --username alice --password-stdin
run "$pa" token --format json
run "$pa" whoami
run "$pa" request "$server/rest/services/Parcels/FeatureServer/0/query" \
  -f "where=UseType = 'Government'" -f "geometry=-117.3,34.0,-117.1,34.1" -f geometryType=esriGeometryEnvelope \
  -f outFields=APN,UseType,Owner -f returnGeometry=false
run "$pa" status
run "$pa" logout
