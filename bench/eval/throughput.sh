#!/usr/bin/env bash
# Throughput and memory of `templiqx eval` against a zero-latency fake
# (docs/benchmarks.md, "`templiqx eval` throughput"; docs/eval.md, "Cost").
#
# 1. builds `templiqx` and `fake-openai` (test-support/fake-provider) in
#    release;
# 2. starts fake-openai on 127.0.0.1 (a free port), answering every
#    `POST /v1/chat/completions` with examples/crm3/evals/extraction-output.json
#    as the message content, from a precomputed body;
# 3. for each N, runs the CRM3 lease-term-extraction fixture N times through
#    the OpenAI adapter, --concurrency 64, caching off, history on (a fresh
#    SQLite file per N), under `/usr/bin/time -v`;
# 4. checks that the run really executed — the JSON result counts N
#    executions at pass rate 1.0, the fake answered N requests, the history
#    holds N execution rows (and 5 check rows each), read with python3's
#    sqlite3 module — and prints the wall time, executions/s, peak RSS,
#    the resident set sampled once a second during the run, and the CPU
#    time of templiqx and of the fake per N; then the marginal rate between the
#    smallest and largest N (start-up and final statistics cancel out), and
#    the RSS of the largest N over that of the smallest (flat memory: ~1.0).
#
# Client and server run on the same machine and share its cores; the fake
# uses one tokio thread (THROUGHPUT_SERVER_THREADS), `templiqx eval` its
# own current-thread runtime.
#
# Environment: THROUGHPUT_NS (the repeat counts, default "10000 100000"),
# THROUGHPUT_CONCURRENCY (64), THROUGHPUT_SERVER_THREADS (1),
# THROUGHPUT_KEEP (set to 1 to keep the scratch directory: histories,
# results, /usr/bin/time reports), THROUGHPUT_NO_BUILD (set to 1 to use
# the binaries already in target/release).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
ns=${THROUGHPUT_NS:-10000 100000}
concurrency=${THROUGHPUT_CONCURRENCY:-64}
server_threads=${THROUGHPUT_SERVER_THREADS:-1}
output_file="$root/examples/crm3/evals/extraction-output.json"
work=$(mktemp -d "${TMPDIR:-/tmp}/templiqx-eval-throughput.XXXXXX")
fake_pid=
timed=

