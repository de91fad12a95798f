#!/usr/bin/env bash
# The packages, tested as a user meets them: builds them (scripts/package.sh), installs the .deb
# on this machine with dpkg, and checks the installed portal-auth: --version names the commit,
# `man` finds the pages, bash completes a subcommand through bash-completion's loader, and the
# demo's sign-in, token, request and sign-out work with /usr/bin/portal-auth against
# /usr/bin/portal-emulator in a private keyring; then removes and purges the package and checks
# that nothing it installed is left. The tarball's portal-auth must run with no toolchain on the
# path. Run by scripts/test.sh after the Swift tests (as root, or with sudo for dpkg).
#
#   scripts/checks/package-test.sh        # prints one line per check and "N passed, M failed"
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
work=$(mktemp -d "${TMPDIR:-/tmp}/portal-auth-package-test.XXXXXX")
passed=0 failed=0
emulator_pid=""
finish() {
  [ -z "$emulator_pid" ] || kill "$emulator_pid" 2>/dev/null || true
  # Never leave the package installed, whatever failed.
  if grep -q 'install ok installed' <<<"$(dpkg-query -W -f='${Status}' portal-auth 2>/dev/null)"; then
    $SUDO dpkg -P portal-auth >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap finish EXIT

# check NAME COMMAND...: runs COMMAND, output in a log shown only when it fails.
check() {
  local name=$1; shift
  if "$@" >"$work/check.log" 2>&1; then
    passed=$((passed + 1)); printf 'ok    %s\n' "$name"
  else
    failed=$((failed + 1)); printf 'FAIL  %s\n' "$name"; sed 's/^/      /' "$work/check.log" | tail -40
  fi
}
# contains TEXT COMMAND...: COMMAND succeeds and prints TEXT.
contains() {
  local text=$1; shift
  local out; out=$("$@" 2>&1) || { printf '%s\n(exit %s)\n' "$out" "$?"; return 1; }
  printf '%s\n' "$out"
  grep -qF -- "$text" <<<"$out" || { echo "expected: $text"; return 1; }
}
summary() { printf '%d passed, %d failed\n' "$passed" "$failed"; [ "$failed" = 0 ]; }

# 1. Build. lintian runs below as a check of its own.
started=$(date +%s)
if ! PORTAL_AUTH_PACKAGE_LINTIAN=0 scripts/package.sh >"$work/artifacts" 2>"$work/package.log"; then
  tail -60 "$work/package.log"
  failed=$((failed + 1)); printf 'FAIL  scripts/package.sh\n'; summary; exit 1
fi
passed=$((passed + 1)); printf 'ok    scripts/package.sh (%d s)\n' "$(($(date +%s) - started))"
deb=$(sed -n 1p "$work/artifacts"); tarball=$(sed -n 2p "$work/artifacts")
commit=$(git rev-parse --short=7 HEAD)
git diff --quiet HEAD -- || commit="$commit-dirty"
version=$(sed -n 's/^ *public static let version = "\([^"]*\)"$/\1/p' Sources/PortalAuthBuildInfo/BuildInfo.swift)
expected_version="$version ($commit)"

lintian_clean() {
  command -v lintian >/dev/null || { echo "lintian is not installed (scripts/setup.sh installs it)"; return 1; }
  local out; out=$(lintian --tag-display-limit 0 "$deb" 2>&1 || true)
  printf '%s\n' "$out"
  ! grep -q '^E: ' <<<"$out"
}
check "lintian reports no error" lintian_clean
grep -E '^[WE]: ' "$work/check.log" | sed 's/^/      /' || true
check "the package depends on libsecret, libcurl, libssl and glib" bash -c '
  d=$(dpkg-deb -f "$1" Depends); echo "$d"
  for p in libsecret-1-0 libcurl4 libssl3 libglib2.0-0 libgssapi-krb5-2; do grep -q "\b$p\b" <<<"$d" || exit 1; done
  [ "$(dpkg-deb -f "$1" Recommends)" = gnome-keyring ]' _ "$deb"

# 2. The tarball, with no toolchain anywhere on the path.
mkdir -p "$work/tarball"
tar -C "$work/tarball" -xzf "$tarball"
unpacked=$(echo "$work"/tarball/portal-auth-*)
check "the tarball's portal-auth runs with the toolchain hidden" contains "$expected_version" \
  env -i PATH=/usr/bin:/bin "$unpacked/bin/portal-auth" --version
check "the tarball's portal-auth hands other commands to its libexec/portal-auth/portal-auth-full" \
  contains "complete -o filenames -F" env -i PATH=/usr/bin:/bin "$unpacked/bin/portal-auth" completion bash
check "the tarball's portal-emulator runs with the toolchain hidden" contains "USAGE:" \
  env -i PATH=/usr/bin:/bin "$unpacked/bin/portal-emulator" --help
check "the tarball holds the pages and completions" test -f "$unpacked/share/man/man1/portal-auth-login.1.gz" \
  -a -f "$unpacked/share/bash-completion/completions/portal-auth" -a -f "$unpacked/share/zsh/site-functions/_portal-auth" \
  -a -f "$unpacked/share/fish/vendor_completions.d/portal-auth.fish" -a -f "$unpacked/LICENSE"
no_libswift() { ! ldd "$1" | grep -E 'libswift|libFoundation|libdispatch|not found'; }
check "portal-auth loads no Swift runtime library" no_libswift "$unpacked/bin/portal-auth"
check "portal-emulator loads no Swift runtime library" no_libswift "$unpacked/bin/portal-emulator"
check "portal-auth-full loads no Swift runtime library" no_libswift "$unpacked/libexec/portal-auth/portal-auth-full"

# 3. Install. A copy left by an earlier run goes first.
if grep -q 'install ok installed' <<<"$(dpkg-query -W -f='${Status}' portal-auth 2>/dev/null)"; then
  echo "# removing the portal-auth package an earlier run left installed"
  $SUDO dpkg -P portal-auth >/dev/null
fi
# Which of the package's folders exist before it does (those may stay after the purge).
dpkg-deb --fsys-tarfile "$deb" | tar -t | sed 's|^\./|/|; s|/$||' | grep -v '^\.\?$' >"$work/paths"
while read -r path; do [ ! -e "$path" ] || echo "$path"; done <"$work/paths" >"$work/existing-before"
check "dpkg -i installs the package" $SUDO dpkg -i "$deb"
check "portal-auth-full is installed in /usr/libexec/portal-auth" test -x /usr/libexec/portal-auth/portal-auth-full
check "/usr/bin/portal-auth --version names the commit" contains "$expected_version" /usr/bin/portal-auth --version
check "portal-auth completion bash prints the completion" contains "complete -o filenames -F" \
  /usr/bin/portal-auth completion bash
check "the hidden --generate-completion-script still works" contains "#compdef portal-auth" \
  /usr/bin/portal-auth --generate-completion-script zsh
units_verify() {
  # (A user manager's runtime folder of its own: systemd-analyze --user needs one, not a running manager.)
  local runtime
  runtime=$(mktemp -d)
  (cd /usr/lib/systemd/user && XDG_RUNTIME_DIR="$runtime" systemd-analyze verify --user \
    portal-auth-serve.service portal-auth-serve.socket portal-auth-renew.service portal-auth-renew.timer)
  local status=$?
  rm -rf "$runtime"
  return $status
}
check "the systemd user units are installed and pass systemd-analyze verify (man pages included)" units_verify
check "man -w portal-auth-login" contains "/usr/share/man/man1/portal-auth-login.1.gz" man -w portal-auth-login
check "man -w portal-emulator" contains "/usr/share/man/man1/portal-emulator.1.gz" man -w portal-emulator
check "man portal-auth-token renders its options" contains "--format" env MANPAGER=cat MANWIDTH=100 man portal-auth-token
# bash-completion's loader finds the completion where the package put it, then completes "to".
bash_completes() {
  bash --norc --noprofile -c '
    source /usr/share/bash-completion/bash_completion
    __load_completion portal-auth || { echo "bash-completion did not find a completion for portal-auth"; exit 1; }
    spec=$(complete -p portal-auth) && echo "$spec"
    function=$(sed -n "s/.* -F \([^ ]*\) .*/\1/p" <<<"$spec")
    COMP_WORDS=(portal-auth to); COMP_CWORD=1; COMP_LINE="portal-auth to"; COMP_POINT=${#COMP_LINE}
    "$function" portal-auth to portal-auth
    printf "offered: %s\n" "${COMPREPLY[@]}"
    grep -qx token <<<"$(printf "%s\n" "${COMPREPLY[@]}")"'
}
check "bash completes 'portal-auth to' with token" bash_completes
check "zsh and fish completions are installed" test -s /usr/share/zsh/vendor-completions/_portal-auth \
  -a -s /usr/share/fish/vendor_completions.d/portal-auth.fish

# 4. The demo, with the installed programs only, in a private keyring.
demo() {
  PATH=/usr/bin:/bin scripts/with-keyring.sh bash -c '
    set -euo pipefail
    dir=$1
    /usr/bin/portal-emulator --config config/emulator.json --state-file "$dir/emulator.json" --ca-out "$dir/ca.pem" \
      >"$dir/emulator.log" 2>&1 &
    pid=$!
    trap "kill $pid 2>/dev/null || true" EXIT
    deadline=$((SECONDS + 60))
    until [ -s "$dir/emulator.json" ]; do
      [ $SECONDS -lt $deadline ] || { cat "$dir/emulator.log"; echo "portal-emulator did not start"; exit 1; }
      kill -0 $pid || { cat "$dir/emulator.log"; exit 1; }
      sleep 0.1
    done
    field() { python3 -c "import json,sys;print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$dir/emulator.json" "$1"; }
    portal=$(field portalURL); server=$(field serverURL)
    export PORTAL_AUTH_CA_BUNDLE=$(field caCertificatePath)
    [ "$(command -v portal-auth)" = /usr/bin/portal-auth ]
    printf %s alice-pass-123 | portal-auth login --portal "$portal" --username alice --password-stdin
    portal-auth token --format json | python3 -c "
import json, sys
answer = json.load(sys.stdin)
assert answer[\"token\"] and answer[\"headers\"][\"Authorization\"].startswith(\"Bearer \"), answer.keys()
print(\"token json: server\", answer[\"server\"], \"expires\", answer[\"expires\"])"
    portal-auth token "$server/rest/services/Parcels/FeatureServer/0" --format header | sed "s/ .*/ .../"
    portal-auth request "$server/rest/services/Parcels/FeatureServer/0/query" -f "where=1=1" -f returnCountOnly=true |
      tee "$dir/count"
    grep -q "\"count\" *: *24" "$dir/count"
    portal-auth status
    portal-auth logout
  ' _ "$work"
}
check "the demo runs with the installed portal-auth and portal-emulator" demo

# 5. Remove, purge, and nothing is left.
dpkg -L portal-auth | grep -v '^/\.$' | sort >"$work/installed" || true
check "dpkg -r removes the package" $SUDO dpkg -r portal-auth
check "dpkg -P purges the package" $SUDO dpkg -P portal-auth
check "dpkg no longer knows the package" bash -c '! grep -q installed <<<"$(dpkg-query -W -f="\${Status}" portal-auth 2>/dev/null)"'
nothing_left() {
  local left=0
  [ -s "$work/installed" ] || { echo "dpkg -L listed nothing"; return 1; }
  while read -r path; do
    [ -e "$path" ] || continue
    grep -qxF "$path" "$work/existing-before" && continue
    echo "left behind: $path"; left=1
  done <"$work/installed"
  return $left
}
check "nothing the package installed is left" nothing_left
check "/usr/bin/portal-auth is gone" test ! -e /usr/bin/portal-auth
check "/usr/libexec/portal-auth is gone" test ! -e /usr/libexec/portal-auth

summary
