//! The `templiqx/v1alpha1` contract format as Rust data (`docs/format.md`).
//!
//! These are the strict DTOs the parser (`parse`, behind [`crate::parse_str`]) produces from a
//! spanned YAML tree. They serialise (for the contract fingerprint) to the
//! same shape they are written in, with defaults made explicit, so two YAML
//! spellings of one contract have one fingerprint.
//!
//! Content nodes and expressions carry a [`Loc`] (file and JSON pointer of
//! their source), which survives include expansion: a diagnostic about a node
//! spliced in from a partial points into the partial.
//!
//! With the `json-schema` feature the DTOs also derive
//! [`schemars::JsonSchema`]; the attributes make the generated schema as
//! strict as the parser (closed objects, `kind`-tagged unions, required
//! fields exactly as the parser requires them, `null` where the parser
//! accepts it). [`crate::json_schema`] assembles it and holds the hand-written
//! parts (the bounded schema subset, roles, filters, runtime policy).

use serde::Serialize;
use serde::ser::SerializeMap;
use templiqx_contracts::RuntimePolicy;
use templiqx_contracts::ir::{CompareOp, Filter, Role};

/// Index of a source file in a [`crate::source::Sources`] table.
pub type FileId = u32;

/// Where a node came from: a file and a JSON pointer inside it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Loc {
    /// The file.
    pub file: FileId,
    /// RFC 6901 pointer of the node in that file.
    pub pointer: String,
}

impl Loc {
    /// A location in `file` at `pointer`.
    pub fn new(file: FileId, pointer: impl Into<String>) -> Loc {
        Loc {
            file,
            pointer: pointer.into(),
        }
    }

    /// The location of a child token (`/content/3`).
    pub fn child(&self, token: &str) -> Loc {
        Loc {
            file: self.file,
            pointer: templiqx_contracts::diagnostic::pointer_push(&self.pointer, token),
        }
    }
}

/// A map that keeps declaration order (field order drives generated struct
/// field order) and serialises as a JSON object.
#[derive(Clone, Debug, PartialEq)]
pub struct OrderedMap<T>(pub Vec<(String, T)>);

impl<T> Default for OrderedMap<T> {
    fn default() -> Self {
        OrderedMap(Vec::new())
    }
}

impl<T> OrderedMap<T> {
    /// The value under `key`.
    pub fn get(&self, key: &str) -> Option<&T> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Iterates entries in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &T)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<T: Serialize> Serialize for OrderedMap<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// A whole contract: exactly one model interaction (`docs/format.md`,
/// "Top-level fields").
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "json-schema", schemars(deny_unknown_fields))]
pub struct Contract {
    /// Must be `templiqx/v1alpha1`.
    #[cfg_attr(
        feature = "json-schema",
        schemars(with = "crate::json_schema::ApiVersion")
    )]
    pub api_version: String,
    /// Stable contract id (`[A-Za-z][A-Za-z0-9._-]*`).
    #[cfg_attr(
        feature = "json-schema",
        schemars(pattern(crate::json_schema::ID_PATTERN))
    )]
    pub id: String,
    /// Semantic version (SemVer 2.0.0).
    #[cfg_attr(
        feature = "json-schema",
        schemars(pattern(crate::json_schema::SEMVER_PATTERN))
    )]
    pub version: String,
    /// What the contract is for.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "json-schema", schemars(with = "String", default))]
    pub description: Option<String>,
    /// Typed inputs, in declaration order.
    #[cfg_attr(
        feature = "json-schema",
        schemars(with = "Option<OrderedMap<FieldDecl>>", default)
    )]
    pub inputs: OrderedMap<FieldDecl>,
    /// Host-supplied context, in declaration order.
    #[cfg_attr(
        feature = "json-schema",
        schemars(with = "Option<OrderedMap<FieldDecl>>", default)
    )]
    pub context: OrderedMap<FieldDecl>,
    /// Required target capabilities (`null` reads as none).
    #[cfg_attr(
        feature = "json-schema",
        schemars(with = "Option<Vec<String>>", default)
    )]
    pub capabilities: Vec<String>,
    /// Ordered role messages (at least one).
    #[cfg_attr(feature = "json-schema", schemars(length(min = 1)))]
    pub messages: Vec<MessageDecl>,
    /// JSON Schema of the structured output (bounded subset).
    #[cfg_attr(
        feature = "json-schema",
        schemars(with = "crate::json_schema::BoundedSchema")
    )]
    pub output_schema: serde_json::Value,
    /// Bounded runtime hints.
    #[cfg_attr(
        feature = "json-schema",
        schemars(with = "Option<crate::json_schema::RuntimePolicySchema>", default)
    )]
    pub runtime_policy: RuntimePolicy,
    /// Namespaced, typed extensions.
    #[cfg_attr(
        feature = "json-schema",
        schemars(with = "Option<crate::json_schema::Extensions>", default)
    )]
    pub extensions: OrderedMap<ExtensionDecl>,
    /// Local components.
    #[cfg_attr(
        feature = "json-schema",
        schemars(with = "crate::json_schema::Components", default)
    )]
    pub components: OrderedMap<ComponentDecl>,
    /// Free-form string metadata.
    #[cfg_attr(
        feature = "json-schema",
        schemars(with = "Option<OrderedMap<String>>", default)
    )]
    pub provenance: OrderedMap<String>,
    /// Deterministic eval fixtures.
    #[cfg_attr(
        feature = "json-schema",
        schemars(with = "Option<Vec<EvalDecl>>", default)
    )]
    pub evals: Vec<EvalDecl>,
    /// Where the contract's root mapping is (not serialised).
    #[serde(skip)]
    pub loc: Loc,
}

