//! What find references, prepare rename and rename share (their handlers
//! are `references.rs`, `prepare_rename.rs` and `rename.rs`): the field at
//! a position, and every place that spells its name (`docs/cli.md`,
//! "lsp").
//!
//! A field is an input or a context field of a contract, or a property
//! below one (`inputs.customer.name` is `name` under `customer`; through
//! the `items` of arrays too), or a property of the `case_schema` of one
//! of its eval entries, or below one (`case.label`: `docs/format.md`,
//! "Datasets"), which only that entry's checks and data file spell. Its
//! name is written in five kinds of places:
//!
//! * its declaration key, and its entry in the `required` list of the
//!   object schema it is a property of;
//! * a segment of every reference path that resolves to it: in the
//!   contract's content and eval checks, and in every partial the contract
//!   includes, where paths resolve in the including contract; below a
//!   `for_each` item over it too (`item.name`);
//! * the keys of the eval fixtures' `inputs` and `context` that set it;
//! * the keys of the request files that set it: the JSON files the package
//!   manifest lists under `evals` (`docs/format.md`, "Packages") that have
//!   the request shape (`docs/cli.md`, "render": an object of `inputs` and
//!   `context` only) and target the contract, that is carry no key the
//!   contract does not declare (`docs/format.md`: a request may not carry
//!   undeclared keys). A request fit for two contracts of the package is
//!   edited with either. They are read through the workspace's file view
//!   (an open buffer wins over the disk), and edited as JSON: the key's
//!   token, its new name escaped as JSON escapes it;
//! * the keys of the rows of the contract's JSON Lines datasets
//!   (`docs/format.md`, "Datasets") that set it, edited as a request
//!   file's keys; the segment that names it in the header cells of the
//!   contract's CSV datasets (`inputs.NAME`, `inputs.NAME.below`,
//!   `case.NAME`), only the header row: a cell of a whole-part column
//!   (`inputs`, whose cells are JSON) is not rewritten. A `case` field's
//!   are those of its entry's data file only.
//!
//! A reference is matched by resolving it as go to definition does
//! ([`tree::resolve`]): to the same declaration key, never by its
//! text. The texts are those of the workspace's last compilations, which
//! laid the open buffers over the disk (every request first recompiles
//! what changed), so edits are computed on what the editor shows.
//!
//! A partial that several contracts include ties their fields together: a
//! reference in it resolves in each of them, so renaming the field it
//! names in one contract renames the field it names in the others too
//! (else the partial would break them).

use crate::convert::LineIndex;
use crate::tree::{self, RefSite, Side, Tree};
use crate::workspace::Workspace;
use lsp_types::Range;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use templiqx_build::dataset::Format;
use templiqx_build::yaml::{self, Key, Node};
use templiqx_build::{FileSystem, MANIFEST, RealFileSystem};
use templiqx_contracts::Span;

/// The deepest schema nesting the declarations are enumerated to (the
/// YAML reader bounds nesting at 256 anyway).
const MAX_SCHEMA_DEPTH: usize = 64;

/// One step from a root scope into a declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step<'t> {
    /// A field or property name.
    Name(&'t str),
    /// The items of an array.
    Items,
}

/// A declared field: an input or context field, or a property below one;
/// a property of an eval entry's `case_schema`, or below one.
pub(crate) struct Field<'t> {
    /// `inputs`, `context` or `case`.
    pub(crate) scope: &'static str,
    /// For a `case` field, the eval entry whose `case_schema` declares it.
    pub(crate) entry: Option<&'t Node>,
    /// The steps from the scope to it; the last is its name.
    pub(crate) steps: Vec<Step<'t>>,
    /// Its declaration key: what identifies it.
    pub(crate) key: &'t Key,
    /// The names declared beside it (itself included).
    pub(crate) siblings: Vec<&'t str>,
    /// Its entry in the `required` list of the object schema it is a
    /// property of.
    pub(crate) required: Option<&'t Node>,
}

impl Field<'_> {
    pub(crate) fn name(&self) -> &str {
        &self.key.text
    }

    /// `inputs.customer.name` (`[]` for array items).
    pub(crate) fn display(&self) -> String {
        let mut out = self.scope.to_owned();
        for step in &self.steps {
            match step {
                Step::Name(name) => {
                    out.push('.');
                    out.push_str(name);
                }
                Step::Items => out.push_str("[]"),
            }
        }
        out
    }
}

