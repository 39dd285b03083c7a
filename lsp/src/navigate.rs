//! Hover, go to definition and document symbols, read off the compiler's
//! spanned YAML trees (`templiqx_build::yaml`): the node under the cursor
//! and its JSON pointer, the declarations of the contract, and the spans of
//! both.

use crate::convert::LineIndex;
use lsp_types::{DocumentSymbol, Location, Range, SymbolKind, Url};
use std::path::PathBuf;
use std::sync::Arc;
use templiqx_build::yaml::{Node, NodeValue};
use templiqx_contracts::Span;

/// A parsed file: its real path, text and tree.
#[derive(Clone, Debug)]
pub(crate) struct Tree {
    pub(crate) path: PathBuf,
    pub(crate) text: String,
    pub(crate) root: Arc<Node>,
}

impl Tree {
    /// The tree of `text`, the file at `path`; `None` when it does not
    /// parse.
    #[cfg(test)]
    pub(crate) fn parse(path: PathBuf, text: String) -> Option<Tree> {
        let root = Arc::new(templiqx_build::yaml::parse(&text).ok()?);
        Some(Tree { path, text, root })
    }

    fn range(&self, span: &Span) -> Range {
        LineIndex::new(&self.text).byte_range(span.bytes.0, span.bytes.1)
    }
}

/// The node under a byte offset, with the path to it from the root.
pub(crate) struct Hit<'a> {
    /// The pointer tokens from the root to the node.
    pub(crate) tokens: Vec<String>,
    /// The nodes from the root to the node (one more than `tokens`).
    pub(crate) nodes: Vec<&'a Node>,
}

impl<'a> Hit<'a> {
    pub(crate) fn node(&self) -> &'a Node {
        self.nodes[self.nodes.len() - 1]
    }

    pub(crate) fn parent(&self) -> Option<&'a Node> {
        self.nodes.len().checked_sub(2).map(|i| self.nodes[i])
    }

    pub(crate) fn last_token(&self) -> Option<&str> {
        self.tokens.last().map(String::as_str)
    }
}

fn contains(span: &Span, offset: usize) -> bool {
    span.bytes.0 <= offset && offset <= span.bytes.1
}

/// The deepest node whose span holds `offset` (a key counts as its value).
pub(crate) fn hit(root: &Node, offset: usize) -> Hit<'_> {
    let mut h = Hit {
        tokens: Vec::new(),
        nodes: vec![root],
    };
    'down: loop {
        match &h.node().value {
            NodeValue::Map(entries) => {
                for (key, value) in entries {
                    if contains(&key.span, offset) || contains(&value.span, offset) {
                        h.tokens.push(key.text.clone());
                        h.nodes.push(value);
                        if contains(&key.span, offset) && !contains(&value.span, offset) {
                            return h;
                        }
                        continue 'down;
                    }
                }
                return h;
            }
            NodeValue::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    if contains(&item.span, offset) {
                        h.tokens.push(i.to_string());
                        h.nodes.push(item);
                        continue 'down;
                    }
                }
                return h;
            }
            _ => return h,
        }
    }
}

pub(crate) fn kind_of(node: &Node) -> Option<&str> {
    node.get("kind").and_then(Node::as_str)
}

/// What is under the cursor.
enum Target<'a> {
    /// The `path` of a `{kind: ref}` expression; the segment under the
    /// cursor and its byte range.
    Ref {
        hit: Hit<'a>,
        segments: Vec<&'a str>,
        range: (usize, usize),
    },
    /// The `path` of an include node.
    Include {
        path: &'a str,
        from_dependency: Option<&'a str>,
    },
    /// The `name` of a component invocation.
    Component { name: &'a str, span: Span },
}

