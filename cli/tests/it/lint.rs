//! `templiqx check --lint openai-strict` (`docs/cli.md`, "check";
//! `docs/diagnostics.md`, `TQX_LINT_OPENAI_NOT_STRICT`), run as a process.

use crate::common::*;
use predicates::prelude::*;
use std::path::Path;

/// A contract whose output schema is `schema` (a YAML block at two spaces),
/// whose first line is line 12 of the file.
fn contract(schema: &str) -> String {
    format!(
        "api_version: templiqx/v1alpha1
id: extract
version: 0.1.0
capabilities: [structured_output]
messages:
  - role: user
    content:
      - {{ kind: text, value: \"Extract the terms.\" }}
output_schema:
  type: object
  additionalProperties: false
{schema}"
    )
}

/// `minLength` is outside OpenAI's strict subset: its value is at line 14,
/// column 40.
const MIN_LENGTH: &str = "  required: [tenant]
  properties:
    tenant: { type: string, minLength: 1 }
    note: { type: string }
";

/// Optional and nullable properties, nested in an array: lowering makes
/// the whole schema strict.
const LOWERS_CLEANLY: &str = "  required: [tenant]
  properties:
    tenant: { type: string, description: The tenant's legal name }
    end_date: { type: [string, \"null\"], format: date }
    parties:
      type: array
      minItems: 1
      items:
        type: object
        additionalProperties: false
        required: [name]
        properties:
          name: { type: string }
          role: { type: string, enum: [landlord, tenant] }
";

fn write(dir: &Path, schema: &str) {
    std::fs::write(dir.join("extract.yaml"), contract(schema)).unwrap();
}

fn check_json(dir: &Path, lint: bool) -> (Option<i32>, serde_json::Value) {
    let mut cmd = templiqx_in(dir);
    cmd.args([
        "check",
        "extract.yaml",
        "-t",
        "structured_output",
        "--format",
        "json",
    ]);
    if lint {
        cmd.args(["--lint", "openai-strict"]);
    }
    let output = cmd.output().unwrap();
    let envs = envelopes(&output);
    assert_eq!(envs.len(), 1, "{}", stdout(&output));
    assert_envelope(&envs[0], "check");
    (output.status.code(), envs[0].clone())
}

#[test]
fn the_openai_strict_lint_warns_at_the_blocking_keyword_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), MIN_LENGTH);
    let (code, env) = check_json(dir.path(), true);
    assert_eq!(code, Some(0), "{env}");
    assert_eq!(env["ok"], true, "{env}");
    let diagnostics = env["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{env}");
    let d = &diagnostics[0];
    assert_eq!(d["code"], "TQX_LINT_OPENAI_NOT_STRICT", "{d}");
    assert_eq!(d["severity"], "warning", "{d}");
    assert_eq!(d["file"], "extract.yaml", "{d}");
    assert_eq!(
        d["json_pointer"], "/output_schema/properties/tenant/minLength",
        "{d}"
    );
    assert_eq!(
        d["span"]["start"],
        serde_json::json!({"line": 14, "column": 40}),
        "{d}"
    );
    assert_eq!(
        d["message"],
        "OpenAI strict mode cannot take this output schema: `minLength` is not supported in strict mode"
    );
    let help = d["help"].as_str().unwrap();
    assert!(
        help.starts_with(
            "OpenAI will receive this schema with strict: false; the answer is still validated against the whole schema. To make it strict: remove `minLength`"
        ),
        "{help}"
    );

    // The human form shows the warning, and the contract still checks.
    templiqx_in(dir.path())
        .args(["check", "extract.yaml", "-t", "structured_output"])
        .args(["--lint", "openai-strict"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "warning[TQX_LINT_OPENAI_NOT_STRICT]: OpenAI strict mode cannot take this output schema",
        ))
        .stdout(predicate::str::contains("extract.yaml:14:40"))
        .stdout(predicate::str::contains("Checked extract v0.1.0"));
}

#[test]
fn a_schema_that_lowers_cleanly_gets_no_warning() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), LOWERS_CLEANLY);
    let (code, env) = check_json(dir.path(), true);
    assert_eq!(code, Some(0), "{env}");
    assert_eq!(env["diagnostics"], serde_json::json!([]), "{env}");
}

#[test]
fn an_open_object_or_an_array_without_items_is_reported_at_its_node() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "  properties:
    meta: { type: object }
",
    );
    let (code, env) = check_json(dir.path(), true);
    assert_eq!(code, Some(0), "{env}");
    let d = &env["diagnostics"][0];
    assert_eq!(d["json_pointer"], "/output_schema/properties/meta", "{d}");
    assert_eq!(d["span"]["start"]["line"], 13, "{d}");
    assert!(
        d["help"]
            .as_str()
            .unwrap()
            .ends_with("To make it strict: set `additionalProperties: false` on this object"),
        "{d}"
    );
    write(
        dir.path(),
        "  required: [tags]
  properties:
    tags: { type: array }
",
    );
    let (_, env) = check_json(dir.path(), true);
    let d = &env["diagnostics"][0];
    assert_eq!(d["json_pointer"], "/output_schema/properties/tags", "{d}");
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .ends_with("an array without `items`"),
        "{d}"
    );
}

#[test]
fn the_lint_is_opt_in() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), MIN_LENGTH);
    let (code, env) = check_json(dir.path(), false);
    assert_eq!(code, Some(0), "{env}");
    assert_eq!(env["diagnostics"], serde_json::json!([]), "{env}");
    templiqx_in(dir.path())
        .args(["check", "extract.yaml", "-t", "structured_output"])
        .args(["--lint", "openai"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("openai-strict"));
}
