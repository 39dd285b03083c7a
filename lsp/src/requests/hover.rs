//! `textDocument/hover`: what is under the cursor, as markdown
//! (`docs/cli.md`, "lsp"). On a reference path (a segment of it): the
//! declaration it resolves to, with its type, whether it is required, its
//! description and schema (`judge.…` in the `pass` of a model-graded
//! check resolves in the judge contract's `output_schema`); on a key of a
//! judge's `with`, the judge's input; on a component invocation's name, its
//! parameters; on a filter, what it accepts and writes; on a capability or
//! an extension key, what needs it and what the target must provide; on an
//! eval fixture's `id`, the prompt the fixture renders.
//!
//! The prompt preview renders the fixture with the runtime's renderer
//! ([`templiqx::render()`], as `templiqx render` does) from the interaction of
//! the workspace's last compilation of the package, which already has the
//! open documents laid over the disk: nothing is compiled again.
//!
//! The markdown of declarations, components and filters is also the
//! documentation of completion's candidates (`super::completion`).

use super::{Failure, RequestHandler, Session, judge_at, locate};
use crate::convert::LineIndex;
use crate::tree::{self, Declared, Hit, Side, Target as TreeTarget, Tree};
use crate::workspace::{Compilation, Workspace};
use lsp_types::{HoverContents, HoverParams, MarkupContent, MarkupKind, Range, Url};
use std::collections::BTreeMap;
use templiqx_build::yaml::Node;
use templiqx_contracts::{Diagnostic, Filter};

/// The `textDocument/hover` handler.
pub(crate) struct Hover;

impl RequestHandler for Hover {
    type Request = lsp_types::request::HoverRequest;

    fn run(
        session: &Session<'_>,
        params: HoverParams,
    ) -> Result<Option<lsp_types::Hover>, Failure> {
        let workspace = session.workspace;
        let hover = locate(workspace, &params.text_document_position_params).and_then(
            |(here, decl, offset)| {
                let judge = judge_at(workspace, &here, offset);
                hover(workspace, &here, &decl, judge.as_ref(), offset)
            },
        );
        Ok(hover.map(|(value, range)| lsp_types::Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value,
            }),
            range: Some(range),
        }))
    }
}

/// The hover at `offset` in `here` (its references are declared in
/// `decl`; `judge` is the judge contract of the model-graded check there,
/// if any): markdown and the range it is about.
fn hover(
    workspace: &Workspace,
    here: &Tree,
    decl: &Tree,
    judge: Option<&Tree>,
    offset: usize,
) -> Option<(String, Range)> {
    if let Some(found) = on_target(here, decl, judge, offset) {
        return Some(found);
    }
    let hit = tree::hit(&here.root, offset);
    let node = hit.node();
    let mut range = LineIndex::new(&here.text).byte_range(node.span.bytes.0, node.span.bytes.1);
    let docs = workspace.docs();
    let compilation = workspace.compilation_of(&here.path);
    let text = match target(&here.root, &hit, offset)? {
        Target::Filter(name, filter) => filter_text(name, filter, docs),
        Target::Capability(name) => capability_text(workspace, compilation, name),
        Target::Extension { key, extension } => {
            if let Some((k, _)) = tree::entry(hit.nodes[1], key) {
                range = LineIndex::new(&here.text).byte_range(k.span.bytes.0, k.span.bytes.1);
            }
            extension_text(workspace, compilation, key, extension)
        }
        Target::Eval(id) => eval_text(compilation, here, id),
    };
    Some((text, range))
}

