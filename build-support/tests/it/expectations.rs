//! Eval checks (`expect`) and the expression kinds they brought
//! (`compare`, `contains`, `length`): parsing, typing against the
//! declarations and `output_schema`, the `output` root scope, compile-time
//! evaluation against `fake_output`, code generation and fingerprints
//! (`docs/format.md`, "Expressions", "Eval fixtures").

use templiqx_build::{CompileOptions, Loader, compile_checks, compile_str};
use templiqx_contracts::expect::evaluate_check;
use templiqx_contracts::{AsValue, CapabilityProfile, Code, Diagnostic};

fn target() -> CapabilityProfile {
    CapabilityProfile::parse_list("structured_output")
}

/// A contract with a string input `name`, an output with a number `score`,
/// a string array `tags`, a nullable string `note` and an optional
/// integer `extra`, one fixture, and `expect` spliced into it (indented
/// as list items under `expect:`).
fn contract(expect: &str) -> String {
    format!(
        r#"api_version: templiqx/v1alpha1
id: scorer
version: 0.1.0
inputs:
  name: {{ schema: {{ type: string }}, required: true }}
capabilities: [structured_output]
messages:
  - role: user
    content:
      - {{ kind: interpolate, expression: {{ kind: ref, path: inputs.name }} }}
output_schema:
  type: object
  additionalProperties: false
  required: [score, tags, note]
  properties:
    score: {{ type: number, minimum: 0, maximum: 1 }}
    tags: {{ type: array, items: {{ type: string }} }}
    note: {{ type: [string, "null"] }}
    extra: {{ type: integer }}
evals:
  - id: ada
    inputs: {{ name: Ada }}
    fake_output: {{ score: 0.9, tags: [a, b], note: null }}
    expect:
{expect}"#
    )
}

fn diagnostics(text: &str) -> Vec<Diagnostic> {
    let c = compile_str(text, "contracts/scorer.yaml", &target());
    assert_eq!(c.interaction.is_some(), c.diagnostics.is_empty(), "{text}");
    c.diagnostics
}

fn only(text: &str, code: Code, pointer: &str) -> Diagnostic {
    let diags = diagnostics(text);
    assert_eq!(diags.len(), 1, "{diags:#?}");
    let d = diags.into_iter().next().unwrap();
    assert_eq!(d.code, code, "{d:#?}");
    assert_eq!(d.json_pointer.as_deref(), Some(pointer), "{d:#?}");
    d
}

const PASSING: &str = r#"      - id: in-range
        description: The score is a probability.
        check:
          kind: and
          operands:
            - { kind: compare, op: ge, left: { kind: ref, path: output.score }, right: { kind: literal, value: 0 } }
            - { kind: compare, op: le, left: { kind: ref, path: output.score }, right: { kind: literal, value: 1 } }
      - id: tagged
        check: { kind: contains, container: { kind: ref, path: output.tags }, item: { kind: literal, value: b } }
      - id: name-in-output
        check:
          kind: not
          operand: { kind: contains, container: { kind: ref, path: inputs.name }, item: { kind: literal, value: "!" } }
      - id: two-tags
        check: { kind: equals, left: { kind: length, of: { kind: ref, path: output.tags } }, right: { kind: literal, value: 2 } }
      - id: note-short
        check:
          kind: or
          operands:
            - { kind: equals, left: { kind: ref, path: output.note }, right: { kind: literal, value: null } }
            - kind: compare
              op: lt
              left: { kind: length, of: { kind: ref, path: output.note } }
              right: { kind: literal, value: 10 }
"#;

#[test]
fn checks_over_output_inputs_and_narrowed_nullables_compile_and_pass() {
    assert!(diagnostics(&contract(PASSING)).is_empty());
}

#[test]
fn an_unknown_output_path_is_ref_unknown_with_a_suggestion() {
    let text = contract(
        "      - id: c\n        check: { kind: compare, op: ge, left: { kind: ref, path: output.scroe }, right: { kind: literal, value: 0 } }\n",
    );
    let d = only(&text, Code::RefUnknown, "/evals/0/expect/0/check/left/path");
    assert_eq!(d.message, "`output` declares no property `scroe`");
    assert_eq!(d.help.as_deref(), Some("did you mean `output.score`?"));
}

