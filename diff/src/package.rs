//! Comparing two sides: contracts matched by id, the manifests, and the
//! version gates (`docs/diff.md`).

use crate::change::{Change, Report, Sided, Status, Verdict, Which};
use crate::contract::{Pair, edit, same_shape, union};
use crate::rules::{Class, Rule};
use crate::side::{Kind, Side};
use crate::version::{Gate, gate};
use serde_json::Value;
use templiqx_build::{CompiledContract, Manifest};
use templiqx_contracts::diagnostic::pointer_push;
use templiqx_contracts::{Code, Diagnostic};

/// Compares `old` with `new` (see the crate documentation).
///
/// Contracts are matched by id. A contract on one side only is
/// `CONTRACT_REMOVED` or `CONTRACT_ADDED`; one that does not compile on a
/// side is not compared, and its diagnostics are in the report. When both
/// sides are packages, the manifests are compared too (dependencies, tool
/// contracts, artifact lists, description, provenance) and the package
/// version is gated by every change; each contract's version is gated by
/// its own changes.
pub fn diff(old: &Side, new: &Side) -> Report {
    let mut report = Report::default();
    for (which, side) in [(Which::Old, old), (Which::New, new)] {
        for d in &side.problems {
            report.diagnostics.push(sided(which, side, d.clone()));
        }
    }
    if let (Some(a), Some(b)) = (old.manifest(), new.manifest()) {
        manifests(old, new, a, b, &mut report.changes);
    }
    let id_of = |c: &CompiledContract| (!c.id.is_empty()).then(|| c.id.clone());
    let ids = union(
        old.contracts.iter().filter_map(id_of),
        new.contracts.iter().filter_map(id_of),
    );
    for id in &ids {
        let a = old.contracts.iter().find(|c| &c.id == id);
        let b = new.contracts.iter().find(|c| &c.id == id);
        let verdict = match (a, b) {
            (Some(a), None) => removed_or_added((old, new), a, Rule::ContractRemoved, &mut report),
            (None, Some(b)) => removed_or_added((new, old), b, Rule::ContractAdded, &mut report),
            (Some(a), Some(b)) => compare(old, new, a, b, &mut report),
            (None, None) => continue,
        };
        report.contracts.push(verdict);
    }
    // Contracts that did not even parse an id are reported as they failed.
    for (which, side) in [(Which::Old, old), (Which::New, new)] {
        for c in side.contracts.iter().filter(|c| c.id.is_empty()) {
            for d in &c.diagnostics {
                report.diagnostics.push(sided(which, side, d.clone()));
            }
        }
    }
    if let (Some(a), Some(b)) = (old.manifest(), new.manifest()) {
        let class = report.changes.iter().map(|c| c.class).max();
        let g = gate(&a.version, &b.version, class);
        if !g.sufficient
            && let Some(file) = new.manifest_file()
        {
            let what = format!("package `{}`", b.package);
            report
                .diagnostics
                .push(gate_failure(new, file, &what, &g, &report.changes));
        }
        report.package = Some(Verdict {
            name: b.package.clone(),
            status: if report.changes.is_empty() {
                Status::Unchanged
            } else {
                Status::Changed
            },
            changes: report.changes.len(),
            gate: Some(g),
        });
    }
    report.sufficient = report
        .contracts
        .iter()
        .chain(&report.package)
        .all(|v| v.gate.as_ref().is_none_or(|g| g.sufficient));
    report
}

fn sided(which: Which, side: &Side, mut d: Diagnostic) -> Sided {
    if which == Which::Old {
        d.notes.push(format!("in the old version ({})", side.label));
    }
    Sided {
        side: which,
        diagnostic: d,
    }
}

/// `CONTRACT_REMOVED` / `CONTRACT_ADDED` for a contract on `sides.0` only;
/// on `sides.1`, the change points at the manifest's contract list when it
/// has one.
fn removed_or_added(
    (side, other): (&Side, &Side),
    c: &CompiledContract,
    rule: Rule,
    report: &mut Report,
) -> Verdict {
    let (verb, status) = match rule {
        Rule::ContractRemoved => ("was removed", Status::Removed),
        _ => ("was added", Status::Added),
    };
    let version = c
        .contract
        .as_ref()
        .map(|d| format!(" v{}", d.version))
        .unwrap_or_default();
    let mut change = Change::new(
        rule,
        Some(&c.id),
        format!("contract `{}`{version} {verb}", c.id),
    );
    let at = match (side.manifest(), side.manifest_file()) {
        (Some(m), Some(file)) => m
            .contracts
            .iter()
            .position(|x| *x == c.id)
            .map(|i| side.locate(file, &format!("/contracts/{i}"))),
        _ => None,
    }
    .or_else(|| c.contract.as_ref().map(|d| side.locate(d.loc.file, "/id")));
    let list = other
        .manifest_file()
        .map(|file| other.locate(file, "/contracts"));
    if rule == Rule::ContractRemoved {
        (change.old, change.new) = (at, list);
    } else {
        (change.new, change.old) = (at, list);
    }
    report.changes.push(change);
    Verdict {
        name: c.id.clone(),
        status,
        changes: 0,
        gate: None,
    }
}

