//! Human output in rustc's layout ([`templiqx_build::report`]): each change
//! with a snippet of the new side and one of the old (then its related
//! places, labelled `partial (new)`), each diagnostic with a snippet of the
//! side it is about.
//!
//! ```text
//! breaking[INPUT_FIELD_ADDED_REQUIRED]: `inputs.tenant` is new and required
//!   --> contracts/greet.yaml:9:5
//!    |
//!  9 |     required: true
//!    |               ^^^^ new
//!    |
//!   ::: contracts/greet.yaml:5:1
//!    |
//!  5 | inputs:
//!    | ------- old
//!    |
//!    = help: callers that do not send it are refused; …
//!    = note: at /inputs (old), /inputs/tenant/required (new)
//! ```

use crate::change::{Change, Location, Sided, Which};
use crate::rules::Class;
use crate::side::Side;
use crate::text::json_text;
use templiqx_build::report::{self, Place, PlacesReport, Tone};

/// One change, rendered with snippets of both sides (no trailing newline).
pub fn change(change: &Change, old: &Side, new: &Side, color: bool) -> String {
    let tone = match change.class {
        Class::Breaking | Class::MayBreak => Tone::Error,
        Class::CompatibleShape | Class::Behaviour => Tone::Warning,
        Class::NoCompiledChange => Tone::Note,
    };
    let mut places: Vec<Place<'_>> = Vec::new();
    for (loc, side) in [(&change.new, new), (&change.old, old)] {
        if let Some(loc) = loc {
            places.push(place(loc, side, &side.label));
        }
    }
    let labels: Vec<String> = change
        .related
        .iter()
        .map(|r| format!("{} ({})", r.what, side_of(r.side, old, new).label))
        .collect();
    for (r, label) in change.related.iter().zip(&labels) {
        places.push(place(&r.location, side_of(r.side, old, new), label));
    }
    let mut notes = Vec::new();
    match (&change.old, &change.new) {
        (Some(o), Some(n)) if o.json_pointer == n.json_pointer => {
            notes.push(format!("at {}", shown(&o.json_pointer)));
        }
        (Some(o), Some(n)) => notes.push(format!(
            "at {} ({}), {} ({})",
            shown(&o.json_pointer),
            old.label,
            shown(&n.json_pointer),
            new.label
        )),
        (Some(o), None) => notes.push(format!("at {} ({})", shown(&o.json_pointer), old.label)),
        (None, Some(n)) => notes.push(format!("at {} ({})", shown(&n.json_pointer), new.label)),
        (None, None) => {}
    }
    if let Some(e) = &change.example {
        notes.push(format!("for example `{}`", json_text(e)));
    }
    report::render_places(
        &PlacesReport {
            tone,
            name: change.class.as_str(),
            id: change.rule.id(),
            message: &change.message,
            places: &places,
            help: Some(&change.help),
            notes: &notes,
        },
        color,
    )
}

/// A diagnostic of one side, with a snippet of that side's file.
pub fn diagnostic(d: &Sided, old: &Side, new: &Side, color: bool) -> String {
    let side = side_of(d.side, old, new);
    let source = d.diagnostic.file.as_deref().and_then(|f| side.source(f));
    report::render_human_styled(&d.diagnostic, source, color)
}

fn side_of<'a>(which: Which, old: &'a Side, new: &'a Side) -> &'a Side {
    match which {
        Which::Old => old,
        Which::New => new,
    }
}

fn place<'a>(loc: &'a Location, side: &'a Side, label: &'a str) -> Place<'a> {
    Place {
        file: &loc.file,
        source: side.source(&loc.file),
        span: loc.span,
        label,
    }
}

fn shown(pointer: &str) -> &str {
    if pointer.is_empty() { "/" } else { pointer }
}
