//! Comparing two sides: contracts matched by id, the manifests, and the
//! version gates (`docs/diff.md`).

use crate::change::{Change, Report, Sided, Status, Verdict, Which};
use crate::contract;
use crate::pair::Pair;
use crate::rules::{Class, Family, Rule, contracts, manifest};
use crate::side::{Kind, Side};
use crate::text::union;
use crate::version::{Gate, gate};
use templiqx_build::CompiledContract;
use templiqx_contracts::{Code, Diagnostic};

/// Compares `old` with `new` (see the crate documentation).
///
/// Two contract files are one contract, compared whatever their ids (a
/// different id is `CONTRACT_ID_CHANGED`). Otherwise contracts are matched
/// by id: a contract on one side only is `CONTRACT_REMOVED` or
/// `CONTRACT_ADDED`. When both sides are packages, the manifests are
/// compared too (dependencies, tool contracts, artifact lists, description,
/// provenance) and the package version is gated by every change; each
/// contract's version is gated by its own changes. A package whose other
/// side is absent ([`Kind::Absent`], a `--base` diff) is added or removed.
///
/// Nothing is concluded from what could not be compared: a side that does
/// not load ([`Side::loaded`]) leaves the package (or the contract) not
/// compared, and so does a contract that does not compile in a version it
/// is in (a removed contract need not compile: it is removed whatever it
/// held). Their diagnostics are in the report, the verdicts are
/// [`Status::NotCompared`], and [`Report::sufficient`] is false.
pub fn diff(old: &Side, new: &Side) -> Report {
    let mut report = Report::default();
    for (which, side) in [(Which::Old, old), (Which::New, new)] {
        for d in side.unusable.iter().chain(&side.problems) {
            report.diagnostics.push(sided(which, side, d.clone()));
        }
    }
    if !old.loaded() || !new.loaded() {
        not_loaded(old, new, &mut report);
    } else if old.kind == Kind::File && new.kind == Kind::File {
        if let (Some(a), Some(b)) = (old.contracts.first(), new.contracts.first()) {
            let verdict = compare(old, new, a, b, &mut report);
            report.contracts.push(verdict);
        }
    } else {
        by_id(old, new, &mut report);
    }
    if old.loaded() && new.loaded() {
        report.package = package_verdict(old, new, &mut report);
    }
    report.sufficient =
        report.contracts.iter().chain(&report.package).all(|v| {
            v.status != Status::NotCompared && v.gate.as_ref().is_none_or(|g| g.sufficient)
        });
    report
}

/// Contracts matched by id, on two sides that loaded.
fn by_id(old: &Side, new: &Side, report: &mut Report) {
    if let (Some(a), Some(b)) = (old.manifest(), new.manifest()) {
        let from = report.changes.len();
        manifest::compare(old, new, a, b, &mut report.changes);
        Family::Manifest.check(report.changes[from..].iter().map(|c| c.rule));
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
            (Some(a), None) => removed_or_added((old, new), a, Rule::ContractRemoved, report),
            (None, Some(b)) => {
                let mut verdict = removed_or_added((new, old), b, Rule::ContractAdded, report);
                if let Some(reason) = not_compiled(report, (None, Some(b)), (old, new)) {
                    (verdict.status, verdict.reason) = (Status::NotCompared, Some(reason));
                }
                verdict
            }
            (Some(a), Some(b)) => compare(old, new, a, b, report),
            (None, None) => continue,
        };
        report.contracts.push(verdict);
    }
    // A contract file that did not even parse an id (compared with a
    // package) is reported as it failed.
    for (which, side) in [(Which::Old, old), (Which::New, new)] {
        for c in side.contracts.iter().filter(|c| c.id.is_empty()) {
            for d in &c.diagnostics {
                report.diagnostics.push(sided(which, side, d.clone()));
            }
            report.contracts.push(Verdict {
                name: c.file.clone(),
                status: Status::NotCompared,
                changes: 0,
                gate: None,
                reason: Some(format!("{} does not parse", version_of(which, side))),
            });
        }
    }
}

/// The package's verdict, when a side is a package: gated by every change
/// when both are, added or removed when the other side is absent.
fn package_verdict(old: &Side, new: &Side, report: &mut Report) -> Option<Verdict> {
    let count = report.changes.len();
    let verdict = |name: &str, status: Status| Verdict {
        name: name.to_owned(),
        status,
        changes: count,
        gate: None,
        reason: None,
    };
    match (old.manifest(), new.manifest()) {
        (Some(a), None) if new.kind == Kind::Absent => Some(verdict(&a.package, Status::Removed)),
        (None, Some(b)) if old.kind == Kind::Absent => Some(verdict(&b.package, Status::Added)),
        (Some(a), Some(b)) => {
            let skipped: Vec<String> = report
                .contracts
                .iter()
                .filter(|v| v.status == Status::NotCompared)
                .map(|v| format!("`{}`", v.name))
                .collect();
            if !skipped.is_empty() {
                let reason = match skipped.as_slice() {
                    [one] => format!("contract {one} was not compared"),
                    many => format!("contracts {} were not compared", many.join(", ")),
                };
                return Some(Verdict {
                    reason: Some(reason),
                    ..verdict(&b.package, Status::NotCompared)
                });
            }
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
            let status = if report.changes.is_empty() {
                Status::Unchanged
            } else {
                Status::Changed
            };
            Some(Verdict {
                gate: Some(g),
                ..verdict(&b.package, status)
            })
        }
        _ => None,
    }
}

