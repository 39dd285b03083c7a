//! `textDocument/documentSymbol` (`docs/cli.md`, "lsp"): the outline of a
//! file. A contract's inputs, context, messages, components, output schema
//! and evals; a manifest's contracts and dependencies; a partial's nodes.

use super::{Failure, RequestHandler, Session};
use crate::convert::LineIndex;
use crate::tree::{Tree, kind_of, type_summary};
use crate::workspace::Workspace;
use lsp_types::{DocumentSymbol, DocumentSymbolParams, DocumentSymbolResponse, Range, SymbolKind};
use templiqx_build::yaml::{Node, NodeValue};
use templiqx_contracts::Span;

/// The `textDocument/documentSymbol` handler.
pub(crate) struct Symbols;

impl RequestHandler for Symbols {
    type Request = lsp_types::request::DocumentSymbolRequest;

    fn run(
        session: &Session<'_>,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>, Failure> {
        let symbols = Workspace::key(&params.text_document.uri)
            .and_then(|path| session.workspace.trees(&path))
            .map(|(tree, _)| DocumentSymbolResponse::Nested(symbols(&tree)));
        Ok(symbols)
    }
}

/// The outline of a file: a contract's inputs, context, messages,
/// components, output schema and evals (with their checks); a manifest's
/// contracts, dependencies and tool contracts; a partial's content nodes.
fn symbols(tree: &Tree) -> Vec<DocumentSymbol> {
    let index = LineIndex::new(&tree.text);
    let range = |start: &Span, end: &Span| index.byte_range(start.bytes.0, end.bytes.1);
    let mut out = Vec::new();
    if let Some(items) = tree.root.as_seq() {
        for (i, item) in items.iter().enumerate() {
            let kind = kind_of(item).unwrap_or("node");
            out.push(symbol(
                format!("{i}: {kind}"),
                None,
                SymbolKind::OBJECT,
                range(&item.span, &item.span),
                range(&item.span, &item.span),
                Vec::new(),
            ));
        }
        return out;
    }
    let Some(entries) = tree.root.as_map() else {
        return out;
    };
    let manifest = tree.root.get("package").is_some();
    for (key, value) in entries {
        let children: Vec<DocumentSymbol> = match key.text.as_str() {
            "inputs" | "context" if !manifest => members(value, SymbolKind::FIELD, &index, |v| {
                v.get("schema").map(|s| {
                    let required = matches!(
                        v.get("required").map(|r| &r.value),
                        Some(NodeValue::Bool(true))
                    );
                    let ty = type_summary(s, 0);
                    if required {
                        ty
                    } else {
                        format!("{ty}, optional")
                    }
                })
            }),
            "components" if !manifest => members(value, SymbolKind::FUNCTION, &index, |_| None),
            "messages" if !manifest => value
                .as_seq()
                .unwrap_or_default()
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    let role = m.get("role").and_then(Node::as_str).unwrap_or("message");
                    symbol(
                        format!("{i}: {role}"),
                        None,
                        SymbolKind::OBJECT,
                        range(&m.span, &m.span),
                        range(&m.span, &m.span),
                        Vec::new(),
                    )
                })
                .collect(),
            "evals" if !manifest => value
                .as_seq()
                .unwrap_or_default()
                .iter()
                .enumerate()
                .map(|(i, e)| {
                    let (name, selection) = match e.get("id") {
                        Some(id) => (
                            id.as_str().map_or_else(|| i.to_string(), str::to_owned),
                            id.span,
                        ),
                        None => (i.to_string(), e.span),
                    };
                    let checks = e
                        .get("expect")
                        .and_then(Node::as_seq)
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|c| {
                            let id = c.get("id")?;
                            Some(symbol(
                                id.as_str()?.to_owned(),
                                None,
                                SymbolKind::BOOLEAN,
                                range(&c.span, &c.span),
                                range(&id.span, &id.span),
                                Vec::new(),
                            ))
                        })
                        .collect();
                    symbol(
                        name,
                        None,
                        SymbolKind::EVENT,
                        range(&e.span, &e.span),
                        range(&selection, &selection),
                        checks,
                    )
                })
                .collect(),
            "output_schema" if !manifest => Vec::new(),
            "contracts" if manifest => value
                .as_seq()
                .unwrap_or_default()
                .iter()
                .filter_map(|c| {
                    Some(symbol(
                        c.as_str()?.to_owned(),
                        None,
                        SymbolKind::FILE,
                        range(&c.span, &c.span),
                        range(&c.span, &c.span),
                        Vec::new(),
                    ))
                })
                .collect(),
            "dependencies" | "tool_contracts" if manifest => {
                members(value, SymbolKind::PACKAGE, &index, |_| None)
            }
            _ => continue,
        };
        let kind = match key.text.as_str() {
            "messages" | "evals" | "contracts" => SymbolKind::ARRAY,
            "output_schema" => SymbolKind::STRUCT,
            _ => SymbolKind::NAMESPACE,
        };
        out.push(symbol(
            key.text.clone(),
            None,
            kind,
            range(&key.span, &value.span),
            range(&key.span, &key.span),
            children,
        ));
    }
    out
}

/// One symbol per member of the mapping `value` (none when it is not
/// one): named by its key, selected at the key, spanning key and value,
/// with `detail` of the value.
fn members(
    value: &Node,
    kind: SymbolKind,
    index: &LineIndex,
    detail: impl Fn(&Node) -> Option<String>,
) -> Vec<DocumentSymbol> {
    let range = |start: &Span, end: &Span| index.byte_range(start.bytes.0, end.bytes.1);
    value
        .as_map()
        .unwrap_or_default()
        .iter()
        .map(|(k, v)| {
            symbol(
                k.text.clone(),
                detail(v),
                kind,
                range(&k.span, &v.span),
                range(&k.span, &k.span),
                Vec::new(),
            )
        })
        .collect()
}

fn symbol(
    name: String,
    detail: Option<String>,
    kind: SymbolKind,
    range: Range,
    selection_range: Range,
    children: Vec<DocumentSymbol>,
) -> DocumentSymbol {
    // The protocol requires a non-empty name.
    let name = if name.is_empty() {
        "\"\"".to_owned()
    } else {
        name
    };
    #[allow(deprecated)] // `deprecated` is a required field of the type.
    DocumentSymbol {
        name,
        detail,
        kind,
        tags: None,
        deprecated: None,
        range,
        selection_range,
        children: (!children.is_empty()).then_some(children),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::test_support::{CONTRACT, tree};

    #[test]
    fn symbols_outline_a_contract() {
        let t = tree(CONTRACT);
        let names: Vec<String> = symbols(&t).into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["inputs", "messages"]);
    }
}
