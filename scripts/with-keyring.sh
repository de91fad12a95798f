#!/usr/bin/env bash
# Runs a command with an unlocked Secret Service (gnome-keyring) on a private D-Bus session bus,
# unless one is already reachable. The keyring lives in a throwaway directory.
#   scripts/with-keyring.sh COMMAND [ARGS...]
set -euo pipefail

have_secret_service() {
  [ -n "${DBUS_SESSION_BUS_ADDRESS:-}" ] || return 1
  grep -q "boolean true" <<<"$(dbus-send --session --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null)"
}

if [ "${PORTAL_AUTH_KEYRING_STARTED:-}" != 1 ] && ! have_secret_service; then
  runtime=$(mktemp -d /tmp/portal-auth-keyring.XXXXXX)
  chmod 700 "$runtime"
  export XDG_RUNTIME_DIR="$runtime" PORTAL_AUTH_KEYRING_STARTED=1 PORTAL_AUTH_KEYRING_DIR="$runtime"
  # A private session bus, as dbus-run-session starts one, but with dbus-daemon's own stderr (and
  # that of every service it activates, gnome-keyring-daemon among them) kept in a log in the
  # throwaway folder: depending on the machine it says "Failed to set fd limit to 65536",
  # "Activating service name='org.freedesktop.secrets'…" or "discover_other_daemon: 1", none of
  # which concerns the command. The log is printed only if the bus does not start. The command's
  # own stdout and stderr are untouched.
  bus_log="$runtime/bus.log"
  if ! { read -r DBUS_SESSION_BUS_ADDRESS && read -r bus_pid; } < <(
    exec dbus-daemon --session --nofork --nopidfile --print-address=1 --print-pid=1 2>"$bus_log"
  ); then
    echo "with-keyring.sh: the private D-Bus session bus did not start:" >&2
    cat "$bus_log" >&2
    exit 1
  fi
  export DBUS_SESSION_BUS_ADDRESS
  trap 'kill "$bus_pid" 2>/dev/null && wait "$bus_pid" 2>/dev/null; rm -rf "$runtime"; true' EXIT
  status=0
  "$0" "$@" || status=$?
  exit "$status"
fi

if [ "${PORTAL_AUTH_KEYRING_STARTED:-}" = 1 ] && [ -z "${PORTAL_AUTH_KEYRING_UNLOCKED:-}" ]; then
  # A fresh keyring: its password only protects this throwaway session. PORTAL_AUTH_KEYRING_SEED
  # names a login.keyring (saved from such a session) to start from instead of an empty one.
  if [ -n "${PORTAL_AUTH_KEYRING_SEED:-}" ]; then
    mkdir -p "$PORTAL_AUTH_KEYRING_DIR/data/keyrings"
    cp "$PORTAL_AUTH_KEYRING_SEED" "$PORTAL_AUTH_KEYRING_DIR/data/keyrings/login.keyring"
  fi
  printf %s "portal-auth-session" | XDG_DATA_HOME="$PORTAL_AUTH_KEYRING_DIR/data" \
    gnome-keyring-daemon --unlock --components=secrets >/dev/null
  export PORTAL_AUTH_KEYRING_UNLOCKED=1
  # The daemon outlives the bus otherwise: stop every gnome-keyring-daemon of this private runtime
  # folder (the one started here, and any D-Bus started) when the command ends.
  status=0
  "$@" || status=$?
  for pid in $(pgrep -x gnome-keyring-d || true); do
    # (a daemon that ended meanwhile has no environ: the braces keep bash's own message quiet too)
    if grep -qxF "XDG_RUNTIME_DIR=$PORTAL_AUTH_KEYRING_DIR" <<<"$({ tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null)"; then
      kill "$pid" 2>/dev/null || true
    fi
  done
  exit "$status"
fi
exec "$@"
