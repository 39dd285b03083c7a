//! Tree tools: navigation over the compiler's spanned YAML trees
//! (`templiqx_build::yaml`), shared by the request handlers
//! (`crate::requests`): the node under the cursor and its JSON pointer,
//! what a reference path resolves to among the contract's declarations,
//! every reference path of a tree, and the spans of all of them.

use crate::convert::LineIndex;
use lsp_types::Range;
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

    /// The protocol range of `span` in this file.
    pub(crate) fn range(&self, span: &Span) -> Range {
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

/// What is under the cursor, of what hover, definition and rename read:
/// a reference path, an include, a component invocation's name.
pub(crate) enum Target<'a> {
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

/// What is under `offset` in `tree`, when it is a [`Target`].
pub(crate) fn target(tree: &Tree, offset: usize) -> Option<Target<'_>> {
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
    /// The judge contract of the model-graded check whose `pass` holds the
    /// reference: it declares the root `judge` ([`judge_output`]).
    Judge,
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
pub(crate) fn field<'a>(
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
            // A dataset row's expected data, in the checks of an entry
            // with a `case_schema` (`docs/format.md`, "Datasets").
            "case" => {
                let (key, schema) = case_schema(hit)?;
                Some(Declared {
                    what: "case",
                    name: "case".to_owned(),
                    schema: Some((Side::Here, schema)),
                    required: Some(true),
                    description: schema.get("description").and_then(Node::as_str),
                    at: Some((Side::Here, key.span)),
                })
            }
            "output" => output_of(decl, Side::Decl, "output"),
            _ => None,
        };
    }
    walk(declared?, rest)
}

/// What a root that is a contract's output names (`output`, or `judge` in
/// a `pass`): a value typed by the `output_schema` of `contract` (in the
/// tree `side`), declared at its key.
fn output_of<'a>(contract: &'a Tree, side: Side, root: &'static str) -> Option<Declared<'a>> {
    let (key, schema) = entry(&contract.root, "output_schema")?;
    Some(Declared {
        what: root,
        name: root.to_owned(),
        schema: Some((side, schema)),
        required: Some(true),
        description: schema.get("description").and_then(Node::as_str),
        at: Some((side, key.span)),
    })
}

/// What the root `judge` names in the `pass` of a model-graded check
/// (`docs/format.md`, "Model-graded checks"): the output of the judge
/// contract `judge`, typed by its `output_schema`; its properties are
/// walked as every root's are ([`walk`]).
pub(crate) fn judge_output(judge: &Tree) -> Option<Declared<'_>> {
    output_of(judge, Side::Judge, "judge")
}

/// The model-graded check (`kind: judge`) that holds `hit` in its `pass`
/// (`/evals/i/expect/j/check/pass/…`), its `with`
/// (`/evals/i/expect/j/check/with/…`) or its `contract`
/// (`/evals/i/expect/j/check/contract`), with which of the three: the
/// check's mapping and `"pass"`, `"with"` or `"contract"`
/// (`docs/format.md`, "Model-graded checks").
pub(crate) fn judge_check<'a, 'h>(hit: &'h Hit<'a>) -> Option<(&'a Node, &'h str)> {
    let token = |i: usize| hit.tokens.get(i).map(String::as_str);
    let part = token(5).filter(|t| matches!(*t, "pass" | "with" | "contract"))?;
    let check = *hit.nodes.get(5)?;
    (token(0) == Some("evals")
        && token(2) == Some("expect")
        && token(4) == Some("check")
        && kind_of(check) == Some("judge"))
    .then_some((check, part))
}

/// The id of the judge contract (the `contract`) of the model-graded
/// check that holds `hit` ([`judge_check`]).
pub(crate) fn judge_id<'a>(hit: &Hit<'a>) -> Option<&'a str> {
    judge_check(hit)?.0.get("contract")?.as_str()
}

