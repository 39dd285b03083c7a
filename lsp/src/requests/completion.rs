//! Completion (`textDocument/completion`; `docs/cli.md`, "lsp"): reference
//! paths, filters, content node and expression kinds, component names,
//! capability names and the keywords of the bounded JSON Schema subset,
//! each where the format expects it.
//!
//! The document is read with the compiler's parser (`templiqx_build::yaml`)
//! after inserting a marker at the cursor, as rust-analyzer inserts a fake
//! identifier: the node being typed then exists even when nothing is typed
//! yet (`path: ` becomes `path: M`, `filters: [` becomes `filters: [M`).
//! When that text does not parse, the line of the cursor is repaired
//! (flow collections and quotes closed, a bare word made a key, the rest of
//! the line dropped) and other lines the parser stops at are blanked. When
//! nothing parses, the key before the cursor on its line decides, with the
//! declarations of the last tree of the file that parsed. A broken document
//! gets fewer candidates, never an error.
//!
//! References are completed from the declarations the hover reads
//! ([`tree::resolve`]), the names of closed sets from the compiler's
//! own tables ([`templiqx_build::FILTERS`], [`templiqx_build::NODE_KINDS`],
//! [`templiqx_build::schema::KEYWORDS`]). Expression kinds and reference
//! roots are those the place of the cursor allows ([`Place`]: content
//! keeps to the format's kinds and `inputs`/`context`; an eval check adds
//! `compare`, `contains`, `length` and `output`, and `judge` as the whole
//! check only; the `pass` of a model-graded check adds the root `judge`;
//! `docs/format.md`, "Where each kind is allowed"), so nothing offered is
//! refused when written. In a model-graded check (`docs/format.md`,
//! "Model-graded checks"), the judge contract (of the package's last
//! compilation) declares `judge` in `pass`, typed by its `output_schema`,
//! and the keys of `with`, its input names.

use super::{Failure, RequestHandler, Session, hover};
use crate::convert::LineIndex;
use crate::queue::{Dropped, Token};
use crate::tree::{self, Declared, Hit, Tree};
use crate::workspace::Workspace;
use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionParams, CompletionResponse, CompletionTextEdit,
    Documentation, MarkupContent, MarkupKind, Position, TextEdit,
};
use std::collections::BTreeSet;
use std::path::Path;
use templiqx_build::yaml::{self, Node};
use templiqx_contracts::expr::{Kind, Place};

/// The characters after which a client asks for completion: `.` between
/// reference segments, `:` after a key, `[` and `,` in a flow list.
pub(crate) const TRIGGERS: &[&str] = &[".", ":", "[", ","];

/// What is inserted at the cursor before parsing.
const MARKER: &str = "templiqxCompletionCursor";

/// How many other lines the parser stops at are blanked before giving up.
const BLANKED_LINES: usize = 4;

/// The bytes the parses of one completion may read in all (the document's
/// length per parse, and at least two parses): on a document under 400 KiB
/// every variant and repair is tried; on a 3 MB one, two parses.
const PARSE_BUDGET: usize = 8 << 20;

/// The most nested `for_each` collections a completed reference's type is
/// followed through (as the hover follows them).
const BUDGET: usize = 8;

/// One candidate.
struct Candidate {
    label: String,
    kind: CompletionItemKind,
    detail: Option<String>,
    /// Markdown.
    documentation: Option<String>,
}

/// The candidates at the cursor, and how they are inserted.
#[derive(Default)]
struct Completions {
    candidates: Vec<Candidate>,
    /// The value must be a list and the cursor is on a scalar: insert
    /// `[name]`.
    wrap: bool,
    /// Inserted after the name (`: ` after a key not followed by one).
    suffix: &'static str,
    /// The word being replaced ends at a `.` (a reference segment) rather
    /// than at white space or punctuation (a capability `openai.reasoning`).
    segment: bool,
}

impl Completions {
    fn of(candidates: Vec<Candidate>) -> Completions {
        Completions {
            candidates,
            ..Completions::default()
        }
    }

    fn wrapped(mut self, wrap: bool) -> Completions {
        self.wrap = wrap;
        self
    }
}

/// The `textDocument/completion` handler.
pub(crate) struct Completion;

impl RequestHandler for Completion {
    type Request = lsp_types::request::Completion;

    fn run(
        session: &Session<'_>,
        params: CompletionParams,
    ) -> Result<Option<CompletionResponse>, Failure> {
        let at = &params.text_document_position;
        // A document the server cannot read gets an empty list.
        let items = Workspace::key(&at.text_document.uri)
            .map(|path| completion(session.workspace, &path, at.position, session.token))
            .transpose()?
            .unwrap_or_default();
        Ok(Some(CompletionResponse::Array(items)))
    }
}

/// The completion items at `position` in the file at real `path`; empty
/// when nothing fits (or the file is unknown). `Err` when `token` stops
/// the request between two parses.
fn completion(
    workspace: &Workspace,
    path: &Path,
    position: Position,
    token: &Token<'_>,
) -> Result<Vec<CompletionItem>, Dropped> {
    let Some(text) = workspace.text(path) else {
        return Ok(Vec::new());
    };
    let index = LineIndex::new(&text);
    let offset = index.offset(position);
    let completions = match probe(&text, offset, token)? {
        Some((here, marker)) => {
            let including;
            let decl = if here.root.as_map().is_some() {
                &here
            } else {
                including = workspace
                    .including_contract(path)
                    .unwrap_or_else(|| here.clone());
                &including
            };
            in_tree(
                workspace,
                path,
                &here,
                decl,
                marker,
                after_word(&text, offset),
            )
        }
        None => on_line(workspace, path, &text, offset),
    };
    let start = word_start(&text, offset, completions.segment);
    let range = index.byte_range(start, offset);
    // After `key:` with no space (the `:` trigger), a value needs one.
    let space = if text[..start].ends_with(':') {
        " "
    } else {
        ""
    };
    let items = completions
        .candidates
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let name = if completions.wrap {
                format!("[{}]", c.label)
            } else {
                c.label.clone()
            };
            CompletionItem {
                text_edit: Some(CompletionTextEdit::Edit(TextEdit {
                    range,
                    new_text: format!("{space}{name}{}", completions.suffix),
                })),
                filter_text: Some(c.label.clone()),
                sort_text: Some(format!("{i:04}")),
                label: c.label,
                kind: Some(c.kind),
                detail: c.detail,
                documentation: c.documentation.map(|value| {
                    Documentation::MarkupContent(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value,
                    })
                }),
                ..CompletionItem::default()
            }
        })
        .collect();
    Ok(items)
}

