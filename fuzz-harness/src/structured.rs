//! The structure-aware harness: valid contracts and schema-valid requests
//! built from bytes with `arbitrary`.
//!
//! Property (docs/format.md, "Checks" and "Render budgets"): a contract
//! that checks renders every request that is valid against its
//! declarations, failing at most with `TQX_RENDER_BUDGET`; nothing panics.

use arbitrary::{Arbitrary, Result, Unstructured};
use std::fmt::Write as _;

use crate::{Outcome, check_diagnostics, profile};

/// The declared type of one generated input field.
#[derive(Clone, Debug)]
enum Ty {
    /// `type: string` with optional length bounds (`min <= max`).
    String { min: Option<u8>, max: Option<u8> },
    /// `type: string, format: date`.
    Date,
    /// `type: integer` with optional bounds (`min <= max`).
    Integer { min: Option<i32>, max: Option<i32> },
    /// `type: number`.
    Number,
    /// `type: boolean`.
    Boolean,
    /// `type: string, enum: [...]` (distinct values).
    Enum(Vec<String>),
    /// `type: array, items: { type: string }`, at most `max` items.
    Strings { max: Option<u8> },
}

impl<'a> Arbitrary<'a> for Ty {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Ty> {
        Ok(match u.int_in_range(0..=6)? {
            0 => {
                let (a, b) = (Option::<u8>::arbitrary(u)?, Option::<u8>::arbitrary(u)?);
                let (min, max) = match (a, b) {
                    (Some(a), Some(b)) => (Some(a.min(b) % 16), Some(a.max(b) % 16 + 16)),
                    (a, b) => (a.map(|a| a % 16), b),
                };
                Ty::String { min, max }
            }
            1 => Ty::Date,
            2 => {
                let (a, b) = (Option::<i32>::arbitrary(u)?, Option::<i32>::arbitrary(u)?);
                let (min, max) = match (a, b) {
                    (Some(a), Some(b)) => (Some(a.min(b)), Some(a.max(b))),
                    other => other,
                };
                Ty::Integer { min, max }
            }
            3 => Ty::Number,
            4 => Ty::Boolean,
            5 => {
                let mut values: Vec<String> = Vec::arbitrary(u)?;
                values.truncate(4);
                values.sort();
                values.dedup();
                if values.is_empty() {
                    values.push("only".to_owned());
                }
                Ty::Enum(values)
            }
            _ => Ty::Strings {
                max: Option::<u8>::arbitrary(u)?.map(|m| m % 8),
            },
        })
    }
}

impl Ty {
    /// The schema as flow YAML (strings JSON-quoted, which YAML reads).
    fn schema(&self) -> String {
        let q = quote;
        match self {
            Ty::String { min, max } => {
                let mut s = "{ type: string".to_owned();
                if let Some(m) = min {
                    let _ = write!(s, ", minLength: {m}");
                }
                if let Some(m) = max {
                    let _ = write!(s, ", maxLength: {m}");
                }
                s + " }"
            }
            Ty::Date => "{ type: string, format: date }".to_owned(),
            Ty::Integer { min, max } => {
                let mut s = "{ type: integer".to_owned();
                if let Some(m) = min {
                    let _ = write!(s, ", minimum: {m}");
                }
                if let Some(m) = max {
                    let _ = write!(s, ", maximum: {m}");
                }
                s + " }"
            }
            Ty::Number => "{ type: number }".to_owned(),
            Ty::Boolean => "{ type: boolean }".to_owned(),
            Ty::Enum(values) => {
                let list: Vec<String> = values.iter().map(|v| q(v)).collect();
                format!("{{ type: string, enum: [{}] }}", list.join(", "))
            }
            Ty::Strings { max } => match max {
                Some(m) => format!("{{ type: array, items: {{ type: string }}, maxItems: {m} }}"),
                None => "{ type: array, items: { type: string } }".to_owned(),
            },
        }
    }

