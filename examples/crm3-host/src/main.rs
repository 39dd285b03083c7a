//! Chains the two example contracts with typed values: renders the
//! extraction from its eval request, decodes the eval output into the
//! generated `Output`, converts it into the drafting contract's typed input,
//! and renders the drafting contract.

#![deny(warnings)]

use crm3_host::{
    lease_summary_drafting as drafting, lease_term_extraction as extraction, lease_terms,
};
use std::path::Path;

fn read_json(rel: &str) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../crm3")
        .join(rel);
    Ok(serde_json::from_str(&std::fs::read_to_string(&path)?)?)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let request = read_json("evals/extraction-request.json")?;
    let inputs: extraction::Inputs = serde_json::from_value(request["inputs"].clone())?;
    let context: extraction::Context = serde_json::from_value(request["context"].clone())?;
    let rendered = extraction::render(&inputs, &context)?;
    println!(
        "== {} (request {})",
        extraction::CONTRACT_ID,
        rendered.request_fingerprint()
    );
    for m in &rendered.messages {
        println!("[{}] {}", m.role.as_str(), m.content);
    }

    let output = extraction::decode_output(&read_json("evals/extraction-output.json")?)?;
    let drafting_inputs = drafting::Inputs {
        lease_terms: lease_terms(&output),
        formal: true,
    };
    let drafting_context = drafting::Context {
        client_name: "Voorbeeld Vastgoed B.V.".to_owned(),
        matter_reference: context.matter_reference.clone(),
        locale: Some("nl-NL".to_owned()),
    };
    let rendered = drafting::render(&drafting_inputs, &drafting_context)?;
    println!(
        "== {} (request {})",
        drafting::CONTRACT_ID,
        rendered.request_fingerprint()
    );
    for m in &rendered.messages {
        println!("[{}] {}", m.role.as_str(), m.content);
    }
    Ok(())
}
