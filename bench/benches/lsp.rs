//! (c) `templiqx lsp` over stdio: the time from `textDocument/didChange` to
//! the `textDocument/publishDiagnostics` of that document version, and the
//! server's memory over many edits (`docs/benchmarks.md`, "`templiqx lsp`
//! latency and memory").
//!
//! The server is this binary run again as a child process with
//! [`SERVER_ENV`] set, which makes it call `templiqx_lsp::run_stdio` — what
//! `templiqx lsp` runs — on its real standard input and output. The client
//! side writes and reads the protocol's framed JSON-RPC messages on those
//! pipes (`lsp_server::Message`), as an editor does.
//!
//! Each scenario initialises the server with the target profile
//! `structured_output` (`initializationOptions.target`), opens the
//! extraction contract of a package copied into a temporary directory and
//! edits it incrementally: every odd edit renames `inputs.clause_id` in one
//! interpolation to `inputs.nmae` (one `TQX_REF_UNKNOWN`), every even edit
//! renames it back (no diagnostics), so each edit changes the diagnostics
//! and the answer to each is checked, not only awaited. Scenarios:
//!
//! * `crm3`: `examples/crm3` (two contracts and a partial);
//! * `generated-100`: the same package with 100 contracts instead of two,
//!   50 copies of each CRM3 contract under distinct ids, all including the
//!   one partial and listed in `templiqx.yaml`;
//! * `memory`: `crm3` again, edited 10,000 times; the server's `VmRSS` is
//!   read from `/proc/PID/status` after the open and after 100, 1,000,
//!   5,000 and 10,000 edits, and its `VmHWM` at the end;
//! * `cancel`: typing in a 1 MB contract (the extraction contract grown
//!   with extra user messages), with and without completions the editor
//!   cancels. A burst is a round of typing written to the server back to
//!   back: one edit deletes `clause_id` of the reference `inputs.clause_id`,
//!   then `clause_id` is typed one character per edit. With completions,
//!   each typed character is followed by a `textDocument/completion` at the
//!   cursor, and each later message by the `$/cancelRequest` of the
//!   completion before it, as an editor sends them while one types; the
//!   last completion is cancelled too. A burst is timed from the first
//!   write to the diagnostics of its last version (clean again) and, with
//!   completions, the answers to all of them (a result, `-32800` or
//!   `-32801`, counted apart). Both modes run on one server each, after a
//!   warm-up burst; the figure is the median burst and the ratio of the two
//!   medians (goal: within 2×).
//!
//! Latency is in milliseconds, percentiles by nearest rank, warm-up edits
//! excluded; beside it, the CPU time the server's threads used per timed
//! edit (`/proc/PID/task/*/schedstat`), which a busy machine does not
//! inflate as it does the latency.
//!
//! Run with `cargo bench -p templiqx-bench --bench lsp [-- NAME…]` (names
//! select scenarios). The timed edits are 1,000 on `crm3` and 200 on
//! `generated-100`, after 20 warm-up edits; `LSP_BENCH_EDITS` (timed edits
//! of both), `LSP_BENCH_WARMUP` and `LSP_BENCH_MEMORY_EDITS` override the
//! counts. `cancel` times 7 bursts of 2 rounds per mode in a contract of at
//! least 1,000,000 bytes, keystrokes back to back: `LSP_BENCH_BURSTS`,
//! `LSP_BENCH_ROUNDS`, `LSP_BENCH_LARGE_BYTES` and `LSP_BENCH_KEYSTROKE_MS`
//! (a pause before each keystroke but the first) override them.
//! `LSP_BENCH_SERVER_EXE` runs another build of this benchmark as the
//! server (one of an earlier commit, to measure a change with one client). Without `--bench` (as `cargo test --benches` runs it) every
//! scenario makes a few edits only, to check that the harness still works.

use lsp_server::{Message, Notification, Request, RequestId};
use lsp_types::Url;
use serde_json::{Value, json};
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// Set in the child's environment: the child serves the protocol on its
/// standard input and output instead of running the benchmark.
const SERVER_ENV: &str = "TEMPLIQX_LSP_BENCH_SERVER";

/// When set, the path of another build of this benchmark to run as the
/// server (a build of an earlier commit, say): the client stays this one.
const SERVER_EXE: &str = "LSP_BENCH_SERVER_EXE";

