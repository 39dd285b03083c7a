//! The parser's rules (`docs/mock.md`, "Format notes": steps and typed
//! streams): one test per rejection rule, each checking the code, the JSON
//! Pointer and what the message names.

use serde_json::{Value, json};
use templiqx_contracts::Code;
use templiqx_mock::{MockError, ScenarioManifest, ScenarioStep, ScenarioStreamEvent};

/// A success manifest with a delay, written as the external corpus's
/// `intake-document-01` is (`docs/mock.md`, "Manifest fields").
fn steps_manifest() -> Value {
    json!({
        "api_version": "templiqx.mock/v1alpha1",
        "id": "intake-document-01",
        "contract": "bli-61-date-term-extraction",
        "kind": "happy_path",
        "input": "../../evals/bli-61-request.json",
        "expected_output": "../../evals/bli-61-output.json",
        "expected_output_fingerprint": "66d6c3fbb03611b4b22deabbe9ef669e5ad69f59c1e90be4dee92d9c3a5188de",
        "expected_diagnostics": [],
        "receipt_payload_policy": "fingerprints_only",
        "steps": [
            { "id": "request-received", "kind": "request_received" },
            { "id": "runtime-latency", "kind": "delay", "delay_ms": 25 },
            { "id": "runtime-success", "kind": "runtime_success", "output_schema_valid": true }
        ]
    })
}

/// The same manifest with a typed stream instead of steps.
fn events_manifest() -> Value {
    let mut m = steps_manifest();
    let o = m.as_object_mut().unwrap();
    o.remove("steps");
    o.insert(
        "events".into(),
        json!([
            {"kind": "start", "id": "s"},
            {"kind": "reasoning", "id": "r", "text": "ground facts"},
            {"kind": "delta", "id": "d", "text": "\"result\""},
            {"kind": "usage", "id": "u", "input_tokens": 2, "output_tokens": 1},
            {"kind": "end", "id": "e"},
            {"kind": "finish", "id": "f", "output_schema_valid": true}
        ]),
    );
    m
}

fn parse(v: &Value) -> Result<ScenarioManifest, MockError> {
    ScenarioManifest::from_json(&v.to_string())
}

/// Asserts that `v` is rejected with a diagnostic of `code` at `pointer`
/// whose message contains `needle`.
#[track_caller]
fn rejects(v: &Value, code: Code, pointer: &str, needle: &str) {
    let error = parse(v).expect_err("the manifest must be rejected");
    assert!(
        error.diagnostics.iter().any(|d| d.code == code
            && d.json_pointer.as_deref() == Some(pointer)
            && d.message.contains(needle)
            && d.help.is_some()),
        "expected {code} at {pointer:?} containing {needle:?}, got:\n{error}"
    );
}

fn set(v: &mut Value, pointer: &str, value: Value) {
    *v.pointer_mut(pointer).expect("pointer exists") = value;
}

#[test]
fn the_example_manifests_parse() {
    let m = parse(&steps_manifest()).unwrap();
    assert_eq!(m.steps.as_ref().unwrap().len(), 3);
    assert!(matches!(
        m.steps.as_ref().unwrap()[1],
        ScenarioStep::Delay { delay_ms: 25, .. }
    ));
    let m = parse(&events_manifest()).unwrap();
    assert!(matches!(
        m.events.as_ref().unwrap()[5],
        ScenarioStreamEvent::Finish {
            output_schema_valid: true,
            ..
        }
    ));
    // Diagnostics name the scenario.
    let mut v = steps_manifest();
    set(&mut v, "/steps", json!([]));
    assert!(
        parse(&v).unwrap_err().diagnostics[0]
            .message
            .starts_with("scenario `intake-document-01`: ")
    );
}

#[test]
fn empty_steps_are_rejected() {
    let mut v = steps_manifest();
    set(&mut v, "/steps", json!([]));
    rejects(&v, Code::Scenario, "/steps", "`steps` is empty");
}

#[test]
fn duplicate_step_ids_are_rejected() {
    let mut v = steps_manifest();
    set(&mut v, "/steps/1/id", json!("request-received"));
    rejects(
        &v,
        Code::Scenario,
        "/steps/1/id",
        "duplicate step id `request-received`",
    );
}

