//! Evidence matching (`docs/mock.md`, "Evidence").
//!
//! A scenario's `evidence` items (`{document_id, fragment_id,
//! quote_sha256}`) must each match an **evidence entry** found in the
//! scenario's request or output: any JSON object, at any depth, with string
//! members `document_id`, `fragment_id` and `quote_sha256` (and optionally
//! integer `start_offset`/`end_offset`).
//!
//! Where an entry has both offsets and the request carries the source text
//! of its fragment, `quote_sha256` must be the SHA-256 of the text's UTF-8
//! bytes `start_offset..end_offset`. This is checked for **every** entry
//! found, listed in the manifest or not: one wrong quote hash fails the
//! scenario.
//!
//! The request carries the source text of fragment `F` of document `D`
//! when an object of its `inputs` or `context` has a string `document_id`
//! equal to `D`, another string member whose key ends in `_id` equal to `F`
//! (CRM3 writes `fragment_id`, this project's example `clause_id`), and
//! exactly one string member whose key ends in `_text` (`document_text`,
//! `clause_text`): that member is the source text. The first such object
//! in document order wins.

use crate::load::ScenarioRequest;
use crate::scenario::EvidenceExpectation;
use serde::Serialize;
use templiqx_contracts::canonical::sha256_hex;
use templiqx_contracts::diagnostic::pointer_push;
use templiqx_contracts::{Json as Value, JsonMap};

/// An evidence entry found in a request or an output.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EvidenceEntry {
    /// The source document.
    pub document_id: String,
    /// The fragment.
    pub fragment_id: String,
    /// The declared quote hash.
    pub quote_sha256: String,
    /// Start of the quote, a byte offset into the fragment's text.
    pub start_offset: Option<u64>,
    /// End of the quote (exclusive), a byte offset.
    pub end_offset: Option<u64>,
    /// An offset member present but not a byte offset (not a
    /// non-negative integer within `u64`: `-1`, `2.5`, an integer beyond 64
    /// bits, a string), as `start_offset 100000000000000000020`; the
    /// entry's quote is then a mismatch, never unverifiable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invalid_offset: Option<String>,
    /// Where it was found: `/input/…` (the request document) or
    /// `/output/…`.
    pub pointer: String,
}

/// How an entry's quote hash fared.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "quote", rename_all = "snake_case")]
pub enum QuoteCheck {
    /// The hash is the SHA-256 of the source text's byte range.
    Verified,
    /// Not checkable: the entry has no offsets, or the request carries no
    /// source text for its fragment.
    Unverifiable {
        /// Which of the two.
        reason: String,
    },
    /// The hash is not that of the byte range, or the range does not fit
    /// the source text.
    Mismatch {
        /// What differs.
        reason: String,
    },
}

/// The result for one expected item.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EvidenceItemResult {
    /// The manifest's item.
    #[serde(flatten)]
    pub expected: EvidenceExpectation,
    /// Pointers of the entries with the same document, fragment and quote
    /// hash; empty when the item is unmatched.
    pub found_at: Vec<String>,
    /// The quote check of the first matching entry whose quote could be
    /// checked (else of the first matching entry); `None` when unmatched.
    pub quote: Option<QuoteCheck>,
}

/// An entry whose quote hash is wrong.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct QuoteMismatch {
    /// Where the entry is.
    pub pointer: String,
    /// What differs.
    pub reason: String,
}

/// The evidence check of one scenario execution.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EvidenceCheck {
    /// One result per manifest item, in manifest order.
    pub items: Vec<EvidenceItemResult>,
    /// Every entry found (listed or not) whose quote hash is wrong.
    pub quote_mismatches: Vec<QuoteMismatch>,
    /// How many entries were found, and how many of their quotes verified.
    pub entries_found: usize,
    /// Entries whose quote hash was verified against the source text.
    pub quotes_verified: usize,
}

impl EvidenceCheck {
    /// Every item matched and no quote hash is wrong.
    pub fn passed(&self) -> bool {
        self.quote_mismatches.is_empty() && self.items.iter().all(|i| !i.found_at.is_empty())
    }
}