/// An input, context field or typed component parameter.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "json-schema", schemars(deny_unknown_fields))]
pub struct FieldDecl {
    /// Its JSON Schema (bounded subset).
    #[cfg_attr(
        feature = "json-schema",
        schemars(with = "crate::json_schema::BoundedSchema")
    )]
    pub schema: serde_json::Value,
    /// Whether a value must be supplied (default `false`).
    #[cfg_attr(feature = "json-schema", schemars(default))]
    pub required: bool,
    /// Documentation; becomes a doc comment in generated code.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "json-schema", schemars(with = "String", default))]
    pub description: Option<String>,
}

/// One message.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "json-schema", schemars(deny_unknown_fields))]
pub struct MessageDecl {
    /// The role.
    #[cfg_attr(
        feature = "json-schema",
        schemars(with = "crate::json_schema::RoleName")
    )]
    pub role: Role,
    /// Content nodes, rendered in order and concatenated.
    pub content: Vec<ContentNode>,
}

/// A structured content node (`docs/format.md`, "Content nodes").
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ContentNode {
    /// What the node does.
    #[serde(flatten)]
    pub kind: NodeKind,
    /// Where it came from (not serialised).
    #[serde(skip)]
    pub loc: Loc,
}

/// The node kinds, tagged by `kind` in YAML.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "json-schema",
    schemars(deny_unknown_fields, rename = "ContentNode")
)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NodeKind {
    /// `{kind: text, value}`: literal text.
    Text {
        /// The text, written verbatim.
        value: String,
    },
    /// `{kind: interpolate, expression, filters}`: a typed value.
    Interpolate {
        /// The value.
        expression: Expr,
        /// Fixed filters, applied left to right.
        #[cfg_attr(
            feature = "json-schema",
            schemars(with = "Vec<crate::json_schema::FilterName>", default)
        )]
        filters: Vec<Filter>,
    },
    /// `{kind: when, condition, then, else}`: conditional content.
    When {
        /// A boolean expression.
        condition: Expr,
        /// Rendered when true.
        then: Vec<ContentNode>,
        /// Rendered when false.
        #[serde(rename = "else")]
        #[cfg_attr(feature = "json-schema", schemars(default))]
        otherwise: Vec<ContentNode>,
    },
    /// `{kind: for_each, collection, item, body, separator}`: iteration.
    ForEach {
        /// An array-valued expression.
        collection: Expr,
        /// The local name each element is bound to.
        item: String,
        /// Rendered once per element.
        body: Vec<ContentNode>,
        /// Written between elements.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "json-schema", schemars(with = "String", default))]
        separator: Option<String>,
    },
    /// `{kind: component, name, with}`: a local component invocation.
    Component {
        /// The component's name.
        name: String,
        /// Argument expressions by parameter name (evaluated in the caller's scope).
        #[cfg_attr(feature = "json-schema", schemars(default))]
        with: OrderedMap<Expr>,
    },
    /// `{kind: include, path, from_dependency}`: splice a package partial.
    Include {
        /// Package-relative path with `/` separators.
        path: String,
        /// A dependency package name to resolve `path` in.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "json-schema", schemars(with = "String", default))]
        from_dependency: Option<String>,
    },
}

/// A typed expression: references, JSON literals, equality, negation,
/// conjunction, disjunction, numeric comparison, containment and length
/// (`docs/format.md`, "Expressions").
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Expr {
    /// The expression.
    #[serde(flatten)]
    pub kind: ExprKind,
    /// Where it came from (not serialised).
    #[serde(skip)]
    pub loc: Loc,
}

