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
  exec dbus-run-session -- "$0" "$@"
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