/// Every field `contract` declares, in document order.
pub(crate) fn fields(contract: &Tree) -> Vec<Field<'_>> {
    fn below<'t>(
        schema: &'t Node,
        (scope, entry): (&'static str, Option<&'t Node>),
        steps: &[Step<'t>],
        depth: usize,
        out: &mut Vec<Field<'t>>,
    ) {
        if depth >= MAX_SCHEMA_DEPTH {
            return;
        }
        if let Some(properties) = schema.get("properties").and_then(Node::as_map) {
            let required = schema
                .get("required")
                .and_then(Node::as_seq)
                .unwrap_or_default();
            let siblings: Vec<&str> = properties.iter().map(|(k, _)| k.text.as_str()).collect();
            for (key, property) in properties {
                let mut here = steps.to_vec();
                here.push(Step::Name(&key.text));
                below(property, (scope, entry), &here, depth + 1, out);
                out.push(Field {
                    scope,
                    entry,
                    steps: here,
                    key,
                    siblings: siblings.clone(),
                    required: required
                        .iter()
                        .find(|r| r.as_str() == Some(key.text.as_str())),
                });
            }
        }
        if let Some(items) = schema.get("items") {
            let mut here = steps.to_vec();
            here.push(Step::Items);
            below(items, (scope, entry), &here, depth + 1, out);
        }
    }
    let mut out = Vec::new();
    for scope in ["inputs", "context"] {
        let Some(declared) = contract.root.get(scope).and_then(Node::as_map) else {
            continue;
        };
        let siblings: Vec<&str> = declared.iter().map(|(k, _)| k.text.as_str()).collect();
        for (key, declaration) in declared {
            let steps = vec![Step::Name(key.text.as_str())];
            if let Some(schema) = declaration.get("schema") {
                below(schema, (scope, None), &steps, 0, &mut out);
            }
            out.push(Field {
                scope,
                entry: None,
                steps,
                key,
                siblings: siblings.clone(),
                required: None,
            });
        }
    }
    let entries = contract.root.get("evals").and_then(Node::as_seq);
    for entry in entries.unwrap_or_default() {
        if let Some(schema) = entry.get("case_schema") {
            below(schema, ("case", Some(entry)), &[], 0, &mut out);
        }
    }
    out.sort_by_key(|f| f.key.span.bytes);
    out
}

/// The contracts and partials of the workspace's last compilations that
/// a rename can touch: every partial, and the contracts that include one,
/// plus the contract under the cursor.
#[derive(Default)]
pub(crate) struct Files {
    pub(crate) contracts: BTreeMap<PathBuf, Tree>,
    /// Each partial, with the contracts that include it (through any
    /// chain of partials).
    pub(crate) partials: BTreeMap<PathBuf, (Tree, BTreeSet<PathBuf>)>,
    /// The package root of each contract that is in a package.
    pub(crate) packages: BTreeMap<PathBuf, PathBuf>,
    /// The request files each package (by root) lists ([`listed_requests`]).
    pub(crate) requests: BTreeMap<PathBuf, Vec<Tree>>,
    /// The JSON Lines datasets of each contract's eval entries
    /// ([`dataset_rows`]), by the contract's path.
    pub(crate) datasets: BTreeMap<PathBuf, Vec<Tree>>,
    /// The header rows of the CSV datasets of each contract's eval entries
    /// ([`dataset_headers`]), by the contract's path.
    pub(crate) headers: BTreeMap<PathBuf, Vec<Tree>>,
}

