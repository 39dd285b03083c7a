//! The project's own example package (`examples/crm3`) compiles, and its
//! eval fixtures and request files render and validate.

mod common;

use std::path::PathBuf;
use templiqx_build::package::Loader;
use templiqx_contracts::AsValue;

fn examples() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/crm3")
}

#[test]
fn the_example_package_compiles_and_its_evals_render() {
    let dir = examples();
    let mut loader = Loader::new(&dir);
    let compiled = loader
        .compile_package(&dir, &common::structured_output())
        .unwrap();
    assert_eq!(compiled.len(), 2);
    for c in &compiled {
        let i = c
            .interaction
            .as_ref()
            .unwrap_or_else(|| panic!("{}: {:#?}", c.file, c.diagnostics));
        for eval in &c.contract.as_ref().unwrap().evals {
            templiqx::render(i, &eval.inputs, &eval.context)
                .unwrap_or_else(|e| panic!("{}: {e}", eval.id));
            templiqx::validate_output(i, eval.fake_output.as_ref().unwrap().as_value()).unwrap();
        }
    }
    // The drafting contract renders its request file with the Dutch locale.
    let drafting = compiled
        .iter()
        .find(|c| c.id == "lease-summary-drafting")
        .unwrap();
    let req: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("evals/drafting-request.json")).unwrap(),
    )
    .unwrap();
    let r = templiqx::render(
        drafting.interaction.as_ref().unwrap(),
        req["inputs"].as_object().unwrap(),
        req["context"].as_object().unwrap(),
    )
    .unwrap();
    let user = &r.messages[1].content;
    assert!(user.starts_with("Dear Voorbeeld Vastgoed B.V.\nMatter: MAT-2026-0107\nTerm: 01-03-2026 to 28-02-2027\nMonthly rent: EUR 1.450,50\n"), "{user}");
    assert_eq!(
        r.messages[0].content,
        "You draft concise lease summaries. Use only facts stated in the source. Cite evidence by byte offsets; never invent values."
    );
}
