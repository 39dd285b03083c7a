//! `Serialize` and `Deserialize` of generated types without serde's
//! derives (`docs/format.md`, "Generated Rust"): generic code here, over
//! what each generated type already has — its view ([`AsValue`], written
//! over its `Members` table) for writing, and one [`Decode`] impl (one
//! expression per field) for reading. A derive writes a visitor, a field
//! enum and its own visitor per type, which the host's compiler must
//! type-check, borrow-check and lower for every contract; this code is
//! compiled once, here, and instantiated per type only where a host uses
//! it.
//!
//! Reading goes through [`Json`]: a generated type's `Deserialize` reads
//! the value whole, and [`Decode`] takes it apart. A root type (`Inputs`,
//! `Context`, a struct `Output`) runs the runtime's checks on the value
//! first ([`crate::decode::deserialize_root`]); a nested type read on its
//! own does not. Errors are serde's own (`missing field`, `unknown field`,
//! `invalid type`), in the deserialiser's error type.
//!
//! Not a public API: generated code reaches it through
//! `::templiqx::__private`, and it may change in any release.

use crate::partial::{PartialJson, PartialNode, PartialValue};
use serde::de::{Error, Unexpected};
use serde::ser::{SerializeMap, SerializeSeq};
use std::marker::PhantomData;
use templiqx_contracts::{AsValue, Json, JsonMap, JsonNumber, Members, Number, ValueRef};

/// A type read from a [`Json`] value: every generated struct and enum,
/// and the Rust types of their fields. Generated code implements it for
/// each generated type; this module for `String`, `i64`, `f64`, `bool`,
/// [`Json`], [`JsonMap`], `Vec<T>` and `Option<T>` (`null` is `None`).
///
/// Generic over the error type, so that a type's reading is instantiated
/// only where a deserialiser needs it, in that deserialiser's errors.
pub trait Decode: Sized {
    /// Reads `value`.
    ///
    /// # Errors
    /// serde's error when `value` does not have the type's shape.
    fn decode<E: Error>(value: Json) -> Result<Self, E>;
}

/// What serde's error messages say `value` is (`invalid type: string
/// "x", expected i64`).
fn unexpected(value: &Json) -> Unexpected<'_> {
    match value {
        Json::Null => Unexpected::Unit,
        Json::Bool(b) => Unexpected::Bool(*b),
        Json::Number(n) => match n.as_number() {
            Number::I64(i) => Unexpected::Signed(i),
            Number::U64(u) => Unexpected::Unsigned(u),
            Number::F64(f) => Unexpected::Float(f),
            Number::Big(_) => Unexpected::Other("an integer beyond 64 bits"),
        },
        Json::String(s) => Unexpected::Str(s),
        Json::Array(_) => Unexpected::Seq,
        Json::Object(_) => Unexpected::Map,
    }
}

impl Decode for String {
    fn decode<E: Error>(value: Json) -> Result<Self, E> {
        match value {
            Json::String(s) => Ok(s),
            other => Err(E::invalid_type(unexpected(&other), &"a string")),
        }
    }
}

impl Decode for bool {
    fn decode<E: Error>(value: Json) -> Result<Self, E> {
        match value {
            Json::Bool(b) => Ok(b),
            other => Err(E::invalid_type(unexpected(&other), &"a boolean")),
        }
    }
}

impl Decode for i64 {
    /// An integer in range; a double is refused, as serde's `i64` refuses
    /// it (the root checks make an integer-valued double an integer first).
    fn decode<E: Error>(value: Json) -> Result<Self, E> {
        match &value {
            Json::Number(n) => match n.as_number() {
                Number::I64(i) => Ok(i),
                Number::U64(u) => Err(E::invalid_value(Unexpected::Unsigned(u), &"i64")),
                Number::F64(f) => Err(E::invalid_type(Unexpected::Float(f), &"i64")),
                Number::Big(_) => Err(E::invalid_value(unexpected(&value), &"i64")),
            },
            other => Err(E::invalid_type(unexpected(other), &"i64")),
        }
    }
}

impl Decode for f64 {
    /// Any number: an integer becomes the nearest double, as serde's `f64`
    /// reads one; an integer beyond `f64::MAX` has none and is refused.
    fn decode<E: Error>(value: Json) -> Result<Self, E> {
        match &value {
            Json::Number(n) => {
                let f = n.as_number().as_f64();
                if f.is_finite() {
                    Ok(f)
                } else {
                    Err(E::invalid_value(unexpected(&value), &"f64"))
                }
            }
            other => Err(E::invalid_type(unexpected(other), &"f64")),
        }
    }
}

