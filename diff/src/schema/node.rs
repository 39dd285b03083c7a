//! Where the compared schemas are written: a [`Node`] is the schema at one
//! place of one side with its JSON pointer, a [`Shape`] the property list
//! of an object (or of a root scope) with where each part is said.

use templiqx_contracts::Schema;

/// The schema at one place of one side, and where it is written.
#[derive(Clone, Debug)]
pub(crate) struct Node<'s> {
    pub(crate) schema: &'s Schema,
    /// The pointer of the schema, or of its nearest written ancestor when
    /// the schema is implied (`items` left out is `{}`).
    pub(crate) ptr: String,
    /// Whether the schema is written at `ptr`.
    pub(crate) written: bool,
}

/// `{}`, for implied schemas.
pub(super) static ANY: Schema = Schema::ANY;

impl<'s> Node<'s> {
    pub(crate) fn root(schema: &'s Schema, ptr: String) -> Node<'s> {
        Node {
            schema,
            ptr,
            written: true,
        }
    }

    pub(super) fn child(&self, schema: Option<&'s Schema>, token: &str) -> Node<'s> {
        match schema {
            Some(schema) if self.written => Node {
                schema,
                ptr: push(&self.ptr, token),
                written: true,
            },
            _ => Node {
                schema: schema.unwrap_or(&ANY),
                ptr: self.ptr.clone(),
                written: false,
            },
        }
    }

    /// The pointer of `keyword` when this side writes it, else of the node.
    pub(super) fn at(&self, keyword: &str) -> String {
        if self.written && has(self.schema, keyword) {
            push(&self.ptr, keyword)
        } else {
            self.ptr.clone()
        }
    }

    /// The first of `keywords` this side writes, else the node.
    pub(super) fn at_any(&self, keywords: &[&str]) -> String {
        keywords
            .iter()
            .find(|k| self.written && has(self.schema, k))
            .map_or_else(|| self.ptr.clone(), |k| push(&self.ptr, k))
    }
}

/// `ptr` with one more RFC 6901 token.
pub(crate) fn push(ptr: &str, token: &str) -> String {
    templiqx_contracts::diagnostic::pointer_push(ptr, token)
}

/// Whether `s` writes `keyword`.
fn has(s: &Schema, keyword: &str) -> bool {
    match keyword {
        "type" => !s.types.is_any(),
        "enum" => s.enum_values.is_some(),
        "const" => s.const_value.is_some(),
        "minimum" => s.minimum.is_some(),
        "maximum" => s.maximum.is_some(),
        "exclusiveMinimum" => s.exclusive_minimum.is_some(),
        "exclusiveMaximum" => s.exclusive_maximum.is_some(),
        "minLength" => s.min_length.is_some(),
        "maxLength" => s.max_length.is_some(),
        "format" => s.format.is_some(),
        "minItems" => s.min_items.is_some(),
        "maxItems" => s.max_items.is_some(),
        "items" => s.items.is_some(),
        "properties" => !s.properties.is_empty(),
        "required" => !s.required.is_empty(),
        "additionalProperties" => !s.additional_properties,
        "title" => s.title.is_some(),
        "description" => s.description.is_some(),
        _ => false,
    }
}

/// One property list of an object, or of a root scope (`inputs`,
/// `context`), with where each part is written.
#[derive(Clone, Debug)]
pub(crate) struct Shape<'s> {
    /// `(name, schema node, where the property is declared)`.
    pub(crate) properties: Vec<(String, Node<'s>, String)>,
    /// Required names, each with where it is said.
    pub(crate) required: Vec<(String, String)>,
    /// `additionalProperties` (scopes are closed).
    pub(crate) additional: bool,
    /// The object's own pointer.
    pub(crate) ptr: String,
    /// Where `additionalProperties` is said (or the object).
    pub(crate) additional_at: String,
}

impl<'s> Shape<'s> {
    /// The shape of an object schema.
    pub(super) fn of(node: &Node<'s>) -> Shape<'s> {
        let s = node.schema;
        let properties = s
            .properties
            .iter()
            .map(|(name, schema)| {
                let child = node.child(Some(schema), "properties");
                let child = Node {
                    ptr: if child.written {
                        push(&child.ptr, name)
                    } else {
                        child.ptr
                    },
                    ..child
                };
                let declared = child.ptr.clone();
                (name.to_string(), child, declared)
            })
            .collect();
        let required = s
            .required
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let at = if node.written {
                    push(&push(&node.ptr, "required"), &i.to_string())
                } else {
                    node.ptr.clone()
                };
                (name.to_string(), at)
            })
            .collect();
        Shape {
            properties,
            required,
            additional: s.additional_properties,
            ptr: node.ptr.clone(),
            additional_at: node.at("additionalProperties"),
        }
    }

    pub(super) fn property(&self, name: &str) -> Option<&(String, Node<'s>, String)> {
        self.properties.iter().find(|(n, _, _)| n == name)
    }

    pub(super) fn requires(&self, name: &str) -> bool {
        self.required.iter().any(|(n, _)| n == name)
    }

    pub(super) fn says_required(&self) -> String {
        let names: Vec<&str> = self.required.iter().map(|(n, _)| n.as_str()).collect();
        if names.is_empty() {
            "nothing required".to_owned()
        } else {
            format!("`required: [{}]`", names.join(", "))
        }
    }

    pub(super) fn says_additional(&self) -> String {
        format!("`additionalProperties: {}`", self.additional)
    }
}
