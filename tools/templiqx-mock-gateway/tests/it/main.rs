//! The integration tests of `templiqx-mock-gateway`, one binary (each file a
//! module): the catalog in-process, the binary over loopback HTTP, start-up.

mod common;

mod catalog;
mod http;
mod startup;