/// Whether `c` ends the word being completed (`segment`: a reference
/// segment, which also ends at `.`).
fn stops(c: char, segment: bool) -> bool {
    c.is_whitespace()
        || matches!(c, ',' | ':' | '[' | ']' | '{' | '}' | '"' | '\'' | '#')
        || (segment && c == '.')
}

/// Where the word before `offset` starts.
fn word_start(text: &str, offset: usize, segment: bool) -> usize {
    text[..offset]
        .char_indices()
        .rev()
        .find(|&(_, c)| stops(c, segment))
        .map_or(0, |(i, c)| i + c.len_utf8())
}

/// The text after the word the cursor is in (on its line).
fn after_word(text: &str, offset: usize) -> &str {
    let rest = &text[offset..];
    let end = rest
        .char_indices()
        .find(|&(_, c)| stops(c, true))
        .map_or(rest.len(), |(i, _)| i);
    let line = rest.find(['\n', '\r']).unwrap_or(rest.len());
    &rest[end.min(line)..line]
}

fn line_start(text: &str, offset: usize) -> usize {
    text[..offset].rfind(['\n', '\r']).map_or(0, |i| i + 1)
}

fn line_end(text: &str, offset: usize) -> usize {
    text[offset..]
        .find(['\n', '\r'])
        .map_or(text.len(), |i| offset + i)
}

/// What closes the flow collections and the quoted scalar left open on a
/// line up to the cursor: `"}]` for `{ a: ["x`.
fn closers(line: &str) -> String {
    let mut open = Vec::new();
    let mut quote: Option<char> = None;
    let mut chars = line.chars().peekable();
    let mut previous = ' ';
    while let Some(c) = chars.next() {
        match quote {
            Some('"') if c == '\\' => {
                chars.next();
            }
            Some(q) if c == q => {
                // `''` is an escaped quote in a single-quoted scalar.
                if q == '\'' && chars.peek() == Some(&'\'') {
                    chars.next();
                } else {
                    quote = None;
                }
            }
            Some(_) => {}
            None => match c {
                '"' | '\'' => quote = Some(c),
                '[' => open.push(']'),
                '{' => open.push('}'),
                ']' | '}' => {
                    open.pop();
                }
                '#' if previous.is_whitespace() => break,
                _ => {}
            },
        }
        previous = c;
    }
    quote.into_iter().chain(open.into_iter().rev()).collect()
}

/// Whether the line up to the cursor is only indentation, an optional
/// `- `, and a word (a key being typed in a block mapping).
fn bare_word(line: &str) -> bool {
    let rest = line.trim_start();
    let rest = rest.strip_prefix("- ").unwrap_or(rest).trim_start();
    !rest.contains(|c| stops(c, false))
}

/// The tree of `text` with the marker at `offset` (after a space when a
/// `:` ends the text before it), repaired as the module docs say, and the
/// offset of the marker; `None` when no repair parses. `token` is checked
/// before each parse: on a large document, parses are most of a
/// completion's work.
fn probe(text: &str, offset: usize, token: &Token<'_>) -> Result<Option<(Tree, usize)>, Dropped> {
    let head = &text[..offset];
    let pad = if head.ends_with(':') { " " } else { "" };
    let marker = offset + pad.len();
    let start = line_start(text, offset);
    let end = line_end(text, offset);
    let mut variants = vec![format!("{head}{pad}{MARKER}{}", &text[offset..])];
    let close = closers(&text[start..offset]);
    if !close.is_empty() {
        variants.push(format!("{head}{pad}{MARKER}{close}{}", &text[end..]));
    }
    if bare_word(&text[start..offset]) {
        variants.push(format!("{head}{MARKER}:{}", &text[end..]));
    }
    if end > offset {
        variants.push(format!("{head}{pad}{MARKER}{}", &text[end..]));
    }
    // Each variant is parsed whole, up to `BLANKED_LINES + 1` times: on a
    // large document the parses are bounded by `PARSE_BUDGET` bytes (at
    // least two), so a completion costs about what a compilation does.
    let mut parses = (PARSE_BUDGET / text.len().max(1)).max(2);
    for variant in variants {
        if let Some((text, root)) = parse_around(variant, marker, &mut parses, token)? {
            let tree = Tree {
                path: std::path::PathBuf::new(),
                text,
                root: root.into(),
            };
            return Ok(Some((tree, marker)));
        }
    }
    Ok(None)
}

/// Parses `text`, blanking up to [`BLANKED_LINES`] lines the parser stops
/// at, other than the line of `keep` (offsets do not move: a line is
/// replaced by as many spaces as it has bytes); each parse takes one of
/// `parses`, and none left is a failure (`Ok(None)`); `Err` when `token`
/// stops the request before a parse.
fn parse_around(
    mut text: String,
    keep: usize,
    parses: &mut usize,
    token: &Token<'_>,
) -> Result<Option<(String, Node)>, Dropped> {
    for _ in 0..=BLANKED_LINES {
        token.check()?;
        let Some(left) = parses.checked_sub(1) else {
            return Ok(None);
        };
        *parses = left;
        let error = match yaml::parse(&text) {
            Ok(root) => return Ok(Some((text, root))),
            Err(error) => error,
        };
        let Some(span) = error.span else {
            return Ok(None);
        };
        let mut at = span.bytes.0.min(text.len());
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        let (start, end) = (line_start(&text, at), line_end(&text, at));
        if (start..=end).contains(&keep) || start == end {
            return Ok(None);
        }
        text.replace_range(start..end, &" ".repeat(end - start));
    }
    Ok(None)
}

