//! Writing within the render budget: `fmt::Write`s that refuse to pass
//! their limit before a byte is copied ([`Bounded`], [`Counter`],
//! [`Capped`]), and bounds on what a filter writes ([`upper_bound`],
//! [`intermediate_cap`]).

use std::fmt::{self, Write};
use templiqx_contracts::{Filter, ValueRef};

/// The cap on an intermediate that the filters `downstream` will consume,
/// and whether overflowing it means "not a date" rather than "over budget".
pub(super) struct Cap {
    pub(super) bytes: usize,
    pub(super) date_input: bool,
}

pub(super) fn intermediate_cap(downstream: &[Filter], remaining: usize) -> Cap {
    let mut cap = Cap {
        bytes: remaining,
        date_input: false,
    };
    for filter in downstream.iter().rev() {
        match filter {
            Filter::Trim | Filter::Json | Filter::FormatNumber => {}
            Filter::Lower | Filter::Upper => cap.bytes = cap.bytes.saturating_mul(3),
            Filter::FormatDate => {
                cap = Cap {
                    bytes: "YYYY-MM-DD".len(),
                    date_input: true,
                };
            }
        }
    }
    cap
}

/// A `fmt::Write` into a message string that refuses any write that would
/// take the render past its output budget, before a byte is copied or
/// allocated.
pub(super) struct Bounded<'o> {
    pub(super) out: &'o mut String,
    pub(super) remaining: &'o mut usize,
}

impl Write for Bounded<'_> {
    #[inline]
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if s.len() > *self.remaining {
            return Err(fmt::Error);
        }
        *self.remaining -= s.len();
        self.out.push_str(s);
        Ok(())
    }

    /// As `write_str` of the character's UTF-8 (canonical JSON writes its
    /// punctuation one character at a time), without encoding it first.
    #[inline]
    fn write_char(&mut self, c: char) -> fmt::Result {
        let len = c.len_utf8();
        if len > *self.remaining {
            return Err(fmt::Error);
        }
        *self.remaining -= len;
        self.out.push(c);
        Ok(())
    }
}

/// An upper bound on the bytes `filter` writes for `input`, when one is
/// known without running it: case mappings at most triple a string (`ΐ` →
/// `Ϊ́`), JSON escaping at most sextuples one (`\u0001`) plus quotes.
pub(super) fn upper_bound(filter: Filter, input: ValueRef<'_>) -> Option<usize> {
    match (filter, input) {
        (Filter::Trim, ValueRef::String(s)) => Some(s.len()),
        (Filter::Lower | Filter::Upper, ValueRef::String(s)) => s.len().checked_mul(3),
        (Filter::Json, ValueRef::String(s)) => s.len().checked_mul(6)?.checked_add(2),
        (Filter::Json, ValueRef::Number(_)) => Some(32),
        (Filter::Json, ValueRef::Bool(_) | ValueRef::Null) => Some(5),
        (Filter::FormatDate, _) => Some(10),
        // 309 integer digits, 103 group separators, sign, decimal part.
        (Filter::FormatNumber, _) => Some(416),
        _ => None,
    }
}

/// How many bytes an interpolation of unknown size may write directly
/// before it is rolled back and measured first (64 KiB: far below the 1 MiB
/// that a rejected oversized render may allocate).
pub(super) const OPTIMISTIC_BYTES: usize = 64 * 1024;

/// A `fmt::Write` that only counts, refusing to count past `limit`.
pub(super) struct Counter {
    pub(super) len: usize,
    pub(super) limit: usize,
}

impl Write for Counter {
    #[inline]
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if s.len() > self.limit - self.len {
            return Err(fmt::Error);
        }
        self.len += s.len();
        Ok(())
    }
}

/// A `fmt::Write` into a scratch string that refuses to grow past `cap`.
pub(super) struct Capped<'o> {
    pub(super) out: &'o mut String,
    pub(super) cap: usize,
}

impl Write for Capped<'_> {
    #[inline]
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if s.len() > self.cap - self.out.len().min(self.cap) {
            return Err(fmt::Error);
        }
        self.out.push_str(s);
        Ok(())
    }
}
