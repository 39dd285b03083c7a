//! `templiqx fingerprint FILE.json [--canonical]`

use crate::input::{display, read_json};
use crate::ui::{SourceTexts, Status, Ui};
use std::io;
use std::path::Path;
use templiqx_contracts::canonical::{sha256_hex, to_canonical_string};
use templiqx_contracts::{Operation, OperationEnvelope};

/// Runs `fingerprint`. Human output is the lowercase hex fingerprint and a
/// newline, or with `canonical` exactly the canonical bytes (no newline), so
/// `templiqx fingerprint --canonical F | sha256sum` agrees with
/// `templiqx fingerprint F`.
pub fn run(ui: &mut Ui, file: &Path, canonical: bool) -> io::Result<Status> {
    let mut sources = SourceTexts::default();
    let parsed = read_json(file, &mut sources);
    let (result, diagnostics, fingerprint) = match parsed {
        Ok(json) => {
            let text = to_canonical_string(&json.value);
            let fp = sha256_hex(text.as_bytes());
            let result = if canonical { text } else { fp.clone() };
            (Some(result), Vec::new(), Some(fp))
        }
        Err(d) => (None, vec![d], None),
    };
    let status = Status::of(&diagnostics);
    if ui.json() {
        let mut env = OperationEnvelope::new(Operation::Fingerprint, result, diagnostics);
        if let Some(fp) = fingerprint {
            env = env.with_fingerprint("value", fp);
        }
        ui.json_line(&env)?;
    } else {
        ui.diagnostics(&diagnostics, &sources)?;
        match result {
            Some(text) if canonical => ui.write(&text)?,
            Some(fp) => ui.line(&fp)?,
            None => ui.error_line(&format!("could not fingerprint `{}`", display(file)))?,
        }
    }
    Ok(status)
}
