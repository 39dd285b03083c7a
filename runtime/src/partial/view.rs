//! Borrowed views of the partial value: [`PartialNode`] and what it holds.

use super::parser::{Node, PartialJson, PendingKind, Slot};
use std::fmt;
use templiqx_contracts::json::{Json, JsonNumber};

/// Whether a value is still being written or done.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Completion {
    /// More of it may come: a string without its closing quote, an array
    /// or object without its closing bracket, a number or literal not yet
    /// ended.
    Writing,
    /// Its text is complete; it will not change again.
    Done,
}

/// One value of the partial tree, borrowed from the [`PartialJson`] that
/// read it; `Copy`, two words.
#[derive(Clone, Copy)]
pub struct PartialNode<'p> {
    parser: &'p PartialJson,
    index: u32,
}

impl<'p> PartialNode<'p> {
    pub(super) fn new(parser: &'p PartialJson, index: u32) -> Self {
        PartialNode { parser, index }
    }

    fn node(self) -> &'p Node {
        &self.parser.nodes[self.index as usize]
    }

    /// The node's place in the order values started (the root is 0): a
    /// value keeps its id for the whole stream, so a consumer can key what
    /// it derived from a value by it.
    pub fn id(self) -> usize {
        self.index as usize
    }

    /// Whether the value is still being written.
    pub fn completion(self) -> Completion {
        if self.node().complete {
            Completion::Done
        } else {
            Completion::Writing
        }
    }

    /// `completion() == Completion::Done`.
    pub fn is_done(self) -> bool {
        self.node().complete
    }

    /// The [`PartialJson::version`] (the delta, counted from 1) that last
    /// changed this value or a value inside it: it appeared, a string
    /// grew, an item or member appeared, a number or literal completed, or
    /// it became [`Done`](Completion::Done). A consumer that remembers the
    /// version it last looked at skips every subtree whose `changed` is not
    /// above it.
    pub fn changed(self) -> u64 {
        let node = self.node();
        if node.complete {
            node.changed
        } else {
            // Every change while a value is open is inside it.
            self.parser.last_change
        }
    }

    /// What the value holds so far.
    pub fn value(self) -> PartialValue<'p> {
        let p = self.parser;
        match &self.node().slot {
            Slot::Pending(kind) => PartialValue::Pending(*kind),
            Slot::Null => PartialValue::Null,
            Slot::Bool(b) => PartialValue::Bool(*b),
            Slot::Number(n) => PartialValue::Number(n),
            Slot::String { start, len } => PartialValue::String(if self.node().complete {
                &p.text[*start as usize..(start + len) as usize]
            } else {
                // The open string is the buffer's tail.
                &p.text[*start as usize..]
            }),
            Slot::Array { len } => PartialValue::Array(PartialArray(Children {
                parser: p,
                next: self.index + 1,
                remaining: *len,
            })),
            Slot::Object { len } => PartialValue::Object(PartialObject(Children {
                parser: p,
                next: self.index + 1,
                remaining: *len,
            })),
        }
    }

    /// The key of an object member; `None` for the root and array items.
    pub fn key(self) -> Option<&'p str> {
        self.parser
            .has_key(self.index)
            .then(|| self.parser.key_of(self.index))
    }

    /// The value as an owned [`Json`] once it is [`Done`](Completion::Done)
    /// (equal to what the strict reader reads from its text); `None` while
    /// it is being written.
    pub fn to_json(self) -> Option<Json> {
        self.is_done().then(|| self.parser.build(self.index).0)
    }
}

impl fmt::Debug for PartialNode<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let done = if self.is_done() { "" } else { "…" };
        match self.value() {
            PartialValue::Pending(kind) => write!(f, "{kind:?}…"),
            PartialValue::Null => f.write_str("null"),
            PartialValue::Bool(b) => write!(f, "{b}"),
            PartialValue::Number(n) => write!(f, "{n}"),
            PartialValue::String(s) => write!(f, "{s:?}{done}"),
            PartialValue::Array(a) => {
                f.debug_list().entries(a.iter()).finish()?;
                f.write_str(done)
            }
            PartialValue::Object(o) => {
                f.debug_map().entries(o.iter()).finish()?;
                f.write_str(done)
            }
        }
    }
}

