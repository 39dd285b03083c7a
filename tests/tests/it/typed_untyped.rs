//! Typed and untyped agree (`docs/format.md`, "Generated Rust", "Typed and
//! untyped agree"): a differential property test over the example
//! contracts and a contract of schema shapes (`contracts/shapes.yaml`:
//! integers with bounds, numbers with exclusive bounds, nullable required
//! and optional fields, nested closed and open objects, arrays with item
//! bounds, string enums, `date`/`date-time`, untyped values).
//!
//! For generated JSON values, valid and near misses (wrong types, out of
//! bounds, missing required keys, undeclared keys, integer-valued floats,
//! bad dates), both paths give the same verdict — the untyped path is the
//! runtime's validation (`validate_request`, `validate_output`), the typed
//! path deserialises the generated `Inputs`/`Context`/`Output` — and for a
//! valid value, the typed value's canonical JSON (through `ObjectView` and
//! through `Serialize`) is the untyped value's, byte for byte; a render of
//! both gives the same request fingerprint.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Map, Value, json};
use std::sync::atomic::{AtomicUsize, Ordering};
use templiqx::contracts::canonical::to_canonical_string;
use templiqx::contracts::typed;
use templiqx::contracts::{Interaction, JsonType, Number, Schema};
use templiqx::{AsValue, Scope};

templiqx::include_contract!("contracts/shapes.yaml", target = ["structured_output"]);
templiqx::include_contract!(
    "../examples/packages/demo/contracts/greeting.yaml",
    target = ["structured_output"]
);
templiqx::include_contract!(
    package = "../examples/crm3",
    contract = "lease-term-extraction",
    target = ["structured_output"]
);
templiqx::include_contract!(
    package = "../examples/crm3",
    contract = "lease-summary-drafting",
    target = ["structured_output"]
);

/// The typed path's result for one JSON value: the canonical JSON of the
/// decoded value through `AsValue` and through `Serialize`, or the error.
type Typed = fn(&Value) -> Result<(String, String), String>;

/// A typed render of inputs and context: the request fingerprint.
type TypedRender = fn(&Value, &Value) -> Option<String>;

struct Case {
    name: &'static str,
    interaction: &'static Interaction,
    inputs: Typed,
    context: Typed,
    output: Typed,
    decode_output: Typed,
    render: TypedRender,
}

fn both<T: AsValue + templiqx::__private::serde::Serialize>(t: &T) -> (String, String) {
    let serialized = serde_json::to_value(t).expect("a generated type serialises");
    (to_canonical_string(t), to_canonical_string(&serialized))
}

macro_rules! case {
    ($m:ident) => {
        Case {
            name: stringify!($m),
            interaction: &$m::INTERACTION,
            inputs: |v| {
                serde_json::from_value::<$m::Inputs>(v.clone())
                    .map(|t| both(&t))
                    .map_err(|e| e.to_string())
            },
            context: |v| {
                serde_json::from_value::<$m::Context>(v.clone())
                    .map(|t| both(&t))
                    .map_err(|e| e.to_string())
            },
            output: |v| {
                serde_json::from_value::<$m::Output>(v.clone())
                    .map(|t| both(&t))
                    .map_err(|e| e.to_string())
            },
            decode_output: |v| {
                $m::decode_output(v)
                    .map(|t| both(&t))
                    .map_err(|e| e.to_string())
            },
            render: |i, c| {
                let i: $m::Inputs = serde_json::from_value(i.clone()).ok()?;
                let c: $m::Context = serde_json::from_value(c.clone()).ok()?;
                $m::render(&i, &c).ok().map(|r| r.request_fingerprint())
            },
        }
    };
}

// ---- Value generation from a schema ------------------------------------

fn num(n: &Option<Number>) -> Option<f64> {
    n.map(Number::as_f64)
}

