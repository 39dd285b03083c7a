//! Render budgets at their exact edges (`docs/format.md`, "Render budgets"):
//! the limit renders, one more fails closed with `TQX_RENDER_BUDGET`.

use crate::common::*;
use serde_json::{Value, json};
use templiqx::contracts::budget::{MAX_FOR_EACH_DEPTH, MAX_FOR_EACH_ITERATIONS, MAX_OUTPUT_BYTES};
use templiqx::contracts::ir::Node;
use templiqx::contracts::{Filter, Schema};

const BUDGET: &[&str] = &["TQX_RENDER_BUDGET"];

fn nulls(n: u64) -> Value {
    Value::Array(vec![Value::Null; usize::try_from(n).expect("fits")])
}

/// The edges below are written in terms of the constants; the constants
/// themselves are the format's (`docs/format.md`, "Render budgets").
#[test]
fn the_budgets_are_the_formats() {
    assert_eq!(MAX_FOR_EACH_ITERATIONS, 100_000);
    assert_eq!(MAX_FOR_EACH_DEPTH, 32);
    assert_eq!(MAX_OUTPUT_BYTES, 4 * 1024 * 1024);
}

#[test]
fn iterations_edge() {
    let i = interaction(
        vec![field("xs", Schema::ANY, true)],
        vec![],
        vec![vec![for_each(input(&["xs"]), vec![], None)]],
        vec![],
    );
    let ok = render_texts(
        &i,
        json!({ "xs": nulls(MAX_FOR_EACH_ITERATIONS) }),
        json!({}),
    );
    assert_eq!(ok, Ok(vec![String::new()]));
    let over = render_texts(
        &i,
        json!({ "xs": nulls(MAX_FOR_EACH_ITERATIONS + 1) }),
        json!({}),
    );
    assert_eq!(over.expect_err("over"), BUDGET);
}

#[test]
fn iterations_are_shared_across_messages_and_count_nested_loops() {
    let half = MAX_FOR_EACH_ITERATIONS / 2;
    let i = interaction(
        vec![field("a", Schema::ANY, true), field("b", Schema::ANY, true)],
        vec![],
        vec![
            vec![for_each(input(&["a"]), vec![], None)],
            vec![for_each(input(&["b"]), vec![], None)],
        ],
        vec![],
    );
    let at = json!({ "a": nulls(half), "b": nulls(MAX_FOR_EACH_ITERATIONS - half) });
    assert!(render_texts(&i, at, json!({})).is_ok());
    let over = json!({ "a": nulls(half), "b": nulls(MAX_FOR_EACH_ITERATIONS - half + 1) });
    assert_eq!(render_texts(&i, over, json!({})).expect_err("over"), BUDGET);

    // 10 outer × 9,999 inner + 10 outer iterations = 100,000.
    let nested = interaction(
        vec![
            field("outer", Schema::ANY, true),
            field("inner", Schema::ANY, true),
        ],
        vec![],
        vec![vec![for_each(
            input(&["outer"]),
            vec![for_each(input(&["inner"]), vec![], None)],
            None,
        )]],
        vec![],
    );
    let at = json!({ "outer": nulls(10), "inner": nulls(9_999) });
    assert!(render_texts(&nested, at, json!({})).is_ok());
    let over = json!({ "outer": nulls(10), "inner": nulls(10_000) });
    assert_eq!(
        render_texts(&nested, over, json!({})).expect_err("over"),
        BUDGET
    );
}

/// `levels` nested `for_each` over `inputs.one` (a one-item array), the
/// innermost writing `x`.
fn nest(levels: usize, innermost: Vec<Node>) -> Vec<Node> {
    let mut body = innermost;
    for _ in 0..levels {
        body = vec![for_each(input(&["one"]), body, None)];
    }
    body
}

#[test]
fn depth_edge() {
    let one = || json!({"one": [0]});
    let fields = || vec![field("one", Schema::ANY, true)];
    let at = interaction(
        fields(),
        vec![],
        vec![nest(MAX_FOR_EACH_DEPTH, vec![text("x")])],
        vec![],
    );
    assert_eq!(
        render_texts(&at, one(), json!({})),
        Ok(vec!["x".to_owned()])
    );
    let over = interaction(
        fields(),
        vec![],
        vec![nest(MAX_FOR_EACH_DEPTH + 1, vec![text("x")])],
        vec![],
    );
    assert_eq!(
        render_texts(&over, one(), json!({})).expect_err("over"),
        BUDGET
    );
}

#[test]
fn depth_counts_across_component_calls() {
    let one = || json!({"one": [0]});
    let fields = || vec![field("one", Schema::ANY, true)];
    // 30 levels in the message, then a component with 2 (= 32) or 3 (= 33).
    for (inside, ok) in [(2, true), (3, false)] {
        let comp = component("deep", &[], nest(inside, vec![text("x")]));
        let i = interaction(
            fields(),
            vec![],
            vec![nest(MAX_FOR_EACH_DEPTH - 2, vec![call(0, vec![])])],
            vec![comp],
        );
        let got = render_texts(&i, one(), json!({}));
        if ok {
            assert_eq!(got, Ok(vec!["x".to_owned()]));
        } else {
            assert_eq!(got.expect_err("over"), BUDGET);
        }
    }
}

