//! The client binary end to end: against the gateway (served in-process on
//! an ephemeral loopback port, the same router and connection loop as its
//! binary), and against a fake gateway that answers in the other wire form
//! a host might use (a schema-invalid success), or drifts.

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::mpsc;
use std::thread::JoinHandle;
use templiqx_contracts::{CapabilityProfile, Receipt};
use templiqx_mock_gateway::{Catalog, RouterOptions, ServerOptions, router, serve};

/// The external corpus's scenario root, or `None` after a visible skip
/// line when it is absent outside CI.
fn external_root() -> Option<PathBuf> {
    templiqx_conformance_suites::locate(templiqx_conformance_suites::Suite::Corpus)
        .map(|c| c.join("crm3/scenarios"))
}

fn own_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/crm3/scenarios")
}

/// The gateway for `root` on 127.0.0.1:0, in a thread; stopped on drop.
struct InProcess {
    url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl InProcess {
    fn start(root: &Path) -> InProcess {
        let target = CapabilityProfile::parse_list("structured_output");
        let catalog = Catalog::load(root, &target).unwrap_or_else(|e| panic!("{e}"));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let (addr_tx, addr_rx) = mpsc::channel();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
                addr_tx.send(listener.local_addr().unwrap()).unwrap();
                let app = router(catalog, RouterOptions::default());
                let shutdown = async {
                    let _ = stopped.await;
                };
                serve(listener, app, shutdown, ServerOptions::default())
                    .await
                    .unwrap();
            });
        });
        let addr = addr_rx.recv().unwrap();
        InProcess {
            url: format!("http://{addr}"),
            stop: Some(stop),
            thread: Some(thread),
        }
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn client(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_templiqx-http-conformance"))
        .args(args)
        .env_remove("TEMPLIQX_MOCK_SCENARIO_ROOT")
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn lines(output: &Output) -> Vec<Value> {
    let out = stdout(output);
    let mut lines: Vec<&str> = out.lines().collect();
    lines.pop();
    lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn all_eight_external_scenarios_pass() {
    let Some(root) = external_root() else {
        return;
    };
    let gateway = InProcess::start(&root);
    let output = client(&[
        "--base-url",
        &gateway.url,
        "--all",
        "--scenario-root",
        root.to_str().unwrap(),
    ]);
    let out = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert_eq!(out.lines().last(), Some("8 passed, 0 failed"), "{out}");
    let reports = lines(&output);
    assert_eq!(reports.len(), 8);
    for r in &reports {
        assert_eq!(r["passed"], true, "{r}");
        assert_eq!(r["differs"], json!([]));
        let fields: Vec<&str> = r["checks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["field"].as_str().unwrap())
            .collect();
        assert_eq!(
            fields,
            [
                "http_status",
                "scenario_id",
                "status",
                "diagnostic_code",
                "output_schema_valid",
                "output_fingerprint",
                "receipt_fingerprint",
                "receipt_integrity"
            ]
        );
    }
}

#[test]
fn the_projects_own_corpus_passes_and_the_environment_supplies_the_root() {
    let gateway = InProcess::start(&own_root());
    let output = Command::new(env!("CARGO_BIN_EXE_templiqx-http-conformance"))
        .args(["--base-url", &gateway.url, "--all"])
        .env("TEMPLIQX_MOCK_SCENARIO_ROOT", own_root())
        .output()
        .unwrap();
    let out = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{out}");
    assert_eq!(out.lines().last(), Some("7 passed, 0 failed"), "{out}");
}

#[test]
fn one_scenario_and_an_unknown_id() {
    let gateway = InProcess::start(&own_root());
    let root = own_root();
    let root = root.to_str().unwrap();
    let output = client(&[
        "--base-url",
        &gateway.url,
        "--scenario",
        "lease-invalid-output",
        "--scenario-root",
        root,
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(stdout(&output).lines().last(), Some("1 passed, 0 failed"));
    // An id the inventory does not list fails closed, without a request.
    let output = client(&[
        "--base-url",
        &gateway.url,
        "--scenario",
        "lease-happy-path",
        "--scenario",
        "not-listed",
        "--scenario-root",
        root,
    ]);
    assert_eq!(output.status.code(), Some(1));
    let reports = lines(&output);
    assert_eq!(reports[0]["passed"], true);
    assert_eq!(reports[1]["passed"], false);
    assert!(
        reports[1]["problem"]
            .as_str()
            .unwrap()
            .contains("lists no scenario \"not-listed\"")
    );
    assert_eq!(stdout(&output).lines().last(), Some("1 passed, 1 failed"));
}

#[test]
fn a_receipt_fingerprint_that_drifted_fails_and_inventory_drift_fails_closed() {
    let gateway = InProcess::start(&own_root());
    let dir = tempfile::tempdir().unwrap();
    templiqx_conformance_suites::copy_tree(&own_root().join(".."), &dir.path().join("crm3"));
    let root = dir.path().join("crm3/scenarios");
    let path = root.join("inventory.json");
    let mut inventory: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    // The transport fingerprint is checked only over HTTP.
    inventory["scenarios"][1]["expectation"]["receipt_fingerprint"] = json!("0".repeat(64));
    std::fs::write(&path, inventory.to_string()).unwrap();
    let args = [
        "--base-url",
        &gateway.url,
        "--all",
        "--scenario-root",
        root.to_str().unwrap(),
    ];
    let output = client(&args);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output).lines().last(), Some("6 passed, 1 failed"));
    assert_eq!(lines(&output)[1]["differs"], json!(["receipt_fingerprint"]));
    // Drift between the inventory and a manifest: nothing runs.
    inventory["scenarios"][1]["expectation"]["diagnostic_code"] = json!("TQX_RUNTIME_TIMEOUT");
    std::fs::write(&path, inventory.to_string()).unwrap();
    let output = client(&args);
    assert_eq!(output.status.code(), Some(2));
    assert!(stdout(&output).is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("scenario `lease-happy-path`"), "{stderr}");
}

#[test]
fn an_unreachable_gateway_fails_every_scenario() {
    // A port nobody listens on: bind, read the port, close.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let root = own_root();
    let output = client(&[
        "--base-url",
        &format!("http://127.0.0.1:{port}"),
        "--all",
        "--scenario-root",
        root.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output).lines().last(), Some("0 passed, 7 failed"));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["--all", "--scenario-root", "x"][..],
        &["--base-url", "http://127.0.0.1:1", "--scenario-root", "x"],
        &[
            "--base-url",
            "http://127.0.0.1:1",
            "--all",
            "--scenario",
            "a",
            "--scenario-root",
            "x",
        ],
        &["--base-url", "http://127.0.0.1:1", "--all"],
        &["--base-url", "127.0.0.1:1", "--all", "--scenario-root", "x"],
    ] {
        assert_eq!(client(args).status.code(), Some(2), "{args:?}");
    }
    let help = client(&["--help"]);
    assert!(stdout(&help).contains("not a production client"));
}

/// A fake gateway answering every request with `body` (status 200), for
/// `count` requests.
fn fake_gateway(body: String, count: usize) -> (String, JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let thread = std::thread::spawn(move || {
        for _ in 0..count {
            let (mut stream, _) = listener.accept().unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
                if line == "\r\n" || line.is_empty() {
                    break;
                }
            }
            let mut request_body = vec![0; length];
            reader.read_exact(&mut request_body).unwrap();
            let answer = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            stream.write_all(answer.as_bytes()).unwrap();
        }
    });
    (url, thread)
}

#[test]
fn a_schema_invalid_success_is_normalised_before_comparing() {
    // Another gateway implementation may report the runtime's answer as a
    // success with `output_schema_valid: false` and a success receipt.
    // The fingerprint of `lease-invalid-output`'s inline output.
    let output_fp = "e95fe2fb801cf96c40dc62040fabf2d94f08d1c4716a583d90da3d992edb38e1";
    let request_fp = templiqx_mock::transport_request_fingerprint("lease-term-extraction");
    let raw = Receipt::Success {
        request_fingerprint: request_fp,
        output_fingerprint: output_fp.into(),
        output_schema_valid: false,
        diagnostics: Vec::new(),
    };
    let body = json!({
        "scenario_id": "lease-invalid-output",
        "status": "success",
        "diagnostic_code": null,
        "output_schema_valid": false,
        "fingerprints": {"output": output_fp, "receipt": raw.fingerprint()},
        "receipt": raw,
    })
    .to_string();
    let (url, server) = fake_gateway(body, 1);
    let root = own_root();
    let output = client(&[
        "--base-url",
        &url,
        "--scenario",
        "lease-invalid-output",
        "--scenario-root",
        root.to_str().unwrap(),
    ]);
    server.join().unwrap();
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    assert_eq!(lines(&output)[0]["normalised"], true);
}
