//! `templiqx eval` on several models in one run and what a run costs
//! (`docs/eval.md`, "Comparing models", "Cost"), run as a process: two
//! OpenAI-compatible servers on loopback answering differently (with an
//! API key that reaches neither the output nor the history), the fake
//! provider's models, a price table with a known and an unknown price,
//! `--max-cost`, and a price table that is not one.

use crate::common::*;
use crate::eval::{answer, contract_dir, result, row, server};
use std::path::Path;

const SECRET: &str = "sk-variant-secret-0123456789";

/// The fixture's repeats: 6 of 6 against 0 of 6 is significant (Fisher,
/// p = 2/924).
const REPEAT: usize = 6;

#[test]
fn two_variants_differ_significantly_keyed_by_variant_and_without_secrets() {
    let dir = contract_dir();
    let (_a, good) = server(vec![answer(60); REPEAT]);
    let (_b, bad) = server(vec![answer(59); REPEAT]);
    // A base URL's user:password@ is a secret too: refused, unquoted.
    let with_password = bad.replace("http://", "http://user:hunter2@");
    let refused = templiqx_in(dir.path())
        .args(["eval", "notice.yaml", "-t", "structured_output"])
        .args(["--provider", "openai", "--base-url", &format!("{good}/v1")])
        .args(["--model", "good-model", "--variant"])
        .arg(format!("bad=openai:other-model@{with_password}/v1"))
        .args(["--db", "eval.sqlite"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let said = stdout(&refused) + &String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("must not carry credentials") && !said.contains("hunter2"),
        "{said}"
    );

    let variant = format!("bad=openai:other-model@{bad}/v1");
    let output = templiqx_in(dir.path())
        .args(["eval", "notice.yaml", "-t", "structured_output"])
        .args(["--provider", "openai", "--base-url", &format!("{good}/v1")])
        .args(["--model", "good-model", "--variant", &variant])
        .args(["--repeat", &REPEAT.to_string(), "--concurrency", "2"])
        .args(["--db", "eval.sqlite", "--report", "eval.html"])
        .env("OPENAI_API_KEY", SECRET)
        .output()
        .unwrap();
    let text = stdout(&output);
    let errors = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(0), "{text}\n{errors}");
    // Side by side: the reference, then the other with its Fisher test.
    let first = row(&text, "sixty-days");
    assert_eq!(
        first[1..5],
        ["good-model", "6", "6", "100.0% [61.0, 100.0]"],
        "{text}"
    );
    assert_eq!(first[5], "(reference)");
    let second = row(&text, "bad");
    assert_eq!(
        second,
        [
            "bad",
            "6",
            "0",
            "0.0% [0.0, 39.0]",
            "-100.0 points, p = 0.002, significantly lower"
        ],
        "{text}"
    );
    assert!(
        text.contains("notice::sixty-days on variant bad: 6 of 6 executions failed"),
        "{text}"
    );

    // The history keys every execution by its variant.
    let conn = rusqlite::Connection::open(dir.path().join("eval.sqlite")).unwrap();
    let by_variant: Vec<(String, String, i64, i64)> = conn
        .prepare(
            "SELECT variant, model, count(*), sum(c.verdict = 'pass') FROM executions e
             JOIN checks c ON c.execution_id = e.id GROUP BY variant ORDER BY variant",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        by_variant,
        [
            ("bad".to_owned(), "other-model".to_owned(), 6, 0),
            ("good-model".to_owned(), "good-model".to_owned(), 6, 6)
        ]
    );
    let variants: String = conn
        .query_row("SELECT variants FROM runs", [], |r| r.get(0))
        .unwrap();
    let variants: serde_json::Value = serde_json::from_str(&variants).unwrap();
    assert_eq!(variants[1]["name"], "bad");
    drop(conn);

    // No secret anywhere: output, errors, report, the history's bytes.
    let report = std::fs::read_to_string(dir.path().join("eval.html")).unwrap();
    assert!(
        report.contains("class=\"variant-rate\""),
        "the report shows the variants"
    );
    let history = std::fs::read(dir.path().join("eval.sqlite")).unwrap();
    let history = String::from_utf8_lossy(&history);
    for place in [&text, &errors, &report, &history.into_owned()] {
        assert!(!place.contains(SECRET));
    }

    // `eval show` shows the variants again.
    let shown = templiqx_in(dir.path())
        .args(["eval", "show", "--db", "eval.sqlite"])
        .output()
        .unwrap();
    let shown = stdout(&shown);
    assert!(
        shown.contains("run 1: 2 variants (good-model, bad), 6 repeat(s)"),
        "{shown}"
    );
    assert_eq!(row(&shown, "bad"), second);
}

