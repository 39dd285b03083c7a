//! The typed render path (generated structs) and the JSON path (a
//! JSON object as read from a file) produce identical bytes, including
//! canonical JSON of nested generated structs.

use crm3_host::{
    lease_summary_drafting as drafting, lease_term_extraction as extraction, lease_terms,
};
use templiqx::contracts::json::{self, Json};

fn read(rel: &str) -> Json {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../crm3/");
    json::parse(&std::fs::read_to_string(format!("{path}{rel}")).unwrap()).unwrap()
}

#[test]
fn typed_and_json_renders_agree() {
    let req = read("evals/drafting-request.json");
    let inputs: drafting::Inputs = json::from_json(&req["inputs"]).unwrap();
    let context: drafting::Context = json::from_json(&req["context"]).unwrap();
    let typed = drafting::render(&inputs, &context).unwrap();
    let json = templiqx::render(
        &drafting::INTERACTION,
        req["inputs"].as_object().unwrap(),
        req["context"].as_object().unwrap(),
    )
    .unwrap();
    assert_eq!(typed.messages, json.messages);
    assert_eq!(typed.request_fingerprint(), json.request_fingerprint());
}

#[test]
fn the_extraction_output_feeds_the_drafting_input() {
    let output = extraction::decode_output(&read("evals/extraction-output.json")).unwrap();
    let terms = lease_terms(&output);
    assert_eq!(
        serde_json::to_value(&terms).unwrap(),
        serde_json::to_value(read("evals/extraction-output.json")).unwrap()
    );
}
