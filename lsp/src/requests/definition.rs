//! `textDocument/definition` (`docs/cli.md`, "lsp"): from a reference
//! (each segment) to its declaration, from a component invocation to the
//! component, from an include path to the partial; from an include's
//! `from_dependency` to its entry in the package manifest's
//! `dependencies` (and from there to the dependency's manifest), from an
//! extension schema's `$ref: tool_contract:NAME` to its entry in
//! `tool_contracts`; in a model-graded check (`docs/format.md`,
//! "Model-graded checks"), from `judge.…` in its `pass` to the property
//! of the judge contract's `output_schema`, from its `contract` to the
//! judge contract's `id`, from a key of its `with` to the judge's input.

use super::{Failure, RequestHandler, Session, judge_at, locate};
use crate::tree::{self, Side, Target, Tree, entry, hit, kind_of};
use crate::workspace::Workspace;
use lsp_types::{GotoDefinitionParams, GotoDefinitionResponse, Location, Position, Range, Url};
use templiqx_build::MANIFEST;
use templiqx_contracts::Span;

/// The `textDocument/definition` handler.
pub(crate) struct Definition;

impl RequestHandler for Definition {
    type Request = lsp_types::request::GotoDefinition;

    fn run(
        session: &Session<'_>,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>, Failure> {
        let at = &params.text_document_position_params;
        let location = locate(session.workspace, at)
            .and_then(|(here, decl, offset)| definition(session.workspace, &here, &decl, offset));
        Ok(location.map(GotoDefinitionResponse::Scalar))
    }
}

/// Where what is at `offset` in `here` is defined, with the jumps that
/// leave the two trees (and the judge contract of a model-graded check)
/// resolved through the workspace.
fn definition(workspace: &Workspace, here: &Tree, decl: &Tree, offset: usize) -> Option<Location> {
    let judge = judge_at(workspace, here, offset);
    let location = match jump(here, decl, judge.as_ref(), offset, |p| workspace.url_of(p))? {
        Jump::To(location) => location,
        Jump::Include {
            path,
            from_dependency,
        } => {
            let target =
                workspace.resolve_include(&here.path, &path, from_dependency.as_deref())?;
            let start = Position::new(0, 0);
            Location {
                uri: workspace.url_of(&target)?,
                range: Range::new(start, start),
            }
        }
        // The name's declaration: its entry in the package manifest.
        Jump::ManifestEntry { table, name } => {
            let path = workspace.include_root(&here.path)?.join(MANIFEST);
            let (manifest, _) = workspace.trees(&path)?;
            Location {
                range: manifest_entry(&manifest, table, &name)?,
                uri: workspace.url_of(&path)?,
            }
        }
        Jump::Package { path } => {
            let root = workspace.include_root(&here.path)?;
            let target = crate::convert::normalize(&root.join(path).join(MANIFEST));
            workspace.text(&target)?;
            let start = Position::new(0, 0);
            Location {
                uri: workspace.url_of(&target)?,
                range: Range::new(start, start),
            }
        }
    };
    Some(location)
}

