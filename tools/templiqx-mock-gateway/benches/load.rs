//! Load benchmark: the release gateway binary under 64 concurrent
//! keep-alive connections on loopback.
//!
//! ```text
//! cargo bench -p templiqx-mock-gateway --bench load
//! ```
//!
//! It starts `templiqx-mock-gateway --listen 127.0.0.1:0` on the scenario
//! root `LOAD_SCENARIO_ROOT` (default: the project's own
//! `examples/crm3/scenarios`; point it at the external corpus's
//! `crm3/scenarios` to load that one), opens `LOAD_CONNECTIONS` (64) HTTP/1.1 connections with hyper, and on
//! each sends `POST /v1/scenarios/{id}/execute` back to back for a 1 s
//! warm-up and then `LOAD_SECONDS` (10) measured seconds. The scenario is
//! `LOAD_SCENARIO` (default `lease-happy-path`: a success, the most work
//! per request — render, replay, output validation, three fingerprints),
//! or `all` to rotate through every scenario. Every answer must be a 200
//! whose body names the scenario; anything else counts as an error.
//!
//! It prints requests/s, latency percentiles, errors, and the gateway's
//! memory read from `/proc/<pid>/status` every 100 ms (VmRSS at the start
//! and end of the measured run, and VmHWM, the peak). The client shares
//! the machine with the server, so the figures are for both together.
//! Bounded: the run stops by itself, then the gateway gets SIGTERM.

use http_body_util::{BodyExt, Empty};
use hyper::Request;
use hyper::body::Bytes;
use hyper_util::rt::TokioIo;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() -> Result<(), BoxError> {
    let connections: usize = env_or("LOAD_CONNECTIONS", 64);
    let seconds: u64 = env_or("LOAD_SECONDS", 10).min(120);
    let scenario: String = env_or("LOAD_SCENARIO", "lease-happy-path".to_owned());
    let client_threads: usize = env_or("LOAD_CLIENT_THREADS", 1);
    let root: std::path::PathBuf = std::env::var_os("LOAD_SCENARIO_ROOT")
        .map(Into::into)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/crm3/scenarios")
        });

    let mut gateway = Gateway::start(&root)?;
    let pid = gateway.child.id();
    let paths: Vec<String> = if scenario == "all" {
        gateway
            .ids
            .iter()
            .map(|id| format!("/v1/scenarios/{id}/execute"))
            .collect()
    } else {
        vec![format!("/v1/scenarios/{scenario}/execute")]
    };
    println!(
        "load: gateway pid {pid} on {} ({}), {connections} connections, {seconds} s, scenario {scenario}, {client_threads} client thread(s)",
        gateway.addr,
        root.display()
    );

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(client_threads.max(1))
        .enable_all()
        .build()?;
    let report = runtime.block_on(drive(
        gateway.addr.clone(),
        Arc::new(paths),
        connections,
        Duration::from_secs(seconds),
        pid,
    ))?;
    gateway.stop()?;
    let errors = report.errors;
    report.print(seconds);
    if errors > 0 {
        return Err(format!("{errors} requests failed").into());
    }
    Ok(())
}

struct Gateway {
    child: Child,
    addr: String,
    ids: Vec<String>,
}

impl Gateway {
    fn start(root: &Path) -> Result<Gateway, BoxError> {
        let mut child = Command::new(env!("CARGO_BIN_EXE_templiqx-mock-gateway"))
            .args(["--listen", "127.0.0.1:0", "--target", "structured_output"])
            .arg("--scenario-root")
            .arg(root)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        let addr = line
            .trim()
            .rsplit("http://")
            .next()
            .filter(|a| !a.is_empty())
            .ok_or_else(|| format!("the gateway did not start: {line:?}"))?
            .to_owned();
        let ids = inventory_ids(&root.join("inventory.json"))?;
        Ok(Gateway { child, addr, ids })
    }

