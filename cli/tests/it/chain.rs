//! `templiqx run` and `templiqx eval` with `--chain` (`docs/adapters.md`,
//! "Fallback chains"), run as a process against scripted OpenAI-compatible
//! fakes on loopback: a 503 from the first falls back to the second and
//! the route lists both attempts; a failure the policy does not name does
//! not fall back; a stream that already printed output does not fall back;
//! round robin spreads eval's requests; members lacking a required
//! capability are skipped with `TQX_ADAPTER_SKIPPED`; a bad chain file is
//! a usage error with every problem at its pointer, line and column (only
//! an object is a chain file; names are checked and never renamed when
//! given).

use crate::common::*;
use crate::eval::{CONTRACT, answer, contract_dir};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use templiqx_fake_provider::{Fake, Reply, serve};

/// Fakes on a runtime that lives as long as the returned guard; each with
/// its replies, in order.
fn fakes(replies: Vec<Vec<Reply>>) -> (tokio::runtime::Runtime, Vec<(String, Arc<Fake>)>) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let servers = replies
        .into_iter()
        .map(|r| runtime.block_on(serve("/v1/chat/completions", r)))
        .collect();
    (runtime, servers)
}

/// A chain file over `servers` (members `a`, `b`, …) with `extra` members
/// of the top level.
fn write_chain(dir: &Path, servers: &[(String, Arc<Fake>)], extra: Value) {
    let members: Vec<Value> = servers
        .iter()
        .enumerate()
        .map(|(i, (base, _))| {
            let name = ["a", "b", "c"][i];
            json!({ "name": name, "provider": "openai",
                    "base_url": format!("{base}/v1"), "model": format!("model-{i}") })
        })
        .collect();
    let mut chain = json!({ "api_version": "templiqx.chain/v1alpha1", "members": members });
    for (k, v) in extra.as_object().unwrap() {
        chain[k] = v.clone();
    }
    std::fs::write(dir.join("chain.json"), chain.to_string()).unwrap();
}

fn run(dir: &Path, extra: &[&str]) -> std::process::Output {
    std::fs::write(
        dir.join("request.json"),
        r#"{"inputs": {"clause": "Notice period: 60 days."}, "context": {}}"#,
    )
    .unwrap();
    templiqx_in(dir)
        .args(["run", "notice.yaml", "-r", "request.json"])
        .args(["-t", "structured_output", "--chain", "chain.json"])
        .args(extra)
        .output()
        .unwrap()
}

fn unavailable() -> Reply {
    Reply::Raw(
        503,
        Vec::new(),
        json!({"error": {"message": "overloaded"}}).to_string(),
    )
}

