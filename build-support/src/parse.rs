//! Strict parsing of a spanned YAML tree into the contract DTOs.
//!
//! Every mapping is closed: an unknown key is `TQX_UNKNOWN_FIELD` (spanned on
//! the key, with a did-you-mean help), a missing required key is
//! `TQX_MISSING_FIELD`, a value of the wrong shape is `TQX_INVALID_TYPE`, and
//! a value outside a closed set (role, node kind, filter, expression kind) is
//! `TQX_UNKNOWN_VARIANT`. Parsing never stops at the first problem: every
//! problem in the document is reported, and a [`Contract`] is returned only
//! when there were none.

use crate::dto::*;
use crate::yaml::{Key, Node, NodeValue};
use templiqx_contracts::diagnostic::pointer_push;
use templiqx_contracts::ir::{Filter, Role};
use templiqx_contracts::{Code, Diagnostic, RuntimePolicy, Span, words};

/// Parses a contract document. `file` is the id of the document in the
/// caller's [`crate::source::Sources`], `file_name` its display name.
///
/// # Errors
/// Every structural problem, as described in the module docs.
pub fn parse_contract(
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

/// Parses a partial: a YAML list of content nodes (seed 002, `include`).
///
/// # Errors
/// Structural problems of the partial, located in the partial's file.
pub fn parse_partial(
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
const NODE_KINDS: &[&str] = &[
    "text",
    "interpolate",
    "when",
    "for_each",
    "component",
    "include",
];
const EXPR_KINDS: &[&str] = &["ref", "literal", "equals", "not", "and", "or"];
const FILTERS: &[&str] = &[
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
const EVAL_FIELDS: &[&str] = &["id", "inputs", "context", "fake_output"];

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

    fn contract(&mut self, root: &Node) -> Option<Contract> {
        let obj = self.object(
            root,
            "",
            "a contract",
            CONTRACT_FIELDS,
            &["api_version", "id", "version", "messages", "output_schema"],
        )?;
        let api_version = self.req_string(&obj, "api_version", "`api_version`");
        let id = self.req_string(&obj, "id", "`id`");
        let version = self.req_string(&obj, "version", "`version`");
        let description = self.opt_string(&obj, "description", "`description`");
        let inputs = self.fields(&obj, "inputs", "an input");
        let context = self.fields(&obj, "context", "a context field");
        let capabilities = self.capabilities(&obj);
        let messages = obj.get("messages").and_then(|(n, p)| self.messages(n, &p));
        let output_schema = obj.get("output_schema").map(|(n, _)| n.to_json());
        let runtime_policy = match obj.get("runtime_policy") {
            None => Some(RuntimePolicy::default()),
            Some((n, p)) => self.runtime_policy(n, &p),
        };
        let extensions = self.extensions(&obj);
        let components = self.components(&obj);
        let provenance = self.provenance(&obj);
        let evals = self.evals(&obj);
        Some(Contract {
            api_version: api_version?,
            id: id?,
            version: version?,
            description: description?,
            inputs: inputs?,
            context: context?,
            capabilities: capabilities?,
            messages: messages?,
            output_schema: output_schema?,
            runtime_policy: runtime_policy?,
            extensions: extensions?,
            components: components?,
            provenance: provenance?,
            evals: evals?,
            loc: self.loc(""),
        })
    }

    fn field_decl(&mut self, node: &Node, pointer: &str, what: &str) -> Option<FieldDecl> {
        let obj = self.object(node, pointer, what, FIELD_FIELDS, &["schema"])?;
        let schema = obj.get("schema").map(|(n, _)| n.to_json());
        let required = match obj.get("required") {
            None => Some(false),
            Some((n, p)) => match n.value {
                NodeValue::Bool(b) => Some(b),
                _ => {
                    self.invalid_type(n, &p, "a boolean", "`required`");
                    None
                }
            },
        };
        let description = self.opt_string(&obj, "description", "`description`");
        Some(FieldDecl {
            schema: schema?,
            required: required?,
            description: description?,
        })
    }

    fn field_map(
        &mut self,
        node: &Node,
        pointer: &str,
        what: &str,
    ) -> Option<OrderedMap<FieldDecl>> {
        let entries = self.mapping(node, pointer, &format!("the {what} declarations"))?;
        let mut out = Vec::with_capacity(entries.len());
        let mut ok = true;
        for (key, value) in entries {
            match self.field_decl(value, &pointer_push(pointer, &key.text), what) {
                Some(f) => out.push((key.text.clone(), f)),
                None => ok = false,
            }
        }
        ok.then_some(OrderedMap(out))
    }

    fn fields(&mut self, obj: &Obj<'_>, key: &str, what: &str) -> Option<OrderedMap<FieldDecl>> {
        match obj.get(key) {
            None => Some(OrderedMap::default()),
            Some((node, _)) if node.value == NodeValue::Null => Some(OrderedMap::default()),
            Some((node, ptr)) => self.field_map(node, &ptr, what),
        }
    }

    fn capabilities(&mut self, obj: &Obj<'_>) -> Option<Vec<String>> {
        let Some((node, ptr)) = obj.get("capabilities") else {
            return Some(Vec::new());
        };
        if node.value == NodeValue::Null {
            return Some(Vec::new());
        }
        let items = self.list(node, &ptr, "`capabilities`")?;
        let mut out = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            match self.string(item, &pointer_push(&ptr, &i.to_string()), "a capability") {
                Some(s) => out.push(s),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }

    fn messages(&mut self, node: &Node, pointer: &str) -> Option<Vec<MessageDecl>> {
        let items = self.list(node, pointer, "`messages`")?;
        let mut out = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            let p = pointer_push(pointer, &i.to_string());
            match self.message(item, &p) {
                Some(m) => out.push(m),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }

    fn message(&mut self, node: &Node, pointer: &str) -> Option<MessageDecl> {
        let obj = self.object(node, pointer, "a message", MESSAGE_FIELDS, MESSAGE_FIELDS)?;
        let role = obj.get("role").and_then(|(n, p)| {
            let s = self.string(n, &p, "`role`")?;
            let role = match s.as_str() {
                "system" => Role::System,
                "developer" => Role::Developer,
                "user" => Role::User,
                "assistant" => Role::Assistant,
                _ => {
                    self.unknown_variant(n, &p, &s, "role", ROLES);
                    return None;
                }
            };
            Some(role)
        });
        let content = obj
            .get("content")
            .and_then(|(n, p)| self.nodes(n, &p, "`content`"));
        Some(MessageDecl {
            role: role?,
            content: content?,
        })
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
    }

    /// A list of content nodes.
    fn nodes(&mut self, node: &Node, pointer: &str, what: &str) -> Option<Vec<ContentNode>> {
        let items = self.list(node, pointer, what)?;
        let mut out = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            match self.content_node(item, &pointer_push(pointer, &i.to_string())) {
                Some(n) => out.push(n),
                None => ok = false,
            }
        }
        ok.then_some(out)
    }

    /// Reads the `kind` discriminator of a node or expression mapping.
    fn kind<'n>(
        &mut self,
        node: &'n Node,
        pointer: &str,
        what: &str,
        kinds: &[&str],
    ) -> Option<(&'n str, &'n [(Key, Node)])> {
        let entries = self.mapping(node, pointer, what)?;
        let Some((_, kind_node)) = entries.iter().find(|(k, _)| k.text == "kind") else {
            self.push(
                Code::MissingField,
                format!("missing field `kind` in {what}"),
                node.span,
                pointer,
                Some(format!("add `kind:` with one of {}", words::names(kinds))),
            );
            return None;
        };
        let kp = pointer_push(pointer, "kind");
        let NodeValue::String(kind) = &kind_node.value else {
            self.invalid_type(kind_node, &kp, "a string", "`kind`");
            return None;
        };
        if !kinds.contains(&kind.as_str()) {
            self.unknown_variant(
                kind_node,
                &kp,
                kind,
                &format!(
                    "{} kind",
                    what.trim_start_matches("a ").trim_start_matches("an ")
                ),
                kinds,
            );
            return None;
        }
        Some((kind.as_str(), entries))
    }

    fn content_node(&mut self, node: &Node, pointer: &str) -> Option<ContentNode> {
        let (kind, _) = self.kind(node, pointer, "a content node", NODE_KINDS)?;
        let what = format!("a `{kind}` node");
        let kind = match kind {
            "text" => {
                let obj = self.object(node, pointer, &what, &["kind", "value"], &["value"])?;
                NodeKind::Text {
                    value: self.req_string(&obj, "value", "`value`")?,
                }
            }
            "interpolate" => {
                let obj = self.object(
                    node,
                    pointer,
                    &what,
                    &["kind", "expression", "filters"],
                    &["expression"],
                )?;
                let expression = obj.get("expression").and_then(|(n, p)| self.expr(n, &p));
                let filters = match obj.get("filters") {
                    None => Some(Vec::new()),
                    Some((n, p)) => self.filters(n, &p),
                };
                NodeKind::Interpolate {
                    expression: expression?,
                    filters: filters?,
                }
            }
            "when" => {
                let obj = self.object(
                    node,
                    pointer,
                    &what,
                    &["kind", "condition", "then", "else"],
                    &["condition", "then"],
                )?;
                let condition = obj.get("condition").and_then(|(n, p)| self.expr(n, &p));
                let then = obj
                    .get("then")
                    .and_then(|(n, p)| self.nodes(n, &p, "`then`"));
                let otherwise = match obj.get("else") {
                    None => Some(Vec::new()),
                    Some((n, p)) => self.nodes(n, &p, "`else`"),
                };
                NodeKind::When {
                    condition: condition?,
                    then: then?,
                    otherwise: otherwise?,
                }
            }
            "for_each" => {
                let obj = self.object(
                    node,
                    pointer,
                    &what,
                    &["kind", "collection", "item", "body", "separator"],
                    &["collection", "item", "body"],
                )?;
                let collection = obj.get("collection").and_then(|(n, p)| self.expr(n, &p));
                let item = self.req_string(&obj, "item", "`item`");
                let body = obj
                    .get("body")
                    .and_then(|(n, p)| self.nodes(n, &p, "`body`"));
                let separator = self.opt_string(&obj, "separator", "`separator`");
                NodeKind::ForEach {
                    collection: collection?,
                    item: item?,
                    body: body?,
                    separator: separator?,
                }
            }
            "component" => {
                let obj =
                    self.object(node, pointer, &what, &["kind", "name", "with"], &["name"])?;
                let name = self.req_string(&obj, "name", "`name`");
                let with = match obj.get("with") {
                    None => Some(OrderedMap::default()),
                    Some((n, p)) => self.expr_map(n, &p),
                };
                NodeKind::Component {
                    name: name?,
                    with: with?,
                }
            }
            _ => {
                let obj = self.object(
                    node,
                    pointer,
                    &what,
                    &["kind", "path", "from_dependency"],
                    &["path"],
                )?;
                let path = self.req_string(&obj, "path", "`path`");
                let from_dependency = self.opt_string(&obj, "from_dependency", "`from_dependency`");
                NodeKind::Include {
                    path: path?,
                    from_dependency: from_dependency?,
                }
            }
        };
        Some(ContentNode {
            kind,
            loc: self.loc(pointer),
        })
    }

    fn filters(&mut self, node: &Node, pointer: &str) -> Option<Vec<Filter>> {
        let items = self.list(node, pointer, "`filters`")?;
        let mut out = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            let p = pointer_push(pointer, &i.to_string());
            let Some(name) = self.string(item, &p, "a filter") else {
                ok = false;
                continue;
            };
            let f = match name.as_str() {
                "trim" => Filter::Trim,
                "lower" => Filter::Lower,
                "upper" => Filter::Upper,
                "json" => Filter::Json,
                "format_date" => Filter::FormatDate,
                "format_number" => Filter::FormatNumber,
                _ => {
                    self.unknown_variant(item, &p, &name, "filter", FILTERS);
                    ok = false;
                    continue;
                }
            };
            out.push(f);
        }
        ok.then_some(out)
    }

    fn expr_map(&mut self, node: &Node, pointer: &str) -> Option<OrderedMap<Expr>> {
        let entries = self.mapping(node, pointer, "`with`")?;
        let mut out = Vec::with_capacity(entries.len());
        let mut ok = true;
        for (key, value) in entries {
            match self.expr(value, &pointer_push(pointer, &key.text)) {
                Some(e) => out.push((key.text.clone(), e)),
                None => ok = false,
            }
        }
        ok.then_some(OrderedMap(out))
    }

    fn expr(&mut self, node: &Node, pointer: &str) -> Option<Expr> {
        let (kind, _) = self.kind(node, pointer, "an expression", EXPR_KINDS)?;
        let what = format!("a `{kind}` expression");
        let kind = match kind {
            "ref" => {
                let obj = self.object(node, pointer, &what, &["kind", "path"], &["path"])?;
                ExprKind::Ref {
                    path: self.req_string(&obj, "path", "`path`")?,
                }
            }
            "literal" => {
                let obj = self.object(node, pointer, &what, &["kind", "value"], &["value"])?;
                ExprKind::Literal {
                    value: obj.get("value")?.0.to_json(),
                }
            }
            "equals" => {
                let obj = self.object(
                    node,
                    pointer,
                    &what,
                    &["kind", "left", "right"],
                    &["left", "right"],
                )?;
                let left = obj.get("left").and_then(|(n, p)| self.expr(n, &p));
                let right = obj.get("right").and_then(|(n, p)| self.expr(n, &p));
                ExprKind::Equals {
                    left: Box::new(left?),
                    right: Box::new(right?),
                }
            }
            "not" => {
                let obj = self.object(node, pointer, &what, &["kind", "operand"], &["operand"])?;
                let operand = obj.get("operand").and_then(|(n, p)| self.expr(n, &p))?;
                ExprKind::Not {
                    operand: Box::new(operand),
                }
            }
            _ => {
                let obj =
                    self.object(node, pointer, &what, &["kind", "operands"], &["operands"])?;
                let (n, p) = obj.get("operands")?;
                let items = self.list(n, &p, "`operands`")?;
                if items.is_empty() {
                    self.push(
                        Code::InvalidValue,
                        format!("{what} needs at least one operand"),
                        n.span,
                        &p,
                        Some("list one or more boolean expressions under `operands`".to_owned()),
                    );
                    return None;
                }
                let mut operands = Vec::with_capacity(items.len());
                let mut ok = true;
                for (i, item) in items.iter().enumerate() {
                    match self.expr(item, &pointer_push(&p, &i.to_string())) {
                        Some(e) => operands.push(e),
                        None => ok = false,
                    }
                }
                if !ok {
                    return None;
                }
                if kind == "and" {
                    ExprKind::And { operands }
                } else {
                    ExprKind::Or { operands }
                }
            }
        };
        Some(Expr {
            kind,
            loc: self.loc(pointer),
        })
    }

    fn runtime_policy(&mut self, node: &Node, pointer: &str) -> Option<RuntimePolicy> {
        if node.value == NodeValue::Null {
            return Some(RuntimePolicy::default());
        }
        let obj = self.object(node, pointer, "`runtime_policy`", POLICY_FIELDS, &[])?;
        let mut policy = RuntimePolicy::default();
        let mut ok = true;
        for (key, value) in obj.entries {
            let p = pointer_push(pointer, &key.text);
            let NodeValue::Number(n) = value.value else {
                if POLICY_FIELDS.contains(&key.text.as_str()) {
                    self.invalid_type(value, &p, "a number", &format!("`{}`", key.text));
                    ok = false;
                }
                continue;
            };
            let x = n.as_f64();
            let (lo, hi, integer) = match key.text.as_str() {
                "temperature" => (0.0, 2.0, false),
                "top_p" => (0.0, 1.0, false),
                "max_output_tokens" => (1.0, 1_000_000.0, true),
                "timeout_ms" => (1.0, 600_000.0, true),
                "max_attempts" => (1.0, 10.0, true),
                _ => continue,
            };
            if integer && !n.is_integer() {
                self.invalid_type(value, &p, "an integer", &format!("`{}`", key.text));
                ok = false;
                continue;
            }
            if !(lo..=hi).contains(&x) {
                let unit = if key.text == "timeout_ms" {
                    " milliseconds"
                } else {
                    ""
                };
                self.push(
                    Code::PolicyRange,
                    format!("`{}` is {x}, outside {lo}..={hi}{unit}", key.text),
                    value.span,
                    &p,
                    Some(format!("choose a value from {lo} to {hi}")),
                );
                ok = false;
                continue;
            }
            match key.text.as_str() {
                "temperature" => policy.temperature = Some(x),
                "top_p" => policy.top_p = Some(x),
                "max_output_tokens" => policy.max_output_tokens = Some(x as u32),
                "timeout_ms" => policy.timeout_ms = Some(x as u32),
                _ => policy.max_attempts = Some(x as u32),
            }
        }
        ok.then_some(policy)
    }

    fn extensions(&mut self, obj: &Obj<'_>) -> Option<OrderedMap<ExtensionDecl>> {
        let Some((node, ptr)) = obj.get("extensions") else {
            return Some(OrderedMap::default());
        };
        if node.value == NodeValue::Null {
            return Some(OrderedMap::default());
        }
        let entries = self.mapping(node, &ptr, "`extensions`")?;
        let mut out = Vec::with_capacity(entries.len());
        let mut ok = true;
        for (key, value) in entries {
            let p = pointer_push(&ptr, &key.text);
            let Some(e) = self.object(
                value,
                &p,
                "an extension",
                EXTENSION_FIELDS,
                EXTENSION_FIELDS,
            ) else {
                ok = false;
                continue;
            };
            let capability = self.req_string(&e, "capability", "`capability`");
            let schema = e.get("schema").map(|(n, _)| n.to_json());
            let value = e.get("value").map(|(n, _)| n.to_json());
            match (capability, schema, value) {
                (Some(capability), Some(schema), Some(value)) => out.push((
                    key.text.clone(),
                    ExtensionDecl {
                        capability,
                        schema,
                        value,
                    },
                )),
                _ => ok = false,
            }
        }
        ok.then_some(OrderedMap(out))
    }

    fn components(&mut self, obj: &Obj<'_>) -> Option<OrderedMap<ComponentDecl>> {
        let Some((node, ptr)) = obj.get("components") else {
            return Some(OrderedMap::default());
        };
        match &node.value {
            NodeValue::Null => return Some(OrderedMap::default()),
            NodeValue::Seq(items) if items.is_empty() => return Some(OrderedMap::default()),
            _ => {}
        }
        let entries = self.mapping(node, &ptr, "`components`")?;
        let mut out = Vec::with_capacity(entries.len());
        let mut ok = true;
        for (key, value) in entries {
            let p = pointer_push(&ptr, &key.text);
            let decl = match &value.value {
                NodeValue::Seq(_) => self
                    .nodes(value, &p, "a legacy component")
                    .map(ComponentDecl::Legacy),
                _ => self.typed_component(value, &p),
            };
            match decl {
                Some(d) => out.push((key.text.clone(), d)),
                None => ok = false,
            }
        }
        ok.then_some(OrderedMap(out))
    }

    fn typed_component(&mut self, node: &Node, pointer: &str) -> Option<ComponentDecl> {
        let obj = self.object(node, pointer, "a component", COMPONENT_FIELDS, &["content"])?;
        let parameters = match obj.get("parameters") {
            None => Some(OrderedMap::default()),
            Some((n, _)) if n.value == NodeValue::Null => Some(OrderedMap::default()),
            Some((n, p)) => self.field_map(n, &p, "a component parameter"),
        };
        let content = obj
            .get("content")
            .and_then(|(n, p)| self.nodes(n, &p, "`content`"));
        Some(ComponentDecl::Typed {
            parameters: parameters?,
            content: content?,
        })
    }

    fn provenance(&mut self, obj: &Obj<'_>) -> Option<OrderedMap<String>> {
        let Some((node, ptr)) = obj.get("provenance") else {
            return Some(OrderedMap::default());
        };
        if node.value == NodeValue::Null {
            return Some(OrderedMap::default());
        }
        let entries = self.mapping(node, &ptr, "`provenance`")?;
        let mut out = Vec::with_capacity(entries.len());
        let mut ok = true;
        for (key, value) in entries {
            match self.string(value, &pointer_push(&ptr, &key.text), "a provenance value") {
                Some(s) => out.push((key.text.clone(), s)),
                None => ok = false,
            }
        }
        ok.then_some(OrderedMap(out))
    }

    fn evals(&mut self, obj: &Obj<'_>) -> Option<Vec<EvalDecl>> {
        let Some((node, ptr)) = obj.get("evals") else {
            return Some(Vec::new());
        };
        if node.value == NodeValue::Null {
            return Some(Vec::new());
        }
        let items = self.list(node, &ptr, "`evals`")?;
        let mut out = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            let p = pointer_push(&ptr, &i.to_string());
            let Some(e) = self.object(item, &p, "an eval fixture", EVAL_FIELDS, &["id"]) else {
                ok = false;
                continue;
            };
            let id = self.req_string(&e, "id", "`id`");
            let inputs = self.value_map(&e, "inputs");
            let context = self.value_map(&e, "context");
            let fake_output = e.get("fake_output").map(|(n, _)| n.to_json());
            match (id, inputs, context) {
                (Some(id), Some(inputs), Some(context)) => out.push(EvalDecl {
                    id,
                    inputs,
                    context,
                    fake_output,
                    loc: self.loc(&p),
                }),
                _ => ok = false,
            }
        }
        ok.then_some(out)
    }

    fn value_map(
        &mut self,
        obj: &Obj<'_>,
        key: &str,
    ) -> Option<serde_json::Map<String, serde_json::Value>> {
        match obj.get(key) {
            None => Some(serde_json::Map::new()),
            Some((n, _)) if n.value == NodeValue::Null => Some(serde_json::Map::new()),
            Some((n, p)) => match n.to_json() {
                serde_json::Value::Object(m) => Some(m),
                _ => {
                    self.invalid_type(n, &p, "an object", &format!("`{key}`"));
                    None
                }
            },
        }
    }
}
