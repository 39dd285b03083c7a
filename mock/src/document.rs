//! Reading the documents of a scenario corpus (manifests, the inventory,
//! request and output files) strictly, with `TQX_*` diagnostics.
//!
//! A document is JSON, or YAML when its file name ends in `.yaml`/`.yml`.
//! JSON is read by the one strict reader (`templiqx_contracts::json::parse`)
//! into a [`Json`]: an object that repeats a key is rejected
//! (`TQX_PARSE_JSON`) instead of keeping the last value, and integers keep
//! their exact value at any size, because fingerprints are computed over
//! these values and a dropped member or a rounded number would change what
//! they cover. YAML goes through the
//! compiler's strict parser (`templiqx_build::yaml::parse`, which rejects
//! duplicate keys, tags and alias bombs with `TQX_PARSE_YAML`) and is then
//! handled as JSON.
//!
//! Typed DTOs are deserialised from the parsed value with the offending
//! value's JSON Pointer recorded, and serde's errors are mapped to the
//! compiler's strict-DTO codes (see [`decode_value`]).

use serde::de::DeserializeOwned;
use std::path::Path;
use templiqx_build::text::{self, ReadError, Syntax};
use templiqx_build::yaml::{self, Node};
use templiqx_contracts::diagnostic::escape_pointer_token;
use templiqx_contracts::json::{self, Json};
use templiqx_contracts::{Code, Diagnostic};

/// The largest document this crate reads: 16 MiB (the compiler's
/// [`text::MAX_SOURCE_BYTES`]). A larger file fails with `TQX_IO` before
/// its contents are parsed.
pub const MAX_DOCUMENT_BYTES: u64 = text::MAX_SOURCE_BYTES;

/// A parsed document: its JSON value and the node tree that maps JSON
/// Pointers back to source spans.
#[derive(Clone, Debug)]
pub struct Document {
    /// The value.
    pub value: Json,
    /// The spanned tree: the YAML document's, or a JSON document's read
    /// as YAML 1.2 (of which JSON is a subset) for its spans only; `None`
    /// when the reader could not map it.
    pub tree: Option<Node>,
}

impl Document {
    /// Parses `text` as JSON, or as YAML when `yaml` is true.
    ///
    /// # Errors
    ///
    /// `TQX_PARSE_JSON` or `TQX_PARSE_YAML`, without a file name.
    pub fn parse(text: &str, yaml: bool) -> Result<Document, Diagnostic> {
        if yaml {
            let node = yaml::parse(text)?;
            Ok(Document {
                value: Json::from(node.to_json()),
                tree: Some(node),
            })
        } else {
            // The value is the strict JSON reader's; the tree serves spans.
            let value = json::parse(text)?;
            Ok(Document {
                value,
                tree: yaml::parse_spans(text).ok(),
            })
        }
    }

    /// Reads and parses the file at `path`; `display` names it in
    /// diagnostics.
    ///
    /// # Errors
    ///
    /// `TQX_IO` when the file cannot be read or exceeds
    /// [`MAX_DOCUMENT_BYTES`]; `TQX_PARSE_JSON` / `TQX_PARSE_YAML` when it
    /// does not parse. Every diagnostic names `display` as its file.
    pub fn read(path: &Path, display: &str) -> Result<Document, Diagnostic> {
        let text = read_text(path, display)?;
        Document::parse(&text, is_yaml(path)).map_err(|d| d.in_file(display))
    }

    /// Deserialises the value into `T`, mapping a shape error to a
    /// diagnostic with the offending value's JSON Pointer (and, for YAML,
    /// its source span).
    ///
    /// # Errors
    ///
    /// One diagnostic (see [`decode_value`]); the caller sets the file.
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, Diagnostic> {
        decode_value(&self.value).map_err(|d| self.locate(d))
    }

    /// Adds the source span of the diagnostic's pointer, when known.
    pub fn locate(&self, mut diagnostic: Diagnostic) -> Diagnostic {
        if diagnostic.span.is_none()
            && let (Some(node), Some(pointer)) = (&self.tree, &diagnostic.json_pointer)
        {
            diagnostic.span = node.span_of(pointer);
        }
        diagnostic
    }
}

/// Whether `path` names a YAML document (`.yaml` or `.yml`).
pub fn is_yaml(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml")
    )
}