/// Integers near the schema's bounds (or around zero), as JSON integers
/// or as integer-valued doubles (`2.0`).
fn integer(s: &Schema) -> BoxedStrategy<Value> {
    let lo = num(&s.minimum)
        .or(num(&s.exclusive_minimum))
        .unwrap_or(-50.0) as i64;
    let hi = num(&s.maximum)
        .or(num(&s.exclusive_maximum))
        .unwrap_or(50.0) as i64;
    let near = (lo - 2..=hi + 2, any::<bool>())
        .prop_map(|(n, float)| if float { json!(n as f64) } else { json!(n) });
    // The edges of what `i64` holds exactly, as integers and as doubles.
    let edges = prop_oneof![
        Just(json!(9_007_199_254_740_992.0)),
        Just(json!(-9_007_199_254_740_992.0)),
        Just(json!(9_007_199_254_740_994.0)),
        Just(json!(1_234_567_890_123_456_789.0)),
        Just(json!(-9_223_372_036_854_775_808.0)),
        Just(json!(i64::MAX)),
        Just(json!(i64::MIN)),
        Just(json!(u64::MAX)),
    ];
    prop_oneof![8 => near, 1 => edges].boxed()
}

fn number(s: &Schema) -> BoxedStrategy<Value> {
    let lo = num(&s.minimum)
        .or(num(&s.exclusive_minimum))
        .unwrap_or(-100.0);
    let hi = num(&s.maximum)
        .or(num(&s.exclusive_maximum))
        .unwrap_or(100.0);
    prop_oneof![
        (lo - 1.0..hi + 1.0).prop_map(|f| json!(f)),
        Just(json!(lo)),
        Just(json!(hi)),
        (lo as i64 - 1..=hi as i64 + 1).prop_map(|n| json!(n)),
        Just(json!(0.1 + 0.2)),
        Just(json!(1e21)),
    ]
    .boxed()
}

fn date() -> BoxedStrategy<String> {
    (1990u32..2040, 0u32..=13, 0u32..=32)
        .prop_map(|(y, m, d)| format!("{y:04}-{m:02}-{d:02}"))
        .boxed()
}

fn string(s: &Schema) -> BoxedStrategy<Value> {
    if let Some(values) = &s.enum_values {
        let values: Vec<Value> = values.iter().map(|v| v.to_json()).collect();
        return prop_oneof![
            4 => proptest::sample::select(values),
            1 => Just(json!("not-a-member")),
        ]
        .boxed();
    }
    let text = match s.format {
        Some(templiqx::contracts::schema::Format::Date) => date(),
        Some(templiqx::contracts::schema::Format::DateTime) => (date(), 0u32..=25, 0u32..=61)
            .prop_map(|(d, h, m)| format!("{d}T{h:02}:{m:02}:00Z"))
            .boxed(),
        None => {
            let lo = s.min_length.unwrap_or(0).saturating_sub(1) as usize;
            let hi = s.max_length.map_or(8, |m| m + 1) as usize;
            proptest::collection::vec(prop_oneof!["[a-z]", "[ -~]", "[é日\n]"], lo..=hi.max(lo))
                .prop_map(|cs| cs.concat())
                .boxed()
        }
    };
    text.prop_map(Value::String).boxed()
}

fn array(s: &Schema, depth: u32) -> BoxedStrategy<Value> {
    let lo = s.min_items.unwrap_or(0).saturating_sub(1) as usize;
    let hi = s.max_items.map_or(3, |m| m + 1) as usize;
    let item = match &s.items {
        Some(items) => value(items, depth + 1),
        None => any_json(),
    };
    proptest::collection::vec(item, lo..=hi.max(lo))
        .prop_map(Value::Array)
        .boxed()
}

/// Objects: each required property almost always, each optional one half
/// the time, sometimes an undeclared member.
fn object(s: &Schema, depth: u32) -> BoxedStrategy<Value> {
    let mut members: Vec<BoxedStrategy<Option<(String, Value)>>> = Vec::new();
    for (key, prop) in s.properties.iter() {
        let key = key.to_string();
        let weight = if s.is_required(&key) { 19 } else { 1 };
        let present = value(prop, depth + 1).prop_map(move |v| Some((key.clone(), v)));
        members.push(prop_oneof![weight => present, 1 => Just(None)].boxed());
    }
    members.push(
        prop_oneof![12 => Just(None), 1 => Just(Some(("undeclared".to_owned(), json!(1))))].boxed(),
    );
    members
        .prop_map(|ms| Value::Object(ms.into_iter().flatten().collect::<Map<_, _>>()))
        .boxed()
}

