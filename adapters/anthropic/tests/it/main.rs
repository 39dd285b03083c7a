//! The integration tests of `templiqx-anthropic`, one binary (each file a
//! module).

mod fake_server;
mod limits;
mod mismatches;