fn target(tree: &Tree, offset: usize) -> Option<Target<'_>> {
    let hit = hit(&tree.root, offset);
    let node = hit.node();
    let text = node.as_str()?;
    let parent = hit.parent()?;
    match (hit.last_token()?, kind_of(parent)?) {
        ("path", "ref") => {
            let (segments, range) = segment_at(&tree.text, node, text, offset);
            Some(Target::Ref {
                hit,
                segments,
                range,
            })
        }
        ("path", "include") => Some(Target::Include {
            path: text,
            from_dependency: parent.get("from_dependency").and_then(Node::as_str),
        }),
        ("name", "component") => Some(Target::Component {
            name: text,
            span: node.span,
        }),
        _ => None,
    }
}

/// The segments of a reference `path` up to the one under `offset`, and
/// that segment's byte range (the whole scalar when the path is not
/// written as is, e.g. with escapes).
fn segment_at<'a>(
    text: &str,
    node: &Node,
    path: &'a str,
    offset: usize,
) -> (Vec<&'a str>, (usize, usize)) {
    let all: Vec<&str> = path.split('.').collect();
    let (start, end) = node.span.bytes;
    let Some(at) = text
        .get(start..end)
        .and_then(|raw| raw.find(path))
        .map(|i| start + i)
    else {
        return (all, (start, end));
    };
    let within = offset.saturating_sub(at).min(path.len());
    let index = path[..within].matches('.').count();
    let seg_start = at + all[..index].iter().map(|s| s.len() + 1).sum::<usize>();
    let mut seg_end = seg_start + all[index].len();
    // `inputs` and `context` alone declare nothing: on them, the field.
    let mut index = index;
    if index == 0 && all.len() > 1 && matches!(all[0], "inputs" | "context") {
        index = 1;
        seg_end += 1 + all[1].len();
    }
    (all[..=index].to_vec(), (seg_start, seg_end))
}

/// Which tree a node is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// The file under the cursor.
    Here,
    /// The contract that declares what it references.
    Decl,
}

/// What a reference (prefix) names.
pub(crate) struct Declared<'a> {
    /// `input`, `context field`, `output`, `property`, ….
    pub(crate) what: &'static str,
    /// The reference prefix, `inputs.customer.name`.
    pub(crate) name: String,
    /// Its schema.
    pub(crate) schema: Option<(Side, &'a Node)>,
    pub(crate) required: Option<bool>,
    pub(crate) description: Option<&'a str>,
    /// Where it is declared (a key, or the `item` of a `for_each`).
    pub(crate) at: Option<(Side, Span)>,
}

pub(crate) fn entry<'a>(
    map: &'a Node,
    key: &str,
) -> Option<(&'a templiqx_build::yaml::Key, &'a Node)> {
    map.as_map()?
        .iter()
        .find(|(k, _)| k.text == key)
        .map(|(k, v)| (k, v))
}

/// A declaration in `{schema, required, description}` form (an input, a
/// context field, a component parameter) at `key`.
fn field<'a>(
    what: &'static str,
    name: String,
    side: Side,
    key: &templiqx_build::yaml::Key,
    decl: &'a Node,
) -> Declared<'a> {
    Declared {
        what,
        name,
        schema: decl.get("schema").map(|s| (side, s)),
        required: Some(matches!(
            decl.get("required").map(|r| &r.value),
            Some(NodeValue::Bool(true))
        )),
        description: decl.get("description").and_then(Node::as_str),
        at: Some((side, key.span)),
    }
}

