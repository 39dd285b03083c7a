//! Partial JSON while streaming (`docs/runtime.md`, "Partial JSON while
//! streaming"): a model output of 1 MiB (an object of sections with
//! strings, escapes, numbers, booleans, nulls and arrays, the shape of a
//! contract's output) read by `templiqx::partial::PartialJson` in deltas of
//! one character, 16 bytes and 4 KiB, against what hosts write by hand
//! (append the delta, re-parse the accumulated text with `serde_json`) and
//! jiter's partial mode (also over the accumulated text), at the document
//! sizes where re-parsing finishes in reasonable time. The deltas are cut
//! before timing; every reader's final value is checked once.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use jiter::{JsonValue, PartialMode};
use std::hint::black_box;
use std::time::Duration;
use templiqx::PartialJson;

const KIB: usize = 1024;
const MIB: usize = 1024 * KIB;

/// A contract-shaped output of at least `size` bytes (compact JSON, ASCII
/// but for a few `é` and `€`), deterministic.
fn document(size: usize) -> String {
    let words = [
        "the",
        "contract",
        "term",
        "renewal",
        "notice",
        "party",
        "shall",
        "within",
        "days",
        "payment",
        "clause",
        "\\\"quoted\\\"",
        "line\\nbreak",
        "caf\u{e9}",
        "\u{20ac}5",
        "tab\\there",
        "\\u00e9t\\u00e9",
    ];
    let mut out = String::with_capacity(size + 4 * KIB);
    out.push_str("{\"title\":\"Quarterly contract review\",\"sections\":[");
    let mut i = 0usize;
    while out.len() < size {
        if i > 0 {
            out.push(',');
        }
        let mut body = String::new();
        for w in 0..(40 + i % 60) {
            if w > 0 {
                body.push(' ');
            }
            body.push_str(words[(i * 7 + w * 3) % words.len()]);
        }
        out.push_str(&format!(
            "{{\"id\":\"S-{i:05}\",\"heading\":\"Section {i}\",\"body\":\"{body}\",\
             \"score\":{score},\"count\":{count},\"flagged\":{flagged},\"reviewer\":null,\
             \"tags\":[\"t{a}\",\"t{b}\"],\"amounts\":[{x},{y}.5,-{z}e-3]}}",
            score = (i % 1000) as f64 / 1000.0 + 0.0005,
            count = i * 37 % 1000,
            flagged = i.is_multiple_of(3),
            a = i % 11,
            b = i % 13,
            x = i * 101,
            y = i % 97,
            z = i % 89 + 1,
        ));
        i += 1;
    }
    out.push_str("],\"total\":");
    out.push_str(&i.to_string());
    out.push('}');
    out
}

/// `text` cut into deltas of `size` bytes, each moved forward to a char
/// boundary (so a "1-byte" delta is one character).
fn deltas(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::with_capacity(text.len() / size + 1);
    let mut from = 0;
    while from < text.len() {
        let mut to = (from + size).min(text.len());
        while !text.is_char_boundary(to) {
            to += 1;
        }
        out.push(&text[from..to]);
        from = to;
    }
    out
}

fn ours(deltas: &[&str]) -> templiqx::contracts::Json {
    let mut reader = PartialJson::new();
    for delta in deltas {
        reader.feed(delta).unwrap();
    }
    reader.finish().unwrap()
}

/// Feeding only: the reader's work per delta, without building the final
/// `Json`.
fn ours_feed(deltas: &[&str]) -> u64 {
    let mut reader = PartialJson::new();
    for delta in deltas {
        reader.feed(delta).unwrap();
    }
    reader.root().map_or(0, |root| root.changed())
}

/// Following the stream as a typed call does (`docs/runtime.md`, "Typed
/// streaming"): each delta fed, and the partial value (here untyped, a
/// `Json`) brought up to date after every delta that changed it.
fn ours_follow(deltas: &[&str]) -> usize {
    let mut stream = templiqx::PartialStream::<templiqx::contracts::Json>::new();
    let mut snapshots = 0;
    for delta in deltas {
        snapshots += stream.feed(delta).is_some() as usize;
    }
    snapshots
}

/// What hosts write: append, then try to parse everything so far.
fn naive_serde_json(deltas: &[&str]) -> Option<serde_json::Value> {
    let mut text = String::new();
    let mut last = None;
    for delta in deltas {
        text.push_str(delta);
        last = serde_json::from_str::<serde_json::Value>(&text).ok();
    }
    last
}

