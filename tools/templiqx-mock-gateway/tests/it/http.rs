//! The gateway binary over real loopback HTTP, on the project's own corpus:
//! the conformance client, every bad input, timeouts and graceful shutdown;
//! and the external corpus through the conformance client when it is there.

use crate::common;

use common::{Gateway, execute, external_root, own_root, request};
use serde_json::{Value, json};
use std::io::Write;
use std::time::{Duration, Instant};
use templiqx_contracts::canonical::fingerprint;
use templiqx_http_conformance::{Options, Selection, load_inventory, run};
use templiqx_mock_gateway::MAX_BODY_BYTES;

fn conformance(gateway: &Gateway, root: &std::path::Path) -> String {
    let inventory = load_inventory(root).unwrap_or_else(|e| panic!("{e}"));
    let options = Options {
        base_url: gateway.base_url(),
        selection: Selection::All,
        timeout: Duration::from_secs(10),
    };
    let mut out = Vec::new();
    let summary = run(&inventory, &options, &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(summary.all_passed(), "{out}");
    out
}

#[test]
fn the_external_corpus_reproduces_every_receipt_fingerprint_over_http() {
    let Some(external) = external_root() else {
        return;
    };
    let gateway = Gateway::start(&external, &[]);
    let out = conformance(&gateway, &external);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.last(), Some(&"8 passed, 0 failed"), "{out}");
    // Each report line compared the inventory's receipt fingerprint.
    let inventory: Value =
        serde_json::from_slice(&std::fs::read(external.join("inventory.json")).unwrap()).unwrap();
    for (line, entry) in lines.iter().zip(inventory["scenarios"].as_array().unwrap()) {
        let report: Value = serde_json::from_str(line).unwrap();
        assert_eq!(report["id"], entry["id"]);
        assert_eq!(report["passed"], true, "{line}");
        let check = report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["field"] == "receipt_fingerprint")
            .unwrap();
        assert_eq!(check["actual"], entry["expectation"]["receipt_fingerprint"]);
    }
}

#[test]
fn the_projects_own_corpus_passes_over_http() {
    let gateway = Gateway::start(&own_root(), &[]);
    let out = conformance(&gateway, &own_root());
    assert_eq!(out.lines().last(), Some("7 passed, 0 failed"), "{out}");
}

#[test]
fn health_listing_and_an_execution() {
    let gateway = Gateway::start(&own_root(), &[]);
    for path in ["/health/live", "/health/ready"] {
        let answer = request(&gateway.addr, &format!("GET {path} HTTP/1.1"), b"");
        assert_eq!(answer.status, 200);
        assert_eq!(answer.json(), json!({"status": "ok"}));
    }
    let answer = request(&gateway.addr, "GET /v1/scenarios HTTP/1.1", b"");
    assert_eq!(answer.status, 200);
    let list = answer.json();
    assert_eq!(list["package"], "crm3-example");
    let ids: Vec<&str> = list["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    assert_eq!(ids, sorted);
    assert_eq!(ids.len(), 7);

    // A success with a delay: typed data, virtual time, fingerprints, no
    // payload (the output's fields do not appear anywhere).
    let answer = execute(&gateway.addr, "lease-happy-path", b"");
    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("content-type"), Some("application/json"));
    let body = answer.json();
    assert_eq!(body["status"], "success");
    assert_eq!(body["elapsed_ms"], 40);
    assert_eq!(body["attempts"], 1);
    assert_eq!(body["output_source"], "manifest");
    assert_eq!(
        body["fingerprints"]["receipt"],
        "58598855bd12af6995120388cee7e75b930efa71ed7161e0283e4c92c3e6663d"
    );
    let output: Value = serde_json::from_slice(
        &std::fs::read(own_root().join("../evals/extraction-output.json")).unwrap(),
    )
    .unwrap();
    for key in output.as_object().unwrap().keys() {
        assert!(
            !body.to_string().contains(key.as_str()),
            "payload key {key}"
        );
    }
    // HEAD on a GET route is answered, without a body.
    let answer = request(&gateway.addr, "HEAD /health/live HTTP/1.1", b"");
    assert_eq!(answer.status, 200);
    assert!(answer.body.is_empty());
}

