//! `templiqx schema`: the JSON Schema of the contract format accepts every
//! contract of the project's examples (and of the external corpus, when it
//! is there), rejects each of
//! them with an unknown field added, and agrees with the parser on
//! thousands of mutations of them.

use crate::common::*;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};
use templiqx_build::{compile_str, parse_str, yaml};
use templiqx_contracts::CapabilityProfile;

fn schema() -> Value {
    let output = templiqx().arg("schema").output().unwrap();
    assert!(output.status.success(), "{output:?}");
    serde_json::from_slice(&output.stdout).expect("the schema is JSON")
}

fn validator() -> jsonschema::Validator {
    let schema = schema();
    assert!(
        jsonschema::meta::is_valid(&schema),
        "the schema is a valid draft 2020-12 schema"
    );
    jsonschema::draft202012::new(&schema).expect("the schema compiles")
}

/// `**/contracts/*.yaml` under `dir`.
fn contracts_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            contracts_under(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml")
            && path
                .parent()
                .and_then(Path::file_name)
                .is_some_and(|n| n == "contracts")
        {
            out.push(path);
        }
    }
}

fn contracts() -> Vec<(PathBuf, Value)> {
    let mut paths = Vec::new();
    contracts_under(&examples(), &mut paths);
    assert!(paths.len() >= 3, "the examples have contracts: {paths:?}");
    if let Some(corpus) = external_corpus() {
        let examples = paths.len();
        contracts_under(&corpus, &mut paths);
        assert!(paths.len() >= examples + 3, "the corpus has contracts");
    }
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let json = yaml::parse(&text).unwrap().to_json();
            (p, json)
        })
        .collect()
}

fn errors(validator: &jsonschema::Validator, value: &Value) -> Vec<String> {
    validator
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect()
}

#[test]
fn accepts_every_example_and_corpus_contract() {
    let validator = validator();
    for (path, json) in contracts() {
        let errors = errors(&validator, &json);
        assert!(errors.is_empty(), "{}: {errors:#?}", path.display());
    }
}

#[test]
fn rejects_every_contract_with_an_unknown_field_added() {
    let validator = validator();
    for (path, json) in contracts() {
        let mut places = vec![
            String::new(),
            "/messages/0".to_owned(),
            "/messages/0/content/0".to_owned(),
        ];
        for p in ["/output_schema", "/runtime_policy", "/evals/0", "/inputs"] {
            if json
                .pointer(p)
                .is_some_and(|v| !v.as_object().is_some_and(Map::is_empty))
            {
                places.push(p.to_owned());
            }
        }
        if let Some((name, _)) = json["inputs"].as_object().and_then(|m| m.iter().next()) {
            places.push(format!("/inputs/{name}"));
        }
        for place in places {
            let mut bad = json.clone();
            let target = bad.pointer_mut(&place).unwrap();
            let Some(object) = target.as_object_mut() else {
                continue;
            };
            object.insert("unknown_field".to_owned(), Value::Bool(true));
            assert!(
                !validator.is_valid(&bad),
                "{}: accepted an unknown field at {place:?}",
                path.display()
            );
        }
    }
}