/// What a [`PartialNode`] holds so far.
#[derive(Clone, Copy, Debug)]
pub enum PartialValue<'p> {
    /// A number, boolean or `null` whose text has started but is not
    /// complete: its value is not known yet (a number is complete when a
    /// character that cannot continue it follows, or the input ends; a
    /// literal with its last letter).
    Pending(PendingKind),
    /// `null`, complete.
    Null,
    /// `true` or `false`, complete.
    Bool(bool),
    /// A complete number, exact as the strict reader reads it (integers of
    /// any size).
    Number(&'p JsonNumber),
    /// The string's text decoded so far (escapes resolved; an escape or a
    /// surrogate pair split by a delta appears once complete): it only
    /// grows, and is the whole string once the node is
    /// [`Done`](Completion::Done).
    String(&'p str),
    /// The items that have started, in order; the last may be
    /// [`Writing`](Completion::Writing).
    Array(PartialArray<'p>),
    /// The members whose value has started, in the order written; the last
    /// may be [`Writing`](Completion::Writing). A key alone (no value
    /// started) is not a member yet.
    Object(PartialObject<'p>),
}

/// The children of an array or object: walking them is O(1) a step (the
/// next sibling of a child is stored), never a search.
#[derive(Clone, Copy)]
struct Children<'p> {
    parser: &'p PartialJson,
    next: u32,
    remaining: u32,
}

impl<'p> Iterator for Children<'p> {
    type Item = PartialNode<'p>;

    fn next(&mut self) -> Option<PartialNode<'p>> {
        if self.remaining == 0 {
            return None;
        }
        let Some(current) = self.parser.nodes.get(self.next as usize) else {
            // Only a start handed to `iter_from` that is not the item it
            // was said to be can lead here; end rather than panic.
            self.remaining = 0;
            return None;
        };
        let node = PartialNode::new(self.parser, self.next);
        self.remaining -= 1;
        if self.remaining > 0 {
            // Every child but the last is closed: its `end` is its next
            // sibling.
            self.next = current.end;
        }
        Some(node)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining as usize, Some(self.remaining as usize))
    }
}

/// The items of a partial array.
#[derive(Clone, Copy)]
pub struct PartialArray<'p>(Children<'p>);

impl<'p> PartialArray<'p> {
    /// How many items have started.
    pub fn len(self) -> usize {
        self.0.remaining as usize
    }

    /// No item has started.
    pub fn is_empty(self) -> bool {
        self.0.remaining == 0
    }

    /// The items in order.
    pub fn iter(self) -> impl ExactSizeIterator<Item = PartialNode<'p>> {
        self.0
    }

    /// The item at `index` (a walk over the items before it: O(index)).
    pub fn get(self, index: usize) -> Option<PartialNode<'p>> {
        self.0.clone().nth(index)
    }

    /// The items from the one at `index` on, given that item as an earlier
    /// walk found it (ids are stable, so a consumer can keep it): O(1) to
    /// start, where `iter().skip(index)` walks the items before it. What a
    /// consumer that follows the stream uses to resume at the item it
    /// last saw being written. `None` when `item` cannot be the item at
    /// `index` (another reader's node, a node before this array's first
    /// item, `index` not below [`len`](Self::len)).
    pub fn iter_from(
        self,
        index: usize,
        item: PartialNode<'p>,
    ) -> Option<impl ExactSizeIterator<Item = PartialNode<'p>>> {
        self.0.from(index, item)
    }
}

impl<'p> ExactSizeIterator for Children<'p> {}

impl<'p> Children<'p> {
    /// The children from the one at `index` on, starting at `child` (which
    /// an earlier walk found at `index`): O(1), where skipping walks the
    /// children before it. `None` when `child` cannot be that child: from
    /// another reader, not after this container's first child, or
    /// `index` not below the count. (A node inside the container that is
    /// not its `index`-th child gives wrong children, never a panic.)
    fn from(self, index: usize, child: PartialNode<'p>) -> Option<Children<'p>> {
        let first = self.next;
        let fits = std::ptr::eq(self.parser, child.parser)
            && index < self.remaining as usize
            && child.index >= first
            && (index > 0 || child.index == first)
            && (child.index as usize) < self.parser.nodes.len();
        fits.then(|| Children {
            parser: self.parser,
            next: child.index,
            remaining: self.remaining - index as u32,
        })
    }
}

impl fmt::Debug for PartialArray<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The members of a partial object.
#[derive(Clone, Copy)]
pub struct PartialObject<'p>(Children<'p>);

impl<'p> PartialObject<'p> {
    /// How many members have a value that started.
    pub fn len(self) -> usize {
        self.0.remaining as usize
    }

    /// No member has started.
    pub fn is_empty(self) -> bool {
        self.0.remaining == 0
    }

    /// The members as (key, value), in the order written.
    pub fn iter(self) -> impl ExactSizeIterator<Item = (&'p str, PartialNode<'p>)> {
        let parser = self.0.parser;
        self.0.map(move |node| (parser.key_of(node.index), node))
    }

    /// The members from the one at `index` on, given that member's value
    /// as an earlier walk found it: [`PartialArray::iter_from`] for
    /// members.
    pub fn iter_from(
        self,
        index: usize,
        member: PartialNode<'p>,
    ) -> Option<impl ExactSizeIterator<Item = (&'p str, PartialNode<'p>)>> {
        let parser = self.0.parser;
        self.0
            .from(index, member)
            .map(move |c| c.map(move |node| (parser.key_of(node.index), node)))
    }

    /// The member `key` (a walk over the members: O(members)); `None` until
    /// its value starts.
    pub fn get(self, key: &str) -> Option<PartialNode<'p>> {
        self.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }
}

impl fmt::Debug for PartialObject<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}
