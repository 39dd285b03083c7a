//! `templiqx diff` (`docs/cli.md`, "diff"; `docs/diff.md`), run as a
//! process: human output with snippets of both sides, the JSON envelope,
//! the version gate's exit status, `--base` in a git repository the test
//! creates, and usage errors.

mod common;

use common::*;
use std::path::Path;
use std::process::Command as Process;

const MANIFEST: &str = "api_version: templiqx/v1alpha1
package: letters
version: VERSION
contracts: [letter]
";

/// The `letter` contract; `extra` is spliced into `inputs` (line 6 on).
fn contract(version: &str, extra: &str) -> String {
    format!(
        "api_version: templiqx/v1alpha1
id: letter
version: {version}
inputs:
  name: {{ schema: {{ type: string, minLength: 1 }}, required: true }}
{extra}messages:
  - role: user
    content:
      - {{ kind: text, value: \"Write to \" }}
      - {{ kind: interpolate, expression: {{ kind: ref, path: inputs.name }} }}
output_schema:
  type: object
  additionalProperties: false
  properties:
    text: {{ type: string }}
"
    )
}

fn package(dir: &Path, version: &str, extra: &str) {
    std::fs::create_dir_all(dir.join("contracts")).unwrap();
    std::fs::write(
        dir.join("templiqx.yaml"),
        MANIFEST.replace("VERSION", version),
    )
    .unwrap();
    std::fs::write(dir.join("contracts/letter.yaml"), contract(version, extra)).unwrap();
}

const TENANT: &str = "  tenant: { schema: { type: string }, required: true }\n";

#[test]
fn a_breaking_change_without_its_bump_is_shown_on_both_sides_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    package(&dir.path().join("old"), "1.0.0", "");
    package(&dir.path().join("new"), "1.1.0", TENANT);
    let out = templiqx_in(dir.path())
        .args(["diff", "old", "new"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let expected = "\
breaking[INPUT_FIELD_ADDED_REQUIRED]: `inputs.tenant` is new and required
 --> new/contracts/letter.yaml:6:49
  |
6 |   tenant: { schema: { type: string }, required: true }
  |                                                 ^^^^ new
  |
 ::: old/contracts/letter.yaml:4:1
  |
4 | inputs:
  | ------ old
  |
  = help: callers that do not send it are refused; add it as optional (`required: false`), or release a breaking version
  = note: at /inputs (old), /inputs/tenant/required (new)

";
    assert!(text.starts_with(expected), "{text}");
    assert!(
        text.contains(
            "    Compared contract `letter` 1.0.0 → 1.1.0: 1 change, breaking; needs a major bump, to 2.0.0 or later\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "error[TQX_VERSION_BUMP]: contract `letter`: 1.0.0 → 1.1.0 is not enough: a breaking change needs at least 2.0.0 (a major bump)\n --> new/contracts/letter.yaml:3:10\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("error[TQX_VERSION_BUMP]: package `letters`: 1.0.0 → 1.1.0 is not enough"),
        "{text}"
    );
}

#[test]
fn json_lists_each_change_with_its_rule_class_pointers_and_positions() {
    let dir = tempfile::tempdir().unwrap();
    package(&dir.path().join("old"), "0.2.0", "");
    package(&dir.path().join("new"), "0.2.1", TENANT);
    let out = templiqx_in(dir.path())
        .args(["diff", "old", "new", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let envs = envelopes(&out);
    let [env] = envs.as_slice() else {
        panic!("{envs:?}")
    };
    assert_envelope(env, "diff");
    assert_eq!(env["ok"], false);
    let result = &env["result"];
    assert_eq!(result["sufficient"], false);
    assert_eq!(result["old"]["kind"], "package");
    assert_eq!(result["new"]["package"]["version"], "0.2.1");
    let change = &result["changes"][0];
    assert_eq!(change["rule"], "INPUT_FIELD_ADDED_REQUIRED");
    assert_eq!(change["class"], "breaking");
    assert_eq!(change["contract"], "letter");
    assert_eq!(change["old"]["file"], "old/contracts/letter.yaml");
    assert_eq!(change["old"]["json_pointer"], "/inputs");
    assert_eq!(change["old"]["span"]["start"]["line"], 4);
    assert_eq!(change["new"]["json_pointer"], "/inputs/tenant/required");
    assert_eq!(
        change["new"]["span"]["start"],
        serde_json::json!({"line": 6, "column": 49})
    );
    assert!(
        change["help"]
            .as_str()
            .unwrap()
            .starts_with("callers that do not send it")
    );
    let gate = &result["contracts"][0]["gate"];
    assert_eq!(gate["required"], "minor");
    assert_eq!(gate["least"], "0.3.0");
    let codes: Vec<&str> = env["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["TQX_VERSION_BUMP", "TQX_VERSION_BUMP"]);
    assert_eq!(env["diagnostics"][0]["json_pointer"], "/version");
    assert_eq!(env["fingerprints"]["old"].as_str().unwrap().len(), 64);
    assert_eq!(env["fingerprints"]["new"].as_str().unwrap().len(), 64);
}

#[test]
fn a_sufficient_bump_exits_0_and_unchanged_sides_need_none() {
    let dir = tempfile::tempdir().unwrap();
    package(&dir.path().join("old"), "0.2.0", "");
    package(&dir.path().join("new"), "0.3.0", TENANT);
    let out = templiqx_in(dir.path())
        .args(["diff", "old", "new", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let env = &envelopes(&out)[0];
    assert_eq!(env["ok"], true);
    assert_eq!(env["result"]["sufficient"], true);
    assert_eq!(env["result"]["package"]["gate"]["least"], "0.3.0");

    let out = templiqx_in(dir.path())
        .args([
            "diff",
            "old/contracts/letter.yaml",
            "old/contracts/letter.yaml",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        "    Compared contract `letter` 0.2.0 → 0.2.0: 0 changes; no bump needed\n"
    );
}

fn git(dir: &Path, args: &[&str]) {
    let out = Process::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn base_compares_the_path_at_a_revision_of_a_temporary_repository() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["config", "user.name", "Templiqx Test"]);
    git(&root, &["config", "user.email", "test@templiqx.invalid"]);
    git(&root, &["config", "commit.gpgsign", "false"]);
    package(&root.join("letters"), "1.0.0", "");
    git(&root, &["add", "-A"]);
    git(&root, &["commit", "-q", "-m", "letters 1.0.0"]);

    // Nothing changed yet.
    let out = templiqx_in(&root)
        .args(["diff", "--base", "main", "letters"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));

    // A new required input, the version left alone: the gate fails.
    package(&root.join("letters"), "1.0.0", TENANT);
    let out = templiqx_in(&root)
        .args(["diff", "--base", "main", "letters", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let env = &envelopes(&out)[0];
    assert_envelope(env, "diff");
    let old = &env["result"]["old"];
    assert_eq!(old["revision"]["name"], "main");
    assert_eq!(old["revision"]["commit"].as_str().unwrap().len(), 40);
    assert_eq!(
        env["result"]["changes"][0]["rule"],
        "INPUT_FIELD_ADDED_REQUIRED"
    );
    assert_eq!(
        env["result"]["changes"][0]["old"]["file"],
        "letters/contracts/letter.yaml"
    );

    // Human output labels the old side with the revision.
    let out = templiqx_in(&root)
        .args(["diff", "--base", "main", "letters"])
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(text.contains("  | ------ main\n"), "{text}");
    assert!(text.contains("^^^^ working tree\n"), "{text}");

    // Bumped to 2.0.0, it passes; nothing was checked out or changed.
    package(&root.join("letters"), "2.0.0", TENANT);
    let out = templiqx_in(&root)
        .args(["diff", "--base", "main", "letters"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let head = Process::new("git")
        .args(["-C", root.to_str().unwrap(), "status", "--porcelain"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&head.stdout),
        " M letters/contracts/letter.yaml\n M letters/templiqx.yaml\n"
    );

    // A package the revision does not have is new.
    package(&root.join("more"), "0.1.0", "");
    let out = templiqx_in(&root)
        .args(["diff", "--base", "main", "more", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let env = &envelopes(&out)[0];
    assert_eq!(env["result"]["old"]["kind"], "absent");
    assert_eq!(env["result"]["changes"][0]["rule"], "CONTRACT_ADDED");
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    package(&dir.path().join("pkg"), "1.0.0", "");
    let run = |args: &[&str]| templiqx_in(dir.path()).args(args).output().unwrap();
    let err = |out: &std::process::Output| String::from_utf8_lossy(&out.stderr).into_owned();

    let out = run(&["diff", "pkg", "pkg/contracts/letter.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        err(&out),
        "error: `pkg` is a package directory and `pkg/contracts/letter.yaml` is a contract file: compare two packages or two contract files\n"
    );
    assert!(out.stdout.is_empty());

    let out = run(&["diff", "--base", "main", "pkg"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err(&out).starts_with("error: cannot read `pkg` at `main`: "),
        "{}",
        err(&out)
    );

    let out = run(&["diff", "pkg"]);
    assert_eq!(out.status.code(), Some(2), "NEW is required without --base");
    let out = run(&["diff", "pkg", "pkg", "--base", "main"]);
    assert_eq!(out.status.code(), Some(2), "NEW conflicts with --base");

    let out = run(&["diff", "pkg", "nowhere", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    let env = &envelopes(&out)[0];
    assert_eq!(env["diagnostics"][0]["code"], "TQX_IO");
    assert_eq!(
        env["diagnostics"][0]["message"],
        "cannot open `nowhere`: no such file or directory"
    );
}