#[test]
fn ids_outside_the_inventory_are_404_with_a_json_body() {
    // A corpus copy holding a well-formed manifest the inventory does not
    // list: a directory that merely exists is not addressable.
    let (_dir, root) = common::own_copy();
    let unlisted = root.join("unlisted");
    std::fs::create_dir(&unlisted).unwrap();
    let manifest = std::fs::read_to_string(root.join("lease-happy-path/manifest.json"))
        .unwrap()
        .replace("\"lease-happy-path\"", "\"unlisted\"");
    std::fs::write(unlisted.join("manifest.json"), manifest).unwrap();
    let gateway = Gateway::start(&root, &[]);
    for raw in [
        "unlisted",
        "nope",
        "LEASE-HAPPY-PATH",
        "..",
        ".",
        "%2E%2E",
        "..%2F..%2Fcrm3",
        "lease-happy-path%2F..",
        "..%2Flease-happy-path",
        "%2Fetc%2Fpasswd",
        "a%5Cb",
        r"a\b",
        r"..\lease-happy-path",
        "lease-happy-path%00",
        "%FF",
        "lease-happy-path%20",
        "inventory.json",
        "",
    ] {
        execute(&gateway.addr, raw, b"").assert_error(404, "scenario_not_found");
    }
    // Paths that match no route at all.
    for path in [
        "/v1/scenarios/lease-happy-path/execute/",
        "/v1/scenarios/../lease-happy-path/execute",
        "/v1/scenarios/a/b/execute",
        "/v1/scenario/lease-happy-path/execute",
        "/",
    ] {
        request(&gateway.addr, &format!("POST {path} HTTP/1.1"), b"")
            .assert_error(404, "not_found");
    }
}

#[test]
fn bad_bodies_are_400_with_a_json_body() {
    let gateway = Gateway::start(&own_root(), &[]);
    let id = "lease-invalid-output";
    for body in [
        &b"{"[..],
        b"{\"fixture_output\": }",
        b"[]",
        b"\"fixture_output\"",
        b"null",
        b"42",
        b"{} {}",
        b"{\"fixture_output\": 1, \"fixture_output\": 2}",
        b"\xff\xfe",
    ] {
        let answer = execute(&gateway.addr, id, body);
        answer.assert_error(400, "malformed_json");
    }
    for body in [
        &b"{\"x\": 1}"[..],
        b"{\"fixture_output\": {}, \"extra\": true}",
        b"{\"Fixture_Output\": {}}",
    ] {
        execute(&gateway.addr, id, body).assert_error(400, "unknown_field");
    }
}

#[test]
fn fixture_outputs_beyond_64_bits_keep_their_digits() {
    // `serde_json` alone would round both to one double, and two outputs
    // would share a fingerprint.
    let gateway = Gateway::start(&own_root(), &[]);
    let id = "lease-invalid-output";
    let failure = |literal: &str| {
        let body = format!("{{\"fixture_output\": [{literal}]}}");
        let answer = execute(&gateway.addr, id, body.as_bytes());
        assert_eq!(answer.status, 200, "{literal}");
        // Not an object: a schema-invalid output, whose failure
        // fingerprint is the output's.
        answer.json()["fingerprints"]["failure"].clone()
    };
    for literal in [
        "18446744073709551616",
        "-18446744073709551617",
        &"7".repeat(400),
    ] {
        let canonical = format!("[{literal}]");
        assert_eq!(
            failure(literal),
            templiqx_contracts::canonical::sha256_hex(canonical.as_bytes()),
            "{literal}"
        );
    }
}

#[test]
fn bodies_are_read_as_every_json_document_is() {
    let gateway = Gateway::start(&own_root(), &[]);
    let id = "lease-happy-path";
    // A leading byte order mark is skipped.
    let expected = execute(&gateway.addr, id, b"{}").json();
    assert_eq!(
        execute(&gateway.addr, id, b"\xEF\xBB\xBF{}").json(),
        expected
    );
    // Text that is not UTF-8 is located at its first invalid byte.
    let answer = execute(&gateway.addr, id, b"{\n\"fixture_output\": \"\xE9\"}");
    answer.assert_error(400, "malformed_json");
    let message = answer.json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        message,
        "the body is invalid JSON: the text is not UTF-8: invalid byte 0xE9 (line 2, column 20)"
    );
}

#[test]
fn empty_and_null_bodies_execute_the_manifest() {
    let gateway = Gateway::start(&own_root(), &[]);
    let id = "lease-happy-path";
    let expected = execute(&gateway.addr, id, b"").json();
    for body in [&b"{}"[..], b"  \r\n", b"{\"fixture_output\": null}"] {
        assert_eq!(execute(&gateway.addr, id, body).json(), expected);
    }
}