impl Files {
    /// The files read by the workspace's last compilations; `here` (the
    /// file under the cursor) and `decl` (the contract it resolves in)
    /// too, when no compilation read them.
    fn read(workspace: &Workspace, here: Tree, decl: Tree) -> Files {
        let read = workspace.files_read();
        let tops: BTreeSet<PathBuf> = read
            .iter()
            .filter_map(|r| Some(r.top?.0.to_path_buf()))
            .collect();
        let mut files = Files::default();
        for r in &read {
            let Some(root) = &r.file.root else { continue };
            let tree = || Tree {
                path: r.path.to_path_buf(),
                text: r.file.text.clone(),
                root: root.clone(),
            };
            match r.top {
                Some((top, _)) => {
                    files
                        .partials
                        .entry(r.path.to_path_buf())
                        .or_insert_with(|| (tree(), BTreeSet::new()))
                        .1
                        .insert(top.to_path_buf());
                }
                None if tree::is_contract(root)
                    && (tops.contains(r.path) || r.path == decl.path) =>
                {
                    files
                        .contracts
                        .entry(r.path.to_path_buf())
                        .or_insert_with(tree);
                }
                None => {}
            }
        }
        if tree::is_contract(&decl.root) && here.path != decl.path {
            files
                .partials
                .entry(here.path.clone())
                .or_insert_with(|| (here, BTreeSet::new()))
                .1
                .insert(decl.path.clone());
        }
        if tree::is_contract(&decl.root) {
            files.contracts.entry(decl.path.clone()).or_insert(decl);
        }
        for contract in files.contracts.keys() {
            let Some(root) = workspace.include_root(contract) else {
                continue;
            };
            if !files.requests.contains_key(&root) {
                let requests = listed_requests(workspace, &root);
                files.requests.insert(root.clone(), requests);
            }
            let entries = files.contracts.get(contract).map(|tree| &tree.root);
            let datasets = entries
                .map(|tree| dataset_rows(workspace, &root, tree))
                .unwrap_or_default();
            let headers = entries
                .map(|tree| dataset_headers(workspace, &root, tree))
                .unwrap_or_default();
            files.datasets.insert(contract.clone(), datasets);
            files.headers.insert(contract.clone(), headers);
            files.packages.insert(contract.clone(), root);
        }
        files
    }

    /// The request files of the package of `contract` that target it
    /// ([`targets`]).
    fn requests_for<'f>(&'f self, contract: &'f Tree) -> impl Iterator<Item = &'f Tree> {
        self.packages
            .get(&contract.path)
            .and_then(|root| self.requests.get(root))
            .into_iter()
            .flatten()
            .filter(|request| targets(&request.root, &contract.root))
    }

    /// The tree of the file at `path`.
    pub(crate) fn tree(&self, path: &std::path::Path) -> Option<&Tree> {
        self.contracts
            .get(path)
            .or_else(|| self.partials.get(path).map(|(t, _)| t))
    }
}

/// What a place that spells a field's name is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum What {
    /// The declaration key.
    Declaration,
    /// The entry in the parent object schema's `required`.
    Required,
    /// A segment of a reference path.
    Reference,
    /// A key of an eval fixture's `inputs` or `context`.
    Fixture,
    /// A key of a request file's `inputs` or `context` (JSON).
    Request,
    /// A segment of a header cell of a CSV dataset (`inputs.NAME`).
    Column,
}

/// A place that spells a field's name: a key or a string scalar.
pub(crate) struct Spelling<'t> {
    pub(crate) tree: &'t Tree,
    /// The span of the key or scalar.
    pub(crate) span: Span,
    /// The key's or scalar's value.
    pub(crate) value: &'t str,
    /// The bytes of the name in `value`.
    pub(crate) name: std::ops::Range<usize>,
    pub(crate) what: What,
}

impl Spelling<'_> {
    /// The bytes of the name in the file: exactly, when the value is
    /// written verbatim; else the whole key or scalar.
    pub(crate) fn bytes(&self) -> (usize, usize) {
        match yaml::verbatim(&self.tree.text, &self.span, self.value) {
            Some(at) => (at + self.name.start, at + self.name.end),
            None => self.span.bytes,
        }
    }

    pub(crate) fn range(&self) -> Range {
        let (start, end) = self.bytes();
        LineIndex::new(&self.tree.text).byte_range(start, end)
    }

    pub(crate) fn contains(&self, offset: usize) -> bool {
        let (start, end) = self.bytes();
        start <= offset && offset <= end
    }
}

/// A reference of a field found in a partial: the partial, the site and
/// how many segments name the field (to resolve it in the other contracts
/// that include the partial).
pub(crate) struct Shared<'t> {
    pub(crate) partial: &'t Tree,
    pub(crate) site: usize,
    pub(crate) segments: usize,
}

/// The reference sites of every file, computed once.
pub(crate) struct Sites<'t>(HashMap<&'t std::path::Path, Vec<RefSite<'t>>>);

