//! Render budgets (`docs/format.md`, "Render budgets").
//!
//! Compile-time constants, deliberately not configurable: a limit that varied
//! per deployment would make renders non-deterministic across deployments.

/// Total `for_each` iterations per render, across all messages.
pub const MAX_FOR_EACH_ITERATIONS: u64 = 100_000;

/// Maximum `for_each` nesting depth (static and dynamic).
pub const MAX_FOR_EACH_DEPTH: usize = 32;

/// Total rendered output bytes per render, across all messages (4 MiB).
pub const MAX_OUTPUT_BYTES: usize = 4 * 1024 * 1024;

/// Maximum nesting depth of a value (request values, model outputs) where no
/// schema structure bounds it (a value whose schema has no `items` or
/// `properties`, or an undeclared member of an open object): deeper values
/// are invalid
/// (`TQX_VALUE_INVALID` / `TQX_OUTPUT_SCHEMA`), so no recursive walk over a
/// value (validation, canonical JSON, decoding) can exhaust the stack. The
/// same limit `serde_json` applies when parsing text.
pub const MAX_VALUE_DEPTH: usize = 128;
