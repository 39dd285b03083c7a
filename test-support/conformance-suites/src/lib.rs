//! The external conformance layer, found in one place.
//!
//! Templiqx runs three suites that it does not own and never copies into the
//! repository (see `docs/decisions.md`, "The external conformance layer"):
//!
//! | [`Suite`] | directory below the shared root |
//! |---|---|
//! | [`Suite::Corpus`] | `corpus/` (the demo and CRM3 packages, scenarios, inventory) |
//! | [`Suite::JsonSchemaTestSuite`] | `peer-suites/json-schema-test-suite/` |
//! | [`Suite::Rfc8785Vectors`] | `peer-suites/jcs-testdata/` |
//!
//! The shared root is `$TEMPLIQX_SHARED` when that variable is set and
//! non-empty (relative to the repository root when relative), else the
//! directory `shared` beside the repository root. A test that needs a suite
//! starts with
//!
//! ```ignore
//! let Some(corpus) = templiqx_conformance_suites::locate(Suite::Corpus) else { return };
//! ```
//!
//! When the suite is there, `locate` returns its directory. When it is not,
//! the test skips what needs the suite and writes one line on standard error
//! that names the test, the suite and how to enable it (written past the
//! test harness's output capture, so `cargo test` shows it) — unless the
//! suites were asked for (`TEMPLIQX_SHARED` is set) or the environment
//! variable `CI` is set, in which case absence fails the test (see
//! [`required`]).

use std::io::Write;
use std::path::{Path, PathBuf};

/// The environment variable that names the shared root.
pub const SHARED_VAR: &str = "TEMPLIQX_SHARED";

/// One external suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suite {
    /// The conformance corpus: the `demo` and `crm3` packages, eval
    /// requests and outputs, scenario manifests and their inventory.
    Corpus,
    /// The subset of the official JSON Schema Test Suite (draft 2020-12)
    /// for the keywords of the bounded schema subset.
    JsonSchemaTestSuite,
    /// The RFC 8785 (JSON Canonicalization Scheme) reference vectors:
    /// `input/*.json` and the expected `output/*.json` bytes.
    Rfc8785Vectors,
}

impl Suite {
    /// Every suite, in the order `.ci/run` checks them.
    pub const ALL: [Suite; 3] = [
        Suite::Corpus,
        Suite::JsonSchemaTestSuite,
        Suite::Rfc8785Vectors,
    ];

    /// The suite's directory, relative to the shared root (`/`-separated).
    pub fn dir(self) -> &'static str {
        match self {
            Suite::Corpus => "corpus",
            Suite::JsonSchemaTestSuite => "peer-suites/json-schema-test-suite",
            Suite::Rfc8785Vectors => "peer-suites/jcs-testdata",
        }
    }

    /// A human name for skip lines and failures.
    pub fn name(self) -> &'static str {
        match self {
            Suite::Corpus => "the external conformance corpus",
            Suite::JsonSchemaTestSuite => "the JSON Schema Test Suite",
            Suite::Rfc8785Vectors => "the RFC 8785 vectors",
        }
    }

    /// A path inside the suite's directory that every complete copy has
    /// (relative to [`Suite::dir`]): a directory without it is incomplete.
    pub fn marker(self) -> &'static str {
        match self {
            Suite::Corpus => "crm3/scenarios/inventory.json",
            Suite::JsonSchemaTestSuite => "draft2020-12",
            Suite::Rfc8785Vectors => "input",
        }
    }
}

/// The repository root: this crate's manifest directory with its last two
/// components removed (no `..` in it, so messages show a plain path).
pub fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .and_then(Path::parent)
        .unwrap_or(manifest)
        .to_path_buf()
}

/// The value of `TEMPLIQX_SHARED` when it is set and non-empty.
fn shared_var() -> Option<PathBuf> {
    std::env::var_os(SHARED_VAR)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The shared root: `$TEMPLIQX_SHARED` when set and non-empty (a relative
/// value is taken relative to the repository root, whatever crate's test
/// runs), else the directory `shared` beside the repository root. The path
/// may not exist.
pub fn shared_root() -> PathBuf {
    shared_root_from(shared_var())
}

fn shared_root_from(var: Option<PathBuf>) -> PathBuf {
    let root = repo_root();
    match var {
        Some(v) => root.join(v),
        None => root.parent().unwrap_or(&root).join("shared"),
    }
}

/// Whether absence is a failure: when `TEMPLIQX_SHARED` is set (the suites
/// were asked for), or when the environment variable `CI` is set to
/// anything but the empty string, `0`, `false`, `no` or `off` (in any case).
pub fn required() -> bool {
    shared_var().is_some() || ci()
}

fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| means_ci(&v))
}

/// Whether a value of `CI` means "running under CI".
fn means_ci(value: &str) -> bool {
    !matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "" | "0" | "false" | "no" | "off"
    )
}