    /// A value valid against [`Ty::schema`].
    fn value(&self, u: &mut Unstructured<'_>) -> Result<serde_json::Value> {
        use serde_json::Value;
        Ok(match self {
            Ty::String { min, max } => {
                let min = usize::from(min.unwrap_or(0));
                let max = max.map_or(min + 24, usize::from);
                let mut s: String = String::arbitrary(u)?.chars().take(max).collect();
                while s.chars().count() < min {
                    s.push(char::arbitrary(u).unwrap_or('x'));
                }
                Value::String(s)
            }
            Ty::Date => {
                let year = u.int_in_range(1..=9999)?;
                let month = u.int_in_range(1..=12u32)?;
                let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
                let days = match month {
                    2 if leap => 29,
                    2 => 28,
                    4 | 6 | 9 | 11 => 30,
                    _ => 31,
                };
                let day = u.int_in_range(1..=days)?;
                Value::String(format!("{year:04}-{month:02}-{day:02}"))
            }
            Ty::Integer { min, max } => {
                let lo = i64::from(min.unwrap_or(i32::MIN));
                let hi = i64::from(max.unwrap_or(i32::MAX));
                Value::from(u.int_in_range(lo..=hi)?)
            }
            Ty::Number => {
                let f = f64::arbitrary(u)?;
                Value::from(if f.is_finite() { f } else { 0.5 })
            }
            Ty::Boolean => Value::Bool(bool::arbitrary(u)?),
            Ty::Enum(values) => Value::String(u.choose(values)?.clone()),
            Ty::Strings { max } => {
                let n = u.int_in_range(0..=max.map_or(6, usize::from))?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(Value::String(String::arbitrary(u)?));
                }
                Value::Array(items)
            }
        })
    }

    /// Filter lists that type-check for this type in a plain interpolation.
    fn filters(&self) -> &'static [&'static str] {
        match self {
            Ty::String { .. } | Ty::Enum(_) => {
                &["", "trim", "lower", "upper", "json", "trim, upper"]
            }
            Ty::Date => &["", "format_date", "trim", "json"],
            Ty::Integer { .. } | Ty::Number => &["", "format_number", "json"],
            Ty::Boolean => &["", "json"],
            Ty::Strings { .. } => &["json"],
        }
    }
}

/// One generated content node.
#[derive(Arbitrary, Debug)]
enum NodeSpec {
    Text(String),
    Interpolate {
        field: u8,
        filter: u8,
    },
    When {
        field: u8,
        then: String,
        otherwise: String,
    },
    ForEach {
        field: u8,
        separator: String,
        lower: bool,
    },
    Equals {
        field: u8,
        other: u8,
    },
}

/// A generated contract and request.
#[derive(Debug)]
pub struct Case {
    /// The contract text (YAML).
    pub contract: String,
    /// The request inputs.
    pub inputs: serde_json::Map<String, serde_json::Value>,
    /// The request context (`locale` when declared).
    pub context: serde_json::Map<String, serde_json::Value>,
}

/// `s` as a YAML double-quoted scalar: JSON quoting, plus `\\u` escapes
/// for the characters JSON leaves raw but YAML 1.2 does not allow raw
/// (DEL, C1 controls but NEL, U+FFFE, U+FFFF; YAML 1.2 section 5.1).
pub fn quote(s: &str) -> String {
    let json = serde_json::to_string(s).expect("a string serialises");
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        let printable = matches!(c, '\u{20}'..='\u{7E}' | '\u{85}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..);
        if printable {
            out.push(c);
        } else {
            let _ = write!(out, "\\u{:04X}", c as u32);
        }
    }
    out
}

