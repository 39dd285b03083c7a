//! Model-graded checks (`docs/format.md`, "Model-graded checks"): a check
//! of `kind: judge` names another contract of the package, which is
//! resolved and compiled with the contract; its `with` is fitted to the
//! judge's inputs, its `pass` typed by the judge's `output_schema`, and a
//! cycle of judges is refused. Each test builds its package in a fresh
//! temporary directory.

use std::fs;
use templiqx_build::{CompiledContract, Loader, compile_checks, compile_str};
use templiqx_contracts::{CapabilityProfile, Code, Diagnostic};

/// A contract `id` drafting a summary from facts, whose one fixture has
/// the checks `checks` (YAML, indented for `expect:`).
fn drafting(id: &str, checks: &str) -> String {
    format!(
        r#"api_version: templiqx/v1alpha1
id: {id}
version: 0.1.0
inputs:
  facts: {{ schema: {{ type: array, items: {{ type: string }} }}, required: true }}
capabilities: [structured_output]
messages:
  - role: user
    content:
      - {{ kind: interpolate, expression: {{ kind: ref, path: inputs.facts }}, filters: [json] }}
output_schema:
  type: object
  additionalProperties: false
  required: [summary, words]
  properties:
    summary: {{ type: string, minLength: 1 }}
    words: {{ type: integer }}
evals:
  - id: short
    inputs: {{ facts: ["rent 1200", "ends 2027-01-31"] }}
    fake_output: {{ summary: "Rent 1200 until January 2027.", words: 5 }}
    expect:
{checks}"#
    )
}

/// A judge contract `id` scoring a summary against facts; `extra` is more
/// of its YAML (its own evals, context).
fn judge(id: &str, extra: &str) -> String {
    format!(
        r#"api_version: templiqx/v1alpha1
id: {id}
version: 0.1.0
inputs:
  summary: {{ schema: {{ type: string }}, required: true }}
  facts: {{ schema: {{ type: array, items: {{ type: string }} }}, required: true }}
  strict: {{ schema: {{ type: boolean }}, required: false }}
capabilities: [structured_output]
messages:
  - role: user
    content:
      - {{ kind: interpolate, expression: {{ kind: ref, path: inputs.summary }} }}
      - {{ kind: interpolate, expression: {{ kind: ref, path: inputs.facts }}, filters: [json] }}
output_schema:
  type: object
  additionalProperties: false
  required: [score, reasons]
  properties:
    score: {{ type: integer, minimum: 1, maximum: 5 }}
    reasons: {{ type: string }}
{extra}"#
    )
}

/// A `judge` check of `contract` with `with` (a YAML flow mapping) and
/// `pass` (a YAML flow mapping).
fn judge_check(id: &str, contract: &str, with: &str, pass: &str) -> String {
    format!(
        r#"      - id: {id}
        check:
          kind: judge
          contract: {contract}
          with: {with}
          pass: {pass}
"#
    )
}

const WITH: &str =
    "{ summary: { kind: ref, path: output.summary }, facts: { kind: ref, path: inputs.facts } }";
const PASS: &str = "{ kind: compare, op: ge, left: { kind: ref, path: judge.score }, right: { kind: literal, value: 4 } }";

/// A package of `contracts` (id, YAML), listed in that order.
struct Pkg {
    dir: tempfile::TempDir,
}

impl Pkg {
    fn new(contracts: &[(&str, String)]) -> Pkg {
        let dir = tempfile::tempdir().unwrap();
        let ids: Vec<&str> = contracts.iter().map(|(id, _)| *id).collect();
        let manifest = format!(
            "api_version: templiqx/v1alpha1\npackage: scratch\nversion: 0.1.0\ncontracts: [{}]\n",
            ids.join(", ")
        );
        fs::write(dir.path().join("templiqx.yaml"), manifest).unwrap();
        fs::create_dir_all(dir.path().join("contracts")).unwrap();
        for (id, text) in contracts {
            fs::write(dir.path().join(format!("contracts/{id}.yaml")), text).unwrap();
        }
        Pkg { dir }
    }