#[test]
fn a_misspelled_output_root_is_suggested_in_checks() {
    let text = contract(
        "      - id: c\n        check: { kind: equals, left: { kind: ref, path: ouptut.score }, right: { kind: literal, value: 0 } }\n",
    );
    let d = only(&text, Code::RefUnknown, "/evals/0/expect/0/check/left/path");
    assert_eq!(d.help.as_deref(), Some("did you mean `output`?"));
}

#[test]
fn a_non_boolean_check_is_a_type_mismatch() {
    let text = contract(
        "      - id: c\n        check: { kind: length, of: { kind: ref, path: output.tags } }\n",
    );
    let d = only(&text, Code::TypeMismatch, "/evals/0/expect/0/check");
    assert_eq!(
        d.message,
        "an `expect` check must be a boolean, but `length(output.tags)` is an integer"
    );
}

#[test]
fn operands_of_the_new_kinds_are_typed() {
    // `compare` needs non-nullable numbers: a nullable string, a string.
    let text = contract(
        "      - id: c\n        check: { kind: compare, op: gt, left: { kind: ref, path: output.note }, right: { kind: literal, value: \"1\" } }\n",
    );
    let diags = diagnostics(&text);
    let pointers: Vec<_> = diags
        .iter()
        .map(|d| (d.code, d.json_pointer.clone().unwrap()))
        .collect();
    assert_eq!(
        pointers,
        [
            (
                Code::TypeMismatch,
                "/evals/0/expect/0/check/left".to_owned()
            ),
            (
                Code::TypeMismatch,
                "/evals/0/expect/0/check/right".to_owned()
            ),
        ]
    );
    assert_eq!(
        diags[0].message,
        "an operand of `compare` must be a number, but `output.note` is null or a string"
    );
    // `contains` in a string looks for a string.
    let text = contract(
        "      - id: c\n        check: { kind: contains, container: { kind: ref, path: inputs.name }, item: { kind: literal, value: 1 } }\n",
    );
    only(&text, Code::TypeMismatch, "/evals/0/expect/0/check/item");
    // `contains` needs a string or an array.
    let text = contract(
        "      - id: c\n        check: { kind: contains, container: { kind: ref, path: output.score }, item: { kind: literal, value: 1 } }\n",
    );
    only(
        &text,
        Code::TypeMismatch,
        "/evals/0/expect/0/check/container",
    );
    // `length` of a number.
    let text = contract(
        "      - id: c\n        check: { kind: equals, left: { kind: length, of: { kind: ref, path: output.score } }, right: { kind: literal, value: 1 } }\n",
    );
    only(&text, Code::TypeMismatch, "/evals/0/expect/0/check/left/of");
    // Without the null test first, a nullable value is not narrowed.
    let text = contract(
        "      - id: c\n        check: { kind: compare, op: lt, left: { kind: length, of: { kind: ref, path: output.note } }, right: { kind: literal, value: 10 } }\n",
    );
    only(&text, Code::TypeMismatch, "/evals/0/expect/0/check/left/of");
}

#[test]
fn check_ids_are_unique_and_non_empty_and_check_mappings_are_closed() {
    let check = "{ kind: literal, value: true }";
    let text = contract(&format!(
        "      - {{ id: a, check: {check} }}\n      - {{ id: a, check: {check} }}\n"
    ));
    let d = only(&text, Code::EvalInvalid, "/evals/0/expect/1/id");
    assert_eq!(d.message, "check id `a` is used twice in eval `ada`");
    let text = contract(&format!("      - {{ id: \"\", check: {check} }}\n"));
    only(&text, Code::EvalInvalid, "/evals/0/expect/0/id");
    let text = contract(&format!("      - {{ id: a, chek: {check} }}\n"));
    let diags = diagnostics(&text);
    let codes: Vec<_> = diags.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        [Code::UnknownField, Code::MissingField],
        "{diags:#?}"
    );
    assert_eq!(diags[0].help.as_deref(), Some("did you mean `check`?"));
    let text = contract(
        "      - { id: a, check: { kind: compare, op: eq, left: { kind: literal, value: 1 }, right: { kind: literal, value: 1 } } }\n",
    );
    let d = only(&text, Code::UnknownVariant, "/evals/0/expect/0/check/op");
    assert!(d.help.unwrap().contains("`equals`"));
}

