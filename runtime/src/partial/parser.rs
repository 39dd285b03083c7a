//! The incremental reader: a byte-level state machine over RFC 8259's
//! grammar that keeps its place between deltas and builds the tree of
//! [`Node`]s as it goes.

use super::error::{Expected, PartialError, PartialErrorKind};
use super::view::PartialNode;
use super::{MAX_DEPTH, MAX_INPUT_BYTES};
use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};
use templiqx_contracts::json::{Json, JsonMap, JsonNumber};

/// No key: the node is the root or an array item.
const NO_KEY: u32 = u32::MAX;
/// The `end` of an array or object still open (it is the stack's).
const OPEN: u32 = u32::MAX;
/// Objects with more members than this check a new key against a hash set
/// rather than by comparing it with every earlier key.
const LINEAR_KEYS: u32 = 16;

/// What a node holds.
#[derive(Clone, Debug)]
pub(super) enum Slot {
    /// A number or literal whose text has started; its value is not known.
    Pending(PendingKind),
    Null,
    Bool(bool),
    Number(JsonNumber),
    /// Decoded text `text[start..start + len]`; while the string is open,
    /// `text[start..]` (it is the buffer's tail) and `len` is not kept.
    String {
        start: u32,
        len: u32,
    },
    /// `len` items so far.
    Array {
        len: u32,
    },
    /// `len` members so far.
    Object {
        len: u32,
    },
}

/// The kind of a value whose text has started but whose value is not known
/// until it is complete: numbers, booleans and `null` appear only whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PendingKind {
    /// A number (its first character was `-` or a digit).
    Number,
    /// `true` or `false` (it started with `t` or `f`).
    Bool,
    /// `null` (it started with `n`).
    Null,
}

/// One value of the tree. Nodes are stored in the order their values
/// start (pre-order), so a node's subtree is `nodes[index..end]`, its
/// first child (if any) is at `index + 1` and the next sibling of a closed
/// child is at the child's `end`.
#[derive(Clone, Debug)]
pub(super) struct Node {
    pub(super) slot: Slot,
    /// The member's key, `text[key..key + key_len]`; [`NO_KEY`] for the
    /// root and array items.
    pub(super) key: u32,
    pub(super) key_len: u32,
    /// One past the last node of the subtree; [`OPEN`] for an open array
    /// or object.
    pub(super) end: u32,
    /// Once complete: the delta ([`PartialJson::version`]) that completed
    /// it, its last change. An open value changed in the last delta that
    /// changed anything ([`PartialJson::last_change`]).
    pub(super) changed: u64,
    pub(super) complete: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Num {
    Minus,
    Zero,
    Int,
    Dot,
    Frac,
    Exp,
    ExpSign,
    ExpDigits,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Esc {
    /// Not in an escape.
    None,
    /// After `\`.
    Backslash,
    /// In `\u`: `n` hex digits read into `acc`.
    Hex { n: u8, acc: u16 },
    /// A high surrogate read; `\` must follow.
    High { hi: u16 },
    /// A high surrogate and `\` read; `u` must follow.
    HighBackslash { hi: u16 },
    /// In the low surrogate's `\u`: `n` hex digits into `acc`.
    Low { hi: u16, n: u8, acc: u16 },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// A value must start (the beginning, after `:`, after `,` in an
    /// array).
    Value,
    /// Just after `[`: a value or `]`.
    FirstItem,
    /// Just after `{`: a key or `}`.
    FirstKey,
    /// After `,` in an object: a key.
    Key,
    /// After a key: `:`.
    Colon,
    /// In a string: an object key (`key`) or a value.
    Str {
        key: bool,
        esc: Esc,
    },
    Number(Num),
    /// In `true`, `false` or `null`: `matched` bytes of `word` read.
    Literal {
        word: Word,
        matched: u8,
    },
    /// A value just ended: `,` or the container's end; at the top level,
    /// only white space.
    AfterValue,
}

/// Bytes a string's fast path stops at: `"`, `\` and control characters.
static STRING_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = true;
        i += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

#[inline]
fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t')
}

#[inline]
fn hex(b: u8) -> Option<u16> {
    (b as char).to_digit(16).map(|d| d as u16)
}

/// An incremental reader of one JSON value (RFC 8259) streamed as text
/// deltas, and the partial value it has read so far.
///
/// Feed each delta with [`feed`](Self::feed); look at the value read so
/// far with [`root`](Self::root) at any time; end the stream with
/// [`finish`](Self::finish), which returns the whole value or where the
/// text stopped being JSON. See the [module documentation](super) for the
/// shape of the partial value and what it costs.
#[derive(Clone, Debug)]
pub struct PartialJson {
    /// The tree, in pre-order.
    pub(super) nodes: Vec<Node>,
    /// Every decoded string and key, one after the other (JSON writes one
    /// string at a time).
    pub(super) text: String,
    /// Open arrays and objects, outermost first.
    stack: Vec<u32>,
    state: State,
    /// The string node being written, when `state` is a value string.
    current: u32,
    /// The key read for the member whose value comes next.
    pending_key: (u32, u32),
    /// Where the key being read starts in `text`.
    key_start: u32,
    /// The number being read.
    number: String,
    /// Bytes fed so far.
    consumed: usize,
    /// Deltas fed so far.
    version: u64,
    /// The last delta that changed the partial value. Every change while a
    /// value is open happens inside it (values change only at the end of
    /// the text read, which every open value encloses), so this is the
    /// `changed` of every open value.
    pub(super) last_change: u64,
    /// Keys of objects with more than [`LINEAR_KEYS`] members: (object,
    /// hash of the key).
    key_index: HashSet<(u32, u64)>,
    hasher: RandomState,
    error: Option<PartialError>,
}

impl Default for PartialJson {
    fn default() -> Self {
        Self::new()
    }
}

impl PartialJson {
    /// A reader that has read nothing.
    pub fn new() -> Self {
        PartialJson {
            nodes: Vec::new(),
            text: String::new(),
            stack: Vec::new(),
            state: State::Value,
            current: 0,
            pending_key: (NO_KEY, 0),
            key_start: 0,
            number: String::new(),
            consumed: 0,
            version: 0,
            last_change: 0,
            key_index: HashSet::new(),
            hasher: RandomState::new(),
            error: None,
        }
    }