/// The key of a model-graded check's `with` under `offset`
/// (`/evals/i/expect/j/check/with/NAME`, the cursor on `NAME`, not on its
/// expression), which names an input of the judge contract
/// (`docs/format.md`, "Model-graded checks"); `hit` is at `offset`.
pub(crate) fn judge_with_key<'a>(
    hit: &Hit<'a>,
    offset: usize,
) -> Option<&'a templiqx_build::yaml::Key> {
    let (check, part) = judge_check(hit)?;
    if part != "with" || hit.tokens.len() != 7 {
        return None;
    }
    let (key, _) = entry(check.get("with")?, &hit.tokens[6])?;
    contains(&key.span, offset).then_some(key)
}

/// What `segments` of a reference at `hit` name, as [`resolve`]; in the
/// `pass` of a model-graded check, the root `judge` is the output of
/// `judge`, the check's judge contract ([`judge_output`]), whose
/// properties are walked as every root's are (`docs/format.md`,
/// "Model-graded checks"). Without the judge contract (`None`: the
/// package lists none of that id), `judge` names nothing.
pub(crate) fn resolve_judged<'a>(
    decl: &'a Tree,
    judge: Option<&'a Tree>,
    hit: &Hit<'a>,
    depth: usize,
    segments: &[&str],
    budget: usize,
) -> Option<Declared<'a>> {
    if let (Some((&"judge", rest)), Some(judge)) = (segments.split_first(), judge)
        && matches!(judge_check(hit), Some((_, "pass")))
    {
        return walk(judge_output(judge)?, rest);
    }
    resolve(decl, hit, depth, segments, budget)
}

/// The `case_schema` of the eval entry whose `expect` holds `hit`
/// (`/evals/i/expect/…`): its key and its schema.
pub(crate) fn case_schema<'a>(hit: &Hit<'a>) -> Option<(&'a templiqx_build::yaml::Key, &'a Node)> {
    if hit.tokens.first().map(String::as_str) != Some("evals")
        || hit.tokens.get(2).map(String::as_str) != Some("expect")
    {
        return None;
    }
    entry(hit.nodes.get(2)?, "case_schema")
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

/// Whether `root` is a contract's tree: a mapping that is not a package
/// manifest (a partial is a sequence).
pub(crate) fn is_contract(root: &Node) -> bool {
    root.as_map().is_some() && root.get("package").is_none()
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

#[cfg(test)]
pub(crate) mod test_support {
    //! A contract to navigate, for the handlers' unit tests.

    use super::Tree;
    use std::path::PathBuf;

    pub(crate) fn tree(text: &str) -> Tree {
        Tree::parse(PathBuf::from("/c.yaml"), text.to_owned()).unwrap()
    }

    pub(crate) const CONTRACT: &str = "\
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

    /// A component with a parameter, and its invocation.
    pub(crate) const COMPONENT: &str = "\
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

    /// A judge contract (`/j.yaml`): an input and an output property.
    pub(crate) const JUDGE: &str = "\
id: grader
inputs:
  text: { schema: { type: string }, required: true, description: What is graded. }
output_schema:
  type: object
  required: [grade]
  properties:
    grade: { type: integer, description: From 1 to 5. }
";

    /// A contract with a model-graded check judged by [`JUDGE`].
    pub(crate) const JUDGED: &str = "\
evals:
  - id: one
    expect:
      - id: graded
        check:
          kind: judge
          contract: grader
          with: { text: { kind: ref, path: inputs.text } }
          pass: { kind: compare, op: ge, left: { kind: ref, path: judge.grade }, right: { kind: literal, value: 3 } }
";

    /// The tree of [`JUDGE`].
    pub(crate) fn judge() -> Tree {
        Tree::parse(PathBuf::from("/j.yaml"), JUDGE.to_owned()).unwrap()
    }

    /// The byte offset of the `nth` occurrence of `needle` in `text`.
    pub(crate) fn at(text: &str, needle: &str, nth: usize) -> usize {
        text.match_indices(needle).nth(nth).unwrap().0
    }
}
