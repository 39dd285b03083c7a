//! Output recovery through the adapter port (`docs/runtime.md`, "Output
//! recovery"): off by default, a fenced, prose-wrapped or trailing-comma
//! answer fails with `TQX_OUTPUT_SCHEMA` as before; on, it is recovered,
//! validated like any other output and receipted with a
//! `TQX_OUTPUT_RECOVERED` warning; a recovered value that violates the
//! schema still fails, and no type is coerced.

use crate::common::*;
use serde_json::json;
use templiqx::contracts::canonical::fingerprint;
use templiqx::contracts::diagnostic::Severity;
use templiqx::contracts::{JsonType, Schema, Seq, Str};
use templiqx::{
    AdapterDescriptor, AdapterOutput, Code, Interaction, Json, OutputRecovery, Receipt,
    RenderedInteraction, RuntimeAdapter, RuntimeFailure, StreamEvent,
};

/// A model without constrained decoding: answers `text`, which the adapter
/// hands on as a JSON string when it is not JSON (as the HTTP adapters do).
struct Texted {
    descriptor: AdapterDescriptor,
    text: String,
    recovery: OutputRecovery,
}

impl Texted {
    fn new(text: &str, recovery: OutputRecovery) -> Texted {
        Texted {
            descriptor: AdapterDescriptor::new("texted", ["structured_output"]),
            text: text.to_owned(),
            recovery,
        }
    }
}

impl RuntimeAdapter for Texted {
    fn descriptor(&self) -> &AdapterDescriptor {
        &self.descriptor
    }

    fn invoke(&self, _: &RenderedInteraction<'_>) -> Result<AdapterOutput, RuntimeFailure> {
        let output = templiqx::contracts::json::parse(&self.text)
            .unwrap_or_else(|_| Json::String(self.text.clone()));
        Ok(AdapterOutput {
            output,
            usage: None,
        })
    }

    fn output_recovery(&self) -> OutputRecovery {
        self.recovery
    }
}

/// Output `{name: string, age: integer}`, both required, closed.
fn person() -> Interaction {
    let mut i = interaction(vec![], vec![], vec![vec![text("Who?")]], vec![]);
    i.output_schema = Schema {
        properties: Seq::Owned(vec![
            (Str::Borrowed("age"), typed(JsonType::Integer)),
            (Str::Borrowed("name"), typed(JsonType::String)),
        ]),
        required: Seq::Owned(vec![Str::Borrowed("age"), Str::Borrowed("name")]),
        additional_properties: false,
        ..typed(JsonType::Object)
    };
    i
}

fn run(
    i: &Interaction,
    text: &str,
    recovery: OutputRecovery,
) -> Result<templiqx::Execution, templiqx::ExecutionError> {
    let request = templiqx::render(i, &obj(json!({})), &obj(json!({}))).expect("renders");
    Texted::new(text, recovery).execute(&request)
}

const FENCED: &str = "Here is the JSON:\n\n```json\n{\"name\": \"Ada\", \"age\": 36}\n```\n";
const PROSE: &str = "Sure! The person is {\"name\": \"Ada\", \"age\": 36}. Anything else?";
const TRAILING: &str = "{\"name\": \"Ada\", \"age\": 36,}";

#[test]
fn off_by_default_a_wrapped_answer_fails_as_before() {
    let i = person();
    for text in [FENCED, PROSE, TRAILING] {
        let error = run(&i, text, OutputRecovery::default()).unwrap_err();
        assert_eq!(error.failure.code, Code::OutputSchema, "{text}");
        assert_eq!(error.output, Some(Json::String(text.to_owned())));
        // The receipt is the normalised one over the text's fingerprint.
        assert_eq!(
            error.receipt,
            Receipt::for_output("", &fingerprint(&Json::String(text.to_owned())), false)
        );
        assert!(
            error
                .diagnostics
                .iter()
                .all(|d| d.code == Code::OutputSchema),
            "{:?}",
            error.diagnostics
        );
    }
}

