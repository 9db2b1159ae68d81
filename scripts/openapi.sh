#!/usr/bin/env bash
# The API contract, checked against the running local stack: schemathesis (PyPI) generates
# requests for every operation of openapi.yaml, valid and invalid, sends them to the function
# that serves it (cargo lambda watch, dynoxide, AUTH_MODE=dev, as the demo user) and checks every
# answer against the spec: documented status codes, content types and headers, response
# schemas (each server-sent event of /v1/stream against its event schema), no 5xx, invalid input
# rejected and valid input accepted, 405 with Allow. The functional routes also run stateful
# sequences along the spec's links (start a workout, then complete it).
# Bounded: ST_MAX_EXAMPLES cases per operation and ST_MAX_TIME seconds per lane. Called by
# scripts/test.sh after the build; alone: scripts/openapi.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/tools.sh

SCHEMATHESIS_VERSION=4.32.5
# In the tools' environment itself: the route check below imports its yaml with that python3.
if [ "$("$TOOLS_VENV/bin/st" --version 2>/dev/null | awk '{print $3}')" != "$SCHEMATHESIS_VERSION" ]; then
  echo "installing schemathesis $SCHEMATHESIS_VERSION (pip, into .data/tools-venv)"
  pip_install "schemathesis==$SCHEMATHESIS_VERSION"
fi
cargo build --workspace --quiet

# The spec and the template describe the same routes: every API event of template.yaml is an
# operation of openapi.yaml, and the other way round.
python3 - <<'PY'
import re, sys, yaml
spec = yaml.safe_load(open("openapi.yaml"))
documented = {(m.upper(), p) for p, ops in spec["paths"].items() for m in ops}
template = open("template.yaml").read()
deployed = set()
for block in re.findall(r"Path: *\"?(/[^\s,\"]+)\"?[,\s]+Method: *(\w+)", template):
    deployed.add((block[1].upper(), block[0]))
if documented != deployed:
    print("openapi.yaml and template.yaml disagree:",
          "only in openapi.yaml:", sorted(documented - deployed),
          "only in template.yaml:", sorted(deployed - documented))
    sys.exit(1)
print(f"openapi routes: the {len(documented)} operations of openapi.yaml are the API events of template.yaml")
PY

mkdir -p target/openapi
start_local_stack "" target/openapi/watch.log
trap stop_local_stack EXIT

# The typed TypeScript client (types generated from openapi.yaml, compiled with tsc) against the
# same stack, first (the demo user as loaded): a command, the active workout, and a POST
# /v1/stream read as a stream.
failed=0
echo "== typescript: types from openapi.yaml, the example client compiled and run"
(cd clients/typescript && npm ci --silent && npm run --silent build > /dev/null)
if node clients/typescript/dist/example.js "http://127.0.0.1:$STACK_PORT" demo > target/openapi/typescript.log 2>&1; then
  echo "typescript client: $(grep -c . target/openapi/typescript.log) lines, $(tail -n 1 target/openapi/typescript.log)"
else
  failed=1
  echo "typescript client: FAILED"
  cat target/openapi/typescript.log
fi

# Every check runs; the exceptions and their reasons are in tests/openapi/schemathesis.toml.
for lane in fast functional slow; do
  phases=examples,coverage,fuzzing
  if [ "$lane" = functional ]; then phases+=,stateful; fi
  if PYTHONPATH=tests/openapi st --config-file tests/openapi/schemathesis.toml run openapi.yaml \
      --url "http://127.0.0.1:$STACK_PORT" --include-tag "$lane" \
      -H 'x-user-id: demo' --phases "$phases" \
      --max-examples "${ST_MAX_EXAMPLES:-100}" --seed "${ST_SEED:-20261122}" \
      --workers 1 --no-color > "target/openapi/$lane.log" 2>&1; then
    echo "openapi $lane: $(grep -E '^ +[0-9]+ generated' "target/openapi/$lane.log" | tr -s ' ') ($(grep -E '^=+ .* in [0-9.]+s' "target/openapi/$lane.log" | tr -d '='))"
  else
    failed=1
    echo "openapi $lane: FAILED (target/openapi/$lane.log):"
    tail -n 80 "target/openapi/$lane.log"
  fi
done

exit "$failed"
