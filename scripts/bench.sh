#!/usr/bin/env bash
# Performance figures for the README (not part of `make test`; release builds take minutes).
#   scripts/bench.sh micro     criterion: prefix + route + parse vs the original regex table;
#                              swap ranking, suggest-weight and monitor rules vs a plain catalog filter
#   scripts/bench.sh size      stripped release sizes of the four lanes, x86_64 and arm64
#                              (cargo lambda build --arm64)
#   scripts/bench.sh cold      cold start of the four lanes vs a bare lambda_runtime hello-world,
#                              median of 20 (the slow lane with a model configured)
#   scripts/bench.sh slow      SLOW lane overhead, release build: coach_overhead (200 concurrent
#                              streams, then 30 one at a time) against the fake model
#   scripts/bench.sh e2e       200 sequential "done" on the local stack (release build, dynoxide),
#                              then 100 of each functional request for a user with the demo history
#   scripts/bench.sh import    a 5,000-row Strong export through POST /v1/import/strong on the local
#                              stack (release build), with the weekly reviews run by the local worker
#   scripts/bench.sh lifter    the lifter's own data on two years of history (a 5,000-row export
#                              imported; release build, local stack): history page, workout read,
#                              exercise search, progress series (p50/p99 of 200 each, against
#                              GET /v1/me in the same run), the account's export (JSON, CSV) and
#                              its deletion
#   scripts/bench.sh sync      a 20-command offline batch (POST /v1/workouts/{id}/sync: out of
#                              order, extra sets, a superset, notation) on the local stack, release:
#                              median and p99 of 60, its replay, and the same commands one request
#                              each on /v1/copilot as the baseline
#   scripts/bench.sh load      20 fast processes x 500 commands against one dynoxide (release;
#                              users shared by two processes; p50/p99, errors, consistency check),
#                              then the 200 concurrent coach streams of `slow`
#   scripts/bench.sh profile   where the cold start goes: each init step, fresh processes, median
#   scripts/bench.sh replay    the progression model replayed over real Strong exports against
#                              what the lifters did next (tests/data/exports, and any files in
#                              EXPORTS, e.g. EXPORTS="mine.csv"; a file without a unit column
#                              is read as the import reads it, or give --unit lb before it)
#   scripts/bench.sh coaching  the coaching benchmark (docs/coaching.md): the coach against
#                              same-as-last-time, Liftosaur dp and lp and an e1RM trend read
#                              through the RTS chart, rolling origin over every real export in
#                              tests/data/exports (development and held-out lifters apart), with
#                              bootstrap intervals; files in EXPORTS are measured as held-out
#                              lifters too (never tuned on, not committed)
#   scripts/bench.sh fanout    the weekly fan-out over a roster of 100,000 lifters (LIFTERS=) on
#                              dynoxide, release build: each invocation within the worker's 60 s
#                              (its Timeout), continued through a fake SQS that counts the
#                              reviews queued; the duration against the budget (docs/scale.md)
#   scripts/bench.sh qwen      the coach evaluation (devstack eval) against Qwen2.5-Coder-1.5B
#                              served by llama.cpp's llama-server --jinja (scripts/eval-qwen.sh;
#                              a minute or more a call; ONLY=<scenario> for one; not in "all")
#   scripts/bench.sh           all of them
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/tools.sh