/// Every object position in `value`, as JSON pointers.
fn objects(value: &Value, pointer: String, out: &mut Vec<String>) {
    match value {
        Value::Object(m) => {
            for (k, v) in m {
                objects(
                    v,
                    format!("{pointer}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
            out.push(pointer);
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                objects(v, format!("{pointer}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// Mutations of `json`: each key of each object removed, replaced by
/// `null`, by a number, and by a string, and each object given an unknown key.
fn mutations(json: &Value) -> Vec<(String, Value)> {
    let mut pointers = Vec::new();
    objects(json, String::new(), &mut pointers);
    let mut out = Vec::new();
    for pointer in pointers {
        let Some(Value::Object(map)) = json.pointer(&pointer) else {
            continue;
        };
        for key in map.keys() {
            let mut edits: Vec<(&str, Option<Value>)> = vec![
                ("remove", None),
                ("null", Some(Value::Null)),
                ("number", Some(Value::from(7))),
                ("string", Some(Value::from("s"))),
            ];
            for (what, replacement) in edits.drain(..) {
                let mut doc = json.clone();
                let Some(Value::Object(m)) = doc.pointer_mut(&pointer) else {
                    continue;
                };
                match replacement {
                    None => {
                        m.remove(key);
                    }
                    Some(v) => {
                        m.insert(key.clone(), v);
                    }
                }
                out.push((format!("{what} {pointer}/{key}"), doc));
            }
        }
        let mut doc = json.clone();
        if let Some(Value::Object(m)) = doc.pointer_mut(&pointer) {
            m.insert("zz_unknown".to_owned(), Value::Bool(true));
            out.push((format!("add {pointer}/zz_unknown"), doc));
        }
    }
    out
}

/// The schema never accepts what the parser rejects, and never rejects what
/// the compiler accepts.
#[test]
fn agrees_with_the_parser_and_compiler_on_mutations() {
    let validator = validator();
    let target = CapabilityProfile::parse_list("structured_output");
    let mut checked = 0;
    let mut rejected = 0;
    for (path, json) in contracts() {
        for (what, doc) in mutations(&json) {
            let text = serde_json::to_string(&doc).unwrap();
            let valid = validator.is_valid(&doc);
            let parsed = parse_str(&text, "c.json");
            if valid {
                assert!(
                    parsed.ok,
                    "{} ({what}): the schema accepts what the parser rejects: {:?}",
                    path.display(),
                    parsed.diagnostics
                );
            } else {
                rejected += 1;
                let compiled = compile_str(&text, "c.json", &target);
                assert!(
                    !compiled.diagnostics.is_empty(),
                    "{} ({what}): the schema rejects what the compiler accepts: {:#?}",
                    path.display(),
                    errors(&validator, &doc)
                );
            }
            checked += 1;
        }
    }
    assert!(checked > 1000, "{checked} mutations");
    assert!(rejected > checked / 2, "{rejected} of {checked} rejected");
}

#[test]
fn json_format_wraps_the_schema_in_an_envelope() {
    let output = templiqx()
        .args(["schema", "--format", "json"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let env = &envelopes(&output)[0];
    assert_envelope(env, "schema");
    assert_eq!(env["result"], schema());
    assert_eq!(
        env["fingerprints"]["schema"],
        templiqx_contracts::canonical::fingerprint(&schema()).as_str()
    );
}

#[test]
fn closing_the_pipe_early_stops_quietly_with_the_sigpipe_status() {
    // `templiqx schema | head -1`: the reader goes away mid-write.
    // The read end is closed before the child starts, so its first write
    // fails with EPIPE whatever the scheduling.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_templiqx"))
        .arg("schema")
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(141), "{output:?}");
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The schema keeps content expressions to the format's kinds and lets
/// checks use every kind (`docs/format.md`, "Where each kind is allowed"),
/// as the compiler does (`TQX_EXPR_KIND_NOT_ALLOWED`).
#[test]
fn eval_operators_are_refused_in_content_and_accepted_in_checks() {
    let validator = validator();
    let compare = serde_json::json!({"kind": "compare", "op": "ge",
        "left": {"kind": "literal", "value": 2}, "right": {"kind": "literal", "value": 1}});
    let contains = serde_json::json!({"kind": "contains",
        "container": {"kind": "ref", "path": "inputs.tags"}, "item": {"kind": "literal", "value": "a"}});
    let length =
        serde_json::json!({"kind": "length", "of": {"kind": "ref", "path": "inputs.name"}});
    let contract = |node: Value, check: Value| {
        serde_json::json!({
            "api_version": "templiqx/v1alpha1", "id": "kinds", "version": "0.1.0",
            "inputs": {
                "name": {"schema": {"type": "string"}, "required": true},
                "tags": {"schema": {"type": "array", "items": {"type": "string"}}, "required": true}
            },
            "capabilities": ["structured_output"],
            "components": {"show": {"parameters": {"n": {"schema": {"type": "integer"}}}, "content": []}},
            "messages": [{"role": "user", "content": [node]}],
            "output_schema": {"type": "object"},
            "evals": [{"id": "e", "inputs": {"name": "Ada", "tags": ["a"]},
                "expect": [{"id": "c", "check": check}]}]
        })
    };
    let yes = serde_json::json!({"kind": "literal", "value": true});
    let text = serde_json::json!({"kind": "text", "value": "."});
    for kind in [&compare, &contains, &length] {
        let nested = serde_json::json!({"kind": "not", "operand": kind});
        for node in [
            serde_json::json!({"kind": "when", "condition": kind, "then": [text]}),
            serde_json::json!({"kind": "when", "condition": nested, "then": [text]}),
            serde_json::json!({"kind": "interpolate", "expression": kind}),
            serde_json::json!({"kind": "component", "name": "show", "with": {"n": kind}}),
            serde_json::json!({"kind": "for_each", "collection": kind, "item": "i", "body": []}),
        ] {
            let doc = contract(node.clone(), yes.clone());
            assert!(!validator.is_valid(&doc), "accepted in content: {node}");
            // The compiler refuses it too.
            let compiled = compile_str(
                &doc.to_string(),
                "c.json",
                &CapabilityProfile::parse_list("structured_output"),
            );
            assert!(
                compiled
                    .diagnostics
                    .iter()
                    .any(|d| d.code.as_str() == "TQX_EXPR_KIND_NOT_ALLOWED"),
                "{node}: {:#?}",
                compiled.diagnostics
            );
        }
    }
    let interpolate = serde_json::json!({"kind": "interpolate",
        "expression": {"kind": "ref", "path": "inputs.name"}});
    let equals_length = serde_json::json!({"kind": "equals", "left": length, "right": {"kind": "literal", "value": 3}});
    for check in [&compare, &contains, &equals_length] {
        let nested = serde_json::json!({"kind": "and", "operands": [yes, check]});
        for check in [check, &nested] {
            let doc = contract(interpolate.clone(), check.clone());
            let errors = errors(&validator, &doc);
            assert!(errors.is_empty(), "{check}: {errors:#?}");
            let compiled = compile_str(
                &doc.to_string(),
                "c.json",
                &CapabilityProfile::parse_list("structured_output"),
            );
            assert!(
                compiled.diagnostics.is_empty(),
                "{:#?}",
                compiled.diagnostics
            );
        }
    }
}

/// A reference's `path` is described with the root scopes of where it is
/// written, from the one table (`templiqx_contracts::expr::Place::roots`):
/// content's `inputs` and `context` and its locals, a check's `output` and
/// `case` too, and the `judge` of a `pass` among check operands.
#[test]
fn a_reference_path_names_the_root_scopes_of_its_place() {
    use templiqx_contracts::expr::Place;
    let schema = schema();
    let path = |def: &str| -> String {
        let variants = schema["$defs"][def]["oneOf"].as_array().unwrap();
        let reference = variants
            .iter()
            .find(|v| v["properties"]["kind"]["const"] == "ref")
            .unwrap_or_else(|| panic!("{def} has a `ref`"));
        reference["properties"]["path"]["description"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let content = path("Expression");
    assert!(content.contains("a `for_each` item"), "{content}");
    assert!(!content.contains("`output`"), "{content}");
    for def in ["CheckExpression", "CheckOperand"] {
        let text = path(def);
        for root in Place::Check.roots() {
            assert!(text.contains(&format!("`{root}`")), "{def}: {text}");
        }
        assert!(
            text.contains("`case` (in the checks of a dataset entry)"),
            "{def}: {text}"
        );
        assert!(!text.contains("for_each"), "{def}: {text}");
        assert_eq!(
            text.contains("`judge`"),
            def == "CheckOperand",
            "{def}: {text}"
        );
    }
}

/// An eval id holds no `#` (`docs/format.md`, "Eval fixtures"): the schema
/// refuses one, as the compiler does, and accepts the same id without it.
#[test]
fn an_eval_id_with_a_hash_is_refused_as_the_compiler_refuses_it() {
    let validator = validator();
    let contract = |id: &str| {
        serde_json::json!({
            "api_version": "templiqx/v1alpha1", "id": "hashes", "version": "0.1.0",
            "capabilities": ["structured_output"],
            "messages": [{"role": "user", "content": [{"kind": "text", "value": "."}]}],
            "output_schema": {"type": "object"},
            "evals": [{"id": id}]
        })
    };
    let target = CapabilityProfile::parse_list("structured_output");
    let ok = contract("rows-1");
    assert!(validator.is_valid(&ok), "{:#?}", errors(&validator, &ok));
    assert!(
        compile_str(&ok.to_string(), "c.json", &target)
            .diagnostics
            .is_empty()
    );
    let hash = contract("rows#1");
    assert!(!validator.is_valid(&hash));
    let compiled = compile_str(&hash.to_string(), "c.json", &target);
    assert!(
        compiled
            .diagnostics
            .iter()
            .any(|d| d.code.as_str() == "TQX_EVAL_INVALID"
                && d.json_pointer.as_deref() == Some("/evals/0/id")),
        "{:#?}",
        compiled.diagnostics
    );
}