/// jiter's partial mode over the accumulated text on each delta.
fn jiter_partial(deltas: &[&str]) -> usize {
    let mut text = String::new();
    let mut parsed = 0;
    for delta in deltas {
        text.push_str(delta);
        if let Ok(v) =
            JsonValue::parse_with_config(text.as_bytes(), false, PartialMode::TrailingStrings)
        {
            parsed += matches!(v, JsonValue::Object(_)) as usize;
        }
    }
    parsed
}

fn partial_json(c: &mut Criterion) {
    let big = document(MIB);
    let expected = templiqx::contracts::json::parse(&big).unwrap();
    let serde_expected: serde_json::Value = serde_json::from_str(&big).unwrap();
    assert_eq!(ours(&deltas(&big, 1)), expected);
    assert_eq!(ours(&deltas(&big, 4 * KIB)), expected);
    assert_eq!(
        naive_serde_json(&deltas(&big, 4 * KIB)).as_ref(),
        Some(&serde_expected)
    );
    assert!(jiter_partial(&deltas(&big, 4 * KIB)) > 0);
    eprintln!(
        "document: {} bytes, {} deltas of 1 character",
        big.len(),
        deltas(&big, 1).len()
    );

    // The reader alone over 1 MiB, three delta sizes.
    let mut group = c.benchmark_group("partial_json/1MiB");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(8));
    group.throughput(Throughput::Bytes(big.len() as u64));
    for (name, size) in [("1B", 1), ("16B", 16), ("4KiB", 4 * KIB)] {
        let cut = deltas(&big, size);
        group.bench_with_input(BenchmarkId::new("templiqx feed", name), &cut, |b, cut| {
            b.iter(|| black_box(ours_feed(black_box(cut))))
        });
        group.bench_with_input(
            BenchmarkId::new("templiqx feed+finish", name),
            &cut,
            |b, cut| b.iter(|| black_box(ours(black_box(cut)))),
        );
        group.bench_with_input(
            BenchmarkId::new("templiqx follow (PartialStream)", name),
            &cut,
            |b, cut| b.iter(|| black_box(ours_follow(black_box(cut)))),
        );
    }
    let cut = deltas(&big, 4 * KIB);
    group.bench_with_input(
        BenchmarkId::new("serde_json re-parse", "4KiB"),
        &cut,
        |b, cut| b.iter(|| black_box(naive_serde_json(black_box(cut)))),
    );
    group.bench_with_input(
        BenchmarkId::new("jiter partial re-parse", "4KiB"),
        &cut,
        |b, cut| b.iter(|| black_box(jiter_partial(black_box(cut)))),
    );
    // Floors: the whole text parsed once.
    group.bench_function("serde_json once", |b| {
        b.iter(|| black_box(serde_json::from_str::<serde_json::Value>(black_box(&big)).unwrap()))
    });
    group.bench_function("jiter once", |b| {
        b.iter(|| black_box(JsonValue::parse(black_box(big.as_bytes()), false).unwrap()))
    });
    group.finish();

    // Small deltas over smaller documents, where re-parsing still ends.
    for (doc_size, doc_name, size, name) in
        [(64 * KIB, "64KiB", 16, "16B"), (16 * KIB, "16KiB", 1, "1B")]
    {
        let doc = document(doc_size);
        let cut = deltas(&doc, size);
        assert_eq!(
            naive_serde_json(&cut),
            Some(serde_json::from_str::<serde_json::Value>(&doc).unwrap())
        );
        let mut group = c.benchmark_group(format!("partial_json/{doc_name}"));
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(8));
        group.throughput(Throughput::Bytes(doc.len() as u64));
        group.bench_with_input(BenchmarkId::new("templiqx feed", name), &cut, |b, cut| {
            b.iter(|| black_box(ours_feed(black_box(cut))))
        });
        group.bench_with_input(
            BenchmarkId::new("serde_json re-parse", name),
            &cut,
            |b, cut| b.iter(|| black_box(naive_serde_json(black_box(cut)))),
        );
        group.bench_with_input(
            BenchmarkId::new("jiter partial re-parse", name),
            &cut,
            |b, cut| b.iter(|| black_box(jiter_partial(black_box(cut)))),
        );
        group.finish();
    }
}

criterion_group!(benches, partial_json);
criterion_main!(benches);