/// The candidates at the marker (at `marker`) of the parsed `here`, whose
/// references are declared in `decl`; `after` is what follows the word
/// being typed on the original line.
fn in_tree(
    workspace: &Workspace,
    path: &Path,
    here: &Tree,
    decl: &Tree,
    marker: usize,
    after: &str,
) -> Completions {
    let hit = tree::hit(&here.root, marker);
    let tokens: Vec<&str> = hit.tokens.iter().map(String::as_str).collect();
    let n = hit.nodes.len();
    let manifest = here.root.get("package").is_some();
    let contract = here.root.as_map().is_some() && !manifest;
    // The judge contract of the model-graded check the cursor is in.
    let judge = tree::judge_id(&hit).and_then(|id| workspace.contract_by_id(path, id));
    let judge = judge.as_ref();
    // A key being typed.
    let key_suffix = if after.starts_with(':') { "" } else { ": " };
    if let Some((last, map)) = tokens.split_last()
        && last.contains(MARKER)
    {
        if let (["evals", _, "expect", _, "check", "with"], Some(judge)) = (map, judge) {
            let mut inputs = judge_inputs(judge, Some(hit.nodes[n - 2]));
            inputs.suffix = key_suffix;
            return inputs;
        }
        if !is_schema(map, manifest) {
            return Completions::default();
        }
        let mut keywords = keywords(workspace, Some(hit.nodes[n - 2]));
        keywords.suffix = key_suffix;
        return keywords;
    }
    let Some(typed) = hit
        .node()
        .as_str()
        .and_then(|s| s.find(MARKER).map(|i| &s[..i]))
    else {
        return Completions::default();
    };
    let parent = hit.parent().and_then(tree::kind_of);
    let index = |token: &str| token.parse::<usize>().is_ok();
    // A word alone on its line, the value of the key above it: a key is
    // begun there (on the key's own line, `schema: ty`, it is a value).
    let begun = bare_word(&here.text[line_start(&here.text, marker)..marker])
        && !typed.contains(|c| stops(c, false));
    match tokens.as_slice() {
        [.., "path"] if parent == Some("ref") => references(decl, judge, &hit, typed),
        [.., "filters"] if parent == Some("interpolate") => filters(workspace).wrapped(true),
        [.., "filters", i]
            if index(i) && tree::kind_of(hit.nodes[n - 3]) == Some("interpolate") =>
        {
            filters(workspace)
        }
        [.., "kind"] => match slot(&hit, n - 2) {
            Some(Slot::Content) => kinds(templiqx_build::NODE_KINDS, "content node"),
            Some(Slot::Expression) => {
                // A whole check (`/evals/i/expect/j/check`) may be a
                // `judge`; an operand, a `with` value or a `pass` never is.
                let whole = tokens.len() == 6 && tokens[4] == "check";
                let place = place(&hit);
                let allowed: Vec<&str> = place
                    .kinds()
                    .filter(|k| whole || place.allows_operand(*k))
                    .map(Kind::as_str)
                    .collect();
                kinds(&allowed, "expression")
            }
            None => Completions::default(),
        },
        [.., "name"] if parent == Some("component") => components(decl),
        ["capabilities"] if contract => capabilities(workspace, path, &[]).wrapped(true),
        ["capabilities", i] if contract && index(i) => {
            let listed: Vec<&str> = hit.nodes[1]
                .as_seq()
                .unwrap_or_default()
                .iter()
                .filter_map(Node::as_str)
                .filter(|s| !s.contains(MARKER))
                .collect();
            capabilities(workspace, path, &listed)
        }
        ["extensions", _, "capability"] if contract => capabilities(workspace, path, &[]),
        // `with:` followed by a word on the next line: a key is begun.
        ["evals", _, "expect", _, "check", "with"] if begun => {
            let Some(judge) = judge else {
                return Completions::default();
            };
            let mut inputs = judge_inputs(judge, None);
            inputs.suffix = key_suffix;
            inputs
        }
        // `schema:` followed by a word on the next line: a key is begun.
        _ if is_schema(&tokens, manifest) && begun => {
            let mut keywords = keywords(workspace, None);
            keywords.suffix = key_suffix;
            keywords
        }
        _ => Completions::default(),
    }
}

/// The candidates when nothing parses: from the key before the cursor on
/// its line, with the declarations of the contract including the file (a
/// partial) or of its last tree that parsed.
fn on_line(workspace: &Workspace, path: &Path, text: &str, offset: usize) -> Completions {
    let line = &text[line_start(text, offset)..offset];
    let Some((key, value)) = key_before(line) else {
        return Completions::default();
    };
    let decl = workspace
        .including_contract(path)
        .or_else(|| workspace.last_good(path).cloned());
    // The names before the one being typed in a flow list.
    let listed = |value: &str| -> Vec<String> {
        let mut names: Vec<String> = value
            .trim_start_matches('[')
            .split(',')
            .map(|s| s.trim().to_owned())
            .collect();
        names.pop();
        names
    };
    match key {
        "path" => {
            let Some(decl) = decl else {
                return Completions::default();
            };
            let hit = Hit {
                tokens: Vec::new(),
                nodes: vec![&decl.root],
            };
            references(&decl, None, &hit, value.trim_start_matches(['"', '\'']))
        }
        "kind" => {
            // `judge` only as a whole check, as in a tree (`Place::allows_operand`).
            let (place, whole) = place_on_line(text, offset);
            let allowed: Vec<&str> = place
                .kinds()
                .filter(|k| whole || place.allows_operand(*k))
                .map(Kind::as_str)
                .collect();
            let mut all = match place {
                Place::Content => kinds(templiqx_build::NODE_KINDS, "content node"),
                _ => Completions::default(),
            };
            all.candidates
                .extend(kinds(&allowed, "expression").candidates);
            all
        }
        "filters" => filters(workspace).wrapped(!value.starts_with('[')),
        "capabilities" => {
            let listed = listed(value);
            let listed: Vec<&str> = listed.iter().map(String::as_str).collect();
            capabilities(workspace, path, &listed).wrapped(!value.starts_with('['))
        }
        "capability" => capabilities(workspace, path, &[]),
        "name" if line.contains("component") => match decl {
            Some(decl) => components(&decl),
            None => Completions::default(),
        },
        _ => Completions::default(),
    }
}

