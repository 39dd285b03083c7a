//! The integration tests of `templiqx-adapter-http`, one binary (each file a
//! module).

mod strict_lowering;