cleanup() {
  # A run cut short: templiqx (under /usr/bin/time) stops too.
  if [ -n "$timed" ] && kill -0 "$timed" 2>/dev/null; then
    child=$(pgrep -P "$timed" -x templiqx || true)
    if [ -n "$child" ]; then kill "$child" 2>/dev/null || true; fi
    wait "$timed" 2>/dev/null || true
  fi
  if [ -n "$fake_pid" ]; then
    kill "$fake_pid" 2>/dev/null || true
    wait "$fake_pid" 2>/dev/null || true
  fi
  if [ "${THROUGHPUT_KEEP:-0}" = 1 ]; then
    echo "kept $work"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE

if [ ! -x /usr/bin/time ]; then
  echo "error: /usr/bin/time is missing (Debian: apt-get install -y time)" >&2
  exit 2
fi
command -v python3 >/dev/null || { echo "error: python3 is needed" >&2; exit 2; }

if [ "${THROUGHPUT_NO_BUILD:-0}" != 1 ]; then
  echo "== building templiqx and fake-openai (release)"
  (cd "$root" && cargo build --release --quiet -p templiqx-cli --bin templiqx)
  (cd "$root" && cargo build --release --quiet -p templiqx-fake-provider --bin fake-openai)
fi
templiqx="$root/target/release/templiqx"
fake="$root/target/release/fake-openai"

# The files exist before the fake starts: the background job opens its
# redirections only once it is scheduled.
: >"$work/fake.out"
: >"$work/fake.err"
"$fake" "$output_file" --threads "$server_threads" >"$work/fake.out" 2>"$work/fake.err" &
fake_pid=$!
port=
for _ in $(seq 100); do
  port=$(sed -n 's|^listening on http://127\.0\.0\.1:\([0-9]*\)$|\1|p' "$work/fake.out")
  [ -n "$port" ] && break
  kill -0 "$fake_pid" 2>/dev/null || { cat "$work/fake.err" >&2; exit 1; }
  sleep 0.05
done
[ -n "$port" ] || { echo "error: fake-openai did not report its port" >&2; exit 1; }
base="http://127.0.0.1:$port"
# CPU seconds the fake has used so far (utime + stime).
fake_cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$fake_pid/stat"; }
# How many completions the fake has answered (GET /requests, over bash's
# /dev/tcp: cheap enough to sample every second).
answered() {
  local reply
  exec 3<>"/dev/tcp/127.0.0.1/$port"
  printf 'GET /requests HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&3
  reply=$(cat <&3)
  exec 3<&-
  printf '%s\n' "${reply##*$'\n'}"
}

echo "== $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); fake on $base ($server_threads thread(s)); --concurrency $concurrency"
summary="$work/summary.tsv"
: >"$summary"
for n in $ns; do
  db="$work/eval-$n.sqlite"
  before=$(answered)
  fake_before=$(fake_cpu)
  echo "== N = $n (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  # No key: OpenAI-compatible servers on loopback need none.
  OPENAI_API_KEY= /usr/bin/time -v -o "$work/time-$n.txt" \
    "$templiqx" eval "$root/examples/crm3" -t structured_output \
    --provider openai --base-url "$base/v1" --model fake \
    --structured-output json-object-schema --developer-as-system \
    --filter 'lease-term-extraction::*' --repeat "$n" --concurrency "$concurrency" \
    --db "$db" --format json >"$work/result-$n.json" 2>"$work/stderr-$n.txt" &
  timed=$!
  # Once a second: seconds since the start, requests answered, templiqx's
  # resident set (KiB) — memory over the run, not only its peak.
  samples="$work/samples-$n.txt"
  : >"$samples"
  started=$(date +%s.%N)
  while sleep 1 && kill -0 "$timed" 2>/dev/null; do
    child=$(pgrep -P "$timed" -x templiqx || true)
    rss=$( [ -n "$child" ] && awk '/^VmRSS:/ { print $2 }' "/proc/$child/status" 2>/dev/null || true)
    [ -n "$rss" ] || continue
    now=$(date +%s.%N)
    echo "$(awk -v a="$now" -v b="$started" 'BEGIN { printf "%.2f", a - b }') $(( $(answered) - before )) $rss" >>"$samples"
  done
  status=0
  wait "$timed" || status=$?
  if [ "$status" != 0 ]; then
    echo "error: templiqx eval exited with $status" >&2
    cat "$work/stderr-$n.txt" >&2
    head -c 2000 "$work/result-$n.json" >&2
    exit 1
  fi
  after=$(answered)
  fake_used=$(awk -v a="$(fake_cpu)" -v b="$fake_before" 'BEGIN { printf "%.2f", a - b }')
  python3 - "$n" "$work/result-$n.json" "$db" "$work/time-$n.txt" "$((after - before))" "$summary" "$fake_used" "$samples" <<'EOF'
import json, re, sqlite3, sys, os
n, result, db, timing, answered, summary, fake_used, samples = int(sys.argv[1]), *sys.argv[2:]
fake_used = float(fake_used)
answered = int(answered)
r = json.load(open(result))
assert r["ok"], f"the envelope is not ok: {r.get('diagnostics')}"
overall = r["result"]["stats"]["overall"]
problems = []
if overall["executions"] != n:
    problems.append(f"the result counts {overall['executions']} executions, not {n}")
if overall["pass_rate"]["rate"] != 1.0 or overall["schema_valid_rate"]["rate"] != 1.0:
    problems.append(f"pass rate {overall['pass_rate']['rate']}, schema-valid rate {overall['schema_valid_rate']['rate']} (expected 1.0)")
if overall["cached"] != 0:
    problems.append(f"{overall['cached']} executions came from the cache")
if answered != n:
    problems.append(f"the fake answered {answered} requests, not {n}")
conn = sqlite3.connect(db)
rows = conn.execute("SELECT count(*), count(DISTINCT repeat), sum(schema_valid) FROM executions").fetchone()
checks = conn.execute("SELECT count(*), sum(verdict = 'pass') FROM checks").fetchone()
conn.close()
if rows != (n, n, n):
    problems.append(f"the history holds {rows[0]} executions ({rows[1]} repeat indices, {rows[2]} schema-valid), not {n}")
if checks[0] != 5 * n or checks[1] != 5 * n:
    problems.append(f"the history holds {checks[0]} check verdicts ({checks[1]} passing), not {5 * n}")
if problems:
    sys.exit("error: " + "; ".join(problems))
text = open(timing).read()
wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text).group(1)
seconds = 0.0
for part in wall.split(":"):
    seconds = seconds * 60 + float(part)
