//! Parsed YAML trees shared between compilations of the same texts
//! (`docs/decisions.md`, "The language server").
//!
//! A language server compiles a whole package again after every keystroke,
//! and almost every file it reads is the text it read the time before. What
//! [`yaml::parse`] makes of a text depends on the text alone, so a
//! [`ParseCache`] lent to each [`Loader`](crate::Loader)
//! ([`Loader::with_parse_cache`](crate::Loader::with_parse_cache)) hands
//! back the tree (or the `TQX_PARSE_YAML` diagnostic) it made for an equal
//! text, instead of parsing it again. A compilation through a cache and one
//! without give the same results, diagnostics and fingerprints.
//!
//! ```
//! use templiqx_build::ParseCache;
//!
//! let cache = ParseCache::new();
//! let first = cache.parse("id: a\n").unwrap();
//! let again = cache.parse("id: a\n").unwrap();
//! assert!(std::sync::Arc::ptr_eq(&first, &again));
//! assert_eq!(cache.len(), 1);
//! cache.sweep(); // `id: a` was used since the last sweep: kept
//! cache.sweep(); // not used since: dropped
//! assert_eq!(cache.len(), 0);
//! ```

use crate::yaml::{self, Node};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use templiqx_contracts::Diagnostic;

/// What [`yaml::parse`] made of one text: its tree, or its diagnostic
/// (`TQX_PARSE_YAML`, without a file: the caller names it).
type Parsed = Result<Arc<Node>, Diagnostic>;

/// Parsed trees by the exact text they were parsed from, kept while they
/// are used: an entry not used between two [`ParseCache::sweep`]s is
/// dropped at the second, so the cache holds at most the texts of the last
/// two generations (for a server that sweeps before each compilation: the
/// files of the last compilation and of the current one).
///
/// Shared by reference (`Arc<ParseCache>`) and safe to use from several
/// threads; a poisoned lock is recovered (the maps hold only finished
/// entries).
#[derive(Default)]
pub struct ParseCache {
    generations: Mutex<Generations>,
}

#[derive(Default)]
struct Generations {
    /// Entries used since the last sweep.
    current: HashMap<String, Parsed>,
    /// Entries used in the generation before, not yet since.
    previous: HashMap<String, Parsed>,
}

impl ParseCache {
    /// An empty cache.
    pub fn new() -> ParseCache {
        ParseCache::default()
    }

    /// [`yaml::parse`] of `text`, from the cache when an equal text was
    /// parsed in this generation or the one before (the entry then belongs
    /// to this generation).
    ///
    /// # Errors
    /// What [`yaml::parse`] returns for `text` (`TQX_PARSE_YAML`, with no
    /// file named).
    pub fn parse(&self, text: &str) -> Result<Arc<Node>, Diagnostic> {
        let mut g = self
            .generations
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(parsed) = g.current.get(text) {
            return parsed.clone();
        }
        if let Some((key, parsed)) = g.previous.remove_entry(text) {
            g.current.insert(key, parsed.clone());
            return parsed;
        }
        // Parse outside the lock: other threads may use the cache meanwhile.
        drop(g);
        let parsed = yaml::parse(text).map(Arc::new);
        self.generations
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .current
            .insert(text.to_owned(), parsed.clone());
        parsed
    }

    /// Starts a new generation: drops every entry not used since the last
    /// sweep.
    pub fn sweep(&self) {
        let mut g = self
            .generations
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        g.previous = std::mem::take(&mut g.current);
    }

    /// The number of texts held.
    pub fn len(&self) -> usize {
        let g = self
            .generations
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        g.current.len() + g.previous.len()
    }

    /// Whether the cache holds no text.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl fmt::Debug for ParseCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParseCache")
            .field("texts", &self.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_equal_text_gets_the_same_tree_and_a_different_one_its_own() {
        let cache = ParseCache::new();
        let a = cache.parse("id: a\n").unwrap();
        let b = cache.parse("id: b\n").unwrap();
        assert!(!Arc::ptr_eq(&a, &b));
        assert_eq!(*a, yaml::parse("id: a\n").unwrap());
        assert!(Arc::ptr_eq(&a, &cache.parse("id: a\n").unwrap()));
        assert_eq!(cache.len(), 2);
    }

    #[test]
    fn a_parse_error_is_cached_as_the_parser_reports_it() {
        let cache = ParseCache::new();
        let text = "a: [1, 2\n";
        let direct = yaml::parse(text).unwrap_err();
        assert_eq!(cache.parse(text).unwrap_err(), direct);
        assert_eq!(cache.parse(text).unwrap_err(), direct);
        assert_eq!(cache.len(), 1);
    }

    #[test]
    fn entries_live_while_they_are_used_between_sweeps() {
        let cache = ParseCache::new();
        let kept = cache.parse("kept: 1\n").unwrap();
        cache.parse("dropped: 1\n").unwrap();
        cache.sweep();
        // Used in the new generation: moves to it, same tree.
        assert!(Arc::ptr_eq(&kept, &cache.parse("kept: 1\n").unwrap()));
        cache.sweep();
        assert_eq!(cache.len(), 1);
        assert!(Arc::ptr_eq(&kept, &cache.parse("kept: 1\n").unwrap()));
        cache.sweep();
        cache.sweep();
        assert!(cache.is_empty());
    }
}
