#!/usr/bin/env bash
# Builds the CLI as an outside package's executable on the root package's products alone
# (Tests/ExternalCLI; issue #35, item 5): whatever the CLI needs is public API, so a program that
# imports the library can do what the CLI does. A CLI file that takes a symbol the library does
# not make public fails this check, naming the file and the symbol.
set -euo pipefail
cd "$(dirname "$0")/../.."
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if swift build --package-path Tests/ExternalCLI --scratch-path .build/external-cli >"$log" 2>&1; then
  echo "external-cli: the CLI builds on the public products alone"
  exit 0
fi
echo "external-cli: the CLI does not build on the public products alone (the library's API is what the CLI may use):" >&2
if grep -qE '^/.*/Tests/ExternalCLI/Sources/portal-auth/.*: error:' "$log"; then
  grep -E '^/.*/Tests/ExternalCLI/Sources/portal-auth/.*: error:' "$log" | sed -E 's|^.*/portal-auth/||' | sort -u |
    head -40 >&2
else
  tail -20 "$log" >&2
fi
exit 1
