#!/usr/bin/env bash
# Writes config/startup.order: the functions of the portal-auth-full binary that a cached
# `portal-auth token URL` runs (every format), which the release link lays out side by side
# (Package.swift, startupLinking) so that the kernel maps less of the binary at each start.
# Run it after changes to the fast path (Sources/portal-auth/Token/TokenFastPath.swift and what it
# calls), then rebuild: a stale list costs memory (Benchmarks/run.sh shows it), never correctness.
# Needs valgrind (callgrind records every function executed, by its mangled name).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${PORTAL_AUTH_ORDER_IN_KEYRING:-}" ]; then
  command -v valgrind >/dev/null || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >/dev/null; }
  swift build -c release --static-swift-stdlib --product portal-auth-full
  PORTAL_AUTH_ORDER_IN_KEYRING=1 exec scripts/with-keyring.sh "$0" "$@"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# valgrind does not read the binary's DWARF 5; the symbol table is what it needs.
objcopy --strip-debug "$(swift build -c release --show-bin-path)/portal-auth-full" "$work/portal-auth-full"
url="https://order.portal-auth.invalid/portal"
printf %s "startup-order-token" | "$work/portal-auth-full" login --url "$url" --token-stdin --unchecked --expires-in 86400 >/dev/null
# One lookup first, so the runs recorded read through the keyring index, as every later one does.
"$work/portal-auth-full" token "$url" --format json >/dev/null
for format in plain json header gdal env; do
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/callgrind.$format" \
    "$work/portal-auth-full" token "$url" --format "$format" >/dev/null 2>"$work/valgrind.log" ||
    { cat "$work/valgrind.log" >&2; exit 1; }
done
"$work/portal-auth-full" logout --portal "$url" >/dev/null
python3 - "$work" >config/startup.order <<'PY'
import glob, re, sys
# Callgrind's compressed names: "fn=(id) name" the first time, "fn=(id)" after; "ob=" likewise.
names, seen = [], set()
for path in sorted(glob.glob(sys.argv[1] + "/callgrind.*")):
    objects, functions, current = {}, {}, None
    for line in open(path, errors="replace"):
        m = re.match(r"^(c?ob|c?fn)=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if not m:
            continue
        kind, key, name = m.groups()
        table = objects if kind.endswith("ob") else functions
        if name is not None:
            table[key] = name
        name = table.get(key)
        if kind == "ob":
            current = name
        elif kind == "fn" and current and current.endswith("/portal-auth-full"):
            name = re.sub(r"'\d+$", "", name)  # callgrind's recursion depth suffix
            if name not in seen and not name.startswith("0x"):
                seen.add(name)
                names.append(name)
print("\n".join(names))
PY
echo "config/startup.order: $(wc -l <config/startup.order) functions"
# SwiftPM does not know the list is an input of the link: link again with it.
rm -f "$(swift build -c release --show-bin-path)/portal-auth-full"
swift build -c release --static-swift-stdlib --product portal-auth-full