    /// Every contract compiled (the loader, and the results in order).
    fn compile(&self) -> (Loader, Vec<CompiledContract>) {
        let mut loader = Loader::new(self.dir.path());
        let target = CapabilityProfile::parse_list("structured_output");
        let all = loader.compile_package(self.dir.path(), &target).unwrap();
        (loader, all)
    }
}

fn errors_of(c: &CompiledContract) -> Vec<&Diagnostic> {
    c.diagnostics.iter().filter(|d| d.is_error()).collect()
}

/// The one error of `c`, of code `code`.
fn only_error(c: &CompiledContract, code: Code) -> &Diagnostic {
    let errors = errors_of(c);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert_eq!(errors[0].code, code, "{errors:#?}");
    errors[0]
}

#[test]
fn a_judged_check_compiles_with_its_judge_and_tracks_its_file() {
    let pkg = Pkg::new(&[
        (
            "drafting",
            drafting(
                "drafting",
                &judge_check("faithful", "summary-judge", WITH, PASS),
            ),
        ),
        ("summary-judge", judge("summary-judge", "")),
    ]);
    let (loader, all) = pkg.compile();
    for c in &all {
        assert!(c.diagnostics.is_empty(), "{}: {:#?}", c.id, c.diagnostics);
    }
    assert!(
        loader
            .files_read
            .iter()
            .any(|p| p.ends_with("contracts/summary-judge.yaml"))
    );
    let (contract, interaction) = (
        all[0].contract.as_ref().unwrap(),
        all[0].interaction.as_ref().unwrap(),
    );
    let checks = compile_checks(contract, interaction, &loader.sources);
    let check = &checks[0][0];
    let graded = check.judge.as_ref().expect("a model-graded check");
    assert_eq!(&*graded.contract, "summary-judge");
    let names: Vec<&str> = graded.with.iter().map(|i| &*i.name).collect();
    assert_eq!(names, ["summary", "facts"]);
    assert_eq!(
        &*check.source,
        "judge(summary-judge, compare(ge, judge.score, 4))"
    );
    // The judge's own contract does not change the judged contract's
    // fingerprint: an eval run records it beside (docs/eval.md, "Judges").
    let before = interaction.contract_fingerprint.to_string();
    fs::write(
        pkg.dir.path().join("contracts/summary-judge.yaml"),
        judge("summary-judge", "").replace("version: 0.1.0", "version: 0.2.0"),
    )
    .unwrap();
    let (_, again) = pkg.compile();
    assert_eq!(
        again[0]
            .interaction
            .as_ref()
            .unwrap()
            .contract_fingerprint
            .to_string(),
        before
    );
    assert_ne!(
        again[1].interaction.as_ref().unwrap().contract_fingerprint,
        all[1].interaction.as_ref().unwrap().contract_fingerprint
    );
}

#[test]
fn a_with_value_of_the_wrong_type_is_judge_input_at_its_pointer() {
    let with =
        "{ summary: { kind: ref, path: output.words }, facts: { kind: ref, path: inputs.facts } }";
    let pkg = Pkg::new(&[
        (
            "drafting",
            drafting(
                "drafting",
                &judge_check("faithful", "summary-judge", with, PASS),
            ),
        ),
        ("summary-judge", judge("summary-judge", "")),
    ]);
    let (_, all) = pkg.compile();
    let d = only_error(&all[0], Code::JudgeInput);
    assert_eq!(
        d.message,
        "input `summary` of judge `summary-judge` is a string, but `output.words` is an integer"
    );
    assert_eq!(
        d.json_pointer.as_deref(),
        Some("/evals/0/expect/0/check/with/summary")
    );
    assert!(d.span.is_some());
    // A literal is checked against the input's schema as a value.
    let with = "{ summary: { kind: literal, value: 3 }, facts: { kind: ref, path: inputs.facts } }";
    let pkg = Pkg::new(&[
        (
            "drafting",
            drafting(
                "drafting",
                &judge_check("faithful", "summary-judge", with, PASS),
            ),
        ),
        ("summary-judge", judge("summary-judge", "")),
    ]);
    let (_, all) = pkg.compile();
    only_error(&all[0], Code::JudgeInput);
}