/// Expression kinds, tagged by `kind` in YAML.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[cfg_attr(
    feature = "json-schema",
    schemars(deny_unknown_fields, rename = "Expression")
)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ExprKind {
    /// `{kind: ref, path: inputs.customer.name}`.
    Ref {
        /// Dot-separated path starting at `inputs`, `context`, a `for_each`
        /// item or a component parameter.
        path: String,
    },
    /// `{kind: literal, value: <any JSON>}`.
    Literal {
        /// The value.
        value: serde_json::Value,
    },
    /// `{kind: equals, left, right}`: JSON equality.
    Equals {
        /// Left operand.
        left: Box<Expr>,
        /// Right operand.
        right: Box<Expr>,
    },
    /// `{kind: not, operand}`.
    Not {
        /// A boolean operand.
        operand: Box<Expr>,
    },
    /// `{kind: and, operands: [...]}` (at least one operand).
    And {
        /// Boolean operands.
        #[cfg_attr(feature = "json-schema", schemars(length(min = 1)))]
        operands: Vec<Expr>,
    },
    /// `{kind: or, operands: [...]}` (at least one operand).
    Or {
        /// Boolean operands.
        #[cfg_attr(feature = "json-schema", schemars(length(min = 1)))]
        operands: Vec<Expr>,
    },
    /// `{kind: compare, op, left, right}`: `left op right` on two
    /// non-nullable numbers.
    Compare {
        /// `lt`, `le`, `gt` or `ge`.
        #[cfg_attr(
            feature = "json-schema",
            schemars(with = "crate::json_schema::CompareOpName")
        )]
        op: CompareOp,
        /// Left operand (a number).
        left: Box<Expr>,
        /// Right operand (a number).
        right: Box<Expr>,
    },
    /// `{kind: contains, container, item}`: a string holds a substring, or
    /// an array holds an element equal to the item.
    Contains {
        /// A non-nullable string or array.
        container: Box<Expr>,
        /// What to look for (a string, in a string).
        item: Box<Expr>,
    },
    /// `{kind: length, of}`: the length of a string (Unicode scalar values)
    /// or an array, an integer.
    Length {
        /// A non-nullable string or array.
        of: Box<Expr>,
    },
    /// `{kind: judge, contract, with, pass}`: a model-graded check, a whole
    /// `expect` check only (`docs/format.md`, "Model-graded checks").
    Judge {
        /// The id of the judge contract, a contract of the same package.
        #[cfg_attr(
            feature = "json-schema",
            schemars(pattern(crate::json_schema::ID_PATTERN))
        )]
        contract: String,
        /// The judge's inputs by name, as expressions over `inputs`,
        /// `context`, `case` and `output`.
        #[cfg_attr(feature = "json-schema", schemars(default))]
        with: OrderedMap<Expr>,
        /// A boolean expression over `judge`, the judge's output.
        pass: Box<Expr>,
        /// The judge contract as the package resolved it, set when the
        /// package composes the contract (not serialised; `None` for a
        /// contract compiled without its package).
        #[serde(skip)]
        #[cfg_attr(feature = "json-schema", schemars(skip))]
        resolved: Option<JudgeResolution>,
    },
    /// An expression of a kind its place does not allow
    /// (`docs/format.md`, "Where each kind is allowed": `compare` in a
    /// `when` condition, `judge` as an operand): read no further than its
    /// `kind` — neither its fields nor its operands are checked — so the
    /// compiler reports it as `TQX_EXPR_KIND_NOT_ALLOWED` and nothing else.
    /// Not part of the format: never serialised, not in the JSON Schema.
    #[serde(skip)]
    #[cfg_attr(feature = "json-schema", schemars(skip))]
    Refused {
        /// The kind written.
        refused: templiqx_contracts::expr::Kind,
    },
}

/// The judge contract a `judge` check names, as the package resolved it
/// (`docs/format.md`, "Model-graded checks"): what the compiler checks the
/// check against, and what an eval run renders and executes.
#[derive(Clone, Debug, PartialEq)]
pub enum JudgeResolution {
    /// The judge compiled for the target.
    Compiled(std::sync::Arc<templiqx_contracts::Interaction>),
    /// The package lists no contract of that id; the ids it lists.
    Unlisted(Vec<String>),
    /// The judge did not compile: its file and its first error's message.
    Failed {
        /// The judge contract's file.
        file: String,
        /// Its first error, as one line.
        first: String,
    },
    /// The judge is judged, through other judges, by the contract naming
    /// it: the ids around the cycle, from that contract back to it.
    Cycle(Vec<String>),
}

