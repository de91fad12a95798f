#!/usr/bin/env bash
# The Python adapter's tests (python/tests, pytest) against a real portal-emulator (with its Entra
# Application Proxy) and a real keyring: builds nothing, uses the debug build's portal-auth and
# portal-emulator (`swift build --show-bin-path`; scripts/test.sh builds them first) and the
# virtual environment of scripts/support/setup-python.sh (requests, arcgis and pytest, pinned in
# Tests/Clients/requirements.txt). The adapter is imported from python/src, as `pip install ./python`
# would install it.
#   scripts/checks/python-adapter-test.sh [pytest arguments, e.g. -k proxy]
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=$(scripts/support/setup-python.sh)
bin=$(swift build --show-bin-path)
for program in portal-auth portal-emulator; do
  [ -x "$bin/$program" ] || { echo "python-adapter-test: $bin/$program is missing: run swift build first" >&2; exit 1; }
done
export PORTAL_AUTH_BIN_DIR="$bin" PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$PWD/python/src"
exec scripts/with-keyring.sh "$venv/bin/python" -m pytest -p no:cacheprovider -q -rfE python/tests "$@"