    fn stop(&mut self) -> Result<(), BoxError> {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()?;
        if !status.success() {
            self.child.kill()?;
        }
        let exit = self.child.wait()?;
        println!("load: gateway exited with {exit}");
        Ok(())
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        // Never leave the server running, whatever happened.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn inventory_ids(path: &Path) -> Result<Vec<String>, BoxError> {
    let inventory: serde_json::Value = serde_json::from_slice(&std::fs::read(path)?)?;
    let ids = inventory["scenarios"]
        .as_array()
        .ok_or("no scenarios")?
        .iter()
        .filter_map(|s| s["id"].as_str().map(str::to_owned))
        .collect();
    Ok(ids)
}

#[derive(Default)]
struct Report {
    latencies_us: Vec<u32>,
    errors: u64,
    first_error: Option<String>,
    rss_start_kib: u64,
    rss_end_kib: u64,
    rss_max_kib: u64,
    hwm_kib: u64,
    elapsed: Duration,
    /// CPU seconds (user + system) the gateway and this client used during
    /// the measured run.
    server_cpu_s: f64,
    client_cpu_s: f64,
}

impl Report {
    fn print(mut self, seconds: u64) {
        self.latencies_us.sort_unstable();
        let n = self.latencies_us.len();
        let pct = |p: f64| -> f64 {
            if n == 0 {
                return f64::NAN;
            }
            let i = ((p / 100.0) * n as f64).ceil() as usize;
            f64::from(self.latencies_us[i.clamp(1, n) - 1]) / 1000.0
        };
        let secs = self.elapsed.as_secs_f64();
        println!(
            "load: {n} requests in {secs:.2} s (target {seconds} s): {:.0} requests/s, {} errors",
            n as f64 / secs,
            self.errors
        );
        if let Some(e) = &self.first_error {
            println!("load: first error: {e}");
        }
        println!(
            "load: latency ms: p50 {:.3}, p90 {:.3}, p99 {:.3}, p99.9 {:.3}, max {:.3}",
            pct(50.0),
            pct(90.0),
            pct(99.0),
            pct(99.9),
            pct(100.0)
        );
        println!(
            "load: gateway memory KiB: VmRSS {} at start, {} at end, {} max sampled; VmHWM (peak) {}",
            self.rss_start_kib, self.rss_end_kib, self.rss_max_kib, self.hwm_kib
        );
        let per_request = |cpu: f64| cpu * 1e6 / n.max(1) as f64;
        println!(
            "load: CPU per request: gateway {:.1} us, client {:.1} us (gateway {:.2} of {secs:.2} s per core-second budget: {:.0}% of 2 cores)",
            per_request(self.server_cpu_s),
            per_request(self.client_cpu_s),
            self.server_cpu_s,
            self.server_cpu_s / secs / 2.0 * 100.0
        );
    }
}

/// User + system CPU seconds of `pid` (`/proc/<pid>/stat`, fields 14 and
/// 15, in clock ticks of 1/100 s on Linux).
fn cpu_seconds(pid: u32) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    // The command name may hold spaces: fields are counted after its `)`.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // After `)`: state is field 3, so utime (14) and stime (15) are 11, 12.
    (ticks(11) + ticks(12)) / 100.0
}

/// `(VmRSS, VmHWM)` of `pid`, in KiB.
fn memory(pid: u32) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

