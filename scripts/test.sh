#!/usr/bin/env bash
# Every test: format and lint checks, unit tests, store tests on dynoxide, black-box tests of the
# binaries through cargo lambda watch, and cfn-lint on the SAM template. Installs what it needs.
set -euo pipefail
cd "$(dirname "$0")/.."
NEED_CFN_LINT=1 source scripts/tools.sh

echo "== fmt"
cargo fmt --all -- --check
echo "== clippy"
cargo clippy --workspace --all-targets --quiet -- -D warnings
echo "== build (the black-box tests run these binaries)"
cargo build --workspace --quiet
echo "== tests"
cargo test --workspace --quiet
echo "== cfn-lint $(cfn-lint --version)"
cfn-lint template.yaml
echo "== all checks passed"