/// How long the client waits for one answer before it declares the server
/// stuck.
const TIMEOUT: Duration = Duration::from_secs(120);

/// The edited contract, relative to the package root.
const EXTRACTION: &str = "contracts/lease-term-extraction.yaml";

/// The reference each edit renames (the `inputs.clause_id` of the user
/// message's interpolation).
const REFERENCE: &str = "inputs.clause_id }";

fn main() {
    if std::env::var_os(SERVER_ENV).is_some() {
        // What `templiqx lsp` runs (no `--target`: the client sends it).
        if let Err(e) = templiqx_lsp::run_stdio(templiqx_lsp::Options::default()) {
            eprintln!("templiqx lsp: {e}");
            std::process::exit(1);
        }
        return;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bench = args.iter().any(|a| a == "--bench");
    let config = Config::from_env(bench);
    let selected: Vec<&str> = args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .map(String::as_str)
        .collect();
    let wanted = |name: &str| selected.is_empty() || selected.iter().any(|s| name.contains(s));

    println!(
        "templiqx lsp over stdio: {} cores, load average {} at the start",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load_average()
    );
    if !bench {
        println!("a smoke run (a few edits, any profile): not a measurement; see `cargo bench`");
    }
    let mut rows = Vec::new();
    if wanted("crm3") {
        let package = Package::crm3();
        rows.push(latency("crm3", &package, &config, config.edits.0, 50.0));
    }
    if wanted("generated-100") {
        let package = Package::generated(100);
        rows.push(latency(
            "generated-100",
            &package,
            &config,
            config.edits.1,
            200.0,
        ));
    }
    if !rows.is_empty() {
        print_latency(&rows, &config);
    }
    if wanted("memory") {
        let package = Package::crm3();
        let report = memory(&package, config.memory_edits);
        print_memory(&report);
    }
    if wanted("cancel") {
        let package = Package::large(config.large_bytes);
        let without = typing(&package, &config, false);
        let with = typing(&package, &config, true);
        print_typing(&package, &config, &[without, with]);
    }
    println!("load average {} at the end", load_average());
}

/// The edit counts of a run.
struct Config {
    /// Timed edits of the `crm3` and `generated-100` scenarios.
    edits: (usize, usize),
    /// Edits made before timing starts (the first compilations, caches).
    warmup: usize,
    /// Edits of the memory scenario.
    memory_edits: usize,
    /// Timed bursts of the cancel scenario, per mode.
    bursts: usize,
    /// Rounds of typing per burst (one deletion, then `clause_id` typed).
    rounds: usize,
    /// The least size of the cancel scenario's contract, in bytes.
    large_bytes: usize,
    /// The pause between two keystrokes of the cancel scenario (0: back
    /// to back).
    keystroke: Duration,
}

impl Config {
    fn from_env(bench: bool) -> Config {
        let var = |name: &str, default: usize| {
            std::env::var(name).map_or(default, |v| {
                v.parse()
                    .unwrap_or_else(|_| panic!("{name}={v}: not a count"))
            })
        };
        if bench {
            Config {
                edits: (var("LSP_BENCH_EDITS", 1_000), var("LSP_BENCH_EDITS", 200)),
                warmup: var("LSP_BENCH_WARMUP", 20),
                memory_edits: var("LSP_BENCH_MEMORY_EDITS", 10_000),
                bursts: var("LSP_BENCH_BURSTS", 7),
                rounds: var("LSP_BENCH_ROUNDS", 2),
                large_bytes: var("LSP_BENCH_LARGE_BYTES", 1_000_000),
                keystroke: Duration::from_millis(var("LSP_BENCH_KEYSTROKE_MS", 0) as u64),
            }
        } else {
            // A smoke run: the harness and the server still work.
            Config {
                edits: (4, 4),
                warmup: 2,
                memory_edits: 100,
                bursts: 1,
                rounds: 1,
                large_bytes: 50_000,
                keystroke: Duration::ZERO,
            }
        }
    }
}

/// A package in a temporary directory.
struct Package {
    _dir: tempfile::TempDir,
    root: PathBuf,
    contracts: usize,
}

impl Package {
    /// A copy of `examples/crm3`.
    fn crm3() -> Package {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let root = dir
            .path()
            .canonicalize()
            .expect("the temporary directory")
            .join("crm3");
        templiqx_conformance_suites::copy_tree(&crm3_source(), &root);
        Package {
            _dir: dir,
            root,
            contracts: 2,
        }
    }

    /// A copy of `examples/crm3` with `n` contracts (`n` even): `n / 2`
    /// copies of each of its two contracts, with ids suffixed `-001`…, the
    /// first extraction copy in the place of the original (so [`EXTRACTION`]
    /// names it), all listed in `templiqx.yaml`.
    fn generated(n: usize) -> Package {
        assert!(n >= 2 && n.is_multiple_of(2), "an even number of contracts");
        let package = Package::crm3();
        let contracts = package.root.join("contracts");
        let mut ids = Vec::with_capacity(n);
        for original in ["lease-term-extraction", "lease-summary-drafting"] {
            let path = contracts.join(format!("{original}.yaml"));
            let text = std::fs::read_to_string(&path).expect("a CRM3 contract");
            std::fs::remove_file(&path).expect("remove the original");
            let own_id = format!("id: {original}\n");
            assert!(text.contains(&own_id), "{original} declares its id");
            for i in 1..=n / 2 {
                let id = if original == "lease-term-extraction" && i == 1 {
                    original.to_owned()
                } else {
                    format!("{original}-{i:03}")
                };
                let copy = text.replacen(&own_id, &format!("id: {id}\n"), 1);
                std::fs::write(contracts.join(format!("{id}.yaml")), copy).expect("write");
                ids.push(id);
            }
        }
        let manifest_path = package.root.join("templiqx.yaml");
        let manifest = std::fs::read_to_string(&manifest_path).expect("the manifest");
        let listed = "contracts:\n  - lease-term-extraction\n  - lease-summary-drafting\n";
        assert!(manifest.contains(listed), "the CRM3 manifest lists both");
        let list: String = ids.iter().map(|id| format!("  - {id}\n")).collect();
        let manifest = manifest.replacen(listed, &format!("contracts:\n{list}"), 1);
        std::fs::write(&manifest_path, manifest).expect("write the manifest");
        Package {
            contracts: n,
            ..package
        }
    }

    /// A copy of `examples/crm3` whose extraction contract is grown to at
    /// least `bytes` bytes with extra user messages (each a text and an
    /// interpolation of `inputs.clause_text`), inserted after its own
    /// messages: [`REFERENCE`] stays where it was.
    fn large(bytes: usize) -> Package {
        let package = Package::crm3();
        let path = package.root.join(EXTRACTION);
        let text = std::fs::read_to_string(&path).expect("the extraction contract");
        let at = text
            .find("\noutput_schema:")
            .expect("the contract's output schema")
            + 1;
        let mut grown = String::with_capacity(bytes + text.len());
        grown.push_str(&text[..at]);
        let mut i = 0;
        while grown.len() + text.len() - at < bytes {
            i += 1;
            grown.push_str(&format!(
                "  - role: user\n    content:\n      - kind: text\n        value: \"Clause {i:06} again: \"\n      - kind: interpolate\n        expression: {{ kind: ref, path: inputs.clause_text }}\n        filters: [trim]\n"
            ));
        }
        grown.push_str(&text[at..]);
        std::fs::write(&path, grown).expect("write the grown contract");
        package
    }

    fn url(&self, rel: &str) -> Url {
        Url::from_file_path(self.root.join(rel)).expect("an absolute path")
    }

    fn text(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).expect("a package file")
    }
}

