//! Eval checks (`expect`, `docs/format.md`, "Eval fixtures") across the
//! workspace: the CRM3 example contracts carry checks that pass against
//! their fixtures' `fake_output` and catch a wrong output; without
//! `expect` they fingerprint exactly as before the field existed; and the
//! expression kinds checks brought (`compare`, `contains`, `length`) are
//! refused in content and evaluated in checks.

use crate::common;

use std::path::Path;
use templiqx::{
    AsValue, describe_failure, evaluate_check, evaluate_check_with_case, observed_values,
};
use templiqx_build::dataset::EntryRows;
use templiqx_build::{CompiledContract, Loader, compile_checks};

/// The CRM3 contract fingerprints recorded before `expect` existed
/// (`templiqx check examples/crm3 --format json` at that commit).
const BEFORE: [(&str, &str); 2] = [
    (
        "lease-term-extraction",
        "5591d0e4641c7cae5feabf64d5b810ffce38b5a81cccf75749f5ff73adaca746",
    ),
    (
        "lease-summary-drafting",
        "0b5587a059b112ad43a44466b641e3e3f977545882e1b8a07159eab765c165c4",
    ),
];

fn compile(dir: &Path) -> (Loader, Vec<CompiledContract>) {
    let mut loader = Loader::new(dir);
    let compiled = loader
        .compile_package(dir, &common::structured_output())
        .unwrap();
    for c in &compiled {
        assert!(c.diagnostics.is_empty(), "{}: {:#?}", c.file, c.diagnostics);
    }
    (loader, compiled)
}

#[test]
fn the_crm3_checks_pass_against_their_fake_outputs_and_catch_a_wrong_one() {
    let dir = common::examples().join("crm3");
    let (loader, compiled) = compile(&dir);
    let mut ids = Vec::new();
    for c in &compiled {
        let (contract, interaction) = (
            c.contract.as_ref().unwrap(),
            c.interaction.as_ref().unwrap(),
        );
        let checks = compile_checks(contract, interaction, &loader.sources);
        assert_eq!(checks.len(), contract.evals.len());
        for (eval, checks) in contract.evals.iter().zip(&checks) {
            assert!(!checks.is_empty(), "{}: no checks", eval.id);
            if eval.dataset.is_some() {
                // A dataset entry (`docs/format.md`, "Datasets"): each row's
                // checks pass against its own `fake_output` and `case`.
                let rows = EntryRows::open(interaction, eval).unwrap();
                let mut n = 0;
                for row in rows {
                    let row = row.unwrap();
                    let output = row.fake_output.as_ref().unwrap();
                    let case = row.case.as_ref().map(AsValue::as_value);
                    for check in checks {
                        let outcome = evaluate_check_with_case(
                            check,
                            &row.inputs,
                            &row.context,
                            case,
                            output.as_value(),
                        );
                        assert_eq!(outcome, Ok(true), "{}#{}: {}", eval.id, row.id, check.id);
                    }
                    n += 1;
                }
                assert_eq!((c.id.as_str(), n), ("lease-term-extraction", 24));
                continue;
            }
            let output = eval.fake_output.as_ref().unwrap();
            for check in checks {
                if check.judge.is_some() {
                    // Model-graded: only an eval run, which executes the
                    // judge, decides it (`docs/format.md`, "Model-graded
                    // checks").
                    ids.push(format!("{}/{} (judged)", c.id, check.id));
                    continue;
                }
                assert_eq!(
                    evaluate_check(check, &eval.inputs, &eval.context, output.as_value()),
                    Ok(true),
                    "{}: {}",
                    check.id,
                    check.source
                );
                ids.push(format!("{}/{}", c.id, check.id));
            }
        }
    }
    assert_eq!(
        ids,
        [
            "lease-term-extraction/term-dates",
            "lease-term-extraction/start-date-in-clause",
            "lease-term-extraction/rent",
            "lease-term-extraction/notice-within-a-year",
            "lease-term-extraction/evidence-for-every-field",
            "lease-summary-drafting/addresses-the-client",
            "lease-summary-drafting/rent-in-locale",
            "lease-summary-drafting/mentions-notice",
            "lease-summary-drafting/summary-fits-a-preview",
            "lease-summary-drafting/faithful-to-the-terms (judged)",
            "lease-summary-judge/a-faithful-summary-scores-high",
            "lease-summary-judge/an-invented-fact-is-named",
        ]
    );

    // A model output with a wrong rent and one evidence entry: valid
    // against the schema, but two checks fail, saying what they read.
    let extraction = &compiled[0];
    let contract = extraction.contract.as_ref().unwrap();
    let checks = compile_checks(
        contract,
        extraction.interaction.as_ref().unwrap(),
        &loader.sources,
    );
    let eval = &contract.evals[0];
    let mut output = eval.fake_output.clone().unwrap();
    output["monthly_rent"] = serde_json::json!(1405);
    output["evidence"].as_array_mut().unwrap().truncate(1);
    templiqx::validate_output(extraction.interaction.as_ref().unwrap(), output.as_value()).unwrap();
    let failures: Vec<String> = checks[0]
        .iter()
        .filter_map(|check| {
            let outcome = evaluate_check(check, &eval.inputs, &eval.context, output.as_value());
            (outcome != Ok(true)).then(|| {
                let observed =
                    observed_values(check, &eval.inputs, &eval.context, output.as_value());
                describe_failure(check, &outcome, &observed)
            })
        })
        .collect();
    assert_eq!(failures.len(), 2, "{failures:#?}");
    assert_eq!(
        failures[0],
        "check `rent` failed: equals(output.monthly_rent, 1450.5)\n  output.monthly_rent = 1405"
    );
    assert!(
        failures[1].starts_with(
            "check `evidence-for-every-field` failed: and(compare(ge, length(output.evidence), 4), equals(output.evidence.0.document_id, inputs.document_id)) (One evidence entry per extracted field, citing the requested document.)\n  length(output.evidence) = 1\n"
        ),
        "{}",
        failures[1]
    );
}

