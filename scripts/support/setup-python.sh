#!/usr/bin/env bash
# Makes (once per machine and requirements) the Python virtual environment of the real-client
# tests: the ArcGIS API for Python and Selenium, pinned in Tests/Clients/requirements.txt, and
# prints its folder on stdout.
#
#   scripts/support/setup-python.sh            # prints e.g. ~/.cache/portal-auth/venv-3f2a...; builds it if missing
#
# The environment lives under ${XDG_CACHE_HOME:-$HOME/.cache}/portal-auth (or
# $PORTAL_AUTH_CLIENTS_CACHE) as venv-<hash>, the hash of the requirements file and the Python
# version: it is built again only when either changes. It is built in a temporary folder beside
# it and renamed into place once complete, under a lock, so concurrent runs (parallel tests, two
# checkouts) build it at most once and never see half an environment. A renamed virtual
# environment keeps working when run as `venv/bin/python script.py` (bin/python links to the
# system interpreter and pyvenv.cfg holds no path of its own folder); its console scripts'
# shebangs name the temporary folder, so the tests never use them.
#
# Everything is installed with `pip install --no-deps` from the fully pinned list: see the
# comment at the top of the requirements file for why (about 150 MB and 20 s instead of 670 MB
# and 50 s on this kind of machine).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
requirements="$root/Tests/Clients/requirements.txt"
python="${PORTAL_AUTH_PYTHON:-python3}"
cache="${PORTAL_AUTH_CLIENTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/portal-auth}"

version="$("$python" -c 'import sys; print(sys.version)')"
hash="$( { cat "$requirements"; echo "$version"; } | sha256sum | cut -c1-16)"
venv="$cache/venv-$hash"
if [ -f "$venv/.complete" ]; then
  touch "$venv/.complete" # last used: environments unused for 30 days are removed (below)
  echo "$venv"
  exit 0
fi

mkdir -p "$cache"
chmod 700 "$cache"
exec 9>"$cache/venv.lock"
flock -w 900 9 || { echo "setup-python: another run has held $cache/venv.lock for 15 minutes" >&2; exit 1; }
if [ ! -f "$venv/.complete" ]; then
  started=$(date +%s)
  # Whoever built in a .venv-* folder held this lock: one left now was a run that was killed.
  rm -rf "$cache"/.venv-*
  for old in "$cache"/venv-*; do
    [ -n "$(find "$old/.complete" -mtime +30 2>/dev/null)" ] && rm -rf "$old"
  done
  echo "setup-python: making the client tests' virtual environment $venv (ArcGIS API for Python, Selenium)" >&2
  work="$(mktemp -d "$cache/.venv-$hash.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  "$python" -m venv "$work"
  if ! "$work/bin/python" -m pip install --quiet --no-input --disable-pip-version-check --no-deps \
    -r "$requirements" >"$work.log" 2>&1; then
    cat "$work.log" >&2
    rm -f "$work.log"
    echo "setup-python: pip could not install $requirements (is PyPI reachable?)" >&2
    exit 1
  fi
  rm -f "$work.log"
  # What the tests import: fail here, with pip's own words, rather than in a test.
  "$work/bin/python" -c 'from arcgis.gis import GIS; from arcgis.features import FeatureLayer; import selenium.webdriver'
  touch "$work/.complete"
  rm -rf "$venv" # an incomplete one left by a machine that lost power mid-rename
  mv -T "$work" "$venv"
  trap - EXIT
  echo "setup-python: made $venv in $(($(date +%s) - started)) s" >&2
fi
echo "$venv"