/// The directory of `suite`, or `None` after writing the skip line.
///
/// A suite is there when its directory holds its [`Suite::marker`].
///
/// # Panics
/// When the suite is absent and [`required`] holds (`TEMPLIQX_SHARED` set,
/// or under CI), with a message that names the suite, the path looked at,
/// why it is required and how to fix it.
pub fn locate(suite: Suite) -> Option<PathBuf> {
    let dir = shared_root().join(suite.dir());
    let marker = dir.join(suite.marker());
    if marker.exists() {
        return Some(dir);
    }
    let what = if dir.is_dir() {
        format!(
            "{} at {} is incomplete (no {})",
            suite.name(),
            dir.display(),
            suite.marker()
        )
    } else {
        format!("{} not found at {}", suite.name(), dir.display())
    };
    let how = format!(
        "set {SHARED_VAR} to the directory that holds `corpus/` and `peer-suites/`, \
         or check that directory out as `shared` beside the repository"
    );
    if required() {
        let why = if shared_var().is_some() {
            format!("{SHARED_VAR} is set")
        } else {
            "CI is set (CI=false runs without the external suites)".to_owned()
        };
        panic!("{what}; it is required because {why}: {how}");
    }
    // Written to the stream itself, not through `eprintln!`, so the test
    // harness's output capture does not hide it on a passing test.
    let _ = writeln!(
        std::io::stderr().lock(),
        "external suite skipped in {}: {what}; to run it, {how}",
        test_name()
    );
    None
}

/// Skips a test that needs a program of the machine rather than a suite
/// (`nvim`, for the Neovim test of `templiqx lsp`) the way [`locate`]
/// skips a missing suite: one line on standard error, `skipped in
/// binary::test: {what}; to run it, {how}`, past the output capture.
/// `TEMPLIQX_SHARED` plays no part: only `CI` makes the program required.
///
/// # Panics
/// Under CI (`CI` set to anything but the empty string, `0`, `false`, `no`
/// or `off`), with a message that says `what` is missing, that CI requires
/// it, and `how` to get it.
pub fn skip_unless_ci(what: &str, how: &str) {
    if ci() {
        panic!("{what}; it is required because CI is set (CI=false skips it): {how}");
    }
    let _ = writeln!(
        std::io::stderr().lock(),
        "skipped in {}: {what}; to run it, {how}",
        test_name()
    );
}

/// `binary::test` for the skip line: the test binary's name (its file stem
/// without cargo's hash) and the test's thread name.
fn test_name() -> String {
    let binary = std::env::current_exe().ok().and_then(|p| {
        p.file_stem()
            .map(|s| without_hash(&s.to_string_lossy()).to_owned())
    });
    let test = std::thread::current().name().map(str::to_owned);
    match (binary, test) {
        (Some(b), Some(t)) => format!("{b}::{t}"),
        (Some(n), None) | (None, Some(n)) => n,
        (None, None) => "a conformance test".to_owned(),
    }
}

/// A test binary's file stem without the `-<hex hash>` cargo appends.
fn without_hash(stem: &str) -> &str {
    match stem.rsplit_once('-') {
        Some((name, hash)) if !hash.is_empty() && hash.chars().all(|c| c.is_ascii_hexdigit()) => {
            name
        }
        _ => stem,
    }
}

/// Copies the directory tree `from` to `to` (created as needed): files and
/// directories only. The external material is read-only, and so are the
/// project's own examples while tests run: a test that changes a package
/// or a corpus changes its own copy in a temporary directory.
///
/// # Panics
/// When a directory cannot be read or a file cannot be copied (a test
/// fixture problem, reported by the failing test).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("cannot create {}: {e}", to.display()));
    let entries =
        std::fs::read_dir(from).unwrap_or_else(|e| panic!("cannot read {}: {e}", from.display()));
    for entry in entries {
        let entry = entry.unwrap_or_else(|e| panic!("cannot read {}: {e}", from.display()));
        let target = to.join(entry.file_name());
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap_or_else(|e| {
                panic!(
                    "cannot copy {} to {}: {e}",
                    entry.path().display(),
                    target.display()
                )
            });
        }
    }
}

/// Runs `git -C dir args…` for a test's own temporary repository, with the
/// machine's global and system git configuration left out (the test sets
/// what it needs, e.g. `user.name`, in the repository).
///
/// # Panics
/// When git cannot be started or exits unsuccessfully (its stderr is in
/// the message).
pub fn git(dir: &Path, args: &[&str]) {
    let out = std::process::Command::new("git")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ci_values_that_mean_no_ci() {
        for v in ["", " ", "0", "false", "FALSE", "no", "Off"] {
            assert!(!means_ci(v), "{v:?}");
        }
        for v in ["true", "1", "yes", "github"] {
            assert!(means_ci(v), "{v:?}");
        }
    }

    #[test]
    fn the_shared_root_is_beside_the_repository_or_relative_to_it() {
        let repo = repo_root();
        assert!(repo.join("Cargo.toml").is_file(), "{}", repo.display());
        assert!(
            !repo
                .components()
                .any(|c| c == std::path::Component::ParentDir),
            "{}",
            repo.display()
        );
        assert_eq!(
            shared_root_from(None),
            repo.parent().unwrap().join("shared")
        );
        assert_eq!(
            shared_root_from(Some("../material".into())),
            repo.join("../material")
        );
        assert_eq!(
            shared_root_from(Some("/abs/shared".into())),
            Path::new("/abs/shared")
        );
    }

    #[test]
    fn test_binaries_are_named_without_their_hash() {
        assert_eq!(without_hash("canonical_peer-0123abcd"), "canonical_peer");
        assert_eq!(without_hash("host-builds"), "host-builds");
        assert_eq!(without_hash("plain"), "plain");
    }
}