/// Reads a text file of at most [`MAX_DOCUMENT_BYTES`], as YAML when
/// [`is_yaml`] says so and as JSON otherwise (see
/// [`templiqx_build::text`]: a leading UTF-8 byte order mark is skipped).
///
/// # Errors
///
/// `TQX_IO` when it cannot be read or is too large; `TQX_PARSE_JSON` or
/// `TQX_PARSE_YAML`, at the first invalid byte, when it is not UTF-8. Each
/// names `display`.
pub fn read_text(path: &Path, display: &str) -> Result<String, Diagnostic> {
    let syntax = if is_yaml(path) {
        Syntax::Yaml
    } else {
        Syntax::Json
    };
    text::read_file(path, syntax).map_err(|e| match e {
        ReadError::NotUtf8(e) => e.diagnostic.in_file(display),
        ReadError::Io(e) if e.kind() == std::io::ErrorKind::InvalidData => Diagnostic::error(
            Code::Io,
            format!("{display} is larger than {MAX_DOCUMENT_BYTES} bytes"),
        )
        .in_file(display)
        .help("scenario documents are small fixtures; split or shrink the file"),
        ReadError::Io(e) => Diagnostic::error(Code::Io, format!("cannot read {display}: {e}"))
            .in_file(display)
            .help("check that the file exists and is readable"),
    })
}

/// Deserialises `value` into `T`.
///
/// # Errors
///
/// One diagnostic whose JSON Pointer is the offending value (the unknown
/// field itself; for a missing field, the object that lacks it) and whose
/// code maps serde's error to the compiler's strict-DTO codes:
///
/// | serde says | code |
/// |---|---|
/// | `unknown field …` | `TQX_UNKNOWN_FIELD` |
/// | `missing field …` | `TQX_MISSING_FIELD` |
/// | `unknown variant …`, `unknown diagnostic code …` | `TQX_UNKNOWN_VARIANT` |
/// | `invalid type: …` (a `null` named `null`: `invalid type: null, expected u64`) | `TQX_INVALID_TYPE` |
/// | anything else (`invalid value`, `invalid length`, `duplicate field`) | `TQX_INVALID_VALUE` |
pub fn decode_value<T: DeserializeOwned>(value: &Json) -> Result<T, Diagnostic> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let mut pointer = pointer_of(e.path());
        let message = e.into_inner().to_string();
        // Inside an internally tagged enum (steps, events) serde reports an
        // unknown field at the enclosing object; point at the field itself,
        // as for every other object.
        if let Some(field) = message
            .strip_prefix("unknown field `")
            .and_then(|rest| rest.split('`').next())
            && !pointer.ends_with(&format!("/{}", escape_pointer_token(field)))
            && let Some(refined) = locate_key(value, &pointer, field)
        {
            pointer = refined;
        }
        // A `BigInt` reaches a field through serde's buffering of tagged
        // enums as a newtype (`templiqx_contracts::Json`'s `Deserializer`),
        // which serde names instead of the value: say what it is, where.
        let (message, pointer) = match message.strip_prefix("invalid type: newtype struct, ") {
            Some(expected) => match only_big_integer(value, &pointer) {
                Some((at, digits)) => {
                    (format!("invalid value: integer `{digits}`, {expected}"), at)
                }
                // Several below the place serde knows: a `Json` holds no
                // other newtype, so it is one of them.
                None => (
                    format!("invalid value: an integer beyond 64 bits, {expected}"),
                    pointer,
                ),
            },
            None => (message, pointer),
        };
        // Likewise a `null` where a value of a type is required
        // (`invalid type: null, expected u64`, in JSON's word: see
        // `templiqx_contracts::json::DeError`): point at the one `null`.
        let pointer = if message.starts_with("invalid type: null, ") {
            the_only(value, &pointer, |_, v| v.is_null()).map_or(pointer, |(at, _)| at)
        } else {
            pointer
        };
        shape_error(&message, pointer)
    })
}

/// The pointer and digits of the one integer beyond 64 bits at or below
/// `pointer`; `None` when there is none or more than one.
fn only_big_integer(value: &Json, pointer: &str) -> Option<(String, String)> {
    let big = |v: &Json| match v.as_number() {
        Some(templiqx_contracts::Number::Big(b)) => Some(b.as_str().to_owned()),
        _ => None,
    };
    let (at, v) = the_only(value, pointer, |_, v| big(v).is_some())?;
    Some((at, big(v)?))
}

/// The pointer of the one object member named `key` at or below
/// `pointer` (serde loses the path inside internally tagged enums, whose
/// content it buffers); `None` when there is none or more than one.
fn locate_key(value: &Json, pointer: &str, key: &str) -> Option<String> {
    the_only(value, pointer, |k, _| k == Some(key)).map(|(at, _)| at)
}

/// The one value at or below `pointer` that `wanted` accepts (given the
/// member name it sits under, if any), with its pointer; `None` when there
/// is none or more than one.
fn the_only<'v>(
    value: &'v Json,
    pointer: &str,
    wanted: impl Fn(Option<&str>, &Json) -> bool,
) -> Option<(String, &'v Json)> {
    let mut found = None;
    let mut stack = vec![(value.pointer(pointer)?, None, pointer.to_owned())];
    while let Some((v, name, at)) = stack.pop() {
        if wanted(name, v) {
            if found.is_some() {
                return None;
            }
            found = Some((at.clone(), v));
        }
        match v {
            Json::Object(o) => {
                for (k, child) in o {
                    let child_at = format!("{at}/{}", escape_pointer_token(k));
                    stack.push((child, Some(k.as_str()), child_at));
                }
            }
            Json::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    stack.push((child, None, format!("{at}/{i}")));
                }
            }
            _ => {}
        }
    }
    found
}