/// Where the `kind` being typed at `offset` is when nothing parses, by
/// the text alone, and whether it is the kind of a whole eval check (the
/// only place a `judge` may be, `Place::allows_operand`). The lines that
/// enclose the cursor are its line and each line above it indented less
/// than every line between (an enclosing mapping). After the innermost
/// `check:` key among them: in the `pass` of a model-graded check when a
/// `pass:` key follows it; else in an eval check, the whole check when
/// nothing but the `{` of a flow mapping without nested ones is between
/// (`check: { kind: |`, or `kind: |` on its own line right below
/// `check:`), an operand or a `with` value otherwise. Without one, in
/// content.
fn place_on_line(text: &str, offset: usize) -> (Place, bool) {
    let start = line_start(text, offset);
    let indent = |line: &str| line.len() - line.trim_start_matches([' ', '-']).len();
    let mut within = indent(&text[start..offset]);
    // The cursor's line up to the `kind` key being typed.
    let line = &text[start..offset];
    let mut enclosing = vec![line.rfind("kind:").map_or(line, |i| &line[..i])];
    for line in text[..start].lines().rev() {
        let trimmed = line.trim_start_matches([' ', '-']);
        if trimmed.is_empty() || trimmed.starts_with('#') || indent(line) >= within {
            continue;
        }
        enclosing.push(line);
        within = indent(line);
        if within == 0 {
            break;
        }
    }
    for (i, line) in enclosing.iter().enumerate() {
        let Some(at) = key_at(line, "check") else {
            continue;
        };
        // What is written from `check:` to the cursor.
        let mut after = line[at + "check:".len()..].to_owned();
        for inner in enclosing[..i].iter().rev() {
            after.push('\n');
            after.push_str(inner);
        }
        if key_at(&after, "pass").is_some() {
            return (Place::Pass, false);
        }
        let after = after.trim();
        let whole = after.is_empty()
            || after
                .strip_prefix('{')
                .is_some_and(|rest| !rest.contains(['{', '[']));
        return (Place::Check, whole);
    }
    (Place::Content, false)
}

/// Where the last key `key` is written in `line` (`key:` at the start of
/// the line or after white space, `{`, `,` or `-`).
fn key_at(line: &str, key: &str) -> Option<usize> {
    let written = format!("{key}:");
    line.rmatch_indices(written.as_str())
        .map(|(i, _)| i)
        .find(|&i| {
            line[..i]
                .chars()
                .next_back()
                .is_none_or(|c| c.is_whitespace() || matches!(c, '{' | ',' | '-'))
        })
}

/// The key whose value the cursor is in on `line` (`path` in
/// `{ kind: ref, path: inputs.cu`) and the value typed so far.
fn key_before(line: &str) -> Option<(&str, &str)> {
    let colon = match line.rfind(": ") {
        Some(i) => i,
        None => line.strip_suffix(':')?.len(),
    };
    let key = &line[..colon];
    let key_start = key
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    Some((&key[key_start..], line[colon + 1..].trim_start()))
}

/// Where a mapping is, by its position: content nodes and expressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Content,
    Expression,
}

/// Whether `hit.nodes[k]` is a content node or an expression, by where it
/// is (`docs/format.md`, "Content nodes", "Expressions", "Eval fixtures").
fn slot(hit: &Hit<'_>, k: usize) -> Option<Slot> {
    let token = |i: usize| hit.tokens.get(i).map(String::as_str);
    let kind = |i: usize| hit.nodes.get(i).and_then(|n| tree::kind_of(n));
    let key = token(k.checked_sub(1)?)?;
    if key.parse::<usize>().is_ok() {
        // An item of a list: a partial's, a message's or a component's
        // content, a branch, a body, operands.
        if k == 1 {
            return hit.nodes[0].as_seq().map(|_| Slot::Content);
        }
        return match (token(k - 2)?, kind(k - 2)) {
            ("content", _) | ("then" | "else", Some("when")) | ("body", Some("for_each")) => {
                Some(Slot::Content)
            }
            ("operands", Some("and" | "or")) => Some(Slot::Expression),
            // A component in the legacy form: a bare list.
            _ if k == 3 && token(0) == Some("components") => Some(Slot::Content),
            _ => None,
        };
    }
    match (key, kind(k - 1)) {
        ("expression", Some("interpolate"))
        | ("condition", Some("when"))
        | ("collection", Some("for_each"))
        | ("left" | "right", Some("equals" | "compare"))
        | ("operand", Some("not"))
        | ("container" | "item", Some("contains"))
        | ("of", Some("length"))
        | ("pass", Some("judge")) => Some(Slot::Expression),
        // A component argument, a judge's input.
        _ if k >= 2
            && token(k - 2) == Some("with")
            && matches!(kind(k - 2), Some("component" | "judge")) =>
        {
            Some(Slot::Expression)
        }
        // An eval check: `/evals/i/expect/j/check`.
        ("check", _) if k == 5 && token(0) == Some("evals") && token(2) == Some("expect") => {
            Some(Slot::Expression)
        }
        _ => None,
    }
}

/// Whether the mapping at `tokens` is a schema: the `schema` of an input, a
/// context field, a component parameter, an extension or a tool contract
/// (in a manifest), `output_schema`, or a property or `items` below one.
fn is_schema(tokens: &[&str], manifest: bool) -> bool {
    let below = match tokens {
        ["inputs" | "context", _, "schema", rest @ ..] if !manifest => rest,
        ["output_schema", rest @ ..] if !manifest => rest,
        ["components", _, "parameters", _, "schema", rest @ ..] if !manifest => rest,
        ["extensions", _, "schema", rest @ ..] if !manifest => rest,
        ["tool_contracts", _, "schema", rest @ ..] if manifest => rest,
        _ => return false,
    };
    let mut rest = below;
    loop {
        rest = match rest {
            [] => return true,
            ["properties", _, rest @ ..] | ["items", rest @ ..] => rest,
            _ => return false,
        }
    }
}

fn markdown_link(workspace: &Workspace, title: &str, fragment: &str) -> Option<String> {
    hover::format_link(workspace.docs(), fragment)
        .map(|url| format!("[docs/format.md, \"{title}\"]({url})"))
}

/// A candidate for a declaration (an input, a property, a local), with its
/// type as detail and its hover as documentation.
fn declared(label: &str, d: &Declared<'_>, kind: CompletionItemKind) -> Candidate {
    let mut detail = d
        .schema
        .map_or_else(|| "any".to_owned(), |(_, s)| tree::type_summary(s, 0));
    match d.required {
        Some(true) => detail.push_str(", required"),
        Some(false) => detail.push_str(", optional"),
        None => {}
    }
    Candidate {
        label: label.to_owned(),
        kind,
        detail: Some(detail),
        documentation: Some(hover::declaration_text(d)),
    }
}

/// What the first `depth` ancestors of `hit` and `decl` say `segments`
/// name; in the `pass` of a model-graded check, the root `judge` is the
/// output of `judge`, the judge contract ([`tree::resolve_judged`], as
/// hover and definition resolve it).
fn resolve<'a>(
    decl: &'a Tree,
    judge: Option<&'a Tree>,
    hit: &Hit<'a>,
    depth: usize,
    segments: &[&str],
) -> Option<Declared<'a>> {
    tree::resolve_judged(decl, judge, hit, depth, segments, BUDGET)
}

