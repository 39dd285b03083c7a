//! Partial JSON while streaming: [`PartialJson`] reads a model's output as
//! it arrives, one text delta (`StreamEvent::Delta`) at a time, and shows
//! the value read so far (`docs/runtime.md`, "Partial JSON while
//! streaming"; the choices in `docs/decisions.md`, "Partial JSON while
//! streaming").
//!
//! ```
//! use templiqx::partial::{Completion, PartialJson, PartialValue};
//!
//! let mut reader = PartialJson::new();
//! reader.feed(r#"{"title": "Draft", "items": [1, 2"#)?;
//! let root = reader.root().expect("a value has started");
//! let PartialValue::Object(members) = root.value() else { unreachable!() };
//! let title = members.get("title").unwrap();
//! assert!(matches!(title.value(), PartialValue::String("Draft")));
//! assert_eq!(title.completion(), Completion::Done);
//! let PartialValue::Array(items) = members.get("items").unwrap().value() else { unreachable!() };
//! // `2` may go on (`25`): it has started, its value is not known yet.
//! assert_eq!(items.len(), 2);
//! assert!(matches!(items.get(1).unwrap().value(), PartialValue::Pending(_)));
//!
//! let seen = reader.version();
//! reader.feed("5], \"note\": \"unfinish")?;
//! let root = reader.root().unwrap();
//! assert!(root.changed() > seen); // something inside changed
//! let PartialValue::Object(members) = root.value() else { unreachable!() };
//! assert!(members.get("title").unwrap().changed() <= seen); // this did not
//! let note = members.get("note").unwrap();
//! assert!(matches!(note.value(), PartialValue::String("unfinish")));
//! assert_eq!(note.completion(), Completion::Writing);
//!
//! reader.feed("ed\"}")?;
//! let value = reader.finish()?;
//! assert_eq!(value, templiqx::contracts::json::parse(
//!     r#"{"title": "Draft", "items": [1, 25], "note": "unfinished"}"#).unwrap());
//! # Ok::<(), templiqx::partial::PartialError>(())
//! ```
//!
//! # The partial value
//!
//! [`PartialJson::root`] is `None` until the value's first character, then
//! a [`PartialNode`]: a borrowed view with a [`PartialValue`], a
//! [`Completion`] (`Writing` or `Done`), a stable [`id`](PartialNode::id)
//! and the delta that last [`changed`](PartialNode::changed) it.
//!
//! - **Objects** hold the members whose value has started, in the order
//!   written (a key without a value is not shown).
//! - **Arrays** hold the items that have started; they never shrink.
//! - **Strings** hold the text decoded so far; it only grows. An escape, a
//!   `\u` escape or a surrogate pair split across deltas appears once its
//!   last character arrives.
//! - **Numbers, booleans and `null`** are [`PartialValue::Pending`] until
//!   complete: a literal with its last letter, a number once a character
//!   that cannot continue it follows (`,`, `]`, `}`, white space) or the
//!   input ends ([`PartialJson::finish`]).
//! - A value is [`Done`](Completion::Done) when its text is complete:
//!   strings at the closing quote, arrays and objects at the closing
//!   bracket, scalars once they are no longer pending.
//!
//! # Costs
//!
//! Reading is linear in the text over the whole stream: each byte is read
//! once, wherever the deltas split it, and a delta's work is its length
//! and a constant. Nothing of the text is kept or copied
//! per delta: decoded strings and keys go, one after the other, into one
//! growing buffer, and the values into one growing vector of nodes in the
//! order they start, so allocation is the amortised growth of those two
//! (and of a small buffer for a number's text and the stack of open
//! containers; objects with more than sixteen members also index their keys'
//! hashes to find a repeated key in constant time).
//!
//! A view borrows the reader: walking the whole partial value is linear in
//! its size and allocates nothing, and [`PartialNode::changed`] lets a
//! consumer walk only what changed since the [`version`](PartialJson::version)
//! it last saw (a value counts as changed when anything inside it did).
//! Stamping is one store per change: a complete value keeps the delta that
//! completed it, and an open one changed in the last delta that changed
//! anything, since the text grows only at its end, which every open value
//! encloses.
//!
//! # Errors
//!
//! [`PartialJson::feed`] fails at the first character that no JSON text
//! could continue with ([`PartialError`]: its byte offset over the whole
//! stream, the character, and what was expected), never later and never
//! with a panic; the reader then keeps the error. The text is read as the
//! runtime's strict reader (`templiqx_contracts::json::parse`) reads it:
//! RFC 8259, one value, no repeated key in an object, integers exact at any
//! size, numbers that overflow a double refused, at most [`MAX_DEPTH`]
//! nested arrays and objects, and no byte order mark.

mod error;
mod parser;
mod view;

pub use error::{Expected, PartialError, PartialErrorKind};
pub use parser::{PartialJson, PendingKind};
pub use view::{Completion, PartialArray, PartialNode, PartialObject, PartialValue};

/// The most arrays and objects open at once: 127, one below
/// [`MAX_VALUE_DEPTH`](templiqx_contracts::budget::MAX_VALUE_DEPTH), which
/// counts the innermost value too. `serde_json` (and so the strict reader)
/// refuses the 128th nested array or object; so does [`PartialJson`]
/// ([`PartialErrorKind::TooDeep`]).
pub const MAX_DEPTH: usize = templiqx_contracts::budget::MAX_VALUE_DEPTH - 1;

/// The longest stream a [`PartialJson`] reads (4 GiB − 2 bytes): offsets in
/// the tree are 32-bit, which keeps a node small
/// ([`PartialErrorKind::TooLarge`] beyond).
pub const MAX_INPUT_BYTES: usize = u32::MAX as usize - 1;