/// Maps one of serde's error messages to a strict-DTO code (see
/// [`decode_value`]).
fn shape_error(message: &str, pointer: String) -> Diagnostic {
    let (code, help) = if message.starts_with("unknown field") {
        (
            Code::UnknownField,
            "remove the field: templiqx.mock/v1alpha1 documents are strict",
        )
    } else if message.starts_with("missing field") {
        (Code::MissingField, "add the field the format requires here")
    } else if message.starts_with("unknown variant")
        || message.starts_with("unknown diagnostic code")
    {
        (
            Code::UnknownVariant,
            "use one of the values the format lists",
        )
    } else if message.starts_with("invalid type") {
        (
            Code::InvalidType,
            "give the field the JSON type the format requires",
        )
    } else {
        (
            Code::InvalidValue,
            "give the field a value the format allows",
        )
    };
    Diagnostic::error(code, message).at(pointer).help(help)
}

fn pointer_of(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut pointer = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => {
                pointer.push('/');
                pointer.push_str(&index.to_string());
            }
            Segment::Map { key } => {
                pointer.push('/');
                pointer.push_str(&escape_pointer_token(key));
            }
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    pointer
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_with_a_repeated_key_is_rejected() {
        let d = json::parse(r#"{"a": {"b": 1, "b": 2}}"#).unwrap_err();
        assert_eq!(d.code, Code::ParseJson);
        assert_eq!(d.message, "invalid JSON: duplicate key `b` in an object");
        // The place is the span, not words in the message.
        let start = d.span.unwrap().start;
        assert_eq!((start.line, start.column), (1, 18));
    }

    #[test]
    fn documents_are_read_through_the_compilers_text_reader() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: &[u8]| {
            let path = dir.path().join(name);
            std::fs::write(&path, bytes).unwrap();
            path
        };
        // Not UTF-8: the syntax's parse code at the first invalid byte.
        for (name, code) in [("m.json", Code::ParseJson), ("m.yaml", Code::ParseYaml)] {
            let path = write(name, b"{\"id\": \"a\",\n \"kind\": \"caf\xE9\"}");
            let d = Document::read(&path, name).unwrap_err();
            assert_eq!((d.code, d.file.as_deref()), (code, Some(name)));
            let start = d.span.unwrap().start;
            assert_eq!((start.line, start.column), (2, 14));
            assert!(d.help.unwrap().contains("UTF-8"));
        }
        // A leading byte order mark is skipped, in JSON as in YAML.
        for name in ["b.json", "b.yaml"] {
            let path = write(name, b"\xEF\xBB\xBF{\"id\": \"a\"}");
            assert_eq!(
                Document::read(&path, name).unwrap().value,
                json!({"id": "a"})
            );
        }
        // A file that is not there is an I/O error.
        let d = Document::read(&dir.path().join("gone.json"), "gone.json").unwrap_err();
        assert_eq!(d.code, Code::Io);
        let d = Document::read(dir.path(), "dir.json").unwrap_err();
        assert_eq!(d.code, Code::Io);
    }

    #[test]
    fn json_syntax_errors_and_deep_nesting_are_diagnostics() {
        assert_eq!(json::parse("{").unwrap_err().code, Code::ParseJson);
        let deep = "[".repeat(100_000);
        assert_eq!(json::parse(&deep).unwrap_err().code, Code::ParseJson);
        assert_eq!(
            json::parse(r#"{"x": [1, 2.5, null, true, "é"]}"#).unwrap(),
            json!({"x": [1, 2.5, null, true, "é"]})
        );
    }

    #[test]
    fn yaml_shape_errors_carry_a_pointer_and_a_span() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct T {
            a: Vec<U>,
        }
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct U {
            b: u64,
        }
        let doc = Document::parse("a:\n  - b: 1\n  - b: 2\n    c: 3\n", true).unwrap();
        let d = doc.decode::<T>().unwrap_err();
        assert_eq!(d.code, Code::UnknownField);
        // The pointer names the unknown field itself.
        assert_eq!(d.json_pointer.as_deref(), Some("/a/1/c"));
        assert_eq!(d.span.map(|s| s.start.line), Some(4));
        let doc = Document::parse(r#"{"a": [{"b": "x"}]}"#, false).unwrap();
        let d = doc.decode::<T>().unwrap_err();
        assert_eq!(d.code, Code::InvalidType);
        assert_eq!(d.json_pointer.as_deref(), Some("/a/0/b"));
    }
}
