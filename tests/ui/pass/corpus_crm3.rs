#![deny(warnings)]

templiqx::include_contract!(package = "../../shared/corpus/crm3", contract = "bli-61-date-term-extraction", target = ["structured_output"]);
templiqx::include_contract!(package = "../../shared/corpus/crm3", contract = "bli-62-document-drafting", target = ["structured_output"]);

fn main() {
    let output = bli_61_date_term_extraction::decode_output(&templiqx::__private::serde_json::json!({
        "effective_date": "2026-09-01", "end_date": "2027-08-31", "term_months": 12.0, "notice_date": "2027-05-31",
        "evidence": [{ "field": "notice_date", "document_id": "D", "fragment_id": "F", "start_offset": 0, "end_offset": 1, "quote_sha256": "0000000000000000000000000000000000000000000000000000000000000000" },
                     { "field": "end_date", "document_id": "D", "fragment_id": "F", "start_offset": 0, "end_offset": 1, "quote_sha256": "0000000000000000000000000000000000000000000000000000000000000000" },
                     { "field": "term_months", "document_id": "D", "fragment_id": "F", "start_offset": 0, "end_offset": 1, "quote_sha256": "0000000000000000000000000000000000000000000000000000000000000000" },
                     { "field": "effective_date", "document_id": "D", "fragment_id": "F", "start_offset": 0, "end_offset": 1, "quote_sha256": "0000000000000000000000000000000000000000000000000000000000000000" }]
    }))
    .unwrap();
    // An integer-valued number decodes into the generated i64.
    assert_eq!(output.term_months, 12);
    assert_eq!(bli_62_document_drafting::CONTRACT_ID, "bli-62-document-drafting");
}
