#!/usr/bin/env bash
# Builds the CLI as an outside package's executable on the root package's products alone
# (Tests/ExternalCLI; issue #35, item 5) and holds the line: the CLI files that still use a symbol
# that is not public are listed in Tests/ExternalCLI/not-yet-public.txt, and a file not on that
# list that fails fails this check (so the CLI never takes a new non-public symbol). A file on the
# list that builds is reported, to be taken off it. Once the list is empty the build must pass.
#
# The compiler stops at the first stage that fails (the module's declarations), so the list names
# the files that fail there; taking them off may show errors in function bodies of others.
set -euo pipefail
cd "$(dirname "$0")/../.."
list=Tests/ExternalCLI/not-yet-public.txt
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if swift build --package-path Tests/ExternalCLI --scratch-path .build/external-cli >"$log" 2>&1; then
  if [ -s "$list" ]; then
    echo "external-cli: the CLI builds on public API alone: empty $list" >&2
    exit 1
  fi
  echo "external-cli: the CLI builds on the public products alone"
  exit 0
fi
failing=$(grep -E '^/.*/Tests/ExternalCLI/Sources/portal-auth/.*: error:' "$log" |
  sed -E 's|^.*/Tests/ExternalCLI/Sources/portal-auth/([^:]+):.*|\1|' | sort -u)
if [ -z "$failing" ]; then
  echo "external-cli: the build failed before the CLI's files were read:" >&2
  tail -20 "$log" >&2
  exit 1
fi
new=$(comm -13 <(grep -v '^#' "$list" | sort -u) <(printf '%s\n' "$failing"))
fixed=$(comm -23 <(grep -v '^#' "$list" | sort -u) <(printf '%s\n' "$failing"))
[ -z "$fixed" ] || printf 'external-cli: builds now, take it off %s: %s\n' "$list" "$(echo $fixed)"
if [ -n "$new" ]; then
  echo "external-cli: these CLI files use symbols that are not public (the library's API is what the CLI may use):" >&2
  printf '  %s\n' $new >&2
  grep -E "error:" "$log" | grep -F -f <(printf '%s\n' $new) | sed -E 's|^.*/portal-auth/||' | sort -u | head -40 >&2
  exit 1
fi
echo "external-cli: $(printf '%s\n' "$failing" | wc -l) CLI files still use non-public symbols (listed in $list); none other"
