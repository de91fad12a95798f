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
