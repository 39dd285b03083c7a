//! Strict parsing of a spanned YAML tree into the contract DTOs.
//!
//! Every mapping is closed: an unknown key is `TQX_UNKNOWN_FIELD` (spanned on
//! the key, with a did-you-mean help), a missing required key is
//! `TQX_MISSING_FIELD`, a value of the wrong shape is `TQX_INVALID_TYPE`, and
//! a value outside a closed set (role, node kind, filter, expression kind) is
//! `TQX_UNKNOWN_VARIANT`. Parsing never stops at the first problem: every
//! problem in the document is reported, and a [`Contract`] is returned only
//! when there were none.

mod content;
mod contract;
mod manifest;

pub(crate) use manifest::parse_manifest;

use crate::dto::*;
use crate::yaml::{Key, Node, NodeValue};
use templiqx_contracts::diagnostic::pointer_push;
use templiqx_contracts::{Code, Diagnostic, Span, words};

/// Parses a contract document. `file` is the id of the document in the
/// caller's [`crate::source::Sources`], `file_name` its display name.
///
/// # Errors
/// Every structural problem, as described in the module docs.
pub(crate) fn parse_contract(
    root: &Node,
    file: FileId,
    file_name: &str,
) -> Result<Contract, Vec<Diagnostic>> {
    let mut cx = Cx {
        file,
        file_name,
        diags: Vec::new(),
    };
    let contract = cx.contract(root);
    match contract {
        Some(c) if cx.diags.is_empty() => Ok(c),
        _ => Err(cx.diags),
    }
}

/// Parses a partial: a YAML list of content nodes (`docs/format.md`,
/// "Includes").
///
/// # Errors
/// Structural problems of the partial, located in the partial's file.
pub(crate) fn parse_partial(
    root: &Node,
    file: FileId,
    file_name: &str,
) -> Result<Vec<ContentNode>, Vec<Diagnostic>> {
    let mut cx = Cx {
        file,
        file_name,
        diags: Vec::new(),
    };
    let nodes = cx.nodes(root, "", "a partial (an array of content nodes)");
    match nodes {
        Some(n) if cx.diags.is_empty() => Ok(n),
        _ => Err(cx.diags),
    }
}

const CONTRACT_FIELDS: &[&str] = &[
    "api_version",
    "id",
    "version",
    "description",
    "inputs",
    "context",
    "capabilities",
    "messages",
    "output_schema",
    "runtime_policy",
    "extensions",
    "components",
    "provenance",
    "evals",
];
const FIELD_FIELDS: &[&str] = &["schema", "required", "description"];
const MESSAGE_FIELDS: &[&str] = &["role", "content"];
const ROLES: &[&str] = &["system", "developer", "user", "assistant"];
/// The content node kinds, as `kind` spells them (`docs/format.md`,
/// "Content nodes"); any other is `TQX_UNKNOWN_VARIANT`.
pub const NODE_KINDS: &[&str] = &[
    "text",
    "interpolate",
    "when",
    "for_each",
    "component",
    "include",
];
/// The expression kinds, as `kind` spells them (`docs/format.md`,
/// "Expressions"); any other is `TQX_UNKNOWN_VARIANT`.
pub const EXPR_KINDS: &[&str] = &[
    "ref", "literal", "equals", "not", "and", "or", "compare", "contains", "length", "judge",
];
const COMPARE_OPS: &[&str] = &["lt", "le", "gt", "ge"];
/// The interpolation filters, as `filters` spells them (`docs/format.md`,
/// "Filters"); any other is `TQX_UNKNOWN_VARIANT`.
pub const FILTERS: &[&str] = &[
    "trim",
    "lower",
    "upper",
    "json",
    "format_date",
    "format_number",
];
const POLICY_FIELDS: &[&str] = &[
    "temperature",
    "top_p",
    "max_output_tokens",
    "timeout_ms",
    "max_attempts",
];
const EXTENSION_FIELDS: &[&str] = &["capability", "schema", "value"];
const COMPONENT_FIELDS: &[&str] = &["parameters", "content"];
const EVAL_FIELDS: &[&str] = &[
    "id",
    "inputs",
    "context",
    "fake_output",
    "expect",
    "dataset",
    "case_schema",
];
const EXPECT_FIELDS: &[&str] = &["id", "check", "description"];

struct Cx<'a> {
    file: FileId,
    file_name: &'a str,
    diags: Vec<Diagnostic>,
}

/// A checked mapping: its entries and pointer.
struct Obj<'n> {
    entries: &'n [(Key, Node)],
    pointer: String,
}

impl<'n> Obj<'n> {
    fn get(&self, key: &str) -> Option<(&'n Node, String)> {
        self.entries
            .iter()
            .find(|(k, _)| k.text == key)
            .map(|(_, v)| (v, pointer_push(&self.pointer, key)))
    }
}

fn describe(node: &Node) -> &'static str {
    words::kind(node.json_type())
}