/// Compares one contract on both sides; its changes go to the report.
fn compare(
    old: &Side,
    new: &Side,
    a: &CompiledContract,
    b: &CompiledContract,
    report: &mut Report,
) -> Verdict {
    let compiled = |c: &CompiledContract| c.contract.is_some() && c.interaction.is_some();
    if !compiled(a) || !compiled(b) {
        for (which, side, c) in [(Which::Old, old, a), (Which::New, new, b)] {
            if !compiled(c) {
                for d in &c.diagnostics {
                    report.diagnostics.push(sided(which, side, d.clone()));
                }
            }
        }
        return Verdict {
            name: b.id.clone(),
            status: Status::NotCompared,
            changes: 0,
            gate: None,
        };
    }
    let (Some(old_dto), Some(new_dto), Some(old_ir), Some(new_ir)) =
        (&a.contract, &b.contract, &a.interaction, &b.interaction)
    else {
        unreachable!("checked by `compiled`")
    };
    let pair = Pair {
        old,
        new,
        id: &b.id,
        old_dto,
        new_dto,
        old_ir,
        new_ir,
    };
    let changes = pair.compare();
    let class = changes.iter().map(|c| c.class).max();
    let g = gate(&old_dto.version, &new_dto.version, class);
    if !g.sufficient {
        let what = format!("contract `{}`", b.id);
        report
            .diagnostics
            .push(gate_failure(new, new_dto.loc.file, &what, &g, &changes));
    }
    let verdict = Verdict {
        name: b.id.clone(),
        status: if changes.is_empty() {
            Status::Unchanged
        } else {
            Status::Changed
        },
        changes: changes.len(),
        gate: Some(g),
    };
    report.changes.extend(changes);
    verdict
}

/// `TQX_VERSION_BUMP` at the new `version` of `what` (a contract or the
/// package in `file`), naming the changes that need the bump.
fn gate_failure(new: &Side, file: u32, what: &str, g: &Gate, changes: &[Change]) -> Sided {
    let loc = new.locate(file, "/version");
    let mut d = Diagnostic::error(
        Code::VersionBump,
        format!(
            "{what}: {}",
            g.reason
                .as_deref()
                .unwrap_or("the version bump is not enough")
        ),
    )
    .at("/version")
    .in_file(loc.file)
    .help(match g.class {
        Some(class) if class >= Class::MayBreak => format!(
            "set `version` to {} or later, or undo the {} changes listed above",
            g.least, "breaking"
        ),
        Some(_) => format!("set `version` to {} or later", g.least),
        None => "set `version` to a SemVer version no lower than the old one".to_owned(),
    });
    d.span = loc.span;
    if let Some(class) = g.class {
        for c in changes.iter().filter(|c| c.class == class).take(5) {
            d.notes
                .push(format!("{} ({}): {}", c.rule, c.class, c.message));
        }
        let more = changes
            .iter()
            .filter(|c| c.class == class)
            .count()
            .saturating_sub(5);
        if more > 0 {
            d.notes.push(format!("and {more} more {class} changes"));
        }
    }
    Sided {
        side: Which::New,
        diagnostic: d,
    }
}

