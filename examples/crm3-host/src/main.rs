//! The main job: the CRM3-style example end to end, with contracts compiled
//! at build time and a scripted model (the mock runtime) standing in for a
//! provider.
//!
//! 1. Render the extraction contract from its eval request (typed values).
//! 2. Execute it on the mock runtime (scenario `lease-happy-path`).
//! 3. Decode the output into the generated, typed `Output`.
//! 4. Convert it into the drafting contract's typed input and render that.
//! 5. Execute the drafting contract with streaming (scenario
//!    `lease-summary-streamed`) and decode its output.
//!
//! Every step prints what it produced: rendered messages, fingerprints and
//! the payload-free receipts.

#![deny(warnings)]

use crm3_host::{
    lease_summary_drafting as drafting, lease_term_extraction as extraction, lease_terms,
};
use std::path::{Path, PathBuf};
use templiqx::{Receipt, RenderedInteraction, RuntimeAdapter, StreamEvent};
use templiqx_mock::{Inventory, ScriptedRuntime, VirtualClock};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn package_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../crm3")
}

fn read_json(rel: &str) -> Result<serde_json::Value> {
    let path = package_dir().join(rel);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(serde_json::from_str(&text)?)
}

fn print_request(
    title: &str,
    contract_fp: &str,
    interaction_fp: &str,
    request: &RenderedInteraction<'_>,
) {
    println!("== {title}");
    for m in &request.messages {
        println!("-- {}", m.role.as_str());
        println!("{}", m.content);
    }
    println!("   contract fingerprint    {contract_fp}");
    println!("   interaction fingerprint {interaction_fp}");
    println!(
        "   request fingerprint     {}",
        request.request_fingerprint()
    );
}

fn print_receipt(receipt: &Receipt, attempts: u32, clock: &VirtualClock) {
    match receipt {
        Receipt::Success {
            output_fingerprint, ..
        } => {
            println!("   receipt: success, output fingerprint {output_fingerprint}");
        }
        Receipt::Failure { code, .. } => println!("   receipt: failure {code}"),
    }
    println!("   receipt fingerprint     {}", receipt.fingerprint());
    println!("   attempts {attempts}, virtual time {} ms", clock.now_ms());
}

fn main() -> Result<()> {
    let inventory = Inventory::load(package_dir().join("scenarios/inventory.json"))?;
    let scenario = |id: &str| -> Result<&templiqx_mock::Scenario> {
        Ok(&inventory
            .get(id)
            .ok_or_else(|| format!("scenario `{id}` is not in the inventory"))?
            .scenario)
    };
    let target = templiqx::contracts::CapabilityProfile::parse_list("structured_output");

    // 1. Render the extraction from its eval request, as typed values.
    let request = read_json("evals/extraction-request.json")?;
    let inputs: extraction::Inputs = serde_json::from_value(request["inputs"].clone())?;
    let context: extraction::Context = serde_json::from_value(request["context"].clone())?;
    let rendered = extraction::render(&inputs, &context)?;
    print_request(
        "lease-term-extraction",
        extraction::CONTRACT_FINGERPRINT,
        extraction::INTERACTION_FINGERPRINT,
        &rendered,
    );

    // 2. Execute it on the mock runtime.
    let clock = VirtualClock::new();
    let model =
        ScriptedRuntime::new(scenario("lease-happy-path")?, &target)?.with_clock(clock.clone());
    let execution = model.execute(&rendered)?;
    print_receipt(&execution.receipt, execution.attempts, &clock);

    // 3. Decode into the generated `Output` (validated against output_schema).
    let facts = extraction::decode_output(&execution.output)?;
    println!(
        "   decoded: {} .. {}, EUR {} per month, {} days' notice, {} evidence links",
        facts.start_date,
        facts.end_date,
        facts.monthly_rent,
        facts.notice_days,
        facts.evidence.len()
    );

    // 4. Typed hand-off into the drafting contract.
    let inputs = drafting::Inputs {
        lease_terms: lease_terms(&facts),
        formal: true,
    };
    let context = drafting::Context {
        client_name: "Voorbeeld Vastgoed B.V.".to_owned(),
        matter_reference: context.matter_reference,
        locale: Some("nl-NL".to_owned()),
    };
    let rendered = drafting::render(&inputs, &context)?;
    print_request(
        "lease-summary-drafting",
        drafting::CONTRACT_FINGERPRINT,
        drafting::INTERACTION_FINGERPRINT,
        &rendered,
    );

    // 5. Execute with streaming; the terminal event carries the receipt.
    let clock = VirtualClock::new();
    let model = ScriptedRuntime::new(scenario("lease-summary-streamed")?, &target)?
        .with_clock(clock.clone());
    let mut deltas = 0;
    let mut completed = None;
    let execution = model.execute_streaming(&rendered, &mut |event| match event {
        StreamEvent::Delta { .. } => deltas += 1,
        StreamEvent::Complete { receipt } => completed = Some(receipt),
        _ => {}
    })?;
    println!(
        "   streamed {deltas} deltas; Complete carried the execute receipt: {}",
        completed.as_ref() == Some(&execution.receipt)
    );
    print_receipt(&execution.receipt, execution.attempts, &clock);
    let summary = drafting::decode_output(&execution.output)?;
    println!("   decoded: {:?}: {}", summary.title, summary.summary);
    Ok(())
}