/// The verdict when a side did not load: nothing is compared, so no change
/// is reported (not every contract removed or added) and the package (or,
/// for contract files, the contract) is not compared.
fn not_loaded(old: &Side, new: &Side, report: &mut Report) {
    let failed: Vec<String> = [(Which::Old, old), (Which::New, new)]
        .into_iter()
        .filter(|(_, side)| !side.loaded())
        .map(|(which, side)| version_of(which, side))
        .collect();
    let reason = format!("{} does not load", failed.join(" and "));
    let named = |side: &Side| side.manifest().map(|m| m.package.clone());
    let package = old.is_package() || new.is_package();
    let verdict = Verdict {
        name: named(new)
            .or_else(|| named(old))
            .or_else(|| {
                [new, old]
                    .iter()
                    .flat_map(|s| s.contracts.first())
                    .map(|c| c.id.clone())
                    .find(|id| !id.is_empty())
            })
            .unwrap_or_else(|| new.path.clone()),
        status: Status::NotCompared,
        changes: 0,
        gate: None,
        reason: Some(reason),
    };
    if package {
        report.package = Some(verdict);
    } else {
        report.contracts.push(verdict);
    }
}

/// `the old version`, `the new version (working tree)`: how a reason names
/// a side, with its label unless that is `old` or `new`.
fn version_of(which: Which, side: &Side) -> String {
    let word = match which {
        Which::Old => "old",
        Which::New => "new",
    };
    if side.label == word {
        format!("the {word} version")
    } else {
        format!("the {word} version ({})", side.label)
    }
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

/// Whether a contract compiled: its contract parsed and its interaction
/// compiled (eval fixtures aside, see [`Side::contracts`]).
fn compiled(c: &CompiledContract) -> bool {
    c.contract.is_some() && c.interaction.is_some()
}

/// Reports the diagnostics of the versions `(a, b)` of one contract (old,
/// new; `None` where it is not) and says why it cannot be compared, when a
/// version does not compile. The diagnostics of a version that compiled
/// are its eval fixtures' (reported, but they do not stop the comparison).
fn not_compiled(
    report: &mut Report,
    (a, b): (Option<&CompiledContract>, Option<&CompiledContract>),
    (old, new): (&Side, &Side),
) -> Option<String> {
    let mut failed = Vec::new();
    for (which, side, c) in [(Which::Old, old, a), (Which::New, new, b)] {
        let Some(c) = c else { continue };
        for d in &c.diagnostics {
            report.diagnostics.push(sided(which, side, d.clone()));
        }
        if !compiled(c) {
            failed.push(version_of(which, side));
        }
    }
    (!failed.is_empty()).then(|| {
        let verb = if failed.len() == 1 {
            "does not compile"
        } else {
            "do not compile"
        };
        format!("{} {verb}", failed.join(" and "))
    })
}

/// `CONTRACT_REMOVED` / `CONTRACT_ADDED` for a contract on `sides.0` only
/// (the change: [`contracts::presence`]), and its verdict.
fn removed_or_added(
    sides: (&Side, &Side),
    c: &CompiledContract,
    rule: Rule,
    report: &mut Report,
) -> Verdict {
    let status = match rule {
        Rule::ContractRemoved => Status::Removed,
        _ => Status::Added,
    };
    report.changes.push(contracts::presence(sides, c, rule));
    Verdict {
        name: c.id.clone(),
        status,
        changes: 0,
        gate: None,
        reason: None,
    }
}

/// Compares one contract on both sides; its changes go to the report. Its
/// versions' ids differ only for two contract files
/// (`CONTRACT_ID_CHANGED`).
fn compare(
    old: &Side,
    new: &Side,
    a: &CompiledContract,
    b: &CompiledContract,
    report: &mut Report,
) -> Verdict {
    let name = [&b.id, &a.id, &b.file]
        .into_iter()
        .find(|n| !n.is_empty())
        .cloned()
        .unwrap_or_default();
    if let Some(reason) = not_compiled(report, (Some(a), Some(b)), (old, new)) {
        return Verdict {
            name,
            status: Status::NotCompared,
            changes: 0,
            gate: None,
            reason: Some(reason),
        };
    }
    let (Some(old_dto), Some(new_dto), Some(old_ir), Some(new_ir)) =
        (&a.contract, &b.contract, &a.interaction, &b.interaction)
    else {
        unreachable!("checked by `not_compiled`")
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
    let mut changes = Vec::new();
    changes.extend(contracts::id_changed(&pair, &a.id));
    changes.extend(contract::compare(&pair));
    let class = changes.iter().map(|c| c.class).max();
    let g = gate(&old_dto.version, &new_dto.version, class);
    if !g.sufficient {
        let what = format!("contract `{}`", b.id);
        report
            .diagnostics
            .push(gate_failure(new, new_dto.loc.file, &what, &g, &changes));
    }
    let verdict = Verdict {
        name,
        status: if changes.is_empty() {
            Status::Unchanged
        } else {
            Status::Changed
        },
        changes: changes.len(),
        gate: Some(g),
        reason: None,
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

impl Side {
    /// Whether the side is a package (`Kind::Package`).
    pub fn is_package(&self) -> bool {
        self.kind == Kind::Package
    }
}
