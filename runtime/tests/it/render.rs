//! Rendering semantics and every render diagnostic, on hand-built IR.

use crate::common::*;
use serde_json::json;
use templiqx::contracts::ir::Node;
use templiqx::contracts::{Filter, Format, JsonType, Schema};
use templiqx::{Code, render};

fn string() -> Schema {
    typed(JsonType::String)
}

fn codes(result: Result<Vec<String>, Vec<String>>) -> Vec<String> {
    result.expect_err("the render should fail")
}

/// The corpus greeting (`packages/demo/contracts/greeting.yaml`), lowered by
/// hand: a system text, and a legacy component plus a trimmed context value.
fn greeting() -> templiqx::Interaction {
    interaction(
        vec![field(
            "name",
            Schema {
                min_length: Some(1),
                ..string()
            },
            true,
        )],
        vec![field("organization", string(), true)],
        vec![
            vec![text("You write concise greetings.")],
            vec![
                call(0, vec![Some(input(&["name"]))]),
                text(" for "),
                interp(ctx(&["organization"]), &[Filter::Trim]),
            ],
        ],
        vec![component(
            "salutation",
            &["recipient"],
            vec![
                text("Hello "),
                interp(local(0, "recipient", &[]), &[Filter::Trim]),
            ],
        )],
    )
}

#[test]
fn renders_the_greeting() {
    let rendered = render_texts(
        &greeting(),
        json!({"name": " Ryan "}),
        json!({"organization": "Blinqx\n"}),
    );
    assert_eq!(
        rendered,
        Ok(vec![
            "You write concise greetings.".to_owned(),
            "Hello Ryan for Blinqx".to_owned()
        ])
    );
}

#[test]
fn rendered_interaction_keeps_roles_and_has_a_stable_request_fingerprint() {
    let i = greeting();
    let inputs = obj(json!({"name": "Ryan"}));
    let context = obj(json!({"organization": "Blinqx"}));
    let a = render(&i, &inputs, &context).expect("renders");
    let b = render(&i, &inputs, &context).expect("renders");
    assert_eq!(a.messages[0].role.as_str(), "system");
    assert_eq!(a.messages[1].role.as_str(), "user");
    assert_eq!(a.request_fingerprint(), b.request_fingerprint());
    let other = obj(json!({"name": "Anna"}));
    let c = render(&i, &other, &context).expect("renders");
    assert_ne!(a.request_fingerprint(), c.request_fingerprint());
}

#[test]
fn absent_optional_input_is_value_missing() {
    let i = interaction(
        vec![field("nickname", string(), false)],
        vec![],
        vec![vec![text("Hi "), interp(input(&["nickname"]), &[])]],
        vec![],
    );
    let inputs = obj(json!({}));
    let context = obj(json!({}));
    let error = render(&i, &inputs, &context).expect_err("absent");
    let d = &error.diagnostics[0];
    assert_eq!(d.code, Code::ValueMissing);
    assert!(d.message.contains("inputs.nickname"), "{}", d.message);
    assert_eq!(d.json_pointer.as_deref(), Some("/inputs/nickname"));
    // Supplied, it renders; an empty string is a value, not a fallback.
    assert_eq!(
        render_texts(&i, json!({"nickname": ""}), json!({})),
        Ok(vec!["Hi ".to_owned()])
    );
}

#[test]
fn missing_nested_key_and_index_are_value_missing() {
    let customer = Schema {
        types: templiqx::contracts::TypeSet::of(JsonType::Object),
        ..Schema::ANY
    };
    let i = interaction(
        vec![field("customer", customer, true)],
        vec![],
        vec![vec![interp(input(&["customer", "address", "city"]), &[])]],
        vec![],
    );
    let inputs = obj(json!({"customer": {"address": {}}}));
    let error = render(&i, &inputs, &obj(json!({}))).expect_err("missing");
    let d = &error.diagnostics[0];
    assert_eq!(d.code, Code::ValueMissing);
    assert!(d.message.contains("inputs.customer.address.city"));
    assert_eq!(
        d.json_pointer.as_deref(),
        Some("/inputs/customer/address/city")
    );

    let i = interaction(
        vec![field("tags", typed(JsonType::Array), true)],
        vec![],
        vec![vec![interp(input(&["tags", "2"]), &[])]],
        vec![],
    );
    assert_eq!(
        codes(render_texts(&i, json!({"tags": ["a", "b"]}), json!({}))),
        ["TQX_VALUE_MISSING"]
    );
    assert_eq!(
        render_texts(&i, json!({"tags": ["a", "b", "c"]}), json!({})),
        Ok(vec!["c".to_owned()])
    );
}

