//! The library behind `templiqx diff` (`docs/diff.md`): is a change to a
//! Templiqx contract or package breaking, and is its version bump enough?
//!
//! Two versions of a package (or of one contract) are loaded and compiled
//! by the compiler ([`Side::load`], through any
//! [`FileSystem`](templiqx_build::FileSystem): the disk, or a git revision
//! with [`git::GitFileSystem`]), then [`diff`] compares them:
//!
//! - contracts are matched by id (`CONTRACT_ADDED`, `CONTRACT_REMOVED`);
//!   two contract files are one contract whatever their ids
//!   (`CONTRACT_ID_CHANGED`);
//! - the schemas of `inputs`, `context` and `output_schema` are compared by
//!   the values they accept ([`schema::includes`], on the compiled and
//!   normalised schemas): inputs and context are written by callers, so a
//!   change is compatible when every old value is still accepted; the
//!   output is read by consumers, so a change is compatible when every new
//!   value was accepted before;
//! - messages, partials, components, runtime policy, extensions and
//!   capabilities are compared as the interaction uses them; descriptions,
//!   provenance and eval fixtures apart;
//! - the manifests' dependencies, tool contracts and artifact lists.
//!
//! Every [`Change`] has a [`Rule`] with a stable id and a [`Class`], JSON
//! pointers and line/column spans on both sides, and a help line. The
//! [`version`] gate then says, for each contract and the package, the least
//! version bump Cargo's semver rules require and whether the new version
//! makes it; a gate that fails is a `TQX_VERSION_BUMP` diagnostic.
//!
//! Nothing is concluded from what could not be compared: a side that does
//! not load ([`Side::loaded`]) or a contract that does not compile is
//! [`Status::NotCompared`], with its diagnostics in the report, and
//! [`Report::sufficient`] is then false (`docs/diff.md`, "What is not
//! compared").
//!
//! ```
//! use std::sync::Arc;
//! use templiqx_build::RealFileSystem;
//! use templiqx_diff::{Side, diff, rules::Rule};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let contract = |required: bool| format!(
//!     "api_version: templiqx/v1alpha1\nid: greet\nversion: 0.1.0\n\
//!      inputs:\n  name: {{ schema: {{ type: string }}, required: true }}\n  \
//!      title: {{ schema: {{ type: string }}, required: {required} }}\n\
//!      messages:\n  - role: user\n    content: [{{ kind: text, value: Hi }}]\n\
//!      output_schema: {{ type: object }}\n");
//! std::fs::write(dir.path().join("old.yaml"), contract(false)).unwrap();
//! std::fs::write(dir.path().join("new.yaml"), contract(true)).unwrap();
//! let fs = Arc::new(RealFileSystem);
//! let old = Side::load(fs.clone(), dir.path(), "old.yaml".as_ref(), None, "old", false);
//! let new = Side::load(fs, dir.path(), "new.yaml".as_ref(), None, "new", false);
//! let report = diff(&old, &new);
//! assert_eq!(report.changes[0].rule, Rule::InputFieldMadeRequired);
//! assert_eq!(report.changes[0].new.as_ref().unwrap().json_pointer, "/inputs/title/required");
//! // 0.1.0 → 0.1.0 with a breaking change: the gate wants 0.2.0.
//! assert!(!report.sufficient);
//! assert_eq!(report.contracts[0].gate.as_ref().unwrap().least, "0.2.0");
//! ```

mod change;
mod content;
mod contract;
pub mod git;
mod package;
mod pair;
pub mod render;
pub mod rules;
pub mod schema;
mod schema_changes;
mod side;
mod text;
pub mod version;

pub use change::{Change, Location, Related, Report, Sided, Status, Verdict, Which};
pub use package::diff;
pub use rules::{Class, Rule};
pub use side::{Kind, Side};
