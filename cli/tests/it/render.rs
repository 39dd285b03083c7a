//! `templiqx render`, run as a process.

use crate::common::*;
use predicates::prelude::*;

const CONTRACT: &str = "contracts/lease-term-extraction.yaml";
const REQUEST: &str = "evals/extraction-request.json";

const SYSTEM: &str = "You extract lease terms as JSON. Use only facts stated in the source. Cite evidence by byte offsets; never invent values.";
const USER: &str = "Matter: MAT-2026-0107\nDocument LEASE-0007, clause clause-3:\nThe lease starts on 2026-03-01 and ends on 2027-02-28. Rent is EUR 1450.50 per month. Notice period: 60 days.\nCheck first: notice_days, start_date";

fn crm3() -> std::path::PathBuf {
    examples().join("crm3")
}

#[test]
fn extraction_renders_both_messages_exactly() {
    let output = templiqx_in(&crm3())
        .args(["render", CONTRACT, "--request", REQUEST])
        .args(["--target", "structured_output", "--format", "json"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let envs = envelopes(&output);
    assert_eq!(envs.len(), 1);
    let env = &envs[0];
    assert_envelope(env, "render");
    assert_eq!(env["ok"], true);
    assert_eq!(
        env["result"]["messages"],
        serde_json::json!([
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": USER},
        ])
    );
    // The rest of the rendered interaction.
    let result = &env["result"];
    assert_eq!(result["contract_id"], "lease-term-extraction");
    assert_eq!(result["contract_version"], "0.1.0");
    assert_eq!(
        result["required_capabilities"],
        serde_json::json!(["structured_output"])
    );
    assert_eq!(
        result["target_capabilities"],
        serde_json::json!(["structured_output"])
    );
    assert_eq!(result["output_schema"]["type"], "object");
    // The request fingerprint is the fingerprint of that result.
    let fp = templiqx_contracts::canonical::fingerprint(result);
    assert_eq!(env["fingerprints"]["request"], fp.as_str());
    for name in ["contract", "interaction", "request"] {
        assert_eq!(
            env["fingerprints"][name].as_str().unwrap().len(),
            64,
            "{name}"
        );
    }
}

#[test]
fn extraction_human_output_matches_the_golden() {
    let output = templiqx_in(&crm3())
        .args(["render", CONTRACT, "-r", REQUEST, "-t", "structured_output"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = stdout(&output);
    let golden = format!("[0] system\n{SYSTEM}\n\n[1] user\n{USER}\n\n");
    assert!(text.starts_with(&golden), "{text}");
    let fingerprints: Vec<&str> = text[golden.len()..].lines().collect();
    assert_eq!(fingerprints.len(), 3, "{text}");
    for (line, name) in fingerprints
        .iter()
        .zip(["contract", "interaction", "request"])
    {
        let (label, value) = line.split_once(char::is_whitespace).unwrap();
        assert_eq!(label, name);
        assert_eq!(value.trim().len(), 64);
    }
}

#[test]
fn the_request_can_come_from_standard_input() {
    let request = std::fs::read_to_string(crm3().join(REQUEST)).unwrap();
    let output = templiqx_in(&crm3())
        .args([
            "render",
            CONTRACT,
            "--request",
            "-",
            "--target",
            "structured_output",
        ])
        .args(["--format", "json"])
        .write_stdin(request)
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(
        envelopes(&output)[0]["result"]["messages"][1]["content"],
        USER
    );
}

/// Renders the extraction contract for the request file `text`.
fn render_request_file(text: &str) -> assert_cmd::assert::Assert {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("request.json"), text).unwrap();
    let contract = crm3().join(CONTRACT);
    templiqx_in(dir.path())
        .arg("render")
        .arg(&contract)
        .args(["--request", "request.json", "--target", "structured_output"])
        .assert()
}

#[test]
fn request_problems_point_into_the_request_file() {
    render_request_file("{\n  \"inputs\": {\n    \"document_id\": \"D\",\n    \"clause_id\": \"C\",\n    \"clause_text\": \"\",\n    \"focus_fields\": []\n  },\n  \"context\": {\"matter_reference\": \"M\"}\n}\n")
        .code(1)
        .stdout(predicate::str::contains("error[TQX_VALUE_INVALID]"))
        .stdout(predicate::str::contains("--> request.json:5:20"))
        .stdout(predicate::str::contains("= note: at /inputs/clause_text"))
        .stdout(predicate::str::contains("error: could not render"));
}

#[test]
fn requests_holding_what_yaml_cannot_are_still_located() {
    // An integer beyond 64 bits and a DEL character are JSON, not YAML
    // values: the problem elsewhere in the request keeps its line:column.
    render_request_file("{\n  \"inputs\": {\n    \"document_id\": \"D\u{7f}\",\n    \"clause_id\": 100000000000000000001,\n    \"clause_text\": \"\",\n    \"focus_fields\": []\n  },\n  \"context\": {\"matter_reference\": \"M\"}\n}\n")
        .code(1)
        .stdout(predicate::str::contains("--> request.json:4:18"))
        .stdout(predicate::str::contains("found number 100000000000000000001"))
        .stdout(predicate::str::contains("--> request.json:5:20"));
}

#[test]
fn render_time_failures_point_at_the_contract_node() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("contracts")).unwrap();
    std::fs::write(
        dir.path().join("contracts/notice.yaml"),
        "api_version: templiqx/v1alpha1\nid: notice\nversion: 0.1.0\ninputs:\n  due: { schema: { type: string }, required: true }\ncapabilities: [structured_output]\nmessages:\n  - role: user\n    content:\n      - { kind: text, value: \"Due on \" }\n      - { kind: interpolate, expression: { kind: ref, path: inputs.due }, filters: [format_date] }\noutput_schema: { type: object }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("request.json"),
        "{ \"inputs\": { \"due\": \"2026-02-30\" }, \"context\": {} }\n",
    )
    .unwrap();
    templiqx_in(dir.path())
        .args([
            "render",
            "contracts/notice.yaml",
            "--request",
            "request.json",
        ])
        .args(["--target", "structured_output"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("error[TQX_FILTER_INPUT]"))
        .stdout(predicate::str::contains("--> contracts/notice.yaml:11:9"))
        .stdout(predicate::str::contains(
            "11 |       - { kind: interpolate, expression:",
        ))
        .stdout(predicate::str::contains(
            "= note: the value is at `/inputs/due` in the request",
        ))
        .stdout(predicate::str::contains("= note: at /messages/0/content/1"))
        .stdout(predicate::str::contains("request.json").not());
}

#[test]
fn malformed_requests_are_diagnostics_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let contract = crm3().join(CONTRACT);
    for (text, code, exit) in [
        ("{\"inputs\": ", "TQX_PARSE_JSON", 1),
        ("[]", "TQX_INVALID_TYPE", 1),
        ("{\"inputs\": 3}", "TQX_INVALID_TYPE", 1),
        ("{\"input\": {}}", "TQX_UNKNOWN_FIELD", 1),
        ("{}", "TQX_VALUE_INVALID", 1),
    ] {
        std::fs::write(dir.path().join("r.json"), text).unwrap();
        let output = templiqx_in(dir.path())
            .arg("render")
            .arg(&contract)
            .args([
                "--request",
                "r.json",
                "--target",
                "structured_output",
                "--format",
                "json",
            ])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(exit), "{text}");
        let env = &envelopes(&output)[0];
        assert_envelope(env, "render");
        assert_eq!(env["ok"], false);
        assert!(env.get("result").is_none());
        assert!(
            codes(env).contains(&code.to_owned()),
            "{text}: {:?}",
            codes(env)
        );
    }
    // A request that is not UTF-8 is a located parse error.
    std::fs::write(
        dir.path().join("r.json"),
        b"{\"inputs\": {\"x\": \"\xe9\"}}",
    )
    .unwrap();
    let output = templiqx_in(dir.path())
        .arg("render")
        .arg(&contract)
        .args(["--request", "r.json", "--target", "structured_output"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let text = stdout(&output);
    for line in [
        "error[TQX_PARSE_JSON]: invalid JSON: the text is not UTF-8: invalid byte 0xE9",
        " --> r.json:1:19",
        "1 | {\"inputs\": {\"x\": \"",
    ] {
        assert!(text.contains(line), "{line}\n---\n{text}");
    }
    // A request that is not JSON shows where, with its line.
    std::fs::write(dir.path().join("r.json"), "{\"inputs\": {,}}").unwrap();
    templiqx_in(dir.path())
        .arg("render")
        .arg(&contract)
        .args(["--request", "r.json", "--target", "structured_output"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            " --> r.json:1:13\n  |\n1 | {\"inputs\": {,}}\n",
        ));
    // A missing request file is an I/O error.
    templiqx_in(dir.path())
        .arg("render")
        .arg(&contract)
        .args(["--request", "absent.json", "--target", "structured_output"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "error[TQX_IO]: cannot read `absent.json`",
        ));
}

#[test]
fn a_contract_that_does_not_compile_is_not_rendered() {
    templiqx_in(&crm3())
        .args([
            "render",
            CONTRACT,
            "--request",
            REQUEST,
            "--target",
            "tools",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("TQX_CAPABILITY_UNSUPPORTED"))
        .stdout(predicate::str::contains("[0] system").not());
}

#[test]
fn a_directory_instead_of_a_contract_file_is_named_and_explained() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("request.json"), "{}").unwrap();
    templiqx_in(dir.path())
        .args(["render", ".", "--request", "request.json"])
        .args(["--target", "structured_output"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "error[TQX_IO]: cannot read contract .: it is a directory",
        ))
        .stdout(predicate::str::contains("--> .\n"))
        .stdout(predicate::str::contains("pass a contract file"))
        .stdout(predicate::str::contains("could not render `.`"));
}

/// A contract path that does not exist, given relative to a package root
/// run in (where the package search once reached the empty path and
/// reported "cannot open package directory" with no file), is the missing
/// file, for `render` and `run` alike.
#[test]
fn a_missing_contract_in_the_package_root_is_reported_as_missing() {
    for command in [
        vec!["render"],
        vec![
            "run",
            "--provider",
            "openai",
            "--base-url",
            "http://127.0.0.1:9",
            "--model",
            "m",
        ],
    ] {
        let output = templiqx_in(&crm3())
            .args(&command)
            .args(["contracts/absent.yaml", "--request", REQUEST])
            .args(["--target", "structured_output"])
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            text.contains("error[TQX_IO]: cannot read contract contracts/absent.yaml"),
            "{command:?}: {text}"
        );
        assert!(!text.contains("package directory"), "{command:?}: {text}");
        assert_ne!(output.status.code(), Some(0), "{command:?}");
    }
}

