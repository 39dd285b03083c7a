//! Start-up: the scenario root from the flag or the environment, the
//! required target profile, and an invalid inventory stopping start-up with
//! an error naming the scenario.

use crate::common;

use common::{Gateway, edit_inventory, own_copy, own_root, run_to_exit};
use serde_json::json;

#[test]
fn no_scenario_root_is_a_usage_error() {
    let (status, stdout, stderr) = run_to_exit(
        &["--listen", "127.0.0.1:0", "--target", "structured_output"],
        &[],
    );
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stdout.is_empty());
    assert!(
        stderr.contains("--scenario-root") && stderr.contains("TEMPLIQX_MOCK_SCENARIO_ROOT"),
        "{stderr}"
    );
}

/// The message `docs/gateway.md` documents for a missing `--target`.
const NO_TARGET: &str = "error: no target profile: pass --target LIST, the capabilities the \
     scripted runtime provides (e.g. --target structured_output); there is no default profile\n";

#[test]
fn no_target_is_a_usage_error() {
    let root = own_root();
    let (status, stdout, stderr) = run_to_exit(
        &[
            "--listen",
            "127.0.0.1:0",
            "--scenario-root",
            root.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert_eq!(stderr, NO_TARGET);
}

#[test]
fn no_target_and_no_root_are_both_reported() {
    let (status, stdout, stderr) = run_to_exit(&["--listen", "127.0.0.1:0"], &[]);
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.starts_with(NO_TARGET), "{stderr}");
    assert!(stderr.contains("error: no scenario root"), "{stderr}");
}

#[test]
fn the_target_is_the_one_given() {
    // An explicitly empty profile lacks `structured_output`, which the
    // package's contracts require: start-up stops.
    let root = own_root();
    let (status, stdout, stderr) = run_to_exit(
        &[
            "--listen",
            "127.0.0.1:0",
            "--target",
            "",
            "--scenario-root",
            root.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(!stdout.contains("listening"), "{stdout}");
    assert!(stderr.contains("TQX_CAPABILITY_UNSUPPORTED"), "{stderr}");
}

#[test]
fn the_environment_supplies_the_root() {
    let root = own_root();
    let root = root.to_str().unwrap();
    // `start_with_env` passes `--scenario-root`; start without it here.
    let mut child = std::process::Command::new(common::BIN)
        .args(["--listen", "127.0.0.1:0", "--target", "structured_output"])
        .env("TEMPLIQX_MOCK_SCENARIO_ROOT", root)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        line.starts_with("templiqx-mock-gateway listening on http://127.0.0.1:"),
        "{line:?}"
    );
}

#[test]
fn help_says_conformance_only() {
    let (status, stdout, _) = run_to_exit(&["--help"], &[]);
    assert_eq!(status.code(), Some(0));
    assert!(stdout.contains("NOT a production Templiqx API"), "{stdout}");
    assert!(stdout.contains("NOT an MCP"), "{stdout}");
    assert!(stdout.contains("TEMPLIQX_MOCK_SCENARIO_ROOT"), "{stdout}");
    assert!(stdout.contains("--target <LIST>"), "{stdout}");
    assert!(!stdout.contains("[default: structured_output]"), "{stdout}");
}

/// Starts the gateway on `root`; it must exit 1 naming `scenario`.
fn refuses(root: &std::path::Path, scenario: &str, also: &str) {
    let (status, stdout, stderr) = run_to_exit(
        &[
            "--listen",
            "127.0.0.1:0",
            "--target",
            "structured_output",
            "--scenario-root",
            root.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(!stdout.contains("listening"), "{stdout}");
    assert!(stderr.contains("not starting"), "{stderr}");
    assert!(
        stderr.contains(&format!("scenario `{scenario}`")),
        "{stderr}"
    );
    assert!(stderr.contains(also), "{stderr}");
}

#[test]
fn drift_stops_start_up() {
    let (_dir, root) = own_copy();
    edit_inventory(&root, |inv| {
        inv["scenarios"][1]["expectation"]["status"] = json!("failure");
    });
    refuses(&root, "lease-happy-path", "expected_status");
}

#[test]
fn a_duplicate_id_stops_start_up() {
    let (_dir, root) = own_copy();
    edit_inventory(&root, |inv| {
        let first = inv["scenarios"][0].clone();
        inv["scenarios"].as_array_mut().unwrap().push(first);
    });
    refuses(&root, "lease-ambiguous-rent", "listed twice");
}

#[test]
fn a_missing_manifest_stops_start_up() {
    let (_dir, root) = own_copy();
    std::fs::remove_file(root.join("lease-missing-notice/manifest.json")).unwrap();
    refuses(&root, "lease-missing-notice", "does not exist");
}

#[test]
fn an_escaping_manifest_path_stops_start_up() {
    let (dir, root) = own_copy();
    // A manifest outside the corpus root, reached with `..`.
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::copy(
        root.join("lease-missing-notice/manifest.json"),
        outside.join("manifest.json"),
    )
    .unwrap();
    edit_inventory(&root, |inv| {
        inv["scenarios"][3]["manifest"] = json!("../outside/manifest.json");
    });
    refuses(&root, "lease-missing-notice", "leaves the corpus root");
}

#[test]
fn a_root_without_an_inventory_stops_start_up() {
    let dir = tempfile::tempdir().unwrap();
    let (status, _, stderr) = run_to_exit(
        &[
            "--listen",
            "127.0.0.1:0",
            "--target",
            "structured_output",
            "--scenario-root",
            dir.path().to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("inventory.json"), "{stderr}");
}

#[test]
fn an_address_in_use_stops_start_up() {
    let gateway = Gateway::start(&own_root(), &[]);
    let (status, _, stderr) = run_to_exit(
        &[
            "--listen",
            &gateway.addr,
            "--target",
            "structured_output",
            "--scenario-root",
            own_root().to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot listen"), "{stderr}");
}