impl Decode for Json {
    fn decode<E: Error>(value: Json) -> Result<Self, E> {
        Ok(value)
    }
}

impl Decode for JsonMap {
    fn decode<E: Error>(value: Json) -> Result<Self, E> {
        match value {
            Json::Object(map) => Ok(map),
            other => Err(E::invalid_type(unexpected(&other), &"an object")),
        }
    }
}

impl<T: Decode> Decode for Vec<T> {
    fn decode<E: Error>(value: Json) -> Result<Self, E> {
        match value {
            Json::Array(items) => items.into_iter().map(T::decode).collect(),
            other => Err(E::invalid_type(unexpected(&other), &"an array")),
        }
    }
}

impl<T: Decode> Decode for Option<T> {
    /// `null` is `None`: the type of a nullable value.
    fn decode<E: Error>(value: Json) -> Result<Self, E> {
        match value {
            Json::Null => Ok(None),
            other => T::decode(other).map(Some),
        }
    }
}

/// The members of an object being read into a generated struct: each
/// field takes its member out ([`Fields::required`], [`Fields::optional`]);
/// what is left over is the struct's extra members ([`Fields::rest`]).
/// `E` is the error type every read gives.
pub struct Fields<E>(JsonMap, PhantomData<fn() -> E>);

impl<E: Error> Fields<E> {
    /// The members of `value`, an object. With `closed`
    /// (`additionalProperties: false`, and always for `Inputs` and
    /// `Context`), a member that `T` does not declare is an error, as
    /// under serde's `deny_unknown_fields`.
    ///
    /// # Errors
    /// `invalid type` for a value that is not an object; `unknown field`
    /// for an undeclared member of a closed struct.
    pub fn of<T: Members>(value: Json, closed: bool) -> Result<Fields<E>, E> {
        let map = JsonMap::decode(value)?;
        if closed && let Some(key) = map.keys().find(|k| T::index(k).is_none()) {
            return Err(E::unknown_field(key, T::NAMES));
        }
        Ok(Fields(map, PhantomData))
    }

    /// A required field: its member, read as `T`.
    ///
    /// # Errors
    /// `missing field` when the member is absent; `T`'s errors.
    pub fn required<T: Decode>(&mut self, name: &'static str) -> Result<T, E> {
        match self.0.remove(name) {
            Some(value) => T::decode(value),
            None => Err(E::missing_field(name)),
        }
    }

    /// An optional field: `None` when its member is absent, else the
    /// member read as `T` (for a nullable field `T` is an `Option`, so a
    /// present `null` is `Some(None)`; for an untyped one [`Json`], so it is
    /// `Some(Json::Null)`).
    ///
    /// # Errors
    /// `T`'s errors.
    pub fn optional<T: Decode>(&mut self, name: &'static str) -> Result<Option<T>, E> {
        self.0.remove(name).map(T::decode).transpose()
    }

    /// The members no field took: an open struct's extra members.
    pub fn rest(self) -> JsonMap {
        self.0
    }
}

/// A generated enum's value: the variant whose JSON value (the string in
/// the schema's `enum`) is `value`.
///
/// # Errors
/// `invalid type` for a value that is not a string; `unknown variant` for
/// a string not in `variants`.
pub fn variant<T: Copy, E: Error>(
    value: Json,
    names: &'static [&'static str],
    variants: &[T],
) -> Result<T, E> {
    let Json::String(s) = value else {
        return Err(E::invalid_type(unexpected(&value), &"a string"));
    };
    names
        .iter()
        .position(|n| *n == s)
        .and_then(|i| variants.get(i).copied())
        .ok_or_else(|| E::unknown_variant(&s, names))
}

/// The `Deserialize` of a generated type that is not a root: reads any
/// JSON value, then [`Decode`]s it.
///
/// # Errors
/// The deserialiser's errors, then those of `T`'s [`Decode`].
pub fn deserialize<'de, T: Decode, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<T, D::Error> {
    let value = <Json as serde::Deserialize>::deserialize(deserializer)?;
    T::decode(value)
}

/// The `Serialize` of a generated type: its view, written as JSON's data
/// model (a struct as a map in its view's order — the declared members in
/// canonical key order, then the extra ones; an absent optional field
/// left out; an enum as its string).
///
/// # Errors
/// The serialiser's errors, and a custom error for a non-finite double
/// (`NaN`, `±inf`) anywhere in the value: JSON cannot hold one, and
/// writing it as `null` (serde_json's choice) would read back as another
/// value or not at all.
pub fn serialize<T: AsValue + ?Sized, S: serde::Serializer>(
    value: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&View(value.as_value()), serializer)
}