/// A request whose shape is wrong (an unknown top-level member, a scope
/// that is not an object, not an object at all) is reported together with
/// its value problems in one run; a scope of the wrong type adds no
/// "missing" errors of its own.
#[test]
fn request_shape_and_value_problems_are_reported_in_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let errors = |request: &str| {
        let path = dir.path().join("request.json");
        std::fs::write(&path, request).unwrap();
        let output = templiqx_in(&crm3())
            .args(["render", CONTRACT, "--request"])
            .arg(&path)
            .args(["--target", "structured_output"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{output:?}");
        stdout(&output)
            .lines()
            .filter(|l| l.starts_with("error["))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let found = errors(r#"{"inputs": {"document_id": 5, "bogus": 1}, "contxt": {}}"#);
    for expected in [
        "error[TQX_UNKNOWN_FIELD]: unknown field `contxt` in the request",
        "error[TQX_VALUE_INVALID]: inputs.document_id: expected string, found number 5",
        "error[TQX_VALUE_INVALID]: `inputs.bogus` is not declared by the contract",
        "error[TQX_VALUE_INVALID]: required context field `matter_reference` is missing",
    ] {
        assert!(
            found.iter().any(|l| l == expected),
            "{expected}\n{found:#?}"
        );
    }
    let found = errors(
        r#"{"inputs": {"document_id": 5, "clause_id": "c", "clause_text": "t", "focus_fields": []}, "context": []}"#,
    );
    assert_eq!(
        found,
        [
            "error[TQX_INVALID_TYPE]: `context` must be a JSON object, found an array",
            "error[TQX_VALUE_INVALID]: inputs.document_id: expected string, found number 5",
        ]
    );
    let found = errors("[1]");
    assert_eq!(
        found,
        ["error[TQX_INVALID_TYPE]: a request must be a JSON object, found an array"]
    );
}

/// What is neither a file nor a directory is refused before it is read,
/// with the words `check` uses: a named pipe never blocks `render` or
/// `fingerprint`, and `/dev/null` is not read as an empty contract.
#[cfg(unix)]
#[test]
fn pipes_and_devices_are_refused_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let request = crm3().join(REQUEST);
    let neither = |name: &str| {
        format!(
            "`{name}` is neither a regular file nor a directory (a device, a named pipe or a socket)"
        )
    };
    for (args, shown) in [
        (["render", "pipe"], "pipe"),
        (["render", "/dev/null"], "/dev/null"),
        (["fingerprint", "pipe"], "pipe"),
        (["fingerprint", "/dev/null"], "/dev/null"),
    ] {
        let mut cmd = templiqx_in(dir.path());
        cmd.args(args);
        if args[0] == "render" {
            cmd.arg("--request").arg(&request);
            cmd.args(["--target", "structured_output"]);
        }
        let output = cmd
            .timeout(std::time::Duration::from_secs(30))
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(text.contains(&neither(shown)), "{args:?}: {text}");
        assert_ne!(output.status.code(), Some(0), "{args:?}");
    }
    // A request that is a pipe is refused too.
    let output = templiqx_in(dir.path())
        .arg("render")
        .arg(crm3().join("contracts/lease-term-extraction.yaml"))
        .args(["--request", "pipe", "--target", "structured_output"])
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(text.contains(&neither("pipe")), "{text}");
}