#[test]
fn structurally_impossible_path_is_a_type_mismatch_not_a_panic() {
    let i = interaction(
        vec![field("name", Schema::ANY, true)],
        vec![],
        vec![vec![interp(input(&["name", "first"]), &[])]],
        vec![],
    );
    assert_eq!(
        codes(render_texts(&i, json!({"name": "Ryan"}), json!({}))),
        ["TQX_TYPE_MISMATCH"]
    );
    let i = interaction(
        vec![field("name", Schema::ANY, true)],
        vec![],
        vec![vec![interp(input(&["name", "0"]), &[])]],
        vec![],
    );
    assert_eq!(
        codes(render_texts(&i, json!({"name": {"0": "x"}}), json!({}))),
        ["TQX_TYPE_MISMATCH"]
    );
}

#[test]
fn omitted_component_argument_is_value_missing_even_with_a_same_named_caller_local() {
    // salutation(recipient, formal?): the body references `formal`.
    let salutation = component(
        "salutation",
        &["recipient", "formal"],
        vec![
            interp(local(0, "recipient", &[]), &[]),
            text(" "),
            interp(local(1, "formal", &[]), &[]),
        ],
    );
    // The caller iterates with an item in ITS slot 0 and 1 (`formal`), then
    // calls with `formal` omitted.
    let i = interaction(
        vec![field("people", typed(JsonType::Array), true)],
        vec![],
        vec![vec![for_each(
            input(&["people"]),
            vec![for_each(
                input(&["people"]),
                vec![call(0, vec![Some(local(0, "person", &["name"])), None])],
                None,
            )],
            None,
        )]],
        vec![salutation],
    );
    let error = render_texts(&i, json!({"people": [{"name": "Ryan"}]}), json!({}));
    assert_eq!(codes(error), ["TQX_VALUE_MISSING"]);
    let inputs = obj(json!({"people": [{"name": "Ryan"}]}));
    let e = render(&i, &inputs, &obj(json!({}))).expect_err("omitted");
    assert!(e.diagnostics[0].message.contains("omitted"));
}

#[test]
fn component_body_never_sees_caller_locals() {
    // The component has one parameter; its body references slot 1, which in
    // the caller's frame would be the inner for_each item.
    let peek = component(
        "peek",
        &["label"],
        vec![
            interp(local(0, "label", &[]), &[]),
            interp(local(1, "item", &[]), &[]),
        ],
    );
    let i = interaction(
        vec![field("xs", typed(JsonType::Array), true)],
        vec![],
        vec![vec![for_each(
            input(&["xs"]),
            vec![for_each(
                input(&["xs"]),
                vec![call(0, vec![Some(lit(json!("L")))])],
                None,
            )],
            None,
        )]],
        vec![peek],
    );
    assert_eq!(
        codes(render_texts(&i, json!({"xs": ["a"]}), json!({}))),
        ["TQX_VALUE_MISSING"]
    );
}

#[test]
fn arguments_are_evaluated_in_the_callers_frame() {
    let label = component(
        "label",
        &["text", "loud"],
        vec![when(
            local(1, "loud", &[]),
            vec![interp(local(0, "text", &[]), &[Filter::Upper])],
            vec![interp(local(0, "text", &[]), &[])],
        )],
    );
    let i = interaction(
        vec![field("items", typed(JsonType::Array), true)],
        vec![],
        vec![vec![for_each(
            input(&["items"]),
            vec![call(
                0,
                vec![
                    Some(local(0, "item", &["name"])),
                    Some(local(0, "item", &["loud"])),
                ],
            )],
            Some(", "),
        )]],
        vec![label],
    );
    assert_eq!(
        render_texts(
            &i,
            json!({"items": [{"name": "a", "loud": true}, {"name": "b", "loud": false}]}),
            json!({})
        ),
        Ok(vec!["A, b".to_owned()])
    );
}