/// A viewed value as serde's data model.
struct View<'a>(ValueRef<'a>);

impl serde::Serialize for View<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            ValueRef::Null => s.serialize_unit(),
            ValueRef::Bool(b) => s.serialize_bool(b),
            ValueRef::Number(Number::I64(i)) => s.serialize_i64(i),
            ValueRef::Number(Number::U64(u)) => s.serialize_u64(u),
            ValueRef::Number(Number::F64(f)) if !f.is_finite() => Err(serde::ser::Error::custom(
                format_args!("a non-finite number ({f}), which JSON cannot hold"),
            )),
            ValueRef::Number(Number::F64(f)) => s.serialize_f64(f),
            ValueRef::Number(n @ Number::Big(_)) => match JsonNumber::from_number(n) {
                Some(exact) => exact.serialize(s),
                None => Err(serde::ser::Error::custom("a number JSON cannot hold")),
            },
            ValueRef::String(text) => s.serialize_str(text),
            ValueRef::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for i in 0..items.len() {
                    if let Some(item) = items.get(i) {
                        seq.serialize_element(&View(item))?;
                    }
                }
                seq.end()
            }
            ValueRef::Object(object) => {
                let mut map = s.serialize_map(Some(object.len()))?;
                for (key, member) in object.entries() {
                    map.serialize_entry(key, &View(member))?;
                }
                map.end()
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Partial outputs while streaming (`docs/runtime.md`, "Typed streaming").

/// A type that can show a value while it is being streamed: the generated
/// partial types (`partial::Output` and the types inside it,
/// `docs/format.md`, "Generated Rust", "Partial types") and the Rust types
/// of their fields. Each is brought up to date from the incremental reader
/// ([`PartialJson`](crate::partial::PartialJson)) by walking only what
/// changed ([`Follow`]), so following a whole stream costs the size of
/// the output plus a constant per delta and level of nesting, never a
/// re-read of the text.
///
/// The rules (`docs/format.md`, "Partial types"): a string grows (its
/// text so far); an array grows (its items that show something, each
/// partial in turn; an item that shows nothing yet, a number still being
/// written, comes once complete, and since only the last item can be
/// incomplete the items never shift); an object's members are partial in
/// turn; a number, boolean, enum value and `null` show only once complete,
/// and never change after.
///
/// Implemented here for `String`, `i64`, `f64`, `bool`, [`Json`],
/// [`JsonMap`], `Vec<T>` and `Option<T>` (a nullable value: `Some(None)`
/// is a complete `null`), and by generated code for each partial struct
/// and enum.
pub trait Grow: Sized {
    /// The value as far as `node` shows it; `None` while it shows nothing
    /// of this type (a number, literal or enum string still being written,
    /// or a value of another type, which the final validation reports).
    fn start<'r>(node: PartialNode<'r>, follow: &mut Follow<'r>) -> Option<Self>;

    /// Brings in what changed in `node` since this value was last brought
    /// up to date (called only when `node` changed). A complete scalar
    /// never changes.
    fn grow<'r>(&mut self, node: PartialNode<'r>, follow: &mut Follow<'r>);
}

/// Brings a field or slot up to date: starts it when it shows nothing
/// yet, else grows it. What generated partial structs call per member.
pub fn field<'r, T: Grow>(slot: &mut Option<T>, node: PartialNode<'r>, follow: &mut Follow<'r>) {
    match slot {
        None => {
            *slot = T::start(node, follow);
            if slot.is_some() {
                follow.shown();
            }
        }
        Some(value) => value.grow(node, follow),
    }
}

/// The `start` of a generated partial struct: an object shows every
/// member it has so far; anything else shows nothing.
pub fn start_struct<'r, T: Grow + Default>(
    node: PartialNode<'r>,
    follow: &mut Follow<'r>,
) -> Option<T> {
    let PartialValue::Object(_) = node.value() else {
        return None;
    };
    let mut value = T::default();
    value.grow(node, follow);
    Some(value)
}

/// The `start` of a value shown only once complete (an enum, a number, a
/// boolean): the value decoded once `node` is done; `None` before, and for
/// a value `T` cannot hold.
pub fn complete<T: Decode>(node: PartialNode<'_>) -> Option<T> {
    let json = node.to_json()?;
    T::decode::<serde::de::value::Error>(json).ok()
}

