//! The renderer's stack of locals (`for_each` items, component arguments).
//!
//! Its methods are `#[inline]`, as the writers of `bounded.rs` are: the
//! walk calls them on its hot path, and another module may be compiled in
//! another codegen unit.

use templiqx_contracts::ValueRef;

/// The stack of locals: the first [`Locals::INLINE`] slots live inline, so
/// the common render (a few items and arguments) allocates nothing for them.
pub(super) struct Locals<'a> {
    inline: [Option<ValueRef<'a>>; Locals::INLINE],
    spill: Vec<Option<ValueRef<'a>>>,
    len: usize,
}

impl<'a> Locals<'a> {
    const INLINE: usize = 8;

    #[inline]
    pub(super) fn new() -> Self {
        Locals {
            inline: [None; Locals::INLINE],
            spill: Vec::new(),
            len: 0,
        }
    }

    #[inline]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub(super) fn push(&mut self, value: Option<ValueRef<'a>>) {
        match self.inline.get_mut(self.len) {
            Some(slot) => *slot = value,
            None => self.spill.push(value),
        }
        self.len += 1;
    }

    /// The local at `index`: `None` when unbound, `Some(None)` when bound to
    /// an omitted argument.
    #[inline]
    pub(super) fn get(&self, index: usize) -> Option<Option<ValueRef<'a>>> {
        if index >= self.len {
            return None;
        }
        match self.inline.get(index) {
            Some(slot) => Some(*slot),
            None => self.spill.get(index - Locals::INLINE).copied(),
        }
    }

    #[inline]
    pub(super) fn set(&mut self, index: usize, value: Option<ValueRef<'a>>) {
        if index >= self.len {
            return;
        }
        let slot = match self.inline.get_mut(index) {
            Some(slot) => Some(slot),
            None => self.spill.get_mut(index - Locals::INLINE),
        };
        if let Some(slot) = slot {
            *slot = value;
        }
    }

    #[inline]
    pub(super) fn truncate(&mut self, len: usize) {
        if len < self.len {
            self.spill.truncate(len.saturating_sub(Locals::INLINE));
            self.len = len;
        }
    }
}
