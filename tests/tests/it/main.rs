//! Workspace-level integration tests, one binary (each file a module):
//! examples, fingerprints, host builds, no-panic properties, the MSRV check,
//! the fuzz corpora and (when present) the external conformance corpus. The
//! trybuild UI cases are their own binary (`ui.rs`): they set
//! `TEMPLIQX_MANIFEST_DIR_OVERRIDE` for the whole process, which the host
//! builds here must not inherit.

mod common;

// Shared with build-support's and the CLI's catalogue tests.
#[path = "../../../build-support/tests/support/catalogue_doc.rs"]
mod catalogue_doc;

mod catalogue_render;
mod component_arguments;
mod corpus;
mod deep_values;
mod envelopes;
mod exact_integers;
mod examples;
mod expectations;
mod fingerprints;
mod format_rules;
mod fuzz_corpus;
mod host_builds;
mod host_looked_for;
mod msrv;
mod narrowing;
mod no_panic;
mod partial_types;
mod readme;
mod render_sites;
mod typed_calls;
mod typed_untyped;
mod value_messages;
