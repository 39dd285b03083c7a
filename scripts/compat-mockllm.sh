#!/usr/bin/env bash
# Opt-in compatibility check of templiqx-openai and templiqx-anthropic
# against mockllm, a third-party mock of both wire formats published on PyPI.
# Never run by CI. See docs/adapters.md, "Tests".
#
# mockllm answers the last user message with a text configured in a YAML
# file; the script maps the CRM3 extraction's rendered user message to its
# eval output, then runs `templiqx run` through both adapters, plain and
# streamed, and prints one line per run (ok, code, attempts, tokens).
#
# Environment: TEMPLIQX_COMPAT_VENV (default /tmp/templiqx-compat-venv),
# TEMPLIQX_COMPAT_PORT (8766).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
venv=${TEMPLIQX_COMPAT_VENV:-/tmp/templiqx-compat-venv}
port=${TEMPLIQX_COMPAT_PORT:-8766}
work=$(mktemp -d)

if [ ! -x "$venv/bin/mockllm" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet mockllm
fi
cd "$root"
cargo build --locked --quiet -p templiqx-cli
contract=examples/crm3/contracts/lease-term-extraction.yaml
request=examples/crm3/evals/extraction-request.json
target/debug/templiqx render "$contract" -r "$request" -t structured_output --format json \
  >"$work/rendered.json"
python3 - "$work/rendered.json" examples/crm3/evals/extraction-output.json "$work/responses.yml" <<'PY'
import json, sys
rendered = json.load(open(sys.argv[1]))["result"]
user = [m["content"] for m in rendered["messages"] if m["role"] == "user"][-1]
output = json.dumps(json.load(open(sys.argv[2])), separators=(",", ":"))
# JSON is a subset of YAML: write the mapping as JSON.
json.dump({"responses": {user: output}, "defaults": {"unknown_response": "no mapping"}},
          open(sys.argv[3], "w"))
PY

"$venv/bin/mockllm" start --responses "$work/responses.yml" --host 127.0.0.1 --port "$port" \
  >"$work/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 60); do
  if curl -s -o /dev/null "http://127.0.0.1:$port/"; then break; fi
  if ! kill -0 "$server" 2>/dev/null; then cat "$work/server.log"; exit 1; fi
  sleep 0.5
done

summarise() {
  python3 -c '
import json, sys
r = json.loads(sys.stdin.readline())
res = r.get("result") or {}
diag = r["diagnostics"][0] if r["diagnostics"] else {}
fields = [sys.argv[1].ljust(18), "ok=%s" % r["ok"], "code=%s" % diag.get("code", "-"),
          "attempts=%s" % res.get("attempts"), "usage=%s" % res.get("usage"),
          "latency_ms=%s" % res.get("latency_ms"), diag.get("message", "")[:100]]
print(" ".join(fields))
' "$1"
}
for provider in openai anthropic; do
  case $provider in
    openai) base="http://127.0.0.1:$port/v1"; extra=() ;;
    anthropic) base="http://127.0.0.1:$port"; extra=() ;;
  esac
  for mode in plain stream; do
    flags=()
    [ "$mode" = stream ] && flags=(--stream)
    target/debug/templiqx run "$contract" -r "$request" -t structured_output \
      --provider "$provider" --base-url "$base" --model mock-llm "${extra[@]}" "${flags[@]}" \
      --format json | summarise "$provider/$mode" || true
  done
done