/// `templiqx eval` over `notice.yaml` in `dir` on the fake provider.
fn eval_fake(dir: &Path, extra: &[&str]) -> std::process::Output {
    templiqx_in(dir)
        .args(["eval", "notice.yaml", "-t", "structured_output"])
        .args(["--provider", "fake", "--db", "eval.sqlite"])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn the_fake_providers_models_and_a_price_table_with_a_known_and_an_unknown_price() {
    let dir = contract_dir();
    std::fs::write(
        dir.path().join("prices.yaml"),
        "currency: EUR\nmodels:\n  fake: { input: 1000, output: 2000 }\n",
    )
    .unwrap();
    let output = eval_fake(
        dir.path(),
        &[
            "--variant",
            "flaky=fake:flaky-2",
            "--repeat",
            "4",
            "--prices",
            "prices.yaml",
            "--format",
            "json",
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));
    let r = result(&output);
    let summary = |i: usize| r["variants"][i]["stats"]["fixtures"][0].clone();
    assert_eq!(summary(0)["pass_rate"]["passed"], 4);
    assert_eq!(summary(1)["pass_rate"]["passed"], 2);
    // The fake reports 1 token per 4 bytes: {"notice_days":60} is 17
    // bytes, 5 tokens; the prompt's messages as JSON are priced the same.
    let fake = r["samples"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["variant"] == "fake")
        .unwrap();
    assert_eq!(fake["output_tokens"], 5);
    let input = fake["input_tokens"].as_f64().unwrap();
    let cost = fake["cost"].as_f64().unwrap();
    assert!((cost - (input * 1000.0 + 5.0 * 2000.0) / 1e6).abs() < 1e-12);
    // `flaky-2` has no price: unknown, never 0.
    assert!(
        r["samples"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["variant"] == "flaky")
            .all(|s| s.get("cost").is_none())
    );
    assert_eq!(summary(1)["cost"]["amount"], serde_json::Value::Null);
    assert_eq!(summary(1)["cost"]["unpriced"], 4);
    assert_eq!(r["cost"]["priced"], 4);
    assert_eq!(r["cost"]["unpriced"], 4);

    // The table says so in words.
    let output = eval_fake(
        dir.path(),
        &["--model", "flaky-2", "--prices", "prices.yaml"],
    );
    let text = stdout(&output);
    assert!(text.contains("    cost: unknown\n"), "{text}");
    assert!(text.contains("cost of the run: unknown"), "{text}");
    let output = eval_fake(dir.path(), &["--prices", "prices.yaml"]);
    let text = stdout(&output);
    let line = text
        .lines()
        .find(|l| l.starts_with("cost of the run: "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.ends_with(" EUR an execution)"), "{line}");
}

#[test]
fn the_gate_applies_to_every_variant_and_names_it() {
    let dir = contract_dir();
    let output = eval_fake(
        dir.path(),
        &[
            "--variant",
            "broken=fake:empty",
            "--repeat",
            "3",
            "--min-pass-rate",
            "0.5",
            "--junit",
            "eval.xml",
        ],
    );
    let said = stdout(&output) + &String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{said}");
    assert!(
        said.contains("gate failed for `notice::sixty-days` on variant `broken`: pass rate 0.0000 (0/3) is below the minimum 0.5"),
        "{said}"
    );
    // The reference passes: one failure only.
    assert_eq!(said.matches("error[TQX_EVAL_GATE]").count(), 1, "{said}");
    let junit = std::fs::read_to_string(dir.path().join("eval.xml")).unwrap();
    assert!(
        junit.contains("on variant broken: pass rate 0.0000 (0/3) is below the minimum 0.5; variant broken, repeat 0: TQX_OUTPUT_SCHEMA"),
        "{junit}"
    );
}

#[test]
fn max_cost_stops_the_run_before_the_executions_not_started() {
    let dir = contract_dir();
    std::fs::write(
        dir.path().join("prices.yaml"),
        "models:\n  fake: { input: 1000, output: 1000 }\n",
    )
    .unwrap();
    // One execution costs a few hundredths; at one in flight the budget
    // stops the run after its first execution.
    let output = eval_fake(
        dir.path(),
        &[
            "--repeat",
            "50",
            "--concurrency",
            "1",
            "--prices",
            "prices.yaml",
            "--max-cost",
            "0.000001",
        ],
    );
    let text = stdout(&output);
    let errors = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{text}\n{errors}");
    assert!(
        text.contains("note: the run reached its budget (--max-cost 0.000001 USD) after 1 of 50 executions and stopped"),
        "{text}"
    );
    assert!(
        errors.contains("error[TQX_EVAL_GATE]: gate failed for the run: over budget")
            || text.contains("error[TQX_EVAL_GATE]: gate failed for the run: over budget"),
        "{text}\n{errors}"
    );
    let conn = rusqlite::Connection::open(dir.path().join("eval.sqlite")).unwrap();
    let (executions, max_cost): (i64, f64) = conn
        .query_row(
            "SELECT (SELECT count(*) FROM executions), max_cost FROM runs",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((executions, max_cost), (1, 0.000001));

    // Without --prices, --max-cost is a usage error.
    let output = eval_fake(dir.path(), &["--max-cost", "1"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn a_price_table_that_is_not_one_is_a_diagnostic_with_its_line() {
    let dir = contract_dir();
    std::fs::write(
        dir.path().join("prices.yaml"),
        "models:\n  fake: { input: 1, ouput: 2 }\n  other: { input: \"$1\", output: 2 }\n",
    )
    .unwrap();
    let output = eval_fake(dir.path(), &["--prices", "prices.yaml", "--format", "json"]);
    assert_eq!(output.status.code(), Some(2));
    let envs = envelopes(&output);
    let diagnostics = envs[0]["diagnostics"].as_array().unwrap();
    let seen: Vec<(&str, &str, u64)> = diagnostics
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap(),
                d["json_pointer"].as_str().unwrap(),
                d["span"]["start"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("TQX_UNKNOWN_FIELD", "/models/fake/ouput", 2),
            ("TQX_INVALID_TYPE", "/models/other/input", 3)
        ]
    );
    assert!(diagnostics.iter().all(|d| d["file"] == "prices.yaml"));
    // Nothing ran: no run in the history.
    assert!(
        !dir.path().join("eval.sqlite").exists() || {
            let conn = rusqlite::Connection::open(dir.path().join("eval.sqlite")).unwrap();
            conn.query_row("SELECT count(*) FROM runs", [], |r| r.get::<_, i64>(0))
                .unwrap()
                == 0
        }
    );
}

#[test]
fn a_variant_that_does_not_parse_is_a_usage_error() {
    let dir = contract_dir();
    let output = eval_fake(
        dir.path(),
        &["--variant", "x=fake:nope", "--variant", "y=openai:m"],
    );
    assert_eq!(output.status.code(), Some(2));
    let errors = String::from_utf8_lossy(&output.stderr).into_owned() + &stdout(&output);
    assert!(
        errors.contains("the fake provider has no model `nope`"),
        "{errors}"
    );
    assert!(
        errors.contains("--variant `y`: openai and anthropic need @URL"),
        "{errors}"
    );
}

/// 999 of 1,000 (`flaky-1000` answers `{}` on repeat 999): a bound of the
/// interval below 1 gets the decimals it needs not to read as 100%, in the
/// table of one model and in the variants' (docs/eval.md, "Statistics").
#[test]
fn a_rate_or_bound_below_one_never_reads_as_one_hundred_percent() {
    let dir = contract_dir();
    let run = |extra: &[&str]| {
        let out = templiqx_in(dir.path())
            .args(["eval", "notice.yaml", "-t", "structured_output"])
            .args(["--provider", "fake", "--repeat", "1000", "--db", ":memory:"])
            .args(["--show-failures", "0"])
            .args(extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
        stdout(&out)
    };
    let one = run(&["--model", "flaky-1000"]);
    let cells = row(&one, "sixty-days");
    assert_eq!(
        cells[1..5],
        ["1000", "999", "99.9% [99.4, 99.98]", "99.9% [99.4, 99.98]"],
        "{one}"
    );
    assert_eq!(
        row(&one, "check reads-sixty")[1],
        "99.9% [99.4, 99.98] (999 of 1000)",
        "{one}"
    );

    let two = run(&["--variant", "flaky=fake:flaky-1000"]);
    let reference = row(&two, "sixty-days");
    assert_eq!(
        reference[1..5],
        ["fake", "1000", "1000", "100.0% [99.6, 100.0]"],
        "{two}"
    );
    let flaky = row(&two, "flaky");
    assert_eq!(
        flaky[..4],
        ["flaky", "1000", "999", "99.9% [99.4, 99.98]"],
        "{two}"
    );
}