/// The hover on a reference path (the declaration of the segment under
/// the cursor; `judge.…` in the `pass` of a model-graded check, a property
/// of the output of `judge`, its judge contract), a component invocation's
/// name (the component's parameters) or a key of a model-graded check's
/// `with` (the judge's input), from the trees alone.
fn on_target(
    here: &Tree,
    decl: &Tree,
    judge: Option<&Tree>,
    offset: usize,
) -> Option<(String, Range)> {
    if let Some(found) = on_judge_input(here, judge, offset) {
        return Some(found);
    }
    match tree::target(here, offset)? {
        TreeTarget::Ref {
            hit,
            segments,
            range,
        } => {
            let depth = hit.tokens.len();
            let d = tree::resolve_judged(decl, judge, &hit, depth, &segments, 8)?;
            let range = LineIndex::new(&here.text).byte_range(range.0, range.1);
            Some((declaration_text(&d), range))
        }
        TreeTarget::Component { name, span } => {
            let component = decl.root.get("components")?.get(name)?;
            Some((component_text(name, component), here.range(&span)))
        }
        TreeTarget::Include { .. } => None,
    }
}

/// The hover on a key of a model-graded check's `with`: the input of the
/// judge contract `judge` it gives (`docs/format.md`, "Model-graded
/// checks").
fn on_judge_input(here: &Tree, judge: Option<&Tree>, offset: usize) -> Option<(String, Range)> {
    let hit = tree::hit(&here.root, offset);
    let key = tree::judge_with_key(&hit, offset)?;
    let (declared, input) = tree::entry(judge?.root.get("inputs")?, &key.text)?;
    let d = tree::field(
        "judge input",
        key.text.clone(),
        Side::Judge,
        declared,
        input,
    );
    Some((declaration_text(&d), here.range(&key.span)))
}

/// A filter as `docs/format.md`, "Filters" describes it.
pub(crate) struct FilterDoc {
    /// What it accepts (after the earlier filters).
    pub(crate) accepts: &'static str,
    /// What it writes (always a string).
    pub(crate) writes: &'static str,
}

/// What `filter` accepts and writes (`docs/format.md`, "Filters"). The
/// match is exhaustive, so a filter the format gains fails to compile here
/// until it is described.
pub(crate) fn filter_doc(filter: Filter) -> FilterDoc {
    let (accepts, writes) = match filter {
        Filter::Trim => (
            "a string",
            "the string without leading and trailing Unicode white space",
        ),
        Filter::Lower => (
            "a string",
            "its Unicode full lower-case mapping (as `str::to_lowercase`, final sigma included)",
        ),
        Filter::Upper => (
            "a string",
            "its Unicode full upper-case mapping (as `str::to_uppercase`)",
        ),
        Filter::Json => (
            "any value",
            "its canonical JSON (RFC 8785), so the prompt never depends on map order",
        ),
        Filter::FormatDate => (
            "a string, a `YYYY-MM-DD` date (anything else fails the render with `TQX_FILTER_INPUT`)",
            "the date reformatted for `context.locale` (`nl*` `12-07-2026`, `de*` `12.07.2026`, `en-US*` `07/12/2026`, else ISO)",
        ),
        Filter::FormatNumber => (
            "a number or an integer",
            "the number with two fraction digits, grouped for `context.locale` (`nl*`/`de*` `1.234.567,50`, `en-US*` `1,234,567.50`, else `1234567.50`)",
        ),
    };
    FilterDoc { accepts, writes }
}

/// The filters of the format, as the compiler spells them
/// ([`templiqx_build::FILTERS`]), in its order.
pub(crate) fn filters() -> impl Iterator<Item = (&'static str, Filter)> {
    templiqx_build::FILTERS
        .iter()
        .filter_map(|name| Some((*name, filter_named(name)?)))
}

fn filter_named(name: &str) -> Option<Filter> {
    serde_json::from_value(serde_json::Value::String(name.to_owned())).ok()
}

/// The markdown of a filter: what it accepts and writes, and its section
/// of `docs/format.md`.
pub(crate) fn filter_text(name: &str, filter: Filter, docs: Option<&Url>) -> String {
    let doc = filter_doc(filter);
    let mut text = format!(
        "filter `{name}`\n\naccepts {}; writes {}.",
        doc.accepts, doc.writes
    );
    if !matches!(filter, Filter::Json) {
        text.push_str(" A nullable value is not accepted (`TQX_FILTER_TYPE`).");
    }
    push_link(&mut text, docs, "Filters", "filters");
    text
}