/// An open partial struct's extra member `key`: its value as far as it
/// shows, kept in `extra` as [`Json`] (see [`Grow`] for `Json`).
pub fn extra<'r>(extra: &mut JsonMap, key: &str, node: PartialNode<'r>, follow: &mut Follow<'r>) {
    match extra.get_mut(key) {
        Some(value) => value.grow(node, follow),
        None => {
            if let Some(value) = Json::start(node, follow) {
                extra.insert(key.to_owned(), value);
                follow.shown();
            }
        }
    }
}

/// Where a walk over a container resumes: the index and id of the child
/// it reached last (that child may still be written; every child before
/// it is complete and was brought in).
#[derive(Clone, Copy, Debug)]
struct Cursor {
    index: usize,
    id: usize,
}

/// What a [`Follow`] keeps between deltas: where each open container's
/// walk resumes, and the pointer of the value being written.
#[derive(Debug, Default)]
pub struct FollowState {
    /// The reader version last brought in.
    seen: u64,
    /// Where the walk over the open container at each depth resumes, with
    /// that container's id: while a text streams, the open containers are
    /// one path, one per depth. A slot empties once its container is
    /// complete and brought in.
    cursors: Vec<Option<(usize, Cursor)>>,
    /// The JSON Pointer of the innermost value still being written.
    pointer: String,
    /// `pointer`'s length at each depth (`marks[0]` is the root's, 0).
    marks: Vec<usize>,
    /// The id of the value each segment of `pointer` leads to, so a walk
    /// that notes the same value at the same depth writes nothing.
    ids: Vec<usize>,
    /// How many segments of `pointer` the current walk has noted.
    noted: usize,
    /// Whether the root is still being written.
    writing: bool,
    /// The last walk's `writing()`, to tell whether it moved.
    previous: Option<String>,
    /// Whether the last walk changed what the value shows or where it is
    /// being written.
    shown: bool,
}

impl FollowState {
    /// The reader version last brought in (0: none).
    pub fn seen(&self) -> u64 {
        self.seen
    }

    /// Whether the last walk changed what the value shows (a string grew,
    /// a value appeared) or which value is being written (one completed,
    /// or started): what a consumer redraws on.
    pub fn shown_changed(&self) -> bool {
        self.shown
    }

    /// The JSON Pointer of the innermost value still being written (`""`:
    /// the root itself), after the last walk; `None` when the root is
    /// complete or nothing has started. Every value on the way to it is
    /// being written too; every other value shown is done.
    pub fn writing(&self) -> Option<&str> {
        self.writing.then_some(self.pointer.as_str())
    }
}

/// One walk bringing a partial value up to date with the reader
/// ([`Grow`]): it visits only the values that changed since the last walk,
/// resuming each open array and object at the child it reached last, and
/// notes the pointer of the value being written.
pub struct Follow<'r> {
    reader: &'r PartialJson,
    state: &'r mut FollowState,
    /// The depth of the container being walked.
    depth: usize,
}

impl<'r> Follow<'r> {
    /// Brings `value` (which shows the reader as of `state.seen()`) up to
    /// date with `reader`: starts it if it has not started (`started`
    /// false), else grows it. Returns whether the value shows anything
    /// (started). Does nothing when nothing changed.
    pub fn update<T: Grow>(
        reader: &'r PartialJson,
        state: &'r mut FollowState,
        value: &mut T,
        started: bool,
    ) -> bool {
        let Some(root) = reader.root() else {
            return started;
        };
        state.shown = false;
        if root.changed() <= state.seen {
            return started;
        }
        if state.marks.is_empty() {
            state.marks.push(0);
        }
        state.noted = 0;
        state.writing = !root.is_done();
        let version = reader.version();
        let mut follow = Follow {
            reader,
            state,
            depth: 0,
        };
        let started = if started {
            value.grow(root, &mut follow);
            true
        } else if let Some(v) = T::start(root, &mut follow) {
            *value = v;
            follow.state.shown = true;
            true
        } else {
            false
        };
        let s = follow.state;
        s.seen = version;
        // What this walk did not note is no longer being written.
        let n = s.noted;
        s.ids.truncate(n);
        s.marks.truncate(n + 1);
        if let Some(&mark) = s.marks.get(n) {
            s.pointer.truncate(mark);
        }
        let now = s.writing.then_some(s.pointer.as_str());
        if now != s.previous.as_deref() {
            s.shown = true;
            s.previous = now.map(str::to_owned);
        }
        started
    }

    /// Notes that the walk changed what the value shows: what a [`Grow`]
    /// impl that adds or appends anything calls.
    pub fn shown(&mut self) {
        self.state.shown = true;
    }

    /// Whether `node` changed since the last walk.
    fn changed(&self, node: PartialNode<'_>) -> bool {
        node.changed() > self.state.seen
    }