/// Where to go from `offset` in `here`.
enum Jump {
    /// A location in one of the two trees.
    To(Location),
    /// An include: the file `path` names, under the package root or that of
    /// the dependency.
    Include {
        path: String,
        from_dependency: Option<String>,
    },
    /// The entry `name` of the table `table` (`dependencies` for an
    /// include's `from_dependency`, `tool_contracts` for an extension
    /// schema's `$ref: tool_contract:NAME`) of the manifest of the package
    /// `here` is in.
    ManifestEntry { table: &'static str, name: String },
    /// A manifest's `dependencies` entry: the manifest of the package in
    /// the directory `path` (relative to the manifest's).
    Package { path: String },
}

/// The definition of what is at `offset` in `here`: a reference's
/// declaration, a component's, an include's partial, the manifest entry
/// of an include's `from_dependency` or of a tool-contract `$ref`, the
/// manifest of a dependency; in a model-graded check whose judge contract
/// is `judge`, the judge's `id` (from `contract`), one of its inputs (from
/// a key of `with`) or what `judge.…` names in its output (from `pass`).
fn jump(
    here: &Tree,
    decl: &Tree,
    judge: Option<&Tree>,
    offset: usize,
    url: impl Fn(&std::path::Path) -> Option<Url>,
) -> Option<Jump> {
    if let Some(jump) = package_jump(here, offset) {
        return Some(jump);
    }
    let located = |side: Side, span: Span| {
        let tree = match side {
            Side::Here => here,
            Side::Decl => decl,
            Side::Judge => judge?,
        };
        Some(Jump::To(Location {
            uri: url(&tree.path)?,
            range: tree.range(&span),
        }))
    };
    let hit = tree::hit(&here.root, offset);
    // `contract: <id>`: the judge contract, at its `id`.
    if matches!(tree::judge_check(&hit), Some((_, "contract"))) && hit.tokens.len() == 6 {
        let id = judge?.root.get("id")?;
        return located(Side::Judge, id.span);
    }
    // A key of `with`: the judge's input of that name.
    if let Some(key) = tree::judge_with_key(&hit, offset) {
        let (input, _) = entry(judge?.root.get("inputs")?, &key.text)?;
        return located(Side::Judge, input.span);
    }
    match tree::target(here, offset)? {
        Target::Ref { hit, segments, .. } => {
            let depth = hit.tokens.len();
            let d = tree::resolve_judged(decl, judge, &hit, depth, &segments, 8)?;
            let (side, span) = d.at?;
            located(side, span)
        }
        Target::Component { name, .. } => {
            let (key, _) = entry(decl.root.get("components")?, name)?;
            located(Side::Decl, key.span)
        }
        Target::Include {
            path,
            from_dependency,
        } => Some(Jump::Include {
            path: path.to_owned(),
            from_dependency: from_dependency.map(str::to_owned),
        }),
    }
}

/// What at `offset` names something of the package manifest: an
/// include's `from_dependency` (in a contract or a partial), a
/// `$ref: tool_contract:NAME` in an extension's schema (`docs/format.md`,
/// "Tool contracts"), or, in a manifest, a `dependencies` entry.
fn package_jump(here: &Tree, offset: usize) -> Option<Jump> {
    let hit = hit(&here.root, offset);
    let text = hit.node().as_str()?;
    let tokens: Vec<&str> = hit.tokens.iter().map(String::as_str).collect();
    let manifest = here.root.get("package").is_some();
    match tokens.as_slice() {
        ["dependencies", _] if manifest => Some(Jump::Package {
            path: text.to_owned(),
        }),
        ["extensions", _, "schema", "$ref"] if !manifest => Some(Jump::ManifestEntry {
            table: "tool_contracts",
            name: text.strip_prefix("tool_contract:")?.to_owned(),
        }),
        [.., "from_dependency"] if kind_of(hit.parent()?) == Some("include") => {
            Some(Jump::ManifestEntry {
                table: "dependencies",
                name: text.to_owned(),
            })
        }
        _ => None,
    }
}

/// The range of the key of entry `name` of the table `table` of a
/// manifest (`dependencies`, `tool_contracts`).
fn manifest_entry(manifest: &Tree, table: &str, name: &str) -> Option<Range> {
    let (key, _) = entry(manifest.root.get(table)?, name)?;
    Some(manifest.range(&key.span))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::test_support::{COMPONENT, CONTRACT, JUDGED, at, judge, tree};

    #[test]
    fn a_judge_check_goes_to_its_judge_contract() {
        let (t, j) = (tree(JUDGED), judge());
        let url = |p: &std::path::Path| Url::from_file_path(p).ok();
        let go = |offset: usize| match jump(&t, &t, Some(&j), offset, url) {
            Some(Jump::To(location)) => {
                assert_eq!(location.uri.path(), "/j.yaml");
                Some(location.range.start)
            }
            _ => None,
        };
        // `judge.grade`: the property of the judge's output_schema; `judge`:
        // its output_schema.
        let path = at(JUDGED, "judge.grade", 0);
        assert_eq!(go(path + 7), Some(Position::new(7, 4)));
        assert_eq!(go(path + 1), Some(Position::new(3, 0)));
        // `contract: grader`: the judge's id.
        assert_eq!(go(at(JUDGED, "grader", 0) + 2), Some(Position::new(0, 4)));
        // A key of `with`: the judge's input.
        assert_eq!(go(at(JUDGED, "text: {", 0) + 1), Some(Position::new(2, 2)));
        // Without the judge contract: nowhere.
        assert!(jump(&t, &t, None, path + 7, url).is_none());
        assert!(jump(&t, &t, None, at(JUDGED, "grader", 0), url).is_none());
    }

    #[test]
    fn for_each_items_are_declared_at_their_item() {
        let t = tree(CONTRACT);
        let offset = at(CONTRACT, "path: tag", 0) + "path: ".len();
        let Some(Jump::To(location)) = jump(&t, &t, None, offset, |p| Url::from_file_path(p).ok())
        else {
            panic!("no definition");
        };
        assert_eq!(location.range.start, lsp_types::Position::new(15, 14));
    }

    #[test]
    fn component_calls_go_to_the_component() {
        let t = tree(COMPONENT);
        let url = |p: &std::path::Path| Url::from_file_path(p).ok();
        let Some(Jump::To(location)) = jump(&t, &t, None, at(COMPONENT, "name: greet", 0) + 7, url)
        else {
            panic!("no definition");
        };
        assert_eq!(location.range.start, lsp_types::Position::new(1, 2));
    }
}