/// Resolves `segments` of a reference at `hit` (in the file under the
/// cursor), whose roots are declared in `decl`; local names (`for_each`
/// items, component parameters) are looked up in the first `depth`
/// ancestors.
pub(crate) fn resolve<'a>(
    decl: &'a Tree,
    hit: &Hit<'a>,
    depth: usize,
    segments: &[&str],
    budget: usize,
) -> Option<Declared<'a>> {
    let (first, rest) = segments.split_first()?;
    let mut declared = None;
    // A `for_each` item: the nearest enclosing `for_each` whose body holds
    // the reference and whose `item` is the first segment.
    for j in (0..depth.min(hit.tokens.len())).rev() {
        let node = hit.nodes[j];
        if hit.tokens[j] == "body"
            && kind_of(node) == Some("for_each")
            && node.get("item").and_then(Node::as_str) == Some(first)
        {
            let item = node.get("item")?;
            // The collection is evaluated outside the body.
            let collection = node
                .get("collection")
                .filter(|c| kind_of(c) == Some("ref"))
                .and_then(|c| c.get("path"))
                .and_then(Node::as_str);
            let elements = collection.filter(|_| budget > 0).and_then(|path| {
                let segments: Vec<&str> = path.split('.').collect();
                resolve(decl, hit, j, &segments, budget - 1)
            });
            let schema = elements
                .and_then(|e| e.schema)
                .and_then(|(side, s)| s.get("items").map(|i| (side, i)));
            declared = Some(Declared {
                what: "`for_each` item",
                name: (*first).to_owned(),
                schema,
                required: None,
                description: None,
                at: Some((Side::Here, item.span)),
            });
            break;
        }
    }
    // A parameter of the component whose body holds the reference.
    if declared.is_none()
        && hit.tokens.first().map(String::as_str) == Some("components")
        && let Some(component) = hit.nodes.get(2)
        && let Some(parameters) = component.get("parameters")
        && let Some((key, parameter)) = entry(parameters, first)
    {
        declared = Some(field(
            "component parameter",
            (*first).to_owned(),
            Side::Here,
            key,
            parameter,
        ));
    }
    if declared.is_none() {
        declared = match *first {
            "inputs" | "context" => {
                let scope = decl.root.get(first)?;
                let (name, rest_after) = rest.split_first()?;
                let (key, node) = entry(scope, name)?;
                let what = if *first == "inputs" {
                    "input"
                } else {
                    "context field"
                };
                let d = field(what, format!("{first}.{name}"), Side::Decl, key, node);
                return walk(d, rest_after);
            }
            "output" => {
                let (key, schema) = entry(&decl.root, "output_schema")?;
                Some(Declared {
                    what: "output",
                    name: "output".to_owned(),
                    schema: Some((Side::Decl, schema)),
                    required: Some(true),
                    description: schema.get("description").and_then(Node::as_str),
                    at: Some((Side::Decl, key.span)),
                })
            }
            _ => None,
        };
    }
    walk(declared?, rest)
}

/// Steps from a declaration into its schema: a property of an object, the
/// items of an array (a numeric segment).
pub(crate) fn walk<'a>(mut d: Declared<'a>, rest: &[&str]) -> Option<Declared<'a>> {
    for segment in rest {
        let (side, schema) = d.schema?;
        let name = format!("{}.{segment}", d.name);
        if let Some((key, property)) = schema.get("properties").and_then(|p| entry(p, segment)) {
            let required = schema
                .get("required")
                .and_then(Node::as_seq)
                .is_some_and(|r| r.iter().any(|n| n.as_str() == Some(segment)));
            d = Declared {
                what: "property",
                name,
                schema: Some((side, property)),
                required: Some(required),
                description: property.get("description").and_then(Node::as_str),
                at: Some((side, key.span)),
            };
        } else if segment.parse::<usize>().is_ok()
            && let Some(items) = schema.get("items")
        {
            d = Declared {
                what: "array item",
                name,
                schema: Some((side, items)),
                required: None,
                description: items.get("description").and_then(Node::as_str),
                at: Some((side, items.span)),
            };
        } else {
            return None;
        }
    }
    Some(d)
}

/// A one-line type of a schema: `string`, `integer | null`,
/// `array of string`, `string (date)`, `one of "a", "b"`.
pub(crate) fn type_summary(schema: &Node, depth: usize) -> String {
    let types: Vec<&str> = match schema.get("type").map(|t| &t.value) {
        Some(NodeValue::String(t)) => vec![t.as_str()],
        Some(NodeValue::Seq(items)) => items.iter().filter_map(Node::as_str).collect(),
        _ => Vec::new(),
    };
    let mut summary = if types.is_empty() {
        "any".to_owned()
    } else {
        types.join(" | ")
    };
    if types.contains(&"array")
        && depth < 3
        && let Some(items) = schema.get("items")
    {
        summary = summary.replacen(
            "array",
            &format!("array of {}", type_summary(items, depth + 1)),
            1,
        );
    }
    if let Some(format) = schema.get("format").and_then(Node::as_str) {
        summary.push_str(&format!(" ({format})"));
    }
    if let Some(values) = schema.get("enum").and_then(Node::as_seq) {
        let values: Vec<String> = values.iter().map(|v| v.to_json().to_string()).collect();
        let listed = format!("one of {}", values.join(", "));
        summary = if types.is_empty() {
            listed
        } else {
            format!("{summary}, {listed}")
        };
    }
    summary
}