    /// Reads one delta: the next `&str` chunk of the text, split anywhere
    /// (inside a string, an escape, a number, a literal, white space).
    ///
    /// Every call counts as one [`version`](Self::version); the values it
    /// changes are stamped with it ([`PartialNode::changed`]). The work is
    /// proportional to the delta's length, never to what was read before.
    ///
    /// # Errors
    /// The first place where the stream stops being the start of a JSON
    /// text ([`PartialError`]); the reader keeps the error and returns it
    /// again for every later delta, and the partial value stays as it was
    /// before the offending character.
    #[inline(always)]
    pub fn feed(&mut self, delta: &str) -> Result<(), PartialError> {
        // The commonest small delta: more of a string, with nothing in it
        // that ends the string or starts an escape.
        if let State::Str {
            key,
            esc: Esc::None,
        } = self.state
            && self.error.is_none()
            && delta.len() <= MAX_INPUT_BYTES - self.consumed
            && delta.len() <= 16
            && !delta.bytes().any(|b| STRING_STOP[b as usize])
        {
            self.version += 1;
            if let &[b] = delta.as_bytes()
                && b.is_ascii()
            {
                // (A one-byte `str` is always ASCII; saying so lets the
                // compiler push one byte.)
                self.text.push(b as char);
            } else {
                self.text.push_str(delta);
            }
            self.grew(key);
            self.consumed += delta.len();
            return Ok(());
        }
        self.feed_any(delta)
    }