#[test]
fn an_unsupported_api_version_is_rejected_alone() {
    let mut v = steps_manifest();
    set(&mut v, "/api_version", json!("templiqx.mock/v2"));
    // A field of the other version is not reported as unknown.
    v["future_field"] = json!(true);
    let error = parse(&v).unwrap_err();
    assert_eq!(error.diagnostics.len(), 1, "{error}");
    rejects(&v, Code::ApiVersion, "/api_version", "templiqx.mock/v2");
}

#[test]
fn unknown_fields_are_rejected_everywhere() {
    let mut v = steps_manifest();
    v["notes"] = json!("x");
    rejects(&v, Code::UnknownField, "/notes", "unknown field `notes`");
    let mut v = steps_manifest();
    v["steps"][1]["jitter_ms"] = json!(3);
    rejects(
        &v,
        Code::UnknownField,
        "/steps/1/jitter_ms",
        "unknown field `jitter_ms`",
    );
    let mut v = steps_manifest();
    set(
        &mut v,
        "/steps/2",
        json!({"id": "x", "kind": "runtime_failure",
               "failure": {"code": "TQX_RUNTIME_PERMANENT", "reason": "r"}}),
    );
    rejects(
        &v,
        Code::UnknownField,
        "/steps/2/failure/reason",
        "unknown field `reason`",
    );
    let mut v = steps_manifest();
    v["evidence"] = json!([{"document_id": "d", "fragment_id": "f",
        "quote_sha256": "4520d61c576b45c2fdaf7351002217dcee1f93eefa11615451c008750c5e842f", "page": 1}]);
    rejects(
        &v,
        Code::UnknownField,
        "/evidence/0/page",
        "unknown field `page`",
    );
    // Closed sets: kinds and codes.
    let mut v = steps_manifest();
    set(&mut v, "/kind", json!("sad_path"));
    rejects(&v, Code::UnknownVariant, "/kind", "sad_path");
    let mut v = steps_manifest();
    set(&mut v, "/expected_diagnostics", json!(["TQX_NOPE"]));
    rejects(
        &v,
        Code::UnknownVariant,
        "/expected_diagnostics/0",
        "TQX_NOPE",
    );
}

#[test]
fn a_delay_before_request_received_is_rejected() {
    let mut v = steps_manifest();
    let steps = v["steps"].as_array_mut().unwrap();
    steps.swap(0, 1);
    rejects(
        &v,
        Code::Scenario,
        "/steps/0",
        "delay `runtime-latency` comes before `request_received`",
    );
}

#[test]
fn a_delay_without_delay_ms_is_rejected() {
    let mut v = steps_manifest();
    v["steps"][1].as_object_mut().unwrap().remove("delay_ms");
    rejects(
        &v,
        Code::MissingField,
        "/steps/1",
        "missing field `delay_ms`",
    );
}

/// The one diagnostic of rejecting `error`'s manifest: its code, message
/// and pointer.
#[track_caller]
fn only(error: &MockError) -> (Code, &str, Option<&str>) {
    assert_eq!(error.diagnostics.len(), 1, "{error}");
    let d = &error.diagnostics[0];
    (d.code, d.message.as_str(), d.json_pointer.as_deref())
}

#[test]
fn a_null_is_called_null_where_it_stands() {
    // serde's data model calls JSON's `null` a "unit value"; the message
    // says `null`, at the null's own pointer, whatever the nesting.
    let null_u64 = "invalid type: null, expected u64";
    let mut v = steps_manifest();
    set(&mut v, "/steps/1/delay_ms", Value::Null);
    assert_eq!(
        only(&parse(&v).unwrap_err()),
        (Code::InvalidType, null_u64, Some("/steps/1/delay_ms"))
    );
    let mut v = events_manifest();
    set(&mut v, "/events/3/output_tokens", Value::Null);
    assert_eq!(
        only(&parse(&v).unwrap_err()),
        (Code::InvalidType, null_u64, Some("/events/3/output_tokens"))
    );
    let mut v = steps_manifest();
    set(&mut v, "/id", Value::Null);
    assert_eq!(
        only(&parse(&v).unwrap_err()),
        (
            Code::InvalidType,
            "invalid type: null, expected a string",
            Some("/id")
        )
    );
    // YAML's `null` and `~` alike, with the span of the value.
    for null in ["null", "~"] {
        let yaml = format!(
            "
api_version: templiqx.mock/v1alpha1
id: y
contract: c
kind: failure
expected_failure: TQX_RUNTIME_TIMEOUT
receipt_payload_policy: no_successful_receipt
steps:
  - {{ id: a, kind: request_received }}
  - {{ id: b, kind: delay, delay_ms: {null} }}
  - {{ id: c, kind: runtime_failure, failure: {{ code: TQX_RUNTIME_TIMEOUT }} }}
"
        );
        let error = ScenarioManifest::from_yaml(&yaml).unwrap_err();
        assert_eq!(
            only(&error),
            (Code::InvalidType, null_u64, Some("/steps/1/delay_ms"))
        );
        let span = error.diagnostics[0].span.expect("a span");
        assert_eq!((span.start.line, span.start.column), (10, 37), "{null}");
    }
}

