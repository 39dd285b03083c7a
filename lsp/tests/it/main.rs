//! The integration tests of `templiqx-lsp`, one binary (each file a
//! module): the protocol driven over in-memory and stdio connections.

mod common;

mod cancel;
mod complete_hover;
mod protocol;
mod refactor;
mod robustness;
