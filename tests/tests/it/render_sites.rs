//! Render-time failures point at the contract node that failed: its file,
//! JSON Pointer and line, with the request pointer of the value (when there
//! is one) as the first note. The same sites reach generated code, which
//! embeds them as static data.

use crate::common;

use serde_json::{Value, json};
use templiqx_contracts::{Code, Diagnostic};

const FILE: &str = "contracts/render_sites.yaml";
const TEXT: &str = include_str!("../../contracts/render_sites.yaml");

templiqx::include_contract!(
    "contracts/render_sites.yaml",
    target = ["structured_output"]
);

fn compiled() -> templiqx_contracts::Interaction {
    let c = templiqx_build::compile_str(TEXT, FILE, &common::structured_output());
    c.interaction.expect("the contract compiles")
}

/// The 1-based line of the only line of the contract containing `needle`.
fn line_of(needle: &str) -> u32 {
    let lines: Vec<usize> = TEXT
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(lines.len(), 1, "`{needle}` is on lines {lines:?}");
    u32::try_from(lines[0]).unwrap()
}

/// Renders `request` through the compiled interaction and through the
/// generated code, asserts both fail with one identical diagnostic, and
/// returns it.
fn failure(request: Value) -> Diagnostic {
    let i = compiled();
    let inputs = request["inputs"].as_object().unwrap();
    let e = templiqx::render(&i, inputs, &serde_json::Map::new()).unwrap_err();
    assert_eq!(e.diagnostics.len(), 1, "{:?}", e.diagnostics);
    let typed: render_sites::Inputs = serde_json::from_value(request["inputs"].clone()).unwrap();
    let generated = render_sites::render(&typed, &render_sites::Context {}).unwrap_err();
    assert_eq!(
        generated.diagnostics, e.diagnostics,
        "generated code agrees"
    );
    e.diagnostics.into_iter().next().unwrap()
}

#[track_caller]
fn assert_at(d: &Diagnostic, code: Code, pointer: &str, needle: &str, first_note: Option<&str>) {
    assert_eq!(d.code, code, "{d}");
    assert_eq!(d.file.as_deref(), Some(FILE), "{d}");
    assert_eq!(d.json_pointer.as_deref(), Some(pointer), "{d}");
    let span = d.span.expect("a span");
    assert_eq!(span.start.line, line_of(needle), "{d}");
    match first_note {
        Some(note) => assert_eq!(d.notes.first().map(String::as_str), Some(note), "{d}"),
        None => assert!(!d.notes.iter().any(|n| n.contains("in the request")), "{d}"),
    }
}

fn request(due: &str, mode: &str) -> Value {
    json!({ "inputs": { "due": due, "mode": mode, "xs": [1, 2] } })
}

#[test]
fn generated_code_embeds_the_same_sites() {
    let i = compiled();
    assert!(!i.sites.is_empty());
    assert_eq!(render_sites::INTERACTION.sites.to_vec(), i.sites.to_vec());
    // Sites are not part of the fingerprint.
    assert_eq!(
        render_sites::INTERACTION_FINGERPRINT,
        i.interaction_fingerprint
    );
    let ok = templiqx::render(
        &i,
        request("2026-07-12", "plain")["inputs"]
            .as_object()
            .unwrap(),
        &serde_json::Map::new(),
    );
    assert_eq!(ok.unwrap().messages[1].content, "2026-07-12..");
}

#[test]
fn a_filter_failure_points_at_the_interpolation() {
    let d = failure(request("2026-02-30", "plain"));
    assert_at(
        &d,
        Code::FilterInput,
        "/messages/1/content/0",
        "filters: [format_date]",
        Some("the value is at `/inputs/due` in the request"),
    );
}

#[test]
fn an_absent_optional_input_points_at_its_reference() {
    let d = failure(request("2026-07-12", "nick"));
    assert_at(
        &d,
        Code::ValueMissing,
        "/messages/1/content/2/then/0",
        "path: inputs.nick",
        Some("the value is at `/inputs/nick` in the request"),
    );
}

#[test]
fn an_omitted_component_argument_points_into_the_component_body() {
    let d = failure(request("2026-07-12", "tag"));
    assert_at(
        &d,
        Code::ValueMissing,
        "/components/tag/content/0/then/0",
        "path: label",
        None,
    );
}

#[test]
fn budgets_point_at_the_node_that_spends_them() {
    let mut r = request("2026-07-12", "plain");
    r["inputs"]["xs"] = Value::Array(vec![json!(0); 100_001]);
    let d = failure(r);
    assert_at(
        &d,
        Code::RenderBudget,
        "/messages/1/content/3",
        "kind: for_each",
        None,
    );

    let mut r = request("2026-07-12", "big");
    r["inputs"]["big"] = json!("x".repeat(5 * 1024 * 1024));
    let d = failure(r);
    assert_at(
        &d,
        Code::RenderBudget,
        "/messages/1/content/4/then/0",
        "path: inputs.big",
        None,
    );
}
