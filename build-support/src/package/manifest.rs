//! What a parsed manifest's values mean (`docs/format.md`, "Packages",
//! "Tool contracts"): the api_version, contract ids, dependency paths,
//! tool-contract fingerprints and artifact paths. The structure was read by
//! [`crate::parse::parse_manifest`].

use super::paths::{dependency_path_problem, lexical_confinement};
use super::{ARTIFACT_LISTS, Manifest};
use crate::dto::{FileId, Loc};
use crate::source::Sources;
use templiqx_contracts::canonical::fingerprint;
use templiqx_contracts::diagnostic::pointer_push;
use templiqx_contracts::{API_VERSION, Code, Diagnostic};

/// Every problem with the values of `manifest` (the parse of `file`):
/// `TQX_API_VERSION` for another api_version; `TQX_PACKAGE` for a contract
/// listed twice or whose id is not an id, a dependency path that is not
/// relative, a tool contract whose fingerprint is not the digest of its
/// schema, and an artifact path that leaves the package.
pub(super) fn check(manifest: &Manifest, sources: &Sources, file: FileId) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    let mut err = |code: Code, message: String, pointer: &str, help: &str| {
        diags.push(
            sources
                .error(code, message, &Loc::new(file, pointer))
                .help(help),
        );
    };
    if manifest.api_version != API_VERSION {
        err(
            Code::ApiVersion,
            format!("unsupported api_version `{}`", manifest.api_version),
            "/api_version",
            &format!("this compiler implements `{API_VERSION}`"),
        );
    }
    let contracts = &manifest.contracts;
    for (i, id) in contracts.iter().enumerate() {
        if let Some(first) = contracts[..i].iter().position(|c| c == id) {
            err(
                Code::Package,
                format!("contract `{id}` is listed twice (also at /contracts/{first})"),
                &format!("/contracts/{i}"),
                "list each contract once",
            );
        }
        if !crate::check::is_valid_id(id) {
            err(
                Code::Package,
                format!("contract id `{id}` is not an id"),
                &format!("/contracts/{i}"),
                "contract ids resolve to `contracts/<id>.yaml`: start with an ASCII letter, then letters, digits, `-`, `_`, `.`",
            );
        }
    }
    for (name, path) in manifest.dependencies.iter() {
        if let Some(reason) = dependency_path_problem(path) {
            err(
                Code::Package,
                format!(
                    "dependency `{name}` path `{}` {reason}",
                    path.escape_debug()
                ),
                &pointer_push("/dependencies", name),
                "write the dependency's directory relative to this package (`../common`), so the package builds wherever it is checked out",
            );
        }
    }
    for (name, entry) in manifest.tool_contracts.iter() {
        let real = format!("sha256:{}", fingerprint(&entry.schema));
        if entry.fingerprint != real {
            err(
                Code::Package,
                format!(
                    "tool contract `{name}` declares fingerprint `{}`, but its schema's digest is `{real}`",
                    entry.fingerprint
                ),
                &pointer_push(&pointer_push("/tool_contracts", name), "fingerprint"),
                "tool contracts are content-addressed: the fingerprint is the SHA-256 of the schema's canonical JSON; review the schema, then update the fingerprint and every pin",
            );
        }
    }
    for key in ARTIFACT_LISTS {
        let Some(paths) = manifest.artifacts.get(*key) else {
            continue;
        };
        for (i, path) in paths.iter().enumerate() {
            if let Some(reason) = lexical_confinement(path) {
                err(
                    Code::Package,
                    format!("artifact path `{}` {reason}", path.escape_debug()),
                    &format!("/{key}/{i}"),
                    "artifact paths are relative to the package root, written with `/`, and stay inside the package",
                );
            }
        }
    }
    diags
}
