//! `templiqx diff OLD NEW` / `templiqx diff --base REV PATH` (`docs/diff.md`).

use crate::input::{current_dir, display};
use crate::ui::{SourceTexts, Status, Ui};
use serde::Serialize;
use std::io;
use std::path::Path;
use std::sync::Arc;
use templiqx_build::{FileSystem, RealFileSystem};
use templiqx_contracts::{CapabilityProfile, Code, Diagnostic, Operation, OperationEnvelope};
use templiqx_diff::git::{GitError, GitFileSystem};
use templiqx_diff::version::{Bump, Gate};
use templiqx_diff::{Change, Kind, Report, Side, Status as Seen, Verdict, diff, render};

/// The `result` of a `diff` envelope.
#[derive(Debug, Serialize)]
struct DiffResult<'a> {
    /// The old side.
    old: SideInfo<'a>,
    /// The new side.
    new: SideInfo<'a>,
    /// Whether everything was compared and every version bump suffices.
    sufficient: bool,
    /// One verdict per contract.
    contracts: &'a [Verdict],
    /// The package's verdict, when a side is a package.
    #[serde(skip_serializing_if = "Option::is_none")]
    package: Option<&'a Verdict>,
    /// Every change.
    changes: &'a [Change],
}

#[derive(Debug, Serialize)]
struct SideInfo<'a> {
    /// The path, as displayed.
    path: &'a str,
    /// `package`, `file`, or `absent` (not at the revision).
    kind: &'static str,
    /// The git revision and the commit it resolved to (`--base`).
    #[serde(skip_serializing_if = "Option::is_none")]
    revision: Option<Revision<'a>>,
    /// The package name and version, for a package.
    #[serde(skip_serializing_if = "Option::is_none")]
    package: Option<PackageInfo<'a>>,
}

#[derive(Debug, Serialize)]
struct Revision<'a> {
    name: &'a str,
    commit: &'a str,
}

#[derive(Debug, Serialize)]
struct PackageInfo<'a> {
    name: &'a str,
    version: &'a str,
}

