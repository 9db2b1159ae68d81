#!/usr/bin/env bash
# Fuzzes every target in fuzz/ in turn with cargo-fuzz (libFuzzer, AddressSanitizer):
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default 600 s, all seven targets)
# New interesting inputs go to fuzz/corpus/<target>/, which is minimised afterwards (cmin);
# `cargo test` replays it on stable. A crash stops that target, is saved under fuzz/artifacts/
# and is reported at the end; once fixed, copy it to fuzz/regressions/<target>/.
# Needs a nightly toolchain (rustup's `nightly`); without one it falls back to RUSTC_BOOTSTRAP.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/tools.sh
SECONDS_PER_TARGET="${1:-600}"
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=(prefix route strong_csv gemini_stream openai_stream model_error analysis)

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "installing cargo-fuzz (cargo install)"
  cargo install --quiet --locked cargo-fuzz
fi
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  FUZZ=(cargo +nightly fuzz)
else
  echo "no nightly toolchain: using RUSTC_BOOTSTRAP=1 on $(rustc --version)"
  export RUSTC_BOOTSTRAP=1
  FUZZ=(cargo fuzz)
fi

mkdir -p target/fuzz-logs
summary=()
status=0
for t in "${TARGETS[@]}"; do
  max_len=4096
  [ "$t" = strong_csv ] && max_len=16384
  log="target/fuzz-logs/$t.log"
  echo "== $t: $SECONDS_PER_TARGET s (log: $log)"
  "${FUZZ[@]}" run "$t" "fuzz/corpus/$t" -- -max_total_time="$SECONDS_PER_TARGET" \
    -max_len="$max_len" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 >"$log" 2>&1
  rc=$?
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | awk '{print $2}')
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | awk '{print $2}')
  if [ $rc -ne 0 ]; then
    status=1
    summary+=("$t: FINDING after ${runs:-?} runs: $(grep -m1 -o 'fuzz/artifacts/[^ ]*' "$log")")
    continue
  fi
  "${FUZZ[@]}" cmin "$t" "fuzz/corpus/$t" >>"$log" 2>&1
  summary+=("$t: ${runs:-?} runs in $SECONDS_PER_TARGET s, coverage $cov, no finding, corpus $(ls "fuzz/corpus/$t" | wc -l) files")
done
echo "== summary"
printf '%s\n' "${summary[@]}"
exit $status