#[test]
fn a_delay_beyond_64_bits_is_out_of_range_where_it_stands() {
    // JSON text holds the integer exactly; `u64` cannot, and says so in
    // serde's words, with the value's pointer and line:column.
    let mut v = steps_manifest();
    set(&mut v, "/steps/1/delay_ms", json!(424242));
    let text = serde_json::to_string_pretty(&v)
        .unwrap()
        .replace("424242", "100000000000000000001");
    let error = ScenarioManifest::from_json(&text).expect_err("out of range");
    let d = &error.diagnostics[0];
    assert_eq!(d.code, Code::InvalidValue);
    assert_eq!(
        d.message,
        "invalid value: integer `100000000000000000001`, expected u64"
    );
    assert_eq!(d.json_pointer.as_deref(), Some("/steps/1/delay_ms"));
    let line = text.lines().position(|l| l.contains("1000000")).unwrap() + 1;
    assert_eq!(d.span.map(|s| s.start.line as usize), Some(line));
    // Two in one step: serde names neither, the message still says what.
    let mut v = events_manifest();
    set(
        &mut v,
        "/events/2",
        json!({"kind": "usage", "id": "u", "input_tokens": 424241, "output_tokens": 424242}),
    );
    let text = v
        .to_string()
        .replace("424241", "100000000000000000001")
        .replace("424242", "100000000000000000002");
    let error = ScenarioManifest::from_json(&text).expect_err("out of range");
    let d = &error.diagnostics[0];
    assert_eq!(d.code, Code::InvalidValue);
    assert_eq!(
        d.message,
        "invalid value: an integer beyond 64 bits, expected u64"
    );
    assert_eq!(d.json_pointer.as_deref(), Some("/events/2"));
}

#[test]
fn a_delay_of_zero_is_rejected() {
    let mut v = steps_manifest();
    set(&mut v, "/steps/1/delay_ms", json!(0));
    rejects(&v, Code::Scenario, "/steps/1/delay_ms", "`delay_ms: 0`");
}

#[test]
fn a_terminal_step_before_request_received_is_rejected() {
    let mut v = steps_manifest();
    set(
        &mut v,
        "/steps",
        json!([{"id": "done", "kind": "runtime_success", "output_schema_valid": true}]),
    );
    rejects(
        &v,
        Code::Scenario,
        "/steps/0",
        "terminal step `done` comes before `request_received`",
    );
    set(
        &mut v,
        "/steps",
        json!([{"id": "failed", "kind": "runtime_failure",
                "failure": {"code": "TQX_RUNTIME_PERMANENT"}}]),
    );
    rejects(
        &v,
        Code::Scenario,
        "/steps/0",
        "terminal step `failed` comes before `request_received`",
    );
}

#[test]
fn a_step_after_runtime_success_is_rejected() {
    let mut v = steps_manifest();
    v["steps"]
        .as_array_mut()
        .unwrap()
        .push(json!({"id": "late", "kind": "delay", "delay_ms": 1}));
    rejects(
        &v,
        Code::Scenario,
        "/steps/3",
        "step `late` (delay) comes after the terminal step `runtime-success`",
    );
}

#[test]
fn a_step_after_runtime_failure_is_rejected() {
    let mut v = steps_manifest();
    set(
        &mut v,
        "/steps/2",
        json!({"id": "failed", "kind": "runtime_failure", "failure": {"code": "TQX_RUNTIME_TIMEOUT"}}),
    );
    v["steps"]
        .as_array_mut()
        .unwrap()
        .push(json!({"id": "second", "kind": "runtime_success", "output_schema_valid": true}));
    rejects(
        &v,
        Code::Scenario,
        "/steps/3",
        "step `second` (runtime_success) comes after the terminal step `failed`",
    );
}