impl<'t> Sites<'t> {
    pub(crate) fn new(files: &'t Files) -> Sites<'t> {
        let trees = files
            .contracts
            .values()
            .chain(files.partials.values().map(|(t, _)| t));
        Sites(
            trees
                .map(|t| (t.path.as_path(), tree::ref_sites(&t.root)))
                .collect(),
        )
    }

    pub(crate) fn of(&self, tree: &Tree) -> &[RefSite<'t>] {
        self.0.get(tree.path.as_path()).map_or(&[], Vec::as_slice)
    }
}

/// Every place of `contract`'s files that spells `field`, and the
/// references among them that are in partials.
pub(crate) fn spellings<'t>(
    files: &'t Files,
    sites: &Sites<'t>,
    contract: &'t Tree,
    field: &Field<'t>,
) -> (Vec<Spelling<'t>>, Vec<Shared<'t>>) {
    let name = field.name();
    let whole = |value: &str| 0..value.len();
    let mut out = vec![Spelling {
        tree: contract,
        span: field.key.span,
        value: &field.key.text,
        name: whole(name),
        what: What::Declaration,
    }];
    if let Some(required) = field.required
        && let Some(value) = required.as_str()
    {
        out.push(Spelling {
            tree: contract,
            span: required.span,
            value,
            name: whole(value),
            what: What::Required,
        });
    }
    let mut shared = Vec::new();
    let partials = files
        .partials
        .values()
        .filter(|(_, tops)| tops.contains(&contract.path))
        .map(|(t, _)| t);
    for tree in std::iter::once(contract).chain(partials) {
        for (index, site) in sites.of(tree).iter().enumerate() {
            let mut start = 0;
            for (i, segment) in site.path.split('.').enumerate() {
                let range = start..start + segment.len();
                start = range.end + 1;
                // A `case` field is declared in the contract's own tree,
                // where a check resolves it (`Side::Here`).
                let declared = match site.declaration(contract, i + 1) {
                    Some((Side::Decl, span)) => span == field.key.span,
                    Some((Side::Here, span)) => {
                        tree.path == contract.path && span == field.key.span
                    }
                    _ => false,
                };
                if segment != name || !declared {
                    continue;
                }
                out.push(Spelling {
                    tree,
                    span: site.node().span,
                    value: site.path,
                    name: range,
                    what: What::Reference,
                });
                if tree.path != contract.path {
                    shared.push(Shared {
                        partial: tree,
                        site: index,
                        segments: i + 1,
                    });
                }
            }
        }
    }
    let key = |tree: &'t Tree, what: What| {
        move |key: &'t Key| Spelling {
            tree,
            span: key.span,
            value: &key.text,
            name: whole(&key.text),
            what,
        }
    };
    out.extend(
        fixture_keys(contract, field)
            .into_iter()
            .map(key(contract, What::Fixture)),
    );
    for request in files.requests_for(contract) {
        let mut keys = Vec::new();
        if let Some(values) = request.root.get(field.scope) {
            keys_below(values, &field.steps, &mut keys);
        }
        out.extend(keys.into_iter().map(key(request, What::Request)));
    }
    // The data files that set it: the contract's, for a `case` field its
    // entry's only.
    let entry_file = field
        .entry
        .and_then(|entry| entry.get("dataset")?.as_str())
        .zip(files.packages.get(&contract.path))
        .and_then(|(path, root)| in_package(root, path));
    let sets = |data: &&Tree| field.entry.is_none() || entry_file.as_ref() == Some(&data.path);
    // The rows of the contract's JSON Lines datasets: JSON keys, as in a
    // request file.
    for dataset in files
        .datasets
        .get(&contract.path)
        .into_iter()
        .flatten()
        .filter(sets)
    {
        let mut keys = Vec::new();
        for row in dataset.root.as_seq().unwrap_or_default() {
            if let Some(values) = row.get(field.scope) {
                keys_below(values, &field.steps, &mut keys);
            }
        }
        out.extend(keys.into_iter().map(key(dataset, What::Request)));
    }
    // The header cells of the contract's CSV datasets: the segment after
    // the scope and the steps before the field (a column never steps into
    // an array's items).
    let names: Option<Vec<&str>> = field
        .steps
        .iter()
        .map(|step| match step {
            Step::Name(name) => Some(*name),
            Step::Items => None,
        })
        .collect();
    for header in files
        .headers
        .get(&contract.path)
        .into_iter()
        .flatten()
        .filter(sets)
    {
        let Some(names) = &names else { break };
        for cell in header.root.as_seq().unwrap_or_default() {
            let Some(value) = cell.as_str() else { continue };
            let mut segments = value.split('.');
            if segments.next() != Some(field.scope) {
                continue;
            }
            let mut start = field.scope.len() + 1;
            let mut matched = None;
            for (i, segment) in segments.enumerate() {
                if segment != names[i] {
                    break;
                }
                if i + 1 == names.len() {
                    matched = Some(start..start + segment.len());
                    break;
                }
                start += segment.len() + 1;
            }
            if let Some(name) = matched {
                out.push(Spelling {
                    tree: header,
                    span: cell.span,
                    value,
                    name,
                    what: What::Column,
                });
            }
        }
    }
    (out, shared)
}