/// The most lines of a schema a hover shows.
const SCHEMA_LINES: usize = 30;

/// The hover of a declaration: its name, type, what it is, whether it is
/// required, its description and (when short) its schema.
pub(crate) fn hover_text(d: &Declared<'_>) -> String {
    let mut text = format!("`{}`", d.name);
    if let Some((_, schema)) = d.schema {
        text.push_str(&format!(": `{}`", type_summary(schema, 0)));
    }
    text.push_str(" — ");
    text.push_str(d.what);
    match d.required {
        Some(true) => text.push_str(", required"),
        Some(false) => text.push_str(", optional"),
        None => {}
    }
    if let Some(description) = d.description {
        text.push_str("\n\n");
        text.push_str(description);
    }
    if let Some((_, schema)) = d.schema
        && let Ok(json) = serde_json::to_string_pretty(&schema.to_json())
        && json.lines().count() <= SCHEMA_LINES
    {
        text.push_str("\n\n```json\n");
        text.push_str(&json);
        text.push_str("\n```");
    }
    text
}

/// The hover at `offset` in `here` (references are declared in `decl`):
/// markdown and the range it is about.
pub(crate) fn hover(here: &Tree, decl: &Tree, offset: usize) -> Option<(String, Range)> {
    match target(here, offset)? {
        Target::Ref {
            hit,
            segments,
            range,
        } => {
            let depth = hit.tokens.len();
            let d = resolve(decl, &hit, depth, &segments, 8)?;
            let range = LineIndex::new(&here.text).byte_range(range.0, range.1);
            Some((hover_text(&d), range))
        }
        Target::Component { name, span } => {
            let component = decl.root.get("components")?.get(name)?;
            Some((component_text(name, component), here.range(&span)))
        }
        Target::Include { .. } => None,
    }
}

/// The hover of a component: its name and parameters (type, whether
/// required, description), or how its legacy form infers them.
pub(crate) fn component_text(name: &str, component: &Node) -> String {
    let mut text = format!("component `{name}`");
    match component.get("parameters").and_then(Node::as_map) {
        Some(parameters) if !parameters.is_empty() => {
            text.push_str("\n\nparameters:");
            for (key, p) in parameters {
                let d = field("parameter", key.text.clone(), Side::Decl, key, p);
                let ty = d
                    .schema
                    .map_or("any".to_owned(), |(_, s)| type_summary(s, 0));
                let required = if d.required == Some(true) {
                    "required"
                } else {
                    "optional"
                };
                text.push_str(&format!("\n- `{}`: `{ty}`, {required}", key.text));
                if let Some(description) = d.description {
                    text.push_str(&format!(" — {description}"));
                }
            }
        }
        _ if component.as_seq().is_some() => {
            text.push_str("\n\nlegacy form: the names it references are required string parameters")
        }
        _ => text.push_str("\n\nno parameters"),
    }
    text
}

