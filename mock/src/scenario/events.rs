//! The rules of a typed stream (`docs/mock.md`, "Format notes").

use super::manifest::ScenarioStreamEvent;
use super::problems::Problems;
use crate::stream::aggregate;
use std::collections::BTreeSet;
use templiqx_contracts::Diagnostic;

/// Checks a typed stream (`docs/mock.md`, "Format notes"): one `start` first;
/// then only non-empty `delta` and `reasoning`, and `usage` events reporting at
/// least one token (their sums must fit in `u64`); then `end`, then `finish`
/// last; unique, non-empty event ids; and an output: the `finish` event's, or
/// the concatenated deltas forming one JSON document.
///
/// # Errors
///
/// One `TQX_SCENARIO` diagnostic per broken rule, pointing into
/// `/events`, each message starting `` scenario `<scenario>`: ``.
pub fn validate_events(
    scenario: &str,
    events: &[ScenarioStreamEvent],
) -> Result<(), Vec<Diagnostic>> {
    let mut p = Problems::new(scenario);
    let has_start = events
        .iter()
        .any(|e| matches!(e, ScenarioStreamEvent::Start { .. }));
    let mut ids = BTreeSet::new();
    let mut order = StreamOrder::default();
    for (i, event) in events.iter().enumerate() {
        let at = format!("/events/{i}");
        let (id, kind) = (event.id(), event.kind());
        if id.is_empty() {
            p.push(
                &format!("{at}/id"),
                format!("event {i} has an empty id"),
                "give every event a stable, unique id",
            );
        } else if !ids.insert(id) {
            p.push(
                &format!("{at}/id"),
                format!("duplicate event id `{id}`"),
                "give every event a unique id",
            );
        }
        if order.finished {
            p.push(
                &at,
                format!("`{kind}` event `{id}` comes after `finish`"),
                "`finish` is the last event of a stream",
            );
            continue;
        }
        if !order.started && !matches!(event, ScenarioStreamEvent::Start { .. }) {
            if has_start {
                p.push(
                    &at,
                    format!("`{kind}` event `{id}` comes before `start`"),
                    "open the stream with `start`",
                );
            }
            continue;
        }
        order.accept(&mut p, &at, event);
    }
    order.close(&mut p, has_start);
    if p.diagnostics.is_empty()
        && let Err(d) = aggregate(events)
    {
        p.push("/events", d.message, d.help.unwrap_or_default());
    }
    p.finish()
}

/// Where [`validate_events`] is in a stream: which of `start`, `end` and
/// `finish` it has seen, and whether a missing `end` was already reported
/// (at a `finish` that came before it).
#[derive(Default)]
struct StreamOrder {
    started: bool,
    ended: bool,
    finished: bool,
    end_missing_reported: bool,
}

impl StreamOrder {
    /// Checks one event (at `at`) from the first `start` up to `finish`: one
    /// `start` and one `end`, nothing but `finish` after `end`, no empty
    /// text, no usage without tokens.
    fn accept(&mut self, p: &mut Problems<'_>, at: &str, event: &ScenarioStreamEvent) {
        let (id, kind) = (event.id(), event.kind());
        let after_end = |p: &mut Problems<'_>| {
            p.push(
                at,
                format!("`{kind}` event `{id}` comes after `end`"),
                "`end` is followed only by `finish`",
            );
        };
        match event {
            ScenarioStreamEvent::Start { .. } => {
                if self.started {
                    p.push(
                        at,
                        format!("a second `start` event (`{id}`)"),
                        "a stream has exactly one `start`",
                    );
                }
                self.started = true;
            }
            ScenarioStreamEvent::Delta { text, .. }
            | ScenarioStreamEvent::Reasoning { text, .. } => {
                if self.ended {
                    after_end(p);
                }
                if text.is_empty() {
                    p.push(
                        &format!("{at}/text"),
                        format!("`{kind}` event `{id}` is empty"),
                        "remove the event, or give it text",
                    );
                }
            }
            ScenarioStreamEvent::Usage {
                input_tokens,
                output_tokens,
                ..
            } => {
                if self.ended {
                    after_end(p);
                }
                if *input_tokens == 0 && *output_tokens == 0 {
                    p.push(
                        at,
                        format!("`usage` event `{id}` reports no tokens"),
                        "remove the event, or report its token counts",
                    );
                }
            }
            ScenarioStreamEvent::End { .. } => {
                if self.ended {
                    p.push(
                        at,
                        format!("a second `end` event (`{id}`)"),
                        "a stream has exactly one `end`",
                    );
                }
                self.ended = true;
            }
            ScenarioStreamEvent::Finish { .. } => {
                if !self.ended {
                    p.push(
                        at,
                        format!("`finish` event `{id}` comes before `end`"),
                        "close the stream with `end`, then `finish`",
                    );
                    self.end_missing_reported = true;
                }
                self.finished = true;
            }
        }
    }

    /// Reports what the whole stream lacks: `start`, `end` (unless already
    /// reported at `finish`), `finish`.
    fn close(self, p: &mut Problems<'_>, has_start: bool) {
        if !has_start {
            p.push(
                "/events",
                "the stream has no `start` event",
                "open the stream with `start`",
            );
        }
        if has_start && !self.ended && !self.end_missing_reported {
            p.push(
                "/events",
                "the stream has no `end` event",
                "close the stream with `end`, then `finish`",
            );
        }
        if has_start && !self.finished {
            p.push(
                "/events",
                "the stream has no `finish` event",
                "close the stream with `end`, then `finish`",
            );
        }
    }
}
