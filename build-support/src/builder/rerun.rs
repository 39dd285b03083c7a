//! What [`Builder::compile`](super::Builder::compile) tells Cargo to watch
//! (`docs/decisions.md`, "What a build tracks"): every file read, and for
//! each path looked for and not found ([`Loader::looked_for`]) the nearest
//! existing path above it, when watching that path is bounded.
//!
//! Cargo compares a `rerun-if-changed` path by the newest modification time
//! of the path and, for a directory, of everything under it (following
//! symlinks), against the time the build script last started; a path that
//! does not exist counts as changed. Creating a file updates its
//! directory's modification time, and creating the missing directories of
//! a path updates that of the nearest existing one; so watching the nearest
//! existing directory of a missing path notices its creation.
//!
//! [`Loader::looked_for`]: crate::Loader::looked_for

use std::path::{Path, PathBuf};

/// The directories a watch must not hold, as real paths (canonicalised:
/// the looked-for paths are, up to their longest existing ancestor).
#[derive(Clone, Debug, Default)]
pub(super) struct Bounds {
    /// Where the build writes: `OUT_DIR` and the generated file. Cargo
    /// writes into the target directory after the build script starts, so a
    /// directory holding one is newer than the last run after every build.
    pub(super) outputs: Vec<PathBuf>,
    /// The crate root (`CARGO_MANIFEST_DIR`). The crate root itself may be
    /// watched (what Cargo does for a build script that prints no
    /// `rerun-if-changed`); a directory above it holds other crates, the
    /// workspace, the home directory, up to `/`.
    pub(super) crate_root: Option<PathBuf>,
}

/// Why a looked-for path is not tracked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Unwatched {
    /// No ancestor of the path exists (a relative path, or a directory
    /// removed since the compilation): there is nothing to watch, and a
    /// missing path would rerun the build script on every build.
    NothingExists,
    /// The nearest existing directory holds `OUT_DIR` or the generated
    /// file (the target directory): it would rerun every build.
    HoldsOutput,
    /// The nearest existing directory lies above the crate root: Cargo
    /// would scan it all on every build and rerun on any change under it.
    AboveCrate,
    /// The nearest existing directory is a file-system root.
    Root,
}

impl Unwatched {
    fn describe(self) -> &'static str {
        match self {
            Unwatched::NothingExists => "no ancestor exists",
            Unwatched::HoldsOutput => {
                "its nearest existing directory holds the build's output, so watching it would rerun every build"
            }
            Unwatched::AboveCrate => {
                "its nearest existing directory lies above the crate root, so watching it would scan it all on every build"
            }
            Unwatched::Root => "its nearest existing directory is a file-system root",
        }
    }
}

/// The paths to watch for a set of looked-for paths, and those left
/// untracked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Watch {
    /// Each watched path once, in the order first needed; none lies under
    /// another (Cargo scans a directory's whole tree).
    pub(super) paths: Vec<PathBuf>,
    /// Each looked-for path that is not tracked, with its nearest existing
    /// ancestor (when one exists) and the reason.
    pub(super) unwatched: Vec<(PathBuf, Option<PathBuf>, Unwatched)>,
}

/// For each path of `looked_for`, the nearest existing path (the path
/// itself when it exists but could not be read, else its nearest existing
/// ancestor), unless [`Bounds`] rule it out; `exists` says whether
/// something is at a path (following symlinks, as Cargo's `stat` does).
pub(super) fn plan(
    looked_for: &[PathBuf],
    bounds: &Bounds,
    exists: &dyn Fn(&Path) -> bool,
) -> Watch {
    let mut watch = Watch::default();
    for missing in looked_for {
        let Some(nearest) = missing.ancestors().find(|p| exists(p)) else {
            watch
                .unwatched
                .push((missing.clone(), None, Unwatched::NothingExists));
            continue;
        };
        let why = if bounds.outputs.iter().any(|o| o.starts_with(nearest)) {
            Some(Unwatched::HoldsOutput)
        } else if bounds
            .crate_root
            .as_deref()
            .is_some_and(|root| root != nearest && root.starts_with(nearest))
        {
            Some(Unwatched::AboveCrate)
        } else if nearest.parent().is_none() {
            Some(Unwatched::Root)
        } else {
            None
        };
        match why {
            Some(why) => {
                watch
                    .unwatched
                    .push((missing.clone(), Some(nearest.to_path_buf()), why));
            }
            None => {
                if !watch.paths.iter().any(|p| p == nearest) {
                    watch.paths.push(nearest.to_path_buf());
                }
            }
        }
    }
    // A directory's watch covers everything under it.
    let all = watch.paths.clone();
    watch
        .paths
        .retain(|p| !all.iter().any(|q| q != p && p.starts_with(q)));
    watch
}