/// The data files of `format` the eval entries of `contract` name
/// (`docs/format.md`, "Datasets"), in the package at `root`, each once,
/// with their texts as the workspace shows them. A path that leaves the
/// package and a file that cannot be read are left out.
fn dataset_texts(
    workspace: &Workspace,
    root: &Path,
    contract: &Node,
    format: Format,
) -> Vec<(PathBuf, String)> {
    let mut out: Vec<(PathBuf, String)> = Vec::new();
    let entries = contract.get("evals").and_then(Node::as_seq);
    for entry in entries.unwrap_or_default() {
        let Some(path) = entry.get("dataset").and_then(Node::as_str) else {
            continue;
        };
        if Format::of(path) != Some(format) {
            continue;
        }
        let Some(path) = in_package(root, path) else {
            continue;
        };
        if out.iter().any(|(p, _)| *p == path) {
            continue;
        }
        if let Some(text) = workspace.text(&path) {
            out.push((path, text));
        }
    }
    out
}

/// The JSON Lines datasets the eval entries of `contract` name
/// ([`dataset_texts`]): each a tree whose root is a sequence of its rows,
/// each row parsed on its own and placed at its line of the file, so the
/// spans of its keys are the file's. A line that is not a JSON object is
/// left out.
fn dataset_rows(workspace: &Workspace, root: &Path, contract: &Node) -> Vec<Tree> {
    let mut out = Vec::new();
    for (path, text) in dataset_texts(workspace, root, contract, Format::Jsonl) {
        let mut rows = Vec::new();
        let mut offset = 0;
        for (index, line) in text.split_inclusive('\n').enumerate() {
            let start = offset;
            offset += line.len();
            let row = line.trim_end_matches(['\n', '\r']);
            if !row.trim_start().starts_with('{') {
                continue;
            }
            let Ok(mut node) = yaml::parse_spans(row) else {
                continue;
            };
            let lines = u32::try_from(index).unwrap_or(u32::MAX);
            shift(&mut node, lines, start);
            rows.push(node);
        }
        out.push(sequence(path, text, rows));
    }
    out
}

/// A tree of the file at `path` whose root is the sequence `items`.
fn sequence(path: PathBuf, text: String, items: Vec<Node>) -> Tree {
    let whole = Span {
        start: templiqx_contracts::Position { line: 1, column: 1 },
        end: templiqx_contracts::Position { line: 1, column: 1 },
        bytes: (0, text.len()),
    };
    Tree {
        path,
        text,
        root: std::sync::Arc::new(Node {
            value: yaml::NodeValue::Seq(items),
            span: whole,
        }),
    }
}

/// The CSV datasets the eval entries of `contract` name
/// ([`dataset_texts`]): each a tree whose root is the sequence of its
/// header cells ([`header_cells`]), string nodes spanning each cell as
/// written (quotes included).
fn dataset_headers(workspace: &Workspace, root: &Path, contract: &Node) -> Vec<Tree> {
    dataset_texts(workspace, root, contract, Format::Csv)
        .into_iter()
        .map(|(path, text)| {
            let cells = header_cells(&text)
                .into_iter()
                .map(|((start, end), value)| Node {
                    value: yaml::NodeValue::String(value),
                    span: Span {
                        start: templiqx_contracts::diagnostic::position(&text, start),
                        end: templiqx_contracts::diagnostic::position(&text, end),
                        bytes: (start, end),
                    },
                })
                .collect();
            sequence(path, text, cells)
        })
        .collect()
}

/// The cells of the header of the CSV text `text`, its first record, as
/// a dataset's header is read (`docs/format.md`, "Datasets": RFC 4180
/// quoting; a UTF-8 byte order mark before it is skipped): each cell's
/// bytes in `text`, quotes included, and its value (`""` in a quoted cell
/// is `"`). The cells are read up to the first that is not well quoted
/// (unclosed, or text after its closing quote).
fn header_cells(text: &str) -> Vec<((usize, usize), String)> {
    let bytes = text.as_bytes();
    let mut cells = Vec::new();
    let mut at = if text.starts_with('\u{feff}') { 3 } else { 0 };
    loop {
        let start = at;
        let value = if bytes.get(at) == Some(&b'"') {
            let mut value = String::new();
            at += 1;
            loop {
                let Some(quote) = text[at..].find('"') else {
                    return cells;
                };
                value.push_str(&text[at..at + quote]);
                at += quote + 1;
                if bytes.get(at) == Some(&b'"') {
                    value.push('"');
                    at += 1;
                } else {
                    break;
                }
            }
            if !matches!(bytes.get(at), None | Some(b',' | b'\r' | b'\n')) {
                return cells;
            }
            value
        } else {
            let end = text[at..]
                .find([',', '\r', '\n'])
                .map_or(text.len(), |i| at + i);
            let value = text[at..end].to_owned();
            at = end;
            value
        };
        cells.push(((start, at), value));
        if bytes.get(at) != Some(&b',') {
            return cells;
        }
        at += 1;
    }
}

