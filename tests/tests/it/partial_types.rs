//! The generated partial types (`docs/format.md`, "Partial types") of a
//! contract of schema shapes, compiled here under `#![deny(warnings)]`:
//! followed one character at a time, a streamed output shows every field
//! `None` until it shows anything, strings growing, arrays growing by
//! whole items, numbers, enum values and `null` only once complete, open
//! objects keeping their extra members, and ends as the decoded output.

#![deny(warnings)]

use templiqx::{PartialStream, Snapshot};

templiqx::include_contract!("contracts/shapes.yaml", target = ["structured_output"]);

use shapes::partial;

/// The snapshots of `text` fed one character at a time: the partial
/// output and the value being written, after each change.
fn follow(text: &str) -> Vec<(partial::Output, Option<String>)> {
    let mut stream = PartialStream::<shapes::PartialOutput>::new();
    let mut seen = Vec::new();
    let mut buf = [0; 4];
    for c in text.chars() {
        let snapshot: Option<Snapshot<'_, _>> = stream.feed(c.encode_utf8(&mut buf));
        if let Some(s) = snapshot {
            seen.push((s.output.clone(), s.writing.map(str::to_owned)));
        }
    }
    seen
}

fn once<T: PartialEq + std::fmt::Debug>(prev: &Option<T>, next: &Option<T>, what: &str) {
    if prev.is_some() {
        assert_eq!(prev, next, "{what} changed once shown");
    }
}

#[test]
fn partial_types_follow_the_rules_and_end_as_the_decoded_output() {
    let text = r#"{"total": 1234, "mean": -2.5e1, "label": "high", "reference": null,
        "when": "2026-03-01", "marks": [7, null, 23],
        "items": [{"id": 1, "score": 0.5}, {"id": 22, "score": null}],
        "open": {"x": 3, "note": "kept", "deep": [true, {"k": "v"}]}}"#;
    let snapshots = follow(text);
    let output = shapes::decode_output(&templiqx::contracts::json::parse(text).unwrap()).unwrap();

    let mut prev = partial::Output::default();
    for (next, _) in &snapshots {
        once(&prev.total, &next.total, "total");
        assert!(
            next.total.is_none_or(|t| t == 1234),
            "a number only once complete"
        );
        once(&prev.mean, &next.mean, "mean");
        once(&prev.label, &next.label, "label");
        once(&prev.reference, &next.reference, "reference");
        if let (Some(a), Some(b)) = (&prev.when, &next.when) {
            assert!(b.starts_with(a.as_str()), "when grows");
        }
        if let Some(marks) = &next.marks {
            let whole = [Some(7), None, Some(23)];
            assert_eq!(marks[..], whole[..marks.len()], "whole items only");
        }
        let (pi, ni) = (
            prev.items.as_deref().unwrap_or(&[]),
            next.items.as_deref().unwrap_or(&[]),
        );
        assert!(ni.len() >= pi.len(), "items never shrink");
        for (a, b) in pi.iter().zip(ni) {
            once(&a.id, &b.id, "id");
            once(&a.score, &b.score, "score");
        }
        prev = next.clone();
    }
    // Partway: the enum absent while written, then whole; `null` as
    // `Some(None)` once complete; an item whose `id` is being written
    // shows without it.
    assert!(
        snapshots
            .iter()
            .any(|(s, w)| s.label.is_none() && w.as_deref() == Some("/label"))
    );
    assert!(
        snapshots
            .iter()
            .any(|(s, _)| s.label == Some(shapes::Label::High))
    );
    assert!(
        snapshots
            .iter()
            .any(|(s, w)| s.reference.is_none() && w.as_deref() == Some("/reference"))
    );
    assert!(snapshots.iter().any(|(s, w)| {
        w.as_deref() == Some("/items/1/id")
            && s.items
                .as_ref()
                .is_some_and(|i| i.len() == 2 && i[1] == partial::ItemsItem::default())
    }));
    assert!(snapshots.iter().any(|(s, _)| {
        s.open
            .as_ref()
            .is_some_and(|o| o.additional_properties.get("note") == Some(&"ke".into()))
    }));

    let (last, writing) = snapshots.last().unwrap();
    assert_eq!(writing, &None);
    assert_eq!(last.total, Some(output.total));
    assert_eq!(last.mean, output.mean);
    assert_eq!(last.label, Some(output.label));
    assert_eq!(last.reference, Some(output.reference.clone()));
    assert_eq!(last.when, output.when);
    assert_eq!(last.marks, output.marks);
    let items = output.items.as_ref().unwrap();
    let shown = last.items.as_ref().unwrap();
    assert_eq!(shown.len(), items.len());
    for (a, b) in shown.iter().zip(items) {
        assert_eq!((a.id, a.score), (Some(b.id), b.score));
    }
    let open = output.open.as_ref().unwrap();
    let shown = last.open.as_ref().unwrap();
    assert_eq!(
        (shown.x, &shown.additional_properties),
        (open.x, &open.additional_properties)
    );
}