/// A copy of the CRM3 example with each contract's text cut before its
/// checks (the last entry of its first fixture) and, with `bounds_too`,
/// without the drafting output's `maxLength` bounds, which came later
/// still: the text of the time before `expect`.
fn crm3_without_checks(bounds_too: bool) -> (tempfile::TempDir, Vec<CompiledContract>) {
    let dir = tempfile::tempdir().unwrap();
    templiqx_conformance_suites::copy_tree(&common::examples().join("crm3"), dir.path());
    for (id, _) in BEFORE {
        let path = dir.path().join(format!("contracts/{id}.yaml"));
        let text = std::fs::read_to_string(&path).unwrap();
        let cut = text.find("    expect:\n").expect("the example has checks");
        let mut then = text[..cut].to_owned();
        if bounds_too {
            then = then
                .replace(", maxLength: 120 }", " }")
                .replace(", maxLength: 600 }", " }");
        }
        std::fs::write(&path, then).unwrap();
    }
    let (_, compiled) = compile(dir.path());
    (dir, compiled)
}

#[test]
fn without_expect_the_crm3_contracts_fingerprint_exactly_as_before() {
    let (_dir, compiled) = crm3_without_checks(true);
    // The judge came with the judged check; it is no contract of that time.
    let got: Vec<(&str, &str)> = compiled
        .iter()
        .filter(|c| c.id != "lease-summary-judge")
        .map(|c| {
            (
                c.id.as_str(),
                &*c.interaction.as_ref().unwrap().contract_fingerprint,
            )
        })
        .collect();
    assert_eq!(got, BEFORE);

    // With the checks, only the contract fingerprint changes.
    let (_dir, without) = crm3_without_checks(false);
    let (_, with) = compile(&common::examples().join("crm3"));
    let mut compared = 0;
    for (a, b) in with
        .iter()
        .zip(&without)
        .filter(|(a, _)| a.id != "lease-summary-judge")
    {
        assert_eq!(a.id, b.id);
        let (a, b) = (
            a.interaction.as_ref().unwrap(),
            b.interaction.as_ref().unwrap(),
        );
        assert_ne!(a.contract_fingerprint, b.contract_fingerprint);
        assert_eq!(a.interaction_fingerprint, b.interaction_fingerprint);
        compared += 1;
    }
    assert_eq!(compared, BEFORE.len());
}

/// `compare`, `contains` and `length` are eval operators: refused in
/// content (`TQX_EXPR_KIND_NOT_ALLOWED`, `docs/format.md`, "Where each
/// kind is allowed"), evaluated in checks by the renderer's own evaluator.
#[test]
fn the_eval_operators_are_refused_in_content_and_evaluated_in_checks() {
    let contract = |content: &str, expect: &str| {
        format!(
            r#"api_version: templiqx/v1alpha1
id: tags
version: 0.1.0
inputs:
  tags: {{ schema: {{ type: array, items: {{ type: string }} }}, required: true }}
  name: {{ schema: {{ type: string }}, required: true }}
capabilities: [structured_output]
messages:
  - role: user
    content:
      - {content}
output_schema: {{ type: object }}
evals:
  - id: zoe
    inputs: {{ tags: [a, urgent], name: "Zoë" }}
    expect:
      - {{ id: urgent-and-named, check: {expect} }}
"#
        )
    };
    let condition = "{ kind: and, operands: [{ kind: contains, container: { kind: ref, path: inputs.tags }, item: { kind: literal, value: urgent } }, { kind: compare, op: ge, left: { kind: length, of: { kind: ref, path: inputs.name } }, right: { kind: literal, value: 3 } }] }";
    let when = format!(
        "{{ kind: when, condition: {condition}, then: [{{ kind: text, value: urgent }}] }}"
    );
    let literal = "{ kind: literal, value: true }";
    let text = contract(&when, literal);
    let c = templiqx_build::compile_str(&text, "contracts/tags.yaml", &common::structured_output());
    let refused: Vec<(&str, Option<&str>)> = c
        .diagnostics
        .iter()
        .map(|d| (d.code.as_str(), d.json_pointer.as_deref()))
        .collect();
    assert_eq!(
        refused,
        [
            (
                "TQX_EXPR_KIND_NOT_ALLOWED",
                Some("/messages/0/content/0/condition/operands/0/kind")
            ),
            (
                "TQX_EXPR_KIND_NOT_ALLOWED",
                Some("/messages/0/content/0/condition/operands/1/kind")
            ),
        ]
    );
    assert!(c.interaction.is_none());

    // The same expression as a check compiles, and evaluates.
    let text = contract("{ kind: text, value: hi }", condition);
    let c = templiqx_build::compile_str(&text, "contracts/tags.yaml", &common::structured_output());
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    let (contract, interaction) = (c.contract.unwrap(), c.interaction.unwrap());
    let checks = compile_checks(&contract, &interaction, &c.sources);
    let eval = &contract.evals[0];
    let output = serde_json::json!({});
    let check = |inputs: serde_json::Value| {
        evaluate_check(
            &checks[0][0],
            inputs.as_object().unwrap(),
            &eval.context,
            output.as_value(),
        )
    };
    assert_eq!(
        check(serde_json::json!({"tags": ["a", "urgent"], "name": "Zoë"})),
        Ok(true)
    );
    assert_eq!(
        check(serde_json::json!({"tags": ["urgent"], "name": "Al"})),
        Ok(false)
    );
}