    /// [`feed`](Self::feed), for any delta in any state.
    #[inline(never)]
    fn feed_any(&mut self, delta: &str) -> Result<(), PartialError> {
        if let Some(error) = &self.error {
            return Err(error.clone());
        }
        self.version += 1;
        if delta.len() > MAX_INPUT_BYTES - self.consumed {
            return Err(self.fail(PartialError {
                offset: self.consumed,
                found: delta.chars().next(),
                kind: PartialErrorKind::TooLarge,
            }));
        }
        match self.read(delta) {
            Ok(()) => {
                self.consumed += delta.len();
                Ok(())
            }
            Err(error) => Err(self.fail(error)),
        }
    }

    /// Ends the stream and returns the value: equal to what the runtime's
    /// strict reader (`templiqx_contracts::json::parse`, over `serde_json`)
    /// reads from the whole text.
    ///
    /// # Errors
    /// The error [`feed`](Self::feed) returned, or, for a text that ended
    /// too soon (nothing but white space, an open string, array or object,
    /// a number ending in `-`, `.` or `e`, part of a literal), an
    /// [`Expected`] at the end of the input; a top-level number that
    /// overflows a double is [`PartialErrorKind::NumberOutOfRange`].
    pub fn finish(mut self) -> Result<Json, PartialError> {
        self.end()?;
        // The root is complete: every node was closed.
        Ok(self.build(0).0)
    }

    /// Ends the input, keeping the reader and its partial value: a
    /// top-level number still being written is complete from here on (a
    /// number ends when the input does), stamped with a new
    /// [`version`](Self::version). Calling it again does nothing more.
    ///
    /// # Errors
    /// As [`finish`](Self::finish): the reader keeps the error, so a later
    /// [`feed`](Self::feed) or `end` returns it too.
    pub fn end(&mut self) -> Result<(), PartialError> {
        if let Some(error) = &self.error {
            return Err(error.clone());
        }
        let at = self.consumed;
        let end = |expected| PartialError {
            offset: at,
            found: None,
            kind: PartialErrorKind::Unexpected(expected),
        };
        match self.state {
            State::Number(n) if self.stack.is_empty() && number_can_end(n) => {
                self.version += 1;
                if let Err(error) = self.end_number(at, None) {
                    return Err(self.fail(error));
                }
            }
            State::AfterValue if self.stack.is_empty() => {}
            // A number that overflows is that first, as `serde_json` says.
            State::Number(n) if number_can_end(n) && JsonNumber::parse(&self.number).is_none() => {
                return Err(self.fail(PartialError {
                    offset: at,
                    found: None,
                    kind: PartialErrorKind::NumberOutOfRange,
                }));
            }
            state => {
                let error = end(self.expected(state));
                return Err(self.fail(error));
            }
        }
        Ok(())
    }

    /// The value read so far; `None` until its first character.
    pub fn root(&self) -> Option<PartialNode<'_>> {
        (!self.nodes.is_empty()).then(|| PartialNode::new(self, 0))
    }

