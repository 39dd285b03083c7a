//! Messages and components made comparable (`Shaper`): content nodes as
//! JSON values that remember where each node is written, with what an
//! include spliced in from a partial kept apart, so a partial's change is
//! reported at its include, once per contract. Shared by the `messages`,
//! `components` and `partials` rule families.

use crate::pair::Pair;
use crate::schema::push;
use crate::text::union;
use serde_json::{Value, json};
use templiqx_build::Sources;
use templiqx_build::dto::{ComponentDecl, ContentNode, FileId, Loc, NodeKind};

/// Both versions of a contract's messages and components, shaped, and
/// each version's includes ([`Shaper::runs`]): the messages' in order, then
/// the components' that both versions declare, in the order of their
/// names.
pub(crate) struct Content<'a> {
    /// The old version's shaper, holding its includes.
    pub(crate) old: Shaper<'a>,
    /// The new version's.
    pub(crate) new: Shaper<'a>,
    /// Each message of the old version, shaped.
    pub(crate) old_messages: Vec<Value>,
    /// Each message of the new version, shaped.
    pub(crate) new_messages: Vec<Value>,
    /// Each component both versions declare: its name, and its body shaped
    /// in the old and the new version.
    pub(crate) components: Vec<(String, Value, Value)>,
}

impl<'a> Content<'a> {
    /// Shapes the messages of both versions, then the components both
    /// declare.
    pub(crate) fn of(pair: &Pair<'a>) -> Content<'a> {
        let mut old = Shaper::new(&pair.old.loader.sources, pair.old_dto.loc.file);
        let mut new = Shaper::new(&pair.new.loader.sources, pair.new_dto.loc.file);
        let old_messages: Vec<Value> = (pair.old_dto.messages.iter().enumerate())
            .map(|(i, m)| old.message(&m.role, &m.content, i))
            .collect();
        let new_messages: Vec<Value> = (pair.new_dto.messages.iter().enumerate())
            .map(|(i, m)| new.message(&m.role, &m.content, i))
            .collect();
        let mut components = Vec::new();
        let names = union(
            pair.old_dto.components.iter().map(|(n, _)| n),
            pair.new_dto.components.iter().map(|(n, _)| n),
        );
        for name in names {
            let (Some(a), Some(b)) = (
                pair.old_dto.components.get(&name),
                pair.new_dto.components.get(&name),
            ) else {
                continue;
            };
            let (sa, sb) = (old.component(a), new.component(b));
            components.push((name, sa, sb));
        }
        Content {
            old,
            new,
            old_messages,
            new_messages,
            components,
        }
    }

    /// The bodies of component `name` in both versions, shaped, when both
    /// declare it.
    pub(crate) fn component(&self, name: &str) -> Option<(&Value, &Value)> {
        self.components
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, a, b)| (a, b))
    }
}

/// Content made comparable: nodes spliced from a partial become one
/// `{kind: include, partial}` placeholder per include, and their content
/// is kept apart (a [`Run`]), so a partial's change is reported at its
/// include, once per contract.
pub(crate) struct Shaper<'a> {
    sources: &'a Sources,
    file: FileId,
    /// The includes met so far, in order.
    pub(crate) runs: Vec<Run>,
}

/// The nodes one include spliced in.
pub(crate) struct Run {
    /// How the include names the partial: its dependency (if any) and path.
    pub(crate) partial: (Option<String>, String),
    /// The same for a message: `` `partials/sig.yaml` `` or
    /// `` `partials/sig.yaml` of dependency `common` ``.
    pub(crate) shown: String,
    /// The include node, in the contract file.
    pub(crate) site: Loc,
    /// The nodes, whole.
    pub(crate) nodes: Vec<Value>,
    /// Where each node is written (in the partial, or one it includes).
    pub(crate) locs: Vec<Loc>,
}

/// The key of a shaped content node that holds where it is written (its
/// JSON pointer in the contract file); ignored by [`same`].
const AT: &str = "@at";