/// Matches `expected` against the entries of `request` and `output`, and
/// checks every entry's quote hash where possible (see the module docs).
pub fn check_evidence(
    expected: &[EvidenceExpectation],
    request: Option<&ScenarioRequest>,
    output: Option<&Value>,
) -> EvidenceCheck {
    let request_value = request.map(|r| {
        let mut m = JsonMap::new();
        m.insert("inputs".into(), Value::Object(r.inputs.clone()));
        m.insert("context".into(), Value::Object(r.context.clone()));
        Value::Object(m)
    });
    let mut entries = Vec::new();
    if let Some(v) = &request_value {
        find_entries(v, "/input", &mut entries);
    }
    if let Some(v) = output {
        find_entries(v, "/output", &mut entries);
    }
    let sources = request_value
        .as_ref()
        .map(|v| find_source_texts(v, "/input"))
        .unwrap_or_default();
    let checks: Vec<QuoteCheck> = entries.iter().map(|e| check_quote(e, &sources)).collect();
    let quote_mismatches = entries
        .iter()
        .zip(&checks)
        .filter_map(|(e, c)| match c {
            QuoteCheck::Mismatch { reason } => Some(QuoteMismatch {
                pointer: e.pointer.clone(),
                reason: reason.clone(),
            }),
            _ => None,
        })
        .collect();
    let items = expected
        .iter()
        .map(|item| {
            let matching: Vec<usize> = entries
                .iter()
                .enumerate()
                .filter(|(_, e)| {
                    e.document_id == item.document_id
                        && e.fragment_id == item.fragment_id
                        && e.quote_sha256 == item.quote_sha256
                })
                .map(|(i, _)| i)
                .collect();
            let quote = matching
                .iter()
                .map(|&i| &checks[i])
                .find(|c| !matches!(c, QuoteCheck::Unverifiable { .. }))
                .or_else(|| matching.first().map(|&i| &checks[i]))
                .cloned();
            EvidenceItemResult {
                expected: item.clone(),
                found_at: matching
                    .iter()
                    .map(|&i| entries[i].pointer.clone())
                    .collect(),
                quote,
            }
        })
        .collect();
    EvidenceCheck {
        items,
        quote_mismatches,
        entries_found: entries.len(),
        quotes_verified: checks
            .iter()
            .filter(|c| matches!(c, QuoteCheck::Verified))
            .count(),
    }
}

/// Every evidence entry in `value`, depth-first in document order;
/// pointers start with `prefix`.
pub fn find_entries(value: &Value, prefix: &str, out: &mut Vec<EvidenceEntry>) {
    walk_objects(value, prefix, &mut |object, pointer| {
        let text = |k: &str| object.get(k).and_then(Value::as_str).map(str::to_owned);
        if let (Some(document_id), Some(fragment_id), Some(quote_sha256)) = (
            text("document_id"),
            text("fragment_id"),
            text("quote_sha256"),
        ) {
            // Absent, a byte offset, or (`Err`) what stands there instead.
            let read = |name: &str| {
                let v = object.get(name)?;
                Some(offset(v).ok_or_else(|| format!("{name} {v}")))
            };
            let (start, end) = (read("start_offset"), read("end_offset"));
            out.push(EvidenceEntry {
                document_id,
                fragment_id,
                quote_sha256,
                start_offset: start.clone().and_then(Result::ok),
                end_offset: end.clone().and_then(Result::ok),
                invalid_offset: [start, end].into_iter().flatten().find_map(Result::err),
                pointer: pointer.to_owned(),
            });
        }
    });
}

/// A source text the request carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceText {
    /// The document.
    pub document_id: String,
    /// Every `…_id` value of the object other than `document_id`: the
    /// fragment ids it may be the text of.
    pub fragment_ids: Vec<String>,
    /// The text.
    pub text: String,
    /// Where the text is.
    pub pointer: String,
}