/// Runs `diff`: two paths, or one path at `base` against the working tree.
///
/// Usage errors — a revision git does not know, a path outside a git
/// working tree, a path with nothing comparable at it, a package compared
/// with a contract file — are `TQX_IO` diagnostics with exit status 2,
/// printed (or, with `--format json`, in an envelope without a result) as
/// the other commands print theirs. Everything else is compared: exit
/// status 0 when everything was compared and every bump suffices, else 1.
pub fn run(
    ui: &mut Ui,
    old: &Path,
    new: Option<&Path>,
    base: Option<&str>,
    target: Option<&[String]>,
) -> io::Result<Status> {
    let cwd = current_dir();
    let target = target.map(|t| CapabilityProfile::new(t.iter().map(|c| c.trim())));
    let target = target.as_ref();
    let real: Arc<dyn FileSystem> = Arc::new(RealFileSystem);
    let mut git = None;
    let (old_side, new_side) = match (base, new) {
        (Some(rev), _) => {
            let fs = match GitFileSystem::open(old, rev) {
                Ok(fs) => Arc::new(fs),
                Err(e) => return usage(ui, vec![git_error(old, rev, &e)]),
            };
            git = Some(Arc::clone(&fs));
            // A package may be new in the working tree, or deleted from it.
            let old_side = Side::load(fs, &cwd, old, target, rev, true);
            let new_side = Side::load(real, &cwd, old, target, "working tree", true);
            if old_side.kind == Kind::Absent && new_side.kind == Kind::Absent {
                let d = Diagnostic::error(
                    Code::Io,
                    format!(
                        "`{}` is neither at `{rev}` nor in the working tree",
                        display(old)
                    ),
                )
                .help("pass the path of a package directory (holding `templiqx.yaml`) or of a contract file that exists at the revision or in the working tree");
                return usage(ui, vec![d]);
            }
            (old_side, new_side)
        }
        (None, Some(new)) => (
            Side::load(Arc::clone(&real), &cwd, old, target, "old", false),
            Side::load(real, &cwd, new, target, "new", false),
        ),
        (None, None) => {
            let d = Diagnostic::error(
                Code::Io,
                "give two paths, OLD and NEW, or one path and --base REV",
            );
            return usage(ui, vec![d]);
        }
    };
    let unusable: Vec<Diagnostic> = [&old_side, &new_side]
        .into_iter()
        .filter_map(|s| s.unusable.clone())
        .collect();
    if !unusable.is_empty() {
        return usage(ui, unusable);
    }
    let known = |k: Kind| k != Kind::Absent;
    if known(old_side.kind) && known(new_side.kind) && old_side.kind != new_side.kind {
        let what = |k: Kind| match k {
            Kind::Package => "a package directory",
            _ => "a contract file",
        };
        let message = match base {
            Some(rev) => format!(
                "`{}` is {} at `{rev}` and {} in the working tree",
                new_side.path,
                what(old_side.kind),
                what(new_side.kind)
            ),
            None => format!(
                "`{}` is {} and `{}` is {}",
                old_side.path,
                what(old_side.kind),
                new_side.path,
                what(new_side.kind)
            ),
        };
        let d =
            Diagnostic::error(Code::Io, message).help("compare two packages or two contract files");
        return usage(ui, vec![d]);
    }
    let report = diff(&old_side, &new_side);
    let diagnostics = report.plain_diagnostics();
    let status = if report.sufficient && !diagnostics.iter().any(Diagnostic::is_error) {
        Status::Success
    } else {
        Status::Failure
    };
    if ui.json() {
        let result = DiffResult {
            old: info(&old_side, git.as_deref()),
            new: info(&new_side, None),
            sufficient: report.sufficient,
            contracts: &report.contracts,
            package: report.package.as_ref(),
            changes: &report.changes,
        };
        let mut env = OperationEnvelope::new(Operation::Diff, Some(result), diagnostics);
        for (name, side) in [("old", &old_side), ("new", &new_side)] {
            if side.kind != Kind::Absent && side.loaded() {
                env = env.with_fingerprint(name, side.loader.fingerprint());
            }
        }
        ui.json_line(&env)?;
    } else {
        human(ui, &report, &old_side, &new_side)?;
    }
    Ok(status)
}

/// A usage error: its diagnostics (in an envelope without a result, with
/// `--format json`), exit status 2.
fn usage(ui: &mut Ui, diagnostics: Vec<Diagnostic>) -> io::Result<Status> {
    if ui.json() {
        let env = OperationEnvelope::<DiffResult<'_>>::new(Operation::Diff, None, diagnostics);
        ui.json_line(&env)?;
    } else {
        ui.diagnostics(&diagnostics, &SourceTexts::default())?;
        ui.error_line("nothing was compared")?;
    }
    Ok(Status::Error)
}

/// Why `--base REV` cannot read `path`, as a `TQX_IO` diagnostic with what
/// to do about it.
fn git_error(path: &Path, rev: &str, e: &GitError) -> Diagnostic {
    let d = Diagnostic::error(
        Code::Io,
        format!("cannot read `{}` at `{rev}`: {e}", display(path)),
    );
    match e {
        GitError::UnknownRevision(_) => d
            .help(format!(
                "check the name, and fetch the base branch first: in a shallow or single-branch clone (what `actions/checkout` makes by default), `git fetch --no-tags origin {branch}` records it only as `FETCH_HEAD`, so pass `--base FETCH_HEAD`; or fetch it under its remote name with `git fetch --no-tags origin {branch}:refs/remotes/origin/{branch}` and pass `--base origin/{branch}`",
                branch = rev
                    .strip_prefix("origin/")
                    .filter(|b| !b.is_empty())
                    .unwrap_or("main"),
            ))
            .note("a branch, a tag, a commit id, `origin/main` or `HEAD~1` names a commit"),
        GitError::NotARepository(_) => d.help(
            "--base reads the revision from the git repository whose working tree holds the path; run it inside a clone, or compare two paths with `templiqx diff OLD NEW`",
        ),
        GitError::Spawn(_) => d.help("install git: --base reads the revision through it"),
        GitError::Failed(_) => d,
    }
}

