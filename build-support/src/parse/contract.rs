//! The contract document (`docs/format.md`, "Top-level fields", "Field
//! declarations", "Messages", "`runtime_policy`", "Extensions",
//! "Components", "Eval fixtures"), read with the strict readers of
//! [`Cx`](super::Cx).

use super::content::At;
use super::{
    COMPONENT_FIELDS, CONTRACT_FIELDS, Cx, EVAL_FIELDS, EXPECT_FIELDS, EXTENSION_FIELDS,
    FIELD_FIELDS, MESSAGE_FIELDS, Obj, POLICY_FIELDS, ROLES,
};
use crate::dto::*;
use crate::yaml::{Node, NodeValue};
use templiqx_contracts::diagnostic::pointer_push;
use templiqx_contracts::expr::Place;
use templiqx_contracts::ir::Role;
use templiqx_contracts::{Code, RuntimePolicy};

impl Cx<'_> {
    pub(super) fn contract(&mut self, root: &Node) -> Option<Contract> {
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
        let capabilities = self.string_list(&obj, "capabilities", "a capability");
        let messages = obj.get("messages").and_then(|(n, p)| self.messages(n, &p));
        let output_schema = obj.get("output_schema").map(|(n, _)| n.to_json());
        let runtime_policy = match obj.get("runtime_policy") {
            None => Some(RuntimePolicy::default()),
            Some((n, p)) => self.runtime_policy(n, &p),
        };
        let extensions = self.extensions(&obj);
        let components = self.components(&obj);
        let provenance = self.string_map(&obj, "provenance", "a provenance value");
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
            let expect = self.expect(&e);
            let dataset = self.opt_string(&e, "dataset", "`dataset`");
            let case_schema = e.get("case_schema").map(|(n, _)| n.to_json());
            match (id, inputs, context, expect, dataset) {
                (Some(id), Some(inputs), Some(context), Some(expect), Some(dataset)) => {
                    out.push(EvalDecl {
                        id,
                        inputs,
                        context,
                        fake_output,
                        expect,
                        dataset: dataset.map(|path| DatasetDecl {
                            path,
                            sha256: String::new(),
                            file: None,
                            display: String::new(),
                        }),
                        case_schema,
                        loc: self.loc(&p),
                    });
                }
                _ => ok = false,
            }
        }
        ok.then_some(out)
    }

    /// A fixture's `expect`: a list of named checks (absent or `null`:
    /// none).
    fn expect(&mut self, eval: &Obj<'_>) -> Option<Vec<ExpectDecl>> {
        let Some((node, ptr)) = eval.get("expect") else {
            return Some(Vec::new());
        };
        if node.value == NodeValue::Null {
            return Some(Vec::new());
        }
        let items = self.list(node, &ptr, "`expect`")?;
        let mut out = Vec::with_capacity(items.len());
        let mut ok = true;
        for (i, item) in items.iter().enumerate() {
            let p = pointer_push(&ptr, &i.to_string());
            let Some(c) = self.object(
                item,
                &p,
                "an `expect` check",
                EXPECT_FIELDS,
                &["id", "check"],
            ) else {
                ok = false;
                continue;
            };
            let id = self.req_string(&c, "id", "`id`");
            let check = c
                .get("check")
                .and_then(|(n, cp)| self.expr(n, &cp, At::whole(Place::Check)));
            let description = self.opt_string(&c, "description", "`description`");
            match (id, check, description) {
                (Some(id), Some(check), Some(description)) => out.push(ExpectDecl {
                    id,
                    check,
                    description,
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
