//! Differential test: our canonical JSON against an independent RFC 8785
//! implementation (`serde_jcs`) on generated JSON whose integers lie inside
//! ±2^53, where our one deviation (exact digits for larger integers,
//! docs/decisions.md "Canonical JSON: exact big integers") cannot apply.
//! Every generated value must give identical bytes.

use proptest::prelude::*;
use serde_json::Value;
use templiqx_contracts::canonical::to_canonical_string;

/// The number of generated values compared (printed in the test output).
const CASES: u32 = 4096;

const TWO_53: i64 = 1 << 53;

fn string() -> impl Strategy<Value = String> {
    prop_oneof![
        // Any Unicode scalar values, control characters included.
        ".{0,12}",
        // Characters whose UTF-16 and UTF-8 orders differ (RFC 8785 3.2.3).
        "[a\u{e9}\u{fb33}\u{ff61}\u{1f600}\u{10ffff}\u{7f}\u{0}-\u{1f}\"\\\\/]{0,6}",
    ]
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-TWO_53..=TWO_53).prop_map(Value::from),
        (-1000i64..1000).prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        // Doubles around the ECMAScript notation switches (1e-7, 1e21).
        (-30i32..30, 1u32..1000).prop_map(|(e, m)| Value::from(f64::from(m) * 10f64.powi(e))),
    ]
}

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        string().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(string(), inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: CASES, ..ProptestConfig::default() })]

    #[test]
    fn canonical_json_equals_serde_jcs_inside_2_pow_53(value in json()) {
        let ours = to_canonical_string(&value);
        let theirs = serde_jcs::to_string(&value).expect("serde_jcs serialises JSON values");
        prop_assert_eq!(ours, theirs);
    }
}

#[test]
fn print_the_case_count() {
    println!("canonical JSON differential cases: {CASES}");
}