fn info<'a>(side: &'a Side, git: Option<&'a GitFileSystem>) -> SideInfo<'a> {
    SideInfo {
        path: &side.path,
        kind: match side.kind {
            Kind::Package => "package",
            Kind::File => "file",
            Kind::Absent => "absent",
        },
        revision: git.map(|g| Revision {
            name: g.revision(),
            commit: g.commit(),
        }),
        package: side.manifest().map(|m| PackageInfo {
            name: &m.package,
            version: &m.version,
        }),
    }
}

fn human(ui: &mut Ui, report: &Report, old: &Side, new: &Side) -> io::Result<()> {
    let color = ui.colored();
    let mut text = String::new();
    for c in &report.changes {
        text.push_str(&render::change(c, old, new, color));
        text.push_str("\n\n");
    }
    let (gates, problems): (Vec<_>, Vec<_>) = report
        .diagnostics
        .iter()
        .partition(|d| d.diagnostic.code == Code::VersionBump);
    for d in problems {
        text.push_str(&render::diagnostic(d, old, new, color));
        text.push_str("\n\n");
    }
    ui.write(&text)?;
    for v in &report.contracts {
        summary(ui, "contract", v)?;
    }
    if let Some(v) = &report.package {
        summary(ui, "package", v)?;
    }
    if report.contracts.is_empty() && report.package.is_none() && report.diagnostics.is_empty() {
        ui.status(
            "Compared",
            &format!("{} and {}: no contracts", old.path, new.path),
        )?;
    }
    if !gates.is_empty() {
        ui.line("")?;
        let mut text = String::new();
        for d in gates {
            text.push_str(&render::diagnostic(d, old, new, color));
            text.push_str("\n\n");
        }
        ui.write(&text)?;
    }
    Ok(())
}

/// One cargo-style line per contract and package.
fn summary(ui: &mut Ui, what: &str, v: &Verdict) -> io::Result<()> {
    let name = &v.name;
    match v.status {
        Seen::Added => ui.status("Added", &format!("{what} `{name}`")),
        Seen::Removed => ui.status("Removed", &format!("{what} `{name}`")),
        Seen::NotCompared => ui.error_line(&format!(
            "could not compare {what} `{name}`: {} (see above)",
            v.reason.as_deref().unwrap_or("a side does not compile")
        )),
        Seen::Unchanged | Seen::Changed => {
            let Some(g) = &v.gate else {
                return ui.status("Compared", &format!("{what} `{name}`"));
            };
            let plural = if v.changes == 1 { "" } else { "s" };
            let class = g.class.map_or(String::new(), |c| format!(", {c}"));
            ui.status(
                "Compared",
                &format!(
                    "{what} `{name}` {} → {}: {} change{plural}{class}; {}",
                    g.old,
                    g.new,
                    v.changes,
                    verdict(g)
                ),
            )
        }
    }
}

/// The end of a summary line: `no bump needed`, `the patch bump suffices
/// (at least 0.1.1)`, `needs a minor bump, to 0.2.0 or later`, or, when no
/// bump is needed but the gate fails (a version that went down, or is not
/// SemVer), why.
fn verdict(g: &Gate) -> String {
    match (g.sufficient, g.required) {
        (true, Bump::None) => "no bump needed".to_owned(),
        (true, bump) => format!("the {bump} bump suffices (at least {})", g.least),
        (false, Bump::None) => g
            .reason
            .clone()
            .unwrap_or_else(|| "the version bump is not enough".to_owned()),
        (false, bump) => format!("needs a {bump} bump, to {} or later", g.least),
    }
}
