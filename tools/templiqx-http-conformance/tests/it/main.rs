//! The integration tests of `templiqx-http-conformance`, one binary (each
//! file a module).

mod cli;