/// The segments that can follow `typed` (a reference path up to the
/// cursor) at `hit`: the roots, the fields of `inputs` or `context`, or the
/// properties of what the complete segments name; `judge` is the judge
/// contract of the model-graded check holding `hit`, if any.
fn references(decl: &Tree, judge: Option<&Tree>, hit: &Hit<'_>, typed: &str) -> Completions {
    let segments: Vec<&str> = typed.split('.').collect();
    let done = &segments[..segments.len() - 1];
    let depth = hit.tokens.len();
    let mut out = Completions::of(match done {
        [] => roots(decl, judge, hit),
        [scope @ ("inputs" | "context")] => decl
            .root
            .get(scope)
            .and_then(Node::as_map)
            .unwrap_or_default()
            .iter()
            .filter_map(|(key, _)| {
                let d = tree::resolve(decl, hit, depth, &[scope, &key.text], BUDGET)?;
                Some(declared(&key.text, &d, CompletionItemKind::FIELD))
            })
            .collect(),
        // A root scope of another place (`output` outside a check).
        [first, ..]
            if !place(hit).roots().contains(first)
                && Place::having_root(first).next().is_some()
                && !locals(hit).contains(first) =>
        {
            Vec::new()
        }
        _ => {
            let properties = resolve(decl, judge, hit, depth, done)
                .and_then(|d| d.schema)
                .and_then(|(_, schema)| schema.get("properties"))
                .and_then(Node::as_map)
                .unwrap_or_default();
            properties
                .iter()
                .filter_map(|(key, _)| {
                    let mut path = done.to_vec();
                    path.push(&key.text);
                    let d = resolve(decl, judge, hit, depth, &path)?;
                    Some(declared(&key.text, &d, CompletionItemKind::PROPERTY))
                })
                .collect()
        }
    });
    out.segment = true;
    out
}

/// Where `hit` is ([`Place`]): in the `pass` of a model-graded check
/// (`/evals/i/expect/j/check/pass/…`), in an eval check
/// (`/evals/i/expect/j/check/…`, a judge's `with` included), or in
/// content.
fn place(hit: &Hit<'_>) -> Place {
    if matches!(tree::judge_check(hit), Some((_, "pass"))) {
        Place::Pass
    } else if hit.tokens.first().map(String::as_str) == Some("evals")
        && hit.tokens.get(2).map(String::as_str) == Some("expect")
    {
        Place::Check
    } else {
        Place::Content
    }
}

/// The local names in scope at `hit`: the items of the enclosing
/// `for_each`es whose bodies hold it (innermost first), then the
/// parameters of the component whose content holds it
/// (`docs/format.md`, "References and scoping"). These are the scopes
/// [`tree::resolve`] looks a first segment up in, listed; each name is
/// resolved through it for its type.
fn locals<'a>(hit: &Hit<'a>) -> Vec<&'a str> {
    let mut names: Vec<&'a str> = Vec::new();
    for j in (0..hit.tokens.len()).rev() {
        let node = hit.nodes[j];
        if hit.tokens[j] == "body"
            && tree::kind_of(node) == Some("for_each")
            && let Some(item) = node.get("item").and_then(Node::as_str)
            && !names.contains(&item)
        {
            names.push(item);
        }
    }
    if hit.tokens.first().map(String::as_str) == Some("components")
        && let Some(parameters) = hit
            .nodes
            .get(2)
            .and_then(|c| c.get("parameters"))
            .and_then(Node::as_map)
    {
        for (key, _) in parameters {
            if !names.contains(&key.text.as_str()) {
                names.push(&key.text);
            }
        }
    }
    names
}

/// The first segments a reference can have at `hit`: its locals, then the
/// root scopes of its place (`inputs`, `context`, `output` in an eval
/// check, and `judge`, the output of the judge contract `judge`, in a
/// `pass`).
fn roots(decl: &Tree, judge: Option<&Tree>, hit: &Hit<'_>) -> Vec<Candidate> {
    let depth = hit.tokens.len();
    let mut out: Vec<Candidate> = locals(hit)
        .into_iter()
        .filter_map(|name| {
            let d = tree::resolve(decl, hit, depth, &[name], BUDGET)?;
            Some(declared(name, &d, CompletionItemKind::VARIABLE))
        })
        .collect();
    for &scope in place(hit).roots() {
        let what = match scope {
            "inputs" => "the caller's typed values",
            "context" => "host-supplied values",
            // A root that is a value (`output`, `judge`): typed by its
            // schema.
            _ => {
                if let Some(d) = resolve(decl, judge, hit, depth, &[scope]) {
                    out.push(declared(scope, &d, CompletionItemKind::MODULE));
                }
                continue;
            }
        };
        let names: Vec<String> = decl
            .root
            .get(scope)
            .and_then(Node::as_map)
            .unwrap_or_default()
            .iter()
            .map(|(k, _)| format!("`{}`", k.text))
            .collect();
        out.push(Candidate {
            label: scope.to_owned(),
            kind: CompletionItemKind::MODULE,
            detail: Some(format!("{what}: {} declared", names.len())),
            documentation: (!names.is_empty()).then(|| names.join(", ")),
        });
    }
    // A dataset row's expected data, in the checks of an entry with a
    // `case_schema` (`docs/format.md`, "Datasets").
    if tree::case_schema(hit).is_some()
        && let Some(d) = tree::resolve(decl, hit, depth, &["case"], BUDGET)
    {
        out.push(declared("case", &d, CompletionItemKind::MODULE));
    }
    out
}

/// The keys a mapping already has, but the one being typed (it holds the
/// completion marker); none when `map` is not a mapping.
fn keys_written(map: Option<&Node>) -> Vec<&str> {
    map.and_then(Node::as_map)
        .unwrap_or_default()
        .iter()
        .map(|(k, _)| k.text.as_str())
        .filter(|k| !k.contains(MARKER))
        .collect()
}