async fn drive(
    addr: String,
    paths: Arc<Vec<String>>,
    connections: usize,
    measure: Duration,
    pid: u32,
) -> Result<Report, BoxError> {
    let warmup = Duration::from_secs(1);
    let measuring = Arc::new(AtomicBool::new(false));
    let stop = Arc::new(AtomicBool::new(false));
    let mut tasks = Vec::with_capacity(connections);
    for c in 0..connections {
        let (addr, paths) = (addr.clone(), Arc::clone(&paths));
        let (measuring, stop) = (Arc::clone(&measuring), Arc::clone(&stop));
        tasks.push(tokio::spawn(async move {
            connection(c, &addr, &paths, &measuring, &stop).await
        }));
    }
    tokio::time::sleep(warmup).await;
    let rss_start = memory(pid).map_or(0, |m| m.0);
    let (server_cpu, client_cpu) = (cpu_seconds(pid), cpu_seconds(std::process::id()));
    measuring.store(true, Ordering::SeqCst);
    let started = Instant::now();
    let mut rss_max = rss_start;
    let mut rss_end = rss_start;
    while started.elapsed() < measure {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if let Some((rss, _)) = memory(pid) {
            rss_max = rss_max.max(rss);
            rss_end = rss;
        }
    }
    stop.store(true, Ordering::SeqCst);
    let elapsed = started.elapsed();
    let server_cpu_s = cpu_seconds(pid) - server_cpu;
    let client_cpu_s = cpu_seconds(std::process::id()) - client_cpu;
    let mut report = Report {
        rss_start_kib: rss_start,
        rss_end_kib: rss_end,
        rss_max_kib: rss_max,
        hwm_kib: memory(pid).map_or(0, |m| m.1),
        elapsed,
        server_cpu_s,
        client_cpu_s,
        ..Report::default()
    };
    for task in tasks {
        let (latencies, errors, first_error) = task.await?;
        report.latencies_us.extend(latencies);
        report.errors += errors;
        if report.first_error.is_none() {
            report.first_error = first_error;
        }
    }
    Ok(report)
}

/// One keep-alive connection sending requests back to back until `stop`;
/// latencies are recorded while `measuring`.
async fn connection(
    index: usize,
    addr: &str,
    paths: &[String],
    measuring: &AtomicBool,
    stop: &AtomicBool,
) -> (Vec<u32>, u64, Option<String>) {
    let mut latencies = Vec::with_capacity(1 << 16);
    let mut errors = 0;
    let mut first_error = None;
    let mut fail = |e: String, errors: &mut u64| {
        *errors += 1;
        if first_error.is_none() {
            first_error = Some(e);
        }
    };
    let stream = match tokio::net::TcpStream::connect(addr).await {
        Ok(s) => s,
        Err(e) => {
            fail(format!("connect: {e}"), &mut errors);
            return (latencies, errors, first_error);
        }
    };
    let _ = stream.set_nodelay(true);
    let (mut sender, conn) = match hyper::client::conn::http1::handshake(TokioIo::new(stream)).await
    {
        Ok(pair) => pair,
        Err(e) => {
            fail(format!("handshake: {e}"), &mut errors);
            return (latencies, errors, first_error);
        }
    };
    tokio::spawn(conn);
    let mut i = index;
    while !stop.load(Ordering::Relaxed) {
        let path = &paths[i % paths.len()];
        i += 1;
        let request = match Request::post(path.as_str())
            .header("host", addr)
            .body(Empty::<Bytes>::new())
        {
            Ok(r) => r,
            Err(e) => {
                fail(format!("request: {e}"), &mut errors);
                break;
            }
        };
        let start = Instant::now();
        if let Err(e) = sender.ready().await {
            fail(format!("connection: {e}"), &mut errors);
            break;
        }
        let outcome = match sender.send_request(request).await {
            Ok(response) => {
                let status = response.status();
                match response.into_body().collect().await {
                    Ok(body) => {
                        let body = body.to_bytes();
                        if status == 200 && body.starts_with(b"{\"api_version\"") {
                            Ok(())
                        } else {
                            Err(format!(
                                "status {status}: {}",
                                String::from_utf8_lossy(&body)
                            ))
                        }
                    }
                    Err(e) => Err(format!("body: {e}")),
                }
            }
            Err(e) => Err(format!("send: {e}")),
        };
        let micros = u32::try_from(start.elapsed().as_micros()).unwrap_or(u32::MAX);
        match outcome {
            Ok(()) => {
                if measuring.load(Ordering::Relaxed) {
                    latencies.push(micros);
                }
            }
            Err(e) => {
                fail(e, &mut errors);
                break;
            }
        }
    }
    (latencies, errors, first_error)
}