#[test]
fn fenced_prose_and_trailing_comma_answers_are_recovered_with_a_warning() {
    let i = person();
    let expected = Json::from(json!({"name": "Ada", "age": 36}));
    for (text, steps) in [
        (FENCED, "fence"),
        (PROSE, "prose"),
        (TRAILING, "trailing_commas"),
    ] {
        let execution = run(&i, text, OutputRecovery::On).unwrap();
        assert_eq!(execution.output, expected, "{text}");
        let Receipt::Success {
            output_fingerprint,
            diagnostics,
            ..
        } = &execution.receipt
        else {
            panic!("{:?}", execution.receipt)
        };
        assert_eq!(*output_fingerprint, fingerprint(&expected));
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        let warning = &diagnostics[0];
        assert_eq!(warning.code, Code::OutputRecovered);
        assert_eq!(warning.code.as_str(), "TQX_OUTPUT_RECOVERED");
        assert_eq!(warning.severity, Severity::Warning);
        assert_eq!(warning.notes, [format!("recovery steps: {steps}")]);
        // It says what was done, and quotes nothing of the text.
        assert!(!warning.message.contains("Ada"), "{}", warning.message);
        // The receipt's JSON and fingerprint carry it.
        let receipt = serde_json::to_value(&execution.receipt).unwrap();
        assert_eq!(receipt["diagnostics"][0]["code"], "TQX_OUTPUT_RECOVERED");
        assert_eq!(receipt["diagnostics"][0]["severity"], "warning");
        let plain = Receipt::for_output(
            &templiqx::render(&i, &obj(json!({})), &obj(json!({})))
                .unwrap()
                .request_fingerprint(),
            &fingerprint(&expected),
            true,
        );
        assert_ne!(execution.receipt.fingerprint(), plain.fingerprint());
        assert_eq!(
            execution.receipt.fingerprint(),
            fingerprint(&json!({
                "outcome": "success",
                "request_fingerprint": receipt["request_fingerprint"],
                "output_fingerprint": fingerprint(&expected),
                "output_schema_valid": true,
                "diagnostics": ["TQX_OUTPUT_RECOVERED"],
            }))
        );
        // It reads back.
        let back: Receipt = serde_json::from_value(receipt).unwrap();
        assert_eq!(back, execution.receipt);
    }
}

#[test]
fn a_receipt_without_warnings_reads_writes_and_fingerprints_as_before() {
    let old = json!({"outcome": "success", "request_fingerprint": "r", "output_fingerprint": "o",
                     "output_schema_valid": true});
    let receipt: Receipt = serde_json::from_value(old.clone()).unwrap();
    assert!(receipt.diagnostics().is_empty());
    assert_eq!(serde_json::to_value(&receipt).unwrap(), old);
    assert_eq!(receipt.fingerprint(), fingerprint(&old));
}