/// Where to go from `offset` in `here`.
pub(crate) enum Jump {
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
/// manifest of a dependency.
pub(crate) fn definition(
    here: &Tree,
    decl: &Tree,
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
        };
        Some(Jump::To(Location {
            uri: url(&tree.path)?,
            range: tree.range(&span),
        }))
    };
    match target(here, offset)? {
        Target::Ref { hit, segments, .. } => {
            let depth = hit.tokens.len();
            let d = resolve(decl, &hit, depth, &segments, 8)?;
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
pub(crate) fn manifest_entry(manifest: &Tree, table: &str, name: &str) -> Option<Range> {
    let (key, _) = entry(manifest.root.get(table)?, name)?;
    Some(manifest.range(&key.span))
}

/// A reference path written in a tree: the `path` scalar of a
/// `{kind: ref}` expression, with the path to it from the root (so
/// [`resolve`] sees the `for_each` items and component parameters in
/// scope there).
pub(crate) struct RefSite<'a> {
    /// The tokens and nodes from the root to the `path` scalar.
    pub(crate) hit: Hit<'a>,
    /// The path as it reads.
    pub(crate) path: &'a str,
}

impl<'a> RefSite<'a> {
    /// The declaration the first `n` segments of the path name, with
    /// their roots declared in `decl`: which tree, and the span of the key
    /// (or `for_each` item) that declares it.
    pub(crate) fn declaration(&self, decl: &'a Tree, n: usize) -> Option<(Side, Span)> {
        let segments: Vec<&str> = self.path.split('.').take(n).collect();
        if segments.len() < n {
            return None;
        }
        resolve(decl, &self.hit, self.hit.tokens.len(), &segments, 8)?.at
    }

    /// The `path` scalar.
    pub(crate) fn node(&self) -> &'a Node {
        self.hit.node()
    }
}

/// Every reference path in `root`, in document order.
pub(crate) fn ref_sites(root: &Node) -> Vec<RefSite<'_>> {
    fn visit<'a>(
        node: &'a Node,
        tokens: &mut Vec<String>,
        nodes: &mut Vec<&'a Node>,
        out: &mut Vec<RefSite<'a>>,
    ) {
        let children: Vec<(String, &'a Node)> = match &node.value {
            NodeValue::Map(entries) => {
                if kind_of(node) == Some("ref")
                    && let Some(path) = node.get("path")
                    && let Some(text) = path.as_str()
                {
                    let mut hit = Hit {
                        tokens: tokens.clone(),
                        nodes: nodes.clone(),
                    };
                    hit.tokens.push("path".to_owned());
                    hit.nodes.push(path);
                    out.push(RefSite { hit, path: text });
                }
                entries.iter().map(|(k, v)| (k.text.clone(), v)).collect()
            }
            NodeValue::Seq(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| (i.to_string(), v))
                .collect(),
            _ => return,
        };
        for (token, child) in children {
            tokens.push(token);
            nodes.push(child);
            visit(child, tokens, nodes, out);
            tokens.pop();
            nodes.pop();
        }
    }
    let mut out = Vec::new();
    visit(root, &mut Vec::new(), &mut vec![root], &mut out);
    out
}

/// The declaration of the reference segment under `offset` in `here`
/// (whose roots are declared in `decl`), as [`RefSite::declaration`].
pub(crate) fn declaration_at(here: &Tree, decl: &Tree, offset: usize) -> Option<(Side, Span)> {
    match target(here, offset)? {
        Target::Ref { hit, segments, .. } => {
            resolve(decl, &hit, hit.tokens.len(), &segments, 8)?.at
        }
        _ => None,
    }
}

