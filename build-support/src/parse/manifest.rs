//! The package manifest, `templiqx.yaml` (`docs/format.md`, "Packages"),
//! read with the same strict readers as a contract: a closed mapping
//! (`TQX_UNKNOWN_FIELD`, `TQX_MISSING_FIELD`), values of the right kind
//! (`TQX_INVALID_TYPE`). What the values mean (ids, paths, fingerprints)
//! is checked by the package loader.

use super::Cx;
use crate::dto::{FileId, OrderedMap};
use crate::package::{ARTIFACT_LISTS, Manifest, ToolContract};
use crate::yaml::{Node, NodeValue};
use std::collections::BTreeMap;
use templiqx_contracts::Diagnostic;
use templiqx_contracts::diagnostic::pointer_push;

/// The fields of a manifest: its own, then the [`ARTIFACT_LISTS`].
const MANIFEST_FIELDS: &[&str] = &[
    "api_version",
    "package",
    "version",
    "description",
    "contracts",
    "dependencies",
    "tool_contracts",
    "provenance",
    "components",
    "evals",
    "migrations",
    "templates",
    "translations",
];
const TOOL_CONTRACT_FIELDS: &[&str] = &["fingerprint", "schema"];

/// Parses a package manifest document. `file` is the id of the document in
/// the caller's [`crate::source::Sources`], `file_name` its display name.
/// `contracts`, `dependencies`, `tool_contracts`, `provenance` and the
/// artifact lists may be absent or `null` (empty); an artifact list that is
/// present is recorded even when empty.
///
/// # Errors
/// Every structural problem: `TQX_UNKNOWN_FIELD` (spanned on the key, with
/// a did-you-mean help), `TQX_MISSING_FIELD` for `api_version`, `package`,
/// `version` or a tool contract's `fingerprint`/`schema`,
/// `TQX_INVALID_TYPE` for a value of the wrong kind.
pub(crate) fn parse_manifest(
    root: &Node,
    file: FileId,
    file_name: &str,
) -> Result<Manifest, Vec<Diagnostic>> {
    let mut cx = Cx {
        file,
        file_name,
        diags: Vec::new(),
    };
    let manifest = cx.manifest(root);
    match manifest {
        Some(m) if cx.diags.is_empty() => Ok(m),
        _ => Err(cx.diags),
    }
}

impl Cx<'_> {
    fn manifest(&mut self, root: &Node) -> Option<Manifest> {
        let obj = self.object(
            root,
            "",
            "the package manifest",
            MANIFEST_FIELDS,
            &["api_version", "package", "version"],
        )?;
        let api_version = self.req_string(&obj, "api_version", "`api_version`");
        let package = self.req_string(&obj, "package", "`package`");
        let version = self.req_string(&obj, "version", "`version`");
        let description = self.opt_string(&obj, "description", "`description`");
        let contracts = self.string_list(&obj, "contracts", "a contract id");
        let dependencies = self.string_map(&obj, "dependencies", "a dependency path");
        let tool_contracts = self.tool_contracts(&obj);
        let provenance = self.string_map(&obj, "provenance", "a provenance value");
        let mut artifacts = Some(BTreeMap::new());
        for key in ARTIFACT_LISTS {
            if obj.get(key).is_none() {
                continue;
            }
            match (
                self.string_list(&obj, key, "an artifact path"),
                &mut artifacts,
            ) {
                (Some(list), Some(map)) => {
                    map.insert((*key).to_owned(), list);
                }
                _ => artifacts = None,
            }
        }
        Some(Manifest {
            api_version: api_version?,
            package: package?,
            version: version?,
            description: description?,
            contracts: contracts?,
            dependencies: dependencies?,
            tool_contracts: tool_contracts?,
            provenance: provenance?,
            artifacts: artifacts?,
        })
    }

    /// `tool_contracts`: name → `{ fingerprint, schema }`, both required.
    fn tool_contracts(&mut self, obj: &super::Obj<'_>) -> Option<OrderedMap<ToolContract>> {
        let Some((node, ptr)) = obj.get("tool_contracts") else {
            return Some(OrderedMap::default());
        };
        if node.value == NodeValue::Null {
            return Some(OrderedMap::default());
        }
        let entries = self.mapping(node, &ptr, "`tool_contracts`")?;
        let mut out = Vec::with_capacity(entries.len());
        let mut ok = true;
        for (key, value) in entries {
            let p = pointer_push(&ptr, &key.text);
            let Some(entry) = self.object(
                value,
                &p,
                "a tool contract",
                TOOL_CONTRACT_FIELDS,
                TOOL_CONTRACT_FIELDS,
            ) else {
                ok = false;
                continue;
            };
            let fingerprint = self.req_string(&entry, "fingerprint", "`fingerprint`");
            let schema = entry.get("schema").map(|(n, _)| n.to_json());
            match (fingerprint, schema) {
                (Some(fingerprint), Some(schema)) => out.push((
                    key.text.clone(),
                    ToolContract {
                        fingerprint,
                        schema,
                    },
                )),
                _ => ok = false,
            }
        }
        ok.then_some(OrderedMap(out))
    }
}