    /// Notes that `node`, a child of the container being walked reached
    /// by `segment`, is still being written: it is on the way to the
    /// innermost such value.
    fn note(&mut self, node: PartialNode<'_>, segment: Segment<'_>) {
        if node.is_done() {
            return;
        }
        let s = &mut *self.state;
        let depth = self.depth;
        if s.ids.get(depth) == Some(&node.id()) {
            // Noted here by an earlier walk: the pointer is right so far.
            s.noted = depth + 1;
            return;
        }
        let Some(&mark) = s.marks.get(depth) else {
            return;
        };
        s.ids.truncate(depth);
        s.ids.push(node.id());
        s.noted = depth + 1;
        s.pointer.truncate(mark);
        s.pointer.push('/');
        match segment {
            Segment::Index(i) => {
                use std::fmt::Write as _;
                let _ = write!(s.pointer, "{i}");
            }
            Segment::Key(k) => {
                for c in k.chars() {
                    match c {
                        '~' => s.pointer.push_str("~0"),
                        '/' => s.pointer.push_str("~1"),
                        c => s.pointer.push(c),
                    }
                }
            }
        }
        s.marks.truncate(depth + 1);
        s.marks.push(s.pointer.len());
    }

    /// Calls `each` with every item of the array `node` that changed since
    /// the last walk (index, item), from the item the last walk reached
    /// on.
    pub fn items(
        &mut self,
        node: PartialNode<'r>,
        each: &mut dyn FnMut(usize, PartialNode<'r>, &mut Follow<'r>),
    ) {
        let PartialValue::Array(items) = node.value() else {
            return;
        };
        let cursor = self.cursor(node);
        let resumed = cursor.and_then(|c| {
            let item = self.reader.node(c.id)?;
            Some((c.index, items.iter_from(c.index, item)?))
        });
        let mut last = None;
        let mut visit = |index: usize, item: PartialNode<'r>, follow: &mut Follow<'r>| {
            last = Some(Cursor {
                index,
                id: item.id(),
            });
            if follow.changed(item) {
                follow.note(item, Segment::Index(index));
                follow.depth += 1;
                each(index, item, follow);
                follow.depth -= 1;
            }
        };
        match resumed {
            Some((from, rest)) => {
                for (i, item) in rest.enumerate() {
                    visit(from + i, item, self);
                }
            }
            None => {
                for (i, item) in items.iter().enumerate() {
                    visit(i, item, self);
                }
            }
        }
        self.keep(node, last);
    }

    /// Calls `each` with every member of the object `node` that changed
    /// since the last walk (key, value), from the member the last walk
    /// reached on.
    pub fn members(
        &mut self,
        node: PartialNode<'r>,
        each: &mut dyn FnMut(&'r str, PartialNode<'r>, &mut Follow<'r>),
    ) {
        let PartialValue::Object(members) = node.value() else {
            return;
        };
        let cursor = self.cursor(node);
        let resumed = cursor.and_then(|c| {
            let member = self.reader.node(c.id)?;
            Some((c.index, members.iter_from(c.index, member)?))
        });
        let mut last = None;
        let mut visit =
            |index: usize, key: &'r str, member: PartialNode<'r>, follow: &mut Follow<'r>| {
                last = Some(Cursor {
                    index,
                    id: member.id(),
                });
                if follow.changed(member) {
                    follow.note(member, Segment::Key(key));
                    follow.depth += 1;
                    each(key, member, follow);
                    follow.depth -= 1;
                }
            };
        match resumed {
            Some((from, rest)) => {
                for (i, (key, member)) in rest.enumerate() {
                    visit(from + i, key, member, self);
                }
            }
            None => {
                for (i, (key, member)) in members.iter().enumerate() {
                    visit(i, key, member, self);
                }
            }
        }
        self.keep(node, last);
    }

    /// Where the walk over `node`, the container at this depth, resumes.
    fn cursor(&self, node: PartialNode<'_>) -> Option<Cursor> {
        match self.state.cursors.get(self.depth) {
            Some(&Some((id, cursor))) if id == node.id() => Some(cursor),
            _ => None,
        }
    }

    /// Keeps where the walk over `node` resumes, or forgets it once
    /// `node` is complete (it will not change again).
    fn keep(&mut self, node: PartialNode<'_>, last: Option<Cursor>) {
        let cursors = &mut self.state.cursors;
        if cursors.len() <= self.depth {
            cursors.resize(self.depth + 1, None);
        }
        let slot = &mut cursors[self.depth];
        if node.is_done() {
            if matches!(slot, Some((id, _)) if *id == node.id()) {
                *slot = None;
            }
        } else if let Some(last) = last {
            *slot = Some((node.id(), last));
        }
    }
}