#[test]
fn output_is_a_root_scope_only_in_checks() {
    let text = contract("      []\n").replace(
        "{ kind: interpolate, expression: { kind: ref, path: inputs.name } }",
        "{ kind: interpolate, expression: { kind: ref, path: output.score } }",
    );
    let text = text.replace("    expect:\n      []\n", "    expect: []\n");
    let d = only(
        &text,
        Code::RefUnknown,
        "/messages/0/content/0/expression/path",
    );
    assert_eq!(
        d.message,
        "unknown name `output` in reference `output.score`"
    );
    assert!(d.help.unwrap().contains("only in the `expect` checks"));
}

#[test]
fn a_check_the_fake_output_fails_is_eval_invalid_naming_what_it_read() {
    let text = contract(
        "      - id: many-tags\n        check: { kind: compare, op: gt, left: { kind: length, of: { kind: ref, path: output.tags } }, right: { kind: literal, value: 5 } }\n      - id: extra\n        check: { kind: equals, left: { kind: ref, path: output.extra }, right: { kind: literal, value: 1 } }\n",
    );
    let diags = diagnostics(&text);
    assert_eq!(diags.len(), 2, "{diags:#?}");
    assert_eq!(diags[0].code, Code::EvalInvalid);
    assert_eq!(
        diags[0].message,
        "check `many-tags` of eval `ada` fails against its `fake_output`"
    );
    assert_eq!(
        diags[0].notes,
        [
            "the check: compare(gt, length(output.tags), 5)",
            "length(output.tags) = 2",
            "output.tags = [\"a\",\"b\"]",
        ]
    );
    // An absent optional property cannot be checked: TQX_VALUE_MISSING's
    // message, reported as the fixture's problem.
    assert_eq!(diags[1].code, Code::EvalInvalid);
    assert_eq!(
        diags[1].json_pointer.as_deref(),
        Some("/evals/0/expect/1/check")
    );
    assert!(
        diags[1]
            .message
            .ends_with("`output.extra` has no value: key `extra` is absent"),
        "{}",
        diags[1].message
    );
}

#[test]
fn code_generating_front_ends_leave_failing_checks_to_the_eval_tests() {
    let dir = tempfile::tempdir().unwrap();
    let text = contract(
        "      - id: many-tags\n        check: { kind: compare, op: gt, left: { kind: length, of: { kind: ref, path: output.tags } }, right: { kind: literal, value: 5 } }\n",
    );
    std::fs::write(dir.path().join("scorer.yaml"), &text).unwrap();
    let mut loader = Loader::new(dir.path()).with_options(CompileOptions {
        fake_output_in_tests: true,
        ..CompileOptions::default()
    });
    let c = loader.compile_file(&dir.path().join("scorer.yaml"), &target());
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    // The compiled check is what the generated test evaluates: false.
    let (contract, interaction) = (c.contract.unwrap(), c.interaction.unwrap());
    let checks = compile_checks(&contract, &interaction, &loader.sources);
    assert_eq!(checks.len(), 1);
    assert_eq!(&*checks[0][0].id, "many-tags");
    let eval = &contract.evals[0];
    let output = eval.fake_output.as_ref().unwrap();
    assert_eq!(
        evaluate_check(
            &checks[0][0],
            &eval.inputs,
            &eval.context,
            output.as_value()
        ),
        Ok(false)
    );
    let site = checks[0][0].site.as_ref().unwrap();
    assert_eq!(&*site.pointer, "/evals/0/expect/0/check");
}