fn crm3_source() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/crm3")
}

/// The server child and the client's ends of its pipes.
struct Server {
    child: Child,
    input: BufWriter<ChildStdin>,
    /// Messages from the server, each with the instant it was read whole.
    output: Receiver<(Instant, Message)>,
    next_id: i32,
}

impl Server {
    /// Starts the server and completes the handshake with the target
    /// profile `structured_output`.
    fn start() -> Server {
        // Another build of this benchmark as the server, to compare two
        // builds of the server with one client.
        let exe = std::env::var_os(SERVER_EXE).map_or_else(
            || std::env::current_exe().expect("the benchmark's own path"),
            PathBuf::from,
        );
        let mut child = Command::new(exe)
            .env(SERVER_ENV, "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the server");
        let input = BufWriter::new(child.stdin.take().expect("piped stdin"));
        let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let (sender, output) = channel();
        std::thread::spawn(move || {
            while let Ok(Some(message)) = Message::read(&mut stdout) {
                if sender.send((Instant::now(), message)).is_err() {
                    break;
                }
            }
        });
        let mut server = Server {
            child,
            input,
            output,
            next_id: 0,
        };
        server.request(
            "initialize",
            json!({
                "processId": std::process::id(),
                "rootUri": null,
                "capabilities": {},
                "initializationOptions": { "target": ["structured_output"] },
            }),
        );
        server.notify("initialized", json!({}));
        server
    }