fn any_json() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-5i64..5).prop_map(|n| json!(n)),
        Just(json!(2.5)),
        "[a-z]{0,3}".prop_map(Value::String),
        Just(json!([1, "a"])),
        Just(json!({"k": [true]})),
    ]
    .boxed()
}

/// A value for `s`: mostly of one of its types, sometimes of another type
/// (a near miss the validator must refuse).
fn value(s: &Schema, depth: u32) -> BoxedStrategy<Value> {
    if depth > 4 {
        return any_json();
    }
    if let Some(c) = &s.const_value {
        return prop_oneof![3 => Just(c.to_json()), 1 => any_json()].boxed();
    }
    let types: Vec<JsonType> = if s.types.is_any() {
        vec![JsonType::Object, JsonType::String, JsonType::Integer]
    } else {
        s.types.iter().collect()
    };
    let mut options: Vec<(u32, BoxedStrategy<Value>)> = types
        .into_iter()
        .map(|t| {
            let strategy = match t {
                JsonType::Null => Just(Value::Null).boxed(),
                JsonType::Boolean => any::<bool>().prop_map(Value::Bool).boxed(),
                JsonType::Integer => integer(s),
                JsonType::Number => number(s),
                JsonType::String => string(s),
                JsonType::Array => array(s, depth),
                JsonType::Object if s.properties.is_empty() => any_json(),
                JsonType::Object => object(s, depth),
            };
            (6, strategy)
        })
        .collect();
    options.push((1, any_json()));
    proptest::strategy::Union::new_weighted(options).boxed()
}

/// A request scope: an object of the declared fields.
fn scope(fields: &[templiqx::contracts::ir::Field]) -> BoxedStrategy<Value> {
    let schema = Schema {
        types: templiqx::contracts::TypeSet::of(JsonType::Object),
        properties: templiqx::contracts::Seq::Owned(
            fields
                .iter()
                .map(|f| (f.name.clone(), f.schema.clone()))
                .collect(),
        ),
        required: templiqx::contracts::Seq::Owned(
            fields
                .iter()
                .filter(|f| f.required)
                .map(|f| f.name.clone())
                .collect(),
        ),
        ..Schema::ANY
    };
    object(&schema, 0)
}

// ---- The two paths ------------------------------------------------------

/// The untyped verdict on one scope of a request: the runtime's request
/// validation, with the other scope empty, keeping only this scope's
/// problems.
fn untyped_scope(interaction: &Interaction, which: Scope, value: &Value) -> bool {
    let map = value.as_object().expect("scopes are objects");
    let empty = Map::new();
    let (inputs, context, prefix) = match which {
        Scope::Inputs => (map, &empty, "/inputs"),
        _ => (&empty, map, "/context"),
    };
    match templiqx::validate_request(interaction, inputs, context) {
        Ok(()) => true,
        Err(ds) => !ds
            .iter()
            .any(|d| d.json_pointer.as_deref().unwrap_or("").starts_with(prefix)),
    }
}

/// Whether a value the untyped path may accept holds a number its
/// generated type cannot hold exactly: the documented exception, where the
/// typed path refuses (`docs/format.md`, "Typed and untyped agree").
fn unfit(interaction: &Interaction, which: Option<Scope>, value: &Value) -> bool {
    let fields = match which {
        None => {
            return !typed::unrepresentable(&interaction.output_schema, value.as_value())
                .is_empty();
        }
        Some(Scope::Inputs) => &interaction.inputs[..],
        Some(_) => &interaction.context[..],
    };
    let map = value.as_object().expect("scopes are objects");
    fields.iter().any(|f| {
        map.get(f.name.as_ref())
            .is_some_and(|v| !typed::unrepresentable(&f.schema, v.as_value()).is_empty())
    })
}