#[test]
fn expect_enters_the_contract_fingerprint_only_when_present() {
    let fingerprints = |text: &str| {
        let c = compile_str(text, "contracts/scorer.yaml", &target());
        assert!(c.diagnostics.is_empty(), "{}", c.render_diagnostics());
        let i = c.interaction.unwrap();
        (
            i.contract_fingerprint.to_string(),
            i.interaction_fingerprint.to_string(),
        )
    };
    let with = fingerprints(&contract(PASSING));
    let empty = fingerprints(&contract("      []\n"));
    let null = fingerprints(&contract("      null\n"));
    let without = fingerprints(&contract("").replace("    expect:\n", ""));
    assert_eq!(empty, without);
    assert_eq!(null, without);
    assert_ne!(with.0, without.0);
    assert_eq!(with.1, without.1, "checks never enter the interaction");
    // A description is part of what the contract says.
    let described =
        fingerprints(&contract(PASSING).replace("The score is a probability.", "A probability."));
    assert_ne!(described.0, with.0);
}

/// Ids name JUnit test cases and report entries: a control character or a
/// noncharacter, written as a YAML escape, is refused at the id
/// (`docs/format.md`, "Eval fixtures"); `row\u0001` and `row\u0002` would
/// otherwise be one JUnit name, and `\uFFFE` no XML at all.
#[test]
fn eval_and_check_ids_hold_printable_characters_only() {
    let check = "{ kind: literal, value: true }";
    for (escaped, shown, what) in [
        ("row\\u0001", "row\\u{1}", "U+0001, a control character"),
        ("row\\a", "row\\u{7}", "U+0007, a control character"),
        ("row\\u0085", "row\\u{85}", "U+0085, a control character"),
        (
            "row\\uFFFE",
            "row\\u{fffe}",
            "U+FFFE, a Unicode noncharacter",
        ),
        (
            "row\\uFDD0",
            "row\\u{fdd0}",
            "U+FDD0, a Unicode noncharacter",
        ),
        (
            "row\\U0001FFFF",
            "row\\u{1ffff}",
            "U+1FFFF, a Unicode noncharacter",
        ),
        (
            "row\\u202E",
            "row\\u{202e}",
            "U+202E, a bidirectional formatting character",
        ),
    ] {
        let text = contract(&format!(
            "      - {{ id: \"{escaped}\", check: {check} }}\n"
        ));
        let d = only(&text, Code::EvalInvalid, "/evals/0/expect/0/id");
        assert_eq!(
            d.message,
            format!("check id `{shown}` of eval `ada` holds {what}")
        );
        assert!(d.help.as_deref().unwrap().contains("printable"), "{d:?}");
        let text = contract(&format!("      - {{ id: c, check: {check} }}\n"))
            .replace("  - id: ada\n", &format!("  - id: \"{escaped}\"\n"));
        let d = only(&text, Code::EvalInvalid, "/evals/0/id");
        assert_eq!(d.message, format!("eval id `{shown}` holds {what}"));
    }
    // Printable characters beyond ASCII are names like any other.
    let text = contract(&format!("      - {{ id: \"größe-✓\", check: {check} }}\n"));
    assert!(diagnostics(&text).is_empty());
}

/// `#` separates a dataset entry's id from a row's in a fixture name
/// (`contract::entry#ID`), so an eval id holds none (`docs/format.md`,
/// "Eval fixtures"): `ada#1` would read as row `1` of entry `ada`. A check
/// id may hold one.
#[test]
fn an_eval_id_holds_no_hash() {
    let text = contract("      - { id: \"c#1\", check: { kind: literal, value: true } }\n")
        .replace("  - id: ada\n", "  - id: \"ada#1\"\n");
    let d = only(&text, Code::EvalInvalid, "/evals/0/id");
    assert_eq!(d.message, "eval id `ada#1` holds `#`");
    assert!(
        d.help.as_deref().unwrap().contains("contract::entry#ID"),
        "{d:?}"
    );
}
