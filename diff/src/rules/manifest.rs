//! The `manifest` family: the two manifests, when both sides are packages
//! — the package's description and provenance (`DOCUMENTATION_CHANGED`,
//! `PROVENANCE_CHANGED`), dependencies (`DEPENDENCY_CHANGED`), tool
//! contracts (`TOOL_CONTRACT_*`) and artifact lists (`ARTIFACTS_CHANGED`).
//! These count for the package's version only.

use crate::change::Change;
use crate::rules::Rule;
use crate::schema::same_shape;
use crate::side::Side;
use crate::text::{edit, some, union};
use std::collections::BTreeSet;
use templiqx_build::Manifest;
use templiqx_contracts::diagnostic::pointer_push;

/// Package-level changes between two manifests.
pub(crate) fn compare(old: &Side, new: &Side, a: &Manifest, b: &Manifest, out: &mut Vec<Change>) {
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
        let message = format!("artifact list `{key}`: {}", list_edit(va, vb));
        // At the first entry the other side does not list, else the list.
        let p = |list: Option<&Vec<String>>, other: Option<&Vec<String>>| match list {
            Some(list) => {
                let base = format!("/{key}");
                match list
                    .iter()
                    .position(|n| other.is_none_or(|o| !o.contains(n)))
                {
                    Some(i) => format!("{base}/{i}"),
                    None => base,
                }
            }
            None => String::new(),
        };
        out.push(change(
            Rule::ArtifactsChanged,
            message,
            Some(&p(va, vb)),
            Some(&p(vb, va)),
        ));
    }
}

/// How a list of names changed, in words: what was added and removed
/// (the first few of each and how many more), or that the same entries
/// were reordered.
fn list_edit(a: Option<&Vec<String>>, b: Option<&Vec<String>>) -> String {
    let (a, b) = (
        a.map_or(&[][..], Vec::as_slice),
        b.map_or(&[][..], Vec::as_slice),
    );
    let (in_a, in_b): (BTreeSet<&str>, BTreeSet<&str>) = (
        a.iter().map(String::as_str).collect(),
        b.iter().map(String::as_str).collect(),
    );
    let names = |list: &[String], other: &BTreeSet<&str>| -> Vec<String> {
        list.iter()
            .filter(|n| !other.contains(n.as_str()))
            .cloned()
            .collect()
    };
    let (added, removed) = (names(b, &in_a), names(a, &in_b));
    let mut parts = Vec::new();
    for (verb, list) in [("added", added), ("removed", removed)] {
        if !list.is_empty() {
            let total = list.len();
            parts.push(format!("{verb} {}", some(list.into_iter(), total)));
        }
    }
    if parts.is_empty() {
        let kept = if a.len() == b.len() {
            "the same entries in another order"
        } else {
            "the same entries, some listed more than once"
        };
        parts.push(format!(
            "{kept} (first listed: `{}`)",
            b.first().map_or("", String::as_str)
        ));
    }
    parts.join("; ")
}

/// The first 12 hex digits of a fingerprint, for a message.
fn short(fingerprint: &str) -> String {
    let hex = fingerprint.strip_prefix("sha256:").unwrap_or(fingerprint);
    hex.chars().take(12).collect()
}