micro() {
  cargo bench -p coach --bench fast_path -- --noplot 2>&1 | grep -E "^(fast_path|baseline)|time:"
  cargo bench -p coach --bench functional -- --noplot 2>&1 | grep -E "^(functional|baseline)|time:"
  cargo bench -p coach --bench worker -- --noplot 2>&1 | grep -E "^(worker|baseline)|time:"
  cargo bench -p coach --bench critic -- --noplot 2>&1 | grep -E "^(critic|baseline)|time:"
  # Criterion's time line is a mean; the README quotes medians, from its estimates.
  for f in target/criterion/*/new/estimates.json; do
    python3 -c "import json,sys; e=json.load(open(sys.argv[1])); print(sys.argv[1].split('/')[2], 'median', round(e['median']['point_estimate'], 1), 'ns')" "$f"
  done
}

LANES=(fast functional slow worker)

# Peak resident memory (VmHWM) of every lane process cargo lambda watch started: what the
# template's MemorySize is chosen from.
peak_rss() {
  for b in "${LANES[@]}"; do
    for pid in $(pgrep -f "target/release/$b\$" || true); do
      echo "peak RSS $b (pid $pid): $(awk '/VmHWM/ {print $2, $3}' "/proc/$pid/status")"
    done
  done
}

release() { cargo build --release --quiet -p fast -p functional -p slow -p worker -p devstack; }

size() {
  release
  for b in hello-bare "${LANES[@]}"; do
    echo "x86_64 (cargo build --release): $b $(stat -c %s "target/release/$b") bytes"
  done
  rustup target add aarch64-unknown-linux-gnu >/dev/null 2>&1 || { echo "cannot add the arm64 target"; exit 1; }
  for b in "${LANES[@]}"; do
    cargo lambda build --release --arm64 --quiet -p "$b"
    echo "arm64 (cargo lambda build --release --arm64): $b $(stat -c %s "target/lambda/$b/bootstrap") bytes"
  done
}

cold() {
  release
  # A model configured, so the slow and functional lanes build their model clients as deployed.
  ./target/release/devstack coldstart --runs "${RUNS:-20}" \
    --env SLOW_MODEL=gemini-2.5-flash --env FUNCTIONAL_MODEL=gemini-2.5-flash --env GEMINI_API_KEY=coldstart \
    target/release/hello-bare "${LANES[@]/#/target/release/}"
  # The model lanes with MODEL_PROVIDER=bedrock: the SDK's client is built instead of the HTTP
  # one (no network at start-up); the same baseline, in its own run.
  ./target/release/devstack coldstart --runs "${RUNS:-20}" \
    --env MODEL_PROVIDER=bedrock --env SLOW_MODEL=amazon.nova-lite-v1:0 --env FUNCTIONAL_MODEL=amazon.nova-lite-v1:0 \
    target/release/hello-bare target/release/slow target/release/functional
}

slow() {
  cargo bench -p blackbox --bench coach_overhead 2>&1 | grep -E '^coach_overhead:'
}

e2e() {
  release
  export TABLE_NAME=CoachBench
  start_local_stack --release target/bench-watch.log
  trap stop_local_stack RETURN EXIT  # EXIT too: a failed step ends the script (set -e)
  local port=$STACK_PORT
  local url="http://127.0.0.1:$port/v1/copilot"
  curl -s -o /dev/null "$url" -H 'x-user-id: warmup' --data next   # starts the function process
  ./target/release/devstack e2e --url "$url" --n "${N:-200}"
  local fn_base="http://127.0.0.1:$port/v1"
  curl -s -o /dev/null "$fn_base/workouts/active" -H 'x-user-id: warmup'   # starts the functional process
  ./target/release/devstack e2e-functional --base "$fn_base" --n "${N_FN:-100}"
  peak_rss
  # The function's own log lines: handler time without the store, per request.
  python3 - target/bench-watch.log <<'PY'
import json, statistics, sys
rows = []
for line in open(sys.argv[1], errors="replace"):
    i = line.find('{"level"')
    if i < 0: continue
    try: r = json.loads(line[i:])
    except ValueError: continue
    if r.get("intent") == "LOG_SET" and r.get("outcome") == "ok": rows.append(r)
if rows:
    own = sorted(r["latency_us"] - r["store_us"] for r in rows)
    store = sorted(r["store_us"] for r in rows)
    print(f"function log, {len(rows)} LOG_SET requests: handler time without store median {own[len(own)//2]} us, "
          f"p99 {own[min(len(own)-1, len(own)*99//100)]} us; store time median {store[len(store)//2]} us (read + transactional write)")
PY
}

import() {
  release
  export TABLE_NAME=CoachBench
  start_local_stack --release target/bench-watch.log
  trap stop_local_stack RETURN EXIT  # EXIT too: a failed step ends the script (set -e)
  local port=$STACK_PORT
  ./target/release/devstack strong-sample --rows 5000 --last-day 2026-11-20 > target/strong-5000.csv
  local url="http://127.0.0.1:$port/v1/import/strong?tz=Europe/Berlin"
  curl -s -o /dev/null "http://127.0.0.1:$port/v1/insights" -H 'x-user-id: warmup'
  curl -s -o /dev/null -X POST "http://127.0.0.1:$port/2015-03-31/functions/worker/invocations" -d '{"Records":[]}'
  for run in 1 2 3 4 5; do
    # A new user each run (a first import), then the same file again for that user (a re-import).
    for kind in first again; do
      curl -s -o target/import-answer.json -w "import $kind (run $run): %{time_total} s, HTTP %{http_code}\n" \
        -X POST "$url" -H "x-user-id: bench-import-$run" -H 'content-type: text/csv' --data-binary @target/strong-5000.csv
    done
  done
  python3 -c "import json; a=json.load(open('target/import-answer.json')); print('last answer:', {k: a[k] for k in ('rows','workouts','sets','new_workouts','already_imported','reviews')})"
  peak_rss
}

lifter() {
  release
  export TABLE_NAME=CoachBench
  start_local_stack --release target/bench-watch.log
  trap stop_local_stack RETURN EXIT  # EXIT too: a failed step ends the script (set -e)
  ./target/release/devstack strong-sample --rows 5000 --last-day "$(date -u +%F)" > target/strong-5000.csv
  local base="http://127.0.0.1:$STACK_PORT/v1"
  curl -s -o /dev/null "http://127.0.0.1:$STACK_PORT/2015-03-31/functions/worker/invocations" -d '{"Records":[]}'
  python3 - "$base" target/strong-5000.csv <<'PY'
import http.client, json, statistics, sys, time, urllib.parse
base, csv_path = sys.argv[1], sys.argv[2]
u = urllib.parse.urlparse(base)
conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
def call(method, path, user, body=None, ctype="application/json"):
    headers = {"x-user-id": user}
    if body is not None: headers["content-type"] = ctype
    t0 = time.perf_counter()
    conn.request(method, u.path + path, body=body, headers=headers)
    r = conn.getresponse(); data = r.read()
    return (time.perf_counter() - t0) * 1000, r.status, data
csv = open(csv_path, "rb").read()
def lifter(user):
    ms, status, data = call("POST", "/import/strong?tz=Europe/Berlin", user, csv, "text/csv")
    assert status == 200, data[:300]
    return json.loads(data)
answer = lifter("bench-lifter")
print(f"history: {answer['workouts']} workouts, {answer['sets']} sets imported")
_, _, page = call("GET", "/workouts?limit=20", "bench-lifter")
wid = json.loads(page)["items"][5]["id"]
def series(name, path, n=200):
    call("GET", path, "bench-lifter")  # warm
    times = []
    for _ in range(n):
        ms, status, _ = call("GET", path, "bench-lifter")
        assert status == 200, (path, status)
        times.append(ms)
    times.sort()
    return name, statistics.median(times), times[min(len(times) - 1, len(times) * 99 // 100)]
rows = [series(*a) for a in [
    ("GET /v1/me (baseline: one item)", "/me"),
    ("GET /v1/workouts?limit=20", "/workouts?limit=20"),
    ("GET /v1/workouts/{id}", f"/workouts/{wid}"),
    ("GET /v1/exercises?q=bench pres", "/exercises?q=bench%20pres"),
    ("GET /v1/exercises?muscle=chest", "/exercises?muscle=chest"),
    ("GET /v1/progress/exercises/barbell-bench-press?weeks=12", "/progress/exercises/barbell-bench-press?weeks=12"),
    ("GET /v1/progress/exercises/barbell-bench-press?weeks=104", "/progress/exercises/barbell-bench-press?weeks=104"),
    ("GET /v1/progress/muscles?weeks=12", "/progress/muscles?weeks=12"),
]]
base_p50 = rows[0][1]
for name, p50, p99 in rows:
    print(f"{name}: p50 {p50:.2f} ms, p99 {p99:.2f} ms ({p50 / base_p50:.1f}x baseline)")
for fmt in ["json", "strong_csv"]:
    times, size = [], 0
    for _ in range(10):
        ms, status, data = call("GET", f"/me/export?format={fmt}", "bench-lifter")
        assert status == 200
        times.append(ms); size = len(data)
    print(f"GET /v1/me/export?format={fmt}: median {statistics.median(times):.0f} ms, max {max(times):.0f} ms, {size / 1e6:.2f} MB")
times = []
for run in range(5):
    user = f"bench-delete-{run}"
    lifter(user)
    ms, status, data = call("DELETE", "/me", user)
    left = call("GET", "/workouts?limit=1", user)[2]
    assert json.loads(left)["items"] == [], left
    times.append(ms)
    print(f"DELETE /v1/me (run {run + 1}): {ms:.0f} ms, HTTP {status}, {json.loads(data)}")
print(f"DELETE /v1/me: median {statistics.median(times):.0f} ms over 5 accounts")
PY
  peak_rss
}

sync() {
  release
  export TABLE_NAME=CoachBench
  start_local_stack --release target/bench-watch.log
  trap stop_local_stack RETURN EXIT  # EXIT too: a failed step ends the script (set -e)
  local base="http://127.0.0.1:$STACK_PORT"
  python3 - "$base" <<'PY'
import datetime, http.client, json, statistics, sys, time, urllib.parse
base = sys.argv[1]
u = urllib.parse.urlparse(base)
conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
def call(method, path, user, body=None):
    headers = {"x-user-id": user, "content-type": "application/json"}
    t0 = time.perf_counter()
    conn.request(method, u.path + path, body=None if body is None else json.dumps(body), headers=headers)
    r = conn.getresponse(); data = r.read()
    return (time.perf_counter() - t0) * 1000, r.status, data
template = {"name": "Sync day", "exercises": [
    {"exercise": "squat", "sets": 4, "reps": 5},
    {"exercise": "overhead press", "sets": 3, "reps": 8, "group": "A"},
    {"exercise": "chin-up", "sets": 3, "reps": 8, "group": "A"},
    {"exercise": "romanian deadlift", "sets": 3, "reps": 10}]}
# 20 commands as an offline queue holds them: out of order, extra sets, a superset, notation.
COMMANDS = ["now rdl", "10 @ 80", "80kg x 10", "done", "squat 100x5", "5 @ 100", "done", "done",
            "100kg x 4", "ohp 40kg x 8", "8", "done", "done", "40 x 7", "bw x 6", "rdl 90 x 8",
            "plank 60s", "undo", "next", "ohp 3 sets of 6 @ 35"]
def session(user, at0):
    ms, st, data = call("PUT", "/v1/templates/t-sync", user, template)
    assert st in (200, 201), data
    ms, st, data = call("POST", "/v1/workouts", user, {"template_id": "t-sync"})
    assert st == 201, data
    return json.loads(data)["workout"]["id"]
def batch(user, run):
    now = datetime.datetime.now(datetime.timezone.utc)
    return [{"corr": f"{user}-{i}", "at": (now - datetime.timedelta(seconds=20 - i)).isoformat(),
             "message": m} for i, m in enumerate(COMMANDS)]
# Warm up: the first call to each function starts its process.
call("POST", "/v1/copilot", "bench-warmup", {"message": "next"})
call("GET", "/v1/workouts/active", "bench-warmup")
runs = 60
batch_ms, one_by_one_ms, replay_ms = [], [], []
for run in range(runs):
    user = f"bench-sync-{run}"
    wid = session(user, run)
    cmds = batch(user, run)
    ms, st, data = call("POST", f"/v1/workouts/{wid}/sync", user, {"commands": cmds})
    assert st == 200, data[:300]
    batch_ms.append(ms)
    ms, st, data = call("POST", f"/v1/workouts/{wid}/sync", user, {"commands": cmds})
    # Commands that changed nothing ("next") have no record and are answered afresh.
    assert st == 200 and all(r["status"] in ("replayed", "unchanged") for r in json.loads(data)["results"]), data[:300]
    replay_ms.append(ms)
    # Baseline in the same run: the same 20 commands one request each on /v1/copilot.
    user2 = f"bench-online-{run}"
    session(user2, run)
    t = 0.0
    for c in batch(user2, run):
        ms, st, data = call("POST", "/v1/copilot", user2,
                            {"message": f"(context: corr={c['corr']} at={c['at']}) {c['message']}"})
        assert st == 200, data[:300]
        t += ms
    one_by_one_ms.append(t)
def p(xs, q):
    xs = sorted(xs); return xs[min(len(xs) - 1, len(xs) * q // 100)]
for name, xs in [("sync, 20 commands in one batch", batch_ms),
                 ("the same batch again (all replayed)", replay_ms),
                 ("baseline: the 20 commands one request each on /v1/copilot", one_by_one_ms)]:
    print(f"{name}: median {statistics.median(xs):.1f} ms, p99 {p(xs, 99):.1f} ms over {runs} runs")
print(f"ratio one-by-one / batch (medians): {statistics.median(one_by_one_ms) / statistics.median(batch_ms):.1f}")
PY
  peak_rss
}

load() {
  release
  local db_port
  db_port=$(free_port)
  setsid dynoxide --host 127.0.0.1 --port "$db_port" --log quiet & local dyn=$!
  trap 'kill -TERM -- -'"$dyn"' 2>/dev/null || true' RETURN
  wait_port "$db_port"
  TABLE_NAME=CoachLoad AWS_ENDPOINT_URL_DYNAMODB="http://127.0.0.1:$db_port" \
    ./target/release/devstack load-fast --procs "${PROCS:-20}" --commands "${COMMANDS:-500}" --users "${USERS:-20}" target/release/fast
  slow
}

profile() {
  release
  echo "as deployed (the SDK and reqwest find the platform's certificates themselves):"
  ./target/release/devstack init-profile --runs "${RUNS:-20}"
  echo "with SSL_CERT_FILE naming the bundle (what the template sets):"
  ./target/release/devstack init-profile --runs "${RUNS:-20}" --env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt
}

fanout() {
  cargo build --release --quiet -p devstack
  local db_port sqs_port
  db_port=$(free_port)
  sqs_port=$(free_port)
  setsid dynoxide --host 127.0.0.1 --port "$db_port" --log quiet & local dyn=$!
  # A fake SQS (JSON protocol): accepts every message, counts them, answers as SQS does.
  setsid python3 - "$sqs_port" <<'PY' & local sqs=$!
import hashlib, http.server, json, sys, uuid
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])) or b"{}")
        target = self.headers.get("x-amz-target", "")
        md5 = lambda b: hashlib.md5(b.encode()).hexdigest()
        if target.endswith("SendMessageBatch"):
            out = {"Successful": [{"Id": e["Id"], "MessageId": str(uuid.uuid4()), "MD5OfMessageBody": md5(e["MessageBody"])} for e in body["Entries"]], "Failed": []}
        elif target.endswith("SendMessage"):
            out = {"MessageId": str(uuid.uuid4()), "MD5OfMessageBody": md5(body["MessageBody"])}
        else:
            self.send_response(400); self.end_headers(); return
        data = json.dumps(out).encode()
        self.send_response(200)
        self.send_header("content-type", "application/x-amz-json-1.0")
        self.send_header("content-length", str(len(data)))
        self.end_headers(); self.wfile.write(data)
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
  trap 'kill -TERM -- -'"$dyn"' -'"$sqs"' 2>/dev/null || true' RETURN
  wait_port "$db_port"
  wait_port "$sqs_port"
  export TABLE_NAME=CoachFanout AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench \
    AWS_ENDPOINT_URL_DYNAMODB="http://127.0.0.1:$db_port" AWS_ENDPOINT_URL_SQS="http://127.0.0.1:$sqs_port" \
    QUEUE_URL="http://127.0.0.1:$sqs_port/000000000000/coach-jobs"
  ./target/release/devstack fanout --seed --lifters "${LIFTERS:-100000}"
  /usr/bin/time -v ./target/release/devstack fanout --lifters "${LIFTERS:-100000}" 2> >(grep -E "Maximum resident|Elapsed" >&2)
}

replay() {
  cargo build --release --quiet -p devstack
  # shellcheck disable=SC2086
  ./target/release/devstack replay tests/data/exports/*.csv ${EXPORTS:-}
}

coaching() {
  cargo build --release --quiet -p devstack
  # shellcheck disable=SC2086
  ./target/release/devstack coaching --split all ${EXPORTS:-}
}

case "${1:-all}" in
  micro) micro ;; size) size ;; cold) cold ;; e2e) e2e ;; slow) slow ;; import) import ;;
  load) load ;; profile) profile ;; replay) replay ;; lifter) lifter ;; sync) sync ;;
  coaching) coaching ;; fanout) fanout ;;
  qwen) ./scripts/eval-qwen.sh ;;
  all) micro; size; cold; profile; e2e; slow; import; lifter; sync; load; replay; coaching; fanout ;;
  *) echo "usage: scripts/bench.sh [micro|size|cold|profile|e2e|slow|import|lifter|sync|load|replay|coaching|fanout]"; exit 2 ;;
esac
