//! The integration tests of `templiqx-eval`, one binary (each file a
//! module): the runner over adapters of the tests' own, through its public
//! API, and the history under concurrent processes.

mod cache;
mod common;
mod evidence;
mod history;