/// The link to a section of `docs/format.md`: the page beside the
/// diagnostics catalogue the server links codes to (`format.md` beside
/// `diagnostics.md`, `format.html` beside `diagnostics.html`); `None`
/// without one.
pub(crate) fn format_link(docs: Option<&Url>, fragment: &str) -> Option<Url> {
    let docs = docs?;
    let last = docs.path_segments()?.next_back()?;
    let page = match last.rsplit_once('.') {
        Some((_, extension)) => format!("format.{extension}"),
        None => "format".to_owned(),
    };
    let mut url = docs.join(&page).ok()?;
    url.set_fragment(Some(fragment));
    Some(url)
}

fn push_link(text: &mut String, docs: Option<&Url>, title: &str, fragment: &str) {
    if let Some(url) = format_link(docs, fragment) {
        text.push_str(&format!("\n\n[docs/format.md, \"{title}\"]({url})"));
    }
}

/// Where a contract of a package needs a capability.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Need {
    /// It is in the contract's `capabilities`.
    Listed,
    /// The extension with this key declares it.
    Extension(String),
}

/// Every capability the contracts of `compilation` need, with the
/// contracts (ids) that need it and where, in manifest order.
pub(crate) fn capability_users(compilation: &Compilation) -> BTreeMap<String, Vec<(String, Need)>> {
    let mut out: BTreeMap<String, Vec<(String, Need)>> = BTreeMap::new();
    for compiled in compilation.contracts() {
        let Some(contract) = &compiled.contract else {
            continue;
        };
        for capability in &contract.capabilities {
            out.entry(capability.clone())
                .or_default()
                .push((compiled.id.clone(), Need::Listed));
        }
        for (key, extension) in contract.extensions.iter() {
            out.entry(extension.capability.clone())
                .or_default()
                .push((compiled.id.clone(), Need::Extension(key.to_owned())));
        }
    }
    out
}

/// The most lines of a schema a hover shows.
const SCHEMA_LINES: usize = 30;