/// Builds a contract and a request valid against it from `u`.
pub fn case(u: &mut Unstructured<'_>) -> Result<Case> {
    let n = u.int_in_range(1..=6usize)?;
    let mut fields = Vec::with_capacity(n);
    for _ in 0..n {
        fields.push(Ty::arbitrary(u)?);
    }
    let with_locale = bool::arbitrary(u)?;
    let mut nodes: Vec<NodeSpec> = Vec::arbitrary(u)?;
    nodes.truncate(10);
    let mut contract =
        String::from("api_version: templiqx/v1alpha1\nid: generated\nversion: 0.1.0\ninputs:\n");
    for (i, ty) in fields.iter().enumerate() {
        let _ = writeln!(
            contract,
            "  f{i}: {{ schema: {}, required: true }}",
            ty.schema()
        );
    }
    if with_locale {
        contract.push_str("context:\n  locale: { schema: { type: string }, required: true }\n");
    }
    contract
        .push_str("capabilities: [structured_output]\nmessages:\n  - role: user\n    content:\n");
    let pick = |i: u8| usize::from(i) % fields.len();
    let mut any = false;
    for node in &nodes {
        let line = match node {
            NodeSpec::Text(t) => format!("{{ kind: text, value: {} }}", quote(t)),
            NodeSpec::Interpolate { field, filter } => {
                let f = pick(*field);
                let options = fields[f].filters();
                let filters = options[usize::from(*filter) % options.len()];
                format!(
                    "{{ kind: interpolate, expression: {{ kind: ref, path: inputs.f{f} }}, filters: [{filters}] }}"
                )
            }
            NodeSpec::When {
                field,
                then,
                otherwise,
            } => {
                let f = pick(*field);
                let condition = if matches!(fields[f].clone(), Ty::Boolean) {
                    format!("{{ kind: ref, path: inputs.f{f} }}")
                } else {
                    format!(
                        "{{ kind: not, operand: {{ kind: equals, left: {{ kind: ref, path: inputs.f{f} }}, right: {{ kind: literal, value: null }} }} }}"
                    )
                };
                format!(
                    "{{ kind: when, condition: {condition}, then: [{{ kind: text, value: {} }}], else: [{{ kind: text, value: {} }}] }}",
                    quote(then),
                    quote(otherwise)
                )
            }
            NodeSpec::ForEach {
                field,
                separator,
                lower,
            } => {
                let f = pick(*field);
                if !matches!(fields[f], Ty::Strings { .. }) {
                    continue;
                }
                let filters = if *lower { "lower" } else { "" };
                format!(
                    "{{ kind: for_each, collection: {{ kind: ref, path: inputs.f{f} }}, item: it, separator: {}, body: [{{ kind: interpolate, expression: {{ kind: ref, path: it }}, filters: [{filters}] }}] }}",
                    quote(separator)
                )
            }
            NodeSpec::Equals { field, other } => {
                let (a, b) = (pick(*field), pick(*other));
                format!(
                    "{{ kind: when, condition: {{ kind: equals, left: {{ kind: ref, path: inputs.f{a} }}, right: {{ kind: ref, path: inputs.f{b} }} }}, then: [{{ kind: text, value: same }}] }}"
                )
            }
        };
        any = true;
        let _ = writeln!(contract, "      - {line}");
    }
    if !any {
        contract.push_str("      - { kind: text, value: \"\" }\n");
    }
    contract.push_str("output_schema: { type: object }\n");
    let mut inputs = serde_json::Map::new();
    for (i, ty) in fields.iter().enumerate() {
        inputs.insert(format!("f{i}"), ty.value(u)?);
    }
    let mut context = serde_json::Map::new();
    if with_locale {
        let locale = *u.choose(&["en-US", "nl-NL", "de-DE", "fr", "", "EN_us"])?;
        context.insert("locale".to_owned(), serde_json::Value::from(locale));
    }
    Ok(Case {
        contract,
        inputs,
        context,
    })
}

/// Builds a [`Case`] from `data`, compiles it and renders its request.
///
/// Panics when a contract that compiled refuses its schema-valid request
/// with anything but `TQX_RENDER_BUDGET`, or on any malformed diagnostic.
/// Every generated contract is valid by construction, so one that does not
/// check is a failure too (of the compiler or of the generator).
pub fn structured(data: &[u8]) -> Outcome {
    let mut u = Unstructured::new(data);
    let Ok(case) = case(&mut u) else {
        return Outcome::Rejected;
    };
    let c = templiqx_build::compile_str(&case.contract, "generated.yaml", &profile());
    check_diagnostics(&c.diagnostics);
    let Some(interaction) = c.interaction else {
        panic!(
            "a generated contract does not check:\n{}\n{}",
            case.contract,
            c.render_diagnostics()
        );
    };
    match templiqx::render(&interaction, &case.inputs, &case.context) {
        Ok(r) => {
            assert_eq!(r.messages.len(), 1);
            Outcome::Accepted
        }
        Err(e) => {
            check_diagnostics(&e.diagnostics);
            assert!(
                e.diagnostics
                    .iter()
                    .all(|d| d.code == templiqx_contracts::Code::RenderBudget),
                "a contract that checks refused a schema-valid request:\n{}\ninputs: {}\ncontext: {}\n{:#?}",
                case.contract,
                serde_json::Value::Object(case.inputs.clone()),
                serde_json::Value::Object(case.context.clone()),
                e.diagnostics
            );
            Outcome::Rejected
        }
    }
}