rss_kib = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
user = float(re.search(r"User time \(seconds\): (\S+)", text).group(1))
system = float(re.search(r"System time \(seconds\): (\S+)", text).group(1))
size = sum(os.path.getsize(p) for p in (db, db + "-wal") if os.path.exists(p))
print(f"   verified: {n} executions, pass rate 1.0, {answered} requests answered, {rows[0]} history rows, {checks[0]} check rows")
print(f"   wall {seconds:.2f} s, {n / seconds:,.0f} executions/s, peak RSS {rss_kib / 1024:.1f} MiB, history {size / 2**20:.1f} MiB")
print(f"   CPU: templiqx {user:.2f} s user + {system:.2f} s system ({(user + system) / n * 1e6:.0f} us an execution), "
      f"fake-openai {fake_used:.2f} s ({fake_used / n * 1e6:.0f} us a request)")
points = [tuple(float(x) for x in line.split()) for line in open(samples) if line.strip()]
if len(points) >= 4:
    # Resident set after the first second (start-up: compiling the package).
    rss = [p[2] for p in points[1:]]
    q = max(1, len(points) // 4)
    def rate(part):
        (t0, c0, _), (t1, c1, _) = part[0], part[-1]
        return (c1 - c0) / (t1 - t0) if t1 > t0 else float("nan")
    print(f"   over the run ({len(points)} samples, one a second): RSS {min(rss) / 1024:.1f}-{max(rss) / 1024:.1f} MiB; "
          f"{rate(points[:q + 1]):,.0f} executions/s in the first quarter, {rate(points[-q - 1:]):,.0f} in the last")
with open(summary, "a") as f:
    f.write(f"{n}\t{seconds}\t{rss_kib}\t{user + system}\n")
EOF
done

python3 - "$summary" <<'EOF'
import sys
rows = [tuple(float(x) for x in line.split("\t")) for line in open(sys.argv[1]) if line.strip()]
print("== summary")
print(f"{'N':>9}  {'wall s':>8}  {'exec/s':>8}  {'CPU s':>7}  {'peak RSS MiB':>12}")
for n, wall, rss, cpu in rows:
    print(f"{int(n):>9}  {wall:>8.2f}  {n / wall:>8,.0f}  {cpu:>7.2f}  {rss / 1024:>12.1f}")
if len(rows) >= 2:
    (n0, w0, r0, _), (n1, w1, r1, _) = rows[0], rows[-1]
    if w1 > w0:
        print(f"marginal rate N = {int(n0)} -> {int(n1)}: {(n1 - n0) / (w1 - w0):,.0f} executions/s")
    print(f"peak RSS at N = {int(n1)} over N = {int(n0)}: {r1 / r0:.2f}")
slowest = min(n / wall for n, wall, _, _ in rows)
print(f"goal >= 1,000 executions/s: {'met' if slowest >= 1000 else 'missed'} (slowest {slowest:,.0f}/s)")
EOF