/// What the build script prints: `cargo:rerun-if-changed` for every file
/// read, then for every watched path; then one comment line (which Cargo
/// ignores, and keeps in the build script's `output` file) per looked-for
/// path left untracked, saying why.
pub(super) fn lines(files_read: &[PathBuf], watch: &Watch) -> Vec<String> {
    let mut lines: Vec<String> = files_read
        .iter()
        .chain(&watch.paths)
        .map(|p| format!("cargo:rerun-if-changed={}", p.display()))
        .collect();
    for (missing, nearest, why) in &watch.unwatched {
        let at = nearest
            .as_ref()
            .map(|n| format!(" ({})", n.display()))
            .unwrap_or_default();
        lines.push(format!(
            "# templiqx-build: the creation of {} is not tracked: {}{at}",
            missing.display(),
            why.describe()
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// A file system holding exactly `paths` (absolute, `/`-separated).
    fn holding(paths: &[&str]) -> impl Fn(&Path) -> bool {
        let set: BTreeSet<PathBuf> = paths.iter().map(|p| abs(p)).collect();
        move |p: &Path| set.contains(p)
    }

    /// `/`-separated test paths, made absolute for the platform.
    fn abs(p: &str) -> PathBuf {
        let root = if cfg!(windows) { "C:\\" } else { "/" };
        let mut path = PathBuf::from(root);
        path.extend(p.split('/').filter(|s| !s.is_empty()));
        path
    }

    fn paths(ps: &[&str]) -> Vec<PathBuf> {
        ps.iter().map(|p| abs(p)).collect()
    }

    fn rendered(p: &str) -> String {
        abs(p).display().to_string()
    }

    /// The directories of a workspace member `/ws/host` whose target
    /// directory is `/ws/target`, with contracts in `/ws/host/prompts`.
    const WORKSPACE: &[&str] = &[
        "/",
        "/ws",
        "/ws/host",
        "/ws/host/prompts",
        "/ws/host/prompts/lease",
        "/ws/host/prompts/lease/note.yaml",
        "/ws/target",
        "/ws/target/debug",
        "/ws/target/debug/build",
        "/ws/target/debug/build/host-1/out",
    ];

    fn workspace_bounds() -> Bounds {
        Bounds {
            outputs: paths(&["/ws/target/debug/build/host-1/out"]),
            crate_root: Some(abs("/ws/host")),
        }
    }

    /// The manifests searched for a contract without a package at
    /// `/ws/host/prompts/lease/note.yaml`, as `Loader::compile_file`
    /// records them.
    fn manifest_search() -> Vec<PathBuf> {
        paths(&[
            "/ws/host/prompts/lease/templiqx.yaml",
            "/ws/host/prompts/templiqx.yaml",
            "/ws/host/templiqx.yaml",
            "/ws/templiqx.yaml",
            "/templiqx.yaml",
        ])
    }

    #[test]
    fn a_workspace_member_watches_its_crate_root_once_and_nothing_above() {
        let watch = plan(&manifest_search(), &workspace_bounds(), &holding(WORKSPACE));
        // `prompts/lease` and `prompts` lie under the crate root: one line.
        assert_eq!(watch.paths, paths(&["/ws/host"]));
        assert_eq!(
            watch.unwatched,
            [
                (
                    abs("/ws/templiqx.yaml"),
                    Some(abs("/ws")),
                    Unwatched::HoldsOutput
                ),
                (
                    abs("/templiqx.yaml"),
                    Some(abs("/")),
                    Unwatched::HoldsOutput
                ),
            ]
        );
    }

    #[test]
    fn a_crate_holding_its_target_directory_watches_only_below_its_root() {
        let fs = holding(&[
            "/",
            "/c",
            "/c/prompts",
            "/c/prompts/lease",
            "/c/target/debug/build/c-1/out",
        ]);
        let bounds = Bounds {
            outputs: paths(&["/c/target/debug/build/c-1/out"]),
            crate_root: Some(abs("/c")),
        };
        let looked_for = paths(&[
            "/c/prompts/lease/templiqx.yaml",
            "/c/prompts/templiqx.yaml",
            "/c/templiqx.yaml",
            "/templiqx.yaml",
        ]);
        let watch = plan(&looked_for, &bounds, &fs);
        assert_eq!(watch.paths, paths(&["/c/prompts"]));
        assert_eq!(
            watch.unwatched,
            [
                (
                    abs("/c/templiqx.yaml"),
                    Some(abs("/c")),
                    Unwatched::HoldsOutput
                ),
                (
                    abs("/templiqx.yaml"),
                    Some(abs("/")),
                    Unwatched::HoldsOutput
                ),
            ]
        );
        assert_eq!(
            lines(&paths(&["/c/prompts/lease/note.yaml"]), &watch),
            [
                format!(
                    "cargo:rerun-if-changed={}",
                    rendered("/c/prompts/lease/note.yaml")
                ),
                format!("cargo:rerun-if-changed={}", rendered("/c/prompts")),
                format!(
                    "# templiqx-build: the creation of {} is not tracked: its nearest existing directory holds the build's output, so watching it would rerun every build ({})",
                    rendered("/c/templiqx.yaml"),
                    rendered("/c")
                ),
                format!(
                    "# templiqx-build: the creation of {} is not tracked: its nearest existing directory holds the build's output, so watching it would rerun every build ({})",
                    rendered("/templiqx.yaml"),
                    rendered("/")
                ),
            ]
        );
    }

    #[test]
    fn a_target_directory_elsewhere_leaves_the_directories_above_the_crate() {
        // The host tests' layout: the crate in a temporary directory, the
        // target directory shared elsewhere.
        let fs = holding(&["/", "/tmp", "/tmp/h", "/tmp/h/prompts", "/ws/target/o"]);
        let bounds = Bounds {
            outputs: paths(&["/ws/target/o"]),
            crate_root: Some(abs("/tmp/h")),
        };
        let looked_for = paths(&[
            "/tmp/h/prompts/templiqx.yaml",
            "/tmp/h/templiqx.yaml",
            "/tmp/templiqx.yaml",
            "/templiqx.yaml",
        ]);
        let watch = plan(&looked_for, &bounds, &fs);
        assert_eq!(watch.paths, paths(&["/tmp/h"]));
        assert_eq!(
            watch.unwatched,
            [
                (
                    abs("/tmp/templiqx.yaml"),
                    Some(abs("/tmp")),
                    Unwatched::AboveCrate
                ),
                // `/` holds the target directory too: that reason comes first.
                (
                    abs("/templiqx.yaml"),
                    Some(abs("/")),
                    Unwatched::HoldsOutput
                ),
            ]
        );
    }

    #[test]
    fn a_root_is_never_watched() {
        let fs = holding(&["/"]);
        let watch = plan(&paths(&["/templiqx.yaml"]), &Bounds::default(), &fs);
        assert_eq!(watch.paths, Vec::<PathBuf>::new());
        assert_eq!(
            watch.unwatched,
            [(abs("/templiqx.yaml"), Some(abs("/")), Unwatched::Root)]
        );
    }

    #[test]
    fn missing_directories_are_watched_from_the_nearest_existing_one() {
        // A dependency `../../libs/common` of `/ws/host/prompts` whose
        // directory is missing, and includes whose `partials/` is missing:
        // creating them updates the modification time of `/ws/host/prompts`
        // and of `/ws/libs`.
        let fs = holding(&["/", "/ws", "/ws/host", "/ws/host/prompts", "/ws/libs"]);
        let looked_for = paths(&[
            "/ws/host/prompts/partials/deep/intro.yaml",
            "/ws/libs/common/templiqx.yaml",
            "/ws/host/prompts/partials/outro.yaml",
        ]);
        let watch = plan(&looked_for, &workspace_bounds(), &fs);
        assert_eq!(watch.paths, paths(&["/ws/host/prompts", "/ws/libs"]));
        assert!(watch.unwatched.is_empty(), "{:?}", watch.unwatched);
    }

    #[test]
    fn an_existing_path_that_could_not_be_read_is_watched_itself() {
        let fs = holding(&["/", "/ws", "/ws/host", "/ws/host/secret.yaml"]);
        let watch = plan(&paths(&["/ws/host/secret.yaml"]), &workspace_bounds(), &fs);
        assert_eq!(watch.paths, paths(&["/ws/host/secret.yaml"]));
    }

    #[test]
    fn a_directory_holding_a_custom_output_file_is_not_watched() {
        // `out_file("prompts/gen/contracts.rs")`: the build writes under
        // `prompts`, so watching it would rerun every build.
        let fs = holding(&["/", "/ws", "/ws/host", "/ws/host/prompts"]);
        let bounds = Bounds {
            outputs: paths(&["/ws/target/o", "/ws/host/prompts/gen"]),
            crate_root: Some(abs("/ws/host")),
        };
        let watch = plan(&paths(&["/ws/host/prompts/templiqx.yaml"]), &bounds, &fs);
        assert_eq!(watch.paths, Vec::<PathBuf>::new());
        assert_eq!(watch.unwatched[0].2, Unwatched::HoldsOutput);
    }

    #[test]
    fn watched_paths_are_deduplicated_in_first_use_order() {
        let fs = holding(&[
            "/",
            "/ws",
            "/ws/host",
            "/ws/host/b",
            "/ws/host/a",
            "/ws/host/a/x",
        ]);
        let looked_for = paths(&[
            "/ws/host/b/one.yaml",
            "/ws/host/a/x/one.yaml",
            "/ws/host/b/two.yaml",
            "/ws/host/a/two.yaml",
            "/ws/host/a/x/three.yaml",
        ]);
        let watch = plan(&looked_for, &workspace_bounds(), &fs);
        // `a/x` is dropped for `a`, which holds it; `b` appears once.
        assert_eq!(watch.paths, paths(&["/ws/host/b", "/ws/host/a"]));
    }

    #[test]
    fn a_path_with_no_existing_ancestor_is_not_watched() {
        let watch = plan(
            &[PathBuf::from("relative/templiqx.yaml")],
            &workspace_bounds(),
            &holding(WORKSPACE),
        );
        assert!(watch.paths.is_empty());
        assert_eq!(
            watch.unwatched,
            [(
                PathBuf::from("relative/templiqx.yaml"),
                None,
                Unwatched::NothingExists
            )]
        );
        assert_eq!(
            lines(&[], &watch),
            [
                "# templiqx-build: the creation of relative/templiqx.yaml is not tracked: no ancestor exists"
            ]
        );
    }
}
