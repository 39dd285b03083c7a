//! The integration tests of `templiqx-diff`, one binary (each file a
//! module): packages read at a git revision, whole packages compared, every
//! rule's minimal pair, and the soundness of the schema comparison.

mod git;
mod packages;
mod rules;
mod soundness;
