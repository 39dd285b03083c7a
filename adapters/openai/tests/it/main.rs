//! The integration tests of `templiqx-openai`, one binary (each file a
//! module). The trace test is its own binary (`traces.rs`): it switches
//! content capture on for the whole process and captures through a
//! thread-local subscriber, which tests without a subscriber running beside it
//! could starve.

mod fake_server;
mod mismatches;
mod recovery;
mod timeouts;
