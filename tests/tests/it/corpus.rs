//! The external conformance corpus (read in place through
//! `templiqx-conformance-suites`; skipped with a visible line when absent,
//! required under CI): every contract
//! compiles against `structured_output`, every eval fixture renders to the
//! pinned messages, and every `fake_output` validates.

use crate::common;

use common::{compile_under, json};
use templiqx::render;
use templiqx_contracts::{Code, Interaction, Role, ValueRef};

fn obj(v: &serde_json::Value) -> &serde_json::Map<String, serde_json::Value> {
    v.as_object().expect("object")
}

fn messages(
    i: &Interaction,
    inputs: &serde_json::Value,
    context: &serde_json::Value,
) -> Vec<(Role, String)> {
    let r = render(i, obj(inputs), obj(context)).unwrap_or_else(|e| panic!("{e}"));
    r.messages
        .into_iter()
        .map(|m| (m.role, m.content))
        .collect()
}

#[test]
fn greeting_eval_renders_the_salutation_then_the_trimmed_organization() {
    let Some(root) = common::corpus() else {
        return;
    };
    let c = compile_under(&root, "packages/demo/contracts/greeting.yaml");
    let i = c.interaction.as_ref().unwrap();
    let eval = &c.contract.as_ref().unwrap().evals[0];
    assert_eq!(eval.id, "ryan");
    let got = messages(
        i,
        &serde_json::Value::Object(eval.inputs.clone()),
        &serde_json::Value::Object(eval.context.clone()),
    );
    assert_eq!(
        got,
        [
            (Role::System, "You write concise greetings.".to_owned()),
            (Role::User, "Hello Ryan for Blinqx".to_owned())
        ]
    );
    // Trimming is real: padded values come out trimmed.
    let got = messages(
        i,
        &serde_json::json!({"name": "  Ryan "}),
        &serde_json::json!({"organization": "\tBlinqx \n"}),
    );
    assert_eq!(got[1].1, "Hello Ryan for Blinqx");
}

#[test]
fn bli_61_renders_its_eval_request_exactly() {
    let Some(root) = common::corpus() else {
        return;
    };
    let c = compile_under(&root, "crm3/contracts/bli-61-date-term-extraction.yaml");
    let req = json(&root, "crm3/evals/bli-61-request.json");
    let got = messages(
        c.interaction.as_ref().unwrap(),
        &req["inputs"],
        &req["context"],
    );
    assert_eq!(
        got,
        [
            (
                Role::System,
                "Extraheer uitsluitend expliciete datums en looptijd. Geef bewijsverwijzingen, verzin niets.".to_owned()
            ),
            (
                Role::User,
                "Zaak: SYN-2026-0042\nDocument:\nDe overeenkomst gaat in op 1 september 2026 en eindigt op 31 augustus 2027. De looptijd bedraagt twaalf maanden. De opzegdatum is 31 mei 2027.".to_owned()
            ),
        ]
    );
}

#[test]
fn bli_62_renders_its_eval_request_exactly() {
    let Some(root) = common::corpus() else {
        return;
    };
    let c = compile_under(&root, "crm3/contracts/bli-62-document-drafting.yaml");
    let req = json(&root, "crm3/evals/bli-62-request.json");
    let got = messages(
        c.interaction.as_ref().unwrap(),
        &req["inputs"],
        &req["context"],
    );
    let facts = r#"{"effective_date":"2026-09-01","end_date":"2027-08-31","evidence":[{"document_id":"SYN-DOC-0001","end_offset":43,"field":"effective_date","fragment_id":"clause-2","quote_sha256":"f36295a8293cb1e891373f4e64f211deaff2ac9e15211fda895608eddc4cdcca","start_offset":27},{"document_id":"SYN-DOC-0001","end_offset":74,"field":"end_date","fragment_id":"clause-2","quote_sha256":"af7819cb59d72c4865699b1784c643d07c94251cda8e91b26ddc8e1f3743f5c8","start_offset":58},{"document_id":"SYN-DOC-0001","end_offset":111,"field":"term_months","fragment_id":"clause-2","quote_sha256":"b75db1c6de0d19bab191e38f0fb7f28c5a01612ac7eacb628f7dd98aac52bdc5","start_offset":97},{"document_id":"SYN-DOC-0001","end_offset":141,"field":"notice_date","fragment_id":"clause-2","quote_sha256":"4520d61c576b45c2fdaf7351002217dcee1f93eefa11615451c008750c5e842f","start_offset":130}],"notice_date":"2027-05-31","term_months":12}"#;
    assert_eq!(
        got,
        [
            (
                Role::System,
                "Maak een zakelijke Nederlandse conceptsamenvatting. Gebruik alleen de gevalideerde feiten.".to_owned()
            ),
            (
                Role::User,
                format!("Cliënt: Voorbeeldhandel B.V.\nZaak: SYN-2026-0042\nGevalideerde feiten: {facts}")
            ),
        ]
    );
}

#[test]
fn every_eval_fixture_renders_and_its_fake_output_validates() {
    let Some(root) = common::corpus() else {
        return;
    };
    let mut fixtures = 0;
    for rel in [
        "packages/demo/contracts/greeting.yaml",
        "crm3/contracts/bli-61-date-term-extraction.yaml",
        "crm3/contracts/bli-62-document-drafting.yaml",
    ] {
        let c = compile_under(&root, rel);
        let i = c.interaction.as_ref().unwrap();
        for eval in &c.contract.as_ref().unwrap().evals {
            render(i, &eval.inputs, &eval.context)
                .unwrap_or_else(|e| panic!("{rel} {}: {e}", eval.id));
            let out = eval.fake_output.as_ref().expect("fake_output");
            templiqx::validate_output(i, templiqx_contracts::AsValue::as_value(out))
                .unwrap_or_else(|d| panic!("{rel} {}: {d:?}", eval.id));
            fixtures += 1;
        }
    }
    assert_eq!(fixtures, 3);
}

#[test]
fn corpus_outputs_validate_and_a_broken_one_does_not() {
    let Some(root) = common::corpus() else {
        return;
    };
    let c = compile_under(&root, "crm3/contracts/bli-61-date-term-extraction.yaml");
    let i = c.interaction.as_ref().unwrap();
    let out = json(&root, "crm3/evals/bli-61-output.json");
    assert!(templiqx::validate_output(i, templiqx_contracts::AsValue::as_value(&out)).is_ok());
    let bad = serde_json::json!({"effective_date": "not-a-date"});
    let diags =
        templiqx::validate_output(i, templiqx_contracts::AsValue::as_value(&bad)).unwrap_err();
    assert!(diags.iter().all(|d| d.code == Code::OutputSchema));
    assert!(
        diags
            .iter()
            .any(|d| d.json_pointer.as_deref() == Some("/effective_date"))
    );
    let _ = ValueRef::Null;
}

#[test]
fn corpus_contracts_need_structured_output() {
    let Some(root) = common::corpus() else {
        return;
    };
    for rel in [
        "packages/demo/contracts/greeting.yaml",
        "crm3/contracts/bli-61-date-term-extraction.yaml",
    ] {
        let c = templiqx_build::compile_str(
            &common::read(&root, rel),
            rel,
            &templiqx_contracts::CapabilityProfile::default(),
        );
        assert_eq!(c.diagnostics.len(), 1, "{}", c.render_diagnostics());
        assert_eq!(c.diagnostics[0].code, Code::CapabilityUnsupported);
        assert_eq!(
            c.diagnostics[0].json_pointer.as_deref(),
            Some("/capabilities/0")
        );
    }
}