/// The source texts in a request value (see the module docs).
pub fn find_source_texts(request: &Value, prefix: &str) -> Vec<SourceText> {
    let mut out = Vec::new();
    walk_objects(request, prefix, &mut |object, pointer| {
        let Some(document_id) = object.get("document_id").and_then(Value::as_str) else {
            return;
        };
        let mut texts = object
            .iter()
            .filter(|(k, v)| k.ends_with("_text") && v.as_str().is_some());
        let (Some((key, Value::String(text))), None) = (texts.next(), texts.next()) else {
            return;
        };
        let fragment_ids: Vec<String> = object
            .iter()
            .filter(|(k, _)| k.ends_with("_id") && *k != "document_id")
            .filter_map(|(_, v)| v.as_str().map(str::to_owned))
            .collect();
        if !fragment_ids.is_empty() {
            out.push(SourceText {
                document_id: document_id.to_owned(),
                fragment_ids,
                text: text.clone(),
                pointer: pointer_push(pointer, key),
            });
        }
    });
    out
}

/// A byte offset: a non-negative integer within `u64` (an integer-valued
/// number such as `44.0` counts, as JSON Schema counts it an integer).
fn offset(v: &Value) -> Option<u64> {
    match v.as_number()? {
        templiqx_contracts::Number::F64(f)
            if templiqx_contracts::typed::exact_integral_double(f) =>
        {
            (f >= 0.0).then_some(f as u64)
        }
        _ => v.as_u64(),
    }
}

fn check_quote(entry: &EvidenceEntry, sources: &[SourceText]) -> QuoteCheck {
    if let Some(invalid) = &entry.invalid_offset {
        return QuoteCheck::Mismatch {
            reason: format!("{invalid} is not a byte offset (a non-negative integer)"),
        };
    }
    let (Some(start), Some(end)) = (entry.start_offset, entry.end_offset) else {
        return QuoteCheck::Unverifiable {
            reason: "the entry has no start_offset/end_offset".into(),
        };
    };
    let Some(source) = sources.iter().find(|s| {
        s.document_id == entry.document_id && s.fragment_ids.contains(&entry.fragment_id)
    }) else {
        return QuoteCheck::Unverifiable {
            reason: format!(
                "the request carries no source text for {}#{}",
                entry.document_id, entry.fragment_id
            ),
        };
    };
    let bytes = source.text.as_bytes();
    let range = usize::try_from(start)
        .ok()
        .zip(usize::try_from(end).ok())
        .and_then(|(s, e)| bytes.get(s..e));
    let Some(quote) = range else {
        return QuoteCheck::Mismatch {
            reason: format!(
                "bytes {start}..{end} do not fit the {}-byte source text at {}",
                bytes.len(),
                source.pointer
            ),
        };
    };
    let actual = sha256_hex(quote);
    if actual == entry.quote_sha256 {
        QuoteCheck::Verified
    } else {
        QuoteCheck::Mismatch {
            reason: format!(
                "quote_sha256 {} is not the SHA-256 of bytes {start}..{end} of {} ({actual})",
                entry.quote_sha256, source.pointer
            ),
        }
    }
}

