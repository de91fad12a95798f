#!/usr/bin/env bash
# Prints portal-auth's performance figures side by side with their references. Figures, not tests.
#  1. `portal-auth token URL` with a valid credential in the keyring vs `secret-tool lookup` of an item
#     of the same size: wall time per call (hyperfine) and the ratio (target <= 1.3).
#  2. Peak memory of `portal-auth token` (target < 25 MiB).
#  3. 1,000 concurrent requests through one AuthenticationManager against portal-emulator.
#  4. Cross-process refresh: 100 `portal-auth token` processes started together with an OAuth
#     access token inside the 5-minute window: refresh requests counted by portal-emulator (target 1)
#     and the wall time of the batch, beside the same batch when no refresh is needed.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${PORTAL_AUTH_BENCH_IN_KEYRING:-}" ]; then
  scripts/setup.sh
  for p in hyperfine time; do dpkg-query -W -f='${Status}' $p 2>/dev/null | grep -q "ok installed" || \
    { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $p >/dev/null; }; done
  swift build -c release --static-swift-stdlib --product portal-auth
  swift build -c release --product portal-auth-benchmark
  swift build -c release --product portal-emulator
  PORTAL_AUTH_BENCH_IN_KEYRING=1 exec scripts/with-keyring.sh "$0" "$@"
fi
bin=$(swift build -c release --show-bin-path)
pa="$bin/portal-auth"

# A credential in the keyring: a pregenerated token (no server needed for the cached path).
url="https://bench.portal-auth.invalid/portal"
token=$(head -c 96 /dev/urandom | base64 -w0 | tr -d '+/=' | head -c 128)
printf %s "$token" | "$pa" login --url "$url" --token-stdin --expires-in 86400 >/dev/null
secret=$(secret-tool lookup application portal-auth store arcgis server "$url")
# The reference item: the same size of secret, looked up by the same number of attributes.
printf %s "$secret" | secret-tool store --label="bench reference" application portal-auth-bench server "$url"
[ "$("$pa" token "$url")" = "$token" ] || { echo "portal-auth token did not print the stored token" >&2; exit 1; }

echo "== portal-auth token vs secret-tool lookup (secret of ${#secret} bytes)"
hyperfine -N --warmup 20 --runs 300 --export-json /tmp/portal-auth-bench.json \
  "secret-tool lookup application portal-auth-bench server $url" \
  "$pa token $url" | sed -n '/Time\|±\|Summary\|faster/p'
python3 - <<'PY'
import json
r = json.load(open("/tmp/portal-auth-bench.json"))["results"]
ref, pa = r[0]["mean"], r[1]["mean"]
print(f"  secret-tool lookup: {ref*1000:.2f} ms/call   portal-auth token: {pa*1000:.2f} ms/call   ratio {pa/ref:.2f} (target <= 1.30)")
PY

echo "== peak memory of portal-auth token"
/usr/bin/time -f "  maximum resident set size: %M KiB (target < 25600 KiB)" "$pa" token "$url" >/dev/null

"$pa" logout --portal "$url" >/dev/null
secret-tool clear application portal-auth-bench server "$url"

echo "== AuthenticationManager burst"
"$bin/portal-auth-benchmark"

echo "== cross-process OAuth refresh: 100 concurrent portal-auth token"
work=$(mktemp -d)
trap 'kill "${emu_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
"$bin/portal-emulator" --state-file "$work/emulator.json" --ca-out "$work/ca.pem" --oauth-access-token-lifetime 120 >/dev/null &
emu_pid=$!
for _ in $(seq 1 100); do [ -s "$work/emulator.json" ] && break; sleep 0.1; done
base=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["baseURL"])' "$work/emulator.json")
portal="$base/portal"
export PORTAL_AUTH_CA_BUNDLE="$work/ca.pem"
BROWSER="$PWD/scripts/scripted-browser.py" SCRIPTED_BROWSER_CA="$work/ca.pem" \
  "$pa" login --portal "$portal" --client-id portal-auth-cli >/dev/null 2>&1
admin() { curl -sS --cacert "$work/ca.pem" -X POST "$base/emulator/$1" >/dev/null; }
batch() {  # runs 100 `portal-auth token` at once; prints the wall time in ms and the distinct tokens
  local start end
  start=$(date +%s%N)
  for i in $(seq 1 100); do "$pa" token "$portal" >"$work/out.$i" 2>&1 & done
  wait
  end=$(date +%s%N)
  echo "$(( (end - start) / 1000000 )) $(cat "$work"/out.* | sort -u | wc -l)"
}
admin "oauth-access-token-lifetime?seconds=1800"
admin reset
read -r ms distinct < <(batch)
refreshes=$(curl -sS --cacert "$work/ca.pem" "$base/emulator/counters" | python3 -c 'import json,sys; print(json.load(sys.stdin)["refreshTokenGrants"])')
echo "  expiring token: ${ms} ms for the batch, ${refreshes} refresh request(s) (target 1), ${distinct} distinct token(s) printed (target 1)"
admin reset
read -r ms distinct < <(batch)
refreshes=$(curl -sS --cacert "$work/ca.pem" "$base/emulator/counters" | python3 -c 'import json,sys; print(json.load(sys.stdin)["refreshTokenGrants"])')
echo "  fresh token (reference): ${ms} ms for the batch, ${refreshes} refresh request(s), ${distinct} distinct token(s)"
"$pa" logout --portal "$portal" >/dev/null