#[test]
fn runtime_failure_without_a_failure_object_is_rejected() {
    let mut v = steps_manifest();
    set(
        &mut v,
        "/steps/2",
        json!({"id": "failed", "kind": "runtime_failure"}),
    );
    rejects(
        &v,
        Code::MissingField,
        "/steps/2",
        "missing field `failure`",
    );
}

#[test]
fn further_lifecycle_rules() {
    // Both or neither of steps and events.
    let mut both = events_manifest();
    both["steps"] = steps_manifest()["steps"].clone();
    rejects(&both, Code::Scenario, "/events", "mutually exclusive");
    let mut neither = steps_manifest();
    neither.as_object_mut().unwrap().remove("steps");
    rejects(&neither, Code::Scenario, "", "neither `steps` nor `events`");
    // No terminal step.
    let mut v = steps_manifest();
    v["steps"].as_array_mut().unwrap().pop();
    rejects(&v, Code::Scenario, "/steps", "no terminal step");
    // request_received twice.
    let mut v = steps_manifest();
    set(
        &mut v,
        "/steps/1",
        json!({"id": "again", "kind": "request_received"}),
    );
    rejects(
        &v,
        Code::Scenario,
        "/steps/1",
        "`request_received` appears twice",
    );
    // A failure code no runtime reports.
    let mut v = steps_manifest();
    set(
        &mut v,
        "/steps/2",
        json!({"id": "f", "kind": "runtime_failure", "failure": {"code": "TQX_OUTPUT_SCHEMA"}}),
    );
    v["expected_output"] = Value::Null;
    rejects(
        &v,
        Code::Scenario,
        "/steps/2/failure/code",
        "TQX_OUTPUT_SCHEMA",
    );
    // A success with nothing to return.
    let mut v = steps_manifest();
    v.as_object_mut().unwrap().remove("expected_output");
    v.as_object_mut()
        .unwrap()
        .remove("expected_output_fingerprint");
    rejects(&v, Code::Scenario, "/steps/2", "has no output");
}

#[test]
fn expectations_must_be_consistent() {
    let mut v = steps_manifest();
    v["expected_status"] = json!("success");
    v["expected_failure"] = json!("TQX_RUNTIME_PERMANENT");
    rejects(
        &v,
        Code::Scenario,
        "/expected_failure",
        "cannot expect the failure",
    );
    let mut v = steps_manifest();
    v["expected_status"] = json!("failure");
    rejects(
        &v,
        Code::Scenario,
        "/expected_failure",
        "must name its `expected_failure`",
    );
    let mut v = steps_manifest();
    v["expected_failure"] = json!("TQX_RUNTIME_PERMANENT");
    v["expected_diagnostics"] = json!(["TQX_RUNTIME_TIMEOUT"]);
    rejects(
        &v,
        Code::Scenario,
        "/expected_failure",
        "not among `expected_diagnostics`",
    );
    let mut v = steps_manifest();
    v["expected_diagnostics"] = json!(["TQX_OUTPUT_SCHEMA", "TQX_OUTPUT_SCHEMA"]);
    rejects(&v, Code::Scenario, "/expected_diagnostics/1", "twice");
    let mut v = steps_manifest();
    v["receipt_payload_policy"] = json!("no_successful_receipt");
    rejects(
        &v,
        Code::Scenario,
        "/receipt_payload_policy",
        "contradicts an expected success",
    );
    let mut v = steps_manifest();
    v["golden_receipt_fingerprint"] = json!("ABC");
    rejects(
        &v,
        Code::Scenario,
        "/golden_receipt_fingerprint",
        "not a fingerprint",
    );
    let mut v = steps_manifest();
    v["id"] = json!("has space");
    rejects(&v, Code::Scenario, "/id", "not a scenario id");
    let mut v = steps_manifest();
    v["document_expectation"] = json!({"status": "not_applicable", "unresolved_references": 2});
    rejects(
        &v,
        Code::Scenario,
        "/document_expectation/unresolved_references",
        "not_applicable",
    );
}

// --- Typed streams -------------------------------------------------------

fn with_events(events: Value) -> Value {
    let mut v = events_manifest();
    v["events"] = events;
    v
}