#[test]
fn fixture_output_replaces_an_inline_output_only() {
    let gateway = Gateway::start(&own_root(), &[]);
    let output: Value = serde_json::from_slice(
        &std::fs::read(own_root().join("../evals/extraction-output.json")).unwrap(),
    )
    .unwrap();
    let body = json!({ "fixture_output": output }).to_string();
    // `lease-invalid-output` scripts an inline, schema-invalid output; a
    // valid fixture output makes the same scenario succeed.
    let answer = execute(&gateway.addr, "lease-invalid-output", body.as_bytes());
    assert_eq!(answer.status, 200);
    let result = answer.json();
    assert_eq!(result["status"], "success", "{result}");
    assert_eq!(result["output_source"], "fixture_output");
    assert_eq!(result["fingerprints"]["output"], fingerprint(&output));
    // The scenario fingerprint is the scenario's, whatever the output.
    let plain = execute(&gateway.addr, "lease-invalid-output", b"").json();
    assert_eq!(
        result["fingerprints"]["scenario"],
        plain["fingerprints"]["scenario"]
    );
    // An invalid one fails with TQX_OUTPUT_SCHEMA, its fingerprint as the
    // failure fingerprint.
    let bad = json!({"start_date": "someday"});
    let answer = execute(
        &gateway.addr,
        "lease-invalid-output",
        json!({ "fixture_output": bad }).to_string().as_bytes(),
    );
    let result = answer.json();
    assert_eq!(result["diagnostic_code"], "TQX_OUTPUT_SCHEMA");
    assert_eq!(result["output_schema_valid"], false);
    assert_eq!(result["fingerprints"]["failure"], fingerprint(&bad));
    // A manifest with an `expected_output` document, or a scripted
    // failure, has no use for it.
    for id in ["lease-happy-path", "lease-missing-notice"] {
        execute(&gateway.addr, id, body.as_bytes())
            .assert_error(422, "fixture_output_not_applicable");
    }
}