/// The input names of the judge contract `judge` that the `with` mapping
/// `with` does not give yet (`docs/format.md`, "Model-graded checks"),
/// with their types and descriptions.
fn judge_inputs(judge: &Tree, with: Option<&Node>) -> Completions {
    let given = keys_written(with);
    let declared_inputs = judge
        .root
        .get("inputs")
        .and_then(Node::as_map)
        .unwrap_or_default();
    Completions::of(
        declared_inputs
            .iter()
            .filter(|(key, _)| !given.contains(&key.text.as_str()))
            .map(|(key, input)| {
                let name = format!("inputs.{}", key.text);
                let d = tree::field("judge input", name, tree::Side::Judge, key, input);
                declared(&key.text, &d, CompletionItemKind::FIELD)
            })
            .collect(),
    )
}

/// The filters, with what each accepts and writes.
fn filters(workspace: &Workspace) -> Completions {
    Completions::of(
        hover::filters()
            .map(|(name, filter)| {
                let doc = hover::filter_doc(filter);
                Candidate {
                    label: name.to_owned(),
                    kind: CompletionItemKind::FUNCTION,
                    detail: Some(format!("filter: accepts {}", doc.accepts)),
                    documentation: Some(hover::filter_text(name, filter, workspace.docs())),
                }
            })
            .collect(),
    )
}

/// The fields of each kind, as `docs/format.md` lists them ("Content
/// nodes", "Expressions"); `?` marks an optional one.
fn kind_fields(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "text" => "value",
        "interpolate" => "expression, filters?",
        "when" => "condition, then, else?",
        "for_each" => "collection, item, body, separator?",
        "component" => "name, with?",
        "include" => "path, from_dependency?",
        "ref" => "path",
        "literal" => "value",
        "equals" => "left, right",
        "not" => "operand",
        "and" | "or" => "operands",
        "compare" => "op, left, right",
        "contains" => "container, item",
        "length" => "of",
        "judge" => "contract, with?, pass",
        _ => return None,
    })
}

/// The kinds of `names` (the compiler's table), with their fields.
fn kinds(names: &[&str], what: &str) -> Completions {
    Completions::of(
        names
            .iter()
            .map(|name| Candidate {
                label: (*name).to_owned(),
                kind: CompletionItemKind::ENUM_MEMBER,
                detail: Some(match kind_fields(name) {
                    Some(fields) => format!("{what}: {fields}"),
                    None => what.to_owned(),
                }),
                documentation: None,
            })
            .collect(),
    )
}

/// The components `decl` declares, with their parameters.
fn components(decl: &Tree) -> Completions {
    let declared = decl
        .root
        .get("components")
        .and_then(Node::as_map)
        .unwrap_or_default();
    Completions::of(
        declared
            .iter()
            .map(|(key, component)| {
                let parameters: Vec<&str> = component
                    .get("parameters")
                    .and_then(Node::as_map)
                    .unwrap_or_default()
                    .iter()
                    .map(|(k, _)| k.text.as_str())
                    .collect();
                Candidate {
                    label: key.text.clone(),
                    kind: CompletionItemKind::CLASS,
                    detail: Some(format!("component({})", parameters.join(", "))),
                    documentation: Some(hover::component_text(&key.text, component)),
                }
            })
            .collect(),
    )
}

/// The capability names known here: the target profile's (or, without
/// one, those contracts required so far) and those the package's
/// contracts need; `listed` ones are left out.
fn capabilities(workspace: &Workspace, path: &Path, listed: &[&str]) -> Completions {
    let users = workspace
        .compilation_of(path)
        .map(hover::capability_users)
        .unwrap_or_default();
    let mut names: BTreeSet<&str> = users.keys().map(String::as_str).collect();
    names.extend(workspace.learned().iter());
    if let Some(target) = workspace.target() {
        names.extend(target.iter());
    }
    let candidates = names
        .into_iter()
        .filter(|name| !name.is_empty() && !listed.contains(name))
        .map(|name| {
            let mut detail = Vec::new();
            if workspace.target().is_some_and(|t| t.contains(name)) {
                detail.push("in the target profile".to_owned());
            }
            let contracts: BTreeSet<&str> = users
                .get(name)
                .into_iter()
                .flatten()
                .map(|(id, _)| id.as_str())
                .collect();
            match contracts.len() {
                0 => {}
                1 => detail.push("needed by 1 contract".to_owned()),
                n => detail.push(format!("needed by {n} contracts")),
            }
            Candidate {
                label: name.to_owned(),
                kind: CompletionItemKind::CONSTANT,
                detail: Some(format!("capability: {}", detail.join("; "))),
                documentation: markdown_link(
                    workspace,
                    "Capabilities and the target profile",
                    "capabilities-and-the-target-profile",
                ),
            }
        })
        .collect();
    Completions::of(candidates)
}

