#!/usr/bin/env bash
# Every test: format and lint checks, unit tests, store tests on dynoxide, black-box tests of the
# binaries through cargo lambda watch, the store tests again on AWS's DynamoDB Local, the API
# contract (openapi.yaml, schemathesis) against the local stack, and cfn-lint on the SAM
# template; the unit, store and black-box tests once more with the clock moved ahead (faketime),
# so that none passes only on the day it was written. Installs what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
# How far ahead the clock is moved for the second run of the tests (faketime's offset).
CLOCK_AHEAD="${CLOCK_AHEAD:-400d}"
NEED_CFN_LINT=1 NEED_DYNAMODB_LOCAL=1 NEED_FAKETIME=1 source scripts/tools.sh

echo "== fmt"
cargo fmt --all -- --check
echo "== clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "== build (the black-box tests run these binaries)"
cargo build --workspace --quiet
# Each run of the tests has a limit far above its usual time (minutes: README, "Performance"),
# so that a hang fails with what it printed instead of running into CI's own limit.
limit() { if command -v timeout >/dev/null 2>&1; then timeout --kill-after 30 "$@"; else shift; "$@"; fi; }
echo "== tests"
mkdir -p target
limit 40m cargo test --workspace --quiet 2>&1 | tee target/test-output.log
echo "== parity: the store tests and the black-box suites again, on AWS's DynamoDB Local"
# DynamoDB Local cannot be told to listen on loopback only, so it runs, with the tests, in a
# network namespace of their own whose one interface is loopback: Linux as root (CI). Elsewhere
# (macOS, no root, no Java) it is skipped, saying so.
# tools.sh sets DYNAMODB_LOCAL_DIR when DynamoDB Local and Java are ready.
if [ -n "${DYNAMODB_LOCAL_DIR:-}" ] && [ "$(uname)" = Linux ] && unshare -n true 2>/dev/null; then
  # The suites too (dynoxide accepts what DynamoDB refuses: an empty key value broke the
  # export); not the fault and leak suites, whose proxy stands in for the store's failures.
  limit 20m unshare -n -- bash -c 'ip link set lo up && export STORE_BACKEND=dynamodb-local &&
    cargo test --offline -p blackbox --test store --quiet &&
    cargo test --offline -p blackbox --test suites --quiet -- --skip faults:: --skip leaks::' 2>&1 | tee -a target/test-output.log
else
  echo "skipped: the parity run needs Linux, root (a network namespace) and Java 17"
fi
echo "== the clock moved: the unit, store and black-box tests again, $CLOCK_AHEAD ahead"
# A test that builds a date from a literal, or a fixture "N days ago" from one, passes on the day
# it was written and fails later: every process of these runs (the stack's too) sees a clock
# moved ahead by libfaketime. The binaries are run directly, and cargo and the compiler keep the
# real clock (FAKETIME_SKIP_CMDS: rustc hangs under libfaketime, and cargo lambda watch may build).
if command -v faketime >/dev/null 2>&1; then
  cargo test --workspace --no-run --message-format=json --quiet 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["manifest_path"].rsplit("/", 1)[0], m["executable"])' |
  while read -r dir bin; do
    (cd "$dir" && FAKETIME_SKIP_CMDS=cargo,rustc,rustdoc,cc,ld limit 20m faketime -f "+$CLOCK_AHEAD" "$bin" --quiet) || exit 1
  done 2>&1 | tee -a target/test-output.log
else
  echo "skipped: no faketime here (Debian's package faketime; brew install libfaketime)"
fi
echo "== openapi: schemathesis drives every route of openapi.yaml on the local stack"
./scripts/openapi.sh
echo "== cfn-lint $(cfn-lint --version)"
cfn-lint template.yaml
echo "== the deployed edge: template.yaml through the SAM transform"
python3 scripts/template_check.py
# One closing line for every cargo test binary together (the last of cargo's own is a doc-test run).
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "tests: %d passed, %d failed\n", p, f }' target/test-output.log
