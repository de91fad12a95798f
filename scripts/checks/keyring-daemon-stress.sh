#!/usr/bin/env bash
# Many `portal-auth token` processes at once against one gnome-keyring-daemon, which runs in the
# foreground on a private D-Bus session so that its own messages are kept: the figures are the
# daemon's crashes and its CRITICAL/ERROR lines, which must both be 0. gnome-keyring 42.1 (and
# 50.0) aborts when a client's first call needs a client record the daemon has not made yet
# (scripts/checks/repro-keyring-first-call-crash.py); portal-auth's reads start with a call that needs none.
# Half the workers read a stored token (the read at the recorded path), half ask for a URL with
# nothing stored (searches, exit 3). Builds portal-auth as the README's install command does.
#   scripts/checks/keyring-daemon-stress.sh [WORKERS [CALLS_PER_WORKER [RUNS]]]   (default 16 400 3)
# PORTAL_AUTH_BINARY=path runs that binary instead of building (e.g. an older build, to compare).
set -euo pipefail
cd "$(dirname "$0")/../.."
workers=${1:-16} calls=${2:-400} runs=${3:-3}

if [ -z "${PORTAL_AUTH_DAEMON_STRESS_INNER:-}" ]; then
  if [ -z "${PORTAL_AUTH_BINARY:-}" ]; then
    swift build -c release --static-swift-stdlib --product portal-auth-full >&2
    swift build -c release --static-swift-stdlib --product portal-auth >&2
    PORTAL_AUTH_BINARY="$(swift build -c release --show-bin-path)/portal-auth"
  fi
  export PORTAL_AUTH_BINARY
  total_crashes=0 total_messages=0 total_failures=0
  for run in $(seq 1 "$runs"); do
    # Never the desktop's keyring: a bus and a daemon of its own for each run.
    output=$(PORTAL_AUTH_DAEMON_STRESS_INNER=1 env -u DBUS_SESSION_BUS_ADDRESS \
      dbus-run-session -- "$0" "$workers" "$calls" 2>/dev/null)
    line=$(tail -1 <<<"$output")
    echo "run $run: $line"
    head -n -1 <<<"$output" | grep -v "^GNOME_KEYRING_CONTROL=" || true
    read -r _ failures _ crashed _ messages <<<"$line"
    total_failures=$((total_failures + failures))
    total_crashes=$((total_crashes + crashed))
    total_messages=$((total_messages + messages))
  done
  echo "$runs runs x $workers workers x $calls token calls = $((runs * workers * calls)) calls"
  missed=0
  figure() {
    local verdict=met
    [ "$2" = 0 ] || { verdict=MISSED; missed=1; }
    printf '%-60s %6s  (target 0) %s\n' "$1" "$2" "$verdict"
  }
  figure "token calls with an unexpected exit status" "$total_failures"
  figure "gnome-keyring-daemon crashes" "$total_crashes"
  figure "gnome-keyring-daemon CRITICAL or ERROR messages" "$total_messages"
  exit "$missed"
fi

# One run, on its own session bus. Prints "failures N crashed 0|1 messages N" last.
work=$(mktemp -d /tmp/portal-auth-daemon-stress.XXXXXX)
chmod 700 "$work"
export XDG_RUNTIME_DIR="$work" XDG_DATA_HOME="$work/data"
printf %s "portal-auth-stress" | gnome-keyring-daemon --foreground --unlock --components=secrets \
  >"$work/daemon.out" 2>"$work/daemon.err" &
daemon=$!
cleanup() { kill "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
for _ in $(seq 1 100); do
  grep -q true <<<"$(gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
    --method org.freedesktop.DBus.NameHasOwner org.freedesktop.secrets 2>/dev/null)" && break
  sleep 0.1
done
pa=$PORTAL_AUTH_BINARY
stored=https://portal.example.com/stress
printf %s "stress-token-$RANDOM" | "$pa" login --url "$stored" --token-stdin --unchecked --expires-in 36000 >&2

# worker I: CALLS `token` calls; even workers read the stored token (exit 0), odd ones a URL with
# nothing stored (exit 3). Prints how many calls ended otherwise.
worker() {
  local url=$stored expected=0 unexpected=0
  if [ $(($1 % 2)) = 1 ]; then url=https://portal.example.com/nothing-$1 expected=3; fi
  for _ in $(seq 1 "$calls"); do
    local status=0
    "$pa" token "$url" >/dev/null 2>&1 || status=$?
    [ "$status" = "$expected" ] || unexpected=$((unexpected + 1))
  done
  echo "$unexpected" >"$work/worker-$1"
}
pids=()
for i in $(seq 1 "$workers"); do
  worker "$i" &
  pids+=($!)
done
wait "${pids[@]}"
failures=0
for i in $(seq 1 "$workers"); do failures=$((failures + $(cat "$work/worker-$i"))); done
crashed=0
kill -0 "$daemon" 2>/dev/null || crashed=1
kill "$daemon" 2>/dev/null || true
status=0
wait "$daemon" || status=$?
# 143: our SIGTERM. Anything else (133, SIGTRAP: a fatal GLib message) is a crash.
[ "$status" = 143 ] || [ "$status" = 0 ] || crashed=1
messages=$(grep -cE 'CRITICAL|ERROR' "$work/daemon.err" || true)
[ "$messages" = 0 ] || grep -E 'CRITICAL|ERROR' "$work/daemon.err" | sed -n 's/^/  daemon: /;1,8p'
echo "failures $failures crashed $crashed messages $messages"