/// `{"fixture_output": "xxx…"}` of exactly `len` bytes.
fn body_of_len(len: usize) -> Vec<u8> {
    let frame = br#"{"fixture_output":""}"#.len();
    format!(r#"{{"fixture_output":"{}"}}"#, "x".repeat(len - frame)).into_bytes()
}

#[test]
fn bodies_over_one_mib_are_413() {
    let gateway = Gateway::start(&own_root(), &[]);
    // Exactly 1 MiB is read and parsed (and this scenario has no use for
    // a fixture output) …
    let at_limit = body_of_len(MAX_BODY_BYTES);
    assert_eq!(at_limit.len(), 1024 * 1024);
    execute(&gateway.addr, "lease-happy-path", &at_limit)
        .assert_error(422, "fixture_output_not_applicable");
    // … one byte more is refused, whatever the body says (declared by
    // `Content-Length`, it is refused before it is sent: see
    // `a_declared_length_over_the_limit_is_413_before_the_body`).
    let over = body_of_len(MAX_BODY_BYTES + 1);
    // A chunked body over the limit, too.
    let mut stream = common::connect(&gateway.addr);
    let mut bytes = format!(
        "POST /v1/scenarios/lease-happy-path/execute HTTP/1.1\r\nHost: x\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n",
        over.len()
    )
    .into_bytes();
    bytes.extend_from_slice(&over);
    bytes.extend_from_slice(b"\r\n0\r\n\r\n");
    stream.write_all(&bytes).unwrap();
    common::read_answer(&mut stream).assert_error(413, "payload_too_large");
}

/// Sends `head` (ending in a blank line) and nothing more, and reads what
/// the gateway answers until it closes the connection (an error after the
/// answer, such as a reset, ends the read too).
fn answer_to_head(addr: &str, head: &str) -> Vec<u8> {
    let mut stream = common::connect(addr);
    stream.write_all(head.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match std::io::Read::read(&mut stream, &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
        }
    }
    raw
}

#[test]
fn a_declared_length_over_the_limit_is_413_before_the_body() {
    // Before the fix this head got `100 Continue` and, the body never
    // coming, 408 at the request timeout.
    let gateway = Gateway::start(&common::own_root(), &["--request-timeout-ms", "2000"]);
    for (declared, expect) in [
        (52_428_800, ""),
        (52_428_800, "Expect: 100-continue\r\n"),
        (MAX_BODY_BYTES + 1, ""),
        (MAX_BODY_BYTES + 1, "Expect: 100-continue\r\n"),
    ] {
        let head = format!(
            "POST /v1/scenarios/lease-happy-path/execute HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{expect}Content-Length: {declared}\r\n\r\n"
        );
        let raw = answer_to_head(&gateway.addr, &head);
        let text = String::from_utf8_lossy(&raw);
        // The first (and only) answer is the 413: no `100 Continue` invites
        // the upload, and nothing waited for a body that never came.
        assert!(
            text.starts_with("HTTP/1.1 413 "),
            "{declared} {expect:?}: {text}"
        );
        assert!(!text.contains("100 Continue"), "{text}");
        let answer = common::parse_answer(&raw);
        answer.assert_error(413, "payload_too_large");
        assert_eq!(answer.header("connection"), Some("close"));
        assert_eq!(
            answer.json()["error"]["message"],
            format!(
                "the body declares {declared} bytes (Content-Length), over the limit of {MAX_BODY_BYTES}; it was not read"
            )
        );
    }
    // An id outside the inventory is still 404, also without the body.
    let raw = answer_to_head(
        &gateway.addr,
        "POST /v1/scenarios/nope/execute HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 52428800\r\n\r\n",
    );
    common::parse_answer(&raw).assert_error(404, "scenario_not_found");
    // At the limit, the body is invited (and, never sent, times out).
    let raw = answer_to_head(
        &gateway.addr,
        &format!(
            "POST /v1/scenarios/lease-happy-path/execute HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: {MAX_BODY_BYTES}\r\n\r\n"
        ),
    );
    let text = String::from_utf8_lossy(&raw);
    assert!(text.starts_with("HTTP/1.1 100 Continue\r\n\r\n"), "{text}");
    assert!(text.contains("HTTP/1.1 408 "), "{text}");
}

#[test]
fn wrong_methods_are_405_with_allow_and_a_json_body() {
    let gateway = Gateway::start(&own_root(), &[]);
    for (head, allow) in [
        ("GET /v1/scenarios/lease-happy-path/execute", "POST"),
        ("PUT /v1/scenarios/lease-happy-path/execute", "POST"),
        ("DELETE /v1/scenarios/nope/execute", "POST"),
        ("POST /health/live", "GET,HEAD"),
        ("POST /health/ready", "GET,HEAD"),
        ("DELETE /v1/scenarios", "GET,HEAD"),
    ] {
        let answer = request(&gateway.addr, &format!("{head} HTTP/1.1"), b"");
        answer.assert_error(405, "method_not_allowed");
        assert_eq!(answer.header("allow"), Some(allow), "{head}");
    }
}

#[test]
fn a_slow_body_gets_408_and_a_slow_head_is_cut_off() {
    let gateway = Gateway::start(
        &own_root(),
        &["--request-timeout-ms", "300", "--header-timeout-ms", "300"],
    );
    // A body announced and never sent.
    let mut stream = common::connect(&gateway.addr);
    stream
        .write_all(
            b"POST /v1/scenarios/lease-happy-path/execute HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{",
        )
        .unwrap();
    let started = Instant::now();
    let answer = common::read_answer(&mut stream);
    answer.assert_error(408, "request_timeout");
    assert_eq!(answer.header("connection"), Some("close"));
    assert!(started.elapsed() < Duration::from_secs(5));
    // A request head that never ends: the connection is closed.
    let mut stream = common::connect(&gateway.addr);
    stream
        .write_all(b"GET /health/live HTTP/1.1\r\nHost")
        .unwrap();
    let started = Instant::now();
    let mut rest = Vec::new();
    let _ = std::io::Read::read_to_end(&mut stream, &mut rest);
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn sigterm_lets_an_in_flight_request_finish_then_exits_0() {
    // Technique: the request is held in flight by its own body. The head
    // announces 2 bytes and only 1 is sent, so the handler is waiting for
    // the body when SIGTERM arrives (the trace layer logs "started
    // processing request" when the request reaches the router). The rest
    // of the body is sent after the signal; the answer must be complete.
    let mut gateway =
        Gateway::start_with_env(&own_root(), &[], &[("RUST_LOG", "info,tower_http=debug")]);
    let mut stream = common::connect(&gateway.addr);
    stream
        .write_all(
            b"POST /v1/scenarios/lease-happy-path/execute HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{",
        )
        .unwrap();
    gateway.wait_for_log("started processing request");
    gateway.signal("TERM");
    gateway.wait_for_log("SIGTERM received");
    gateway.wait_for_log("shutting down");
    // No new connections once shutting down.
    assert!(
        std::net::TcpStream::connect(&gateway.addr).is_err(),
        "still accepting"
    );
    assert!(gateway.child.try_wait().unwrap().is_none(), "exited early");
    stream.write_all(b"}").unwrap();
    let answer = common::read_answer(&mut stream);
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.json()["fingerprints"]["receipt"],
        "58598855bd12af6995120388cee7e75b930efa71ed7161e0283e4c92c3e6663d"
    );
    let status = gateway.wait_exit();
    assert_eq!(status.code(), Some(0), "{:#?}", gateway.log);
}

#[test]
fn once_shutting_down_ready_is_503_while_live_stays_ok_and_in_flight_requests_finish() {
    // Technique: as above, a request held in flight by its own body keeps
    // the shutdown waiting. Two more connections are opened *before* it
    // and each sends the start of a request head: the listener accepts in
    // order, so by the time the held request is being processed both are
    // accepted; a connection that has received part of a head is not idle,
    // so graceful shutdown lets it finish that one request (a connection
    // that has sent nothing would be closed, and new ones are refused).
    let mut gateway =
        Gateway::start_with_env(&own_root(), &[], &[("RUST_LOG", "info,tower_http=debug")]);
    let answer = request(&gateway.addr, "GET /health/ready HTTP/1.1", b"");
    assert_eq!(
        (answer.status, answer.json()),
        (200, json!({"status": "ok"}))
    );
    let mut ready = common::connect(&gateway.addr);
    ready.write_all(b"GET /health/ready HTTP/1.1\r\n").unwrap();
    let mut live = common::connect(&gateway.addr);
    live.write_all(b"GET /health/live HTTP/1.1\r\n").unwrap();
    let mut held = common::connect(&gateway.addr);
    held.write_all(
        b"POST /v1/scenarios/lease-happy-path/execute HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{",
    )
    .unwrap();
    gateway.wait_for_log("started processing request");
    // Margin for the server to have read the partial heads (they were sent
    // before the held request was even connected).
    std::thread::sleep(Duration::from_millis(200));
    gateway.signal("TERM");
    gateway.wait_for_log("shutting down: not ready");
    assert!(gateway.child.try_wait().unwrap().is_none(), "exited early");

    ready.write_all(b"Host: x\r\n\r\n").unwrap();
    let answer = common::read_answer(&mut ready);
    assert_eq!(answer.status, 503, "{answer:?}");
    assert_eq!(answer.header("content-type"), Some("application/json"));
    assert_eq!(answer.json(), json!({"status": "shutting_down"}));
    // (`read_answer` reads to the end: the connection was closed after it.)

    live.write_all(b"Host: x\r\n\r\n").unwrap();
    let answer = common::read_answer(&mut live);
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(answer.json(), json!({"status": "ok"}));

    // The in-flight request still completes, then the process exits 0.
    assert!(gateway.child.try_wait().unwrap().is_none(), "exited early");
    held.write_all(b"}").unwrap();
    let answer = common::read_answer(&mut held);
    assert_eq!(answer.status, 200);
    assert_eq!(
        answer.json()["fingerprints"]["receipt"],
        "58598855bd12af6995120388cee7e75b930efa71ed7161e0283e4c92c3e6663d"
    );
    let status = gateway.wait_exit();
    assert_eq!(status.code(), Some(0), "{:#?}", gateway.log);
}

#[test]
fn sigint_on_an_idle_gateway_exits_0() {
    let mut gateway = Gateway::start(&own_root(), &[]);
    // An idle keep-alive connection does not hold the shutdown up.
    let _idle = common::connect(&gateway.addr);
    gateway.signal("INT");
    assert_eq!(gateway.wait_exit().code(), Some(0));
}

#[test]
fn the_answers_shown_in_docs_gateway_md_are_the_gateways() {
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/gateway.md"),
    )
    .unwrap();
    let gateway = Gateway::start(&own_root(), &[]);
    let mut shown = 0;
    for block in docs.split("```json\n").skip(1) {
        let Some((json, _)) = block.split_once("```") else {
            continue;
        };
        let example: Value = serde_json::from_str(json).unwrap();
        let Some(id) = example["scenario_id"].as_str() else {
            continue;
        };
        assert_eq!(execute(&gateway.addr, id, b"").json(), example, "{id}");
        shown += 1;
    }
    assert_eq!(shown, 2);
}