impl<'a> Shaper<'a> {
    fn new(sources: &'a Sources, file: FileId) -> Shaper<'a> {
        Shaper {
            sources,
            file,
            runs: Vec::new(),
        }
    }

    fn message(
        &mut self,
        role: &templiqx_contracts::Role,
        content: &[ContentNode],
        index: usize,
    ) -> Value {
        json!({
            "role": role.as_str(),
            "content": self.nodes(content),
            (AT): format!("/messages/{index}"),
        })
    }

    fn component(&mut self, c: &ComponentDecl) -> Value {
        match c {
            ComponentDecl::Typed { content, .. } => json!({"typed": self.nodes(content)}),
            ComponentDecl::Legacy(content) => json!({"legacy": self.nodes(content)}),
        }
    }

    /// The include node (in the contract file) that brought `file` in, and
    /// the partial it names.
    fn site(&self, file: FileId) -> Option<(FileId, Loc)> {
        let mut current = file;
        for _ in 0..=templiqx_build::MAX_INCLUDE_DEPTH + 1 {
            let from = self.sources.get(current)?.included_from.clone()?;
            if from.file == self.file {
                return Some((current, from));
            }
            current = from.file;
        }
        None
    }

    /// How the include at `site` names its partial: its `from_dependency`
    /// and `path`, the same on both sides wherever they are checked out;
    /// the partial's file name when the include cannot be read back.
    fn partial_name(&self, partial_file: FileId, site: &Loc) -> (Option<String>, String) {
        let include = self
            .sources
            .get(site.file)
            .and_then(|f| f.root.as_ref())
            .and_then(|root| root.pointer(&site.pointer));
        let field = |name: &str| include.and_then(|n| n.get(name)).and_then(|n| n.as_str());
        match field("path") {
            Some(path) => (field("from_dependency").map(str::to_owned), path.to_owned()),
            None => (
                None,
                self.sources
                    .get(partial_file)
                    .map(|f| f.name.clone())
                    .unwrap_or_default(),
            ),
        }
    }

    fn nodes(&mut self, nodes: &[ContentNode]) -> Value {
        let mut out = Vec::new();
        let mut open: Option<usize> = None;
        for node in nodes {
            let spliced = (node.loc.file != self.file)
                .then(|| self.site(node.loc.file))
                .flatten();
            let Some((partial_file, site)) = spliced else {
                open = None;
                let mut shaped = self.node(node);
                if node.loc.file == self.file
                    && let Value::Object(members) = &mut shaped
                {
                    members.insert(AT.to_owned(), Value::from(node.loc.pointer.clone()));
                }
                out.push(shaped);
                continue;
            };
            let whole = serde_json::to_value(node).unwrap_or_default();
            match open {
                Some(i) if self.runs[i].site == site => {
                    self.runs[i].nodes.push(whole);
                    self.runs[i].locs.push(node.loc.clone());
                }
                _ => {
                    let partial = self.partial_name(partial_file, &site);
                    let shown = match &partial {
                        (Some(dep), path) => format!("`{path}` of dependency `{dep}`"),
                        (None, path) => format!("`{path}`"),
                    };
                    // The include as written, so a change to it reads as one.
                    let mut include = json!({
                        "kind": "include",
                        "path": partial.1,
                        (AT): site.pointer,
                    });
                    if let Some(dep) = &partial.0 {
                        include["from_dependency"] = Value::from(dep.as_str());
                    }
                    out.push(include);
                    self.runs.push(Run {
                        partial,
                        shown,
                        site,
                        nodes: vec![whole],
                        locs: vec![node.loc.clone()],
                    });
                    open = Some(self.runs.len() - 1);
                }
            }
        }
        Value::Array(out)
    }

    fn node(&mut self, node: &ContentNode) -> Value {
        match &node.kind {
            NodeKind::When {
                condition,
                then,
                otherwise,
            } => json!({
                "kind": "when",
                "condition": serde_json::to_value(condition).unwrap_or_default(),
                "then": self.nodes(then),
                "else": self.nodes(otherwise),
            }),
            NodeKind::ForEach {
                collection,
                item,
                body,
                separator,
            } => json!({
                "kind": "for_each",
                "collection": serde_json::to_value(collection).unwrap_or_default(),
                "item": item,
                "body": self.nodes(body),
                "separator": separator,
            }),
            _ => serde_json::to_value(node).unwrap_or_default(),
        }
    }
}

/// Whether two shaped values are equal, where each node was written
/// ([`AT`]) aside.
pub(crate) fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let members =
                |m: &'_ serde_json::Map<String, Value>| m.iter().filter(|(k, _)| *k != AT).count();
            members(x) == members(y)
                && x.iter()
                    .filter(|(k, _)| *k != AT)
                    .all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same(v, w))
        }
        _ => a == b,
    }
}

