//! Host crates built with cargo by the tests (`host_builds.rs`,
//! `host_looked_for.rs`): a crate in a temporary directory with path
//! dependencies on this workspace and a copy of its `Cargo.lock`, built
//! `--offline` (the workspace build has fetched every crate) into a target
//! directory the tests share, so dependencies compile once.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root.
pub fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// The target directory the hosts share: `target/host-tests`.
pub fn shared_target() -> PathBuf {
    workspace().join("target/host-tests")
}

/// A host crate in a temporary directory (removed when dropped).
pub struct Host {
    dir: tempfile::TempDir,
}

impl Host {
    /// A host crate named `name`: its `Cargo.toml` (a dependency on the
    /// runtime, and on `templiqx-build` as a build dependency when
    /// `build_dependency`; its own `[workspace]`; the dev profile without
    /// debug info, the same for every host so dependency builds are shared)
    /// and a copy of the workspace's `Cargo.lock`. No sources yet.
    pub fn new(name: &str, build_dependency: bool) -> Host {
        let host = Host {
            dir: tempfile::tempdir().unwrap(),
        };
        let ws = workspace();
        let build = if build_dependency {
            format!(
                "\n[build-dependencies]\ntempliqx-build = {{ path = \"{}\" }}\n",
                ws.join("build-support").display()
            )
        } else {
            String::new()
        };
        host.write(
            "Cargo.toml",
            &format!(
                "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n[dependencies]\ntempliqx = {{ path = \"{}\" }}\n{build}\n[workspace]\n\n[profile.dev]\ndebug = false\n",
                ws.join("runtime").display()
            ),
        );
        fs::copy(ws.join("Cargo.lock"), host.path().join("Cargo.lock")).unwrap();
        host
    }

    /// The crate root.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes `text` to `rel` below the crate root, creating directories.
    pub fn write(&self, rel: &str, text: &str) {
        let p = self.path().join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    /// `cargo ARGS --offline` in the crate root with `target` as the target
    /// directory (Cargo's own flags go before any `--`, which starts the
    /// arguments of the binary or test run).
    pub fn cargo(&self, args: &[&str], target: &Path) -> Output {
        let split = args.iter().position(|a| *a == "--").unwrap_or(args.len());
        Command::new(env!("CARGO"))
            .args(&args[..split])
            .arg("--offline")
            .args(&args[split..])
            .env("CARGO_TARGET_DIR", target)
            .env_remove("RUSTFLAGS")
            .current_dir(self.path())
            .output()
            .unwrap()
    }

    /// `cargo run` into `target`, which must succeed: its standard output.
    pub fn run(&self, target: &Path) -> String {
        let out = self.cargo(&["run"], target);
        assert!(
            out.status.success(),
            "cargo run failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }
}