/// Moves the spans of `node` (parsed from one line) `lines` lines and
/// `bytes` bytes down, to where the line is in its file.
fn shift(node: &mut Node, lines: u32, bytes: usize) {
    let move_span = |span: &mut templiqx_contracts::Span| {
        span.start.line += lines;
        span.end.line += lines;
        span.bytes = (span.bytes.0 + bytes, span.bytes.1 + bytes);
    };
    move_span(&mut node.span);
    match &mut node.value {
        yaml::NodeValue::Seq(items) => items.iter_mut().for_each(|n| shift(n, lines, bytes)),
        yaml::NodeValue::Map(entries) => {
            for (key, value) in entries {
                move_span(&mut key.span);
                shift(value, lines, bytes);
            }
        }
        _ => {}
    }
}

/// The request files the manifest of the package at `root` lists under
/// `evals` (`docs/format.md`, "Packages"), parsed, as the workspace shows
/// them (an open buffer wins over the disk). A path that does not stay in
/// the package (see [`in_package`]), a file that cannot be read or is not
/// a JSON object, and a JSON document without the request shape (an object of
/// `inputs` and `context` objects only: `docs/cli.md`, "render"; a model
/// output, say) are left out. Empty when `root` holds no manifest or it
/// does not parse.
fn listed_requests(workspace: &Workspace, root: &Path) -> Vec<Tree> {
    let Some(manifest) = workspace
        .text(&root.join(MANIFEST))
        .and_then(|text| yaml::parse(&text).ok())
    else {
        return Vec::new();
    };
    let listed = manifest.get("evals").and_then(Node::as_seq);
    let mut out: Vec<Tree> = Vec::new();
    for path in listed.unwrap_or_default().iter().filter_map(Node::as_str) {
        let Some(path) = in_package(root, path) else {
            continue;
        };
        if out.iter().any(|t| t.path == path) {
            continue;
        }
        let Some(text) = workspace.text(&path) else {
            continue;
        };
        // JSON is YAML's flow syntax; the spanned reader takes any JSON.
        // A YAML block document is no request file (nor edited as JSON).
        let json = text.trim_start().starts_with('{');
        let Some(tree) = json.then(|| yaml::parse_spans(&text).ok()).flatten() else {
            continue;
        };
        let scopes = tree.as_map().unwrap_or_default();
        let shaped = !scopes.is_empty()
            && scopes.iter().all(|(k, v)| {
                matches!(k.text.as_str(), "inputs" | "context") && v.as_map().is_some()
            });
        if shaped {
            out.push(Tree {
                path,
                text,
                root: tree.into(),
            });
        }
    }
    out
}

/// The real path of the package path `path` under the package root
/// `root`, when it stays in the package as the manifest's artifact lists
/// must (`docs/format.md`, "Packages": relative, `/` separators, no NUL,
/// drive letter, empty, `.` or `..` segment), through symlinks too.
fn in_package(root: &Path, path: &str) -> Option<PathBuf> {
    let b = path.as_bytes();
    let drive = b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':';
    // Every segment a name (none empty: no leading `/` either).
    let segments = path
        .split('/')
        .all(|s| !s.is_empty() && s != "." && s != "..");
    if drive || path.contains(['\\', '\0']) || !segments {
        return None;
    }
    let joined = root.join(path);
    let real = RealFileSystem.canonicalize(&joined).unwrap_or(joined);
    real.starts_with(root).then_some(real)
}

/// Whether the request `request` targets the contract `contract`: every
/// key of its `inputs` and `context` is a field the contract declares
/// there (`docs/format.md`: a request may not carry undeclared keys).
fn targets(request: &Node, contract: &Node) -> bool {
    ["inputs", "context"].iter().all(|scope| {
        let declared = contract
            .get(scope)
            .and_then(Node::as_map)
            .unwrap_or_default();
        let set = request
            .get(scope)
            .and_then(Node::as_map)
            .unwrap_or_default();
        set.iter()
            .all(|(key, _)| declared.iter().any(|(d, _)| d.text == key.text))
    })
}

