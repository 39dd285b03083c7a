//! Strict YAML → spanned node tree (DESIGN section 4, "YAML").
//!
//! Built on `saphyr-parser`'s event stream so that every node keeps its
//! source span, and so that the things the format forbids are caught while
//! parsing: duplicate mapping keys, tags, non-scalar keys, and alias
//! expansion beyond a node budget all fail with `TQX_PARSE_YAML`.
//!
//! Scalars are resolved with the YAML 1.2 core schema: plain `null`/`~`/empty
//! is null, `true`/`false` booleans, decimal/`0o`/`0x` integers, decimal
//! floats; quoted and block scalars are always strings.

use templiqx_contracts::{Diagnostic, Number, Span};

/// A parsed YAML node with its source span.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The value.
    pub value: NodeValue,
    /// Where it is in the source (for a mapping or sequence: its whole extent).
    pub span: Span,
}

/// A mapping key: always a scalar, kept as its text.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    /// The key text.
    pub text: String,
    /// Where the key is.
    pub span: Span,
}

/// The value of a node.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeValue {
    /// `null`, `~` or an empty plain scalar.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A finite number.
    Number(Number),
    /// A string.
    String(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in source order, keys unique.
    Map(Vec<(Key, Node)>),
}
