//! The integration tests of the `templiqx` command, one binary (each file a
//! module): every subcommand run as a process.

mod common;

mod catalogue;
mod chain;
mod check;
mod diff;
mod eval;
mod eval_failures;
mod eval_interrupt;
mod eval_judges;
mod eval_queue;
mod eval_variants;
mod fingerprint;
mod lint;
mod lsp;
mod mcp_providers;
mod mcp_python;
mod neovim;
mod recover_output;
mod render;
mod run;
mod scenarios;
mod schema;
mod test_command;
mod usage;
