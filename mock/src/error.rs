//! The error type of this crate.

use std::fmt;
use templiqx_contracts::{Code, Diagnostic, Diagnostics};

/// A scenario, inventory or runtime set-up that failed closed.
///
/// Carries every problem found, each a [`Diagnostic`] with a stable
/// `TQX_*` code, the file, the JSON Pointer of the offending field and a
/// help line; messages about a scenario start with its id
/// (`` scenario `intake-document-01`: … ``). Codes used:
///
/// | code | when |
/// |---|---|
/// | `TQX_IO` | a file cannot be read, or exceeds [`MAX_DOCUMENT_BYTES`](crate::document::MAX_DOCUMENT_BYTES) |
/// | `TQX_PARSE_JSON`, `TQX_PARSE_YAML` | a document is not UTF-8, does not parse, or repeats a key |
/// | `TQX_UNKNOWN_FIELD`, `TQX_MISSING_FIELD`, `TQX_INVALID_TYPE`, `TQX_UNKNOWN_VARIANT`, `TQX_INVALID_VALUE` | a document has the wrong shape (strict DTOs) |
/// | `TQX_API_VERSION` | `api_version` is not `templiqx.mock/v1alpha1` |
/// | `TQX_SCENARIO` | a rule of the format is broken: lifecycle, ids, drift, paths, an inventory without scenarios |
/// | `TQX_PACKAGE` (and the compiler's manifest codes) | the scenarios' package manifest is unusable |
#[derive(Clone, Debug, PartialEq)]
pub struct MockError {
    /// The problems, in the order found; never empty.
    pub diagnostics: Diagnostics,
}

impl MockError {
    /// An error from one diagnostic.
    pub fn one(diagnostic: Diagnostic) -> MockError {
        MockError {
            diagnostics: Diagnostics::one(diagnostic),
        }
    }

    /// Whether some diagnostic has `code`.
    pub fn has(&self, code: Code) -> bool {
        self.diagnostics.has(code)
    }
}

impl From<Diagnostic> for MockError {
    fn from(diagnostic: Diagnostic) -> MockError {
        MockError::one(diagnostic)
    }
}

impl From<Vec<Diagnostic>> for MockError {
    fn from(diagnostics: Vec<Diagnostic>) -> MockError {
        MockError {
            diagnostics: diagnostics.into(),
        }
    }
}

impl From<Diagnostics> for MockError {
    fn from(diagnostics: Diagnostics) -> MockError {
        MockError { diagnostics }
    }
}

impl fmt::Display for MockError {
    /// As [`Diagnostics`] displays: one line per diagnostic, with its help.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.diagnostics, f)
    }
}

impl std::error::Error for MockError {}