/// A step of the pointer being noted.
enum Segment<'k> {
    Index(usize),
    Key(&'k str),
}

impl Grow for String {
    fn start<'r>(node: PartialNode<'r>, _: &mut Follow<'r>) -> Option<Self> {
        match node.value() {
            PartialValue::String(s) => Some(s.to_owned()),
            _ => None,
        }
    }

    /// Appends what was written since: a string only grows.
    fn grow<'r>(&mut self, node: PartialNode<'r>, follow: &mut Follow<'r>) {
        if let PartialValue::String(s) = node.value()
            && let Some(more) = s.get(self.len()..)
            && !more.is_empty()
        {
            self.push_str(more);
            follow.shown();
        }
    }
}

impl Grow for bool {
    fn start<'r>(node: PartialNode<'r>, _: &mut Follow<'r>) -> Option<Self> {
        match node.value() {
            PartialValue::Bool(b) => Some(b),
            _ => None,
        }
    }

    fn grow<'r>(&mut self, _: PartialNode<'r>, _: &mut Follow<'r>) {}
}

impl Grow for i64 {
    /// A complete integer in range (an integer-valued double too, as the
    /// output's checks read one under `type: integer`).
    fn start<'r>(node: PartialNode<'r>, _: &mut Follow<'r>) -> Option<Self> {
        match node.value() {
            PartialValue::Number(n) => match n.as_number() {
                Number::I64(i) => Some(i),
                Number::F64(f) if f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0 => {
                    Some(f as i64)
                }
                _ => None,
            },
            _ => None,
        }
    }

    fn grow<'r>(&mut self, _: PartialNode<'r>, _: &mut Follow<'r>) {}
}

impl Grow for f64 {
    fn start<'r>(node: PartialNode<'r>, _: &mut Follow<'r>) -> Option<Self> {
        match node.value() {
            PartialValue::Number(n) => Some(n.as_number().as_f64()).filter(|f| f.is_finite()),
            _ => None,
        }
    }

    fn grow<'r>(&mut self, _: PartialNode<'r>, _: &mut Follow<'r>) {}
}

impl<T: Grow> Grow for Vec<T> {
    fn start<'r>(node: PartialNode<'r>, follow: &mut Follow<'r>) -> Option<Self> {
        let PartialValue::Array(_) = node.value() else {
            return None;
        };
        let mut items = Vec::new();
        items.grow(node, follow);
        Some(items)
    }

    /// Grows the item being written and adds the items that show
    /// something; an item that shows nothing yet is added once it does.
    fn grow<'r>(&mut self, node: PartialNode<'r>, follow: &mut Follow<'r>) {
        follow.items(node, &mut |i, item, follow| {
            if let Some(have) = self.get_mut(i) {
                have.grow(item, follow);
            } else if i == self.len()
                && let Some(new) = T::start(item, follow)
            {
                self.push(new);
                follow.shown();
            }
        });
    }
}

impl<T: Grow> Grow for Option<T> {
    /// A nullable value: a complete `null` is `Some(None)`.
    fn start<'r>(node: PartialNode<'r>, follow: &mut Follow<'r>) -> Option<Self> {
        match node.value() {
            PartialValue::Null => Some(None),
            _ => T::start(node, follow).map(Some),
        }
    }

    fn grow<'r>(&mut self, node: PartialNode<'r>, follow: &mut Follow<'r>) {
        if let Some(value) = self {
            value.grow(node, follow);
        }
    }
}

impl Grow for Json {
    /// Any value, by the same rules: strings and containers grow, numbers,
    /// booleans and `null` show once complete (an array item or object
    /// member still pending is left out until then).
    fn start<'r>(node: PartialNode<'r>, follow: &mut Follow<'r>) -> Option<Self> {
        match node.value() {
            PartialValue::Pending(_) => None,
            PartialValue::Null => Some(Json::Null),
            PartialValue::Bool(b) => Some(Json::Bool(b)),
            PartialValue::Number(n) => Some(Json::Number(n.clone())),
            PartialValue::String(s) => Some(Json::String(s.to_owned())),
            PartialValue::Array(_) => Vec::<Json>::start(node, follow).map(Json::Array),
            PartialValue::Object(_) => JsonMap::start(node, follow).map(Json::Object),
        }
    }

    fn grow<'r>(&mut self, node: PartialNode<'r>, follow: &mut Follow<'r>) {
        match self {
            Json::String(s) => s.grow(node, follow),
            Json::Array(items) => items.grow(node, follow),
            Json::Object(members) => members.grow(node, follow),
            Json::Null | Json::Bool(_) | Json::Number(_) => {}
        }
    }
}

