//! Shared fixtures of the benchmarks: the corpus greeting and drafting
//! contracts compiled at build time, their eval requests as typed values,
//! and the same prompts for the peer template engines.

pub use templiqx;

templiqx::include_contract!(
    "../../shared/corpus/packages/demo/contracts/greeting.yaml",
    target = ["structured_output"],
    evals = false
);
templiqx::include_contract!(
    package = "../../shared/corpus/crm3",
    contract = "bli-62-document-drafting",
    target = ["structured_output"],
    evals = false
);

/// The greeting eval request as typed values.
pub fn greeting_request() -> (greeting::Inputs, greeting::Context) {
    (
        greeting::Inputs {
            name: "Ryan".to_owned(),
        },
        greeting::Context {
            organization: "Blinqx".to_owned(),
        },
    )
}

/// The drafting eval request (`crm3/evals/bli-62-request.json`) as typed values.
///
/// # Panics
/// When the corpus file is missing or does not match the contract.
pub fn drafting_request() -> (
    bli_62_document_drafting::Inputs,
    bli_62_document_drafting::Context,
) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/corpus/crm3/evals/bli-62-request.json"
    );
    let text = std::fs::read_to_string(path).expect("corpus request");
    let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    (
        serde_json::from_value(v["inputs"].clone()).expect("typed inputs"),
        serde_json::from_value(v["context"].clone()).expect("typed context"),
    )
}

/// The drafting facts as a plain serde struct with fields in canonical
/// (sorted) order, so `serde_json` output equals the RFC 8785 bytes Templiqx
/// writes — the input the peer engines serialise inside each render.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Facts {
    /// `effective_date`
    pub effective_date: String,
    /// `end_date`
    pub end_date: String,
    /// `evidence`
    pub evidence: Vec<Evidence>,
    /// `notice_date`
    pub notice_date: String,
    /// `term_months`
    pub term_months: i64,
}

/// One evidence entry, fields in canonical order.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Evidence {
    /// `document_id`
    pub document_id: String,
    /// `end_offset`
    pub end_offset: i64,
    /// `field`
    pub field: String,
    /// `fragment_id`
    pub fragment_id: String,
    /// `quote_sha256`
    pub quote_sha256: String,
    /// `start_offset`
    pub start_offset: i64,
}