    /// The value with [`id`](PartialNode::id) `id`, as an earlier walk
    /// found it (ids are stable for the whole stream): O(1). `None` for an
    /// id no value has yet. With [`PartialArray::iter_from`] and
    /// [`PartialObject::iter_from`], a consumer resumes a walk where it
    /// left off.
    ///
    /// [`PartialArray::iter_from`]: super::PartialArray::iter_from
    /// [`PartialObject::iter_from`]: super::PartialObject::iter_from
    pub fn node(&self, id: usize) -> Option<PartialNode<'_>> {
        (id < self.nodes.len()).then(|| PartialNode::new(self, id as u32))
    }

    /// How many deltas were fed: the stamp [`feed`](Self::feed) gives the
    /// values it changes. A value whose [`changed`](PartialNode::changed)
    /// is below the stamp a consumer last saw is unchanged since, with
    /// everything inside it.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Bytes read so far (UTF-8), over all deltas; the offsets of
    /// [`PartialError`] count the same way.
    pub fn bytes_read(&self) -> usize {
        self.consumed
    }

    /// The error that stopped the reader, if any.
    pub fn error(&self) -> Option<&PartialError> {
        self.error.as_ref()
    }

    /// Whether the value is complete: everything after it can only be
    /// white space (a top-level number is complete only once something
    /// follows it, or at [`finish`](Self::finish)).
    pub fn is_complete(&self) -> bool {
        self.error.is_none() && self.state == State::AfterValue && self.stack.is_empty()
    }

    fn fail(&mut self, error: PartialError) -> PartialError {
        self.error = Some(error.clone());
        error
    }

    /// The owned value of a complete node and the index after its subtree.
    pub(super) fn build(&self, index: u32) -> (Json, u32) {
        let node = &self.nodes[index as usize];
        let json = match &node.slot {
            Slot::Null | Slot::Pending(_) => Json::Null,
            Slot::Bool(b) => Json::Bool(*b),
            Slot::Number(n) => Json::Number(n.clone()),
            Slot::String { start, len } => {
                Json::String(self.text[*start as usize..(start + len) as usize].to_owned())
            }
            Slot::Array { len } => {
                let mut items = Vec::with_capacity(*len as usize);
                let mut child = index + 1;
                for _ in 0..*len {
                    let (item, next) = self.build(child);
                    items.push(item);
                    child = next;
                }
                Json::Array(items)
            }
            Slot::Object { len } => {
                let mut members = JsonMap::new();
                let mut child = index + 1;
                for _ in 0..*len {
                    let (value, next) = self.build(child);
                    members.insert(self.key_of(child).to_owned(), value);
                    child = next;
                }
                Json::Object(members)
            }
        };
        (json, node.end)
    }

    pub(super) fn key_of(&self, index: u32) -> &str {
        let node = &self.nodes[index as usize];
        if node.key == NO_KEY {
            return "";
        }
        &self.text[node.key as usize..(node.key + node.key_len) as usize]
    }

    pub(super) fn has_key(&self, index: u32) -> bool {
        self.nodes[index as usize].key != NO_KEY
    }

    /// What could follow in `state` (for an error at the end of input).
    fn expected(&self, state: State) -> Expected {
        match state {
            State::Value => Expected::Value,
            State::FirstItem => Expected::ValueOrArrayEnd,
            State::FirstKey => Expected::KeyOrObjectEnd,
            State::Key => Expected::Key,
            State::Colon => Expected::Colon,
            State::Str { esc, .. } => match esc {
                Esc::None => Expected::StringCharacter,
                Esc::Backslash => Expected::Escape,
                Esc::Hex { .. } | Esc::Low { .. } => Expected::HexDigit,
                Esc::High { .. } | Esc::HighBackslash { .. } => Expected::LowSurrogate,
            },
            State::Number(n) => match n {
                Num::Minus | Num::Dot | Num::ExpSign => Expected::Digit,
                Num::Exp => Expected::ExponentDigitOrSign,
                _ => self.after_value(),
            },
            State::Literal { word, .. } => Expected::Literal(word.name()),
            State::AfterValue => self.after_value(),
        }
    }

    /// What follows a value in the innermost open container.
    fn after_value(&self) -> Expected {
        match self.stack.last() {
            None => Expected::End,
            Some(&top) => match self.nodes[top as usize].slot {
                Slot::Object { .. } => Expected::CommaOrObjectEnd,
                _ => Expected::CommaOrArrayEnd,
            },
        }
    }

    /// Stamps `index`, which changed in this delta (and so did every open
    /// value: they all enclose it). O(1): no walk up the tree.
    #[inline]
    fn touch(&mut self, index: u32) {
        self.nodes[index as usize].changed = self.version;
        self.last_change = self.version;
    }

    /// Starts a value in the innermost open container (or as the root).
    fn push_node(&mut self, slot: Slot, complete: bool) -> u32 {
        let index = self.nodes.len() as u32;
        let (key, key_len) = match self.stack.last() {
            Some(&parent) => {
                let parent = &mut self.nodes[parent as usize];
                match &mut parent.slot {
                    Slot::Array { len } => {
                        *len += 1;
                        (NO_KEY, 0)
                    }
                    Slot::Object { len } => {
                        *len += 1;
                        self.pending_key
                    }
                    _ => (NO_KEY, 0),
                }
            }
            None => (NO_KEY, 0),
        };
        self.nodes.push(Node {
            slot,
            key,
            key_len,
            end: index + 1,
            changed: 0,
            complete,
        });
        self.touch(index);
        index
    }

    fn unexpected(&self, at: usize, found: char, expected: Expected) -> PartialError {
        PartialError {
            offset: at,
            found: Some(found),
            kind: PartialErrorKind::Unexpected(expected),
        }
    }

    /// The value whose first byte is `c` (at stream offset `at`; `delta[i]`).
    fn start_value(
        &mut self,
        delta: &str,
        i: usize,
        at: usize,
        expected: Expected,
    ) -> Result<(), PartialError> {
        let c = delta.as_bytes()[i];
        match c {
            b'{' | b'[' => {
                if self.stack.len() >= MAX_DEPTH {
                    return Err(PartialError {
                        offset: at,
                        found: Some(c as char),
                        kind: PartialErrorKind::TooDeep,
                    });
                }
                let (slot, state) = if c == b'{' {
                    (Slot::Object { len: 0 }, State::FirstKey)
                } else {
                    (Slot::Array { len: 0 }, State::FirstItem)
                };
                let index = self.push_node(slot, false);
                self.nodes[index as usize].end = OPEN;
                self.stack.push(index);
                self.state = state;
            }
            b'"' => {
                let start = self.text.len() as u32;
                self.current = self.push_node(Slot::String { start, len: 0 }, false);
                self.state = State::Str {
                    key: false,
                    esc: Esc::None,
                };
            }
            b'-' | b'0'..=b'9' => {
                self.push_node(Slot::Pending(PendingKind::Number), false);
                self.number.clear();
                self.number.push(c as char);
                self.state = State::Number(match c {
                    b'-' => Num::Minus,
                    b'0' => Num::Zero,
                    _ => Num::Int,
                });
            }
            b't' | b'f' | b'n' => {
                let (word, kind) = match c {
                    b't' => (Word::True, PendingKind::Bool),
                    b'f' => (Word::False, PendingKind::Bool),
                    _ => (Word::Null, PendingKind::Null),
                };
                self.push_node(Slot::Pending(kind), false);
                self.state = State::Literal { word, matched: 1 };
            }
            _ => return Err(self.unexpected(at, char_at(delta, i), expected)),
        }
        Ok(())
    }

    /// The last node (a pending scalar) becomes `slot`, complete.
    fn complete_scalar(&mut self, slot: Slot) {
        let index = self.nodes.len() as u32 - 1;
        let node = &mut self.nodes[index as usize];
        node.slot = slot;
        node.complete = true;
        self.touch(index);
        self.state = State::AfterValue;
    }

    /// The number in `self.number` ended at stream offset `at`, before
    /// `found` (`None`: the input's end).
    fn end_number(&mut self, at: usize, found: Option<char>) -> Result<(), PartialError> {
        match JsonNumber::parse(&self.number) {
            Some(n) => {
                self.complete_scalar(Slot::Number(n));
                Ok(())
            }
            None => Err(PartialError {
                offset: at,
                found,
                kind: PartialErrorKind::NumberOutOfRange,
            }),
        }
    }

    /// Closes the innermost array or object.
    fn close(&mut self) {
        if let Some(index) = self.stack.pop() {
            let end = self.nodes.len() as u32;
            let node = &mut self.nodes[index as usize];
            node.end = end;
            node.complete = true;
            self.touch(index);
        }
        self.state = State::AfterValue;
    }

    /// A string's character (or run of them) was decoded: an open value
    /// string changed (its length is the buffer's tail).
    #[inline]
    fn grew(&mut self, key: bool) {
        if !key {
            self.last_change = self.version;
        }
    }

    fn push_char(
        &mut self,
        key: bool,
        code: u32,
        at: usize,
        found: char,
    ) -> Result<(), PartialError> {
        match char::from_u32(code) {
            Some(c) => {
                self.text.push(c);
                self.grew(key);
                Ok(())
            }
            // Unreachable: surrogates are handled before.
            None => Err(PartialError {
                offset: at,
                found: Some(found),
                kind: PartialErrorKind::LoneSurrogate,
            }),
        }
    }

    /// The closing quote of a string, at stream offset `at`.
    fn end_string(&mut self, key: bool, at: usize) -> Result<(), PartialError> {
        if key {
            let start = self.key_start;
            let len = self.text.len() as u32 - start;
            self.check_new_key(start, len, at)?;
            self.pending_key = (start, len);
            self.state = State::Colon;
        } else {
            let current = self.current;
            let end = self.text.len() as u32;
            let node = &mut self.nodes[current as usize];
            if let Slot::String { start, len } = &mut node.slot {
                *len = end - *start;
            }
            node.complete = true;
            self.touch(current);
            self.state = State::AfterValue;
        }
        Ok(())
    }

    /// Fails when the innermost object already has the key
    /// `text[start..start + len]`.
    fn check_new_key(&mut self, start: u32, len: u32, at: usize) -> Result<(), PartialError> {
        let Some(&object) = self.stack.last() else {
            return Ok(());
        };
        let Slot::Object { len: members } = self.nodes[object as usize].slot else {
            return Ok(());
        };
        let key = &self.text[start as usize..(start + len) as usize];
        let duplicate = if members < LINEAR_KEYS {
            self.member_named(object, members, key)
        } else {
            if members == LINEAR_KEYS {
                // From now on, through the index: enter the earlier keys.
                let mut child = object + 1;
                for _ in 0..members {
                    let entry = (object, self.hasher.hash_one(self.key_of(child)));
                    self.key_index.insert(entry);
                    child = self.nodes[child as usize].end;
                }
            }
            let hash = self.hasher.hash_one(key);
            // A hash seen before is a duplicate or (rarely) a collision.
            !self.key_index.insert((object, hash)) && self.member_named(object, members, key)
        };
        if duplicate {
            return Err(PartialError {
                offset: at,
                found: Some('"'),
                kind: PartialErrorKind::DuplicateKey(key.to_owned()),
            });
        }
        Ok(())
    }

    /// Whether one of the `members` (closed) members of `object` is `key`.
    fn member_named(&self, object: u32, members: u32, key: &str) -> bool {
        let mut child = object + 1;
        for _ in 0..members {
            if self.key_of(child) == key {
                return true;
            }
            child = self.nodes[child as usize].end;
        }
        false
    }

    /// The state machine over one delta.
    fn read(&mut self, delta: &str) -> Result<(), PartialError> {
        let bytes = delta.as_bytes();
        let base = self.consumed;
        let mut i = 0;
        while i < bytes.len() {
            match self.state {
                State::Str {
                    key,
                    esc: Esc::None,
                } => {
                    let start = i;
                    while i < bytes.len() && !STRING_STOP[bytes[i] as usize] {
                        i += 1;
                    }
                    if i > start {
                        if i == start + 1 && bytes[start].is_ascii() {
                            // (One byte between ASCII bytes or the ends is
                            // ASCII; saying so lets the compiler push it.)
                            self.text.push(bytes[start] as char);
                        } else {
                            // `start` and `i` are at ASCII bytes or the ends.
                            self.text.push_str(&delta[start..i]);
                        }
                        self.grew(key);
                    }
                    let Some(&c) = bytes.get(i) else { break };
                    match c {
                        b'"' => self.end_string(key, base + i)?,
                        b'\\' => {
                            self.state = State::Str {
                                key,
                                esc: Esc::Backslash,
                            }
                        }
                        _ => {
                            return Err(self.unexpected(
                                base + i,
                                c as char,
                                Expected::StringCharacter,
                            ));
                        }
                    }
                    i += 1;
                }
                State::Str { key, esc } => {
                    self.escape(delta, i, base + i, key, esc)?;
                    i += 1;
                }
                State::Value | State::FirstItem | State::FirstKey | State::Key | State::Colon => {
                    while i < bytes.len() && is_ws(bytes[i]) {
                        i += 1;
                    }
                    let Some(&c) = bytes.get(i) else { break };
                    self.structural(delta, i, base + i, c)?;
                    i += 1;
                }
                State::Number(n) => {
                    let c = bytes[i];
                    let next = match (n, c) {
                        (Num::Minus, b'0') => Num::Zero,
                        (Num::Minus, b'1'..=b'9') => Num::Int,
                        (Num::Int, b'0'..=b'9') => Num::Int,
                        (Num::Zero, b'0'..=b'9') => {
                            return Err(self.unexpected(
                                base + i,
                                c as char,
                                Expected::AfterLeadingZero,
                            ));
                        }
                        (Num::Zero | Num::Int, b'.') => Num::Dot,
                        (Num::Dot | Num::Frac, b'0'..=b'9') => Num::Frac,
                        (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Num::Exp,
                        (Num::Exp, b'+' | b'-') => Num::ExpSign,
                        (Num::Exp | Num::ExpSign | Num::ExpDigits, b'0'..=b'9') => Num::ExpDigits,
                        _ if number_can_end(n) => {
                            // The number ended before `c`, which the next
                            // state reads.
                            self.end_number(base + i, Some(char_at(delta, i)))?;
                            continue;
                        }
                        _ => {
                            let expected = match n {
                                Num::Exp => Expected::ExponentDigitOrSign,
                                _ => Expected::Digit,
                            };
                            return Err(self.unexpected(base + i, char_at(delta, i), expected));
                        }
                    };
                    let start = i;
                    i += 1;
                    if matches!(next, Num::Int | Num::Frac | Num::ExpDigits) {
                        while i < bytes.len() && bytes[i].is_ascii_digit() {
                            i += 1;
                        }
                    }
                    self.number.push_str(&delta[start..i]);
                    self.state = State::Number(next);
                }
                State::Literal { word, matched } => {
                    let c = bytes[i];
                    let text = word.name().as_bytes();
                    if c != text[matched as usize] {
                        return Err(self.unexpected(
                            base + i,
                            char_at(delta, i),
                            Expected::Literal(word.name()),
                        ));
                    }
                    i += 1;
                    let matched = matched + 1;
                    if matched as usize == text.len() {
                        self.complete_scalar(match word {
                            Word::True => Slot::Bool(true),
                            Word::False => Slot::Bool(false),
                            Word::Null => Slot::Null,
                        });
                    } else {
                        self.state = State::Literal { word, matched };
                    }
                }
                State::AfterValue => {
                    while i < bytes.len() && is_ws(bytes[i]) {
                        i += 1;
                    }
                    let Some(&c) = bytes.get(i) else { break };
                    let at = base + i;
                    let Some(&top) = self.stack.last() else {
                        return Err(self.unexpected(at, char_at(delta, i), Expected::End));
                    };
                    let object = matches!(self.nodes[top as usize].slot, Slot::Object { .. });
                    match (object, c) {
                        (false, b',') => self.state = State::Value,
                        (true, b',') => self.state = State::Key,
                        (false, b']') | (true, b'}') => self.close(),
                        (false, _) => {
                            return Err(self.unexpected(
                                at,
                                char_at(delta, i),
                                Expected::CommaOrArrayEnd,
                            ));
                        }
                        (true, _) => {
                            return Err(self.unexpected(
                                at,
                                char_at(delta, i),
                                Expected::CommaOrObjectEnd,
                            ));
                        }
                    }
                    i += 1;
                }
            }
        }
        Ok(())
    }

    /// A non-white-space byte `c` in a state between tokens.
    fn structural(&mut self, delta: &str, i: usize, at: usize, c: u8) -> Result<(), PartialError> {
        match self.state {
            State::Value => self.start_value(delta, i, at, Expected::Value),
            State::FirstItem if c == b']' => {
                self.close();
                Ok(())
            }
            State::FirstItem => self.start_value(delta, i, at, Expected::ValueOrArrayEnd),
            State::FirstKey | State::Key if c == b'"' => {
                self.key_start = self.text.len() as u32;
                self.state = State::Str {
                    key: true,
                    esc: Esc::None,
                };
                Ok(())
            }
            State::FirstKey if c == b'}' => {
                self.close();
                Ok(())
            }
            State::FirstKey => {
                Err(self.unexpected(at, char_at(delta, i), Expected::KeyOrObjectEnd))
            }
            State::Key => Err(self.unexpected(at, char_at(delta, i), Expected::Key)),
            State::Colon if c == b':' => {
                self.state = State::Value;
                Ok(())
            }
            _ => Err(self.unexpected(at, char_at(delta, i), Expected::Colon)),
        }
    }

    /// One byte of an escape (`esc` is not [`Esc::None`]).
    fn escape(
        &mut self,
        delta: &str,
        i: usize,
        at: usize,
        key: bool,
        esc: Esc,
    ) -> Result<(), PartialError> {
        let c = delta.as_bytes()[i];
        let found = char_at(delta, i);
        let mut next = Esc::None;
        match esc {
            Esc::None => {}
            Esc::Backslash => {
                let decoded = match c {
                    b'"' => '"',
                    b'\\' => '\\',
                    b'/' => '/',
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    b'u' => {
                        self.state = State::Str {
                            key,
                            esc: Esc::Hex { n: 0, acc: 0 },
                        };
                        return Ok(());
                    }
                    _ => return Err(self.unexpected(at, found, Expected::Escape)),
                };
                self.text.push(decoded);
                self.grew(key);
            }
            Esc::Hex { n, acc } => {
                let Some(d) = hex(c) else {
                    return Err(self.unexpected(at, found, Expected::HexDigit));
                };
                let acc = acc << 4 | d;
                // After two digits, `DC`..`DF` can only be a low surrogate
                // with nothing before it.
                if n == 1 && (0xDC..=0xDF).contains(&acc) {
                    return Err(lone(at, found));
                }
                if n < 3 {
                    next = Esc::Hex { n: n + 1, acc };
                } else if (0xD800..=0xDBFF).contains(&acc) {
                    next = Esc::High { hi: acc };
                } else {
                    self.push_char(key, u32::from(acc), at, found)?;
                }
            }
            Esc::High { hi } => {
                if c != b'\\' {
                    return Err(lone(at, found));
                }
                next = Esc::HighBackslash { hi };
            }
            Esc::HighBackslash { hi } => {
                if c != b'u' {
                    return Err(lone(at, found));
                }
                next = Esc::Low { hi, n: 0, acc: 0 };
            }
            Esc::Low { hi, n, acc } => {
                let Some(d) = hex(c) else {
                    return Err(self.unexpected(at, found, Expected::HexDigit));
                };
                let acc = acc << 4 | d;
                // The digits so far must still be able to spell
                // `DC00`..`DFFF`.
                let fits = match n {
                    0 => acc == 0xD,
                    1 => (0xDC..=0xDF).contains(&acc),
                    _ => true,
                };
                if !fits {
                    return Err(lone(at, found));
                }
                if n < 3 {
                    next = Esc::Low { hi, n: n + 1, acc };
                } else {
                    let code =
                        0x10000 + ((u32::from(hi) - 0xD800) << 10) + (u32::from(acc) - 0xDC00);
                    self.push_char(key, code, at, found)?;
                }
            }
        }
        self.state = State::Str { key, esc: next };
        Ok(())
    }
}

fn lone(at: usize, found: char) -> PartialError {
    PartialError {
        offset: at,
        found: Some(found),
        kind: PartialErrorKind::LoneSurrogate,
    }
}

fn number_can_end(n: Num) -> bool {
    matches!(n, Num::Zero | Num::Int | Num::Frac | Num::ExpDigits)
}

/// A literal's word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Word {
    True,
    False,
    Null,
}

impl Word {
    fn name(self) -> &'static str {
        match self {
            Word::True => "true",
            Word::False => "false",
            Word::Null => "null",
        }
    }
}

/// The character starting at byte `i` of `delta` (`i` is on a boundary:
/// every byte the machine stops at is ASCII or starts a character).
fn char_at(delta: &str, i: usize) -> char {
    delta
        .get(i..)
        .and_then(|s| s.chars().next())
        .unwrap_or('\u{FFFD}')
}
