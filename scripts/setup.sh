#!/usr/bin/env bash
# Installs the Debian packages portal-auth needs to build, test and run its demo, when missing.
# Safe to run again: it installs nothing that is already there.
#   scripts/setup.sh             everything: building, the demo, the tests, the packages' test
#   scripts/setup.sh --runtime   what building and running portal-auth and portal-emulator need
#                                (the demo's set-up): no test-only package, no Python environment
#   --list                       prints the packages it would install (one a line) and installs nothing
set -euo pipefail

only_runtime=0
list=0
for argument in "$@"; do
  case "$argument" in
    --runtime) only_runtime=1 ;;
    --list) list=1 ;;
    *) echo "setup: unknown option $argument (--runtime, --list)" >&2; exit 2 ;;
  esac
done

runtime=(
  libsecret-1-dev        # the Secret Service client library (keyring store)
  libcurl4-openssl-dev   # libcurl headers; libcurl itself is loaded at run time
  libssl-dev             # OpenSSL headers (SHA-256, random, PKCS#12)
  pkg-config             # finds libsecret for the build
  ca-certificates
  gnome-keyring          # a Secret Service for headless sessions (scripts/with-keyring.sh)
  dbus                   # dbus-run-session: a private session bus
)
packages=(
  "${runtime[@]}"
  libsecret-tools        # secret-tool: inspect the keyring; the benchmark's reference
  dbus-bin               # dbus-monitor: a test watches the order of portal-auth's Secret Service calls
  libglib2.0-bin         # gdbus: the tests lock a collection through the Secret Service API
  curl openssl
  procps                 # ps/pkill used by the scripts
  python3                # the scripted browser of the sign-in tests (Tests/Clients/scripted-browser.py)
  python3-venv           # the real-client tests' virtual environment (scripts/support/setup-python.sh)
  chromium               # the real headless browser of Tests/CLITests/BrowserSignInTests.swift
  chromium-driver        # chromedriver: Selenium drives chromium through it
  # The programs tokens are handed to, which the tests run for real (Tests/CLITests/TokenClientsTests.swift,
  # ExecTests.swift, and the examples of README.md and docs/*.md: DocsExamplesTests.swift).
  gdal-bin               # ogrinfo and ogr2ogr (GDAL's ESRIJSON driver, GDAL_HTTP_HEADERS, GDAL_HTTP_HEADER_FILE)
  python3-requests       # python requests
  wget
  # QGIS, headless (QT_QPA_PLATFORM=offscreen, Debian's /usr/bin/python3): it loads a secured layer
  # through portal-auth serve with the arcgisfeatureserver provider (Tests/CLITests/ServeClientsTests.swift).
  python3-qgis
  qgis-providers
  # Real servers the network-credential tests start on loopback (Tests/TestSupport/WebTier.swift);
  # none of them runs as a system service: the install below keeps their daemons from starting.
  nginx                  # https blocks: self-signed, client certificates, Basic (auth_basic)
  apache2                # Digest (mod_auth_digest) and Negotiate (mod_auth_gssapi)
  apache2-utils          # htpasswd and htdigest: the password files of those blocks
  libapache2-mod-auth-gssapi # mod_auth_gssapi: Negotiate/Kerberos for Apache
  krb5-kdc               # krb5kdc and kdb5_util: a private KDC and its database
  krb5-admin-server      # kadmin.local: principals and the HTTP/localhost keytab
  krb5-user              # kinit, klist, kdestroy: client tickets
  # The packages (scripts/package.sh) and their test (scripts/checks/package-test.sh).
  dpkg-dev               # dpkg-shlibdeps and dpkg-parsechangelog: the package's Depends and version
  binutils               # strip
  lintian                # checks the .deb
  man-db                 # man -w finds the installed pages
  bash-completion        # its loader finds the installed completion
  systemd                # systemd-analyze verify: the package's user units (serve, the daily renew timer)
)
[ $only_runtime = 1 ] && packages=("${runtime[@]}")
if [ $list = 1 ]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi
missing=()
for p in "${packages[@]}"; do
  grep -q "install ok installed" <<<"$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  # Services must not start during the install (there is no init system here to manage them,
  # and a system nginx, Apache or KDC would hold ports 80, 88 and 749): a policy-rc.d that
  # refuses every start, for the time of the install only, unless the machine already has one.
  policy=/usr/sbin/policy-rc.d
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\n# portal-auth setup.sh: no service starts during the install\nexit 101\n' | $SUDO tee "$policy" >/dev/null
    $SUDO chmod 755 "$policy"
    trap '$SUDO rm -f "$policy"' EXIT
  fi
  # krb5-config asks for a default realm and its servers: no questions, no realm (the tests
  # write their own krb5.conf).
  DEBIAN_FRONTEND=noninteractive DEBCONF_NONINTERACTIVE_SEEN=true \
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # Should a package have started its daemon anyway, stop it (tests start their own copies).
  for service in nginx apache2 krb5-kdc krb5-admin-server; do
    [ -x "/etc/init.d/$service" ] && $SUDO "/etc/init.d/$service" stop >/dev/null 2>&1 || true
  done
fi
# The ArcGIS API for Python and Selenium, pinned in Tests/Clients/requirements.txt: a virtual
# environment cached under ~/.cache/portal-auth, built again only when the requirements change.
[ $only_runtime = 1 ] || "$(dirname "$0")/support/setup-python.sh" >/dev/null
command -v swift >/dev/null || { echo "setup: swift is not on PATH (Swift 6.2 or later is needed)" >&2; exit 1; }