#[derive(Default)]
struct Tally {
    cases: AtomicUsize,
    valid: AtomicUsize,
    unfit: AtomicUsize,
}

/// Compares the verdicts and, when valid, the canonical bytes.
fn agree(
    what: &str,
    (untyped_valid, unfit): (bool, bool),
    value: &Value,
    typed: Result<(String, String), String>,
    tally: &Tally,
) -> Result<(), TestCaseError> {
    tally.cases.fetch_add(1, Ordering::Relaxed);
    if untyped_valid && unfit {
        // The documented exception: refused by the typed path, with its
        // own message, never rounded.
        tally.unfit.fetch_add(1, Ordering::Relaxed);
        let e = typed.err().unwrap_or_default();
        prop_assert!(
            e.contains("does not fit the generated type"),
            "{what}: typed path must refuse a value its type cannot hold: {value}\n{e}"
        );
        return Ok(());
    }
    match typed {
        Ok((view, serialized)) => {
            prop_assert!(
                untyped_valid,
                "{what}: typed accepts what validation refuses: {value}"
            );
            tally.valid.fetch_add(1, Ordering::Relaxed);
            let canonical = to_canonical_string(value);
            prop_assert_eq!(&view, &canonical, "{}: ObjectView bytes of {}", what, value);
            prop_assert_eq!(
                &serialized,
                &canonical,
                "{}: Serialize bytes of {}",
                what,
                value
            );
        }
        Err(e) => prop_assert!(
            !untyped_valid,
            "{what}: typed refuses what validation accepts: {value}\n{e}"
        ),
    }
    Ok(())
}