#[test]
fn nested_components_each_get_their_own_frame() {
    let inner = component(
        "inner",
        &["v"],
        vec![text("["), interp(local(0, "v", &[]), &[]), text("]")],
    );
    let outer = component(
        "outer",
        &["a", "b"],
        vec![
            call(0, vec![Some(local(1, "b", &[]))]),
            call(0, vec![Some(local(0, "a", &[]))]),
        ],
    );
    let i = interaction(
        vec![],
        vec![],
        vec![vec![call(
            1,
            vec![Some(lit(json!("x"))), Some(lit(json!(2)))],
        )]],
        vec![inner, outer],
    );
    assert_eq!(
        render_texts(&i, json!({}), json!({})),
        Ok(vec!["[2][x]".to_owned()])
    );
}

#[test]
fn cyclic_hand_built_components_fail_instead_of_overflowing() {
    let looping = component("loop", &[], vec![call(0, vec![])]);
    let i = interaction(vec![], vec![], vec![vec![call(0, vec![])]], vec![looping]);
    assert_eq!(
        codes(render_texts(&i, json!({}), json!({}))),
        ["TQX_COMPONENT_CYCLE"]
    );
}

#[test]
fn expressions_and_conditions() {
    let i = interaction(
        vec![
            field("a", Schema::ANY, true),
            field("b", Schema::ANY, true),
            field("flag", Schema::ANY, true),
        ],
        vec![],
        vec![vec![
            when(
                Expr::Equals(input(&["a"]).into(), input(&["b"]).into()),
                vec![text("eq;")],
                vec![text("ne;")],
            ),
            when(
                Expr::And(vec![lit(json!(true)), Expr::Not(input(&["flag"]).into())].into()),
                vec![text("and;")],
                vec![text("nand;")],
            ),
            // Short-circuit: the second operand would be a type mismatch.
            when(
                Expr::Or(vec![lit(json!(true)), lit(json!("not a bool"))].into()),
                vec![text("or")],
                vec![],
            ),
        ]],
        vec![],
    );
    assert_eq!(
        render_texts(&i, json!({"a": 1, "b": 1.0, "flag": false}), json!({})),
        Ok(vec!["eq;and;or".to_owned()])
    );
    assert_eq!(
        render_texts(
            &i,
            json!({"a": {"x": [1]}, "b": {"x": [2]}, "flag": true}),
            json!({})
        ),
        Ok(vec!["ne;nand;or".to_owned()])
    );
    assert_eq!(
        codes(render_texts(
            &i,
            json!({"a": 1, "b": 1, "flag": "yes"}),
            json!({})
        )),
        ["TQX_TYPE_MISMATCH"]
    );
}

use templiqx::contracts::ir::Expr;

#[test]
fn when_needs_a_boolean_and_for_each_an_array() {
    let i = interaction(
        vec![field("v", Schema::ANY, true)],
        vec![],
        vec![vec![when(input(&["v"]), vec![text("yes")], vec![])]],
        vec![],
    );
    assert_eq!(
        codes(render_texts(&i, json!({"v": null}), json!({}))),
        ["TQX_TYPE_MISMATCH"]
    );
    let inputs = obj(json!({"v": 1}));
    let e = render(&i, &inputs, &obj(json!({}))).expect_err("not a boolean");
    assert_eq!(e.diagnostics[0].json_pointer.as_deref(), Some("/inputs/v"));
    assert!(e.diagnostics[0].message.contains("`inputs.v` is a number"));
    let i = interaction(
        vec![field("v", Schema::ANY, true)],
        vec![],
        vec![vec![for_each(input(&["v"]), vec![text("x")], None)]],
        vec![],
    );
    assert_eq!(
        codes(render_texts(&i, json!({"v": "abc"}), json!({}))),
        ["TQX_TYPE_MISMATCH"]
    );
    assert_eq!(
        render_texts(&i, json!({"v": []}), json!({})),
        Ok(vec![String::new()])
    );
}

