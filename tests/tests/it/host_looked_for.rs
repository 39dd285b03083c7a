//! Builds real host crates with cargo to check what a build tracks besides
//! the files it read (`docs/decisions.md`, "What a build tracks"): a
//! `templiqx.yaml` created above a contract that had no package makes it
//! part of that package, and
//!
//! * a host compiling it with `Builder` in `build.rs` is rebuilt with the
//!   new meaning, while a build with nothing changed stays fresh;
//! * a host compiling it with `include_contract!` is not (stable Rust lets
//!   a macro track only files that exist), until the contract is touched.
//!
//! Like `host_builds.rs`, the hosts live in temporary directories with path
//! dependencies on this workspace and a copy of its `Cargo.lock`, build
//! `--offline`, and share the target directory `target/host-tests` (and its
//! profile), so dependencies compile once.

use crate::common::host::{Host, shared_target};
use std::fs;
use std::time::{Duration, SystemTime};

/// A contract with no package: its include resolves in its own directory
/// until a `templiqx.yaml` above it makes that directory's package root the
/// include root.
const NOTE: &str = r#"api_version: templiqx/v1alpha1
id: note
version: 0.1.0
inputs:
  subject: { schema: { type: string }, required: true }
capabilities: [structured_output]
messages:
  - role: user
    content:
      - { kind: include, path: partials/intro.yaml }
      - kind: interpolate
        expression: { kind: ref, path: inputs.subject }
output_schema: { type: object }
"#;

const CONTRACT: &str = "prompts/lease/note.yaml";
const MANIFEST: &str = "prompts/templiqx.yaml";

/// What the hosts print: the rendered message, then the interaction
/// fingerprint (`note` is the generated module).
const PRINT: &str = r#"
fn main() {
    let r = note::render(&note::Inputs { subject: "world".to_owned() }, &note::Context {}).unwrap();
    println!("{}", r.messages[0].content);
    println!("{}", note::INTERACTION_FINGERPRINT);
}
"#;

/// A host crate named `name` (with a `build.rs` compiling the contract
/// when `build_rs`) whose `src/main.rs` is `main`, the contract, and a
/// partial at each of the two places its include can resolve.
fn note_host(name: &str, build_rs: bool, main: &str) -> Host {
    let host = Host::new(name, build_rs);
    if build_rs {
        host.write(
            "build.rs",
            &format!(
                "fn main() {{\n    if let Err(e) = templiqx_build::Builder::new().target([\"structured_output\"]).eval_tests(false).contract(\"{CONTRACT}\").compile() {{\n        eprintln!(\"{{e}}\");\n        std::process::exit(1);\n    }}\n}}\n"
            ),
        );
    }
    host.write("src/main.rs", main);
    host.write(CONTRACT, NOTE);
    host.write(
        "prompts/lease/partials/intro.yaml",
        "- { kind: text, value: 'Without a package, ' }\n",
    );
    host.write(
        "prompts/partials/intro.yaml",
        "- { kind: text, value: 'In the package, ' }\n",
    );
    host
}

/// `cargo run`: the rendered message and the interaction fingerprint.
fn run(host: &Host) -> (String, String) {
    let stdout = host.run(&shared_target());
    let mut lines = stdout.lines().map(str::to_owned);
    let message = lines.next().expect("the rendered message");
    let fingerprint = lines.next().expect("the interaction fingerprint");
    (message, fingerprint)
}

/// Creates the manifest that puts the contract in the package `prompts`,
/// after a pause: Cargo compares modification times, and a file system may
/// keep them in whole seconds.
fn create_package(host: &Host) {
    std::thread::sleep(Duration::from_millis(1100));
    host.write(
        MANIFEST,
        "api_version: templiqx/v1alpha1\npackage: prompts\nversion: 0.1.0\n",
    );
}

/// The output file of `host`'s most recent build script run: the one that
/// tracks the host's contract.
fn build_script_output(host: &Host) -> String {
    let build = shared_target().join("debug/build");
    let contract = host.path().canonicalize().unwrap().join(CONTRACT);
    let marker = format!("cargo:rerun-if-changed={}\n", contract.display());
    let mut newest: Option<(SystemTime, String)> = None;
    for entry in fs::read_dir(build).unwrap() {
        let file = entry.unwrap().path().join("output");
        let Ok(text) = fs::read_to_string(&file) else {
            continue;
        };
        let modified = fs::metadata(&file).unwrap().modified().unwrap();
        if text.contains(&marker) && newest.as_ref().is_none_or(|(t, _)| modified > *t) {
            newest = Some((modified, text));
        }
    }
    newest.expect("the host's build script output").1
}

#[test]
fn builder_rebuilds_when_a_manifest_appears_above_a_contract_without_a_package() {
    let host = note_host(
        "looked-for-build-host",
        true,
        &format!("include!(concat!(env!(\"OUT_DIR\"), \"/templiqx_contracts.rs\"));\n{PRINT}"),
    );
    let (message, before) = run(&host);
    assert_eq!(message, "Without a package, world");

    // The crate root is watched (the target directory is elsewhere), the
    // directories above it are not, and the reason is in the output.
    let root = host.path().canonicalize().unwrap();
    let output = build_script_output(&host);
    assert!(
        output
            .lines()
            .any(|l| l == format!("cargo:rerun-if-changed={}", root.display())),
        "{output}"
    );
    // The reason depends on where the workspace is: when the target
    // directory is under the host's parent too (a checkout in the temporary
    // directory), that parent holds the build's output.
    let above = root.parent().unwrap().join("templiqx.yaml");
    let untracked = format!(
        "# templiqx-build: the creation of {} is not tracked: its nearest existing directory ",
        above.display()
    );
    assert!(
        output.lines().any(|l| l
            .strip_prefix(&untracked)
            .is_some_and(|why| why.starts_with("lies above the crate root")
                || why.starts_with("holds the build's output"))),
        "{output}"
    );

    // Watching a directory does not rerun every build.
    let out = host.cargo(&["build"], &shared_target());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        !stderr.contains("Compiling looked-for-build-host"),
        "a build with nothing changed is fresh:\n{stderr}"
    );

    create_package(&host);
    let (message, after) = run(&host);
    assert_eq!(
        message, "In the package, world",
        "the include now resolves in the package"
    );
    assert_ne!(after, before, "the interaction changed");
}

#[test]
fn include_contract_misses_a_manifest_appearing_above_until_the_contract_is_touched() {
    let host = note_host(
        "looked-for-macro-host",
        false,
        &format!(
            "templiqx::include_contract!(\"{CONTRACT}\", target = [\"structured_output\"], evals = false);\n{PRINT}"
        ),
    );
    let (message, before) = run(&host);
    assert_eq!(message, "Without a package, world");

    // The documented limitation: the macro tracks only the files it read,
    // so Cargo sees nothing new and keeps the old binary.
    create_package(&host);
    let (message, stale) = run(&host);
    assert_eq!(message, "Without a package, world");
    assert_eq!(stale, before);

    // The documented workaround: touching the contract recompiles it.
    fs::File::options()
        .write(true)
        .open(host.path().join(CONTRACT))
        .unwrap()
        .set_modified(SystemTime::now())
        .unwrap();
    let (message, after) = run(&host);
    assert_eq!(message, "In the package, world");
    assert_ne!(after, before);
}
