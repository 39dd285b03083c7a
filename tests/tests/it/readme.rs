//! The README's contract compiles, renders what the README says, and its
//! misspelt variant produces exactly the diagnostic the README shows.

use crate::common;

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).unwrap()
}

fn block(text: &str, fence: &str) -> String {
    let start = text
        .find(fence)
        .unwrap_or_else(|| panic!("no {fence} block"))
        + fence.len();
    let end = start + text[start..].find("```").unwrap();
    text[start..end].to_owned()
}

#[test]
fn the_readme_contract_renders_as_documented() {
    let yaml = block(&readme(), "```yaml\n");
    let c = templiqx_build::compile_str(
        &yaml,
        "contracts/greeting.yaml",
        &common::structured_output(),
    );
    assert!(c.diagnostics.is_empty(), "{}", c.render_diagnostics());
    let i = c.interaction.unwrap();
    let inputs = serde_json::json!({"name": " Ada "});
    let context = serde_json::json!({"organization": "Analytical Engines"});
    let r = templiqx::render(
        &i,
        inputs.as_object().unwrap(),
        context.as_object().unwrap(),
    )
    .unwrap();
    assert_eq!(
        r.messages[1].content,
        "Greet Ada on behalf of Analytical Engines"
    );
    assert!(readme().contains(
        r#"assert_eq!(request.messages[1].content, "Greet Ada on behalf of Analytical Engines");"#
    ));
}

#[test]
fn the_readme_error_is_what_the_compiler_prints() {
    let text = readme();
    let yaml = block(&text, "```yaml\n").replace(
        "path: inputs.name }, filters",
        "path: inputs.nmae }, filters",
    );
    let c = templiqx_build::compile_str(
        &yaml,
        "contracts/greeting.yaml",
        &common::structured_output(),
    );
    assert_eq!(c.diagnostics.len(), 1);
    let shown = templiqx_build::report::render_human(&c.diagnostics[0], Some(&yaml));
    assert_eq!(shown.trim_end(), block(&text, "```text\n").trim_end());
}
