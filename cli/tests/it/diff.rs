//! `templiqx diff` (`docs/cli.md`, "diff"; `docs/diff.md`), run as a
//! process: human output with snippets of both sides, the JSON envelope,
//! the version gate's exit status, `--base` in a git repository the test
//! creates, and usage errors.

use crate::common::*;
use std::path::Path;
use std::process::Command as Process;
use templiqx_conformance_suites::git;

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

#[test]
fn base_compares_the_path_at_a_revision_of_a_temporary_repository() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    git(&root, &["init", "-q", "-b", "main"]);
    git(&root, &["config", "user.name", "Templiqx Test"]);
    git(&root, &["config", "user.email", "test@templiqx.invalid"]);
    git(&root, &["config", "commit.gpgsign", "false"]);
    package(&root.join("letters"), "1.0.0", "");
    commit(&root, "letters 1.0.0");

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
    assert_eq!(env["result"]["package"]["status"], "added");

    // A package deleted from the working tree: each contract is removed,
    // and there is no new version to gate.
    std::fs::remove_dir_all(root.join("letters")).unwrap();
    let out = templiqx_in(&root)
        .args(["diff", "--base", "main", "letters", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let env = &envelopes(&out)[0];
    assert_eq!(env["result"]["new"]["kind"], "absent");
    assert_eq!(env["result"]["changes"][0]["rule"], "CONTRACT_REMOVED");
    assert_eq!(env["result"]["contracts"][0]["status"], "removed");
    assert_eq!(env["result"]["package"]["status"], "removed");
    assert_eq!(codes(env), Vec::<String>::new());

    // A path on neither side, a revision git does not know, and a path
    // that is a file at the revision and a directory now are usage errors.
    let usage = |args: &[&str]| {
        let out = templiqx_in(&root).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stdout(&out));
        stdout(&out)
    };
    let text = usage(&["diff", "--base", "main", "nowhere"]);
    assert!(
        text.starts_with("error[TQX_IO]: `nowhere` is neither at `main` nor in the working tree\n"),
        "{text}"
    );
    let text = usage(&["diff", "--base", "origin/main", "more"]);
    assert!(
        text.starts_with(
            "error[TQX_IO]: cannot read `more` at `origin/main`: `origin/main` does not name a commit\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("pass `--base FETCH_HEAD`; or fetch it under its remote name with `git fetch --no-tags origin main:refs/remotes/origin/main` and pass `--base origin/main`"),
        "{text}"
    );
    std::fs::write(root.join("thing.yaml"), contract("1.0.0", "")).unwrap();
    commit(&root, "a contract file");
    std::fs::remove_file(root.join("thing.yaml")).unwrap();
    package(&root.join("thing.yaml"), "1.0.0", "");
    let text = usage(&["diff", "--base", "main", "thing.yaml"]);
    assert!(
        text.starts_with(
            "error[TQX_IO]: `thing.yaml` is a contract file at `main` and a package directory in the working tree\n"
        ),
        "{text}"
    );
}

fn commit(root: &Path, message: &str) {
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", message]);
}

#[test]
fn usage_errors_are_diagnostics_that_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    package(&dir.path().join("pkg"), "1.0.0", "");
    let run = |args: &[&str]| templiqx_in(dir.path()).args(args).output().unwrap();

    let out = run(&["diff", "pkg", "pkg/contracts/letter.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stdout(&out),
        "error[TQX_IO]: `pkg` is a package directory and `pkg/contracts/letter.yaml` is a contract file
 |
 = help: compare two packages or two contract files

error: nothing was compared
"
    );
    assert!(out.stderr.is_empty());

    // Outside a git working tree (the temporary directory is not in one).
    let out = run(&["diff", "--base", "main", "pkg", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    let env = &envelopes(&out)[0];
    assert_envelope(env, "diff");
    assert!(env.get("result").is_none());
    assert_eq!(codes(env), ["TQX_IO"]);
    assert_eq!(
        env["diagnostics"][0]["message"],
        "cannot read `pkg` at `main`: `pkg` is not inside a git working tree"
    );
    assert!(
        env["diagnostics"][0]["help"]
            .as_str()
            .unwrap()
            .contains("compare two paths with `templiqx diff OLD NEW`")
    );

    let out = run(&["diff", "pkg"]);
    assert_eq!(out.status.code(), Some(2), "NEW is required without --base");
    let out = run(&["diff", "pkg", "pkg", "--base", "main"]);
    assert_eq!(out.status.code(), Some(2), "NEW conflicts with --base");

    // A mistyped path: nothing is compared, so nothing is reported removed.
    let out = run(&["diff", "pkg", "nowhere", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    let envs = envelopes(&out);
    let [env] = envs.as_slice() else {
        panic!("{envs:?}")
    };
    assert!(env.get("result").is_none());
    assert_eq!(codes(env), ["TQX_IO"]);
    assert_eq!(
        env["diagnostics"][0]["message"],
        "cannot open `nowhere`: no such file or directory"
    );
    let out = run(&["diff", "pkg", "nowhere"]);
    assert!(
        !stdout(&out).contains("CONTRACT_REMOVED"),
        "{}",
        stdout(&out)
    );
}

/// `templiqx diff ARGS` in `dir`: its exit status and standard output.
fn diff_in(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = templiqx_in(dir).arg("diff").args(args).output().unwrap();
    (out.status.code(), stdout(&out))
}

#[test]
fn a_contract_that_does_not_compile_is_never_a_clean_verdict() {
    let dir = tempfile::tempdir().unwrap();
    package(&dir.path().join("old"), "1.0.0", "");
    package(&dir.path().join("new"), "1.0.0", "");
    let broken = contract("1.0.0", "").replace("inputs.name }", "inputs.nmae }");
    std::fs::write(dir.path().join("new/contracts/letter.yaml"), broken).unwrap();
    let out = templiqx_in(dir.path())
        .args(["diff", "old", "new", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let env = &envelopes(&out)[0];
    let result = &env["result"];
    assert_eq!(result["sufficient"], false);
    assert_eq!(result["contracts"][0]["status"], "not_compared");
    assert_eq!(
        result["contracts"][0]["reason"],
        "the new version does not compile"
    );
    assert_eq!(result["package"]["status"], "not_compared");
    assert!(result["package"].get("gate").is_none());
    assert_eq!(codes(env), ["TQX_REF_UNKNOWN"]);

    let (code, text) = diff_in(dir.path(), &["old", "new"]);
    assert_eq!(code, Some(1));
    assert!(
        text.ends_with(
            "error: could not compare contract `letter`: the new version does not compile (see above)
error: could not compare package `letters`: contract `letter` was not compared (see above)
"
        ),
        "{text}"
    );
    assert!(!text.contains("Compared"), "{text}");
}

#[test]
fn a_side_that_does_not_load_is_reported_not_emptied() {
    let dir = tempfile::tempdir().unwrap();
    package(&dir.path().join("old"), "1.0.0", "");
    package(&dir.path().join("new"), "1.0.0", "");
    // `version: 1.1` is a number, not a version string.
    std::fs::write(
        dir.path().join("new/templiqx.yaml"),
        MANIFEST.replace("VERSION", "1.1"),
    )
    .unwrap();
    let out = templiqx_in(dir.path())
        .args(["diff", "old", "new", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "the side exists: not a usage error"
    );
    let env = &envelopes(&out)[0];
    let result = &env["result"];
    assert_eq!(result["changes"], serde_json::json!([]));
    assert_eq!(result["sufficient"], false);
    assert_eq!(result["package"]["status"], "not_compared");
    assert_eq!(result["package"]["reason"], "the new version does not load");
    let d = &env["diagnostics"][0];
    assert_eq!(d["file"], "new/templiqx.yaml");
    assert_eq!(d["span"]["start"]["line"], 3);
    assert!(d["code"].as_str().unwrap().starts_with("TQX_"), "{d}");
}

#[test]
fn summaries_say_why_a_gate_fails_and_renamed_files_need_a_bump() {
    let dir = tempfile::tempdir().unwrap();
    package(&dir.path().join("old"), "1.0.0", "");
    package(&dir.path().join("new"), "0.9.0", "");
    let (code, text) = diff_in(dir.path(), &["old", "new"]);
    assert_eq!(code, Some(1));
    assert!(
        text.contains(
            "    Compared contract `letter` 1.0.0 → 0.9.0: 0 changes; the new version 0.9.0 is below the old one 1.0.0; a release never goes back\n"
        ),
        "{text}"
    );
    assert!(!text.contains("none bump"), "{text}");

    // Two files whose ids differ: a breaking change the version must show.
    let renamed = contract("1.0.0", "").replace("id: letter", "id: note");
    std::fs::write(dir.path().join("note.yaml"), renamed).unwrap();
    let (code, text) = diff_in(dir.path(), &["old/contracts/letter.yaml", "note.yaml"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.starts_with(
            "breaking[CONTRACT_ID_CHANGED]: the contract's id changed: `letter` → `note`\n"
        ),
        "{text}"
    );
}

/// Replaces the one occurrence of `from` in the file at `path`.
fn edit_once(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).unwrap();
    assert_eq!(text.matches(from).count(), 1, "{}: {from}", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

/// `docs/cli.md`, "diff", shows the output of the change it describes:
/// made here on copies of the CRM3 example, the command prints exactly
/// the sample.
#[test]
fn the_sample_in_cli_md_is_what_the_command_prints() {
    let dir = tempfile::tempdir().unwrap();
    for side in ["released/crm3", "examples/crm3"] {
        templiqx_conformance_suites::copy_tree(
            &repo().join("examples/crm3"),
            &dir.path().join(side),
        );
    }
    let new = dir.path().join("examples/crm3");
    let contract = new.join("contracts/lease-term-extraction.yaml");
    edit_once(
        &contract,
        "    description: Host-owned opaque matter reference.\n",
        "    description: Host-owned opaque matter reference.\n  locale:\n    schema: { type: string }\n",
    );
    edit_once(&contract, "\nversion: 0.1.0\n", "\nversion: 0.1.1\n");
    edit_once(
        &contract,
        "field: { type: string, enum: [start_date, end_date, monthly_rent, notice_days] }",
        "field: { type: string, enum: [start_date, end_date, monthly_rent, notice_days, deposit] }",
    );
    edit_once(
        &new.join("templiqx.yaml"),
        "\nversion: 0.1.0\n",
        "\nversion: 0.1.1\n",
    );
    let out = templiqx_in(dir.path())
        .args(["diff", "released/crm3", "examples/crm3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));

    let docs = std::fs::read_to_string(repo().join("docs/cli.md")).unwrap();
    let start = "```console\n$ templiqx diff released/crm3 examples/crm3\n";
    let from = docs.find(start).expect("docs/cli.md has the sample") + start.len();
    let to = from
        + docs[from..]
            .find("$ echo $?\n1\n```")
            .expect("the sample ends");
    assert_eq!(docs[from..to], stdout(&out), "docs/cli.md, \"diff\"");
}
