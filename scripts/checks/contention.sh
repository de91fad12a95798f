#!/usr/bin/env bash
# Many portal-auth processes at once against one credential, in the real keyring (a private
# gnome-keyring on its own D-Bus session) and in the file store, with portal-emulator as the
# portal and federated server. Builds portal-auth in release (what users run; the emulator, a
# test double, is the debug build the tests use), then prints each figure next to its target
# and exits non-zero when one is missed.
#   scripts/checks/contention.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ -z "${PORTAL_AUTH_CONTENTION_INNER:-}" ]; then
  swift build -c release --static-swift-stdlib --product portal-auth-full
  swift build -c release --static-swift-stdlib --product portal-auth  # as the README's install command builds it
  swift build --product portal-emulator
  # Always a private keyring: never the desktop's.
  PORTAL_AUTH_CONTENTION_INNER=1 exec env -u DBUS_SESSION_BUS_ADDRESS scripts/with-keyring.sh "$0" "$@"
fi

pa="$(swift build -c release --show-bin-path)/portal-auth"
emulator_bin="$(swift build --show-bin-path)/portal-emulator"
work=$(mktemp -d /tmp/portal-auth-contention.XXXXXX)
chmod 700 "$work"
"$emulator_bin" --config config/emulator.json --state-file "$work/emulator.json" --ca-out "$work/ca.pem" \
  --oauth-access-token-lifetime 120 >"$work/emulator.log" 2>&1 &
emulator=$!
cleanup() { kill "$emulator" 2>/dev/null || true; wait "$emulator" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
until [ -s "$work/emulator.json" ] || ! kill -0 "$emulator" 2>/dev/null; do sleep 0.1; done  # as long as it runs
[ -s "$work/emulator.json" ] || { echo "portal-emulator did not start: $(cat "$work/emulator.log")" >&2; exit 1; }
field() { python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$work/emulator.json" "$1"; }
portal=$(field portalURL)
server=$(field serverURL)
base=$(field baseURL)
export PORTAL_AUTH_CA_BUNDLE="$work/ca.pem"
admin() { curl -s --cacert "$work/ca.pem" -X "$1" "$base/emulator/$2"; }
counter() { admin GET counters | python3 -c 'import json,sys;print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }

missed=0
# figure LABEL VALUE TARGET
figure() {
  local verdict=met
  [ "$2" = "$3" ] || { verdict=MISSED; missed=1; }
  printf '%-72s %6s  (target %s) %s\n' "$1" "$2" "$3" "$verdict"
}

# together N COMMAND...: runs N copies of COMMAND at once (each gets its index as last argument),
# waits for every one, and sets $failures and $outputs (the folder with i.out, i.err).
together() {
  local n=$1
  shift
  outputs="$work/run-$RANDOM"
  mkdir -p "$outputs"
  local pids=()
  for i in $(seq 1 "$n"); do
    ("$@" "$i" >"$outputs/$i.out" 2>"$outputs/$i.err" && : >"$outputs/$i.ok") &
    pids+=($!)
  done
  wait "${pids[@]}"
  failures=$((n - $(find "$outputs" -name '*.ok' | wc -l)))
  if [ "$failures" -gt 0 ]; then
    for f in "$outputs"/*.err; do [ -f "${f%.err}.ok" ] || { echo "  e.g. $(head -c 300 "$f")"; break; }; done
  fi
}

login_alice() { printf %s alice-pass-123 | "$pa" login --portal "$portal" --username alice --password-stdin; }
login_alternating() {
  if [ $(($1 % 2)) = 0 ]; then login_alice; else
    printf %s bob-pass-456 | "$pa" login --portal "$portal" --username bob --password-stdin
  fi
}
token() { "$pa" token "$portal"; }
query() {
  "$pa" request "$server/rest/services/Parcels/FeatureServer/0/query" -f "where=1=1" -f returnCountOnly=true
}

# The ArcGIS items of the portal (and its federated server) in the store in use.
items() {
  if [ "${PORTAL_AUTH_STORE:-keyring}" = file ]; then
    python3 -c 'import json,sys
items = json.load(open(sys.argv[1]))["items"]
print(sum(1 for i in items if i["attributes"]["store"] == "arcgis" and i["attributes"]["server"] == sys.argv[2]))' \
      "$PORTAL_AUTH_FILE_STORE" "$1"
  else
    secret-tool search --all application portal-auth store arcgis server "$1" 2>&1 | grep -c '^\[' || true
  fi
}
run_all() {
  local store=$1
  echo "# $store store"
  "$pa" logout --all >/dev/null 2>&1 || true

  together 100 login_alice
  figure "$store: 100 parallel logins of alice: failures" "$failures" 0
  figure "$store: 100 parallel logins of alice: items for the portal" "$(items "$portal")" 1

  together 100 login_alternating
  figure "$store: 100 parallel logins, 50 alice + 50 bob: failures" "$failures" 0
  figure "$store: 100 parallel logins, 50 alice + 50 bob: items for the portal (one per server context)" \
    "$(items "$portal")" 1

  "$pa" logout --all >/dev/null 2>&1 || true
  admin POST oauth-access-token-lifetime?seconds=120 >/dev/null
  BROWSER=Tests/Clients/scripted-browser.py SCRIPTED_BROWSER_CA="$work/ca.pem" \
    "$pa" login --portal "$portal" --client-id portal-auth-cli >/dev/null
  # The stored access token (120 s) is inside the refresh window; the next one lives 30 minutes.
  admin POST oauth-access-token-lifetime?seconds=1800 >/dev/null
  admin POST reset >/dev/null
  together 100 token
  figure "$store: 100 parallel token with a refresh due: failures" "$failures" 0
  figure "$store: 100 parallel token with a refresh due: refresh grants" "$(counter refreshTokenGrants)" 1
  figure "$store: 100 parallel token with a refresh due: distinct tokens printed" \
    "$(cat "$outputs"/*.out | sort -u | wc -l)" 1

  together 200 query
  figure "$store: 200 parallel requests to the federated server: failures" "$failures" 0
  "$pa" logout --all >/dev/null 2>&1 || true
}

# The process that owns the Secret Service name: a gnome-keyring-daemon that crashed is replaced
# (D-Bus starts another, with the keyring locked), so a different process at the end is a crash.
keyring_daemon() {
  # A call to the service first: it waits for the name to be owned (or starts the service).
  gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
    --method org.freedesktop.DBus.Peer.Ping >/dev/null 2>&1 || true
  gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
    --method org.freedesktop.DBus.GetConnectionUnixProcessID org.freedesktop.secrets 2>/dev/null || echo none
}
daemon_before=$(keyring_daemon)
PORTAL_AUTH_STORE=keyring run_all keyring
restarts=0
[ "$(keyring_daemon)" = "$daemon_before" ] || restarts=1
figure "keyring: gnome-keyring-daemon replaced during the runs (a crash)" "$restarts" 0
mkdir -m 700 "$work/file"
PORTAL_AUTH_STORE=file PORTAL_AUTH_FILE_STORE="$work/file/credentials.json" run_all file
exit "$missed"
