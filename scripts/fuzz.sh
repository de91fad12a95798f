#!/usr/bin/env bash
# Fuzzes every parser of untrusted input with libFuzzer: builds the Fuzz* targets with
# -sanitize=fuzzer,address (in .build-fuzz; optimized, as users run the parsers; set
# FUZZ_CONFIGURATION=debug for a debug build), runs each for SECONDS from its seeds in
# Fuzz/Corpus/NAME (new inputs go to a scratch corpus, not to the repository), and prints the
# executions and crashes per target and in total. A crash's input is kept in
# $FUZZ_ARTIFACTS (default .build-fuzz/crashes/NAME): copy it into Fuzz/Corpus/NAME once fixed,
# and FuzzCorpusTests replays it in every test run.
# FUZZ_JOBS=N runs N targets at once (each libFuzzer process is single-threaded).
#   scripts/fuzz.sh [SECONDS per target, default 60] [TARGET ...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(find Fuzz -mindepth 1 -maxdepth 1 -type d -name 'Fuzz*' ! -name FuzzTargets -printf '%f\n' | sed 's/^Fuzz//' | sort)
fi
scripts/setup.sh
flags=(--scratch-path .build-fuzz -c "${FUZZ_CONFIGURATION:-release}" -Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address
  -Xcc -DPA_FUZZING -Xswiftc -use-ld=lld)
for t in "${targets[@]}"; do
  swift build "${flags[@]}" --product "Fuzz$t" 2>&1 | grep -E "error:|Compiling|Build" | grep -v "^\[" || true
done
bin=$(swift build "${flags[@]}" --show-bin-path)
artifacts=${FUZZ_ARTIFACTS:-.build-fuzz/crashes}
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT

# Fuzzes one target; writes "EXECUTIONS CRASHES" and what to show about it to $results/TARGET.
fuzz_one() {
  local t=$1 scratch log runs crashes
  scratch=$(mktemp -d)
  log=$(mktemp)
  mkdir -p "$artifacts/$t"
  # OpenSSL's one-time set-up (the dlopen'd libcrypto, its providers) is reported by LeakSanitizer
  # as indirect leaks of the first input: leak checks are off for the targets that load it.
  local leaks=1
  [ "$t" = PKCS12 ] || [ "$t" = PEMClientCertificate ] && leaks=0
  ASAN_OPTIONS="detect_leaks=$leaks" SWIFT_BACKTRACE=enable=no "$bin/Fuzz$t" -detect_leaks=$leaks \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$artifacts/$t/" "$scratch" "Fuzz/Corpus/$t" >"$log" 2>&1 || true
  runs=$(awk '/^stat::number_of_executed_units/ {s+=$2} END {print s+0}' "$log")
  crashes=$(find "$artifacts/$t" -type f -newer "$scratch" | wc -l)
  {
    echo "$runs $crashes"
    [ "$crashes" -eq 0 ] || grep -E "ERROR: |SUMMARY|Test unit written" "$log" | sed -n '1,5s/^/    /p'
    [ "$runs" -gt 0 ] || { echo "    $t ran nothing:"; tail -n 5 "$log" | sed 's/^/    /'; }
  } >"$results/$t"
  rm -rf "$scratch" "$log"
}

# FUZZ_JOBS targets at a time (default 1: one after another).
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "${FUZZ_JOBS:-1}" ]; do wait -n || true; done
  fuzz_one "$t" &
done
wait

total_runs=0
total_crashes=0
printf '%-20s %14s %8s\n' target executions crashes
for t in "${targets[@]}"; do
  read -r runs crashes <"$results/$t"
  printf '%-20s %14d %8d\n' "$t" "$runs" "$crashes"
  tail -n +2 "$results/$t"
  total_runs=$((total_runs + runs))
  total_crashes=$((total_crashes + crashes))
  [ "$runs" -gt 0 ] || total_crashes=$((total_crashes + 1))
done
printf '%-20s %14d %8d\n' total "$total_runs" "$total_crashes"
[ "$total_crashes" -eq 0 ]