fn run_case(case: &Case, cases: u32, tally: &Tally) {
    let i = case.interaction;
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let request = (scope(&i.inputs), scope(&i.context));
    runner
        .run(&request, |(inputs, context)| {
            let vi = untyped_scope(i, Scope::Inputs, &inputs);
            let ui = unfit(i, Some(Scope::Inputs), &inputs);
            agree("inputs", (vi, ui), &inputs, (case.inputs)(&inputs), tally)?;
            let vc = untyped_scope(i, Scope::Context, &context);
            let uc = unfit(i, Some(Scope::Context), &context);
            agree(
                "context",
                (vc, uc),
                &context,
                (case.context)(&context),
                tally,
            )?;
            let (mi, mc) = (inputs.as_object().unwrap(), context.as_object().unwrap());
            let untyped = templiqx::render(i, mi, mc).map(|r| r.request_fingerprint());
            let typed = (case.render)(&inputs, &context);
            if ui || uc {
                prop_assert_eq!(typed, None, "an unfit request renders only untyped");
            } else {
                prop_assert_eq!(untyped.ok(), typed, "fingerprints");
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{}: {e}", case.name));
    let output = value(&i.output_schema, 0);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&output, |output| {
            let valid = templiqx::validate_output(i, output.as_value()).is_ok();
            let unfit = unfit(i, None, &output);
            agree(
                "Output",
                (valid, unfit),
                &output,
                (case.output)(&output),
                tally,
            )?;
            agree(
                "decode_output",
                (valid, unfit),
                &output,
                (case.decode_output)(&output),
                tally,
            )?;
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{}: {e}", case.name));
}

#[test]
fn typed_and_untyped_paths_agree_on_generated_values() {
    let cases = [
        case!(shapes),
        case!(greeting),
        case!(lease_term_extraction),
        case!(lease_summary_drafting),
    ];
    let tally = Tally::default();
    for case in &cases {
        run_case(case, 512, &tally);
    }
    let (n, valid, unfit) = (
        tally.cases.into_inner(),
        tally.valid.into_inner(),
        tally.unfit.into_inner(),
    );
    eprintln!(
        "typed/untyped differential: {n} comparisons over {} contracts ({valid} valid, {} invalid, {unfit} valid but refused by the typed path as documented)",
        cases.len(),
        n - valid - unfit
    );
    // Both verdicts are well represented.
    assert!(
        valid * 20 > n && (n - valid) * 20 > n,
        "{valid} valid of {n}"
    );
}

#[test]
fn the_issue_cases_behave_in_the_typed_path() {
    // `count: 2.0` is an integer (JSON Schema), so the typed path takes it.
    let inputs: shapes::Inputs =
        serde_json::from_value(json!({"count": 2.0, "reference": null})).unwrap();
    assert_eq!(inputs.count, 2);
    assert_eq!(inputs.reference, None);
    // A required nullable field may be null but not missing: refused like
    // the untyped render refuses it.
    let missing = json!({"count": 1});
    let typed = serde_json::from_value::<shapes::Inputs>(missing.clone()).unwrap_err();
    assert!(typed.to_string().contains("TQX_VALUE_INVALID"), "{typed}");
    assert!(typed.to_string().contains("reference"), "{typed}");
    let untyped = templiqx::render(
        &shapes::INTERACTION,
        missing.as_object().unwrap(),
        json!({"locale": "en"}).as_object().unwrap(),
    )
    .unwrap_err();
    assert_eq!(
        untyped.diagnostics[0].json_pointer.as_deref(),
        Some("/inputs/reference")
    );
    // A valid value the generated type cannot hold exactly is refused,
    // never rounded: an integer beyond 2^53 under `type: number`.
    let wide =
        json!({"count": 1, "reference": null, "ratio": 0.5, "extra": {"n": 9007199254740993u64}});
    let e = serde_json::from_value::<shapes::Inputs>(wide).unwrap_err();
    assert!(e.to_string().contains("/inputs/extra/n"), "{e}");
    let wide = json!({"total": u64::MAX, "label": "low", "reference": null});
    let e = shapes::decode_output(&wide).unwrap_err();
    assert_eq!(e.diagnostics[0].json_pointer.as_deref(), Some("/total"));
    assert_eq!(e.diagnostics[0].code.as_str(), "TQX_OUTPUT_SCHEMA");
    // Not an object at all.
    let e = serde_json::from_value::<shapes::Context>(json!([1])).unwrap_err();
    assert!(e.to_string().contains("`context` must be an object"), "{e}");
    // Sanity of the generator's IR view: the shapes contract has the
    // nullable integer the normalisation must reach.
    let level = shapes::INTERACTION
        .inputs
        .iter()
        .find(|f| f.name == "level")
        .unwrap();
    assert!(level.schema.types.contains(JsonType::Null));
    let level: shapes::Inputs =
        serde_json::from_value(json!({"count": 0, "reference": "r", "level": 4.0})).unwrap();
    assert_eq!(level.level, Some(Some(4)));
    // Nullable array elements are `Option`s: `null` is `None`, both ways.
    let gaps = json!({"count": 0, "reference": null, "gaps": [null, "x"], "rows": [null, {"v": null}, {"v": 3.0}]});
    let typed: shapes::Inputs = serde_json::from_value(gaps).unwrap();
    assert_eq!(typed.gaps, Some(vec![None, Some("x".to_owned())]));
    assert_eq!(
        serde_json::to_value(&typed).unwrap()["rows"],
        json!([null, {"v": null}, {"v": 3}])
    );
    let out = shapes::decode_output(
        &json!({"total": 1, "label": "low", "reference": null, "marks": [null, 2]}),
    )
    .unwrap();
    assert_eq!(out.marks, Some(vec![None, Some(2)]));
    // An integer-valued double beyond 2^53 under `type: integer` is refused
    // by the typed path: canonical JSON writes `1234567890123456800` for it,
    // the `i64` it would read into is `1234567890123456768`.
    let e = serde_json::from_value::<shapes::Context>(
        json!({"locale": "en", "limit": 1_234_567_890_123_456_789.0}),
    )
    .unwrap_err();
    assert!(e.to_string().contains("/context/limit"), "{e}");
    assert!(e.to_string().contains("beyond 2^53"), "{e}");
}
