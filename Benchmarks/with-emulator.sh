# Sourced by the serve benchmarks (serve-compare.sh, serve-instructions.sh): from the package's root,
# starts the release portal-emulator in a fresh folder and sets `work` (the folder, removed on exit),
# `pids` (the processes killed on exit: append yours), `base` (the emulator's base URL) and
# `layer` (its feature layer), and exports PORTAL_AUTH_CA_BUNDLE (the emulator's CA).
work=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; rm -rf "$work"' EXIT
.build/release/portal-emulator --state-file "$work/emulator.json" --ca-out "$work/ca.pem" >/dev/null &
pids+=($!)
until [ -s "$work/emulator.json" ]; do sleep 0.1; done
base=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["baseURL"])' "$work/emulator.json")
export PORTAL_AUTH_CA_BUNDLE="$work/ca.pem"
layer="$base/server/rest/services/Parcels/FeatureServer/0"

# Signs alice in with the first BINDIR's portal-auth-full and starts one serve per BINDIR given; sets `pa`
# (that program) and `bases` (each serve's base URL, in order).
start_serves() {
  pa="$1/portal-auth-full"
  printf '%s' alice-pass-123 | "$pa" login --portal "$base/portal" --username alice --password-stdin >/dev/null
  bases=()
  local index=0 build
  for build in "$@"; do
    index=$((index + 1))
    echo "  build $index: $build"
    "$build/portal-auth-full" serve --listen 127.0.0.1:0 --state-file "$work/serve$index.json" >/dev/null 2>&1 &
    pids+=($!)
    until [ -s "$work/serve$index.json" ]; do sleep 0.1; done
    bases+=("$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["url"])' "$work/serve$index.json")")
  done
}