/// The keys of `contract`'s eval fixtures (`inputs`, `context`) that set
/// `field`.
fn fixture_keys<'t>(contract: &'t Tree, field: &Field<'_>) -> Vec<&'t Key> {
    let mut keys = Vec::new();
    for fixture in contract
        .root
        .get("evals")
        .and_then(Node::as_seq)
        .unwrap_or_default()
    {
        if let Some(values) = fixture.get(field.scope) {
            keys_below(values, &field.steps, &mut keys);
        }
    }
    keys
}

/// The keys of a value that set what `steps` reach.
fn keys_below<'t>(value: &'t Node, steps: &[Step<'_>], out: &mut Vec<&'t Key>) {
    match steps.split_first() {
        Some((Step::Name(name), rest)) => {
            if let Some((key, below)) = tree::entry(value, name) {
                if rest.is_empty() {
                    out.push(key);
                } else {
                    keys_below(below, rest, out);
                }
            }
        }
        Some((Step::Items, rest)) => {
            for item in value.as_seq().unwrap_or_default() {
                keys_below(item, rest, out);
            }
        }
        None => {}
    }
}

/// The field of `decl` at `offset` in `here` (`decl` itself, or a partial
/// it includes): a reference to it, its declaration key, its `required`
/// entry, or a fixture key that sets it.
pub(crate) fn field_at<'t>(here: &'t Tree, decl: &'t Tree, offset: usize) -> Option<Field<'t>> {
    if let Some((side, span)) = tree::declaration_at(here, decl, offset) {
        // In the contract itself, `Side::Here` is `decl` too (`case`).
        return (side == Side::Decl || here.path == decl.path)
            .then(|| fields(decl).into_iter().find(|f| f.key.span == span))
            .flatten();
    }
    if here.path != decl.path {
        return None;
    }
    let on = |span: &Span| span.bytes.0 <= offset && offset <= span.bytes.1;
    fields(decl).into_iter().find(|f| {
        on(&f.key.span)
            || f.required.is_some_and(|r| on(&r.span))
            || fixture_keys(decl, f).iter().any(|k| on(&k.span))
    })
}

/// Where `at` is: the files, the file under the cursor and the contract
/// it resolves in, and the byte offset.
pub(crate) fn locate(
    workspace: &Workspace,
    at: &lsp_types::TextDocumentPositionParams,
) -> Option<(Files, PathBuf, PathBuf, usize)> {
    let (here, decl, offset) = super::locate(workspace, at)?;
    let (here_path, decl_path) = (here.path.clone(), decl.path.clone());
    Some((
        Files::read(workspace, here, decl),
        here_path,
        decl_path,
        offset,
    ))
}

#[cfg(test)]
#[cfg(test)]
mod tests {
    use super::*;

    fn tree(text: &str) -> Tree {
        Tree::parse(PathBuf::from("/p/contracts/c.yaml"), text.to_owned()).unwrap()
    }

