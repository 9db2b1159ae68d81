#!/usr/bin/env bash
# The local stack in the foreground: dynoxide (data in .data/), the table, the demo user, and
# cargo lambda watch serving every binary with AUTH_MODE=dev. Ctrl-C or SIGTERM stops it all.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/tools.sh

DB_PORT="${DB_PORT:-8000}"
PORT="${PORT:-9000}"
export TABLE_NAME="${TABLE_NAME:-Coach}"
export AWS_ENDPOINT_URL_DYNAMODB="http://127.0.0.1:$DB_PORT"
mkdir -p .data

pids=()
stop() {
  trap - INT TERM EXIT
  echo; echo "stopping local stack"
  for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap stop INT TERM EXIT

# The first build compiles every dependency (minutes): its progress is shown.
cargo build --workspace
setsid dynoxide --host 127.0.0.1 --port "$DB_PORT" --db-path .data/coach.db --log quiet &
pids+=($!)
for _ in $(seq 50); do (echo > "/dev/tcp/127.0.0.1/$DB_PORT") 2>/dev/null && break; sleep 0.1; done
./target/debug/devstack setup
# Pushes to phones go to a fake SNS, which appends each to .data/pushes.jsonl.
SNS_PORT="${SNS_PORT:-$(free_port)}"
setsid ./target/debug/devstack sns --port "$SNS_PORT" --record .data/pushes.jsonl &
pids+=($!)

# Model settings pass through when set in your shell (e.g. SLOW_MODEL + GEMINI_API_KEY).
model_env=""
# Bedrock signs with the shell's AWS credentials (dynoxide accepts any), session token included.
for v in MODEL_PROVIDER SLOW_MODEL FUNCTIONAL_MODEL WORKER_MODEL GEMINI_API_KEY GEMINI_BASE_URL \
         OPENAI_API_KEY OPENAI_BASE_URL OPENAI_MAX_TOKENS_FIELD AWS_SESSION_TOKEN \
         AWS_ENDPOINT_URL_BEDROCK_RUNTIME; do
  if [ -n "${!v:-}" ]; then model_env+=",$v=${!v}"; fi
done

# Hot reload: an edit recompiles the function it touches on its next request.
setsid cargo lambda watch -A 127.0.0.1 -P "$PORT" \
  --env-var "AUTH_MODE=dev,TABLE_NAME=$TABLE_NAME,AWS_ENDPOINT_URL_DYNAMODB=$AWS_ENDPOINT_URL_DYNAMODB,AWS_REGION=$AWS_REGION,AWS_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID,AWS_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY,WORKER_INVOKE_URL=http://127.0.0.1:$PORT/2015-03-31/functions/worker/invocations,$(local_push_env "$SNS_PORT")$model_env" &
pids+=($!)
for _ in $(seq 100); do (echo > "/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done

base="http://127.0.0.1:$PORT/v1/copilot"
fn="http://127.0.0.1:$PORT/v1"
stream="http://127.0.0.1:$PORT/v1/stream"
cat <<MSG

Local stack is up on http://127.0.0.1:$PORT (every route at its deployed path, /v1/...; Ctrl-C
stops it). Log the demo user's Push workout:

  curl -s $base -H 'content-type: application/json' -H 'x-user-id: demo' -d '{"message":"done"}'
  curl -s $base -H 'content-type: application/json' -H 'x-user-id: demo' -d '{"message":"8 @ 97.5 kg rir 2"}'
  curl -s $base -H 'content-type: text/plain' -H 'x-user-id: demo' --data 'next'
  curl -s $base -H 'content-type: text/plain' -H 'x-user-id: demo' --data 'undo'
  curl -s $base -H 'content-type: application/json' -d '{"message":"(context: user_id=demo corr=req-1 tz=Europe/Stockholm) skip"}'

Smart buttons, the monitor, workouts and app events (more in the README):

  curl -s $fn/functional -H 'content-type: application/json' -H 'x-user-id: demo' -d '{"message":"{\"intent\":\"SUGGEST_WEIGHT\",\"exercise_id\":\"barbell-bench-press\",\"target_reps\":5}"}'
  curl -s $fn/functional -H 'content-type: application/json' -H 'x-user-id: demo' -d '{"message":"{\"intent\":\"SWAP_EXERCISE\",\"target\":\"Overhead Press\",\"exercise_instance_id\":\"demo-a1\",\"constraint\":\"dumbbell\"}"}'
  curl -s $fn/functional -H 'content-type: application/json' -H 'x-user-id: demo' -d '{"message":"{\"event_type\":\"SET_COMPLETED\",\"state_diff\":{}}"}'
  curl -s $fn/workouts/active -H 'x-user-id: demo'
  curl -s -X POST $fn/workouts/demo-active/complete -H 'x-user-id: demo'
  curl -s $fn/workouts -H 'content-type: application/json' -H 'x-user-id: demo' -d '{"next":true}'
  curl -s $fn/events -H 'content-type: application/json' -H 'x-user-id: demo' -d '{"type":"app_opened"}'
  curl -s $fn/notifications -H 'x-user-id: demo'

A phone for pushes, and a health reading (pushes land in .data/pushes.jsonl, from the fake SNS):

  curl -s $fn/devices -H 'content-type: application/json' -H 'x-user-id: demo' -d '{"platform":"apns","token":"740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad"}'
  curl -s $fn/health/samples -H 'content-type: application/json' -H 'x-user-id: demo' -d '{"samples":[{"id":"hk-1","metric":"resting_heart_rate","value":58,"unit":"bpm","observed_at":"'"$(date -u +%FT%TZ)"'"}]}'

The coach, streamed (commands and buttons are answered there too; the coach itself needs
SLOW_MODEL and a key in your shell before make dev, else it says MODEL_NOT_CONFIGURED):

  curl -sN $stream -H 'content-type: application/json' -H 'x-user-id: demo' -d '{"message":"next"}'
  curl -sN $stream -H 'content-type: application/json' -H 'x-user-id: demo' -d '{"message":"How is my bench press progressing?"}'

MSG
wait
