//! The tools' output schemas: every result is an object with `ok` and
//! `diagnostics` (the diagnostics of `templiqx … --format json`), and the
//! tool's own members when it produced them.

use serde_json::{Map, Value, json};
use std::sync::Arc;

/// A diagnostic, as `OperationEnvelope` serialises it (`docs/cli.md`, "JSON
/// output").
fn diagnostic() -> Value {
    let position = json!({
        "type": "object",
        "properties": { "line": { "type": "integer" }, "column": { "type": "integer" } }
    });
    json!({
        "type": "object",
        "required": ["code", "severity", "message"],
        "properties": {
            "code": { "type": "string", "description": "the stable TQX_* code" },
            "severity": { "type": "string", "enum": ["error", "warning"] },
            "message": { "type": "string" },
            "file": { "type": "string", "description": "relative to the server's working directory" },
            "json_pointer": { "type": "string", "description": "RFC 6901 pointer of the node in `file`, or in the request {inputs, context}" },
            "span": {
                "type": "object",
                "description": "1-based lines, columns in characters",
                "properties": { "start": position, "end": position }
            },
            "help": { "type": "string" },
            "notes": { "type": "array", "items": { "type": "string" } },
            "suggestion": {
                "type": "object",
                "description": "the fix of a \"did you mean\": write `replacement` over `span`",
                "properties": { "replacement": { "type": "string" }, "span": { "type": "object" } }
            }
        }
    })
}

/// An output schema: `ok`, `diagnostics` and `properties` (none of them
/// required: a failed call has only `ok` and `diagnostics`).
pub(crate) fn output(properties: Value) -> Arc<Map<String, Value>> {
    let mut props = match properties {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    props.insert(
        "ok".to_owned(),
        json!({ "type": "boolean", "description": "whether no diagnostic is an error" }),
    );
    props.insert(
        "diagnostics".to_owned(),
        json!({ "type": "array", "items": diagnostic() }),
    );
    let mut schema = Map::new();
    schema.insert("type".to_owned(), json!("object"));
    schema.insert("required".to_owned(), json!(["ok", "diagnostics"]));
    schema.insert("properties".to_owned(), Value::Object(props));
    Arc::new(schema)
}

/// The fingerprints of a compiled contract and its rendering.
pub(crate) fn fingerprints() -> Value {
    json!({
        "type": "object",
        "description": "lowercase hex SHA-256 fingerprints",
        "properties": {
            "contract": { "type": "string" },
            "interaction": { "type": "string" },
            "request": { "type": "string" }
        }
    })
}

pub(crate) fn check() -> Arc<Map<String, Value>> {
    output(json!({
        "inputs": {
            "type": "array",
            "description": "one per package, contract file or text compiled",
            "items": {
                "type": "object",
                "properties": {
                    "path": { "type": "string" },
                    "kind": { "type": "string", "enum": ["package", "file", "absent"] },
                    "package": {
                        "type": "object",
                        "properties": { "name": { "type": "string" }, "version": { "type": "string" } }
                    },
                    "contracts": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "id": { "type": "string" },
                                "file": { "type": "string" },
                                "ok": { "type": "boolean" },
                                "fingerprints": fingerprints()
                            }
                        }
                    }
                }
            }
        }
    }))
}

pub(crate) fn render() -> Arc<Map<String, Value>> {
    output(json!({
        "messages": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "role": { "type": "string", "enum": ["system", "developer", "user", "assistant"] },
                    "content": { "type": "string" }
                }
            }
        },
        "fingerprints": fingerprints(),
        "request": {
            "type": "object",
            "description": "the rendered interaction whose canonical JSON the request fingerprint covers (the `result` of `templiqx render --format json`)"
        }
    }))
}

pub(crate) fn fingerprint() -> Arc<Map<String, Value>> {
    output(json!({
        "fingerprint": { "type": "string", "description": "lowercase hex SHA-256 of the canonical JSON" },
        "canonical": { "type": "string", "description": "the canonical JSON text (RFC 8785), when asked for" }
    }))
}

pub(crate) fn schema() -> Arc<Map<String, Value>> {
    output(json!({
        "schema": { "type": "object", "description": "the JSON Schema (draft 2020-12) of the contract format" },
        "fingerprint": { "type": "string" }
    }))
}

pub(crate) fn diff() -> Arc<Map<String, Value>> {
    output(json!({
        "sufficient": { "type": "boolean", "description": "everything was compared and every version bump suffices" },
        "changes": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "rule": { "type": "string", "description": "the stable rule id (docs/diff.md)" },
                    "class": { "type": "string" },
                    "contract": { "type": "string" },
                    "message": { "type": "string" },
                    "old": { "type": "object" },
                    "new": { "type": "object" },
                    "help": { "type": "string" }
                }
            }
        },
        "contracts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": { "type": "string" },
                    "status": { "type": "string" },
                    "changes": { "type": "integer" },
                    "gate": { "type": "object" },
                    "reason": { "type": "string" }
                }
            }
        },
        "package": { "type": "object" }
    }))
}

pub(crate) fn eval() -> Arc<Map<String, Value>> {
    output(json!({
        "provider": { "type": "string", "enum": ["fake", "openai", "anthropic"] },
        "run": { "type": "object", "description": "the run: started_at, provider, model, sampling, repeat" },
        "stats": { "type": "object", "description": "per fixture (a dataset entry is one, with its `rows`), per contract and overall: pass rate and schema-valid rate with 95% Wilson intervals, each check's pass rate, pass^N, distinct outputs, latency, tokens (docs/eval.md)" },
        "gate": { "type": "object" },
        "notes": { "type": "array", "items": { "type": "string" } },
        "skipped": { "type": "array", "items": { "type": "string" }, "description": "fixtures left out for want of a fake_output" }
    }))
}
