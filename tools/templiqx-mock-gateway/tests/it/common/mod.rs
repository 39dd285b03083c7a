//! Test support: the gateway binary on an ephemeral loopback port, a raw
//! HTTP/1.1 client (so tests can send what no well-behaved client would),
//! and corpus copies.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// The external corpus's scenario root, or `None` after a visible skip
/// line when the external corpus is absent outside CI.
pub fn external_root() -> Option<PathBuf> {
    templiqx_conformance_suites::locate(templiqx_conformance_suites::Suite::Corpus)
        .map(|c| c.join("crm3/scenarios"))
}

/// The project's own corpus's scenario root.
pub fn own_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/crm3/scenarios")
}

pub const BIN: &str = env!("CARGO_BIN_EXE_templiqx-mock-gateway");

/// A running gateway; killed on drop if still running.
pub struct Gateway {
    pub child: Child,
    pub addr: String,
    stderr: Receiver<String>,
    pub log: Vec<String>,
}

impl Gateway {
    /// Starts the gateway on `root` for the `structured_output` profile
    /// with `extra` arguments and waits for its "listening on" line.
    pub fn start(root: &Path, extra: &[&str]) -> Gateway {
        Gateway::start_with_env(root, extra, &[])
    }

    pub fn start_with_env(root: &Path, extra: &[&str], env: &[(&str, &str)]) -> Gateway {
        let mut command = Command::new(BIN);
        command
            .args(["--listen", "127.0.0.1:0", "--target", "structured_output"])
            .arg("--scenario-root")
            .arg(root)
            .args(extra)
            .env_remove("TEMPLIQX_MOCK_SCENARIO_ROOT")
            .env("RUST_LOG", "info")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command.spawn().expect("the gateway binary starts");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("read stdout");
        let addr = line
            .trim()
            .strip_prefix("templiqx-mock-gateway listening on http://")
            .unwrap_or_else(|| {
                let _ = child.kill();
                let log: Vec<String> = rx.try_iter().collect();
                panic!("no listening line: {line:?}; stderr: {log:#?}")
            })
            .to_owned();
        Gateway {
            child,
            addr,
            stderr: rx,
            log: Vec::new(),
        }
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Waits (at most 10 s) for a stderr line containing `needle`.
    pub fn wait_for_log(&mut self, needle: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if self.log.iter().any(|l| l.contains(needle)) {
                return;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.stderr.recv_timeout(left) {
                Ok(line) => self.log.push(line),
                Err(_) => panic!("no log line with {needle:?}; log: {:#?}", self.log),
            }
        }
    }

    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
    }

    /// Waits (at most 10 s) for the process to exit.
    pub fn wait_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(Instant::now() < deadline, "the gateway did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Gateway {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Runs the binary to completion (for start-up failures).
pub fn run_to_exit(args: &[&str], env: &[(&str, &str)]) -> (ExitStatus, String, String) {
    let mut command = Command::new(BIN);
    command
        .args(args)
        .env_remove("TEMPLIQX_MOCK_SCENARIO_ROOT")
        .stdin(Stdio::null());
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // A gateway that wrongly starts would run forever: bound the wait.
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if child.try_wait().expect("try_wait").is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the gateway did not exit: {args:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("output");
    (
        output.status,
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A raw HTTP answer.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", String::from_utf8_lossy(&self.body)))
    }

    /// Asserts a JSON error body with `code` and the status, and that the
    /// body is exactly `{"error": {"code", "message"}}`.
    pub fn assert_error(&self, status: u16, code: &str) {
        assert_eq!(self.status, status, "{self:?}");
        assert_eq!(self.header("content-type"), Some("application/json"));
        let body = self.json();
        assert_eq!(body["error"]["code"], code, "{body}");
        assert!(body["error"]["message"].is_string(), "{body}");
        assert_eq!(body.as_object().map(|o| o.len()), Some(1), "{body}");
        assert_eq!(
            body["error"].as_object().map(|o| o.len()),
            Some(2),
            "{body}"
        );
    }
}

/// Sends `head` (request line and headers, without the blank line; a
/// `Connection: close` and, for a body, `Content-Length` are added) and
/// `body`, and reads the whole answer.
pub fn request(addr: &str, head: &str, body: &[u8]) -> Answer {
    let mut stream = connect(addr);
    let mut bytes = format!(
        "{head}\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    bytes.extend_from_slice(body);
    stream.write_all(&bytes).expect("send");
    read_answer(&mut stream)
}

/// `POST /v1/scenarios/{raw_id}/execute` with `body`; `raw_id` is sent as
/// written (no encoding).
pub fn execute(addr: &str, raw_id: &str, body: &[u8]) -> Answer {
    request(
        addr,
        &format!("POST /v1/scenarios/{raw_id}/execute HTTP/1.1"),
        body,
    )
}

pub fn connect(addr: &str) -> TcpStream {
    let stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    stream
}

/// Reads one answer; the server closes the connection after it.
pub fn read_answer(stream: &mut TcpStream) -> Answer {
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read the answer");
    parse_answer(&raw)
}

pub fn parse_answer(raw: &[u8]) -> Answer {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no head: {:?}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect();
    let body = raw[split + 4..].to_vec();
    let answer = Answer {
        status,
        headers,
        body,
    };
    // (A HEAD answer announces the length of a body it does not carry.)
    if let Some(len) = answer
        .header("content-length")
        .filter(|_| !answer.body.is_empty())
    {
        assert_eq!(len.parse::<usize>().ok(), Some(answer.body.len()));
    }
    answer
}

/// A temporary copy of the project's own corpus package; returns the
/// directory and the copy's scenario root.
pub fn own_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    templiqx_conformance_suites::copy_tree(&own_root().join(".."), &dir.path().join("crm3"));
    let root = dir.path().join("crm3/scenarios");
    (dir, root)
}

/// Edits the inventory under `root` with `edit`.
pub fn edit_inventory(root: &Path, edit: impl FnOnce(&mut Value)) {
    let path = root.join("inventory.json");
    let mut inventory: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    edit(&mut inventory);
    std::fs::write(&path, inventory.to_string()).unwrap();
}