#[test]
fn operators_render_in_content_and_reject_wrong_types() {
    use templiqx::contracts::ir::{CompareOp, Expr};
    let length = |e: Expr| Expr::Length(e.into());
    let i = interaction(
        vec![field("v", Schema::ANY, true), field("n", Schema::ANY, true)],
        vec![],
        vec![vec![
            interp(length(input(&["v"])), &[]),
            when(
                Expr::Compare(CompareOp::Gt, input(&["n"]).into(), lit(json!(1.5)).into()),
                vec![text(";gt")],
                vec![text(";le")],
            ),
            when(
                Expr::Contains(input(&["v"]).into(), lit(json!("é")).into()),
                vec![text(";in")],
                vec![text(";out")],
            ),
        ]],
        vec![],
    );
    // Unicode scalar values, not bytes; exact number comparison.
    assert_eq!(
        render_texts(&i, json!({"v": "café", "n": 2}), json!({})),
        Ok(vec!["4;gt;in".to_owned()])
    );
    // An array: its length, and containment by JSON equality.
    assert_eq!(
        render_texts(&i, json!({"v": ["é", 1], "n": 1.5}), json!({})),
        Ok(vec!["2;le;in".to_owned()])
    );
    // Hand-built IR is checked: a number has no length.
    let inputs = obj(json!({"v": 7, "n": 1}));
    let e = render(&i, &inputs, &obj(json!({}))).expect_err("no length");
    assert_eq!(e.diagnostics[0].code, Code::TypeMismatch);
    assert!(
        e.diagnostics[0]
            .message
            .contains("`length` needs a string or an array, but `inputs.v` is a number"),
        "{}",
        e.diagnostics[0].message
    );
    assert_eq!(
        codes(render_texts(&i, json!({"v": "x", "n": "2"}), json!({}))),
        ["TQX_TYPE_MISMATCH"]
    );
}