    /// Sends a message; returns the instant it was handed to the pipe.
    fn send(&mut self, message: Message) -> Instant {
        message.write(&mut self.input).expect("write to the server");
        self.input.flush().expect("flush to the server");
        Instant::now()
    }

    fn notify(&mut self, method: &str, params: Value) -> Instant {
        self.send(Notification::new(method.to_owned(), params).into())
    }

    /// Sends a request without waiting for its answer; returns its id.
    fn send_request(&mut self, method: &str, params: Value) -> RequestId {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.send(Request::new(id.clone(), method.to_owned(), params).into());
        id
    }

    fn receive(&mut self) -> (Instant, Message) {
        self.output
            .recv_timeout(TIMEOUT)
            .unwrap_or_else(|e| panic!("no message from the server: {e}"))
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.send(Request::new(id.clone(), method.to_owned(), params).into());
        loop {
            if let (_, Message::Response(r)) = self.receive()
                && r.id == id
            {
                return r
                    .response_result
                    .unwrap_or_else(|e| panic!("{method}: {e:?}"));
            }
        }
    }

    /// Waits for the diagnostics of `url` at `version`; returns them and
    /// the instant they were read. Every other file of the package must
    /// stay clean (the scenarios edit only `url`).
    fn diagnostics(&mut self, url: &Url, version: i32) -> (Instant, Vec<Value>) {
        loop {
            let (at, message) = self.receive();
            let Message::Notification(n) = message else {
                continue;
            };
            if n.method != "textDocument/publishDiagnostics" {
                continue;
            }
            let list = n.params["diagnostics"].as_array().cloned();
            let list = list.expect("a diagnostics array");
            if n.params["uri"] != url.as_str() {
                assert_eq!(list, Vec::<Value>::new(), "{}", n.params["uri"]);
            } else if n.params["version"] == version {
                return (at, list);
            }
        }
    }

    /// `VmRSS` and `VmHWM` of the server process, in KiB.
    fn memory(&self) -> (u64, u64) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("/proc/PID/status of the server");
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.trim().strip_suffix("kB"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or_else(|| panic!("{name} in /proc/PID/status"))
        };
        (field("VmRSS:"), field("VmHWM:"))
    }

    /// The CPU time the server's threads have used so far (the first field
    /// of `/proc/PID/task/TID/schedstat`, in nanoseconds, summed).
    fn cpu(&self) -> Duration {
        let tasks = std::fs::read_dir(format!("/proc/{}/task", self.child.id()))
            .expect("/proc/PID/task of the server");
        let nanos = tasks
            .filter_map(|task| {
                let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
                stat.split_whitespace().next()?.parse::<u64>().ok()
            })
            .sum();
        Duration::from_nanos(nanos)
    }

    /// `shutdown`, `exit`, and a clean exit status.
    fn stop(mut self) {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        drop(self.input);
        let status = self.child.wait().expect("wait for the server");
        assert!(status.success(), "the server exited with {status}");
    }
}

/// The document being edited and the two edits that alternate on it.
struct Editor {
    url: Url,
    version: i32,
    /// (line, UTF-16 character) where `clause_id` starts in the reference.
    at: (u32, u32),
}

impl Editor {
    /// Opens the extraction contract and checks that it starts clean.
    fn open(server: &mut Server, package: &Package) -> Editor {
        let url = package.url(EXTRACTION);
        let text = package.text(EXTRACTION);
        let (line, character) = position(&text, REFERENCE);
        server.notify(
            "textDocument/didOpen",
            json!({ "textDocument": {
                "uri": url, "languageId": "yaml", "version": 1, "text": text,
            } }),
        );
        let (_, diagnostics) = server.diagnostics(&url, 1);
        assert_eq!(diagnostics, Vec::<Value>::new(), "the package starts clean");
        Editor {
            url,
            version: 1,
            at: (line, character + "inputs.".len() as u32),
        }
    }