/// Where two shaped values first differ.
#[derive(Debug, PartialEq)]
pub(crate) struct Difference {
    /// The pointer of the deepest node holding the difference on the old
    /// side ([`AT`], then the members below it).
    pub(crate) old_at: String,
    /// The same on the new side.
    pub(crate) new_at: String,
    /// When the difference is one member of that node whose values are not
    /// both containers: its key and both values (`null` where absent).
    pub(crate) member: Option<(String, Value, Value)>,
}

/// The first place where `a` and `b` differ ([`same`] being false), found
/// depth first in the order of `a`'s members; `at` are the pointers the
/// values stand at.
pub(crate) fn first_difference(a: &Value, b: &Value, at: (&str, &str)) -> Difference {
    let here = |v: &Value, inherited: &str| {
        v.get(AT)
            .and_then(Value::as_str)
            .unwrap_or(inherited)
            .to_owned()
    };
    let (old_at, new_at) = (here(a, at.0), here(b, at.1));
    // Nodes and expressions are followed; a list of plain values (filters)
    // is one member.
    let container = |v: &Value| match v {
        Value::Object(_) => true,
        Value::Array(items) => items.iter().any(|i| i.is_object() || i.is_array()),
        _ => false,
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys = union(x.keys(), y.keys());
            for key in keys.iter().filter(|k| *k != AT) {
                match (x.get(key), y.get(key)) {
                    (Some(v), Some(w)) if same(v, w) => continue,
                    (Some(v), Some(w))
                        if (v.is_array() && w.is_array() && (container(v) || container(w)))
                            || (v.is_object() && w.is_object()) =>
                    {
                        return first_difference(v, w, (&push(&old_at, key), &push(&new_at, key)));
                    }
                    (v, w) if v.is_some_and(container) || w.is_some_and(container) => {
                        return Difference {
                            old_at: push(&old_at, key),
                            new_at: push(&new_at, key),
                            member: None,
                        };
                    }
                    (v, w) => {
                        let value = |v: Option<&Value>| v.cloned().unwrap_or(Value::Null);
                        return Difference {
                            old_at,
                            new_at,
                            member: Some((key.clone(), value(v), value(w))),
                        };
                    }
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if !same(v, w) {
                    let token = i.to_string();
                    return first_difference(
                        v,
                        w,
                        (&push(&old_at, &token), &push(&new_at, &token)),
                    );
                }
            }
            // One list is longer: at its first extra element, and at the
            // other list itself.
            let i = x.len().min(y.len());
            let extra = |list: &[Value], base: &str| {
                list.get(i)
                    .map_or_else(|| base.to_owned(), |v| here(v, &push(base, &i.to_string())))
            };
            return Difference {
                old_at: extra(x, &old_at),
                new_at: extra(y, &new_at),
                member: None,
            };
        }
        _ => {}
    }
    Difference {
        old_at,
        new_at,
        member: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_difference_is_the_deepest_node_and_its_member() {
        let a = json!({"role": "user", AT: "/messages/1", "content": [
            {"kind": "text", "value": "Hi", AT: "/messages/1/content/0"},
            {"kind": "interpolate", "expression": {"kind": "ref", "path": "inputs.name"},
             AT: "/messages/1/content/1"},
        ]});
        let mut b = a.clone();
        b["content"][1]["expression"]["path"] = json!("inputs.nick");
        // Where each node is written does not count.
        b["content"][0][AT] = json!("/messages/1/content/7");
        assert!(!same(&a, &b));
        let d = first_difference(&a, &b, ("/messages/1", "/messages/1"));
        assert_eq!(d.old_at, "/messages/1/content/1/expression");
        assert_eq!(
            d.member,
            Some((
                "path".to_owned(),
                json!("inputs.name"),
                json!("inputs.nick")
            ))
        );
        // A node added at the end: at the new node, and at the old list.
        let mut c = a.clone();
        c["content"]
            .as_array_mut()
            .unwrap()
            .push(json!({"kind": "text", "value": "!", AT: "/messages/1/content/2"}));
        let d = first_difference(&a, &c, ("/messages/1", "/messages/1"));
        assert_eq!(
            (d.old_at.as_str(), d.new_at.as_str()),
            ("/messages/1/content", "/messages/1/content/2")
        );
        assert_eq!(d.member, None);
        b["content"][1]["expression"]["path"] = json!("inputs.name");
        assert!(same(&a, &b));
    }
}
