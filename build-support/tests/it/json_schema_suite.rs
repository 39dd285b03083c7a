//! The official JSON Schema Test Suite (draft 2020-12, the subset's keyword
//! files and `optional/format/date*.json`), an external suite read in place
//! through `templiqx-conformance-suites` (skipped with a visible line when
//! absent, required under CI). The project's own schema tests
//! (`schema_rules.rs`, `schema_props.rs`) cover every keyword without it.
//!
//! Every schema `compile_schema` accepts must agree with every case's
//! `valid` through `validate`; every schema it rejects must be one listed in
//! [`EXPECTED_REJECTIONS`] with its reason: the peer-suite README requires
//! that a schema using anything outside the subset is rejected, and the
//! list keeps the rejections from silently growing. Run with `--nocapture`
//! to see the counts and the rejected schemas.

use serde_json::Value;
use std::path::{Path, PathBuf};
use templiqx_build::schema::compile_schema;
use templiqx_conformance_suites::{Suite, locate};
use templiqx_contracts::AsValue;
use templiqx_contracts::validate::validate;

/// `(file, group description, code)`, each with the reason it is rejected.
const EXPECTED_REJECTIONS: &[(&str, &str, &str)] = &[
    // Outside the subset: `patternProperties`.
    (
        "additionalProperties.json",
        "additionalProperties being false does not allow other properties",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    (
        "additionalProperties.json",
        "non-ASCII pattern with additionalProperties",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    // Outside the subset: `additionalProperties` is boolean only.
    (
        "additionalProperties.json",
        "additionalProperties with schema",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    (
        "additionalProperties.json",
        "additionalProperties can exist by itself",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    (
        "additionalProperties.json",
        "additionalProperties with null valued instance properties",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    // Outside the subset: `allOf`, `propertyNames`, `dependentSchemas`.
    (
        "additionalProperties.json",
        "additionalProperties does not look in applicators",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    (
        "additionalProperties.json",
        "additionalProperties with propertyNames",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    (
        "additionalProperties.json",
        "dependentSchemas with additionalProperties",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    // Outside the subset: boolean schemas (write `{}`; `false` admits nothing).
    (
        "boolean_schema.json",
        "boolean schema 'true'",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    (
        "boolean_schema.json",
        "boolean schema 'false'",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    (
        "items.json",
        "items with boolean schema (true)",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    (
        "items.json",
        "items with boolean schema (false)",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    (
        "properties.json",
        "properties with boolean schema",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    // Outside the subset: `$comment`.
    (
        "const.json",
        "characters with the same visual representation but different codepoint",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    (
        "const.json",
        "characters with the same visual representation, but different number of codepoints",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    // Impossible bounds: an empty `enum` admits no value.
    ("enum.json", "empty enum", "TQX_SCHEMA_BOUNDS"),
    // Outside the subset: `$defs`/`$ref`, `prefixItems`, `allOf`.
    ("items.json", "items and subitems", "TQX_SCHEMA_UNSUPPORTED"),
    (
        "items.json",
        "prefixItems with no additional items allowed",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    (
        "items.json",
        "items does not look in applicators, valid case",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    (
        "items.json",
        "prefixItems validation adjusts the starting index for items",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    (
        "items.json",
        "items with heterogeneous array",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    // Outside the subset: `patternProperties`, `additionalProperties` schema.
    (
        "properties.json",
        "properties, patternProperties, additionalProperties interaction",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    // Outside the subset: a union of two non-null types.
    (
        "type.json",
        "multiple types can be specified in an array",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    (
        "type.json",
        "type: array or object",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
    (
        "type.json",
        "type: array, object or null",
        "TQX_SCHEMA_UNSUPPORTED",
    ),
];

/// Every `.json` file below `dir`, as paths relative to it, sorted.
fn json_files(dir: &Path, rel: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let entry = entry.expect("directory entry");
        let path = entry.path();
        let name = rel.join(entry.file_name());
        if path.is_dir() {
            json_files(&path, &name, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(name);
        }
    }
    out.sort();
}

#[test]
fn subset_agrees_with_the_official_suite() {
    let Some(suite) = locate(Suite::JsonSchemaTestSuite) else {
        return;
    };
    let dir = suite.join("draft2020-12");
    let mut files = Vec::new();
    json_files(&dir, Path::new(""), &mut files);
    assert!(
        files.len() >= 17,
        "expected the suite's keyword files in {}, found {files:?}",
        dir.display()
    );

    let (mut accepted, mut cases) = (0usize, 0usize);
    let mut rejected: Vec<(String, String, String, String)> = Vec::new();
    let mut disagreements: Vec<String> = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(dir.join(file)).expect("suite file");
        let groups: Vec<Value> = serde_json::from_str(&text).expect("suite JSON");
        let file = file.to_string_lossy().replace('\\', "/");
        let short = file.rsplit('/').next().unwrap_or(&file).to_owned();
        for group in groups {
            let description = group["description"].as_str().unwrap_or("").to_owned();
            let mut schema = group["schema"].clone();
            if let Value::Object(map) = &mut schema {
                map.remove("$schema");
            }
            let compiled = match compile_schema(&schema, "") {
                Ok(compiled) => compiled,
                Err(diags) => {
                    let first = &diags[0];
                    let more = match diags.len() - 1 {
                        0 => String::new(),
                        n => format!(" (+{n} more)"),
                    };
                    let reason = format!(
                        "{} at {:?}: {}{more}",
                        first.code,
                        first.json_pointer.as_deref().unwrap_or(""),
                        first.message
                    );
                    rejected.push((short.clone(), description, first.code.to_string(), reason));
                    continue;
                }
            };
            accepted += 1;
            for case in group["tests"].as_array().expect("tests") {
                cases += 1;
                let want = case["valid"].as_bool().expect("valid");
                let got = validate(&compiled, case["data"].as_value());
                if got.is_ok() != want {
                    disagreements.push(format!(
                        "{file} / {description} / {}: data {} expected valid={want}, got {got:?}",
                        case["description"].as_str().unwrap_or(""),
                        case["data"],
                    ));
                }
            }
        }
    }

    println!(
        "JSON Schema Test Suite: {accepted} schemas accepted ({cases} cases checked, {} disagreeing), {} rejected",
        disagreements.len(),
        rejected.len()
    );
    for (file, description, _, reason) in &rejected {
        println!("  rejected {file} / {description}: {reason}");
    }
    for d in &disagreements {
        println!("  DISAGREES {d}");
    }

    assert!(
        disagreements.is_empty(),
        "{} disagreements",
        disagreements.len()
    );
    assert!(accepted >= 55, "only {accepted} schemas accepted");
    let mut unexpected = Vec::new();
    for (file, description, code, reason) in &rejected {
        if !EXPECTED_REJECTIONS
            .iter()
            .any(|(f, d, c)| f == file && d == description && c == code)
        {
            unexpected.push(format!("{file} / {description}: {reason}"));
        }
    }
    for (f, d, c) in EXPECTED_REJECTIONS {
        if !rejected
            .iter()
            .any(|(file, description, _, _)| file == f && description == d)
        {
            unexpected.push(format!(
                "{f} / {d}: expected {c}, but the schema was accepted"
            ));
        }
    }
    assert!(
        unexpected.is_empty(),
        "rejections differ from EXPECTED_REJECTIONS:\n{}",
        unexpected.join("\n")
    );
}