    /// One edit, timed from `didChange` to its diagnostics, which are
    /// checked: one `TQX_REF_UNKNOWN` after an odd edit, none after an even
    /// one.
    fn edit(&mut self, server: &mut Server) -> Duration {
        self.version += 1;
        let breaks = self.version % 2 == 0;
        let (old, new) = if breaks {
            ("clause_id", "nmae")
        } else {
            ("nmae", "clause_id")
        };
        let (line, character) = self.at;
        let range = json!({
            "start": { "line": line, "character": character },
            "end": { "line": line, "character": character + old.len() as u32 },
        });
        let sent = server.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": self.url, "version": self.version },
                "contentChanges": [{ "range": range, "text": new }],
            }),
        );
        let (received, diagnostics) = server.diagnostics(&self.url, self.version);
        let codes: Vec<&str> = diagnostics
            .iter()
            .map(|d| d["code"].as_str().unwrap_or("?"))
            .collect();
        let expected: &[&str] = if breaks { &["TQX_REF_UNKNOWN"] } else { &[] };
        assert_eq!(codes, expected, "version {}", self.version);
        received.duration_since(sent)
    }
}

/// The protocol position (line, UTF-16 character) of the first `needle`.
fn position(text: &str, needle: &str) -> (u32, u32) {
    let offset = text.find(needle).expect("the needle is in the text");
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..offset].matches('\n').count();
    let character = text[line_start..offset].encode_utf16().count();
    (
        u32::try_from(line).expect("a line number"),
        u32::try_from(character).expect("a column"),
    )
}

/// One latency scenario's figures.
struct Latency {
    name: &'static str,
    contracts: usize,
    /// Timed edits, in milliseconds, sorted.
    millis: Vec<f64>,
    /// The server's CPU time per timed edit, in milliseconds (the mean).
    cpu: f64,
    goal: f64,
}

impl Latency {
    /// The nearest-rank percentile `p` (0–100).
    fn percentile(&self, p: f64) -> f64 {
        let n = self.millis.len();
        let rank = ((p / 100.0) * n as f64).ceil() as usize;
        self.millis[rank.clamp(1, n) - 1]
    }
}

fn latency(
    name: &'static str,
    package: &Package,
    config: &Config,
    edits: usize,
    goal: f64,
) -> Latency {
    let mut server = Server::start();
    let mut editor = Editor::open(&mut server, package);
    for _ in 0..config.warmup {
        editor.edit(&mut server);
    }
    let cpu = server.cpu();
    let mut millis: Vec<f64> = (0..edits)
        .map(|_| editor.edit(&mut server).as_secs_f64() * 1e3)
        .collect();
    let cpu = (server.cpu() - cpu).as_secs_f64() * 1e3 / edits.max(1) as f64;
    server.stop();
    millis.sort_by(f64::total_cmp);
    Latency {
        name,
        contracts: package.contracts,
        millis,
        cpu,
        goal,
    }
}

fn print_latency(rows: &[Latency], config: &Config) {
    println!();
    println!(
        "didChange → publishDiagnostics, ms ({} warm-up edits excluded)",
        config.warmup
    );
    println!();
    println!(
        "| package | contracts | edits | p50 | p95 | p99 | max | server CPU per edit | p95 goal | |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for row in rows {
        let p95 = row.percentile(95.0);
        println!(
            "| {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | ≤ {:.0} | {} |",
            row.name,
            row.contracts,
            row.millis.len(),
            row.percentile(50.0),
            p95,
            row.percentile(99.0),
            row.millis.last().copied().unwrap_or(f64::NAN),
            row.cpu,
            row.goal,
            if p95 <= row.goal { "met" } else { "missed" }
        );
    }
}

/// The memory scenario's samples.
struct MemoryReport {
    /// (edits made, `VmRSS` in KiB); the first sample is after the open.
    samples: Vec<(usize, u64)>,
    /// `VmHWM` at the end, in KiB.
    peak: u64,
    elapsed: Duration,
}