#[test]
fn a_missing_required_input_an_undeclared_one_and_required_context_are_judge_input() {
    let with = "{ summry: { kind: ref, path: output.summary } }";
    let pkg = Pkg::new(&[
        (
            "drafting",
            drafting(
                "drafting",
                &judge_check("faithful", "summary-judge", with, PASS),
            ),
        ),
        (
            "summary-judge",
            judge(
                "summary-judge",
                "context:\n  rubric: { schema: { type: string }, required: true }\n",
            ),
        ),
    ]);
    let (_, all) = pkg.compile();
    let messages: Vec<(Code, &str, Option<&str>)> = errors_of(&all[0])
        .iter()
        .map(|d| (d.code, d.message.as_str(), d.json_pointer.as_deref()))
        .collect();
    assert_eq!(
        messages,
        [
            (
                Code::JudgeInput,
                "judge `summary-judge` declares no input `summry`",
                Some("/evals/0/expect/0/check/with/summry")
            ),
            (
                Code::JudgeInput,
                "check `faithful` gives judge `summary-judge` no `summary`, a required input",
                Some("/evals/0/expect/0/check/with")
            ),
            (
                Code::JudgeInput,
                "check `faithful` gives judge `summary-judge` no `facts`, a required input",
                Some("/evals/0/expect/0/check/with")
            ),
            (
                Code::JudgeInput,
                "judge `summary-judge` of check `faithful` requires context `rubric`, which a judge check cannot give",
                Some("/evals/0/expect/0/check/contract")
            ),
        ]
    );
    let undeclared = errors_of(&all[0])[0];
    assert_eq!(undeclared.help.as_deref(), Some("did you mean `summary`?"));
}

#[test]
fn a_judge_the_package_does_not_list_or_that_does_not_compile_is_unresolved() {
    let pkg = Pkg::new(&[
        (
            "drafting",
            drafting(
                "drafting",
                &judge_check("faithful", "sumary-judge", WITH, PASS),
            ),
        ),
        ("summary-judge", judge("summary-judge", "")),
    ]);
    let (_, all) = pkg.compile();
    let d = only_error(&all[0], Code::JudgeUnresolved);
    assert_eq!(
        d.message,
        "check `faithful` is judged by `sumary-judge`, a contract the package does not list"
    );
    assert_eq!(d.help.as_deref(), Some("did you mean `summary-judge`?"));
    assert_eq!(
        d.json_pointer.as_deref(),
        Some("/evals/0/expect/0/check/contract")
    );

    let broken = judge("summary-judge", "").replace("path: inputs.summary", "path: inputs.sumary");
    let pkg = Pkg::new(&[
        (
            "drafting",
            drafting(
                "drafting",
                &judge_check("faithful", "summary-judge", WITH, PASS),
            ),
        ),
        ("summary-judge", broken),
    ]);
    let (_, all) = pkg.compile();
    let d = only_error(&all[0], Code::JudgeUnresolved);
    assert_eq!(
        d.message,
        "judge contract `summary-judge` of check `faithful` does not compile for the target"
    );
    let help = d.help.as_deref().unwrap();
    assert!(
        help.starts_with("fix the judge first (contracts/summary-judge.yaml): TQX_REF_UNKNOWN:"),
        "{help}"
    );
    only_error(&all[1], Code::RefUnknown);

    // Without its package, a judge cannot be resolved.
    let target = CapabilityProfile::parse_list("structured_output");
    let alone = compile_str(
        &drafting(
            "drafting",
            &judge_check("faithful", "summary-judge", WITH, PASS),
        ),
        "drafting.yaml",
        &target,
    );
    let codes: Vec<Code> = alone.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::JudgeUnresolved]);
}