    const CONTRACT: &str = "\
inputs:
  customer:
    schema:
      type: object
      required: [name]
      properties:
        name: { type: string }
        orders:
          type: array
          items: { type: object, properties: { name: { type: string } } }
    required: true
context:
  name: { schema: { type: string } }
messages:
  - role: user
    content:
      - { kind: interpolate, expression: { kind: ref, path: inputs.customer.name } }
      - { kind: interpolate, expression: { kind: ref, path: \"context.name\" } }
      - kind: for_each
        collection: { kind: ref, path: inputs.customer.orders }
        item: order
        body:
          - { kind: interpolate, expression: { kind: ref, path: order.name } }
evals:
  - id: one
    inputs: { customer: { name: Ada, orders: [{ name: a }, { name: b }] } }
    context: { name: Ada }
";

    fn spelt<'t>(files: &'t Files, contract: &'t Tree, display: &str) -> Vec<(What, String)> {
        let sites = Sites::new(files);
        let all = fields(contract);
        let field = all.iter().find(|f| f.display() == display).unwrap();
        let (found, _) = spellings(files, &sites, contract, field);
        found
            .iter()
            .map(|s| {
                let (a, b) = s.bytes();
                let line = LineIndex::new(&contract.text).position(a).line;
                (s.what, format!("{line}:{}", &contract.text[a..b]))
            })
            .collect()
    }

    #[test]
    fn listed_paths_stay_in_the_package() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("pkg");
        std::fs::create_dir_all(root.join("evals")).unwrap();
        std::fs::write(dir.path().join("outside.json"), "{}").unwrap();
        assert_eq!(
            in_package(&root, "evals/r.json"),
            Some(root.join("evals/r.json"))
        );
        for refused in [
            "",
            "/etc/r.json",
            "C:/r.json",
            "evals\\r.json",
            "evals//r.json",
            "./evals/r.json",
            "evals/../r.json",
            "../outside.json",
            "evals/r\0.json",
        ] {
            assert_eq!(in_package(&root, refused), None, "{refused:?}");
        }
        // Nor through a symlink out of it.
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("outside.json"), root.join("evals/l.json"))
                .unwrap();
            assert_eq!(in_package(&root, "evals/l.json"), None);
        }
    }

    #[test]
    fn a_request_targets_a_contract_that_declares_every_key_it_sets() {
        let contract = tree(CONTRACT);
        let request = |json: &str| yaml::parse_spans(json).unwrap();
        assert!(targets(&request("{}"), &contract.root));
        assert!(targets(
            &request(
                r#"{"inputs": {"customer": {"name": "Ada", "x": 1}}, "context": {"name": "s"}}"#
            ),
            &contract.root
        ));
        assert!(!targets(
            &request(r#"{"inputs": {"customer": {}, "nickname": "A"}}"#),
            &contract.root
        ));
        assert!(!targets(
            &request(r#"{"context": {"customer": {}}}"#),
            &contract.root
        ));
    }

    #[test]
    fn csv_header_cells_are_read_as_rfc_4180_quotes_them() {
        let cells = |text: &str| -> Vec<(String, String)> {
            header_cells(text)
                .into_iter()
                .map(|((a, b), value)| (text[a..b].to_owned(), value))
                .collect()
        };
        let pair = |raw: &str, value: &str| (raw.to_owned(), value.to_owned());
        assert_eq!(
            cells("\u{feff}id,\"inputs.a\",\"case.\"\"b\"\"\",,\"x,\ny\"\r\n1,2\n"),
            [
                pair("id", "id"),
                pair("\"inputs.a\"", "inputs.a"),
                pair("\"case.\"\"b\"\"\"", "case.\"b\""),
                pair("", ""),
                pair("\"x,\ny\"", "x,\ny"),
            ]
        );
        // Up to a cell that is not well quoted.
        assert_eq!(cells("a,\"b\"c,d"), [pair("a", "a")]);
        assert_eq!(cells("a,\"b"), [pair("a", "a")]);
        assert_eq!(cells("a"), [pair("a", "a")]);
    }

    #[test]
    fn fields_are_enumerated_through_properties_and_items() {
        let t = tree(CONTRACT);
        let names: Vec<String> = fields(&t).iter().map(Field::display).collect();
        assert_eq!(
            names,
            [
                "inputs.customer",
                "inputs.customer.name",
                "inputs.customer.orders",
                "inputs.customer.orders[].name",
                "context.name",
            ]
        );
        let name = &fields(&t)[1];
        assert_eq!(name.siblings, ["name", "orders"]);
        assert_eq!(name.required.unwrap().as_str(), Some("name"));
    }

    #[test]
    fn spellings_are_matched_by_declaration_not_by_text() {
        let t = tree(CONTRACT);
        let mut files = Files::default();
        files.contracts.insert(t.path.clone(), t.clone());
        let contract = files.contracts.values().next().unwrap();
        assert_eq!(
            spelt(&files, contract, "inputs.customer.name"),
            [
                (What::Declaration, "6:name".to_owned()),
                (What::Required, "4:name".to_owned()),
                (What::Reference, "16:name".to_owned()),
                (What::Fixture, "25:name".to_owned()),
            ]
        );
        // Through a `for_each` item, and in every element of an array.
        assert_eq!(
            spelt(&files, contract, "inputs.customer.orders[].name"),
            [
                (What::Declaration, "9:name".to_owned()),
                (What::Reference, "22:name".to_owned()),
                (What::Fixture, "25:name".to_owned()),
                (What::Fixture, "25:name".to_owned()),
            ]
        );
        // Inside quotes, only the name.
        assert_eq!(
            spelt(&files, contract, "context.name"),
            [
                (What::Declaration, "12:name".to_owned()),
                (What::Reference, "17:name".to_owned()),
                (What::Fixture, "26:name".to_owned()),
            ]
        );
    }
}
