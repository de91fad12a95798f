#!/usr/bin/env bash
# The crash-at-exit stress test (issue 12, item 1): N portal-auth processes, PARALLEL at a time,
# through portal-emulator's identity-aware proxy with tokens renewing, then the count of exit
# statuses and of signals. The figure to meet: 0 signals.
#   scripts/checks/stress-exit.sh [N] [PARALLEL]        (default 2000 and 50)
# portal-auth is built in the release configuration (the README's install; what is measured),
# PORTAL_AUTH_STRESS_CONFIGURATION=debug takes the debug build instead; portal-emulator, only the
# server here, is the debug build the tests use. Runs on a private keyring and a throwaway emulator.
set -euo pipefail
cd "$(dirname "$0")/../.."
total=${1:-2000}
parallel=${2:-50}
configuration=${PORTAL_AUTH_STRESS_CONFIGURATION:-release}

if [ -z "${PORTAL_AUTH_STRESS_BUILT:-}" ]; then
  # In release, the build the README's install command makes (and the same flags, so it does not
  # relink .build/release/portal-auth into another binary).
  static=(); [ "$configuration" = release ] && static=(--static-swift-stdlib)
  swift build -c "$configuration" "${static[@]}" --product portal-auth-full
  swift build -c "$configuration" "${static[@]}" --product portal-auth
  swift build --product portal-emulator
  export PORTAL_AUTH_STRESS_BUILT=1
fi
if [ "${PORTAL_AUTH_KEYRING_STARTED:-}" != 1 ]; then
  # A keyring of its own, never the desktop's: the stress test fills and renews items.
  unset DBUS_SESSION_BUS_ADDRESS
  exec scripts/with-keyring.sh "$0" "$@"
fi

bin=$(swift build -c "$configuration" --show-bin-path)
emulator_bin=$(swift build --show-bin-path)
work=$(mktemp -d /tmp/portal-auth-stress.XXXXXX)
chmod 700 "$work"
emulator_pid=
cleanup() {
  if [ -n "$emulator_pid" ]; then kill "$emulator_pid" 2>/dev/null || true; wait "$emulator_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# An emulator with its Entra ID and proxy; IAP tokens live 150 s and portal tokens 1 minute, so
# that every process finds them inside their renewal window and renews (under the cross-process
# locks) before its request.
python3 - "$work/emulator.json" <<'EOF'
import json, sys
config = json.load(open("config/emulator.json"))
config.update(proxyPort=0, entraTokenLifetimeSeconds=150, tokenLifetimeMinutes=1)
json.dump(config, open(sys.argv[1], "w"))
EOF
"$emulator_bin/portal-emulator" --config "$work/emulator.json" --state-file "$work/state.json" --ca-out "$work/ca.pem" \
  > "$work/emulator.log" 2>&1 &
emulator_pid=$!
until [ -s "$work/state.json" ] || ! kill -0 "$emulator_pid" 2>/dev/null; do sleep 0.1; done  # as long as it runs
[ -s "$work/state.json" ] || { echo "portal-emulator did not start:" >&2; cat "$work/emulator.log" >&2; exit 1; }
field() { python3 -c 'import json,sys;print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$work/state.json" "$1"; }
proxy=$(field proxyBaseURL)
entra=$(field entraBaseURL)
export PORTAL_AUTH_CA_BUNDLE="$work/ca.pem" PORTAL_AUTH_STORE=keyring
cat > "$work/iap.json" <<EOF
{"authorize_url": "$entra/authorize", "token_url": "$entra/token", "logout_url": "$entra/logout",
 "client_id": "iap-client", "redirect_url": "http://127.0.0.1/iap/callback",
 "scope": ["iap-client/.default", "offline_access", "openid", "profile"],
 "hosts_behind_proxy": ["${proxy#https://}"], "authorization_prompt_type": "login"}
EOF

# Sign in to the proxy (the scripted browser plays the user) and to the portal behind it.
BROWSER="$PWD/Tests/Clients/scripted-browser.py" SCRIPTED_BROWSER_CA="$work/ca.pem" \
  "$bin/portal-auth" login --config "$work/iap.json" > /dev/null
printf %s alice-pass-123 | "$bin/portal-auth" login --portal "$proxy/portal" --username alice --password-stdin > /dev/null

# One line per process: its exit status as the shell reports it (128 + N for signal N).
export PA="$bin/portal-auth" PROXIED="$proxy/portal"
run_one() {
  case $(($1 % 3)) in
    0) "$PA" request "$PROXIED/sharing/rest/portals/self" > /dev/null 2>> "$STRESS_ERRORS" ;;
    1) "$PA" request "$PROXIED/sharing/rest/community/self" > /dev/null 2>> "$STRESS_ERRORS" ;;
    2) "$PA" token "$PROXIED" --format header > /dev/null 2>> "$STRESS_ERRORS" ;;
  esac
  echo $?
}
export -f run_one
export STRESS_ERRORS="$work/stderr.log"
start=$(date +%s)
seq 1 "$total" | xargs -P "$parallel" -I{} bash -c 'run_one {}' > "$work/statuses" || true
elapsed=$(($(date +%s) - start))

tokens=$(((total + 1) / 3))
echo "portal-auth exit statuses, $total processes ($((total - tokens)) request, $tokens token), $parallel at a time, ${elapsed}s, $configuration build:"
sort -n "$work/statuses" | uniq -c | while read -r count status; do
  if [ "$status" -gt 128 ]; then
    echo "  $count  signal $((status - 128)) ($(kill -l $((status - 128)) 2>/dev/null || echo ?))"
  else
    echo "  $count  exit $status"
  fi
done
signals=$(awk '$1 > 128' "$work/statuses" | wc -l)
lines=$(wc -l < "$work/statuses")
echo "signals: $signals"
if [ "$lines" -ne "$total" ]; then echo "only $lines of $total processes reported a status" >&2; exit 1; fi
if [ -s "$STRESS_ERRORS" ]; then echo "stderr (first 5 distinct lines):"; sort "$STRESS_ERRORS" | uniq -c | sort -rn | sed -n 1,5p; fi
[ "$signals" -eq 0 ]
