//! The integration tests of `templiqx-eval`, one binary (each file a
//! module): the runner over adapters of the tests' own, through its public
//! API, the history under concurrent processes, and interrupted runs.

mod cache;
mod common;
mod evidence;
mod history;
mod interrupt;
mod judges;
mod recovery;
mod streaming;
mod variants;
