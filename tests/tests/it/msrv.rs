//! The declared MSRV is true of the lock file: no locked dependency that
//! builds on this host declares a `rust-version` newer than the
//! workspace's, and every workspace crate inherits the workspace's.
//! (`README.md`, "Two commands", states the MSRV; raise it there and in
//! `Cargo.toml` together when the lock requires it.)

use serde_json::Value;
use std::process::Command;

/// `major.minor.patch` as numbers (a missing part is 0).
fn version(text: &str) -> (u64, u64, u64) {
    let mut parts = text.split('.').map(|p| {
        p.parse::<u64>()
            .unwrap_or_else(|_| panic!("not a version: {text}"))
    });
    (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

fn host_triple() -> String {
    let out = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned()))
        .arg("-vV")
        .output()
        .expect("rustc -vV runs");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc -vV names the host")
        .to_owned()
}

#[test]
fn no_locked_dependency_needs_a_newer_rust_than_the_workspace_declares() {
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml");
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--locked"])
        .args(["--filter-platform", &host_triple()])
        .args(["--manifest-path", manifest])
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata --locked failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let metadata: Value = serde_json::from_slice(&out.stdout).unwrap();
    let members: Vec<&str> = metadata["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let in_graph: Vec<&str> = metadata["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap())
        .collect();
    let ours = env!("CARGO_PKG_RUST_VERSION");
    assert!(!ours.is_empty(), "the workspace declares rust-version");
    let mut newer = Vec::new();
    let mut checked = 0;
    for package in metadata["packages"].as_array().unwrap() {
        let id = package["id"].as_str().unwrap();
        let declared = package["rust_version"].as_str();
        if members.contains(&id) {
            assert_eq!(
                declared,
                Some(ours),
                "{} must inherit the workspace rust-version",
                package["name"]
            );
        } else if in_graph.contains(&id) {
            checked += 1;
            if let Some(declared) = declared
                && version(declared) > version(ours)
            {
                newer.push(format!(
                    "{} {} ({declared})",
                    package["name"], package["version"]
                ));
            }
        }
    }
    assert!(checked > 50, "only {checked} dependencies were checked");
    assert!(
        newer.is_empty(),
        "these locked dependencies need a newer Rust than rust-version = {ours}: {newer:#?}"
    );
}
