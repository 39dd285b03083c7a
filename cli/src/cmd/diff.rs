//! `templiqx diff OLD NEW` / `templiqx diff --base REV PATH` (`docs/diff.md`).

use crate::input::{current_dir, display};
use crate::ui::{Status, Ui};
use serde::Serialize;
use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;
use templiqx_build::{FileSystem, RealFileSystem};
use templiqx_contracts::{CapabilityProfile, Code, Operation, OperationEnvelope};
use templiqx_diff::git::GitFileSystem;
use templiqx_diff::version::Gate;
use templiqx_diff::{Change, Kind, Report, Side, Status as Seen, Verdict, diff, render};

/// The `result` of a `diff` envelope.
#[derive(Debug, Serialize)]
struct DiffResult<'a> {
    /// The old side.
    old: SideInfo<'a>,
    /// The new side.
    new: SideInfo<'a>,
    /// Whether every version bump suffices.
    sufficient: bool,
    /// One verdict per contract.
    contracts: &'a [Verdict],
    /// The package's verdict, when both sides are packages.
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
/// Usage errors (a revision git does not know, a package compared with a
/// contract file) go to standard error with exit status 2, as clap's do.
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
                Err(e) => return usage(&format!("cannot read `{}` at `{rev}`: {e}", display(old))),
            };
            git = Some(Arc::clone(&fs));
            let old_side = Side::load(fs, &cwd, old, target, rev, true);
            let new_side = Side::load(real, &cwd, old, target, "working tree", false);
            (old_side, new_side)
        }
        (None, Some(new)) => (
            Side::load(Arc::clone(&real), &cwd, old, target, "old", false),
            Side::load(real, &cwd, new, target, "new", false),
        ),
        (None, None) => return usage("give two paths, OLD and NEW, or one path and --base REV"),
    };
    let known = |k: Kind| k != Kind::Absent;
    if known(old_side.kind) && known(new_side.kind) && old_side.kind != new_side.kind {
        let what = |k: Kind| match k {
            Kind::Package => "a package directory",
            _ => "a contract file",
        };
        return usage(&format!(
            "`{}` is {} and `{}` is {}: compare two packages or two contract files",
            old_side.path,
            what(old_side.kind),
            new_side.path,
            what(new_side.kind)
        ));
    }
    let report = diff(&old_side, &new_side);
    let diagnostics = report.plain_diagnostics();
    let status = if diagnostics
        .iter()
        .any(|d| d.is_error() && d.code == Code::Io)
    {
        Status::Error
    } else if !report.sufficient || diagnostics.iter().any(|d| d.is_error()) {
        Status::Failure
    } else {
        Status::Success
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
            if side.kind != Kind::Absent && side.problems.is_empty() {
                env = env.with_fingerprint(name, side.loader.fingerprint());
            }
        }
        ui.json_line(&env)?;
    } else {
        human(ui, &report, &old_side, &new_side)?;
    }
    Ok(status)
}

/// A usage error: on standard error, exit status 2.
fn usage(message: &str) -> io::Result<Status> {
    writeln!(io::stderr(), "error: {message}")?;
    Ok(Status::Error)
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
            "could not compare {what} `{name}`: a side does not compile (see above)"
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

fn verdict(g: &Gate) -> String {
    match (g.sufficient, g.required) {
        (true, templiqx_diff::version::Bump::None) => "no bump needed".to_owned(),
        (true, bump) => format!("the {bump} bump suffices (at least {})", g.least),
        (false, bump) => format!("needs a {bump} bump, to {} or later", g.least),
    }
}
