//! `templiqx schema`

use crate::ui::{Status, Ui};
use std::io;
use templiqx_contracts::canonical::fingerprint;
use templiqx_contracts::{Operation, OperationEnvelope};

/// Runs `schema`: the JSON Schema, pretty-printed (human), or an envelope
/// whose result is the schema and whose `schema` fingerprint identifies it.
pub fn run(ui: &mut Ui) -> io::Result<Status> {
    let schema = templiqx_build::json_schema::contract_schema();
    if ui.json() {
        let fp = fingerprint(&schema);
        let env = OperationEnvelope::new(Operation::Schema, Some(schema), Vec::new())
            .with_fingerprint("schema", fp);
        ui.json_line(&env)?;
    } else {
        let text = serde_json::to_string_pretty(&schema).map_err(io::Error::other)?;
        ui.line(&text)?;
    }
    Ok(Status::Success)
}
