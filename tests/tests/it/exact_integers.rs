//! Integer literals of any size, both signs, keep their exact value from
//! JSON text through canonical JSON and fingerprints, validation, the
//! `format_number` filter and typed decoding (docs/decisions.md, "Canonical
//! JSON: exact big integers").

use crate::common;

use templiqx_contracts::canonical::{fingerprint, sha256_hex, to_canonical_string};
use templiqx_contracts::json::parse;
use templiqx_contracts::{Code, Json};

fn obj(v: &Json) -> &templiqx_contracts::JsonMap {
    v.as_object().expect("an object")
}

fn read(text: &str) -> Json {
    parse(text).unwrap_or_else(|d| panic!("{text}: {d}"))
}

#[test]
fn integers_beyond_64_bits_fingerprint_with_their_own_digits() {
    let v = read(r#"{"values":[100000000000000000001]}"#);
    let canonical = to_canonical_string(&v);
    assert_eq!(canonical, r#"{"values":[100000000000000000001]}"#);
    assert_eq!(fingerprint(&v), sha256_hex(canonical.as_bytes()));
    // Its neighbour, and the double a float parser would read, differ.
    let neighbour = read(r#"{"values":[100000000000000000000]}"#);
    assert_ne!(fingerprint(&v), fingerprint(&neighbour));
    // The canonical spelling of a double and the double agree.
    assert_eq!(
        fingerprint(&read(r#"{"values":[1e20]}"#)),
        fingerprint(&neighbour)
    );
    let huge = format!("-{}", "9".repeat(400));
    assert_eq!(
        to_canonical_string(&read(&format!("[{huge}, 18446744073709551616]"))),
        format!("[{huge},18446744073709551616]")
    );
}

#[test]
fn canonical_json_of_any_double_reads_back_to_the_same_bytes() {
    let v = read("[1.2345678901234568e20, 1234567890123456789.0, 2e300, 9.5e20, -4.4e19]");
    let once = to_canonical_string(&v);
    assert_eq!(
        once,
        "[123456789012345680000,1234567890123456800,2e+300,950000000000000000000,-44000000000000000000]"
    );
    assert_eq!(to_canonical_string(&read(&once)), once);
}

/// A contract: its `inputs:`/`context:` blocks, one user message of the
/// `content` nodes, and `output_schema` (flow style).
fn contract(declarations: &str, content: &[&str], output_schema: &str) -> String {
    let content: String = content.iter().map(|n| format!("      - {n}\n")).collect();
    format!(
        "api_version: templiqx/v1alpha1\nid: big\nversion: 0.1.0\n{declarations}\
         capabilities: [structured_output]\nmessages:\n  - role: user\n    content:\n\
         {content}output_schema: {output_schema}\n"
    )
}

const LOCALE: &str = "context:\n  locale: { schema: { type: string }, required: false }\n";

fn compile(contract: &str) -> templiqx_contracts::Interaction {
    let c = templiqx_build::compile_str(contract, "big.yaml", &common::structured_output());
    c.interaction
        .unwrap_or_else(|| panic!("{:?}", c.diagnostics))
}

fn interaction() -> templiqx_contracts::Interaction {
    let declarations = format!(
        "inputs:\n\
         \x20 count: {{ schema: {{ type: integer, minimum: -9223372036854775808, maximum: 18446744073709551615 }}, required: true }}\n\
         \x20 any: {{ schema: {{ type: number }}, required: false }}\n\
         \x20 pick: {{ schema: {{ enum: [1.0e+20, \"x\"] }}, required: false }}\n{LOCALE}"
    );
    compile(&contract(
        &declarations,
        &[
            "{ kind: interpolate, expression: { kind: ref, path: inputs.count }, filters: [format_number] }",
            "{ kind: text, value: \" / \" }",
            "{ kind: interpolate, expression: { kind: ref, path: inputs.count }, filters: [json] }",
        ],
        "{ type: object, properties: { id: { type: integer }, amount: { type: number }, raw: {} } }",
    ))
}

/// The first message of `interaction` rendered for the request `text`.
fn first_message(
    interaction: &templiqx_contracts::Interaction,
    text: &str,
) -> Result<String, templiqx::RenderError> {
    let request = read(text);
    templiqx::render(
        interaction,
        obj(&request["inputs"]),
        obj(&request["context"]),
    )
    .map(|r| r.messages[0].content.to_string())
}

/// The diagnostics of a render that must fail, as text.
fn refusal(rendered: Result<String, templiqx::RenderError>) -> String {
    match rendered {
        Ok(text) => panic!("rendered: {text}"),
        Err(e) => e.to_string(),
    }
}

fn render(request: &str) -> Result<String, templiqx::RenderError> {
    first_message(&interaction(), request)
}

#[test]
fn big_integers_render_digit_for_digit_and_are_validated_exactly() {
    let inside = r#"{"inputs": {"count": 18446744073709551615}, "context": {"locale": "nl"}}"#;
    assert_eq!(
        render(inside).unwrap(),
        "18.446.744.073.709.551.615,00 / 18446744073709551615"
    );
    // One above the bound: refused with both exact values in the message.
    let above = r#"{"inputs": {"count": 18446744073709551616}, "context": {}}"#;
    let e = render(above).unwrap_err();
    assert_eq!(
        e.diagnostics.codes().collect::<Vec<_>>(),
        [Code::ValueInvalid]
    );
    assert!(
        e.diagnostics[0]
            .message
            .contains("expected a number <= 18446744073709551615, found 18446744073709551616"),
        "{e}"
    );
    // A double bound shows the integer it is, not RFC 8785's spelling of it.
    let i = compile(&contract(
        "inputs:\n  n: { schema: { type: integer, maximum: 1.8446744073709552e19 }, required: true }\n",
        &["{ kind: interpolate, expression: { kind: ref, path: inputs.n }, filters: [json] }"],
        "{ type: object }",
    ));
    let e = first_message(
        &i,
        r#"{"inputs": {"n": 18446744073709551617}, "context": {}}"#,
    );
    let e = e.unwrap_err().to_string();
    assert!(
        e.contains("expected a number <= 18446744073709551616, found 18446744073709551617"),
        "{e}"
    );
    let below = r#"{"inputs": {"count": -9223372036854775809}, "context": {}}"#;
    assert!(refusal(render(below)).contains(">= -9223372036854775808, found -9223372036854775809"));
    // `enum` compares exactly: 10^20 is the double 1e20, 10^20 + 1 is not.
    let ok = r#"{"inputs": {"count": 1, "pick": 100000000000000000000}, "context": {}}"#;
    assert!(render(ok).is_ok());
    let off = r#"{"inputs": {"count": 1, "pick": 100000000000000000001}, "context": {}}"#;
    let e = render(off).unwrap_err();
    assert!(
        e.to_string().contains("found number 100000000000000000001"),
        "{e}"
    );
}

#[test]
fn format_number_prints_big_integers_grouped_and_exact() {
    let declarations =
        format!("inputs:\n  n: {{ schema: {{ type: integer }}, required: true }}\n{LOCALE}");
    let i = compile(&contract(
        &declarations,
        &[
            "{ kind: interpolate, expression: { kind: ref, path: inputs.n }, filters: [format_number] }",
        ],
        "{ type: object }",
    ));
    for (literal, locale, shown) in [
        (
            "-123456789012345678901234567890",
            "en-US",
            "-123,456,789,012,345,678,901,234,567,890.00",
        ),
        (
            "100000000000000000001",
            "de",
            "100.000.000.000.000.000.001,00",
        ),
        ("-9223372036854775809", "fr", "-9223372036854775809.00"),
    ] {
        let request =
            format!(r#"{{"inputs": {{"n": {literal}}}, "context": {{"locale": "{locale}"}}}}"#);
        assert_eq!(first_message(&i, &request).unwrap(), shown, "{literal}");
    }
}

#[test]
fn outputs_keep_big_integers_and_typed_decoding_refuses_what_it_cannot_hold() {
    let i = interaction();
    let text = r#"{"id": 1, "amount": 2.5, "raw": [100000000000000000001, -340282366920938463463374607431768211457]}"#;
    let output = read(text);
    // Valid, and its fingerprint covers the exact digits.
    templiqx::validate_output(&i, templiqx_contracts::AsValue::as_value(&output)).unwrap();
    assert_eq!(
        to_canonical_string(&output),
        r#"{"amount":2.5,"id":1,"raw":[100000000000000000001,-340282366920938463463374607431768211457]}"#
    );
    // Decoded into a value type, the digits survive.
    let kept: Json = templiqx::decode_output(&i, &output).unwrap();
    assert_eq!(kept, output);
    // `type: integer` is an `i64` in generated code: a big one is refused
    // by the typed path with the value's pointer, never rounded.
    let wide = read(r#"{"id": 100000000000000000001}"#);
    let e = templiqx::decode_output::<Json>(&i, &wide).unwrap_err();
    assert_eq!(
        e.diagnostics.codes().collect::<Vec<_>>(),
        [Code::OutputSchema]
    );
    assert_eq!(e.diagnostics[0].json_pointer.as_deref(), Some("/id"));
    assert!(
        e.to_string().contains("does not fit the generated type"),
        "{e}"
    );
}

#[test]
fn big_integers_between_minus_2_pow_64_and_minus_2_pow_63_compare_exactly_with_doubles() {
    // Beyond `i64::MIN`, so a `BigInt`, yet in the range of doubles that
    // are integers: bounds and `enum` must compare digit for digit.
    let i = compile(&contract(
        "inputs:\n\
         \x20 n: { schema: { type: integer, minimum: -1.5e19, maximum: -1.0e19 }, required: true }\n\
         \x20 pick: { schema: { enum: [-1.0e+19] }, required: false }\n",
        &["{ kind: interpolate, expression: { kind: ref, path: inputs.n }, filters: [json] }"],
        "{ type: object }",
    ));
    let render = |text: &str| first_message(&i, text);
    let inside =
        r#"{"inputs": {"n": -10000000000000000000, "pick": -10000000000000000000}, "context": {}}"#;
    assert_eq!(render(inside).unwrap(), "-10000000000000000000");
    let above = r#"{"inputs": {"n": -9999999999999999999}, "context": {}}"#;
    assert!(refusal(render(above)).contains("<= -10000000000000000000"));
    let below = r#"{"inputs": {"n": -15000000000000000001}, "context": {}}"#;
    assert!(refusal(render(below)).contains(">= -15000000000000000000"));
    let off =
        r#"{"inputs": {"n": -10000000000000000000, "pick": -10000000000000000001}, "context": {}}"#;
    assert!(refusal(render(off)).contains("expected one of"));
}