/// Two messages: a text of `first` bytes, then `second`.
fn two_messages(first: usize, second: Vec<Node>) -> templiqx::Interaction {
    interaction(
        vec![
            field("v", Schema::ANY, true),
            field("xs", Schema::ANY, true),
        ],
        vec![],
        vec![vec![text(&"a".repeat(first))], second],
        vec![],
    )
}

fn total_len(result: &Result<Vec<String>, Vec<String>>) -> usize {
    result
        .as_ref()
        .map_or(0, |m| m.iter().map(String::len).sum())
}

#[test]
fn output_edge_across_two_messages() {
    let half = MAX_OUTPUT_BYTES / 2;
    let i = two_messages(half, vec![interp(input(&["v"]), &[])]);
    let at = render_texts(
        &i,
        json!({"v": "b".repeat(MAX_OUTPUT_BYTES - half), "xs": []}),
        json!({}),
    );
    assert_eq!(total_len(&at), MAX_OUTPUT_BYTES);
    let over = render_texts(
        &i,
        json!({"v": "b".repeat(MAX_OUTPUT_BYTES - half + 1), "xs": []}),
        json!({}),
    );
    assert_eq!(over.expect_err("over"), BUDGET);
}

#[test]
fn output_edge_with_the_excess_in_a_separator() {
    // "x" then the separator then "" : the separator is the last output.
    let body = |sep: &str| {
        vec![for_each(
            input(&["xs"]),
            vec![interp(local(0, "x", &[]), &[])],
            Some(sep),
        )]
    };
    let values = json!({"v": null, "xs": ["x", ""]});
    let at = render_texts(
        &two_messages(MAX_OUTPUT_BYTES - 3, body("--")),
        values.clone(),
        json!({}),
    );
    assert_eq!(total_len(&at), MAX_OUTPUT_BYTES);
    let over = render_texts(
        &two_messages(MAX_OUTPUT_BYTES - 3, body("---")),
        values,
        json!({}),
    );
    assert_eq!(over.expect_err("over"), BUDGET);
}

#[test]
fn output_edge_with_the_excess_in_a_json_filter() {
    let i = |first| two_messages(first, vec![interp(input(&["v"]), &[Filter::Json])]);
    // {"a":[1,true]} is 14 bytes.
    let values = json!({"v": {"a": [1, true]}, "xs": []});
    let at = render_texts(&i(MAX_OUTPUT_BYTES - 14), values.clone(), json!({}));
    assert_eq!(total_len(&at), MAX_OUTPUT_BYTES);
    let over = render_texts(&i(MAX_OUTPUT_BYTES - 13), values, json!({}));
    assert_eq!(over.expect_err("over"), BUDGET);
}

#[test]
fn output_edge_with_case_mapping_and_formatting_filters() {
    for (filters, value, len) in [
        (&[Filter::Upper][..], json!("straße"), "STRASSE".len()),
        (
            &[Filter::Lower, Filter::Json][..],
            json!("AB"),
            "\"ab\"".len(),
        ),
        (&[Filter::FormatNumber][..], json!(1234.5), "1234.50".len()),
        (&[Filter::FormatDate][..], json!("2026-07-12"), 10),
    ] {
        let i = |first| two_messages(first, vec![interp(input(&["v"]), filters)]);
        let values = json!({"v": value, "xs": []});
        let at = render_texts(&i(MAX_OUTPUT_BYTES - len), values.clone(), json!({}));
        assert_eq!(total_len(&at), MAX_OUTPUT_BYTES, "{filters:?}");
        let over = render_texts(&i(MAX_OUTPUT_BYTES - len + 1), values, json!({}));
        assert_eq!(over.expect_err("over"), BUDGET, "{filters:?}");
    }
}

#[test]
fn an_intermediate_too_large_for_the_budget_fails_closed() {
    // upper → lower of 13 MiB: the intermediate cannot fit, whatever follows.
    let i = interaction(
        vec![field("v", Schema::ANY, true)],
        vec![],
        vec![vec![interp(input(&["v"]), &[Filter::Upper, Filter::Lower])]],
        vec![],
    );
    let big = "a".repeat(3 * MAX_OUTPUT_BYTES + 1);
    assert_eq!(
        render_texts(&i, json!({ "v": big }), json!({})).expect_err("over"),
        BUDGET
    );
    // A small one through the same chain renders.
    assert_eq!(
        render_texts(&i, json!({"v": "Ab"}), json!({})),
        Ok(vec!["ab".to_owned()])
    );
}
