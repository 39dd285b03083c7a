#![deny(warnings)]

templiqx::include_contract!(package = "../examples/crm3", contract = "lease-term-extraction", target = ["structured_output"]);
templiqx::include_contract!(package = "../examples/crm3", contract = "lease-summary-drafting", target = ["structured_output"]);

fn main() {
    let output = lease_term_extraction::decode_output(&templiqx::__private::serde_json::json!({
        "start_date": "2026-03-01", "end_date": "2027-02-28", "monthly_rent": 1450.5, "notice_days": 60.0,
        "evidence": [{ "field": "notice_days", "document_id": "D", "fragment_id": "F", "start_offset": 0, "end_offset": 1,
                       "quote_sha256": "0000000000000000000000000000000000000000000000000000000000000000" }]
    }))
    .unwrap();
    // An integer-valued number decodes into the generated i64.
    assert_eq!(output.notice_days, 60);
    assert_eq!(lease_summary_drafting::CONTRACT_ID, "lease-summary-drafting");
}