fn memory(package: &Package, edits: usize) -> MemoryReport {
    let checkpoints = [100, 1_000, 5_000, 10_000];
    let started = Instant::now();
    let mut server = Server::start();
    let mut editor = Editor::open(&mut server, package);
    let mut samples = vec![(0, server.memory().0)];
    for done in 1..=edits {
        editor.edit(&mut server);
        if checkpoints.contains(&done) || done == edits {
            samples.push((done, server.memory().0));
        }
    }
    let (_, peak) = server.memory();
    server.stop();
    MemoryReport {
        samples,
        peak,
        elapsed: started.elapsed(),
    }
}

fn print_memory(report: &MemoryReport) {
    let mib = |kib: u64| kib as f64 / 1024.0;
    println!();
    println!(
        "server memory over {} edits of crm3 (/proc/PID/status; {:.1} s)",
        report.samples.last().map_or(0, |s| s.0),
        report.elapsed.as_secs_f64()
    );
    println!();
    println!("| edits | VmRSS MiB |");
    println!("|---|---|");
    for (edits, rss) in &report.samples {
        let label = if *edits == 0 {
            "0 (opened)".to_owned()
        } else {
            edits.to_string()
        };
        println!("| {label} | {:.1} |", mib(*rss));
    }
    println!("| VmHWM at the end | {:.1} |", mib(report.peak));
}

/// How the completions of the timed bursts were answered.
#[derive(Clone, Copy, Debug, Default)]
struct Answers {
    /// With a result (computed in full).
    results: usize,
    /// `-32800 RequestCancelled`.
    cancelled: usize,
    /// `-32801 ContentModified`.
    modified: usize,
}

/// One mode of the cancel scenario.
struct Typing {
    completions: bool,
    /// Edits and completions per burst.
    edits: usize,
    requests: usize,
    /// Timed bursts, in milliseconds, sorted.
    millis: Vec<f64>,
    /// From the last keystroke's write to the burst's end, in
    /// milliseconds, sorted.
    tail: Vec<f64>,
    /// The server's CPU time per timed burst, in milliseconds (the mean).
    cpu: f64,
    answers: Answers,
}

/// The median of sorted figures.
fn median(sorted: &[f64]) -> f64 {
    sorted[(sorted.len() - 1) / 2]
}

impl Typing {
    fn median(&self) -> f64 {
        median(&self.millis)
    }
}

/// Opens the large contract on a new server, types one warm-up burst, then
/// `config.bursts` timed ones.
fn typing(package: &Package, config: &Config, completions: bool) -> Typing {
    let mut server = Server::start();
    let mut editor = Editor::open(&mut server, package);
    burst(&mut server, &mut editor, config, completions);
    let cpu = server.cpu();
    let mut answers = Answers::default();
    let mut millis = Vec::new();
    let mut tail = Vec::new();
    let mut shape = (0, 0);
    for _ in 0..config.bursts {
        let (elapsed, after_last, edits, got) =
            burst(&mut server, &mut editor, config, completions);
        millis.push(elapsed.as_secs_f64() * 1e3);
        tail.push(after_last.as_secs_f64() * 1e3);
        answers.results += got.results;
        answers.cancelled += got.cancelled;
        answers.modified += got.modified;
        shape = (edits, got.results + got.cancelled + got.modified);
    }
    let cpu = (server.cpu() - cpu).as_secs_f64() * 1e3 / config.bursts.max(1) as f64;
    server.stop();
    millis.sort_by(f64::total_cmp);
    tail.sort_by(f64::total_cmp);
    Typing {
        completions,
        edits: shape.0,
        requests: shape.1,
        millis,
        tail,
        cpu,
        answers,
    }
}