/// The outline of a file: a contract's inputs, context, messages,
/// components, output schema and evals (with their checks); a manifest's
/// contracts, dependencies and tool contracts; a partial's content nodes.
pub(crate) fn symbols(tree: &Tree) -> Vec<DocumentSymbol> {
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
            "inputs" | "context" if !manifest => value
                .as_map()
                .unwrap_or_default()
                .iter()
                .map(|(k, v)| {
                    let detail = v.get("schema").map(|s| {
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
                    });
                    symbol(
                        k.text.clone(),
                        detail,
                        SymbolKind::FIELD,
                        range(&k.span, &v.span),
                        range(&k.span, &k.span),
                        Vec::new(),
                    )
                })
                .collect(),
            "components" if !manifest => value
                .as_map()
                .unwrap_or_default()
                .iter()
                .map(|(k, v)| {
                    symbol(
                        k.text.clone(),
                        None,
                        SymbolKind::FUNCTION,
                        range(&k.span, &v.span),
                        range(&k.span, &k.span),
                        Vec::new(),
                    )
                })
                .collect(),
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
            "dependencies" | "tool_contracts" if manifest => value
                .as_map()
                .unwrap_or_default()
                .iter()
                .map(|(k, v)| {
                    symbol(
                        k.text.clone(),
                        None,
                        SymbolKind::PACKAGE,
                        range(&k.span, &v.span),
                        range(&k.span, &k.span),
                        Vec::new(),
                    )
                })
                .collect(),
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

    fn tree(text: &str) -> Tree {
        Tree::parse(PathBuf::from("/c.yaml"), text.to_owned()).unwrap()
    }

    const CONTRACT: &str = "\
inputs:
  customer:
    schema:
      type: object
      required: [name]
      properties:
        name: { type: string, description: The full name. }
        tags: { type: array, items: { type: string } }
    required: true
    description: Who writes.
messages:
  - role: user
    content:
      - kind: for_each
        collection: { kind: ref, path: inputs.customer.tags }
        item: tag
        body:
          - { kind: interpolate, expression: { kind: ref, path: tag } }
      - { kind: interpolate, expression: { kind: ref, path: \"inputs.customer.name\" } }
";

    fn at(text: &str, needle: &str, nth: usize) -> usize {
        text.match_indices(needle).nth(nth).unwrap().0
    }

    #[test]
    fn hovers_name_the_segment_under_the_cursor() {
        let t = tree(CONTRACT);
        let name = at(CONTRACT, "customer.name", 0);
        let (text, _) = hover(&t, &t, name + "customer.".len() + 1).unwrap();
        assert!(
            text.starts_with("`inputs.customer.name`: `string` — property, required"),
            "{text}"
        );
        assert!(text.contains("The full name."), "{text}");
        let (text, range) = hover(&t, &t, name + 2).unwrap();
        assert!(
            text.starts_with("`inputs.customer`: `object` — input, required"),
            "{text}"
        );
        assert_eq!(
            range.end.character - range.start.character,
            "customer".len() as u32
        );
    }

    #[test]
    fn for_each_items_have_the_collection_element_type() {
        let t = tree(CONTRACT);
        let offset = at(CONTRACT, "path: tag", 0) + "path: ".len();
        let (text, _) = hover(&t, &t, offset).unwrap();
        assert!(
            text.starts_with("`tag`: `string` — `for_each` item"),
            "{text}"
        );
        let Some(Jump::To(location)) = definition(&t, &t, offset, |p| Url::from_file_path(p).ok())
        else {
            panic!("no definition");
        };
        assert_eq!(location.range.start, lsp_types::Position::new(15, 14));
    }

    #[test]
    fn component_parameters_and_calls_resolve_in_the_component() {
        let text = "\
components:
  greet:
    parameters:
      who: { schema: { type: string }, required: true, description: Who is greeted. }
    content:
      - { kind: interpolate, expression: { kind: ref, path: who } }
messages:
  - role: user
    content:
      - { kind: component, name: greet, with: { who: { kind: literal, value: x } } }
";
        let t = tree(text);
        let (hover_text, _) = hover(&t, &t, at(text, "path: who", 0) + 7).unwrap();
        assert!(
            hover_text
                .starts_with("`who`: `string` — component parameter, required\n\nWho is greeted."),
            "{hover_text}"
        );
        let (hover_text, _) = hover(&t, &t, at(text, "name: greet", 0) + 7).unwrap();
        assert!(
            hover_text.contains("- `who`: `string`, required — Who is greeted."),
            "{hover_text}"
        );
        let url = |p: &std::path::Path| Url::from_file_path(p).ok();
        let Some(Jump::To(location)) = definition(&t, &t, at(text, "name: greet", 0) + 7, url)
        else {
            panic!("no definition");
        };
        assert_eq!(location.range.start, lsp_types::Position::new(1, 2));
    }

    #[test]
    fn symbols_outline_a_contract() {
        let t = tree(CONTRACT);
        let names: Vec<String> = symbols(&t).into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["inputs", "messages"]);
    }
}