#[test]
fn a_stream_needs_a_unique_start() {
    let v = with_events(json!([
        {"kind": "start", "id": "s"}, {"kind": "start", "id": "s2"},
        {"kind": "delta", "id": "d", "text": "1"}, {"kind": "end", "id": "e"},
        {"kind": "finish", "id": "f", "output_schema_valid": true}
    ]));
    rejects(
        &v,
        Code::Scenario,
        "/events/1",
        "a second `start` event (`s2`)",
    );
    let v = with_events(json!([
        {"kind": "delta", "id": "d", "text": "1"}, {"kind": "end", "id": "e"},
        {"kind": "finish", "id": "f", "output_schema_valid": true}
    ]));
    rejects(&v, Code::Scenario, "/events", "no `start` event");
}

#[test]
fn an_empty_delta_is_rejected() {
    let mut v = events_manifest();
    set(&mut v, "/events/2/text", json!(""));
    rejects(
        &v,
        Code::Scenario,
        "/events/2/text",
        "`delta` event `d` is empty",
    );
}

#[test]
fn an_empty_reasoning_event_is_rejected() {
    let mut v = events_manifest();
    set(&mut v, "/events/1/text", json!(""));
    rejects(
        &v,
        Code::Scenario,
        "/events/1/text",
        "`reasoning` event `r` is empty",
    );
}

#[test]
fn an_empty_usage_event_is_rejected() {
    let mut v = events_manifest();
    set(&mut v, "/events/3/input_tokens", json!(0));
    set(&mut v, "/events/3/output_tokens", json!(0));
    rejects(
        &v,
        Code::Scenario,
        "/events/3",
        "`usage` event `u` reports no tokens",
    );
    let mut v = events_manifest();
    v["events"][3]
        .as_object_mut()
        .unwrap()
        .remove("output_tokens");
    rejects(
        &v,
        Code::MissingField,
        "/events/3",
        "missing field `output_tokens`",
    );
}

#[test]
fn end_comes_before_finish_and_nothing_else_after_end() {
    let mut v = events_manifest();
    v["events"].as_array_mut().unwrap().swap(4, 5);
    rejects(
        &v,
        Code::Scenario,
        "/events/4",
        "`finish` event `f` comes before `end`",
    );
    rejects(
        &v,
        Code::Scenario,
        "/events/5",
        "`end` event `e` comes after `finish`",
    );
    let mut v = events_manifest();
    v["events"].as_array_mut().unwrap().swap(3, 4);
    rejects(
        &v,
        Code::Scenario,
        "/events/4",
        "`usage` event `u` comes after `end`",
    );
}

#[test]
fn finish_before_start_is_rejected() {
    let v = with_events(json!([
        {"kind": "finish", "id": "f", "output_schema_valid": true},
        {"kind": "start", "id": "s"}, {"kind": "delta", "id": "d", "text": "1"},
        {"kind": "end", "id": "e"}
    ]));
    rejects(
        &v,
        Code::Scenario,
        "/events/0",
        "`finish` event `f` comes before `start`",
    );
}

#[test]
fn duplicate_event_ids_are_rejected() {
    let mut v = events_manifest();
    set(&mut v, "/events/2/id", json!("r"));
    rejects(&v, Code::Scenario, "/events/2/id", "duplicate event id `r`");
}

#[test]
fn missing_stream_terminals_are_rejected() {
    let mut v = events_manifest();
    v["events"].as_array_mut().unwrap().pop();
    rejects(&v, Code::Scenario, "/events", "no `finish` event");
    let mut v = events_manifest();
    v["events"].as_array_mut().unwrap().remove(4);
    rejects(
        &v,
        Code::Scenario,
        "/events/4",
        "`finish` event `f` comes before `end`",
    );
    let mut v = events_manifest();
    v["events"].as_array_mut().unwrap().truncate(4);
    rejects(&v, Code::Scenario, "/events", "no `end` event");
    rejects(&v, Code::Scenario, "/events", "no `finish` event");
}

#[test]
fn unknown_event_fields_are_rejected() {
    let mut v = events_manifest();
    v["events"][2]["logprobs"] = json!([]);
    rejects(
        &v,
        Code::UnknownField,
        "/events/2/logprobs",
        "unknown field `logprobs`",
    );
    let mut v = events_manifest();
    set(&mut v, "/events/2/kind", json!("tool_call"));
    rejects(
        &v,
        Code::UnknownVariant,
        "/events/2/kind",
        "unknown variant `tool_call`",
    );
}