/// Calls `f` on every object in `value` with its pointer, depth-first in
/// document order, without recursion (no stack limit to hit).
fn walk_objects(value: &Value, prefix: &str, f: &mut dyn FnMut(&JsonMap, &str)) {
    let mut stack: Vec<(&Value, String)> = vec![(value, prefix.to_owned())];
    while let Some((value, pointer)) = stack.pop() {
        match value {
            Value::Object(object) => {
                f(object, &pointer);
                for (k, v) in object.iter().rev() {
                    stack.push((v, pointer_push(&pointer, k)));
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate().rev() {
                    stack.push((v, format!("{pointer}/{i}")));
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request() -> ScenarioRequest {
        serde_json::from_value(json!({
            "inputs": {"document_id": "D", "fragment_id": "F", "document_text": "héllo world"},
            "context": {}
        }))
        .unwrap()
    }

    fn entry(quote: &str, start: u64, end: u64) -> Value {
        json!({"document_id": "D", "fragment_id": "F", "quote_sha256": quote,
               "start_offset": start, "end_offset": end})
        .into()
    }

    #[test]
    fn offsets_that_are_not_byte_offsets_are_mismatches_not_unverifiable() {
        let quote = sha256_hex("héllo".as_bytes());
        let expected = [EvidenceExpectation {
            document_id: "D".into(),
            fragment_id: "F".into(),
            quote_sha256: quote.clone(),
        }];
        // `0.0..6.0` is the range `0..6`, as JSON Schema counts integers.
        let text = format!(
            r#"{{"evidence": [{{"document_id": "D", "fragment_id": "F", "quote_sha256": "{quote}", "start_offset": 0.0, "end_offset": 6.0}}]}}"#
        );
        let output = templiqx_contracts::json::parse(&text).unwrap();
        let check = check_evidence(&expected, Some(&request()), Some(&output));
        assert_eq!(check.items[0].quote, Some(QuoteCheck::Verified));
        for (start, end) in [
            ("100000000000000000020", "100000000000000000030"),
            ("-1", "6"),
            ("0", "6.5"),
            ("\"0\"", "6"),
        ] {
            let text = format!(
                r#"{{"evidence": [{{"document_id": "D", "fragment_id": "F", "quote_sha256": "{quote}", "start_offset": {start}, "end_offset": {end}}}]}}"#
            );
            let output = templiqx_contracts::json::parse(&text).unwrap();
            let check = check_evidence(&expected, Some(&request()), Some(&output));
            assert!(!check.passed(), "{start}..{end}");
            let reason = &check.quote_mismatches[0].reason;
            assert!(reason.contains("is not a byte offset"), "{reason}");
        }
    }

    #[test]
    fn a_listed_item_matches_and_its_quote_is_verified_on_utf8_bytes() {
        // "héllo" is 6 bytes: é is two.
        let quote = sha256_hex("héllo".as_bytes());
        let output: Value = json!({"evidence": [entry(&quote, 0, 6)]}).into();
        let expected = [EvidenceExpectation {
            document_id: "D".into(),
            fragment_id: "F".into(),
            quote_sha256: quote.clone(),
        }];
        let check = check_evidence(&expected, Some(&request()), Some(&output));
        assert!(check.passed(), "{check:#?}");
        assert_eq!(check.items[0].found_at, ["/output/evidence/0"]);
        assert_eq!(check.items[0].quote, Some(QuoteCheck::Verified));
        assert_eq!(check.quotes_verified, 1);
    }

    #[test]
    fn a_wrong_quote_hash_fails_even_when_unlisted() {
        let wrong = sha256_hex(b"hello");
        let output: Value = json!({"evidence": [entry(&wrong, 0, 6)]}).into();
        let check = check_evidence(&[], Some(&request()), Some(&output));
        assert!(!check.passed());
        assert_eq!(check.quote_mismatches[0].pointer, "/output/evidence/0");
        // Offsets beyond the text are a mismatch too, never a panic.
        let output: Value =
            json!({"evidence": [entry(&wrong, 5, 500), entry(&wrong, 9, 2)]}).into();
        let check = check_evidence(&[], Some(&request()), Some(&output));
        assert_eq!(check.quote_mismatches.len(), 2);
    }

    #[test]
    fn an_unmatched_item_fails_and_quotes_without_source_are_unverifiable() {
        let output: Value = json!({"evidence": [entry(&sha256_hex(b"x"), 0, 1)]}).into();
        let expected = [EvidenceExpectation {
            document_id: "D".into(),
            fragment_id: "OTHER".into(),
            quote_sha256: sha256_hex(b"x"),
        }];
        let check = check_evidence(&expected, None, Some(&output));
        assert!(!check.passed());
        assert!(check.items[0].found_at.is_empty());
        assert_eq!(check.quotes_verified, 0);
        assert!(check.quote_mismatches.is_empty());
    }

    #[test]
    fn deep_values_do_not_overflow_the_stack() {
        let mut v = Value::Object(JsonMap::new());
        for _ in 0..100_000 {
            v = Value::Array(vec![v]);
        }
        let check = check_evidence(&[], None, Some(&v));
        assert_eq!(check.entries_found, 0);
        // Dropping a deep value recurses; leak it instead.
        std::mem::forget(v);
    }
}
