//! Shared fixtures of the benchmarks: the bench package's greeting and
//! drafting contracts (`bench/contracts`, synthetic data) compiled at build
//! time, their requests as typed values, and the same prompts for the peer
//! template engines.

pub use templiqx;

templiqx::include_contract!(
    "contracts/contracts/greeting.yaml",
    target = ["structured_output"],
    evals = false
);
templiqx::include_contract!(
    package = "contracts",
    contract = "drafting",
    target = ["structured_output"],
    evals = false
);

/// The bench package directory (`bench/contracts`).
pub const PACKAGE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/contracts");

/// The greeting eval request as typed values.
pub fn greeting_request() -> (greeting::Inputs, greeting::Context) {
    (
        greeting::Inputs {
            name: "Ada".to_owned(),
        },
        greeting::Context {
            organization: "Analytical Engines".to_owned(),
        },
    )
}

/// The drafting request (`bench/contracts/evals/drafting-request.json`) as
/// typed values.
///
/// # Panics
/// When the request file is missing or does not match the contract.
pub fn drafting_request() -> (drafting::Inputs, drafting::Context) {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/contracts/evals/drafting-request.json"
    );
    let text = std::fs::read_to_string(path).expect("bench request");
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

/// The eval-at-scale benchmark's package and run (`docs/benchmarks.md`,
/// "Evals at scale").
pub mod eval_scale;