impl Cx<'_> {
    fn push(
        &mut self,
        code: Code,
        message: String,
        span: Span,
        pointer: &str,
        help: Option<String>,
    ) {
        let mut d = Diagnostic::error(code, message)
            .at(pointer)
            .in_file(self.file_name);
        d.span = Some(span);
        d.help = help;
        self.diags.push(d);
    }

    fn loc(&self, pointer: &str) -> Loc {
        Loc::new(self.file, pointer)
    }

    fn invalid_type(&mut self, node: &Node, pointer: &str, expected: &str, what: &str) {
        let help = Some(match (&node.value, expected) {
            (NodeValue::Number(_) | NodeValue::Bool(_) | NodeValue::Null, "a string") => {
                "quote the value to make it a string".to_owned()
            }
            _ => format!("write {expected} here"),
        });
        self.push(
            Code::InvalidType,
            format!("{what} must be {expected}, found {}", describe(node)),
            node.span,
            pointer,
            help,
        );
    }

    /// Checks that `node` is a mapping with only `allowed` keys and all
    /// `required` keys.
    fn object<'n>(
        &mut self,
        node: &'n Node,
        pointer: &str,
        what: &str,
        allowed: &[&str],
        required: &[&str],
    ) -> Option<Obj<'n>> {
        let NodeValue::Map(entries) = &node.value else {
            self.invalid_type(node, pointer, "an object", what);
            return None;
        };
        for (key, _) in entries {
            if !allowed.contains(&key.text.as_str()) {
                let help = words::did_you_mean(&key.text, allowed, &format!("{what} accepts "));
                self.push(
                    Code::UnknownField,
                    format!("unknown field `{}` in {what}", key.text),
                    key.span,
                    &pointer_push(pointer, &key.text),
                    Some(help),
                );
                // Not to a key the mapping already has (a duplicate key).
                let fix = words::replacement(&key.text, allowed, "")
                    .filter(|r| !entries.iter().any(|(k, _)| k.text == *r));
                self.suggest(key.span, fix);
            }
        }
        for r in required {
            if !entries.iter().any(|(k, _)| k.text == *r) {
                self.push(
                    Code::MissingField,
                    format!("missing field `{r}` in {what}"),
                    node.span,
                    pointer,
                    Some(format!("add `{r}:` to {what}")),
                );
            }
        }
        Some(Obj {
            entries,
            pointer: pointer.to_owned(),
        })
    }

    fn string(&mut self, node: &Node, pointer: &str, what: &str) -> Option<String> {
        match &node.value {
            NodeValue::String(s) => Some(s.clone()),
            _ => {
                self.invalid_type(node, pointer, "a string", what);
                None
            }
        }
    }

    fn opt_string(&mut self, obj: &Obj<'_>, key: &str, what: &str) -> Option<Option<String>> {
        match obj.get(key) {
            None => Some(None),
            Some((node, ptr)) => self.string(node, &ptr, what).map(Some),
        }
    }

    fn req_string(&mut self, obj: &Obj<'_>, key: &str, what: &str) -> Option<String> {
        let (node, ptr) = obj.get(key)?;
        self.string(node, &ptr, what)
    }

    fn list<'n>(&mut self, node: &'n Node, pointer: &str, what: &str) -> Option<&'n [Node]> {
        match &node.value {
            NodeValue::Seq(items) => Some(items),
            _ => {
                self.invalid_type(node, pointer, "an array", what);
                None
            }
        }
    }

    fn mapping<'n>(
        &mut self,
        node: &'n Node,
        pointer: &str,
        what: &str,
    ) -> Option<&'n [(Key, Node)]> {
        match &node.value {
            NodeValue::Map(entries) => Some(entries),
            _ => {
                self.invalid_type(node, pointer, "an object", what);
                None
            }
        }
    }

    /// An optional array of strings under `key` (absent or `null`: empty);
    /// `what` names one entry.
    fn string_list(&mut self, obj: &Obj<'_>, key: &str, what: &str) -> Option<Vec<String>> {
        let Some((node, ptr)) = obj.get(key) else {
            return Some(Vec::new());
        };
        if node.value == NodeValue::Null {
            return Some(Vec::new());
        }
        let items = self.list(node, &ptr, &format!("`{key}`"))?;
        let mut out = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            match self.string(item, &pointer_push(&ptr, &i.to_string()), what) {
                Some(s) => out.push(s),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }

    /// An optional object of strings under `key` (absent or `null`:
    /// empty); `what` names one value.
    fn string_map(&mut self, obj: &Obj<'_>, key: &str, what: &str) -> Option<OrderedMap<String>> {
        let Some((node, ptr)) = obj.get(key) else {
            return Some(OrderedMap::default());
        };
        if node.value == NodeValue::Null {
            return Some(OrderedMap::default());
        }
        let entries = self.mapping(node, &ptr, &format!("`{key}`"))?;
        let mut out = Vec::with_capacity(entries.len());
        let mut ok = true;
        for (k, value) in entries {
            match self.string(value, &pointer_push(&ptr, &k.text), what) {
                Some(s) => out.push((k.text.clone(), s)),
                None => ok = false,
            }
        }
        ok.then_some(OrderedMap(out))
    }

    fn unknown_variant(
        &mut self,
        node: &Node,
        pointer: &str,
        value: &str,
        what: &str,
        allowed: &[&str],
    ) {
        let help = words::did_you_mean(value, allowed, "expected one of ");
        self.push(
            Code::UnknownVariant,
            format!("unknown {what} `{value}`"),
            node.span,
            pointer,
            Some(help),
        );
        self.suggest(node.span, words::replacement(value, allowed, ""));
    }

    /// Gives the diagnostic pushed last the fix of its did-you-mean help:
    /// `replacement` in place of the whole key or scalar at `span`.
    fn suggest(&mut self, span: Span, replacement: Option<String>) {
        if let (Some(d), Some(fix)) = (
            self.diags.last_mut(),
            replacement.and_then(|r| crate::yaml::replace_whole(span, r)),
        ) {
            d.suggestion = Some(Box::new(fix));
        }
    }
}