/// A typed extension (`docs/format.md`, "Extensions").
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "json-schema", schemars(deny_unknown_fields))]
pub struct ExtensionDecl {
    /// The capability the extension needs in the target profile.
    #[cfg_attr(feature = "json-schema", schemars(length(min = 1)))]
    pub capability: String,
    /// Its schema, or a `{$ref: tool_contract:NAME, fingerprint}` reference
    /// before composition.
    #[cfg_attr(
        feature = "json-schema",
        schemars(with = "crate::json_schema::ExtensionSchema")
    )]
    pub schema: serde_json::Value,
    /// The value; must validate against the schema.
    pub value: serde_json::Value,
}

/// A component in typed form or the legacy list form (`docs/format.md`,
/// "Components").
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "json-schema", schemars(deny_unknown_fields))]
#[serde(untagged)]
pub enum ComponentDecl {
    /// `{parameters, content}`.
    Typed {
        /// Declared parameters.
        #[cfg_attr(
            feature = "json-schema",
            schemars(with = "Option<OrderedMap<FieldDecl>>", default)
        )]
        parameters: OrderedMap<FieldDecl>,
        /// The body.
        content: Vec<ContentNode>,
    },
    /// A bare list of content nodes; referenced external names are inferred
    /// as required string parameters.
    Legacy(Vec<ContentNode>),
}

/// An eval fixture.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "json-schema", schemars(deny_unknown_fields))]
pub struct EvalDecl {
    /// Unique within the contract, printable, without `#`.
    #[cfg_attr(
        feature = "json-schema",
        schemars(pattern(crate::json_schema::EVAL_ID_PATTERN))
    )]
    pub id: String,
    /// Input values.
    #[cfg_attr(
        feature = "json-schema",
        schemars(with = "Option<serde_json::Map<String, serde_json::Value>>", default)
    )]
    pub inputs: serde_json::Map<String, serde_json::Value>,
    /// Context values.
    #[cfg_attr(
        feature = "json-schema",
        schemars(with = "Option<serde_json::Map<String, serde_json::Value>>", default)
    )]
    pub context: serde_json::Map<String, serde_json::Value>,
    /// A model output that must validate against `output_schema`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fake_output: Option<serde_json::Value>,
    /// Named checks of a model output (`null` reads as none). Omitted from
    /// the serialised form (and so from the contract fingerprint) when
    /// empty, so a fixture without checks fingerprints as before the
    /// field existed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(
        feature = "json-schema",
        schemars(with = "Option<Vec<ExpectDecl>>", default)
    )]
    pub expect: Vec<ExpectDecl>,
    /// The data file whose rows are the entry's cases, instead of one
    /// case given inline (`docs/format.md`, "Datasets"). Serialised as
    /// `{path, sha256}`, so the contract fingerprint changes with the
    /// file's bytes; omitted when absent, so an entry without it
    /// fingerprints as before the field existed.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "json-schema",
        schemars(with = "crate::json_schema::DatasetPath", default)
    )]
    pub dataset: Option<DatasetDecl>,
    /// The JSON Schema (bounded subset) of each dataset row's `case`, the
    /// type of the `case` root scope of the entry's checks (omitted when
    /// absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(
        feature = "json-schema",
        schemars(with = "Option<crate::json_schema::BoundedSchema>", default)
    )]
    pub case_schema: Option<serde_json::Value>,
    /// Where the fixture is (not serialised).
    #[serde(skip)]
    pub loc: Loc,
}

/// The `dataset` of an eval entry (`docs/format.md`, "Datasets").
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DatasetDecl {
    /// The package-relative path, as written (`evals/labelled.jsonl`).
    pub path: String,
    /// The lowercase hex SHA-256 of the file's bytes, set when the package
    /// composes the contract (empty before, and for a contract compiled
    /// without its package).
    pub sha256: String,
    /// The file's real path, set with `sha256` (not serialised).
    #[serde(skip)]
    pub file: Option<std::path::PathBuf>,
    /// The file's name as diagnostics show it (relative to the loader's
    /// base directory), set with `sha256` (not serialised).
    #[serde(skip)]
    pub display: String,
}

/// A named check of an eval fixture's `expect` (`docs/format.md`, "Eval
/// fixtures"): a boolean expression over `inputs`, `context` and `output`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "json-schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "json-schema", schemars(deny_unknown_fields))]
pub struct ExpectDecl {
    /// Unique within the fixture, non-empty.
    #[cfg_attr(feature = "json-schema", schemars(length(min = 1)))]
    pub id: String,
    /// A boolean expression; `output` is a root scope here, and every
    /// expression kind is allowed (`docs/format.md`, "Where each kind is
    /// allowed").
    #[cfg_attr(
        feature = "json-schema",
        schemars(with = "crate::json_schema::CheckExpression")
    )]
    pub check: Expr,
    /// What the check means.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "json-schema", schemars(with = "String", default))]
    pub description: Option<String>,
    /// Where the check is (not serialised).
    #[serde(skip)]
    pub loc: Loc,
}