/// Package-level changes between two manifests.
fn manifests(old: &Side, new: &Side, a: &Manifest, b: &Manifest, out: &mut Vec<Change>) {
    let (Some(fa), Some(fb)) = (old.manifest_file(), new.manifest_file()) else {
        return;
    };
    let change = |rule: Rule, message: String, old_at: Option<&str>, new_at: Option<&str>| {
        let mut c = Change::new(rule, None, message);
        c.old = old_at.map(|p| old.locate(fa, p));
        c.new = new_at.map(|p| new.locate(fb, p));
        c
    };
    let at = |base: &str, key: &str, present: bool| {
        if present {
            pointer_push(base, key)
        } else {
            base.to_owned()
        }
    };
    if a.description != b.description {
        let message = format!(
            "the package's description {}",
            edit(a.description.as_deref(), b.description.as_deref())
        );
        let p = |present: bool| if present { "/description" } else { "" };
        out.push(change(
            Rule::DocumentationChanged,
            message,
            Some(p(a.description.is_some())),
            Some(p(b.description.is_some())),
        ));
    }
    for key in union(
        a.provenance.iter().map(|(k, _)| k),
        b.provenance.iter().map(|(k, _)| k),
    ) {
        let (va, vb) = (a.provenance.get(&key), b.provenance.get(&key));
        if va != vb {
            let message = format!(
                "package provenance `{key}` {}",
                edit(va.map(String::as_str), vb.map(String::as_str))
            );
            out.push(change(
                Rule::ProvenanceChanged,
                message,
                Some(&at("/provenance", &key, va.is_some())),
                Some(&at("/provenance", &key, vb.is_some())),
            ));
        }
    }
    for key in union(
        a.dependencies.iter().map(|(k, _)| k),
        b.dependencies.iter().map(|(k, _)| k),
    ) {
        let (va, vb) = (a.dependencies.get(&key), b.dependencies.get(&key));
        let message = match (va, vb) {
            (Some(x), Some(y)) if x == y => continue,
            (Some(x), Some(y)) => format!("dependency `{key}` now points at `{y}` (was `{x}`)"),
            (Some(x), None) => format!("dependency `{key}` (`{x}`) was removed"),
            (None, Some(y)) => format!("dependency `{key}` (`{y}`) was added"),
            (None, None) => continue,
        };
        out.push(change(
            Rule::DependencyChanged,
            message,
            Some(&at("/dependencies", &key, va.is_some())),
            Some(&at("/dependencies", &key, vb.is_some())),
        ));
    }
    for key in union(
        a.tool_contracts.iter().map(|(k, _)| k),
        b.tool_contracts.iter().map(|(k, _)| k),
    ) {
        let (va, vb) = (a.tool_contracts.get(&key), b.tool_contracts.get(&key));
        let (oa, ob) = (
            at("/tool_contracts", &key, va.is_some()),
            at("/tool_contracts", &key, vb.is_some()),
        );
        let (rule, message) = match (va, vb) {
            (Some(x), Some(y)) if x.fingerprint == y.fingerprint => continue,
            (Some(x), Some(y)) if same_shape(&x.schema, &y.schema) => (
                Rule::DocumentationChanged,
                format!(
                    "tool contract `{key}`: its schema is written differently but accepts the same values (fingerprint {} → {})",
                    short(&x.fingerprint),
                    short(&y.fingerprint)
                ),
            ),
            (Some(x), Some(y)) => (
                Rule::ToolContractChanged,
                format!(
                    "tool contract `{key}`: its schema accepts other values (fingerprint {} → {})",
                    short(&x.fingerprint),
                    short(&y.fingerprint)
                ),
            ),
            (Some(_), None) => (
                Rule::ToolContractRemoved,
                format!("tool contract `{key}` was removed"),
            ),
            (None, Some(_)) => (
                Rule::ToolContractAdded,
                format!("tool contract `{key}` was added"),
            ),
            (None, None) => continue,
        };
        let (oa, ob) = match rule {
            Rule::ToolContractChanged | Rule::DocumentationChanged => {
                (pointer_push(&oa, "schema"), pointer_push(&ob, "schema"))
            }
            _ => (oa, ob),
        };
        out.push(change(rule, message, Some(&oa), Some(&ob)));
    }
    for key in union(a.artifacts.keys(), b.artifacts.keys()) {
        let (va, vb) = (a.artifacts.get(&key), b.artifacts.get(&key));
        if va == vb {
            continue;
        }
        let list = |v: Option<&Vec<String>>| Value::from(v.cloned().unwrap_or_default());
        let message = format!(
            "artifact list `{key}`: {} → {}",
            crate::text::json_text(&list(va)),
            crate::text::json_text(&list(vb))
        );
        let p = |present: bool| {
            if present {
                format!("/{key}")
            } else {
                String::new()
            }
        };
        out.push(change(
            Rule::ArtifactsChanged,
            message,
            Some(&p(va.is_some())),
            Some(&p(vb.is_some())),
        ));
    }
}

fn short(fingerprint: &str) -> String {
    let hex = fingerprint.strip_prefix("sha256:").unwrap_or(fingerprint);
    hex.chars().take(12).collect()
}

impl Side {
    /// Whether the side is a package (`Kind::Package`).
    pub fn is_package(&self) -> bool {
        self.kind == Kind::Package
    }
}
