#!/usr/bin/env bash
# Installs the Debian packages portal-auth needs to build, test and run its demo, when missing.
# Safe to run again: it installs nothing that is already there.
set -euo pipefail

packages=(
  libsecret-1-dev        # the Secret Service client library (keyring store)
  libcurl4-openssl-dev   # libcurl headers; libcurl itself is loaded at run time
  libssl-dev             # OpenSSL headers (SHA-256, random, PKCS#12)
  gnome-keyring          # a Secret Service for headless sessions and tests
  libsecret-tools        # secret-tool: inspect the keyring; the benchmark's reference
  dbus                   # dbus-run-session: a private session bus
  libglib2.0-bin         # gdbus: the tests lock a collection through the Secret Service API
  curl openssl ca-certificates pkg-config
  procps                 # ps/pkill used by the scripts
  python3                # the scripted browser of the sign-in tests (scripts/scripted-browser.py)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v swift >/dev/null || { echo "setup: swift is not on PATH (Swift 6.2 or later is needed)" >&2; exit 1; }