/// The hover of a declaration: its name, type, what it is, whether it is
/// required, its description and (when short) its schema.
pub(crate) fn declaration_text(d: &Declared<'_>) -> String {
    let mut text = format!("`{}`", d.name);
    if let Some((_, schema)) = d.schema {
        text.push_str(&format!(": `{}`", tree::type_summary(schema, 0)));
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

/// The hover of a component: its name and parameters (type, whether
/// required, description), or how its legacy form infers them.
pub(crate) fn component_text(name: &str, component: &Node) -> String {
    let mut text = format!("component `{name}`");
    match component.get("parameters").and_then(Node::as_map) {
        Some(parameters) if !parameters.is_empty() => {
            text.push_str("\n\nparameters:");
            for (key, p) in parameters {
                let d = tree::field("parameter", key.text.clone(), Side::Decl, key, p);
                let ty = d
                    .schema
                    .map_or("any".to_owned(), |(_, s)| tree::type_summary(s, 0));
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

/// What is under the cursor, beyond references and component calls.
enum Target<'a> {
    Filter(&'a str, Filter),
    Capability(&'a str),
    Extension { key: &'a str, extension: &'a Node },
    Eval(&'a str),
}

fn target<'a>(root: &'a Node, hit: &Hit<'a>, offset: usize) -> Option<Target<'a>> {
    let tokens: Vec<&str> = hit.tokens.iter().map(String::as_str).collect();
    let text = hit.node().as_str();
    let n = hit.nodes.len();
    match tokens.as_slice() {
        [.., "filters", i]
            if i.parse::<usize>().is_ok()
                && tree::kind_of(hit.nodes[n - 3]) == Some("interpolate") =>
        {
            let name = text?;
            Some(Target::Filter(name, filter_named(name)?))
        }
        ["capabilities", i] if tree::is_contract(root) && i.parse::<usize>().is_ok() => {
            Some(Target::Capability(text?))
        }
        ["extensions", _, "capability"] if tree::is_contract(root) => {
            Some(Target::Capability(text?))
        }
        ["extensions", key] if tree::is_contract(root) => {
            let (k, extension) = tree::entry(hit.nodes[1], key)?;
            let on_key = k.span.bytes.0 <= offset && offset <= k.span.bytes.1;
            on_key.then_some(Target::Extension {
                key: &k.text,
                extension,
            })
        }
        ["evals", i, "id"] if tree::is_contract(root) && i.parse::<usize>().is_ok() => {
            Some(Target::Eval(text?))
        }
        _ => None,
    }
}

/// Whether the target provides `capability`, as a sentence.
fn target_says(workspace: &Workspace, capability: &str, code: &str) -> String {
    match workspace.target() {
        Some(target) if target.contains(capability) => {
            format!("The target profile provides `{capability}`.")
        }
        Some(_) => format!("The target profile does not provide `{capability}`: `{code}`."),
        None => "No target profile is set: capability checks are skipped.".to_owned(),
    }
}

/// The contracts of the package that need `capability`, as a list.
fn users_text(compilation: Option<&Compilation>, capability: &str) -> String {
    let users = compilation
        .map(capability_users)
        .and_then(|mut all| all.remove(capability))
        .unwrap_or_default();
    if users.is_empty() {
        return format!("No contract of the package needs `{capability}`.");
    }
    let mut text = "Needed in the package by:".to_owned();
    for (id, need) in users {
        match need {
            Need::Listed => text.push_str(&format!("\n- `{id}` (`capabilities`)")),
            Need::Extension(key) => text.push_str(&format!("\n- `{id}` (extension `{key}`)")),
        }
    }
    text
}

fn capability_text(workspace: &Workspace, compilation: Option<&Compilation>, name: &str) -> String {
    let mut text = format!(
        "capability `{name}`\n\nThe target must provide it: compiling for a profile without it is `TQX_CAPABILITY_UNSUPPORTED` (`TQX_EXTENSION_UNSUPPORTED` for an extension's), and at execution an adapter whose descriptor lacks it is stopped by the capability gate. {}\n\n{}",
        target_says(workspace, name, "TQX_CAPABILITY_UNSUPPORTED"),
        users_text(compilation, name),
    );
    push_link(
        &mut text,
        workspace.docs(),
        "Capabilities and the target profile",
        "capabilities-and-the-target-profile",
    );
    text
}

/// The most characters of an extension's value a hover shows.
const VALUE_CHARS: usize = 200;

fn extension_text(
    workspace: &Workspace,
    compilation: Option<&Compilation>,
    key: &str,
    extension: &Node,
) -> String {
    let mut text = format!("extension `{key}`");
    match extension.get("schema") {
        Some(schema) => match schema.get("$ref").and_then(Node::as_str) {
            Some(reference) => text.push_str(&format!(": tool contract `{reference}`")),
            None => text.push_str(&format!(": `{}`", tree::type_summary(schema, 0))),
        },
        None => text.push_str(": no schema"),
    }
    if let Some(value) = extension.get("value") {
        let json = value.to_json().to_string();
        let shown: String = json.chars().take(VALUE_CHARS).collect();
        let more = if shown.len() < json.len() { "…" } else { "" };
        text.push_str(&format!(" = `{shown}{more}`"));
    }
    match extension.get("capability").and_then(Node::as_str) {
        Some(capability) => text.push_str(&format!(
            "\n\nNeeds capability `{capability}`: the target must provide it (`TQX_EXTENSION_UNSUPPORTED` otherwise), and it joins the interaction's `required_capabilities`, so an adapter without it is stopped by the capability gate. {}\n\n{}",
            target_says(workspace, capability, "TQX_EXTENSION_UNSUPPORTED"),
            users_text(compilation, capability),
        )),
        None => text.push_str("\n\nNames no `capability` (`TQX_MISSING_FIELD`)."),
    }
    push_link(&mut text, workspace.docs(), "Extensions", "extensions");
    text
}

/// The most bytes of rendered messages a prompt preview shows.
const PREVIEW_BYTES: usize = 16 * 1024;

/// The most diagnostics a hover lists.
const DIAGNOSTICS_SHOWN: usize = 5;

/// The prompt preview of the fixture `id` of the contract `here`: the
/// rendered messages, or why there are none.
fn eval_text(compilation: Option<&Compilation>, here: &Tree, id: &str) -> String {
    let mut text = format!("eval fixture `{id}`");
    let compiled = compilation.and_then(|c| {
        let name = c.name_of(&here.path);
        c.contracts().iter().find(|compiled| compiled.file == name)
    });
    let Some(compiled) = compiled else {
        text.push_str("\n\nThe contract has not been compiled: no preview.");
        return text;
    };
    let fixture = compiled.contract.as_ref().and_then(|c| {
        c.evals
            .iter()
            .position(|e| e.id == id)
            .map(|i| (i, &c.evals[i]))
    });
    let (Some(interaction), Some((index, fixture))) = (&compiled.interaction, fixture) else {
        // Errors at this fixture first.
        let at = fixture.map(|(i, _)| format!("/evals/{i}"));
        let mut errors: Vec<&Diagnostic> = compiled
            .diagnostics
            .iter()
            .filter(|d| d.is_error())
            .collect();
        errors.sort_by_key(|d| {
            !at.as_deref().is_some_and(|at| {
                d.json_pointer
                    .as_deref()
                    .is_some_and(|p| p == at || p.starts_with(&format!("{at}/")))
            })
        });
        text.push_str("\n\nThe contract does not compile, so the fixture cannot be rendered:");
        push_diagnostics(&mut text, errors.into_iter());
        return text;
    };
    match templiqx::render(interaction, &fixture.inputs, &fixture.context) {
        Ok(rendered) => {
            text.push_str(&format!(
                " (`/evals/{index}`): the prompt it renders, {} message{}",
                rendered.messages.len(),
                if rendered.messages.len() == 1 {
                    ""
                } else {
                    "s"
                }
            ));
            let mut budget = PREVIEW_BYTES;
            for message in &rendered.messages {
                text.push_str(&format!("\n\n**{}**\n\n", message.role.as_str()));
                let shown = truncate(&message.content, budget);
                budget -= shown.len();
                push_fenced(&mut text, shown);
                if shown.len() < message.content.len() {
                    text.push_str(&format!(
                        "\n\n… {} more bytes not shown",
                        message.content.len() - shown.len()
                    ));
                }
            }
        }
        Err(error) => {
            text.push_str(" cannot be rendered:");
            push_diagnostics(&mut text, error.diagnostics.iter());
        }
    }
    text
}

fn push_diagnostics<'d>(text: &mut String, diagnostics: impl Iterator<Item = &'d Diagnostic>) {
    let all: Vec<&Diagnostic> = diagnostics.collect();
    for d in all.iter().take(DIAGNOSTICS_SHOWN) {
        text.push_str(&format!("\n- `{}`: {}", d.code.as_str(), d.message));
        if let Some(pointer) = &d.json_pointer {
            text.push_str(&format!(" (at `{pointer}`)"));
        }
    }
    if all.len() > DIAGNOSTICS_SHOWN {
        text.push_str(&format!("\n- … and {} more", all.len() - DIAGNOSTICS_SHOWN));
    }
}

/// The longest prefix of `text` of at most `max` bytes that ends at a
/// character boundary.
fn truncate(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// `content` in a fenced code block whose fence is longer than any run of
/// backticks in it (CommonMark, "Fenced code blocks").
fn push_fenced(text: &mut String, content: &str) {
    let longest = content.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    text.push_str(&fence);
    text.push_str("text\n");
    text.push_str(content);
    if !content.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&fence);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::test_support::{COMPONENT, CONTRACT, JUDGED, at, judge, tree};

    #[test]
    fn judge_paths_and_with_keys_resolve_in_the_judge_contract() {
        let (t, j) = (tree(JUDGED), judge());
        let path = at(JUDGED, "judge.grade", 0);
        let (text, range) = on_target(&t, &t, Some(&j), path + "judge.".len() + 1).unwrap();
        assert!(
            text.starts_with("`judge.grade`: `integer` — property, required\n\nFrom 1 to 5."),
            "{text}"
        );
        assert_eq!(range.end.character - range.start.character, 5);
        let (text, _) = on_target(&t, &t, Some(&j), path + 1).unwrap();
        assert!(
            text.starts_with("`judge`: `object` — judge, required"),
            "{text}"
        );
        // Without the judge contract, `judge` names nothing.
        assert!(on_target(&t, &t, None, path + 1).is_none());
        // A key of `with`: the judge's input; its value is a reference of
        // the contract's own.
        let key = at(JUDGED, "text: {", 0);
        let (text, range) = on_target(&t, &t, Some(&j), key + 1).unwrap();
        assert!(
            text.starts_with("`text`: `string` — judge input, required\n\nWhat is graded."),
            "{text}"
        );
        assert_eq!(range.end.character - range.start.character, 4);
        assert!(on_target(&t, &t, Some(&j), key + "text: {".len() + 1).is_none());
    }

    #[test]
    fn hovers_name_the_segment_under_the_cursor() {
        let t = tree(CONTRACT);
        let name = at(CONTRACT, "customer.name", 0);
        let (text, _) = on_target(&t, &t, None, name + "customer.".len() + 1).unwrap();
        assert!(
            text.starts_with("`inputs.customer.name`: `string` — property, required"),
            "{text}"
        );
        assert!(text.contains("The full name."), "{text}");
        let (text, range) = on_target(&t, &t, None, name + 2).unwrap();
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
        let (text, _) = on_target(&t, &t, None, offset).unwrap();
        assert!(
            text.starts_with("`tag`: `string` — `for_each` item"),
            "{text}"
        );
    }

    #[test]
    fn component_parameters_and_calls_resolve_in_the_component() {
        let t = tree(COMPONENT);
        let (hover_text, _) = on_target(&t, &t, None, at(COMPONENT, "path: who", 0) + 7).unwrap();
        assert!(
            hover_text
                .starts_with("`who`: `string` — component parameter, required\n\nWho is greeted."),
            "{hover_text}"
        );
        let (hover_text, _) = on_target(&t, &t, None, at(COMPONENT, "name: greet", 0) + 7).unwrap();
        assert!(
            hover_text.contains("- `who`: `string`, required — Who is greeted."),
            "{hover_text}"
        );
    }

    #[test]
    fn every_compiler_filter_is_described() {
        let names: Vec<&str> = filters().map(|(name, _)| name).collect();
        assert_eq!(names, templiqx_build::FILTERS);
        assert!(filter_named("trimm").is_none());
        for (name, filter) in filters() {
            assert_eq!(filter.as_str(), name);
            assert!(!filter_doc(filter).accepts.is_empty());
        }
    }

    #[test]
    fn the_format_page_is_beside_the_catalogue() {
        let docs = Url::parse("file:///src/docs/diagnostics.md").unwrap();
        assert_eq!(
            format_link(Some(&docs), "filters").unwrap().as_str(),
            "file:///src/docs/format.md#filters"
        );
        let site = Url::parse("https://example.org/t/diagnostics.html").unwrap();
        assert_eq!(
            format_link(Some(&site), "extensions").unwrap().as_str(),
            "https://example.org/t/format.html#extensions"
        );
        assert_eq!(format_link(None, "filters"), None);
    }

    #[test]
    fn fences_outgrow_the_backticks_they_hold() {
        let mut text = String::new();
        push_fenced(&mut text, "a ```` b");
        assert_eq!(text, "`````text\na ```` b\n`````");
        assert_eq!(truncate("aé", 2), "a");
    }
}
