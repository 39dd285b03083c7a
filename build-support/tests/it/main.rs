//! The integration tests of `templiqx-build`, one binary (each file a module):
//! YAML, rejections, schemas, packages, code generation, reports and the
//! diagnostics catalogue.

// `cli/tests/it/catalogue.rs` and `tests/tests/it/main.rs` include it too.
#[path = "../support/catalogue_doc.rs"]
mod catalogue_doc;

mod builder;
mod catalogue;
mod codegen_check;
mod compile_entry;
mod datasets;
mod doc_text;
mod expectations;
mod expr_places;
mod file_system;
mod json_schema_suite;
mod judges;
mod packages;
mod rejections;
mod report;
mod schema_differential;
mod schema_props;
mod schema_rules;
mod snapshots;
mod yaml;
mod yaml_stream;
