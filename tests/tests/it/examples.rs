//! The project's own example package (`examples/crm3`) compiles, and its
//! eval fixtures and request files render and validate; the demo package's
//! greeting says what it holds.

use crate::common;

use std::path::PathBuf;
use templiqx_build::Loader;
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
    // The extraction, the drafting and the drafting summary's judge.
    assert_eq!(compiled.len(), 3);
    for c in &compiled {
        let i = c
            .interaction
            .as_ref()
            .unwrap_or_else(|| panic!("{}: {:#?}", c.file, c.diagnostics));
        for eval in &c.contract.as_ref().unwrap().evals {
            if eval.dataset.is_some() {
                // Each row of a dataset entry renders and its fake output
                // validates (`docs/format.md`, "Datasets").
                for row in templiqx_build::dataset::EntryRows::open(i, eval).unwrap() {
                    let row = row.unwrap();
                    templiqx::render(i, &row.inputs, &row.context)
                        .unwrap_or_else(|e| panic!("{}#{}: {e}", eval.id, row.id));
                    let output = row.fake_output.as_ref().unwrap();
                    templiqx::validate_output(i, output.as_value()).unwrap();
                }
                continue;
            }
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

/// The header comment of `examples/packages/demo/contracts/greeting.yaml`
/// names what the contract demonstrates; each claim is checked against the
/// parsed contract, so the comment cannot drift from the file.
#[test]
fn the_demo_greeting_header_says_what_the_contract_holds() {
    use templiqx_build::dto::{ComponentDecl, ContentNode, NodeKind};
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/packages/demo");
    let text = std::fs::read_to_string(dir.join("contracts/greeting.yaml")).unwrap();
    let header: Vec<&str> = text.lines().take_while(|l| l.starts_with('#')).collect();
    assert_eq!(
        header.join("\n"),
        "# The reference example: typed inputs and context, a legacy-form component\n\
         # (`salutation`, whose `recipient` is inferred as a required string), a\n\
         # conditional, a typed output and an eval fixture. The typed form of a\n\
         # component (`parameters` + `content`) is shown in docs/format.md."
    );
    let mut loader = Loader::new(&dir);
    let compiled = loader
        .compile_package(&dir, &common::structured_output())
        .unwrap();
    assert_eq!(compiled.len(), 1);
    let c = &compiled[0];
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    let contract = c.contract.as_ref().unwrap();
    // "typed inputs and context"
    assert!(!contract.inputs.is_empty() && !contract.context.is_empty());
    for (_, field) in contract.inputs.iter().chain(contract.context.iter()) {
        assert!(field.schema.get("type").is_some(), "{field:?}");
    }
    // "a legacy-form component (`salutation` …)", and no typed one.
    let components: Vec<(&str, bool)> = contract
        .components
        .iter()
        .map(|(name, decl)| (name, matches!(decl, ComponentDecl::Legacy(_))))
        .collect();
    assert_eq!(components, [("salutation", true)]);
    // "a conditional"
    fn has_when(nodes: &[ContentNode]) -> bool {
        nodes
            .iter()
            .any(|n| matches!(n.kind, NodeKind::When { .. }))
    }
    assert!(contract.messages.iter().any(|m| has_when(&m.content)));
    // "a typed output and an eval fixture"
    assert_eq!(
        contract.output_schema.get("type"),
        Some(&serde_json::json!("object"))
    );
    assert_eq!(contract.evals.len(), 1);
    // The docs page it points to shows the typed form.
    let format = std::fs::read_to_string(dir.join("../../../docs/format.md")).unwrap();
    assert!(format.contains("**Typed form** (use it for new components)"));
}
