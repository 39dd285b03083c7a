//! What the rules share with each other and with the crate's other loaders:
//! the `api_version` check, id and fingerprint syntax, and [`Problems`].

use super::manifest::API_VERSION;
use std::fmt;
use templiqx_contracts::{Code, Diagnostic};

/// Checks a document's `api_version` before its shape, so another version's
/// fields are not reported as unknown.
///
/// # Errors
///
/// `TQX_INVALID_TYPE` when the document is not an object (serde would
/// otherwise read a list as a struct's fields in order); `TQX_API_VERSION`
/// when `api_version` is present and not [`API_VERSION`].
pub(crate) fn check_api_version(
    value: &templiqx_contracts::Json,
    what: &str,
) -> Result<(), Diagnostic> {
    use templiqx_contracts::Json;
    if value.as_object().is_none() {
        let found = templiqx_contracts::words::kind_of(value);
        return Err(Diagnostic::error(
            Code::InvalidType,
            format!("a {what} must be an object, found {found}"),
        )
        .at("")
        .help(format!(
            "write an object that starts with `api_version: {API_VERSION}`"
        )));
    }
    match value.get("api_version") {
        Some(Json::String(v)) if v == API_VERSION => Ok(()),
        Some(Json::String(v)) => Err(api_version_error(v, what)),
        Some(other) => Err(api_version_error(&other.to_string(), what)),
        None => Ok(()),
    }
}

pub(super) fn api_version_error(found: &str, what: &str) -> Diagnostic {
    Diagnostic::error(
        Code::ApiVersion,
        format!("unsupported {what} `api_version` {found:?}; this crate reads {API_VERSION:?}"),
    )
    .at("/api_version")
    .help(format!("set `api_version: {API_VERSION}`"))
}

/// Whether `s` is a scenario id: ASCII letters, digits, `-`, `_`, `.`.
pub(crate) fn is_id(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// Whether `s` is a fingerprint: 64 lowercase hex digits.
pub fn is_fingerprint(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Collects `TQX_SCENARIO` diagnostics about one scenario.
pub(crate) struct Problems<'a> {
    scenario: &'a str,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl<'a> Problems<'a> {
    pub(crate) fn new(scenario: &'a str) -> Problems<'a> {
        Problems {
            scenario,
            diagnostics: Vec::new(),
        }
    }

    pub(crate) fn push(
        &mut self,
        pointer: &str,
        message: impl fmt::Display,
        help: impl Into<String>,
    ) {
        self.diagnostics.push(
            Diagnostic::error(
                Code::Scenario,
                format!("scenario `{}`: {message}", self.scenario),
            )
            .at(pointer)
            .help(help),
        );
    }

    pub(crate) fn finish(self) -> Result<(), Vec<Diagnostic>> {
        if self.diagnostics.is_empty() {
            Ok(())
        } else {
            Err(self.diagnostics)
        }
    }
}