#[test]
fn plain_interpolation_of_scalars_and_json_for_the_rest() {
    let i = interaction(
        vec![field("v", Schema::ANY, true)],
        vec![],
        vec![vec![interp(input(&["v"]), &[])]],
        vec![],
    );
    let cases = [
        (json!("verbatim \"text\" \\n"), "verbatim \"text\" \\n"),
        (json!(1.0), "1"),
        (json!(-0.0), "0"),
        (json!(1e21), "1e+21"),
        (json!(0.1), "0.1"),
        (json!(9007199254740993u64), "9007199254740993"),
        (json!(true), "true"),
        (json!(false), "false"),
    ];
    for (v, want) in cases {
        assert_eq!(
            render_texts(&i, json!({ "v": v }), json!({})),
            Ok(vec![want.to_owned()]),
            "{v}"
        );
    }
    for v in [json!(null), json!([1]), json!({"a": 1})] {
        assert_eq!(
            codes(render_texts(&i, json!({ "v": v }), json!({}))),
            ["TQX_TYPE_MISMATCH"],
            "{v}"
        );
    }
    let j = interaction(
        vec![field("v", Schema::ANY, true)],
        vec![],
        vec![vec![interp(input(&["v"]), &[Filter::Json])]],
        vec![],
    );
    assert_eq!(
        render_texts(
            &j,
            json!({"v": {"b": [1.0, null], "a": "\u{1}"}}),
            json!({})
        ),
        Ok(vec![r#"{"a":"\u0001","b":[1,null]}"#.to_owned()])
    );
    assert_eq!(
        render_texts(&j, json!({"v": null}), json!({})),
        Ok(vec!["null".to_owned()])
    );
}

#[test]
fn filters_apply_left_to_right() {
    let chain = |filters: &[Filter], v: serde_json::Value| {
        let i = interaction(
            vec![field("v", Schema::ANY, true)],
            vec![],
            vec![vec![interp(input(&["v"]), filters)]],
            vec![],
        );
        render_texts(&i, json!({ "v": v }), json!({}))
    };
    use Filter::*;
    let ok = |s: &str| Ok(vec![s.to_owned()]);
    assert_eq!(chain(&[Trim], json!("  Ab  ")), ok("Ab"));
    assert_eq!(chain(&[Lower], json!("ÀB ΟΔΟΣ")), ok("àb οδος"));
    assert_eq!(chain(&[Upper], json!("straße")), ok("STRASSE"));
    assert_eq!(chain(&[Upper, Trim], json!("  ab  ")), ok("AB"));
    assert_eq!(chain(&[Trim, Json], json!("  ab  ")), ok(r#""ab""#));
    // `trim` after `json` trims the JSON text, which has no outer space.
    assert_eq!(chain(&[Json, Trim], json!("  ab  ")), ok(r#""  ab  ""#));
    assert_eq!(chain(&[Json, Upper], json!({"k": "v"})), ok(r#"{"K":"V"}"#));
    assert_eq!(chain(&[Lower, Json, Upper], json!("Ab")), ok(r#""AB""#));
    assert_eq!(chain(&[Json, Json], json!("a")), ok(r#""\"a\"""#));
    assert_eq!(
        chain(&[Trim, FormatDate], json!(" 2026-07-12 ")),
        ok("2026-07-12")
    );
    assert_eq!(
        chain(&[FormatDate, Lower], json!("2026-07-12")),
        ok("2026-07-12")
    );
    assert_eq!(chain(&[FormatNumber, Json], json!(2.675)), ok(r#""2.68""#));
    assert_eq!(
        chain(&[Lower, FormatDate], json!("2026-07-12")),
        ok("2026-07-12")
    );
    // Wrong input types are filter input errors.
    for (filters, v) in [
        (&[Trim][..], json!(1)),
        (&[Lower][..], json!(null)),
        (&[Upper][..], json!(["a"])),
        (&[FormatDate][..], json!(20260712)),
        (&[FormatNumber][..], json!("1.5")),
        (&[Json, FormatNumber][..], json!(1.5)),
        (&[Upper, FormatDate][..], json!("2026-07-12 and then some")),
    ] {
        assert_eq!(
            codes(chain(filters, v.clone())),
            ["TQX_FILTER_INPUT"],
            "{filters:?} {v}"
        );
    }
}

#[test]
fn format_date_rejects_an_impossible_date() {
    let i = interaction(
        vec![field("d", string(), true)],
        vec![],
        vec![vec![interp(input(&["d"]), &[Filter::FormatDate])]],
        vec![],
    );
    let inputs = obj(json!({"d": "2026-02-30"}));
    let e = render(&i, &inputs, &obj(json!({}))).expect_err("not a date");
    assert_eq!(e.diagnostics[0].code, Code::FilterInput);
    assert!(e.diagnostics[0].message.contains("2026-02-30"));
    assert_eq!(
        render_texts(&i, json!({"d": "2024-02-29"}), json!({})),
        Ok(vec!["2024-02-29".to_owned()])
    );
}

/// The locale table of `docs/format.md`, "Filters", through a real render.
#[test]
fn locale_table_through_render() {
    let i = interaction(
        vec![
            field("d", string(), true),
            field("n", typed(JsonType::Number), true),
        ],
        vec![field("locale", string(), false)],
        vec![vec![
            interp(input(&["d"]), &[Filter::FormatDate]),
            text(" | "),
            interp(input(&["n"]), &[Filter::FormatNumber]),
        ]],
        vec![],
    );
    let values = json!({"d": "2026-07-12", "n": 1234567.5});
    let cases = [
        (json!({"locale": "nl"}), "12-07-2026 | 1.234.567,50"),
        (json!({"locale": "nl_NL"}), "12-07-2026 | 1.234.567,50"),
        (json!({"locale": "de-DE"}), "12.07.2026 | 1.234.567,50"),
        (json!({"locale": "EN-us"}), "07/12/2026 | 1,234,567.50"),
        (json!({"locale": "en_US"}), "07/12/2026 | 1,234,567.50"),
        (
            json!({"locale": "en_US.UTF-8"}),
            "07/12/2026 | 1,234,567.50",
        ),
        (
            json!({"locale": "nl_NL.UTF-8"}),
            "12-07-2026 | 1.234.567,50",
        ),
        (json!({"locale": "de_DE@euro"}), "12.07.2026 | 1.234.567,50"),
        (json!({"locale": "en_GB.UTF-8"}), "2026-07-12 | 1234567.50"),
        (json!({"locale": "default"}), "2026-07-12 | 1234567.50"),
        (json!({"locale": "en-GB"}), "2026-07-12 | 1234567.50"),
        (json!({"locale": "fr"}), "2026-07-12 | 1234567.50"),
        (json!({}), "2026-07-12 | 1234567.50"),
    ];
    for (context, want) in cases {
        assert_eq!(
            render_texts(&i, values.clone(), context.clone()),
            Ok(vec![want.to_owned()]),
            "{context}"
        );
    }
    for (n, want) in [
        (json!(2.675), "2.68"),
        (json!(0.125), "0.13"),
        (json!(1.005), "1.01"),
        (json!(-0.001), "0.00"),
        (json!(9007199254740993u64), "9007199254740993.00"),
    ] {
        let got = render_texts(&i, json!({"d": "2026-07-12", "n": n}), json!({}));
        assert_eq!(got, Ok(vec![format!("2026-07-12 | {want}")]), "{n}");
    }
    assert_eq!(
        codes(render_texts(
            &i,
            json!({"d": "2026-02-30", "n": 1}),
            json!({"locale": "nl"})
        )),
        ["TQX_FILTER_INPUT"]
    );
}

#[test]
fn locale_is_ignored_unless_the_contract_declares_it() {
    let mut i = interaction(
        vec![field("n", typed(JsonType::Number), true)],
        vec![field("lang", string(), false)],
        vec![vec![interp(input(&["n"]), &[Filter::FormatNumber])]],
        vec![],
    );
    assert!(!i.context_locale);
    // A context without a `locale` declaration cannot carry one (it would be
    // undeclared), so the flag alone decides; forcing it on reads nothing.
    i.context_locale = true;
    assert_eq!(
        render_texts(&i, json!({"n": 1000}), json!({"lang": "nl"})),
        Ok(vec!["1000.00".to_owned()])
    );
}

#[test]
fn template_syntax_comes_out_verbatim() {
    let i = interaction(
        vec![field("v", string(), true)],
        vec![],
        vec![vec![
            text("{{ inputs.v }} {% if x %} ${v} "),
            interp(input(&["v"]), &[]),
            text(" "),
            interp(input(&["v"]), &[Filter::Upper]),
        ]],
        vec![],
    );
    assert_eq!(
        render_texts(&i, json!({"v": "{{x}}{% if %}${x}"}), json!({})),
        Ok(vec![
            "{{ inputs.v }} {% if x %} ${v} {{x}}{% if %}${x} {{X}}{% IF %}${X}".to_owned()
        ])
    );
}

#[test]
fn for_each_items_and_separators() {
    let i = interaction(
        vec![field("rows", typed(JsonType::Array), true)],
        vec![],
        vec![vec![for_each(
            input(&["rows"]),
            vec![
                interp(local(0, "row", &["name"]), &[]),
                text(":"),
                for_each(
                    local(0, "row", &["tags"]),
                    vec![interp(local(1, "tag", &[]), &[])],
                    Some("+"),
                ),
            ],
            Some("; "),
        )]],
        vec![],
    );
    assert_eq!(
        render_texts(
            &i,
            json!({"rows": [{"name": "a", "tags": [1, 2]}, {"name": "b", "tags": []}]}),
            json!({})
        ),
        Ok(vec!["a:1+2; b:".to_owned()])
    );
}

#[test]
fn request_validation_collects_every_problem() {
    let date = Schema {
        format: Some(Format::Date),
        ..string()
    };
    let i = interaction(
        vec![
            field("name", string(), true),
            field("age", typed(JsonType::Integer), true),
            field("due", date, false),
        ],
        vec![field("locale", string(), false)],
        vec![vec![text("x")]],
        vec![],
    );
    let inputs = obj(json!({"age": "old", "due": "2026-02-30", "extra": 1}));
    let context = obj(json!({"locale": 5, "tenant": "t"}));
    let e = render(&i, &inputs, &context).expect_err("invalid request");
    let got: Vec<(Code, Option<&str>)> = e
        .diagnostics
        .iter()
        .map(|d| (d.code, d.json_pointer.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            (Code::ValueInvalid, Some("/inputs/name")),
            (Code::ValueInvalid, Some("/inputs/age")),
            (Code::ValueInvalid, Some("/inputs/due")),
            (Code::ValueInvalid, Some("/inputs/extra")),
            (Code::ValueInvalid, Some("/context/locale")),
            (Code::ValueInvalid, Some("/context/tenant")),
        ]
    );
    // One display policy for every error type: the diagnostics, one line
    // each, with their helps.
    let shown = e.to_string();
    assert_eq!(shown, e.diagnostics.to_string());
    assert!(shown.starts_with("error[TQX_VALUE_INVALID]: "), "{shown}");
    assert_eq!(
        shown.matches("error[TQX_VALUE_INVALID]").count(),
        6,
        "{shown}"
    );
    assert_eq!(
        templiqx::validate_request(&i, &obj(json!({"name": "n", "age": 3})), &obj(json!({}))),
        Ok(())
    );
}

#[test]
fn nested_request_violations_point_into_the_value() {
    let tags = Schema {
        items: Some(string().into()),
        ..typed(JsonType::Array)
    };
    let i = interaction(
        vec![field("tags", tags, true)],
        vec![],
        vec![vec![]],
        vec![],
    );
    let e = templiqx::validate_request(&i, &obj(json!({"tags": ["a", 2]})), &obj(json!({})))
        .expect_err("wrong item type");
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].json_pointer.as_deref(), Some("/inputs/tags/1"));
}

#[test]
fn typed_values_render_without_json() {
    // A hand-written stand-in for a generated `Inputs` struct.
    struct Inputs {
        name: String,
        visits: u32,
    }
    impl templiqx::ObjectView for Inputs {
        fn get(&self, key: &str) -> Option<templiqx::ValueRef<'_>> {
            use templiqx::AsValue;
            match key {
                "name" => Some(self.name.as_value()),
                "visits" => Some(self.visits.as_value()),
                _ => None,
            }
        }
        fn len(&self) -> usize {
            2
        }
        fn entries(&self) -> Box<dyn Iterator<Item = (&str, templiqx::ValueRef<'_>)> + '_> {
            use templiqx::AsValue;
            Box::new(
                [
                    ("name", self.name.as_value()),
                    ("visits", self.visits.as_value()),
                ]
                .into_iter(),
            )
        }
    }
    let i = interaction(
        vec![
            field("name", string(), true),
            field("visits", typed(JsonType::Integer), true),
        ],
        vec![],
        vec![vec![
            interp(input(&["name"]), &[]),
            text(" #"),
            interp(input(&["visits"]), &[]),
        ]],
        vec![],
    );
    let inputs = Inputs {
        name: "Ryan".into(),
        visits: 3,
    };
    let r = render(&i, &inputs, &templiqx::contracts::value::EmptyObject).expect("renders");
    assert_eq!(r.messages[0].content, "Ryan #3");
}

#[test]
fn static_ir_renders() {
    use std::borrow::Cow;
    use templiqx::contracts::Seq;
    static BODY: &[Node] = &[
        Node::Text(Cow::Borrowed("static ")),
        Node::Interpolate {
            value: Expr::Literal(templiqx::contracts::IrValue::Bool(true)),
            filters: Seq::Static(&[Filter::Json]),
            site: templiqx::contracts::ir::SiteId::NONE,
        },
    ];
    let mut i = interaction(vec![], vec![], vec![], vec![]);
    i.messages = Seq::Owned(vec![templiqx::contracts::ir::Message {
        role: templiqx::contracts::Role::Developer,
        content: Seq::Static(BODY),
        site: templiqx::contracts::ir::SiteId::NONE,
    }]);
    assert_eq!(
        render_texts(&i, json!({}), json!({})),
        Ok(vec!["static true".to_owned()])
    );
}

#[test]
fn a_failed_expression_reads_the_same_in_a_render_and_in_an_eval_check() {
    use templiqx::contracts::ir::{Check, CompareOp, Expr};
    // One evaluator (`templiqx_contracts::expr`) serves both: the same
    // expression over the same `inputs` fails with the same code and
    // message; only help, pointer and site are each caller's own.
    let exprs = [
        Expr::Compare(CompareOp::Gt, input(&["s"]).into(), lit(json!(1)).into()),
        Expr::Contains(input(&["s"]).into(), lit(json!(1)).into()),
        Expr::Equals(input(&["a", "b"]).into(), lit(json!(1)).into()),
        Expr::Equals(input(&["list", "3"]).into(), lit(json!(1)).into()),
        Expr::And(vec![lit(json!(true)), input(&["s"])].into()),
    ];
    let inputs = obj(json!({"s": "x", "a": null, "list": [1]}));
    let context = obj(json!({}));
    for expr in exprs {
        let i = interaction(
            vec![
                field("s", Schema::ANY, true),
                field("a", Schema::ANY, true),
                field("list", Schema::ANY, true),
            ],
            vec![],
            vec![vec![when(expr.clone(), vec![], vec![])]],
            vec![],
        );
        let rendered = render(&i, &inputs, &context).expect_err("fails");
        let check = Check {
            id: "c".into(),
            description: None,
            expr,
            source: "c".into(),
            site: None,
            judge: None,
        };
        let checked = templiqx::evaluate_check(
            &check,
            &inputs,
            &context,
            templiqx::contracts::ValueRef::Null,
        )
        .expect_err("fails");
        let r = &rendered.diagnostics[0];
        assert_eq!((r.code, &r.message), (checked.code, &checked.message));
    }
}
