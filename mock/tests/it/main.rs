//! The integration tests of `templiqx-mock`, one binary (each file a module):
//! scenario parsing, fingerprints, inventories, the scripted runtime and both
//! corpora.

mod common;

mod external_corpus;
mod fingerprint;
mod inventory;
mod lifecycle;
mod own_corpus;
mod runtime;
mod transport_fast_path;