/// One burst of typing at [`REFERENCE`], keystrokes `config.keystroke`
/// apart (back to back by default): per round,
/// an edit that deletes `clause_id`, then `clause_id` typed one character
/// per edit; with `completions`, a completion at the cursor after each
/// typed character, cancelled (`$/cancelRequest`) before the next message
/// and after the last. Returns the time from the first write to the last
/// of the diagnostics of the burst's last version (checked clean) and the
/// answers to every completion, the time from the last keystroke's write to
/// that end, the number of edits, and the answers.
fn burst(
    server: &mut Server,
    editor: &mut Editor,
    config: &Config,
    completions: bool,
) -> (Duration, Duration, usize, Answers) {
    const WORD: &str = "clause_id";
    let (line, character) = editor.at;
    let at = |k: usize| json!({ "line": line, "character": character + k as u32 });
    let mut sent = Vec::new();
    let mut last: Option<RequestId> = None;
    let mut edits = 0;
    let cancel = |server: &mut Server, last: &mut Option<RequestId>| {
        if let Some(id) = last.take() {
            server.notify("$/cancelRequest", json!({ "id": id }));
        }
    };
    let started = Instant::now();
    let mut last_keystroke = started;
    for _ in 0..config.rounds {
        let mut change = |server: &mut Server, start: usize, end: usize, text: &str| {
            if edits > 0 && !config.keystroke.is_zero() {
                std::thread::sleep(config.keystroke);
            }
            editor.version += 1;
            edits += 1;
            last_keystroke = Instant::now();
            server.notify(
                "textDocument/didChange",
                json!({
                    "textDocument": { "uri": editor.url, "version": editor.version },
                    "contentChanges": [{ "range": { "start": at(start), "end": at(end) }, "text": text }],
                }),
            );
        };
        cancel(server, &mut last);
        change(server, 0, WORD.len(), "");
        for (k, c) in WORD.char_indices() {
            cancel(server, &mut last);
            change(server, k, k, &c.to_string());
            if completions {
                let id = server.send_request(
                    "textDocument/completion",
                    json!({ "textDocument": { "uri": editor.url }, "position": at(k + 1) }),
                );
                sent.push(id.clone());
                last = Some(id);
            }
        }
    }
    cancel(server, &mut last);
    let mut answers = Answers::default();
    let mut answered = 0;
    let mut published = false;
    let mut done = started;
    while !published || answered < sent.len() {
        let (received, message) = server.receive();
        match message {
            Message::Response(r) if sent.contains(&r.id) => {
                match r.response_result.err().map(|e| e.code) {
                    None => answers.results += 1,
                    Some(-32800) => answers.cancelled += 1,
                    Some(-32801) => answers.modified += 1,
                    Some(code) => panic!("completion answered {code}"),
                }
                answered += 1;
                done = received;
            }
            Message::Notification(n) if n.method == "textDocument/publishDiagnostics" => {
                let list = n.params["diagnostics"].as_array().cloned();
                let list = list.expect("a diagnostics array");
                if n.params["uri"] != editor.url.as_str() {
                    assert_eq!(list, Vec::<Value>::new(), "{}", n.params["uri"]);
                } else if n.params["version"] == editor.version {
                    assert_eq!(list, Vec::<Value>::new(), "the burst ends clean");
                    published = true;
                    done = received;
                }
            }
            _ => {}
        }
    }
    (
        done.duration_since(started),
        done.duration_since(last_keystroke),
        edits,
        answers,
    )
}

fn print_typing(package: &Package, config: &Config, modes: &[Typing]) {
    let bytes = std::fs::metadata(package.root.join(EXTRACTION)).map_or(0, |m| m.len());
    println!();
    println!(
        "typing in a contract of {bytes} bytes: bursts of {} round(s), keystrokes {} ms apart, {} timed per mode after 1 warm-up; ms from the first write (and from the last keystroke) to the last diagnostics and answers",
        config.rounds,
        config.keystroke.as_millis(),
        config.bursts
    );
    println!();
    println!(
        "| typing | edits per burst | completions per burst | answered | -32800 | -32801 | median ms | min | max | after the last keystroke, median ms | server CPU per burst ms |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for mode in modes {
        println!(
            "| {} | {} | {} | {} | {} | {} | {:.0} | {:.0} | {:.0} | {:.0} | {:.0} |",
            if mode.completions {
                "with cancelled completions"
            } else {
                "without completions"
            },
            mode.edits,
            mode.requests,
            mode.answers.results,
            mode.answers.cancelled,
            mode.answers.modified,
            mode.median(),
            mode.millis.first().copied().unwrap_or(f64::NAN),
            mode.millis.last().copied().unwrap_or(f64::NAN),
            median(&mode.tail),
            mode.cpu,
        );
    }
    if let [without, with] = modes {
        let ratio = with.median() / without.median();
        println!();
        println!(
            "with / without completions: {ratio:.2}× the median (goal ≤ 2×: {})",
            if ratio <= 2.0 { "met" } else { "missed" }
        );
    }
}

/// The 1-, 5- and 15-minute load averages.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(
        |_| "unknown".to_owned(),
        |l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
    )
}