impl Grow for JsonMap {
    fn start<'r>(node: PartialNode<'r>, follow: &mut Follow<'r>) -> Option<Self> {
        let PartialValue::Object(_) = node.value() else {
            return None;
        };
        let mut members = JsonMap::new();
        members.grow(node, follow);
        Some(members)
    }

    fn grow<'r>(&mut self, node: PartialNode<'r>, follow: &mut Follow<'r>) {
        follow.members(node, &mut |key, member, follow| {
            extra(self, key, member, follow);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::{Decode, Fields, variant};
    use serde::de::value::Error;
    use serde_json::json;
    use templiqx_contracts::value::members;
    use templiqx_contracts::{Json, JsonMap, Members, ValueRef};

    fn json(v: serde_json::Value) -> Json {
        Json::from(v)
    }

    fn decode<T: Decode>(v: serde_json::Value) -> Result<T, String> {
        T::decode::<Error>(json(v)).map_err(|e| e.to_string())
    }

    /// A hand-written generated struct: `{ "b": integer, "a": [string,
    /// null] (optional), "c": any (optional) }`, open or closed.
    #[derive(Debug, PartialEq)]
    struct Shape {
        b: i64,
        a: Option<Option<String>>,
        c: Option<Json>,
        extra: JsonMap,
    }

    impl Members for Shape {
        const NAMES: &'static [&'static str] = &["a", "b", "c"];
        fn index(key: &str) -> Option<usize> {
            Self::NAMES.iter().position(|n| *n == key)
        }
        fn member(&self, i: usize) -> Option<ValueRef<'_>> {
            match i {
                0 => members::optional(&self.a),
                1 => members::required(&self.b),
                2 => members::optional(&self.c),
                _ => None,
            }
        }
        fn extra(&self) -> Option<&JsonMap> {
            Some(&self.extra)
        }
    }
    crate::__object_view!(Shape);

    impl Decode for Shape {
        fn decode<E: serde::de::Error>(value: Json) -> Result<Self, E> {
            let mut fields = Fields::<E>::of::<Self>(value, false)?;
            Ok(Self {
                b: fields.required("b")?,
                a: fields.optional("a")?,
                c: fields.optional("c")?,
                extra: fields.rest(),
            })
        }
    }
    crate::__serde_impls!(Shape);

    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Tone {
        Warm,
        Cold,
    }

    #[test]
    fn serialize_refuses_a_non_finite_double_anywhere() {
        let write = |v: &Vec<f64>| {
            super::serialize(v, serde_json::value::Serializer)
                .map(|j| j.to_string())
                .map_err(|e| e.to_string())
        };
        assert_eq!(write(&vec![1.5, -0.0]), Ok("[1.5,-0.0]".to_owned()));
        for f in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(
                write(&vec![1.5, f]),
                Err(format!("a non-finite number ({f}), which JSON cannot hold"))
            );
        }
    }

    #[test]
    fn for_each_entry_walks_what_entries_yields_and_stops_on_break() {
        use std::ops::ControlFlow;
        use templiqx_contracts::ObjectView;
        let mut extra = JsonMap::new();
        extra.insert("z".to_owned(), json(json!(1)));
        // A key named like a declared member is never read from the extras.
        extra.insert("a".to_owned(), json(json!("shadowed")));
        let shape = Shape {
            b: 2,
            a: None,
            c: Some(json(json!([true]))),
            extra,
        };
        let collect = |limit: usize| {
            let mut seen = Vec::new();
            let flow = shape.for_each_entry(&mut |k, v| {
                seen.push((k.to_owned(), v.to_json()));
                if seen.len() == limit {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
            (seen, flow)
        };
        let entries: Vec<_> = shape
            .entries()
            .map(|(k, v)| (k.to_owned(), v.to_json()))
            .collect();
        assert_eq!(
            entries,
            [
                ("b".to_owned(), json!(2)),
                ("c".to_owned(), json!([true])),
                ("z".to_owned(), json!(1))
            ]
        );
        assert_eq!(
            collect(usize::MAX),
            (entries.clone(), ControlFlow::Continue(()))
        );
        assert_eq!(collect(2), (entries[..2].to_vec(), ControlFlow::Break(())));
        // The trait's default walks `entries()` the same way.
        let map: std::collections::BTreeMap<String, i64> =
            [("x".to_owned(), 1), ("y".to_owned(), 2)].into();
        let mut seen = Vec::new();
        let flow = ObjectView::for_each_entry(&map, &mut |k, _| {
            seen.push(k.to_owned());
            ControlFlow::Break(())
        });
        assert_eq!((seen, flow), (vec!["x".to_owned()], ControlFlow::Break(())));
    }

    #[test]
    fn leaves_read_as_serde_reads_them() {
        assert_eq!(decode::<String>(json!("x")), Ok("x".to_owned()));
        assert_eq!(
            decode::<String>(json!(1)),
            Err("invalid type: integer `1`, expected a string".to_owned())
        );
        assert_eq!(decode::<i64>(json!(-3)), Ok(-3));
        assert_eq!(
            decode::<i64>(json!(2.5)),
            Err("invalid type: floating point `2.5`, expected i64".to_owned())
        );
        assert_eq!(
            decode::<i64>(json!(u64::MAX)),
            Err(format!(
                "invalid value: integer `{}`, expected i64",
                u64::MAX
            ))
        );
        assert_eq!(decode::<f64>(json!(3)), Ok(3.0));
        assert_eq!(decode::<bool>(json!(true)), Ok(true));
        assert_eq!(decode::<Option<bool>>(json!(null)), Ok(None));
        assert_eq!(decode::<Vec<i64>>(json!([1, 2])), Ok(vec![1, 2]));
        assert_eq!(
            decode::<Vec<i64>>(json!({})),
            Err("invalid type: map, expected an array".to_owned())
        );
        assert_eq!(decode::<Json>(json!(null)), Ok(Json::Null));
        let big = templiqx_contracts::json::parse("123456789012345678901234567890").unwrap();
        assert!(i64::decode::<Error>(big.clone()).is_err());
        assert_eq!(
            Json::decode::<Error>(big.clone()).map(|j| j.to_string()),
            Ok("123456789012345678901234567890".to_owned())
        );
    }

    #[test]
    fn fields_take_members_and_keep_or_refuse_the_rest() {
        let shape: Shape = decode(json!({"b": 1, "a": null, "c": null, "z": [1]})).unwrap();
        assert_eq!(shape.b, 1);
        assert_eq!(shape.a, Some(None), "a present null of a nullable field");
        assert_eq!(
            shape.c,
            Some(Json::Null),
            "a present null of an untyped field"
        );
        assert_eq!(shape.extra.len(), 1);
        let shape: Shape = decode(json!({"b": 1})).unwrap();
        assert_eq!((shape.a, shape.c), (None, None), "absent members");
        assert_eq!(
            decode::<Shape>(json!({"a": "x"})),
            Err("missing field `b`".to_owned())
        );
        assert_eq!(
            decode::<Shape>(json!([])),
            Err("invalid type: sequence, expected an object".to_owned())
        );
        let closed = Fields::<Error>::of::<Shape>(json(json!({"b": 1, "zip": 2})), true);
        assert_eq!(
            closed.err().map(|e| e.to_string()),
            Some("unknown field `zip`, expected one of `a`, `b`, `c`".to_owned())
        );
    }

    #[test]
    fn variants_read_their_values() {
        let read =
            |v| variant::<Tone, Error>(json(v), &["warm", "cold"], &[Tone::Warm, Tone::Cold]);
        assert_eq!(read(json!("cold")), Ok(Tone::Cold));
        assert_eq!(
            read(json!("hot")).map_err(|e| e.to_string()),
            Err("unknown variant `hot`, expected `warm` or `cold`".to_owned())
        );
        assert_eq!(
            read(json!(1)).map_err(|e| e.to_string()),
            Err("invalid type: integer `1`, expected a string".to_owned())
        );
    }

    #[test]
    fn serde_goes_through_the_view_and_decode() {
        let shape: Shape =
            serde_json::from_value(json!({"z": true, "b": 2, "a": "x", "c": {"k": 1}})).unwrap();
        // Declared members in canonical order, then the extra ones; an
        // absent optional member stays absent.
        assert_eq!(
            serde_json::to_string(&shape).unwrap(),
            r#"{"a":"x","b":2,"c":{"k":1},"z":true}"#
        );
        let absent = Shape {
            a: None,
            c: None,
            extra: JsonMap::new(),
            ..shape
        };
        assert_eq!(serde_json::to_string(&absent).unwrap(), r#"{"b":2}"#);
        let null = Shape {
            a: Some(None),
            ..absent
        };
        assert_eq!(serde_json::to_string(&null).unwrap(), r#"{"a":null,"b":2}"#);
        let wrong = serde_json::from_value::<Shape>(json!({"b": "2"})).unwrap_err();
        assert_eq!(
            wrong.to_string(),
            "invalid type: string \"2\", expected i64"
        );
    }
}