#[test]
fn a_stream_without_an_output_is_rejected() {
    // No explicit finish output, and the deltas are not JSON.
    let mut v = events_manifest();
    set(&mut v, "/events/2/text", json!("result"));
    rejects(&v, Code::Scenario, "/events", "not one JSON document");
    // With an explicit output, any delta text will do.
    v["events"][5]["output"] = json!("result");
    parse(&v).unwrap();
}

/// The one diagnostic of a rejected manifest `v` with `code`.
#[track_caller]
fn rejection(v: &Value, code: Code) -> templiqx_contracts::Diagnostic {
    let error = parse(v).expect_err("the manifest must be rejected");
    let mut found = error.diagnostics.into_iter().filter(|d| d.code == code);
    let d = found.next().unwrap_or_else(|| panic!("no {code}"));
    assert!(found.next().is_none());
    d
}

#[test]
fn deltas_that_are_not_json_are_never_called_an_integer() {
    // A stream whose concatenated deltas start with `-` but are no number:
    // the JSON parser's message, not one about a 64-bit range.
    let mut v = events_manifest();
    set(&mut v, "/events/2/text", json!("- not json"));
    let d = rejection(&v, Code::Scenario);
    assert_eq!(d.json_pointer.as_deref(), Some("/events"));
    assert_eq!(
        d.message,
        "scenario `intake-document-01`: `finish` gives no `output` and the concatenated deltas are not one JSON document (invalid number, at line 1, column 2)"
    );
    assert!(!d.message.contains("64-bit"), "{}", d.message);
    assert_eq!(
        d.help.as_deref(),
        Some("stream the output's JSON text in the deltas, or give `finish` an explicit `output`")
    );
    // Malformed text holding a long run of digits is malformed, too.
    set(
        &mut v,
        "/events/2/text",
        json!("[99999999999999999999 oops"),
    );
    let d = rejection(&v, Code::Scenario);
    assert!(!d.message.contains("64-bit"), "{}", d.message);
    // Well-formed deltas with such an integer are an output like any
    // other: the integer keeps its digits.
    set(
        &mut v,
        "/events/2/text",
        json!("{\"n\": -99999999999999999999}"),
    );
    let manifest = parse(&v).expect("an integer beyond 64 bits is JSON");
    let events = manifest.events.as_deref().expect("a typed stream");
    let output = templiqx_mock::stream::aggregate(events).unwrap().output;
    assert_eq!(output.to_string(), r#"{"n":-99999999999999999999}"#);
}

#[test]
fn yaml_manifests_follow_the_same_rules_with_spans() {
    let yaml = r#"
api_version: templiqx.mock/v1alpha1
id: y
contract: c
kind: failure
expected_failure: TQX_RUNTIME_TIMEOUT
receipt_payload_policy: no_successful_receipt
steps:
  - { id: a, kind: request_received }
  - { id: b, kind: delay, delay_ms: 0 }
  - { id: c, kind: runtime_failure, failure: { code: TQX_RUNTIME_TIMEOUT } }
"#;
    let error = ScenarioManifest::from_yaml(yaml).unwrap_err();
    let d = &error.diagnostics[0];
    assert_eq!(d.code, Code::Scenario);
    assert_eq!(d.json_pointer.as_deref(), Some("/steps/1/delay_ms"));
    assert_eq!(d.span.map(|s| s.start.line), Some(10), "{d:?}");
    let error = ScenarioManifest::from_yaml("id: [unclosed").unwrap_err();
    assert_eq!(error.diagnostics[0].code, Code::ParseYaml);
    let error = ScenarioManifest::from_json("{\"id\": 1,}").unwrap_err();
    assert_eq!(error.diagnostics[0].code, Code::ParseJson);
}

#[test]
fn no_input_panics() {
    // A crude fuzz over truncations and byte flips of a valid manifest:
    // every outcome is a value or diagnostics, never a panic.
    let text = serde_json::to_string_pretty(&events_manifest()).unwrap();
    for cut in 0..text.len() {
        if text.is_char_boundary(cut) {
            let _ = ScenarioManifest::from_json(&text[..cut]);
            let _ = ScenarioManifest::from_yaml(&text[..cut]);
        }
    }
    let bytes = text.as_bytes();
    for i in 0..bytes.len() {
        let mut b = bytes.to_vec();
        b[i] = b[i].wrapping_add(1);
        if let Ok(t) = std::str::from_utf8(&b) {
            let _ = ScenarioManifest::from_json(t);
        }
    }
}