/// The keywords of the bounded JSON Schema subset
/// ([`templiqx_build::schema::KEYWORDS`]) that `schema` does not have yet.
fn keywords(workspace: &Workspace, schema: Option<&Node>) -> Completions {
    let present = keys_written(schema);
    let link = markdown_link(
        workspace,
        "The bounded JSON Schema subset",
        "the-bounded-json-schema-subset",
    );
    Completions::of(
        templiqx_build::schema::KEYWORDS
            .iter()
            .filter(|k| !present.contains(k))
            .map(|k| Candidate {
                label: (*k).to_owned(),
                kind: CompletionItemKind::KEYWORD,
                detail: Some("JSON Schema keyword (the bounded subset)".to_owned()),
                documentation: link.clone(),
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::tests::completion as request;
    use crate::queue::{Pending, Queue};
    use lsp_types::Url;

    #[test]
    fn repairs_stop_when_the_parses_are_spent() {
        // Line 1 does not parse; the cursor is on line 2.
        let text = "a: 1\nb: \"x\" y\nc: x\n".to_owned();
        let keep = text.find("c:").unwrap();
        let pending = Pending::of(&request(1, "file:///c.yaml"));
        let never = Token::never(&pending);
        let mut parses = 2;
        let (repaired, root) = parse_around(text.clone(), keep, &mut parses, &never)
            .unwrap()
            .unwrap();
        assert_eq!(parses, 0);
        assert!(root.get("b").is_none() && root.get("c").is_some());
        assert_eq!(repaired.len(), text.len());
        let mut parses = 1;
        assert!(parse_around(text.clone(), keep, &mut parses, &never) == Ok(None));
        assert_eq!(parses, 0);
        let mut parses = 0;
        assert!(parse_around("a: 1\n".to_owned(), 0, &mut parses, &never) == Ok(None));
    }

    #[test]
    fn a_cancelled_completion_stops_before_its_first_parse() {
        let text = "a: 1\nb: \"x\" y\nc: x\n".to_owned();
        let (sender, receiver) = crossbeam_channel::unbounded();
        let queue = Queue::new(&receiver);
        let pending = Pending::of(&request(1, "file:///c.yaml"));
        let token = Token::new(&queue, &pending);
        let mut parses = 2;
        assert!(matches!(
            parse_around(text.clone(), 0, &mut parses, &token),
            Ok(Some(_))
        ));
        let cancel = lsp_server::Notification::new(
            "$/cancelRequest".to_owned(),
            serde_json::json!({ "id": 1 }),
        );
        sender.send(cancel.into()).unwrap();
        let mut parses = 2;
        assert!(parse_around(text.clone(), 0, &mut parses, &token) == Err(Dropped::Cancelled));
        assert_eq!(parses, 2, "no parse");
        assert!(matches!(probe(&text, 0, &token), Err(Dropped::Cancelled)));
    }

    /// The labels completed at `|` in `text` (a lone contract file).
    fn labels(text: &str) -> Vec<String> {
        let offset = text.find('|').unwrap();
        let text = text.replacen('|', "", 1);
        let path = std::path::PathBuf::from("/nonexistent-templiqx-test/c.yaml");
        let mut workspace = Workspace::new(None, None);
        workspace.open(Url::from_file_path(&path).unwrap(), 1, text.clone());
        let position = LineIndex::new(&text).position(offset);
        let key = Workspace::key(&Url::from_file_path(&path).unwrap()).unwrap();
        let pending = Pending::of(&request(1, "file:///c.yaml"));
        completion(&workspace, &key, position, &Token::never(&pending))
            .unwrap()
            .into_iter()
            .map(|c| c.label)
            .collect()
    }

    const CONTRACT: &str = "\
api_version: templiqx/v1alpha1
inputs:
  customer:
    schema:
      type: object
      properties:
        name: { type: string, description: The full name. }
        tags: { type: array, items: { type: object, properties: { label: { type: string } } } }
    required: true
context:
  locale: { schema: { type: string } }
messages:
  - role: user
    content:
      - kind: for_each
        collection: { kind: ref, path: inputs.customer.tags }
        item: tag
        body:
          - { kind: interpolate, expression: { kind: ref, path: CURSOR } }
";

    fn at(cursor: &str) -> Vec<String> {
        labels(&CONTRACT.replace("CURSOR", cursor))
    }

    #[test]
    fn references_complete_segment_by_segment() {
        assert_eq!(at("|"), ["tag", "inputs", "context"]);
        assert_eq!(at("inputs.|"), ["customer"]);
        assert_eq!(at("inputs.customer.n|"), ["name", "tags"]);
        assert_eq!(at("tag.|"), ["label"]);
        assert_eq!(at("context.|"), ["locale"]);
        // `output` is a root in eval checks only.
        assert_eq!(at("output.|"), Vec::<String>::new());
        assert_eq!(at("inputs.nobody.|"), Vec::<String>::new());
    }

    #[test]
    fn the_collection_of_a_for_each_does_not_see_its_item() {
        let text = CONTRACT
            .replace("inputs.customer.tags }", "| }")
            .replace("CURSOR", "tag");
        assert_eq!(labels(&text), ["inputs", "context"]);
    }

    #[test]
    fn half_typed_lines_are_repaired() {
        // An unclosed flow mapping, then nothing after the cursor.
        let text = CONTRACT.replace("path: CURSOR } }", "path: inputs.|");
        assert_eq!(labels(&text), ["customer"]);
        // An unclosed flow list and a quoted scalar.
        let text = CONTRACT.replace("path: CURSOR } }", "path: \"tag.|");
        assert_eq!(labels(&text), ["label"]);
        let text = CONTRACT.replace(
            "expression: { kind: ref, path: CURSOR } }",
            "expression: { kind: ref, path: tag }, filters: [tr|",
        );
        assert!(labels(&text).contains(&"trim".to_owned()));
    }

    #[test]
    fn kinds_depend_on_the_position() {
        let node = CONTRACT.replace(
            "- { kind: interpolate, expression: { kind: ref, path: CURSOR } }",
            "- kind: |",
        );
        assert_eq!(labels(&node), templiqx_build::NODE_KINDS);
        // Content: the format's kinds only; the eval operators would be
        // refused there (`TQX_EXPR_KIND_NOT_ALLOWED`).
        let expression = CONTRACT.replace("kind: ref, path: CURSOR", "kind: |");
        assert_eq!(
            labels(&expression),
            ["ref", "literal", "equals", "not", "and", "or"]
        );
    }

    #[test]
    fn schema_keywords_complete_in_schemas_only() {
        let text = CONTRACT.replace("      type: object\n", "      type: object\n      min|\n");
        let labels_in_schema = labels(&text);
        assert!(labels_in_schema.contains(&"minLength".to_owned()));
        assert!(
            !labels_in_schema.contains(&"type".to_owned()),
            "already there"
        );
        let text = CONTRACT.replace("    required: true\n", "    required: true\n    sch|\n");
        assert_eq!(labels(&text), Vec::<String>::new());
        let flow = CONTRACT.replace(
            "{ schema: { type: string } }",
            "{ schema: { type: string, | } }",
        );
        assert!(labels(&flow).contains(&"enum".to_owned()));
    }

    #[test]
    fn kinds_are_known_by_the_key_or_list_that_holds_them() {
        let at = |body: &str| labels(&format!("api_version: templiqx/v1alpha1\n{body}"));
        let message = |content: &str| {
            at(&format!(
                "messages:\n  - role: user\n    content:\n      - {content}\n"
            ))
        };
        let content: Vec<&str> = Place::Content.kinds().map(Kind::as_str).collect();
        for expression in [
            message("{ kind: when, condition: { kind: and, operands: [{ kind: | }] }, then: [] }"),
            message("{ kind: component, name: c, with: { a: { kind: | } } }"),
            message("{ kind: interpolate, expression: { kind: not, operand: { kind: | } } }"),
            message("{ kind: for_each, collection: { kind: | }, item: i, body: [] }"),
        ] {
            assert_eq!(expression, content);
        }
        let check = |check: &str| {
            at(&format!(
                "evals:\n  - id: e\n    expect:\n      - id: x\n        check: {check}\n"
            ))
        };
        // A whole check: every kind.
        assert_eq!(check("{ kind: | }"), templiqx_build::EXPR_KINDS);
        // The operands inside it, a judge's `with` values and its `pass`:
        // every kind but `judge`, a whole check only.
        let operands: Vec<&str> = Place::Pass.kinds().map(Kind::as_str).collect();
        assert!(!operands.contains(&"judge") && operands.contains(&"length"));
        for operand in [
            "{ kind: not, operand: { kind: | } }",
            "{ kind: compare, op: ge, left: { kind: | }, right: { kind: literal, value: 1 } }",
            "{ kind: judge, contract: j, with: { a: { kind: | } }, pass: { kind: literal, value: true } }",
            "{ kind: judge, contract: j, pass: { kind: | } }",
            "{ kind: judge, contract: j, pass: { kind: and, operands: [{ kind: | }] } }",
        ] {
            assert_eq!(check(operand), operands, "{operand}");
        }
        for content in [
            message(
                "{ kind: when, condition: { kind: literal, value: true }, then: [{ kind: | }] }",
            ),
            message(
                "{ kind: for_each, collection: { kind: ref, path: inputs.x }, item: i, body: [{ kind: | }] }",
            ),
            at("components:\n  c:\n    content: [{ kind: | }]\n"),
            at("components:\n  c:\n    - { kind: | }\n"),
        ] {
            assert_eq!(content, templiqx_build::NODE_KINDS);
        }
        // `kind` elsewhere (a fixture's value) is no kind.
        assert_eq!(
            at("evals:\n  - id: e\n    inputs: { kind: | }\n"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn schemas_are_found_by_position() {
        assert!(is_schema(&["inputs", "a", "schema"], false));
        assert!(is_schema(
            &["output_schema", "properties", "x", "items"],
            false
        ));
        assert!(is_schema(
            &[
                "components",
                "c",
                "parameters",
                "p",
                "schema",
                "properties",
                "q"
            ],
            false
        ));
        assert!(is_schema(&["extensions", "a.b", "schema"], false));
        assert!(is_schema(&["tool_contracts", "t", "schema"], true));
        assert!(!is_schema(&["tool_contracts", "t", "schema"], false));
        assert!(!is_schema(&["inputs", "a", "schema"], true));
        assert!(!is_schema(&["output_schema", "properties"], false));
        assert!(!is_schema(&["output_schema", "enum"], false));
        // A key begun on the line below `schema:` reads as its value.
        let begun = "api_version: templiqx/v1alpha1\ninputs:\n  a:\n    schema:\n      |\n    required: true\n";
        assert_eq!(labels(begun), templiqx_build::schema::KEYWORDS);
        // On the line of `schema:`, a word is its value (`schema: ty` is
        // no schema; a key written there would not parse).
        let value =
            "api_version: templiqx/v1alpha1\ninputs:\n  a:\n    schema: ty|\n    required: true\n";
        assert_eq!(labels(value), Vec::<String>::new());
    }

    #[test]
    fn every_kind_of_the_compiler_has_its_fields() {
        for kind in templiqx_build::NODE_KINDS
            .iter()
            .chain(templiqx_build::EXPR_KINDS)
        {
            assert!(kind_fields(kind).is_some(), "{kind}");
        }
    }

    #[test]
    fn the_place_is_read_from_the_lines_when_nothing_parses() {
        let at = |text: &str| place_on_line(&text.replace('|', ""), text.find('|').unwrap());
        let check = "evals:\n  - id: e\n    expect:\n      - id: x\n        check:\n          kind: not\n          operand:\n            kind: |";
        assert_eq!(at(check), (Place::Check, false));
        assert_eq!(
            at("      - { id: x, check: { kind: not, operand: { kind: |"),
            (Place::Check, false)
        );
        let content = "messages:\n  - role: user\n    content:\n      - kind: when\n        condition:\n          kind: |";
        assert_eq!(at(content), (Place::Content, false));
        // A check of an earlier fixture is no enclosing mapping.
        let after = "evals:\n  - id: e\n    expect:\n      - { id: x, check: { kind: literal, value: true } }\nmessages:\n  - role: user\n    content:\n      - kind: |";
        assert_eq!(at(after), (Place::Content, false));
        // The kind of the whole check, where a `judge` may be.
        let expect = "evals:\n  - id: e\n    expect:\n      - id: x\n";
        for whole in [
            "        check:\n          kind: |",
            "        check:\n          contract: j\n          kind: ju|",
            "        check: { kind: |",
            "        check: { contract: j, kind: |",
        ] {
            assert_eq!(
                at(&format!("{expect}{whole}")),
                (Place::Check, true),
                "{whole}"
            );
        }
        // In a judge's `with` and `pass`: operands.
        let judge =
            format!("{expect}        check:\n          kind: judge\n          contract: j\n");
        for (inside, place) in [
            ("          with:\n            a: { kind: |", Place::Check),
            (
                "          with:\n            a:\n              kind: |",
                Place::Check,
            ),
            ("          pass:\n            kind: |", Place::Pass),
            (
                "          pass: { kind: and, operands: [{ kind: |",
                Place::Pass,
            ),
        ] {
            assert_eq!(at(&format!("{judge}{inside}")), (place, false), "{inside}");
        }
        assert_eq!(
            at("        check: { kind: judge, contract: j, pass: { kind: |"),
            (Place::Pass, false)
        );
        assert_eq!(key_at("  a: { b: 1, pass: x", "pass"), Some(13));
        assert_eq!(key_at("  bypass: x", "pass"), None);
    }

    #[test]
    fn line_helpers() {
        assert_eq!(closers("a: { b: [\"x"), "\"]}");
        assert_eq!(closers("a: 'it''s [' # ["), "");
        assert_eq!(
            key_before("  - { kind: ref, path: inputs.cu"),
            Some(("path", "inputs.cu"))
        );
        assert_eq!(key_before("        filters:"), Some(("filters", "")));
        assert_eq!(key_before("plain"), None);
        assert!(bare_word("      - minL"));
        assert!(!bare_word("  a: b"));
        assert_eq!(word_start("path: inputs.cu", 15, true), 13);
        assert_eq!(word_start("capability: openai.re", 21, false), 12);
    }

    #[test]
    fn nothing_breaks_on_garbage() {
        for text in [
            "|",
            "{|",
            "- [|",
            "a: \"|",
            "\u{feff}|\u{1d11e}",
            "path: |\r\n",
        ] {
            assert_eq!(labels(text), Vec::<String>::new(), "{text:?}");
        }
    }
}
