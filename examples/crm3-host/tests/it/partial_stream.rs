//! The typed partial output of a streamed call (`docs/runtime.md`, "Typed
//! streaming"; `docs/format.md`, "Partial types"): the CRM3 extraction,
//! answered by a fake OpenAI-compatible server on loopback one character
//! per delta, shows `PartialOutput` snapshots that obey the rules and end
//! equal to the decoded output.

use crm3_host::lease_term_extraction as extraction;
use extraction::partial;
use templiqx::{StreamEvent, Streamed};
use templiqx_openai::{OpenAiAdapter, OpenAiConfig};

/// `next` only adds to `prev`: a string grows from its text so far.
fn grows(prev: &Option<String>, next: &Option<String>, what: &str) {
    if let Some(p) = prev {
        let n = next.as_ref().unwrap_or_else(|| panic!("{what} went away"));
        assert!(n.starts_with(p.as_str()), "{what}: {p:?} -> {n:?}");
    }
}

/// A value shown once complete never changes, and is the final value.
fn final_once_shown<T: PartialEq + std::fmt::Debug>(
    prev: &Option<T>,
    next: &Option<T>,
    last: &T,
    what: &str,
) {
    if let Some(n) = next {
        assert_eq!(n, last, "{what} showed before it was complete");
    }
    if prev.is_some() {
        assert_eq!(prev, next, "{what} changed after it was complete");
    }
}

fn follows(prev: &partial::Output, next: &partial::Output, last: &extraction::Output) {
    grows(&prev.start_date, &next.start_date, "start_date");
    grows(&prev.end_date, &next.end_date, "end_date");
    final_once_shown(
        &prev.monthly_rent,
        &next.monthly_rent,
        &last.monthly_rent,
        "monthly_rent",
    );
    final_once_shown(
        &prev.notice_days,
        &next.notice_days,
        &last.notice_days,
        "notice_days",
    );
    let (Some(p), n) = (&prev.evidence, &next.evidence) else {
        return;
    };
    let n = n.as_ref().expect("evidence went away");
    assert!(n.len() >= p.len(), "evidence shrank");
    for (i, (a, b)) in p.iter().zip(n).enumerate() {
        let whole = &last.evidence[i];
        final_once_shown(&a.field, &b.field, &whole.field, "evidence field");
        grows(&a.document_id, &b.document_id, "document_id");
        grows(&a.fragment_id, &b.fragment_id, "fragment_id");
        grows(&a.quote_sha256, &b.quote_sha256, "quote_sha256");
        final_once_shown(
            &a.start_offset,
            &b.start_offset,
            &whole.start_offset,
            "start_offset",
        );
        final_once_shown(
            &a.end_offset,
            &b.end_offset,
            &whole.end_offset,
            "end_offset",
        );
    }
}

/// The decoded output, field by field, as a complete partial output.
fn as_partial(o: &extraction::Output) -> partial::Output {
    partial::Output {
        start_date: Some(o.start_date.clone()),
        end_date: Some(o.end_date.clone()),
        monthly_rent: Some(o.monthly_rent),
        notice_days: Some(o.notice_days),
        evidence: Some(
            o.evidence
                .iter()
                .map(|e| partial::EvidenceItem {
                    field: Some(e.field),
                    document_id: Some(e.document_id.clone()),
                    fragment_id: Some(e.fragment_id.clone()),
                    start_offset: Some(e.start_offset),
                    end_offset: Some(e.end_offset),
                    quote_sha256: Some(e.quote_sha256.clone()),
                })
                .collect(),
        ),
    }
}

#[test]
fn a_streamed_extraction_in_one_character_deltas_shows_typed_partials_by_the_rules() {
    let fixture = extraction::EVALS
        .iter()
        .find(|f| f.id == "fixed-term-lease")
        .unwrap();
    let inputs: extraction::Inputs = fixture.inputs().unwrap();
    let context: extraction::Context = fixture.context().unwrap();
    // The fixture's output as a model writes it: indented, so white space
    // sits between values too.
    let answer: serde_json::Value =
        serde_json::from_str(fixture.fake_output_json.as_deref().unwrap()).unwrap();
    let text = serde_json::to_string_pretty(&answer).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (base, _fake) = runtime.block_on(templiqx_fake_provider::serve(
        "/v1/chat/completions",
        vec![templiqx_fake_provider::openai_deltas(&text, 1)],
    ));
    let adapter =
        OpenAiAdapter::new(OpenAiConfig::new(format!("{base}/v1"), "fake-model")).unwrap();

    let mut deltas = 0;
    let mut snapshots: Vec<(partial::Output, Option<String>)> = Vec::new();
    let mut order = Vec::new();
    let executed = runtime
        .block_on(extraction::execute_partial_async(
            &adapter,
            &inputs,
            &context,
            &mut |event| match event {
                Streamed::Event(e) => {
                    if matches!(e, StreamEvent::Delta { .. }) {
                        deltas += 1;
                    }
                    order.push(if matches!(e, StreamEvent::Complete { .. }) {
                        'C'
                    } else {
                        'e'
                    });
                }
                Streamed::Partial(s) => {
                    order.push('p');
                    snapshots.push((s.output.clone(), s.writing.map(str::to_owned)));
                }
            },
        ))
        .unwrap();
    let output = executed.output;
    assert_eq!(deltas, text.chars().count(), "one delta per character");
    assert_eq!(order.last(), Some(&'C'), "the terminal event comes last");
    assert!(!order.starts_with(&['p']), "a snapshot follows its delta");

    // Many snapshots, each following the one before by the rules.
    assert!(snapshots.len() > 100, "{} snapshots", snapshots.len());
    let mut prev = partial::Output::default();
    for (next, _) in &snapshots {
        follows(&prev, next, &output);
        prev = next.clone();
    }
    // Partway: a date half written and said to be written; no rent yet
    // while its digits arrive.
    assert!(snapshots.iter().any(|(s, w)| {
        s.start_date.as_deref() == Some("2026-0") && w.as_deref() == Some("/start_date")
    }));
    assert!(
        snapshots
            .iter()
            .any(|(s, w)| { s.monthly_rent.is_none() && w.as_deref() == Some("/monthly_rent") })
    );
    // An evidence item half written: its quote growing, inside the array.
    assert!(snapshots.iter().any(|(s, w)| {
        w.as_deref() == Some("/evidence/2/quote_sha256")
            && s.evidence.as_ref().is_some_and(|e| {
                e.len() == 3 && e[2].quote_sha256.as_ref().is_some_and(|q| q.len() < 64)
            })
    }));
    // The last snapshot is the decoded output, and nothing is being written.
    let (last, writing) = snapshots.last().unwrap();
    assert_eq!(last, &as_partial(&output));
    assert_eq!(writing, &None);
    assert_eq!(output, extraction::decode_output(&answer).unwrap());
}
