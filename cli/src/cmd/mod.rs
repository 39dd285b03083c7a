//! One module per subcommand.

pub mod check;
pub mod diff;
pub mod eval;
pub mod eval_out;
pub mod eval_show;
pub mod eval_variants;
pub mod fingerprint;
pub mod mcp;
pub mod render;
pub mod run;
pub mod scenarios;
pub mod schema;
pub mod test;
