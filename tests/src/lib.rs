//! Workspace-level integration tests live in `tests/`. This library holds
//! only the doc tests of the project's guides, so their code stays true
//! (they live here, not in a published crate, because the guides are
//! outside every published crate's directory).

/// The code blocks of `docs/guide.md`, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../docs/guide.md")]
pub struct GuideDoctests;