/// (adapter, outcome, code) of every attempt of a JSON route.
fn attempts(route: &Value) -> Vec<(String, String, Option<String>)> {
    route["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["adapter"].as_str().unwrap().to_owned(),
                a["outcome"].as_str().unwrap().to_owned(),
                a["code"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

#[test]
fn run_falls_back_from_a_503_to_the_second_fake_and_reports_the_route() {
    let dir = contract_dir();
    let (_rt, servers) = fakes(vec![
        vec![unavailable(), unavailable()],
        vec![answer(60), answer(60)],
    ]);
    write_chain(dir.path(), &servers, json!({}));
    let out = run(dir.path(), &["--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let envs = envelopes(&out);
    let env = &envs[0];
    assert_eq!(env["ok"], true);
    let result = &env["result"];
    assert_eq!(result["output"]["notice_days"], 60);
    assert_eq!(result["provider"], "fallback");
    assert_eq!(result["model"], "a/b");
    assert_eq!(result["attempts"], 2);
    assert_eq!(result["receipt"]["outcome"], "success");
    let route = &result["route"];
    assert_eq!(route["strategy"], "fallback");
    assert_eq!(route["answered_by"], "b");
    assert_eq!(
        attempts(route),
        [
            (
                "a".into(),
                "failure".into(),
                Some("TQX_RUNTIME_UNAVAILABLE".into())
            ),
            ("b".into(), "success".into(), None),
        ]
    );
    for a in route["attempts"].as_array().unwrap() {
        assert_eq!(a["invocations"], 1);
        assert!(a["duration_ms"].is_u64(), "{a}");
    }
    assert_eq!((servers[0].1.requests(), servers[1].1.requests()), (1, 1));
    // The human report names who answered and every turn.
    let human = run(dir.path(), &[]);
    let text = stdout(&human);
    assert_eq!(human.status.code(), Some(0), "{text}");
    for needle in [
        "answered by  b",
        "route        a: failure TQX_RUNTIME_UNAVAILABLE, 1 attempt, ",
        "             b: success, 1 attempt, ",
        "via fallback `a/b`",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
}

#[test]
fn a_failure_class_the_chain_does_not_name_does_not_fall_back() {
    let dir = contract_dir();
    let bad_request = Reply::Raw(
        400,
        Vec::new(),
        json!({"error": {"message": "bad request"}}).to_string(),
    );
    let (_rt, servers) = fakes(vec![vec![bad_request, unavailable()], vec![]]);
    // The default policy: timeout, rate_limited, unavailable.
    write_chain(dir.path(), &servers, json!({}));
    let out = run(dir.path(), &["--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let env = &envelopes(&out)[0];
    assert_eq!(codes(env), ["TQX_RUNTIME_PERMANENT"]);
    assert_eq!(
        attempts(&env["result"]["route"]),
        [(
            "a".into(),
            "failure".into(),
            Some("TQX_RUNTIME_PERMANENT".into())
        )]
    );
    assert_eq!(servers[1].1.requests(), 0);
    // A policy naming only `rate_limited` does not move on after a 503.
    write_chain(
        dir.path(),
        &servers,
        json!({"fall_back_on": ["rate-limited"]}),
    );
    let out = run(dir.path(), &["--format", "json"]);
    let env = &envelopes(&out)[0];
    assert_eq!(codes(env), ["TQX_RUNTIME_UNAVAILABLE"]);
    assert_eq!(servers[1].1.requests(), 0);
}

fn chunk(content: &str) -> String {
    let c = json!({ "id": "c", "object": "chat.completion.chunk", "model": "model-0",
        "choices": [{ "index": 0, "delta": { "content": content }, "finish_reason": null }] });
    format!("data: {c}\n\n")
}

#[test]
fn a_stream_that_printed_output_does_not_fall_back() {
    let dir = contract_dir();
    // The first member's stream breaks off after a fragment was printed.
    let cut = Reply::SseCut(chunk("{\"notice_"));
    let (_rt, servers) = fakes(vec![vec![cut], vec![answer(60)]]);
    write_chain(
        dir.path(),
        &servers,
        json!({"fall_back_on": ["unavailable", "invalid_response", "timeout"]}),
    );
    let out = run(dir.path(), &["--stream", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    // The envelope is the last line (partial outputs may come first).
    let lines = envelopes(&out);
    let env = lines.last().unwrap();
    assert_envelope(env, "execute");
    let route = &env["result"]["route"];
    assert!(route.is_object(), "{env}");
    assert_eq!(attempts(route).len(), 1, "{env}");
    assert_eq!(route["attempts"][0]["outcome"], "failure");
    assert_eq!(env["result"]["deltas"], 1);
    assert_eq!(servers[1].1.requests(), 0, "the second member was called");
}

#[test]
fn eval_round_robin_spreads_the_requests_over_the_members() {
    let dir = contract_dir();
    let (_rt, servers) = fakes(vec![vec![answer(60); 2], vec![answer(60); 2]]);
    write_chain(dir.path(), &servers, json!({"strategy": "round_robin"}));
    let out = templiqx_in(dir.path())
        .args(["eval", "notice.yaml", "-t", "structured_output"])
        .args([
            "--chain",
            "chain.json",
            "--repeat",
            "4",
            "--concurrency",
            "1",
        ])
        .args(["--db", ":memory:", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let result = crate::eval::result(&out);
    assert_eq!(result["run"]["provider"], "round_robin", "{result}");
    assert_eq!(result["run"]["model"], "a/b");
    assert_eq!((servers[0].1.requests(), servers[1].1.requests()), (2, 2));
}

#[test]
fn members_lacking_a_required_capability_are_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    // The adapters provide `streaming` and `structured_output`, not `vision`.
    let contract = CONTRACT.replace(
        "capabilities: [structured_output]",
        "capabilities: [structured_output, vision]",
    );
    std::fs::write(dir.path().join("notice.yaml"), contract).unwrap();
    let (_rt, servers) = fakes(vec![vec![], vec![]]);
    write_chain(dir.path(), &servers, json!({}));
    std::fs::write(
        dir.path().join("request.json"),
        r#"{"inputs": {"clause": "60 days"}}"#,
    )
    .unwrap();
    let out = templiqx_in(dir.path())
        .args(["run", "notice.yaml", "-r", "request.json"])
        .args(["-t", "structured_output,vision", "--chain", "chain.json"])
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let env = &envelopes(&out)[0];
    assert_eq!(
        codes(env),
        [
            "TQX_CAPABILITY_UNSUPPORTED",
            "TQX_ADAPTER_SKIPPED",
            "TQX_ADAPTER_SKIPPED"
        ]
    );
    let skipped = &env["diagnostics"][1];
    assert_eq!(skipped["severity"], "warning");
    assert_eq!(
        skipped["message"],
        "adapter `a` was skipped: it does not provide the required capability `vision`"
    );
    assert_eq!(env["result"]["attempts"], 0);
    assert_eq!(
        attempts(&env["result"]["route"]),
        [
            (
                "a".into(),
                "skipped".into(),
                Some("TQX_ADAPTER_SKIPPED".into())
            ),
            (
                "b".into(),
                "skipped".into(),
                Some("TQX_ADAPTER_SKIPPED".into())
            ),
        ]
    );
    assert_eq!(servers[0].1.requests() + servers[1].1.requests(), 0);
}

#[test]
fn a_chain_file_with_problems_is_a_usage_error_at_its_pointers() {
    let dir = contract_dir();
    std::fs::write(
        dir.path().join("chain.json"),
        json!({ "api_version": "templiqx.chain/v9", "fall_back_on": ["unavailable", "sometimes"],
                "members": [
                    { "provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m" },
                    { "provider": "openai", "base_url": "http://127.0.0.1:9/v1", "modle": "m" },
                    { "provider": "mistral", "base_url": "http://127.0.0.1:9/v1", "model": "m" } ] })
        .to_string(),
    )
    .unwrap();
    let out = run(dir.path(), &["--format", "json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let env = &envelopes(&out)[0];
    let found: Vec<(String, String)> = env["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert_eq!(d["file"], "chain.json", "{d}");
            (
                d["code"].as_str().unwrap().to_owned(),
                d["json_pointer"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    assert_eq!(
        found,
        [
            ("TQX_API_VERSION".into(), "/api_version".into()),
            ("TQX_INVALID_VALUE".into(), "/fall_back_on/1".into()),
            ("TQX_MISSING_FIELD".into(), "/members/1".into()),
            ("TQX_UNKNOWN_FIELD".into(), "/members/1/modle".into()),
            ("TQX_INVALID_VALUE".into(), "/members/2/provider".into()),
        ]
    );
    // Not JSON at all; and --chain with --provider.
    std::fs::write(dir.path().join("chain.json"), "{ members: }").unwrap();
    let out = run(dir.path(), &["--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(codes(&envelopes(&out)[0]), ["TQX_PARSE_JSON"]);
    let out = run(dir.path(), &["--provider", "openai"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("cannot be used with"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// (code, pointer, line, column, message) of every diagnostic of a
/// `--format json` envelope.
fn located(out: &std::process::Output) -> Vec<(String, String, u64, u64, String)> {
    envelopes(out)[0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert_eq!(d["file"], "chain.json", "{d}");
            (
                d["code"].as_str().unwrap().to_owned(),
                d["json_pointer"].as_str().unwrap_or("").to_owned(),
                d["span"]["start"]["line"].as_u64().unwrap_or(0),
                d["span"]["start"]["column"].as_u64().unwrap_or(0),
                d["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_chain_file_reports_every_problem_at_its_line_and_column_in_user_terms() {
    let dir = contract_dir();
    // Line 6 holds members[1]'s unknown `temperature` (and `modl` for
    // `model`); fall_back_on has two problems; `a` is named twice (also
    // reported when the second member has other problems); three names
    // are refused.
    let text = r#"{
  "api_version": "templiqx.chain/v1alpha1",
  "fall_back_on": ["timeout", "nope", 5],
  "members": [
    { "name": "a", "provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m" },
    { "name": "a", "provider": "openai", "base_url": "http://127.0.0.1:9/v1", "modl": "m", "temperature": 0.2 },
    { "name": "", "provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m" },
    { "name": "x/y", "provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m" },
    { "name": "red\u001b[31m\n", "provider": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m" }
  ]
}"#;
    std::fs::write(dir.path().join("chain.json"), text).unwrap();
    let out = run(dir.path(), &["--format", "json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let found = located(&out);
    let short: Vec<(&str, &str, u64, u64)> = found
        .iter()
        .map(|(c, p, l, col, _)| (c.as_str(), p.as_str(), *l, *col))
        .collect();
    assert_eq!(
        short,
        [
            ("TQX_INVALID_VALUE", "/fall_back_on/1", 3, 31),
            ("TQX_INVALID_TYPE", "/fall_back_on/2", 3, 39),
            ("TQX_MISSING_FIELD", "/members/1", 6, 5),
            ("TQX_INVALID_VALUE", "/members/1/name", 6, 15),
            ("TQX_UNKNOWN_FIELD", "/members/1/modl", 6, 79),
            ("TQX_UNKNOWN_FIELD", "/members/1/temperature", 6, 92),
            ("TQX_INVALID_VALUE", "/members/2/name", 7, 15),
            ("TQX_INVALID_VALUE", "/members/3/name", 8, 15),
            ("TQX_INVALID_VALUE", "/members/4/name", 9, 15),
        ],
        "{found:#?}"
    );
    let messages: Vec<&str> = found.iter().map(|f| f.4.as_str()).collect();
    assert_eq!(messages[1], "expected a string, found a number");
    assert_eq!(messages[2], "missing field `model` in a chain member");
    assert_eq!(messages[3], "member 1's name `a` is member 0's");
    assert_eq!(messages[5], "unknown field `temperature` in a chain member");
    assert!(messages[6].ends_with("is empty"), "{}", messages[6]);
    assert!(messages[7].contains("holds `/`"), "{}", messages[7]);
    // The control characters are escaped, never printed raw.
    assert!(messages[8].contains(r"\u{1b}[31m\n"), "{}", messages[8]);
    assert!(messages.iter().all(|m| !m.contains('\u{1b}')));
    // The human report names the file, line and column.
    let out = run(dir.path(), &[]);
    let human = format!("{}{}", stdout(&out), String::from_utf8_lossy(&out.stderr));
    assert!(human.contains("chain.json:6:92"), "{human}");
    assert!(!human.contains('\u{1b}'), "{human}");

    // An array is not a chain file, whatever it holds; no Rust type name
    // reaches the user.
    std::fs::write(
        dir.path().join("chain.json"),
        r#"["templiqx.chain/v1alpha1", "fallback", [], []]"#,
    )
    .unwrap();
    let out = run(dir.path(), &["--format", "json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let found = located(&out);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].0.as_str(), found[0].1.as_str()),
        ("TQX_INVALID_TYPE", "")
    );
    assert_eq!(
        found[0].4,
        "the chain file must be a JSON object, not an array"
    );
    for bad in ["ChainFile", "MemberFile", "struct"] {
        assert!(!stdout(&out).contains(bad), "{}", stdout(&out));
    }
}

#[test]
fn a_generated_name_steps_around_the_names_given_and_strategy_takes_either_separator() {
    let dir = contract_dir();
    let (_rt, servers) = fakes(vec![vec![answer(60)]]);
    let base = format!("{}/v1", servers[0].0);
    // The first member has no name: `openai:org/m` would be the second's
    // own name and holds `/`, so it becomes `openai:org_m#2`.
    std::fs::write(
        dir.path().join("chain.json"),
        json!({ "api_version": "templiqx.chain/v1alpha1", "strategy": "round-robin",
                "fall_back_on": ["rate-limited", "unavailable"],
                "members": [
                    { "provider": "openai", "base_url": base, "model": "org/m",
                      "structured_output": "json_schema" },
                    { "name": "openai:org_m", "provider": "openai", "base_url": base, "model": "n" } ] })
        .to_string(),
    )
    .unwrap();
    let out = run(dir.path(), &["--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let result = &envelopes(&out)[0]["result"];
    assert_eq!(result["provider"], "round_robin");
    assert_eq!(result["model"], "openai:org_m#2/openai:org_m");
    assert_eq!(result["route"]["answered_by"], "openai:org_m#2");
}