#[test]
fn a_valid_answer_is_not_touched() {
    let i = person();
    let execution = run(&i, r#"{"name": "Ada", "age": 36}"#, OutputRecovery::On).unwrap();
    assert!(execution.receipt.diagnostics().is_empty());
}

#[test]
fn a_recovered_value_that_violates_the_schema_still_fails() {
    let i = person();
    let error = run(&i, "```json\n{\"name\": \"Ada\"}\n```", OutputRecovery::On).unwrap_err();
    assert_eq!(error.failure.code, Code::OutputSchema);
    // Validated like any other output: its violation at its pointer, then
    // the warning saying what recovery did.
    assert_eq!(error.diagnostics.len(), 2, "{:?}", error.diagnostics);
    assert_eq!(error.diagnostics[0].code, Code::OutputSchema);
    assert!(
        error.diagnostics[0].message.contains("age"),
        "{:?}",
        error.diagnostics[0]
    );
    assert_eq!(error.diagnostics[1].code, Code::OutputRecovered);
    let recovered = Json::from(json!({"name": "Ada"}));
    assert_eq!(error.output, Some(recovered.clone()));
    assert_eq!(
        error.receipt,
        Receipt::for_output("", &fingerprint(&recovered), false)
    );
}

#[test]
fn a_type_the_schema_does_not_allow_is_not_coerced() {
    let i = person();
    // The age in quotes is a string: recovery takes the JSON out of the
    // fence but never turns "36" into 36.
    let error = run(
        &i,
        "```\n{\"name\": \"Ada\", \"age\": \"36\"}\n```",
        OutputRecovery::On,
    )
    .unwrap_err();
    assert_eq!(error.failure.code, Code::OutputSchema);
    assert_eq!(error.diagnostics[0].json_pointer.as_deref(), Some("/age"));
    assert_eq!(
        error.output,
        Some(Json::from(json!({"name": "Ada", "age": "36"})))
    );
    // Nor is a bare word read as a string, or a number as a string.
    for text in [
        "{name: Ada, age: 36}",
        "```\n{\"name\": 7, \"age\": 36}\n```",
    ] {
        let error = run(&i, text, OutputRecovery::On).unwrap_err();
        assert_eq!(error.failure.code, Code::OutputSchema, "{text}");
    }
}

#[test]
fn the_streamed_complete_event_carries_the_recovered_receipt() {
    let i = person();
    let request = templiqx::render(&i, &obj(json!({})), &obj(json!({}))).unwrap();
    let mut events = Vec::new();
    let execution = Texted::new(FENCED, OutputRecovery::On)
        .execute_streaming(&request, &mut |e| events.push(e))
        .unwrap();
    let Some(StreamEvent::Complete { receipt }) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(*receipt, execution.receipt);
    assert_eq!(receipt.diagnostics()[0].code, Code::OutputRecovered);
}

/// The failure's output is the text as given, and nothing was recovered.
fn fails_unrecovered(i: &Interaction, text: &str) -> templiqx::ExecutionError {
    let error = run(i, text, OutputRecovery::On).unwrap_err();
    assert_eq!(error.failure.code, Code::OutputSchema, "{text}");
    assert_eq!(error.output, Some(Json::String(text.to_owned())), "{text}");
    assert!(
        error
            .diagnostics
            .iter()
            .all(|d| d.code != Code::OutputRecovered),
        "{text}: {:?}",
        error.diagnostics
    );
    error
}

#[test]
fn a_value_inside_a_broken_enclosing_value_is_never_the_output() {
    // A valid output that is a member value or an item of a wrapper that
    // is not JSON: taking it would drop the wrapper's other keys.
    let i = person();
    for text in [
        r#"{"result": {"name": "Ada", "age": 36}, "confidence": high}"#,
        r#"Here: {"result": {"name": "Ada", "age": 36}, "confidence": high}. Done."#,
        r#"[{"name": "Ada", "age": 36}, maybe]"#,
        // Never closed: the rest of the text is inside it.
        r#"Answer: {"result": {"name": "Ada", "age": 36}"#,
        // Single quotes the repair cannot mend (an apostrophe in a
        // string): the inner object is not read out of it either.
        "{'title': 'Tenant's lease', 'tenant': {'name': 'Ada', 'age': 36}}",
    ] {
        fails_unrecovered(&i, text);
    }
    // An answer after a closed broken value is still found.
    let execution = run(
        &i,
        r#"Not {"this": one}. The answer: {"name": "Ada", "age": 36}"#,
        OutputRecovery::On,
    )
    .unwrap();
    assert_eq!(
        execution.output,
        Json::from(json!({"name": "Ada", "age": 36}))
    );
}

#[test]
fn another_complete_value_left_in_the_text_is_named_in_the_warning() {
    let i = person();
    // The first validates and is taken; the second differs.
    let text = "First {\"name\": \"Ada\", \"age\": 36}\nthen {\"name\": \"Bob\", \"age\": 40}";
    let execution = run(&i, text, OutputRecovery::On).unwrap();
    assert_eq!(
        execution.output,
        Json::from(json!({"name": "Ada", "age": 36}))
    );
    let warning = &execution.receipt.diagnostics()[0];
    assert_eq!(warning.code, Code::OutputRecovered);
    assert_eq!(
        warning.notes,
        [
            "recovery steps: prose".to_owned(),
            "another complete JSON value in the text was ignored, at byte 38 (line 2)".to_owned()
        ]
    );
    // A draft that does not validate before the answer, and a fenced
    // answer repeated in the prose: only values that differ are named.
    let text = "Draft: [1, 2]\n```json\n{\"name\": \"Ada\", \"age\": 36}\n```\n{\"name\": \"Ada\", \"age\": 36}";
    let execution = run(&i, text, OutputRecovery::On).unwrap();
    let warning = &execution.receipt.diagnostics()[0];
    assert_eq!(
        warning.notes[1],
        "another complete JSON value in the text was ignored, at byte 7 (line 1)"
    );
    assert_eq!(warning.notes.len(), 2, "{:?}", warning.notes);
    // One value alone: no such note.
    let execution = run(&i, PROSE, OutputRecovery::On).unwrap();
    assert_eq!(execution.receipt.diagnostics()[0].notes.len(), 1);
}

#[test]
fn the_start_cap_is_said_and_brackets_that_open_nothing_do_not_count() {
    let i = person();
    let answer = r#"{"name": "Ada", "age": 36}"#;
    // A hundred braces that cannot open a value (`{x`, `{ }`-less prose)
    // are not candidates: the answer after them is found.
    let text = format!("{}{answer}", "{placeholder} [see below] ".repeat(100));
    let execution = run(&i, &text, OutputRecovery::On).unwrap();
    assert_eq!(execution.receipt.diagnostics()[0].notes.len(), 1);

    // Seventy candidates that parse as a value the schema refuses: the
    // search stops at 64 and says so, on the warning of what it took.
    let notes: String = (0..70).map(|n| format!("note [{}] ", n % 10)).collect();
    let text = format!("{notes}{answer}");
    let error = run(&i, &text, OutputRecovery::On).unwrap_err();
    let warning = error.diagnostics.last().unwrap();
    assert_eq!(warning.code, Code::OutputRecovered);
    let stop = 64 * "note [1] ".len() + "note ".len();
    assert!(
        warning.notes.contains(&format!(
            "recovery stopped after 64 candidate starts: the text from byte {stop} (line 1) on was not searched"
        )),
        "{:?}",
        warning.notes
    );
    assert!(
        warning.notes.iter().any(|n| n.starts_with(
            // The 63 others less the six `[0]`s equal to the one taken.
            "57 other complete JSON values in the text were ignored, at byte 14 (line 1), "
        ) && n.ends_with(", and 52 more")),
        "{:?}",
        warning.notes
    );

    // Seventy candidates that parse as nothing, even repaired: nothing
    // is recovered, and the failure says where the search stopped.
    let text = format!("{}{answer}", "{\"k\": oops} ".repeat(70));
    let error = fails_unrecovered(&i, &text);
    let stop = 64 * "{\"k\": oops} ".len();
    assert_eq!(
        error.diagnostics[0].notes.last().unwrap(),
        &format!(
            "recovery stopped after 64 candidate starts: the text from byte {stop} (line 1) on was not searched"
        )
    );
}