#[test]
fn judges_in_a_cycle_are_judge_cycle_for_every_contract_around_it() {
    let a = drafting("a", &judge_check("by-b", "b", WITH, PASS));
    let b = judge(
        "b",
        &format!(
            "evals:\n  - id: one\n    inputs: {{ summary: s, facts: [] }}\n    expect:\n{}",
            judge_check(
                "by-a",
                "a",
                "{ facts: { kind: ref, path: inputs.facts } }",
                "{ kind: compare, op: ge, left: { kind: ref, path: judge.words }, right: { kind: literal, value: 1 } }"
            )
        ),
    );
    let pkg = Pkg::new(&[("a", a), ("b", b)]);
    let (_, all) = pkg.compile();
    let d = only_error(&all[0], Code::JudgeCycle);
    assert_eq!(
        d.message,
        "check `by-b` is judged by `b`, and judges form a cycle: a → b → a"
    );
    let d = only_error(&all[1], Code::JudgeCycle);
    assert_eq!(
        d.message,
        "check `by-a` is judged by `a`, and judges form a cycle: b → a → b"
    );

    // A contract judging itself.
    let own = "{ kind: compare, op: ge, left: { kind: ref, path: judge.words }, right: { kind: literal, value: 1 } }";
    let with = "{ facts: { kind: ref, path: inputs.facts } }";
    let pkg = Pkg::new(&[("a", drafting("a", &judge_check("self", "a", with, own)))]);
    let (_, all) = pkg.compile();
    let d = only_error(&all[0], Code::JudgeCycle);
    assert!(
        d.message.ends_with("judges form a cycle: a → a"),
        "{}",
        d.message
    );
}

#[test]
fn pass_is_typed_by_the_judge_output_and_judge_is_a_whole_check_only() {
    let compile = |checks: String| {
        let pkg = Pkg::new(&[
            ("drafting", drafting("drafting", &checks)),
            ("summary-judge", judge("summary-judge", "")),
        ]);
        pkg.compile().1.remove(0)
    };
    // A typo under `judge`.
    let typo = PASS.replace("judge.score", "judge.scroe");
    let c = compile(judge_check("faithful", "summary-judge", WITH, &typo));
    let d = only_error(&c, Code::RefUnknown);
    assert_eq!(d.help.as_deref(), Some("did you mean `judge.score`?"));
    // `pass` must be a boolean.
    let c = compile(judge_check(
        "faithful",
        "summary-judge",
        WITH,
        "{ kind: ref, path: judge.reasons }",
    ));
    only_error(&c, Code::TypeMismatch);
    // `judge` is no root scope of a plain check, nor of `with`.
    let c =
        compile("      - id: plain\n        check: { kind: ref, path: judge.score }\n".to_owned());
    let d = only_error(&c, Code::RefUnknown);
    assert_eq!(
        d.help.as_deref(),
        Some("`judge` is a root scope only in the `pass` expression of a model-graded check")
    );
    // A judge is never an operand.
    let nested = format!(
        "      - id: nested\n        check:\n          kind: not\n          operand: {{ kind: judge, contract: summary-judge, with: {WITH}, pass: {PASS} }}\n"
    );
    let c = compile(nested);
    let d = only_error(&c, Code::ExprKindNotAllowed);
    assert_eq!(
        d.message,
        "`judge` is not allowed as an operand in an `expect` check"
    );
    assert_eq!(
        d.json_pointer.as_deref(),
        Some("/evals/0/expect/0/check/operand/kind")
    );
    // Nor in content.
    let target = CapabilityProfile::parse_list("structured_output");
    let content = drafting("drafting", "      - id: ok\n        check: { kind: literal, value: true }\n")
        .replace(
            "- { kind: interpolate, expression: { kind: ref, path: inputs.facts }, filters: [json] }",
            &format!("- {{ kind: when, condition: {{ kind: judge, contract: summary-judge, with: {WITH}, pass: {PASS} }}, then: [] }}"),
        );
    let c = compile_str(&content, "drafting.yaml", &target);
    let codes: Vec<Code> = c.diagnostics.iter().map(|d| d.code).collect();
    assert_eq!(codes, [Code::ExprKindNotAllowed], "{:#?}", c.diagnostics);
}

#[test]
fn a_judge_failing_for_the_contract_s_own_reason_is_not_reported_twice() {
    let pkg = Pkg::new(&[
        (
            "drafting",
            drafting(
                "drafting",
                &judge_check("faithful", "summary-judge", WITH, PASS),
            ),
        ),
        ("summary-judge", judge("summary-judge", "")),
    ]);
    let mut loader = Loader::new(pkg.dir.path());
    let target = CapabilityProfile::parse_list("tools");
    let all = loader.compile_package(pkg.dir.path(), &target).unwrap();
    for c in &all {
        let codes: Vec<Code> = errors_of(c).iter().map(|d| d.code).collect();
        assert_eq!(codes, [Code::CapabilityUnsupported], "{}", c.id);
    }
}
