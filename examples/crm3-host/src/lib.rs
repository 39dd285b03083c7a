//! The CRM3-style example package, compiled at build time by `build.rs`,
//! plus the typed hand-off from the extraction contract's output to the
//! drafting contract's input.

#![deny(warnings)]

include!(concat!(env!("OUT_DIR"), "/templiqx_contracts.rs"));

use lease_summary_drafting as drafting;
use lease_term_extraction as extraction;

/// Converts a validated extraction output into the drafting contract's
/// typed `lease_terms` input. Field by field: a change to either contract's
/// schema that breaks the hand-off is a compile error here.
pub fn lease_terms(output: &extraction::Output) -> drafting::LeaseTerms {
    drafting::LeaseTerms {
        start_date: output.start_date.clone(),
        end_date: output.end_date.clone(),
        monthly_rent: output.monthly_rent,
        notice_days: output.notice_days,
        evidence: output
            .evidence
            .iter()
            .map(|e| drafting::EvidenceItem {
                field: match e.field {
                    extraction::Field::StartDate => drafting::Field::StartDate,
                    extraction::Field::EndDate => drafting::Field::EndDate,
                    extraction::Field::MonthlyRent => drafting::Field::MonthlyRent,
                    extraction::Field::NoticeDays => drafting::Field::NoticeDays,
                },
                document_id: e.document_id.clone(),
                fragment_id: e.fragment_id.clone(),
                start_offset: e.start_offset,
                end_offset: e.end_offset,
                quote_sha256: e.quote_sha256.clone(),
            })
            .collect(),
    }
}
