//! The integration tests of `templiqx`, one binary (each file a module): the
//! adapter port, budgets, the fallback and round-robin combinators,
//! rendering, the no-panic properties and the partial JSON reader. The
//! allocation budget test is its own binary (`alloc_budget.rs`): it
//! installs a counting global allocator.

mod common;

mod adapter;
mod budgets;
mod fallback;
mod never_panics;
mod partial_json;
mod recovery;
mod render;
